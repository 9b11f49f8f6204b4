#!/usr/bin/env bash
# make deploy-rehearsal: follows docs/DEPLOY.md step by step on a bare Debian 12 machine.
#
# A bare root is made with debootstrap (--variant=minbase bookworm); the only things added to
# it before DEPLOY.md's steps are what a VPS image has and a minbase root lacks: systemd (as
# init) and D-Bus. Then every ```sh block of docs/DEPLOY.md runs, in order, as root:
#   - the blocks before the "<!-- deploy-rehearsal: boot -->" marker (packages, the build) in
#     the root with the network (systemd-nspawn, not booted: no service starts, as in a chroot);
#   - the rest in the root booted with systemd-nspawn --boot --private-network: its own
#     systemd runs the real units (sandbox included), nginx listens on 80 and 443 inside the
#     container's own network namespace only (nothing is reachable from outside), and commands
#     are run in it with nsenter.
# Placeholders are replaced: the domain (m44.example.org) by m44.rehearsal.test, the e-mail
# address, and the repository's URL by a copy of this working tree (uncommitted changes and
# new files included; committed in the copy). The certbot block is replaced by a certificate
# signed by a throwaway CA, put where certbot puts it.
# At each "<!-- deploy-rehearsal: check ... -->" marker the script checks what the steps before
# it did: the dashboard, /healthz and /readyz (this machine only), nginx's connections, HTTP/2,
# HSTS, the redirect, gzip and the real client address
# in m44d's journal through nginx; the unit's sandbox in force; a backup made; a restore that
# brings back exactly the dumped state; an alert from a failed backup and from m44d killed
# (posted to a listener of the script's, in the journal at priority crit); the site again after
# the upgrade steps.
#
# Needs root, debootstrap, systemd-container (systemd-nspawn), and the network to a Debian
# mirror (M44_REHEARSAL_MIRROR). Takes 1 to 2 minutes with a nearby mirror. The root is
# deleted afterwards (M44_REHEARSAL_KEEP=1 keeps it); logs of every step stay in
# tests/out/deploy-rehearsal/. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
[ "$(id -u)" -eq 0 ] || { echo "deploy-rehearsal: run as root (debootstrap, systemd-nspawn)" >&2; exit 1; }
for c in debootstrap systemd-nspawn nsenter openssl curl git; do
  command -v "$c" >/dev/null 2>&1 || { echo "deploy-rehearsal: $c is missing (scripts/deps.sh rehearsal)" >&2; exit 1; }
done

mirror=${M44_REHEARSAL_MIRROR:-http://deb.debian.org/debian}
security=${M44_REHEARSAL_SECURITY:-http://deb.debian.org/debian-security}
domain=m44.rehearsal.test
work=$(mktemp -d /var/tmp/m44-rehearsal.XXXXXX)
# The alerts' address (DEPLOY.md's placeholder): a listener of this script's in the machine.
alert_port=8099
root=$work/root
logs=$repo/tests/out/deploy-rehearsal
rm -rf "$logs" && mkdir -p "$logs"
nspawn_pid=""
leader=""
t0=$SECONDS

say() { printf 'deploy-rehearsal: %s\n' "$*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

cleanup() {
  local status=$?
  if [ -n "${alert_listener:-}" ]; then kill "$alert_listener" 2>/dev/null || true; fi
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -TERM "$nspawn_pid" 2>/dev/null || true # nspawn asks the container's systemd to power off
    for _ in $(seq 60); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 1; done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
  fi
  # The container's init outlives a killed nspawn; killing it ends everything in the container.
  if [ -n "$leader" ] && kill -0 "$leader" 2>/dev/null; then kill -KILL "$leader" 2>/dev/null || true; sleep 1; fi
  if [ -z "${M44_REHEARSAL_KEEP:-}" ]; then rm -rf "$work"; else say "kept $root"; fi
  [ $status -eq 0 ] || say "logs of every step: $logs" >&2
}
trap cleanup EXIT

# ---- the steps of docs/DEPLOY.md ----
steps=$work/steps
mkdir -p "$steps"
awk -v dir="$steps" '
  /^```sh[ \t]*$/ { n++; f = sprintf("%s/%03d.sh", dir, n); inb = 1; printf "" > f; next }
  inb && /^```[ \t]*$/ { inb = 0; close(f); next }
  inb { print > f; next }
  /^<!-- deploy-rehearsal: .* -->[ \t]*$/ {
    m = $0; sub(/^<!-- deploy-rehearsal: /, "", m); sub(/ -->[ \t]*$/, "", m)
    n++; f = sprintf("%s/%03d.marker", dir, n); print m > f; close(f) }
  END { if (inb) { print "docs/DEPLOY.md: a ```sh block is not closed" > "/dev/stderr"; exit 1 } }
' docs/DEPLOY.md
for f in "$steps"/*.sh; do
  sed -i -e 's#https://git\.example\.org/m44d\.git#/root/m44d-src#g' \
         -e "s#https://alerts\.example\.org/m44d#http://127.0.0.1:$alert_port/m44d#g" \
         -e "s/m44\.example\.org/$domain/g" -e "s/admin@example\.org/admin@$domain/g" "$f"
  if grep -n 'example\.org' "$f" >/dev/null; then
    fail "a placeholder this script does not know is left in a step of docs/DEPLOY.md: $(grep -n 'example\.org' "$f" | head -1)"
  fi
done
markers=$(cat "$steps"/*.marker 2>/dev/null | tr '\n' ' ')
for m in boot "check site" "check backup" "check restore" "check alerts" "check upgrade"; do
  [[ " $markers" == *" $m "* ]] || fail "docs/DEPLOY.md has no '<!-- deploy-rehearsal: $m -->' marker"
done
[ "$(grep -l '^certbot certonly' "$steps"/*.sh | wc -l)" -eq 1 ] ||
  fail "docs/DEPLOY.md must have exactly one block running 'certbot certonly'"
say "docs/DEPLOY.md: $(ls "$steps"/*.sh | wc -l) shell blocks; markers: $markers"

# ---- a bare Debian 12 root, made a VPS ----
say "debootstrap --variant=minbase bookworm into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$logs/debootstrap.log" 2>&1 || {
  tail -n 20 "$logs/debootstrap.log" >&2; fail "debootstrap"; }
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo m44-vps >"$root/etc/hostname"

# This working tree, as a repository the DEPLOY.md clone step can clone and pull from.
# Only the copy is ever changed: every path below is absolute, inside $src.
src=$root/root/m44d-src
git clone -q --no-hardlinks "$repo" "$src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d "" f; do if [ -e "$f" ]; then printf "%s\0" "$f"; fi; done |
  tar --null -T - -cf -) | tar -xf - -C "$src"
(cd "$repo" && git ls-files -z --deleted) | while IFS= read -r -d '' f; do rm -f -- "$src/$f"; done
git -C "$src" add -A
git -C "$src" -c user.name=rehearsal -c user.email=rehearsal@localhost commit -q -m "working tree" || true

pass_env=(--setenv=DEBIAN_FRONTEND=noninteractive --setenv=LANG=C.UTF-8)
for v in http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY; do
  [ -n "${!v:-}" ] && pass_env+=("--setenv=$v=${!v}")
done
apt-config dump 2>/dev/null | grep -iE '^Acquire::(http|https)::Proxy' \
  >"$root/etc/apt/apt.conf.d/90m44-host-proxy" || rm -f "$root/etc/apt/apt.conf.d/90m44-host-proxy"
# A command in the root, not booted, with the host's network (for apt). nspawn's complaint
# about its propagation directory on hosts without systemd is noise.
in_root() {
  systemd-nspawn --quiet --register=no --keep-unit --pipe -D "$root" "${pass_env[@]}" \
    --chdir=/root "$@" 2> >(grep -v 'propagate' >&2)
}
say "making it a VPS: systemd as init, D-Bus"
in_root /bin/bash -euo pipefail -c 'apt-get update -q && apt-get install -y -q --no-install-recommends systemd systemd-sysv dbus' \
  >"$logs/vps.log" 2>&1 || { tail -n 20 "$logs/vps.log" >&2; fail "installing systemd in the root"; }

# ---- the certificate in place of certbot's: a throwaway CA signs it ----
tls=$work/tls
mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj "/CN=m44 rehearsal CA" -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$domain" \
  -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n' "$domain" >"$tls/ext"
openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
  -days 2 -extfile "$tls/ext" -out "$tls/server.pem" 2>/dev/null
fake_certbot() {
  local live=$root/etc/letsencrypt/live/$domain
  mkdir -p "$live"
  cat "$tls/server.pem" "$tls/ca.pem" >"$live/fullchain.pem"
  install -m 600 "$tls/server.key" "$live/privkey.pem"
}

# ---- the booted machine ----
boot() {
  say "booting the root: systemd-nspawn --boot --private-network"
  systemd-nspawn --boot --private-network --register=no --keep-unit --console=pipe \
    --machine=m44-vps -D "$root" </dev/null >"$logs/boot.log" 2>&1 &
  nspawn_pid=$!
  # The container's init is nspawn's child once nspawn's own intermediate process is gone:
  # looked up again until systemd in it answers.
  local state=""
  for _ in $(seq 120); do
    kill -0 "$nspawn_pid" 2>/dev/null || { tail -n 20 "$logs/boot.log" >&2; fail "systemd-nspawn exited"; }
    leader=$(ps -o pid= --ppid "$nspawn_pid" 2>/dev/null | head -n 1 | tr -d ' ' || true)
    if [ -n "$leader" ]; then
      state=$(in_vps systemctl is-system-running 2>/dev/null || true)
      case "$state" in running|degraded) break ;; esac
    fi
    sleep 1
  done
  case "$state" in
    running) ;;
    degraded) say "booted, degraded: $(in_vps systemctl --failed --no-legend --plain | tr '\n' ' ')" ;;
    *) tail -n 30 "$logs/boot.log" >&2; fail "the container did not finish booting ($state)" ;;
  esac
}
# A command inside the booted machine, as root, with a clean environment.
in_vps() {
  cd / && nsenter --target "$leader" --mount --uts --ipc --net --pid --root --wd \
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM=dumb "$@"
}
# The host's curl in the machine's network namespace, trusting the throwaway CA.
vcurl() {
  nsenter --target "$leader" --net curl --silent --show-error --max-time 30 \
    --resolve "$domain:443:127.0.0.1" --resolve "$domain:80:127.0.0.1" --cacert "$tls/ca.pem" "$@"
}

# ---- checks ----
# (Names of users are the machine's: ask it, not the host, whose /etc/passwd differs.)
checks=0
ok() { checks=$((checks + 1)); say "ok: $*"; }
expect() { # what condition...
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
has() { grep -qiE -- "$2" <<<"$1"; }

campaign1=""
campaign2=""
create_campaign() { # name [X-Forwarded-For] -> prints the id
  local xff=() body
  [ -n "${2:-}" ] && xff=(-H "X-Forwarded-For: $2")
  body=$(vcurl -X POST -H 'Content-Type: application/json' "${xff[@]}" \
    -d "{\"name\":\"$1\",\"ruleset\":\"standard\",\"players\":{\"allies\":\"Ann\",\"axis\":\"Bob\"}}" \
    -w '\n%{http_code}' "https://$domain/api/v1/campaigns")
  [ "$(tail -n 1 <<<"$body")" = 201 ] || fail "creating a campaign through nginx: $body"
  head -n 1 <<<"$body" | grep -oE '"id" *: *"[0-9a-f-]{36}"' | grep -oE '[0-9a-f-]{36}'
}
status_of() { vcurl -o /dev/null -w '%{http_code}' "$@"; }
back=""
wait_ready() { # -> $back: /readyz's status through nginx, once 200 or after 20 s
  for _ in $(seq 40); do
    back=$(status_of "https://$domain/readyz")
    [ "$back" = 200 ] && return 0
    sleep 0.5
  done
}

check_site() {
  local page head
  page=$(vcurl -w '\n%{http_code} %{http_version}' "https://$domain/")
  expect "the dashboard answers over https through nginx" has "$page" '<title>m44d'
  expect "with HTTP/2 ($(tail -n 1 <<<"$page"))" test "$(tail -n 1 <<<"$page")" = "200 2"
  expect "/healthz answers 200 through nginx" test "$(status_of "https://$domain/healthz")" = 200
  expect "/readyz answers 200 through nginx on the machine itself" test "$(status_of "https://$domain/readyz")" = 200
  expect "and not to a client elsewhere (403)" test "$(status_of --interface 127.0.0.2 "https://$domain/readyz")" = 403
  expect "nginx holds 32768 connections a worker" \
    has "$(in_vps nginx -T 2>/dev/null)" '^[[:space:]]*worker_connections 32768;'
  head=$(vcurl -D - -o /dev/null "https://$domain/healthz")
  expect "HSTS" has "$head" '^strict-transport-security: max-age=[0-9]+'
  head=$(vcurl -D - -o /dev/null "http://$domain/c/x?y=1")
  expect "http:// is redirected to https://" has "$head" "^location: https://$domain/c/x\?y=1"
  head=$(vcurl -D - -o /dev/null -H 'Accept-Encoding: gzip' "https://$domain/assets/app.js")
  expect "the dashboard's files are gzipped" has "$head" '^content-encoding: gzip'
  expect "/metrics is not public" test "$(status_of "https://$domain/metrics")" = 404
  expect "/metrics is served to the machine itself" \
    has "$(nsenter --target "$leader" --net curl -fsS --max-time 10 http://127.0.0.1:8044/metrics)" '^m44d_http_requests_total'
  # The client's address. m44d trusts 127.0.0.1 and ::1 (nginx); nginx appends the address it
  # was reached from to X-Forwarded-For, and m44d takes the last untrusted one. A client at
  # 127.0.0.2 (untrusted, as one on the internet) that forges the header is logged as itself;
  # from 127.0.0.1 (trusted) the header is believed.
  campaign1=$(create_campaign "Rehearsal one" 203.0.113.7)
  local probe
  probe=/api/v1/campaigns/00000000-0000-4000-8000-$(printf '%012d' $$)
  vcurl -o /dev/null --interface 127.0.0.2 -H 'X-Forwarded-For: 203.0.113.9' "https://$domain$probe"
  journal_line "http: 127\.0\.0\.2 GET $probe 404"
  expect "a client at 127.0.0.2 forging X-Forwarded-For is logged as 127.0.0.2 ($line)" test -n "$line"
  journal_line "http: 203\.0\.113\.7 POST /api/v1/campaigns 201"
  expect "from 127.0.0.1, X-Forwarded-For: 203.0.113.7 is believed ($line)" test -n "$line"
  # Each line reaches the journal with its priority: the "<6>" m44d starts it with is taken off.
  local pri
  pri=$(in_vps journalctl -u m44d --no-pager -o json | grep -F 'http: 203.0.113.7 POST /api/v1/campaigns 201' | tail -n 1 || true)
  expect "a request's line is in the journal at priority info, its prefix taken off" \
    has "$pri" '"PRIORITY":"6".*"MESSAGE":"[0-9]{4}-|"MESSAGE":"[0-9]{4}-.*"PRIORITY":"6"'
  expect "and journalctl -p warning leaves it out" \
    test -z "$(in_vps journalctl -u m44d --no-pager -o cat -p warning | grep -F 'http: 203.0.113.7' || true)"
  # A warning: PostgreSQL restarted under m44d's listener. journalctl -p warning shows it.
  in_vps systemctl restart postgresql
  line=""
  for _ in $(seq 20); do
    line=$(in_vps journalctl -u m44d --no-pager -o cat -p warning | grep -F 'listener: not looking at changes' | tail -n 1 || true)
    [ -n "$line" ] && break
    sleep 0.5
  done
  expect "PostgreSQL restarted: m44d's warning is in journalctl -p warning ($line)" test -n "$line"
  wait_ready
  expect "and m44d is ready again" test "$back" = 200
  check_sandbox
  say "systemd-analyze security m44d (online): $(in_vps systemd-analyze security m44d 2>/dev/null | tail -n 1)"
}

line=""
journal_line() { # pattern -> $line: m44d's journal line matching it, waiting up to 10 s
  line=""
  for _ in $(seq 20); do
    line=$(in_vps journalctl -u m44d --no-pager -o cat | grep -E "$1" | tail -n 1 || true)
    [ -n "$line" ] && return 0
    sleep 0.5
  done
}

check_sandbox() {
  local pid st
  pid=$(in_vps systemctl show -p MainPID --value m44d)
  st=$(in_vps cat "/proc/$pid/status")
  expect "m44d runs as the user m44d" test "$(in_vps stat -c %U "/proc/$pid")" = m44d
  expect "with no new privileges" has "$st" '^NoNewPrivs:[[:space:]]+1$'
  expect "under a seccomp filter" has "$st" '^Seccomp:[[:space:]]+2$'
  expect "with no capabilities" has "$st" '^CapEff:[[:space:]]+0+$'
  local rootfs
  rootfs=$(in_vps awk '$5 == "/" { print $6 }' "/proc/$pid/mountinfo" | tail -n 1)
  expect "on a read-only file system ($rootfs)" has "$rootfs" '^ro(,|$)'
}

dump=""
check_backup() {
  dump=$(ls -1t "$root"/var/backups/m44d/m44d-*.dump 2>/dev/null | head -n 1 || true)
  expect "m44d-backup.service made a dump ($(basename "${dump:-none}"))" test -s "$dump"
  local mode
  mode=$(in_vps stat -c '%U %a' "${dump#"$root"}")
  expect "the dump is the m44d user's alone ($mode)" test "$mode" = "m44d 600"
  expect "no partial dump left" test -z "$(ls "$root"/var/backups/m44d/*.part 2>/dev/null)"
  expect "pg_restore reads it (table campaigns)" \
    has "$(in_vps runuser -u m44d -- pg_restore --list "${dump#"$root"}")" 'TABLE public campaigns'
  expect "the timer is active" test "$(in_vps systemctl is-active m44d-backup.timer)" = active
  # A campaign made after the dump: a restore of that dump must not have it.
  campaign2=$(create_campaign "Rehearsal two, after the dump")
}

check_restore() {
  expect "the campaign in the dump is back after the restore" \
    test "$(status_of "https://$domain/api/v1/campaigns/$campaign1")" = 200
  expect "the campaign made after the dump is not (the database is the dump's)" \
    test "$(status_of "https://$domain/api/v1/campaigns/$campaign2")" = 404
}

# Alerts: a backup that cannot write its file, then m44d killed, must each reach the address
# DEPLOY.md's /etc/m44d/alert posts to (here a listener in the machine's network, run from the
# host) and the journal at priority crit. The listener keeps each POST's Title and body.
alerts=""
listen_alerts() {
  alerts=$work/alerts.txt
  : >"$alerts"
  nsenter --target "$leader" --net timeout 300 python3 -c '
import http.server, sys
out = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with open(out, "ab") as f:
            f.write(b"Title: " + (self.headers.get("Title") or "").encode() + b"\n" + body + b"\n----\n")
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), H).serve_forever()
' "$alerts" "$alert_port" >"$logs/alert-listener.log" 2>&1 &
  alert_listener=$!
  for _ in $(seq 20); do
    nsenter --target "$leader" --net curl -s -o /dev/null --max-time 2 -X POST -d '' \
      "http://127.0.0.1:$alert_port/ping" && break
    sleep 0.25
  done
  : >"$alerts"
}
alert_listener=""
wait_alert() { # title-pattern -> $line: the alert posted with that title, waiting up to 30 s
  line=""
  for _ in $(seq 60); do
    line=$(grep -E "^Title: $1" "$alerts" | tail -n 1 || true)
    [ -n "$line" ] && return 0
    sleep 0.5
  done
}
crit_line() { # pattern -> $line: the journal's line at priority crit matching it
  line=""
  for _ in $(seq 20); do
    line=$(in_vps journalctl --no-pager -o cat -p crit | grep -E "$1" | tail -n 1 || true)
    [ -n "$line" ] && return 0
    sleep 0.5
  done
}
check_alerts() {
  listen_alerts
  # A backup that cannot write: its directory taken away from the m44d user for one run.
  in_vps chmod 500 /var/backups/m44d
  in_vps systemctl start m44d-backup.service >/dev/null 2>&1 && fail "the backup ran into a directory it cannot write"
  in_vps chmod 700 /var/backups/m44d
  wait_alert "m44d: m44d-backup\.service failed on m44-vps"
  expect "a failed backup posts an alert ($line)" test -n "$line"
  expect "with the backup's own words" has "$(cat "$alerts")" 'pg_dump.*(Permission denied|could not open)'
  crit_line '^m44d-backup\.service failed'
  expect "and says so in journalctl -p crit ($line)" test -n "$line"
  expect "a backup after it runs again" in_vps systemctl start m44d-backup.service
  # m44d killed: systemd starts it again, and says so.
  : >"$alerts"
  in_vps systemctl kill --signal=KILL m44d
  wait_alert "m44d: m44d\.service failed on m44-vps"
  expect "m44d killed posts an alert ($line)" test -n "$line"
  expect "without m44d's request lines (clients' addresses)" \
    test -z "$(grep -F ' info  http: ' "$alerts" || true)"
  expect "nor any campaign's id (a link to it)" \
    test -z "$(grep -E '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' "$alerts" || true)"
  expect "with why it stopped" has "$(cat "$alerts")" 'm44d\.service: Main process exited'
  crit_line '^m44d\.service failed'
  expect "and says so in journalctl -p crit ($line)" test -n "$line"
  wait_ready
  expect "and m44d is back, started again by systemd" test "$back" = 200
  # Killed again at once: started again, but no second alert within 10 minutes.
  : >"$alerts"
  in_vps systemctl kill --signal=KILL m44d
  sleep 0.5
  wait_ready
  expect "killed again at once, m44d is back" test "$back" = 200
  line=""
  for _ in $(seq 20); do
    line=$(in_vps journalctl --no-pager -o cat -u 'm44d-alert@m44d.service.service' | grep -F 'alert not sent' | tail -n 1 || true)
    [ -n "$line" ] && break
    sleep 0.5
  done
  expect "no second alert within 10 minutes: the journal says so ($line)" test -n "$line"
  expect "and nothing was posted" test ! -s "$alerts"
  kill "$alert_listener" 2>/dev/null || true
  wait "$alert_listener" 2>/dev/null || true
  alert_listener=""
}

check_upgrade() {
  expect "after the upgrade steps m44d is active" test "$(in_vps systemctl is-active m44d)" = active
  expect "/readyz through nginx" test "$(status_of "https://$domain/readyz")" = 200
  expect "the campaigns are still there" test "$(status_of "https://$domain/api/v1/campaigns/$campaign1")" = 200
  # The upgrade stopped m44d as asked: no alert, only the two of the kills above.
  local crits
  crits=$(in_vps journalctl --no-pager -o cat -p crit | grep -c '^m44d\.service failed' || true)
  expect "a stop that was asked for is no alert ($crits crit lines, the two kills')" test "$crits" = 2
}

# ---- run DEPLOY.md ----
booted=0
for f in "$steps"/*; do
  n=$(basename "$f"); n=${n%%.*}
  if [[ "$f" == *.marker ]]; then
    m=$(cat "$f")
    case "$m" in
      boot) boot; booted=1 ;;
      "check site") check_site ;;
      "check backup") check_backup ;;
      "check restore") check_restore ;;
      "check alerts") check_alerts ;;
      "check upgrade") check_upgrade ;;
      *) fail "unknown marker '$m' in docs/DEPLOY.md" ;;
    esac
    continue
  fi
  first=$(grep -vE '^[[:space:]]*(#|$)' "$f" | head -n 1)
  ts=$SECONDS
  if grep -q '^certbot certonly' "$f"; then
    [ $booted -eq 1 ] || fail "the certbot step comes before the boot marker"
    fake_certbot
    say "step $n: certbot replaced by a certificate of a throwaway CA at /etc/letsencrypt/live/$domain/"
    continue
  fi
  cp "$f" "$root/root/.deploy-step.sh"
  if [ $booted -eq 0 ]; then
    timeout 1800 systemd-nspawn --quiet --register=no --keep-unit --pipe -D "$root" "${pass_env[@]}" \
      --chdir=/root /bin/bash -euxo pipefail /root/.deploy-step.sh >"$logs/step-$n.log" 2>&1 </dev/null &&
      rc=0 || rc=$?
  else
    cd / && timeout 1800 nsenter --target "$leader" --mount --uts --ipc --net --pid --root --wd \
      env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
      /bin/bash -c 'cd /root && exec /bin/bash -euxo pipefail /root/.deploy-step.sh' \
      >"$logs/step-$n.log" 2>&1 </dev/null && rc=0 || rc=$?
  fi
  rm -f "$root/root/.deploy-step.sh"
  if [ $rc -ne 0 ]; then
    tail -n 40 "$logs/step-$n.log" >&2
    if [ $booted -eq 1 ]; then
      { in_vps systemctl --failed --no-pager; in_vps journalctl --no-pager -n 60; } >"$logs/journal.log" 2>&1 || true
      say "failed units and the end of the machine's journal: $logs/journal.log" >&2
    fi
    fail "step $n of docs/DEPLOY.md ($first ...) exited with $rc"
  fi
  say "step $n ($([ $booted -eq 1 ] && echo booted || echo not booted)): $first ... ok in $((SECONDS - ts)) s"
done

say "passed: every step of docs/DEPLOY.md ran, $checks checks held; $((SECONDS - t0)) s in all"
