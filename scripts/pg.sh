#!/usr/bin/env bash
# A private PostgreSQL cluster in a directory: unix socket only (no TCP), trust auth for the
# cluster's own role "m44". PostgreSQL refuses to run as root, so when invoked as root the
# cluster belongs to a system user "m44" (created on first use).
#
#   scripts/pg.sh start DIR [--fast]   create the cluster if needed, start it, create db "m44"
#   scripts/pg.sh stop DIR             stop it (no error when not running)
#   scripts/pg.sh url DIR              print the libpq connection string for database "m44"
#   scripts/pg.sh host DIR             print the socket directory
#   scripts/pg.sh destroy DIR          stop it and delete it
# --fast turns off fsync (tests only: data may be lost if the machine crashes).
set -euo pipefail

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: pg.sh start|stop|url|host|destroy DIR [--fast]" >&2; exit 2; }
fast=0; [ "${3:-}" = "--fast" ] && fast=1

. "$(dirname "$0")/pg-common.sh"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)

# The cluster lives in $dir unless its owner cannot reach it (root's home is private) or the
# socket path would be too long for a unix socket; then it lives in /var/tmp/m44d-pg/<hash>
# and $dir/cluster points there.
real="$dir/cluster"
if [ -L "$real" ]; then
  real=$(readlink "$real")
elif [ ! -d "$real" ]; then
  need_elsewhere=0
  [ ${#dir} -gt 80 ] && need_elsewhere=1
  if [ "$(id -u)" -eq 0 ] && ! runuser -u m44 -- test -x "$dir" 2>/dev/null; then need_elsewhere=1; fi
  if [ $need_elsewhere -eq 1 ]; then
    case "$cmd" in start|url|host) ;; *) exit 0 ;; esac
    hash=$(printf '%s' "$dir" | sha256sum | cut -c1-12)
    mkdir -p /var/tmp/m44d-pg
    chmod 755 /var/tmp/m44d-pg
    mkdir -p "/var/tmp/m44d-pg/$hash"
    ln -s "/var/tmp/m44d-pg/$hash" "$real"
    real="/var/tmp/m44d-pg/$hash"
  else
    mkdir -p "$real"
  fi
fi
[ "$(id -u)" -eq 0 ] && [ -d "$real" ] && chown m44 "$real" && chmod 700 "$real"

data="$real/data"
conninfo="host='$real' port=5432 user=m44 dbname=m44"

running() { [ -f "$data/postmaster.pid" ] && as_owner "$pgbin/pg_ctl" -D "$data" status >/dev/null 2>&1; }

case "$cmd" in
  url)
    echo "$conninfo" ;;
  host)
    echo "$real" ;;
  start)
    if [ ! -f "$data/PG_VERSION" ]; then
      log=$(mktemp /tmp/m44-initdb.XXXXXX); chmod 644 "$log"
      if ! as_owner "$pgbin/initdb" -D "$data" -U m44 --auth=trust -E UTF8 --locale=C.UTF-8 >"$log" 2>&1; then
        echo "pg.sh: initdb failed:" >&2; cat "$log" >&2; rm -f "$log"; exit 1
      fi
      rm -f "$log"
      {
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$real'"
        echo "port = 5432"
        echo "max_connections = 200"
        echo "logging_collector = off"
        if [ $fast -eq 1 ]; then
          echo "fsync = off"; echo "synchronous_commit = off"; echo "full_page_writes = off"
        fi
      } | as_owner tee -a "$data/postgresql.conf" >/dev/null
    fi
    if ! running; then
      if ! as_owner "$pgbin/pg_ctl" -D "$data" -l "$real/postgres.log" -w -t 60 start >/dev/null; then
        echo "pg.sh: PostgreSQL did not start; end of $real/postgres.log:" >&2
        tail -n 20 "$real/postgres.log" >&2 || true
        exit 1
      fi
    fi
    if ! as_owner "$pgbin/psql" -h "$real" -U m44 -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'm44'" | grep -q 1; then
      as_owner "$pgbin/createdb" -h "$real" -U m44 m44
    fi ;;
  stop)
    if running; then as_owner "$pgbin/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null; fi ;;
  destroy)
    if running; then as_owner "$pgbin/pg_ctl" -D "$data" -m immediate -w -t 60 stop >/dev/null || true; fi
    rm -rf "$real"
    [ -L "$dir/cluster" ] && rm -f "$dir/cluster"
    rmdir "$dir" 2>/dev/null || true ;;
  *)
    echo "usage: pg.sh start|stop|url|host|destroy DIR [--fast]" >&2; exit 2 ;;
esac
