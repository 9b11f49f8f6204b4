#!/usr/bin/env bash
# `make test-cluster`, after the drill: m44d through PgBouncer in session mode (docs/SCALING.md,
# "PgBouncer"), and the database server crashing behind it while PgBouncer stays up.
#   1. Writes and reads go through it; the current version's ETag gets 304.
#   2. The server stops as in a crash (pg_ctl -m immediate): PgBouncer still takes m44d's
#      connections and breaks each at its first statement. A read that must ask the database
#      (If-None-Match above what the daemon knows) and a roll get 503, never 500.
#   3. The server starts again: its crash recovery empties the record of changes. A change made
#      by hand in SQL, not through m44d, is then seen: the ETag from before gets 200 with the
#      change (the daemon forgot what it knew), within 15 s; and a roll goes through again at
#      its first sending: the connections PgBouncer closed while m44d sat idle are seen before
#      anything is sent on them (sent into them, it was now and then 503 outcome-unknown).
# Bounded: about 10 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/pg-common.sh

work=$(mktemp -d /tmp/m44-pooler.XXXXXX)
chmod 755 "$work"
bouncer_port=${M44_POOLER_PORT:-18590}
m44d_port=$((bouncer_port + 1))
M44_PID=
finish() {
  [ -n "$M44_PID" ] && kill "$M44_PID" 2>/dev/null || true
  [ -f "$work/bouncer/pgbouncer.pid" ] && kill "$(cat "$work/bouncer/pgbouncer.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  scripts/pg.sh destroy "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap finish EXIT
fail() {
  echo "pooler: FAILED: $*" >&2
  echo "--- m44d's log, last lines:" >&2; tail -n 15 "$work/m44d.log" >&2 || true
  echo "--- PgBouncer's log, last lines:" >&2; tail -n 8 "$work/bouncer/pgbouncer.log" >&2 || true
  echo "--- PostgreSQL's log, last lines:" >&2; tail -n 12 "$host/postgres.log" >&2 || true
  exit 1
}
ok() { echo "pooler: ok - $*"; }

scripts/pg.sh start "$work/pg" >/dev/null
host=$(scripts/pg.sh host "$work/pg")
mkdir -p "$work/bouncer"
cat >"$work/bouncer/pgbouncer.ini" <<INI
[databases]
m44 = host=$host port=5432 dbname=m44 user=m44
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $work/bouncer/users.txt
pool_mode = session
max_client_conn = 100
default_pool_size = 40
server_login_retry = 1
logfile = $work/bouncer/pgbouncer.log
pidfile = $work/bouncer/pgbouncer.pid
INI
echo '"m44" ""' >"$work/bouncer/users.txt"
[ "$(id -u)" -eq 0 ] && chown -R m44 "$work/bouncer"
as_owner pgbouncer -d "$work/bouncer/pgbouncer.ini"
db="host=127.0.0.1 port=$bouncer_port dbname=m44 user=m44"
for _ in $(seq 50); do
  "$pgbin/psql" "$db" -tAqc 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.1
done
"$pgbin/psql" "$db" -tAqc 'SELECT 1' >/dev/null || fail "PgBouncer does not answer"

bin/m44d --database "$db" --listen "127.0.0.1:$m44d_port" 2>"$work/m44d.log" &
M44_PID=$!
for _ in $(seq 100); do
  curl -sf -o /dev/null "http://127.0.0.1:$m44d_port/readyz" && break
  kill -0 "$M44_PID" 2>/dev/null || fail "m44d ended before it was ready"
  sleep 0.1
done
api=http://127.0.0.1:$m44d_port/api/v1
# code [CURL ARGS...]: the status of a request; body in $work/body, headers in $work/head.
code() { curl -s -m 20 -o "$work/body" -D "$work/head" -w '%{http_code}' "$@"; }
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$work/body"; }

# 1. Through PgBouncer.
[ "$(code -X POST "$api/campaigns" -H 'Content-Type: application/json' \
  -d '{"name":"Pooled","ruleset":"standard","dice":"server"}')" = 201 ] || fail "creating a campaign"
id=$(field id); org=$(field organizer_key); allies=$(field allies_key)
[ "$(code -X POST "$api/campaigns/$id/battles" -H "Authorization: Bearer $org" \
  -H 'Content-Type: application/json' \
  -d '{"scenario":"Pegasus Bridge","first_player":"allies","cards":{"allies":5,"axis":5},"medals_to_win":4}')" = 201 ] ||
  fail "starting a battle"
[ "$(code "$api/campaigns/$id")" = 200 ] || fail "reading the campaign"
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *\([^[:space:]]*\).*/\1/p' "$work/head")
[ -n "$etag" ] || fail "no ETag"
[ "$(code -H "If-None-Match: $etag" "$api/campaigns/$id")" = 304 ] || fail "no 304 for the current version"
ok "writes and reads through PgBouncer in session mode; 304 for the current version"

# 2. The server down, PgBouncer up.
as_owner "$pgbin/pg_ctl" -D "$host/data" -m immediate -w stop >/dev/null
s=$(code -H 'If-None-Match: "99"' "$api/campaigns/$id")
[ "$s" = 503 ] || fail "a read that asks the database answered $s while the server was down, not 503: $(cat "$work/body")"
grep -qi '^retry-after:' "$work/head" || fail "the read's 503 has no Retry-After"
s=$(code -X POST "$api/campaigns/$id/battles/1/reserve-roll" -H "Authorization: Bearer $allies" \
  -H 'Idempotency-Key: pooler-roll-1')
[ "$s" = 503 ] || fail "a roll answered $s while the server was down, not 503: $(cat "$work/body")"
ok "the server down behind PgBouncer: a read that asks the database and a roll get 503 (Retry-After)"

# 3. Back after its crash recovery; a change by hand.
scripts/pg.sh start "$work/pg" >/dev/null
as_owner "$pgbin/psql" -h "$host" -U m44 -d m44 -tAqc \
  "UPDATE campaigns SET version = version + 1, name = 'Pooled, renamed by hand' WHERE id = '$id'"
seen=0
for _ in $(seq 150); do
  if [ "$(code -H "If-None-Match: $etag" "$api/campaigns/$id")" = 200 ] && grep -q 'renamed by hand' "$work/body"; then
    seen=1; break
  fi
  sleep 0.1
done
[ $seen -eq 1 ] || fail "after the crash, a change made by hand was not seen within 15 s (last: $(head -c 200 "$work/body"))"
s=$(code -X POST "$api/campaigns/$id/battles/1/reserve-roll" -H "Authorization: Bearer $allies" \
  -H 'Idempotency-Key: pooler-roll-1')
[ "$s" = 201 ] || [ "$s" = 200 ] || fail "the roll after the server came back answered $s: $(cat "$work/body")"
ok "after the crash: the change made by hand is seen (200 for the old ETag), and the roll goes through"

fives=$(curl -s "http://127.0.0.1:$m44d_port/metrics" | grep -c '^m44d_http_requests_total{.*status="500"}' || true)
[ "$fives" -eq 0 ] || fail "m44d answered 500 ($fives series in /metrics)"
ok "no 500 in all of it"
