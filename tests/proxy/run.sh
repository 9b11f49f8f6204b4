#!/usr/bin/env bash
# The public instance's deployment path (docs/DEPLOY.md), tested on loopback:
#   - the systemd units' exposure (systemd-analyze security --offline=true) is what the README
#     prints;
#   - deploy/nginx/m44d.conf passes `nginx -t` as Debian's nginx.conf includes it (only the
#     certificate paths changed);
#   - Debian's nginx runs that same file (ports, certificate and upstream changed by sed, and
#     nothing else: checked) with a certificate from a throwaway CA, in front of the real
#     bin/m44d started with --trust-proxy 127.0.0.1 on a fresh database;
#   - over https through it: HTTP/2, HSTS, the redirect, gzip, /metrics kept private, the body
#     limit, the client address in m44d's log (from X-Forwarded-For), the edge rate limit;
#   - Chromium plays the dashboard's main path at https://m44.test:PORT (a name that is not
#     loopback, so only TLS makes it a secure context): WebCrypto verifies the rolls, the
#     service worker registers, controls the page and serves it offline (proxy.mjs);
#   - promtool check metrics accepts m44d's /metrics.
# Needs M44_TEST_BIN and M44_TEST_PGHOST (set by tests/run.sh). Every wait is bounded; nginx
# and m44d are stopped on exit, whatever happens.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
top=$(cd ../.. && pwd)
: "${M44_TEST_BIN:?set by tests/run.sh}" "${M44_TEST_PGHOST:?set by tests/run.sh}"
out=${M44_ROOT:-$top}/tests/out/proxy
logs=${M44_ROOT:-$top}/tests/out/logs
rm -rf "$out" && mkdir -p "$out" "$logs"

checks=0
failures=0
check() { # condition-status what
  checks=$((checks + 1))
  if [ "$1" -eq 0 ]; then echo "ok $checks - $2"; else failures=$((failures + 1)); echo "not ok $checks - $2"; fi
}
ok_if() { # what command... (the command's status decides)
  local what=$1; shift
  if "$@"; then check 0 "$what"; else check 1 "$what"; fi
}
setup_failed() { echo "proxy: set-up failed: $*" >&2; exit 1; }
has() { grep -qiE -- "$2" <<<"$1"; }
# An answer nginx makes itself (curl -D - -o $tmp/answer -w '%{http_code}'): in the API's form,
# application/problem+json with its status and code, and HSTS like every answer.
edge_problem() { # curl-output status code
  [ "$(tail -n 1 <<<"$1")" = "$2" ] && has "$1" '^content-type: application/problem\+json' &&
    has "$1" '^strict-transport-security: max-age=63072000' &&
    grep -qF "\"status\":$2," "$tmp/answer" && grep -qF "\"code\":\"$3\"" "$tmp/answer" &&
    node -e '
      const fs = require("fs");
      const code = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).code;
      const doc = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
      if (!doc.components.schemas.Problem.properties.code.enum.includes(code)) process.exit(1);
    ' "$tmp/answer" "$top/api/openapi.json"
}

# Debian's nginx is in /usr/sbin, which is not on a user's PATH.
nginx=/usr/sbin/nginx
[ -x "$nginx" ] || setup_failed "$nginx is missing (scripts/deps.sh test)"
for c in openssl curl promtool systemd-analyze node psql; do
  command -v "$c" >/dev/null 2>&1 || setup_failed "$c is missing (scripts/deps.sh test)"
done
[ -x /usr/bin/chromium ] || setup_failed "/usr/bin/chromium is missing (scripts/deps.sh test)"

tmp=$(mktemp -d /tmp/m44-proxy.XXXXXX)
chmod 755 "$tmp"
db="proxy_$$"
nginx_pid=""
m44d_pid=""
stop_pid() { # pid signal
  [ -n "$1" ] || return 0
  kill "-$2" "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
  stop_pid "$nginx_pid" QUIT
  stop_pid "$m44d_pid" TERM
  psql -q -h "$M44_TEST_PGHOST" -U m44 -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# ---- 1. The units' exposure, as the README prints it ----
for unit in m44d m44d-backup m44d-alert@; do
  score=$(systemd-analyze security --offline=true "$top/deploy/systemd/$unit.service" 2>&1 |
    sed -n "s/^→ Overall exposure level for .*: \([0-9.]* [A-Z]*\).*/\1/p")
  said=$(sed -n "s/^.*\`systemd-analyze security --offline=true deploy\/systemd\/$unit.service\`: \([0-9.]* [A-Z]*\).*$/\1/p" "$top/README.md")
  ok_if "systemd-analyze security --offline=true deploy/systemd/$unit.service: '$score', the README says '$said'" \
    test -n "$score" -a "$score" = "$said"
done

# ---- 2. A throwaway CA, and a certificate for m44.test, localhost and 127.0.0.1 ----
tls=$tmp/tls
mkdir -p "$tls"
{
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=m44 proxy test CA" -keyout "$tls/ca.key" -out "$tls/ca.pem"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=m44.test" \
    -keyout "$tls/privkey.pem" -out "$tls/server.csr"
  printf 'subjectAltName=DNS:m44.test,DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' >"$tls/ext"
  openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
    -days 2 -extfile "$tls/ext" -out "$tls/server.pem"
} >"$tmp/openssl.log" 2>&1 || { cat "$tmp/openssl.log" >&2; setup_failed "openssl"; }
cat "$tls/server.pem" "$tls/ca.pem" >"$tls/fullchain.pem"
# Chromium takes the server key's SPKI hash as valid (--ignore-certificate-errors-spki-list).
spki=$(openssl x509 -in "$tls/server.pem" -pubkey -noout | openssl pkey -pubin -outform der |
  openssl dgst -sha256 -binary | base64)

# ---- 3. nginx: Debian's nginx.conf, with m44d.conf where sites-enabled/* would be ----
shipped=$top/deploy/nginx/m44d.conf
mkdir -p "$tmp/logs" "$tmp/temp"
[ "$(id -u)" -eq 0 ] && chown www-data "$tmp/temp"
cat >"$tmp/paths.conf" <<EOF
client_body_temp_path $tmp/temp/body;
proxy_temp_path $tmp/temp/proxy;
fastcgi_temp_path $tmp/temp/fastcgi;
uwsgi_temp_path $tmp/temp/uwsgi;
scgi_temp_path $tmp/temp/scgi;
include $tmp/keys.conf;
EOF
# A server of the test's own that prints the edge limits' client key (the shipped map) for an
# address given in a header (realip), to check that an IPv6 /64 is one client.
keys_port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
cat >"$tmp/keys.conf" <<EOF
server {
    listen 127.0.0.1:$keys_port;
    set_real_ip_from 127.0.0.1;
    real_ip_header X-Test-Address;
    location / { return 200 "\$m44d_client\n"; }
}
EOF
# Not root: no "user" line (nginx would only warn that it cannot switch).
drop_user=()
[ "$(id -u)" -eq 0 ] || drop_user=(-e '/^user /d')
main_conf() { # site-file -> an nginx.conf on stdout
  sed "${drop_user[@]}" -e "s|^pid .*;|pid $tmp/nginx.pid;|" -e "s|/var/log/nginx/|$tmp/logs/|g" \
      -e "s|^\([[:space:]]*\)include /etc/nginx/conf.d/\*.conf;|\1include $tmp/paths.conf;|" \
      -e "s|^\([[:space:]]*\)include /etc/nginx/sites-enabled/\*;|\1include $1;|" \
      /etc/nginx/nginx.conf
}
main_conf "$tmp/shipped.conf" >"$tmp/nginx-shipped.conf"
grep -q "include $tmp/shipped.conf;" "$tmp/nginx-shipped.conf" && grep -q "include $tmp/paths.conf;" "$tmp/nginx-shipped.conf" &&
  grep -q "^pid $tmp/nginx.pid;" "$tmp/nginx-shipped.conf" ||
  setup_failed "/etc/nginx/nginx.conf is not Debian 12's (no pid, conf.d or sites-enabled line to replace)"
# `nginx -t` on the shipped file as it is, but for the certificate (not on this machine).
sed -e "s|/etc/letsencrypt/live/m44.example.org/fullchain.pem|$tls/fullchain.pem|" \
    -e "s|/etc/letsencrypt/live/m44.example.org/privkey.pem|$tls/privkey.pem|" "$shipped" >"$tmp/shipped.conf"
t=$("$nginx" -t -p "$tmp/" -e "$tmp/logs/error.log" -c "$tmp/nginx-shipped.conf" 2>&1) && rc=0 || rc=$?
echo "$t" | sed 's/^/  /'
ok_if "nginx -t: deploy/nginx/m44d.conf inside Debian's nginx.conf" test $rc -eq 0

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
https_port=$(free_port)
http_port=$(free_port)
m44d_port=$(free_port)
# The test's site: the shipped file with loopback ports, the test certificate, m44d's port and
# the test's domain; nothing else may differ.
sed -e "s|^\([[:space:]]*\)listen 443 ssl http2;|\1listen 127.0.0.1:$https_port ssl http2;|" \
    -e "s|^\([[:space:]]*\)listen 80;|\1listen 127.0.0.1:$http_port;|" \
    -e '/^[[:space:]]*listen \[::\]:/d' \
    -e "s|^\([[:space:]]*\)server 127.0.0.1:8044;|\1server 127.0.0.1:$m44d_port;|" \
    -e "s|/etc/letsencrypt/live/m44.example.org/fullchain.pem|$tls/fullchain.pem|" \
    -e "s|/etc/letsencrypt/live/m44.example.org/privkey.pem|$tls/privkey.pem|" \
    -e "s|m44\.example\.org;|m44.test;|" "$shipped" >"$tmp/site.conf"
changed=$(diff "$shipped" "$tmp/site.conf" | grep '^[<>]' |
  grep -vE '^[<>][[:space:]]*(listen |server_name |ssl_certificate(_key)? |server 127\.0\.0\.1:)' || true)
n_changed=$(diff "$shipped" "$tmp/site.conf" | grep -c '^>' || true)
ok_if "the test's nginx site is deploy/nginx/m44d.conf with only ports, certificate, upstream and name changed ($n_changed lines)" \
  test -z "$changed" -a "$n_changed" -eq 7
main_conf "$tmp/site.conf" >"$tmp/nginx.conf"

# ---- 4. m44d on a fresh database, behind it ----
psql -q -h "$M44_TEST_PGHOST" -U m44 -d postgres -c "CREATE DATABASE $db" >/dev/null ||
  setup_failed "CREATE DATABASE $db"
m44d_log=$logs/m44d-proxy.log
"$M44_TEST_BIN/m44d" --database "host='$M44_TEST_PGHOST' user=m44 dbname=$db" \
  --listen "127.0.0.1:$m44d_port" --trust-proxy 127.0.0.1 >"$m44d_log" 2>&1 &
m44d_pid=$!
direct=http://127.0.0.1:$m44d_port
for _ in $(seq 100); do
  curl -fsS -o /dev/null --max-time 2 "$direct/readyz" 2>/dev/null && break
  kill -0 "$m44d_pid" 2>/dev/null || { cat "$m44d_log" >&2; setup_failed "m44d exited at start"; }
  sleep 0.2
done
curl -fsS -o /dev/null --max-time 2 "$direct/readyz" || { tail -n 20 "$m44d_log" >&2; setup_failed "m44d not ready within 20 s"; }

"$nginx" -p "$tmp/" -e "$tmp/logs/error.log" -c "$tmp/nginx.conf" -g 'daemon off;' >"$tmp/logs/nginx.out" 2>&1 &
nginx_pid=$!
base=https://m44.test:$https_port
tcurl() { curl --silent --show-error --max-time 20 --cacert "$tls/ca.pem" \
  --resolve "m44.test:$https_port:127.0.0.1" --resolve "m44.test:$http_port:127.0.0.1" "$@"; }
for _ in $(seq 100); do
  tcurl -fsS -o /dev/null "$base/healthz" 2>/dev/null && break
  kill -0 "$nginx_pid" 2>/dev/null || { cat "$tmp/logs/nginx.out" "$tmp/logs/error.log" >&2; setup_failed "nginx exited at start"; }
  sleep 0.2
done
tcurl -fsS -o /dev/null "$base/healthz" || { cat "$tmp/logs/error.log" >&2; setup_failed "nginx not answering within 20 s"; }
echo "  nginx on https://127.0.0.1:$https_port and http://127.0.0.1:$http_port, m44d on $direct"

# ---- 5. Through nginx, with curl ----
r=$(tcurl -D - -o "$tmp/index.html" -w '%{http_version} %{http_code}\n' "$base/")
ok_if "the dashboard over https, HTTP/2 ($(tail -n 1 <<<"$r"))" test "$(tail -n 1 <<<"$r")" = "2 200"
ok_if "it is m44d's page" grep -q '<title>m44d' "$tmp/index.html"
ok_if "HSTS on every answer" has "$r" '^strict-transport-security: max-age=63072000'
ok_if "m44d's own security headers pass through" has "$r" '^content-security-policy: '
r=$(tcurl -D - -o /dev/null "$base/readyz" -w '%{http_code}')
ok_if "/readyz through nginx, from this machine" test "$(tail -n 1 <<<"$r")" = 200
ok_if "/readyz is not public (a client at 127.0.0.2: 403), /healthz is" \
  test "$(tcurl -o /dev/null -w '%{http_code}' --interface 127.0.0.2 "$base/readyz")" = 403 -a \
  "$(tcurl -o /dev/null -w '%{http_code}' --interface 127.0.0.2 "$base/healthz")" = 200
r=$(tcurl -D - -o /dev/null -w '%{http_code}' "http://m44.test:$http_port/c/abc?x=1")
ok_if "http:// redirects to https:// with the path" has "$r" '^location: https://m44\.test/c/abc\?x=1'
r=$(tcurl -D - -o /dev/null -H 'Accept-Encoding: gzip' "$base/assets/campaign.js")
ok_if "the dashboard's scripts are gzipped" has "$r" '^content-encoding: gzip'
r=$(tcurl -D - -o /dev/null -H 'Accept-Encoding: gzip' "$base/assets/style.css")
ok_if "and its style sheet" has "$r" '^content-encoding: gzip'
r=$(tcurl -D - -o /dev/null -H 'Accept-Encoding: gzip' "$base/api/v1/rulesets")
ok_if "API replies are not compressed (BREACH)" eval '! has "$r" "^content-encoding:"'
ok_if "/metrics is not public" test "$(tcurl -o /dev/null -w '%{http_code}' "$base/metrics")" = 404
head -c 1100000 /dev/zero | tr '\0' ' ' >"$tmp/big.json"
r=$(tcurl -D - -o "$tmp/answer" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/big.json" "$base/api/v1/campaigns")
ok_if "a body over 1 MB is refused at the edge (413), as a problem, with HSTS" \
  edge_problem "$r" 413 body-too-large

# The client's address in m44d's log. m44d trusts 127.0.0.1 (nginx) only. nginx must append
# the address it was reached from to X-Forwarded-For; m44d takes the last untrusted address.
# A client at 127.0.0.2 (curl --interface: any 127/8 address is this machine's) is one m44d
# does not trust, as a client on the internet: what it writes into X-Forwarded-For itself must
# not count. (From 127.0.0.1, a trusted address, the header it sends is believed.)
logged() { # path -> m44d's request line for it, waiting up to 5 s
  local line=""
  for _ in $(seq 50); do
    line=$(grep -F " $1 " "$m44d_log" | grep -F 'http: ' | tail -n 1 || true)
    [ -n "$line" ] && break
    sleep 0.1
  done
  echo "$line"
}
n=0
client_check() { # what expected-address curl-arguments...
  local what=$1 want=$2 path line; shift 2
  n=$((n + 1))
  path=/api/v1/campaigns/00000000-0000-4000-8000-$(printf '%06d%06d' $$ $n)
  tcurl -o /dev/null "$@" "$base$path" || true
  line=$(logged "$path")
  ok_if "$what: logged as $want ($line)" has "$line" "http: ${want//./\\.} GET $path 404 "
}
client_check "a client at 127.0.0.2" 127.0.0.2 --interface 127.0.0.2
client_check "a client at 127.0.0.2 that forges X-Forwarded-For: 203.0.113.7" 127.0.0.2 \
  --interface 127.0.0.2 -H 'X-Forwarded-For: 203.0.113.7'
client_check "a request from 127.0.0.1 (trusted) with X-Forwarded-For: 203.0.113.7" 203.0.113.7 \
  -H 'X-Forwarded-For: 203.0.113.7'
client_check "from 127.0.0.1 with X-Forwarded-For: 198.51.100.1, 203.0.113.8 (the last untrusted)" \
  203.0.113.8 -H 'X-Forwarded-For: 198.51.100.1, 203.0.113.8'
client_check "a request from 127.0.0.1 without X-Forwarded-For (the browser's)" 127.0.0.1

# A long poll (?wait=30, m44d's --max-wait) through nginx lasts its 30 s and ends in 304, not in
# nginx's 504: proxy_read_timeout is above it. It runs while Chromium plays.
cid=$(curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' \
  -d '{"name":"Long poll","ruleset":"standard","players":{"allies":"A","axis":"B"}}' \
  "$direct/api/v1/campaigns" | grep -oE '"id" *: *"[0-9a-f-]{36}"' | grep -oE '[0-9a-f-]{36}') ||
  setup_failed "creating a campaign for the long poll"
etag=$(tcurl -D - -o /dev/null "$base/api/v1/campaigns/$cid" | tr -d '\r' | sed -n 's/^etag: //Ip')
[ -n "$etag" ] || setup_failed "no ETag on the standing"
tcurl --max-time 60 -o /dev/null -w '%{http_code} %{time_total}' -H "If-None-Match: $etag" \
  "$base/api/v1/campaigns/$cid?wait=30" >"$tmp/longpoll" 2>&1 &
longpoll_pid=$!

# ---- 6. The dashboard in Chromium over https ----
if [ ! -d ../e2e/node_modules/playwright-core ]; then
  (cd ../e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || setup_failed "npm ci in tests/e2e"
fi
M44_PROXY_BASE=$base M44_PROXY_PORT=$https_port M44_PROXY_SPKI=$spki M44_PROXY_OUT=$out \
  M44_PROXY_DIRECT="http://m44.test:$m44d_port" \
  timeout 300 node "$here/proxy.mjs" && rc=0 || rc=$?
ok_if "the dashboard's main path in Chromium over https through nginx (proxy.mjs, exit $rc)" test $rc -eq 0

wait "$longpoll_pid" || true
read -r lp_code lp_time <"$tmp/longpoll" || true
ok_if "a long poll with ?wait=30 through nginx: 304 after 30 s ($lp_code after ${lp_time:-?} s)" \
  test "$lp_code" = 304 -a "${lp_time%%.*}" -ge 29

# ---- 6b. Requests one client holds open at once (limit_conn 128): 140 long polls ----
# From 127.0.0.3, a client of its own (its address, as m44d's log shows, is its own too). Each
# is a connection of its own (HTTP/1.1), parked 5 s by m44d; nginx refuses the 129th and after.
: >"$tmp/polls"
for _ in $(seq 140); do
  printf 'url = "%s"\noutput = "/dev/null"\n' "$base/api/v1/campaigns/$cid?wait=5" >>"$tmp/polls"
done
tcurl --http1.1 --parallel --parallel-immediate --parallel-max 150 --interface 127.0.0.3 \
  -H "If-None-Match: $etag" -w '%{http_code}:%{content_type}\n' --config "$tmp/polls" \
  >"$tmp/polls.out" 2>/dev/null &
polls_pid=$!
sleep 2
other=$(tcurl -o /dev/null -w '%{http_code}' --interface 127.0.0.4 "$base/api/v1/rulesets")
wait "$polls_pid" || true
parked=$(grep -c '^304:' "$tmp/polls.out" || true)
held=$(grep -c '^429:application/problem+json$' "$tmp/polls.out" || true)
ok_if "140 long polls at once from one client: at most 128 held, the rest refused with 429 ($parked held, $held refused)" \
  test "$parked" -ge 100 -a "$parked" -le 128 -a "$held" -ge 1 -a $((parked + held)) -eq 140
ok_if "another client is served meanwhile ($other)" test "$other" = 200

# ---- 7. /metrics, as Prometheus reads it ----
curl -fsS --max-time 10 "$direct/metrics" >"$out/metrics.txt" || setup_failed "GET /metrics"
promtool check metrics <"$out/metrics.txt" >"$tmp/promtool.out" 2>&1 && rc=0 || rc=$?
sed 's/^/  promtool: /' "$tmp/promtool.out"
ok_if "promtool check metrics: no error, no lint warning ($(wc -l <"$out/metrics.txt") lines)" \
  test $rc -eq 0 -a ! -s "$tmp/promtool.out"

# ---- 7b. The edge limits' client: an IPv4 address, an IPv6 /64 ----
key_of() { curl -fsS --max-time 5 -H "X-Test-Address: $1" "http://127.0.0.1:$keys_port/" | od -An -tx1 | tr -d ' \n'; }
same_key() { [ -n "$(key_of "$1")" ] && [ "$(key_of "$1")" = "$(key_of "$2")" ]; }
ok_if "edge key: one /64 written in full and compressed is one client" \
  same_key 2001:db8:1:2:a:b:c:d 2001:db8:1:2::5
ok_if "edge key: the /64 2001:db8:0:0 with its zeros compressed is one client" \
  same_key 2001:db8:0:0:1:2:3:4 2001:db8::5
ok_if "edge key: 2001:0:0:1::/64 whatever its interface id" same_key 2001::1:2:3:4:5 2001::1:a:b:c:d
ok_if "edge key: two /64s are two clients" eval '! same_key 2001:db8:1:2::5 2001:db8:1:3::5'
ok_if "edge key: 2001:db8::/64 and 2001:db8:0:1::/64 are two clients" eval '! same_key 2001:db8::5 2001:db8:0:1::5'
ok_if "edge key: two IPv4 addresses are two clients" eval '! same_key 198.51.100.1 198.51.100.2'

# ---- 8. The edge rate limit on creations (last: it leaves this address without creations) ----
codes=""
for _ in $(seq 40); do
  codes+=" $(tcurl -o "$tmp/answer" -w '%{http_code}:%{content_type}' -X POST -H 'Content-Type: application/json' -d '{}' "$base/api/v1/campaigns")"
done
edge=$(tr ' ' '\n' <<<"$codes" | grep -c '^429:application/problem+json$' || true)
ok_if "40 creations at once: nginx's limit answers 429 itself, as a problem ($edge times)" test "$edge" -gt 10
r=$(tcurl -D - -o "$tmp/answer" -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' "$base/api/v1/campaigns")
ok_if "nginx's 429: too-many-requests, with Retry-After and HSTS" \
  eval 'edge_problem "$r" 429 too-many-requests && has "$r" "^retry-after: 5"'
ok_if "and reads still pass" test "$(tcurl -o /dev/null -w '%{http_code}' "$base/api/v1/rulesets")" = 200

# ---- 9. Nothing went wrong on the way ----
# (The 403s of /readyz to a client elsewhere are this test's own, logged as errors by nginx.)
errors=$(grep -E '\[(emerg|alert|crit|error)\]' "$tmp/logs/error.log" |
  grep -vE 'limiting requests|client intended to send too large body|access forbidden by rule, client: 127\.0\.0\.2, .*"GET /readyz ' || true)
ok_if "nginx logged no error${errors:+: $(head -n 3 <<<"$errors")}" test -z "$errors"
cp "$tmp/logs/error.log" "$out/nginx-error.log" 2>/dev/null || true
cp "$tmp/logs/access.log" "$out/nginx-access.log" 2>/dev/null || true

stop_pid "$m44d_pid" TERM
wait "$m44d_pid" && rc=0 || rc=$?
m44d_pid=""
ok_if "m44d stopped cleanly on SIGTERM (exit $rc)" test $rc -eq 0

# ---- 10. m44d not reached (stopped, restarting): nginx says so in the API's form and in words ----
r=$(tcurl -D - -o "$tmp/answer" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -H 'Idempotency-Key: proxy-test-unreachable' -d '{}' "$base/api/v1/campaigns/$cid/battles")
ok_if "a write while m44d is away: 503 server-unreachable, with Retry-After (not nginx's 502 page) ($(tail -n 1 <<<"$r"), $(head -c 120 "$tmp/answer"))" \
  eval 'edge_problem "$r" 503 server-unreachable && has "$r" "^retry-after: 5"'
r=$(tcurl -D - -o "$tmp/answer" -w '%{http_code}' "$base/c/$cid")
ok_if "a page opened meanwhile says so in words and tries again by itself ($(tail -n 1 <<<"$r"), $(grep -o '<h1>[^<]*' "$tmp/answer"))" \
  eval 'test "$(tail -n 1 <<<"$r")" = 503 && has "$r" "^content-type: text/html" && has "$r" "^strict-transport-security: max-age=63072000" && grep -q "Back in a moment" "$tmp/answer" && grep -q "http-equiv=\"refresh\"" "$tmp/answer"'

echo
echo "proxy: $checks checks, $failures failed; logs in $out"
[ $failures -eq 0 ]
