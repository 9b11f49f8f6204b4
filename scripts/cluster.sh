#!/usr/bin/env bash
# m44d scaled out on one machine, on loopback only: a PostgreSQL primary and a streaming hot
# standby (a replication slot; synchronous, so that a write m44d acknowledged is on both), three
# m44d daemons that find the primary by themselves (a multi-host URI with
# target_session_attrs=read-write), and Debian's nginx balancing them. docs/SCALING.md says
# what each piece guarantees.
#
#   scripts/cluster.sh up       start it all (created on first use), then print where it is
#   scripts/cluster.sh status   what runs, the replication, each daemon's /readyz
#   scripts/cluster.sh down     stop it all (the data stays for the next `up`)
#   scripts/cluster.sh destroy  stop it all and delete it
#   scripts/cluster.sh promote  promote the standby (after the primary is gone: a failover)
#
# Environment: M44_CLUSTER_DIR (var/cluster), M44_CLUSTER_PORT (nginx, 8480; the primary
# listens on +1, the standby on +2, the daemons on +3, +4, +5), M44_CLUSTER_DAEMONS (3),
# M44_CLUSTER_FAST=1 (no fsync: tests only; data may be lost if the machine crashes),
# M44_CLUSTER_READS (standby: the daemons read standings, lists, roll logs and exports from the
# standby while it keeps up, --read-database; primary: every read from the primary).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)

cmd=${1:-}
dir=${M44_CLUSTER_DIR:-var/cluster}
base=${M44_CLUSTER_PORT:-8480}
ndaemons=${M44_CLUSTER_DAEMONS:-3}
fast=${M44_CLUSTER_FAST:-0}
nginx_port=$base
primary_port=$((base + 1))
standby_port=$((base + 2))
daemon_port() { echo $((base + 2 + $1)); }

. scripts/pg-common.sh

mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
# The databases' directories must be reachable by their owner (as root: the user m44); root's
# home is private, so then they live under /var/tmp.
pgroot="$dir/pg"
if [ "$(id -u)" -eq 0 ] && [ ! -e "$pgroot" ] && ! runuser -u m44 -- test -x "$dir" 2>/dev/null; then
  real="/var/tmp/m44d-cluster/$(printf '%s' "$dir" | sha256sum | cut -c1-12)"
  mkdir -p "$real"
  chmod 755 /var/tmp/m44d-cluster
  ln -s "$real" "$pgroot"
fi
mkdir -p "$pgroot"
pgroot=$(cd "$pgroot" && pwd -P)
[ "$(id -u)" -eq 0 ] && chown m44 "$pgroot"

primary="$pgroot/primary"
standby="$pgroot/standby"
slot=m44_standby
url="postgresql://m44@127.0.0.1:$primary_port,127.0.0.1:$standby_port/m44?target_session_attrs=read-write&connect_timeout=2"
case ${M44_CLUSTER_READS:-standby} in
  standby) read_url="postgresql://m44@127.0.0.1:$standby_port/m44" ;;
  primary) read_url="" ;;
  *) echo "cluster.sh: M44_CLUSTER_READS is standby or primary" >&2; exit 2 ;;
esac

psql_at() { as_owner "$pgbin/psql" -h 127.0.0.1 -p "$1" -U m44 -d "${3:-postgres}" -tAqc "$2"; }
pg_running() { [ -f "$1/postmaster.pid" ] && as_owner "$pgbin/pg_ctl" -D "$1" status >/dev/null 2>&1; }
pg_start() {
  pg_running "$1" && return 0
  if ! as_owner "$pgbin/pg_ctl" -D "$1" -l "$1.log" -w -t 60 start >/dev/null; then
    echo "cluster.sh: PostgreSQL in $1 did not start; end of $1.log:" >&2
    tail -n 20 "$1.log" >&2 || true
    exit 1
  fi
}
pg_stop() { if pg_running "$1"; then as_owner "$pgbin/pg_ctl" -D "$1" -m fast -w -t 60 stop >/dev/null || true; fi; }

make_primary() {
  [ -f "$primary/PG_VERSION" ] && return 0
  as_owner "$pgbin/initdb" -D "$primary" -U m44 --auth=trust -E UTF8 --locale=C.UTF-8 >"$pgroot/initdb.log" 2>&1 ||
    { echo "cluster.sh: initdb failed:" >&2; cat "$pgroot/initdb.log" >&2; exit 1; }
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $primary_port"
    echo "unix_socket_directories = ''"
    echo "max_connections = 200"
    echo "wal_level = replica"
    echo "max_wal_senders = 4"
    echo "max_replication_slots = 4"
    echo "hot_standby = on"
    # A standby serving reads tells the primary what it still reads, so that a read is not
    # cancelled by a vacuum on the primary.
    echo "hot_standby_feedback = on"
    echo "wal_receiver_status_interval = 1s"
    if [ "$fast" = 1 ]; then echo "fsync = off"; echo "full_page_writes = off"; fi
  } | as_owner tee -a "$primary/postgresql.conf" >/dev/null
}

make_standby() {
  [ -f "$standby/PG_VERSION" ] && return 0
  psql_at "$primary_port" "SELECT 1 FROM pg_replication_slots WHERE slot_name = '$slot'" | grep -q 1 ||
    psql_at "$primary_port" "SELECT pg_create_physical_replication_slot('$slot')" >/dev/null
  as_owner "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U m44 -D "$standby" -X stream -c fast \
    -S "$slot" -R -d "application_name=$slot" >/dev/null
  {
    echo "port = $standby_port"
    # Named so that the primary's synchronous_standby_names finds it.
    echo "primary_conninfo = 'host=127.0.0.1 port=$primary_port user=m44 application_name=$slot'"
    echo "primary_slot_name = '$slot'"
    # A promoted standby has no standby of its own: it must not wait for one.
    echo "synchronous_standby_names = ''"
  } | as_owner tee -a "$standby/postgresql.auto.conf" >/dev/null
}

nginx_conf() {
  local servers="" i
  for i in $(seq 1 "$ndaemons"); do
    servers+="        server 127.0.0.1:$(daemon_port "$i") max_fails=1 fail_timeout=2s;"$'\n'
  done
  mkdir -p "$dir/nginx/tmp"
  chmod 777 "$dir/nginx/tmp"
  cat >"$dir/nginx/nginx.conf" <<EOF
# Written by scripts/cluster.sh up. The public instance's own configuration, with TLS, is
# deploy/nginx/m44d.conf; this is its balancing part, on loopback.
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log $dir/nginx/access.log;
    client_body_temp_path $dir/nginx/tmp/body;
    proxy_temp_path $dir/nginx/tmp/proxy;
    fastcgi_temp_path $dir/nginx/tmp/fastcgi;
    uwsgi_temp_path $dir/nginx/tmp/uwsgi;
    scgi_temp_path $dir/nginx/tmp/scgi;
    upstream m44d {
$servers        keepalive 32;
    }
    server {
        listen 127.0.0.1:$nginx_port;
        client_max_body_size 1m;
        location / {
            proxy_pass http://m44d;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header Cookie "";
            proxy_connect_timeout 2s;
            # Long polls: m44d answers within --max-wait (30 s).
            proxy_read_timeout 75s;
            proxy_send_timeout 75s;
            proxy_buffering off;
            # A daemon that is down is skipped. A write is never sent twice by nginx: a client
            # retries it, with its Idempotency-Key.
            proxy_next_upstream error timeout;
        }
    }
}
EOF
}

# A pid file is believed only if its process is still the program it names (a pid file left by
# a machine that restarted may name anything).
alive_as() { # pidfile program
  local pid
  [ -f "$1" ] && pid=$(cat "$1") && [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$2"
}
daemon_running() { alive_as "$dir/m44d-$1.pid" m44d; }
start_daemon() {
  daemon_running "$1" && return 0
  # The cluster is one group's load on loopback: nginx is the only client, trusted as a proxy.
  DATABASE_URL="$url" M44_READ_DATABASE_URL="$read_url" "$root/bin/m44d" --listen "127.0.0.1:$(daemon_port "$1")" \
    --trust-proxy 127.0.0.1 ${M44_CLUSTER_DAEMON_ARGS:-} >>"$dir/m44d-$1.log" 2>&1 &
  echo $! >"$dir/m44d-$1.pid"
}
wait_ready() {
  local i
  for i in $(seq 1 300); do
    curl -sf -m 2 -o /dev/null "http://127.0.0.1:$1/readyz" && return 0
    sleep 0.1
  done
  return 1
}
nginx_running() { alive_as "$dir/nginx/nginx.pid" nginx; }

case "$cmd" in
  up)
    [ -x bin/m44d ] || { echo "cluster.sh: bin/m44d is not built (make all)" >&2; exit 1; }
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] ||
      { echo "cluster.sh: nginx is not installed (make cluster installs it)" >&2; exit 1; }
    # After a failover the standby is the primary: the old one must never start again as a
    # primary (the daemons would find it first, without the writes made since).
    if [ -f "$standby/PG_VERSION" ] && [ ! -f "$standby/standby.signal" ]; then
      echo "cluster.sh: the standby was promoted; the old primary must not start again." >&2
      echo "  Start over with 'scripts/cluster.sh destroy' then 'up' (or make the old primary a" >&2
      echo "  standby of the new one: pg_rewind, docs/SCALING.md)." >&2
      exit 1
    fi
    # Ports: each must be free, or held by this cluster's own part.
    in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
    busy=()
    pg_running "$primary" || ! in_use "$primary_port" || busy+=("$primary_port")
    pg_running "$standby" || ! in_use "$standby_port" || busy+=("$standby_port")
    for i in $(seq 1 "$ndaemons"); do
      daemon_running "$i" || ! in_use "$(daemon_port "$i")" || busy+=("$(daemon_port "$i")")
    done
    nginx_running || ! in_use "$nginx_port" || busy+=("$nginx_port")
    if [ ${#busy[@]} -gt 0 ]; then
      echo "cluster.sh: port(s) ${busy[*]} already in use by something else (M44_CLUSTER_PORT moves them)" >&2
      exit 1
    fi
    make_primary
    pg_start "$primary"
    psql_at "$primary_port" "SELECT 1 FROM pg_database WHERE datname = 'm44'" | grep -q 1 ||
      as_owner "$pgbin/createdb" -h 127.0.0.1 -p "$primary_port" -U m44 m44
    make_standby
    pg_start "$standby"
    # Synchronous from now on: a commit waits until the standby has it on disk.
    if [ "$(psql_at "$primary_port" "SELECT pg_is_in_recovery()")" = f ]; then
      psql_at "$primary_port" "ALTER SYSTEM SET synchronous_standby_names = '$slot'" >/dev/null
      psql_at "$primary_port" "SELECT pg_reload_conf()" >/dev/null
    fi
    for i in $(seq 1 "$ndaemons"); do start_daemon "$i"; done
    for i in $(seq 1 "$ndaemons"); do
      wait_ready "$(daemon_port "$i")" ||
        { echo "cluster.sh: m44d $i is not ready; end of $dir/m44d-$i.log:" >&2; tail -n 20 "$dir/m44d-$i.log" >&2; exit 1; }
    done
    nginx_conf
    if nginx_running; then
      /usr/sbin/nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -s reload 2>/dev/null
    else
      /usr/sbin/nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf"
    fi
    wait_ready "$nginx_port" || { echo "cluster.sh: nginx does not answer; see $dir/nginx/error.log" >&2; exit 1; }
    echo "m44d cluster up: http://127.0.0.1:$nginx_port/ (nginx, $ndaemons daemons)"
    echo "database: $url"
    ;;
  status)
    rc=0
    for n in primary standby; do
      port=$primary_port; [ $n = standby ] && port=$standby_port
      if pg_running "$pgroot/$n"; then
        role=$(psql_at "$port" "SELECT CASE WHEN pg_is_in_recovery() THEN 'standby' ELSE 'primary' END" || echo "?")
        echo "postgres $n (127.0.0.1:$port): running as $role"
      else
        echo "postgres $n (127.0.0.1:$port): stopped"; rc=1
      fi
    done
    for port in $primary_port $standby_port; do
      psql_at "$port" "SELECT 'replication to ' || application_name || ': ' || state || ', ' || sync_state || ', replay lag ' || coalesce(replay_lag::text, '0')
                       FROM pg_stat_replication" 2>/dev/null || true
    done
    for i in $(seq 1 "$ndaemons"); do
      p=$(daemon_port "$i")
      if daemon_running "$i"; then
        ready=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/readyz" || true)
        echo "m44d $i (127.0.0.1:$p): running, /readyz $ready"
      else
        echo "m44d $i (127.0.0.1:$p): stopped"; rc=1
      fi
    done
    if nginx_running; then echo "nginx (127.0.0.1:$nginx_port): running"; else echo "nginx (127.0.0.1:$nginx_port): stopped"; rc=1; fi
    exit $rc
    ;;
  promote)
    as_owner "$pgbin/pg_ctl" -D "$standby" -w -t 60 promote >/dev/null
    echo "standby promoted: 127.0.0.1:$standby_port is the primary"
    ;;
  down|destroy)
    if nginx_running; then
      npid=$(cat "$dir/nginx/nginx.pid")
      /usr/sbin/nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -s quit 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$npid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$npid" 2>/dev/null || true
    fi
    for i in $(seq 1 "$ndaemons"); do
      if daemon_running "$i"; then
        pid=$(cat "$dir/m44d-$i.pid")
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
      fi
      rm -f "$dir/m44d-$i.pid"
    done
    pg_stop "$primary"
    pg_stop "$standby"
    if [ "$cmd" = destroy ]; then
      rm -rf "$(readlink -f "$pgroot")" "$dir"
    fi
    ;;
  *)
    echo "usage: cluster.sh up|status|down|destroy|promote" >&2; exit 2 ;;
esac
