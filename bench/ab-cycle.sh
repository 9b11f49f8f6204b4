#!/usr/bin/env bash
# bench/ab-cycle.sh OLD NEW [ROUNDS] [SECONDS]: two m44d binaries compared on make bench's battle
# cycle (bench/common.sh, cycle_lines), taking turns on one throwaway PostgreSQL so that whatever
# else the machine does falls on both alike. Each turn: a database of its own (160 campaigns
# whose first battle is over, migrated by OLD), a fresh daemon (--threads 4, as make bench), the
# cycle at 16 connections; printed: actions a second, PostgreSQL's and m44d's CPU an action (from
# /proc), and where the campaigns' writes started from (m44d_state_writes_total). The daemons'
# standard error: bench/out/m44d-ab-cycle.log. Figures are printed, never judged.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1"); NEW=$(realpath "$2"); ROUNDS=${3:-2}; SECS=${4:-8}
LG=build/release/bench/loadgen
[ -x "$LG" ] || make -s bench-bins
mkdir -p bench/out
: >bench/out/m44d-ab-cycle.log
pgdir=$(mktemp -d /tmp/m44-ab-pg.XXXXXX)
chmod 755 "$pgdir"
lines=$(mktemp /tmp/m44-ab-cycle.XXXXXX)
M44_PID= # the daemon running (m44d_up sets it as soon as the daemon starts), if any
cleanup() {
  [ -n "$M44_PID" ] && kill "$M44_PID" 2>/dev/null || true
  scripts/pg.sh destroy "$pgdir" >/dev/null 2>&1 || true
  rm -f "$lines"
}
trap cleanup EXIT
scripts/pg.sh start "$pgdir" >/dev/null
host=$(scripts/pg.sh host "$pgdir")
psqlq() { psql -q -X -v ON_ERROR_STOP=1 -h "$host" -U m44 "$@"; }
conn() { echo "host='$host' user=m44 dbname=$1"; }
. bench/common.sh # field, ms_per, pg_ticks, m44d_up, gen_campaigns, cycle_lines
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
n=0
for r in $(seq "$ROUNDS"); do
  for which in OLD NEW; do
    n=$((n + 1))
    db=cycle$n
    psqlq -d postgres -c "CREATE DATABASE $db"
    "$OLD" --migrate --database "$(conn "$db")" 2>/dev/null
    gen_campaigns "$db" 160 1 finished >/dev/null
    cycle_lines "$db" >"$lines"
    psqlq -d "$db" -c "VACUUM ANALYZE" -c "CHECKPOINT"
    m44d_up "${!which}" "$db" "$port" bench/out/m44d-ab-cycle.log --threads 4 --per-ip-limit 256
    p0=$(pg_ticks "$host/data"); t0=$(awk '{ print $14 + $15 }' "/proc/$M44_PID/stat")
    C=$($LG -c 16 -d "$SECS" -s "$lines" "127.0.0.1:$port")
    p1=$(pg_ticks "$host/data"); t1=$(awk '{ print $14 + $15 }' "/proc/$M44_PID/stat")
    found=$(curl -s "http://127.0.0.1:$port/metrics" |
      sed -n 's/^m44d_state_writes_total{found="\([a-z_]*\)"} \([0-9]*\).*/\1 \2/p' | paste -sd, -)
    kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true; M44_PID=
    echo "$which, turn $r: $(field rps "$C") actions/s ($(field ok "$C") answered 2xx, $(field errors "$C") not); PostgreSQL CPU an action $(ms_per "$p0" "$p1" "$(field ok "$C")") ms, m44d $(ms_per "$t0" "$t1" "$(field ok "$C")") ms; writes found: $found"
  done
done
