#!/usr/bin/env bash
# bench/ab.sh OLD NEW [ROUNDS] [SECONDS]: two m44d binaries (say, a build of main and one of a
# change) compared on the warm reserve roll, taking turns on one throwaway PostgreSQL so that
# whatever else the machine does falls on both alike. Each turn: a fresh daemon (--threads 4,
# as make bench), the Allies' rolls on 20,000 campaigns it has not seen (16 connections), then
# the Axis' rolls on the campaigns rolled on (warm); printed: both rates and m44d's CPU per warm
# roll (from /proc).
# M44_AB_CYCLE=1 compares them on make bench's battle cycle instead (bench/common.sh,
# cycle_lines): each turn on a database of its own (160 campaigns whose first battle is over,
# migrated by OLD), 16 connections; printed: actions a second, PostgreSQL's and m44d's CPU an
# action, and where the campaigns' writes started from (m44d_state_writes_total).
# The daemons' standard error: bench/out/m44d-ab.log (this run's).
# M44_AB_KEYS=1 sends every roll with an Idempotency-Key of its own, as the page does.
# M44_AB_PERF=OLD|NEW also records that binary's first warm turn with perf (call graphs) into
# bench/out/ab-perf.data. M44_AB_OLD_ARGS and M44_AB_NEW_ARGS add options to that binary's
# daemon (after the turn's own, so they win: OLD and NEW may be one binary, say
# M44_AB_NEW_ARGS="--threads 16"). Figures are printed, never judged.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1"); NEW=$(realpath "$2"); ROUNDS=${3:-3}; SECS=${4:-5}
LG=build/release/bench/loadgen
KEYS=${M44_AB_KEYS:+-k}
[ -x "$LG" ] || make -s bench-bins
mkdir -p bench/out
: >bench/out/m44d-ab.log
pgdir=$(mktemp -d /tmp/m44-ab-pg.XXXXXX)
chmod 755 "$pgdir"
lines=$(mktemp /tmp/m44-ab-lines.XXXXXX) # what loadgen sends in a turn
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
. bench/common.sh # field, ms_per, pg_ticks, m44d_up, gen_campaigns, roll_targets, in_use, cycle_lines
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# start BINARY DB [ARGS...]: a daemon on $port (m44d_up), its process id in $M44_PID, once it is
# ready.
start() {
  local bin=$1 db=$2; shift 2
  m44d_up "$bin" "$db" "$port" bench/out/m44d-ab.log --threads 4 --per-ip-limit 256 "$@"
}
stop() { kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true; M44_PID=; }
# extra WHICH: the options M44_AB_OLD_ARGS or M44_AB_NEW_ARGS add to that binary's daemon.
extra() { local v=M44_AB_${1}_ARGS; echo "${!v:-}"; }
cpu() { awk '{ print $14 + $15 }' "/proc/$M44_PID/stat"; }

if [ -n "${M44_AB_CYCLE:-}" ]; then
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
      start "${!which}" "$db" $(extra "$which")
      p0=$(pg_ticks "$host/data"); t0=$(cpu)
      C=$($LG -c 16 -d "$SECS" $KEYS -s "$lines" "127.0.0.1:$port")
      p1=$(pg_ticks "$host/data"); t1=$(cpu)
      found=$(curl -s "http://127.0.0.1:$port/metrics" |
        sed -n 's/^m44d_state_writes_total{found="\([a-z_]*\)"} \([0-9]*\).*/\1 \2/p' | paste -sd, -)
      stop
      echo "$which, turn $r: $(field rps "$C") actions/s ($(field ok "$C") answered 2xx, $(field errors "$C") not); PostgreSQL CPU an action $(ms_per "$p0" "$p1" "$(field ok "$C")") ms, m44d $(ms_per "$t0" "$t1" "$(field ok "$C")") ms; writes found: $found"
    done
  done
  exit 0
fi

psqlq -d postgres -c "CREATE DATABASE bench"
"$OLD" --migrate --database "$(conn bench)" 2>/dev/null
TURNS=$((ROUNDS * 2 * 20000)) # campaigns for the turns, 20,000 each; then 10,000 in use
gen_campaigns bench "$((TURNS + 10000))" 1 reserves >/dev/null
# The last 10,000 campaigns have rolled once before the statistics are taken (in_use).
start "$OLD" bench
in_use bench "$((TURNS + 1))" "$((TURNS + 10000))" "127.0.0.1:$port"
stop
psqlq -d bench -c "VACUUM ANALYZE" -c "CHECKPOINT"
first=1
perf_for=${M44_AB_PERF:-}
for r in $(seq "$ROUNDS"); do
  for which in OLD NEW; do
    start "${!which}" bench --state-entries 65536 $(extra "$which")
    roll_targets "$first" "$((first + 19999))" a >"$lines"
    C=$($LG -c 16 -d "$SECS" $KEYS -p "$lines" "127.0.0.1:$port")
    roll_targets "$first" "$((first + $(field requests "$C") - 1))" x >"$lines"
    if [ "$perf_for" = "$which" ]; then
      perf record -q -F 2000 --call-graph dwarf,16384 -p "$M44_PID" -o bench/out/ab-perf.data -- sleep "$SECS" 2>/dev/null &
      perf_pid=$!
    fi
    t0=$(cpu)
    W=$($LG -c 16 -d "$SECS" $KEYS -p "$lines" "127.0.0.1:$port")
    t1=$(cpu)
    if [ "$perf_for" = "$which" ]; then wait "$perf_pid" || true; perf_for=; fi
    echo "$which, turn $r: cold $(field rps "$C")/s, warm $(field rps "$W")/s ($(field ok "$W") answered 2xx); m44d CPU per warm roll $(ms_per "$t0" "$t1" "$(field ok "$W")") ms"
    stop
    first=$((first + 20000))
  done
done
