#!/usr/bin/env bash
# make bench: m44d next to baselines measured on this machine in the same run, on a throwaway
# PostgreSQL (default settings: fsync on). Every run is bounded in time; figures are printed,
# never judged. The table also goes to bench/out/results.md (bench/RESULTS.md keeps one run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=$root/bench/out
rm -rf "$out"
mkdir -p "$out"
SECS=${M44_BENCH_SECONDS:-8}
# m44d's database workers in the rows that write (M44_BENCH_THREADS; default 4, m44d's own).
WORKERS=${M44_BENCH_THREADS:-4}
BIN=build/release/bench
LG=$BIN/loadgen

pgdir=$(mktemp -d /tmp/m44-bench-pg.XXXXXX)
chmod 755 "$pgdir"
pids=()
cleanup() {
  # M44_PID: a daemon m44d_up started and was still waiting for, if any.
  for p in "${pids[@]}" ${M44_PID:+"$M44_PID"}; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  scripts/pg.sh destroy "$pgdir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
scripts/pg.sh start "$pgdir" >/dev/null
host=$(scripts/pg.sh host "$pgdir")
pgbin=$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -rV | head -1)
as_m44() { if [ "$(id -u)" -eq 0 ]; then runuser -u m44 -- "$@"; else "$@"; fi; }
psqlq() { psql -q -X -v ON_ERROR_STOP=1 -h "$host" -U m44 "$@"; }
for db in bench bench_small bench_big bench_cycle; do psqlq -d postgres -c "CREATE DATABASE $db" ; done
conn() { echo "host='$host' user=m44 dbname=$1"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null \
  || shuf -i 20000-60000 -n 1; }
ms_now() { date +%s%N | cut -c1-13; }

# start_m44d DB PORT [ARGS...]: bin/m44d (m44d_up), logging to bench/out/m44d-DB.log; sets
# M44_PID, READY_MS
start_m44d() {
  local db=$1 port=$2 t0; shift 2
  t0=$(ms_now)
  m44d_up bin/m44d "$db" "$port" "$out/m44d-$db.log" "$@"
  pids+=("$M44_PID")
  READY_MS=$(( $(ms_now) - t0 ))
}

rows=()
row() { rows+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }
. bench/common.sh # field, ratio, pg_ticks, ms_per, m44d_up, gen_campaigns, roll_targets, in_use

# CPU time, in clock ticks, of PostgreSQL (the postmaster, its live children, and those that
# ended: the postmaster reaps them) and of one process. cpu_row LABEL PG0 PG1 M0 M1 N adds a
# row of the CPU table: milliseconds per request of each.
proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
cpu_rows=()
cpu_row() { # LABEL PG0 PG1 M0 M1 REQUESTS
  cpu_rows+=("| $1 | $(ms_per "$2" "$3" "$6") | $(ms_per "$4" "$5" "$6") |")
}

echo "== setting up (campaigns through SQL: the rows m44d reads, not the log lines of their making)" >&2
N=100000
IN_USE=10000 # campaigns N+1.. that have rolled before anything is measured (in_use)
psqlq -d bench -c "SELECT 1" >/dev/null
start_m44d bench "$(free_port)" --threads "$WORKERS"
FIRST_READY_MS=$READY_MS
kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true
gen_campaigns bench "$((N + IN_USE))" 1 reserves
PORT=$(free_port)
start_m44d bench "$PORT" --threads "$WORKERS" --per-ip-limit 256
in_use bench "$((N + 1))" "$((N + IN_USE))" "127.0.0.1:$PORT"
kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true
# Settled before any measurement: the set-up leaves autovacuum work (new tables, many rows)
# that would otherwise run during the first rows and count as theirs.
psqlq -d bench -c "VACUUM ANALYZE" -c "CHECKPOINT"
# Two sets of roll targets: one for 1 connection, one for 16; each (campaign, side) once, in
# campaign order, so that concurrent requests are for different campaigns, as pgbench's
# clients update different rows. The Allies roll first, on campaigns m44d has not seen (cold);
# then the Axis, on the campaigns the Allies rolled on, which m44d holds since (warm).
roll_targets 1 15000 a >"$out/rolls-1.txt"
roll_targets 15001 60000 a >"$out/rolls-16.txt"
# A whole battle cycle, step by step, on campaigns whose first battle is over (cycle_lines).
bin/m44d --migrate --database "$(conn bench_cycle)" 2>>"$out/m44d-bench_cycle.log"
gen_campaigns bench_cycle 160 1 finished >/dev/null
cycle_lines bench_cycle >"$out/cycle-16.txt"

echo "== pgbench: one transaction, UPDATE + INSERT" >&2
baseline_tables bench
psqlq -d bench -c "ANALYZE"
cp bench/reserve-roll.sql bench/reserve-roll-warm.sql bench/battle-cycle.sql "$out/"
baseline_script "$out/pgbench.sql"
chmod -R a+rwX "$out"
# On database $PGB_DB (default bench). PGB_PER=N: a script run is N requests (rps and requests
# multiplied by N; the latencies stay those of a whole script run).
pgbench_run() { # CLIENTS SCRIPT [ARGS...] -> "rps=.. p50_ms=.. p99_ms=.."
  local c=$1 f=$2 j=$(( $1 < 2 ? 1 : 2 )) per=${PGB_PER:-1}
  shift 2
  rm -f "$out"/pgb.*
  local rc=0
  (cd "$out" && as_m44 "$pgbin/pgbench" -n -h "$host" -U m44 -f "$f" "$@" -c "$c" -j "$j" \
      -T "$SECS" -l --log-prefix=pgb "${PGB_DB:-bench}" >"pgbench-$c-${f%.sql}.txt" 2>&1) || rc=$?
  # pgbench failed (2: an error stopped a client, and it reports the rest, a rate from fewer
  # clients than the row says; 1: it could not start): the benchmark stops instead.
  if [ "$rc" -ne 0 ]; then
    echo "bench: pgbench $f with $c clients failed (exit $rc); see bench/out/pgbench-$c-${f%.sql}.txt:" >&2
    grep -i "error\|abort" "$out/pgbench-$c-${f%.sql}.txt" | head -5 >&2
    return 1
  fi
  local tps; tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out/pgbench-$c-${f%.sql}.txt" | head -1)
  cat "$out"/pgb.* | awk '{print $3 / 1000}' | sort -n >"$out/pgb-lat-$c-${f%.sql}.txt"
  local n; n=$(wc -l <"$out/pgb-lat-$c-${f%.sql}.txt")
  local p50 p99
  p50=$(sed -n "$(( n / 2 + 1 ))p" "$out/pgb-lat-$c-${f%.sql}.txt")
  p99=$(sed -n "$(( n * 99 / 100 + 1 ))p" "$out/pgb-lat-$c-${f%.sql}.txt")
  local done_n; done_n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$out/pgbench-$c-${f%.sql}.txt" | head -1)
  tps=${tps%.*}
  echo "rps=$(( ${tps:-0} * per )) p50_ms=$p50 p99_ms=$p99 requests=$(( ${done_n:-0} * per ))"
}
# pgbench_cpu LABEL CLIENTS SCRIPT [ARGS...]: pgbench_run, with a row of the CPU table.
pgbench_cpu() {
  local label=$1 p0 p1 res n0; shift
  n0=$(pg_children)
  p0=$(pg_ticks)
  res=$(pgbench_run "$@")
  pg_settle "$n0"
  p1=$(pg_ticks)
  cpu_row "$label" "$p0" "$p1" "" "" "$(field requests "$res")"
  echo "$res"
}
PG1=$(pgbench_run 1 pgbench.sql)
# waited LABEL APP COMMAND...: runs the command with waits_start sampling the bench database's
# backends of APP, and adds a row of the waits table.
wait_rows=()
waited() {
  local label=$1 app=$2 f; shift 2
  f="$out/waits-${#wait_rows[@]}.txt"
  waits_start bench "$app" "$SECS" "$f"
  "$@"
  wait "$WAITS_PID" || true
  wait_rows+=("$(waits_row "$label" "$f")")
}
waited "pgbench: UPDATE + INSERT in one transaction" pgbench \
  pgbench_cpu "pgbench: UPDATE + INSERT in one transaction" 16 pgbench.sql >"$out/pg16.txt"
PG16=$(cat "$out/pg16.txt")

echo "== m44d: POST reserve-roll" >&2
PORT=$(free_port)
# Every campaign rolled on stays held (about 3 KiB each: one battle).
start_m44d bench "$PORT" --threads "$WORKERS" --per-ip-limit 256 --state-entries 65536
READY_MS_AGAIN=$READY_MS
MAIN_PID=$M44_PID
state_found() { curl -s "http://127.0.0.1:$1/metrics" | sed -n "s/^m44d_state_writes_total{found=\"$2\"} \([0-9]*\)$/\1/p"; }
read_found() { curl -s "http://127.0.0.1:$1/metrics" | sed -n "s/^m44d_state_reads_total{found=\"$2\"} \([0-9]*\)$/\1/p"; }
M1=$($LG -c 1 -d "$SECS" -p "$out/rolls-1.txt" "127.0.0.1:$PORT")
P0=$(pg_ticks); T0=$(proc_ticks "$M44_PID")
M16=$($LG -c 16 -d "$SECS" -p "$out/rolls-16.txt" "127.0.0.1:$PORT")
P1=$(pg_ticks); T1=$(proc_ticks "$M44_PID")
cpu_row "m44d: POST .../reserve-roll, cold" "$P0" "$P1" "$T0" "$T1" "$(field ok "$M16")"
# The Axis of exactly the campaigns whose Allies rolled (the loads took lines in order).
roll_targets 1 "$(field requests "$M1")" x >"$out/rolls-1-warm.txt"
roll_targets 15001 "$((15000 + $(field requests "$M16")))" x >"$out/rolls-16-warm.txt"
HITS0=$(state_found "$PORT" hit)
W1=$($LG -c 1 -d "$SECS" -p "$out/rolls-1-warm.txt" "127.0.0.1:$PORT")
P0=$(pg_ticks); T0=$(proc_ticks "$M44_PID")
# M44_BENCH_PERF=1: where the whole machine's CPU goes during the warm rolls (perf, all CPUs,
# by command and symbol), into bench/out/perf-warm.txt.
if [ "${M44_BENCH_PERF:-0}" = 1 ] && command -v perf >/dev/null; then
  perf record -q -a -o "$out/perf-warm.data" -- sleep "$SECS" 2>/dev/null &
  PERF_PID=$!
fi
waited "m44d: POST .../reserve-roll, warm" m44d \
  eval 'W16=$($LG -c 16 -d "$SECS" -p "$out/rolls-16-warm.txt" "127.0.0.1:$PORT")'
P1=$(pg_ticks); T1=$(proc_ticks "$M44_PID")
if [ -n "${PERF_PID:-}" ]; then
  wait "$PERF_PID" || true
  perf report -q -i "$out/perf-warm.data" --stdio --sort comm,dso --percent-limit 1 >"$out/perf-warm.txt" 2>/dev/null || true
  # m44d's threads by their own names (m44d-db, MHD-worker ...): by its process id.
  perf report -q -i "$out/perf-warm.data" --stdio --pid "$M44_PID" --sort dso,sym --percent-limit 0.5 >>"$out/perf-warm.txt" 2>/dev/null || true
  perf report -q -i "$out/perf-warm.data" --stdio --comm postgres --sort sym --percent-limit 0.7 >>"$out/perf-warm.txt" 2>/dev/null || true
  rm -f "$out/perf-warm.data"
fi
HITS1=$(state_found "$PORT" hit)
cpu_row "m44d: POST .../reserve-roll, warm" "$P0" "$P1" "$T0" "$T1" "$(field ok "$W16")"
# The same with an Idempotency-Key each, as the page sends every write: on the campaigns after
# those rolled on above, warmed by an unmeasured pass of the Allies' rolls.
K0=$((15001 + $(field requests "$M16")))
roll_targets "$K0" 60000 a >"$out/rolls-keyed-cold.txt"
KC=$($LG -c 16 -d "$SECS" -k -p "$out/rolls-keyed-cold.txt" "127.0.0.1:$PORT")
roll_targets "$K0" "$((K0 - 1 + $(field requests "$KC")))" x >"$out/rolls-keyed-warm.txt"
KHITS0=$(state_found "$PORT" hit)
P0=$(pg_ticks); T0=$(proc_ticks "$M44_PID")
KW16=$($LG -c 16 -d "$SECS" -k -p "$out/rolls-keyed-warm.txt" "127.0.0.1:$PORT")
P1=$(pg_ticks); T1=$(proc_ticks "$M44_PID")
KHITS1=$(state_found "$PORT" hit)
cpu_row "m44d: POST .../reserve-roll, warm, with an Idempotency-Key" "$P0" "$P1" "$T0" "$T1" "$(field ok "$KW16")"
row "pgbench: UPDATE + INSERT in one transaction" 1 "$(field rps "$PG1")" "$(field p50_ms "$PG1")" "$(field p99_ms "$PG1")" "baseline"
row "m44d: POST .../reserve-roll, campaign not held (cold)" 1 "$(field rps "$M1")" "$(field p50_ms "$M1")" "$(field p99_ms "$M1")" "$(ratio "$(field rps "$M1")" "$(field rps "$PG1")") × pgbench"
row "m44d: POST .../reserve-roll, campaign held (warm)" 1 "$(field rps "$W1")" "$(field p50_ms "$W1")" "$(field p99_ms "$W1")" "$(ratio "$(field rps "$W1")" "$(field rps "$PG1")") × pgbench"
row "pgbench: UPDATE + INSERT in one transaction" 16 "$(field rps "$PG16")" "$(field p50_ms "$PG16")" "$(field p99_ms "$PG16")" "baseline"
row "m44d: POST .../reserve-roll, campaign not held (cold)" 16 "$(field rps "$M16")" "$(field p50_ms "$M16")" "$(field p99_ms "$M16")" "$(ratio "$(field rps "$M16")" "$(field rps "$PG16")") × pgbench"
row "m44d: POST .../reserve-roll, campaign held (warm)" 16 "$(field rps "$W16")" "$(field p50_ms "$W16")" "$(field p99_ms "$W16")" "$(ratio "$(field rps "$W16")" "$(field rps "$PG16")") × pgbench"
row "m44d: POST .../reserve-roll, warm, with an Idempotency-Key (as the page sends)" 16 "$(field rps "$KW16")" "$(field p50_ms "$KW16")" "$(field p99_ms "$KW16")" "$(ratio "$(field rps "$KW16")" "$(field rps "$PG16")") × pgbench"
echo "$M1 / $M16 / warm $W1 / $W16" >"$out/rolls-loadgen.txt"

echo "== m44d: battle cycles" >&2
CPORT=$(free_port)
start_m44d bench_cycle "$CPORT" --threads "$WORKERS" --per-ip-limit 256
P0=$(pg_ticks); T0=$(proc_ticks "$M44_PID")
C16=$($LG -c 16 -d "$SECS" -s "$out/cycle-16.txt" "127.0.0.1:$CPORT")
P1=$(pg_ticks); T1=$(proc_ticks "$M44_PID")
CYCLE_FOUND="hit $(state_found "$CPORT" hit), miss $(state_found "$CPORT" miss), stale $(state_found "$CPORT" stale)"
kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true
M44_PID=$MAIN_PID
cpu_row "m44d: battle cycle, per action" "$P0" "$P1" "$T0" "$T1" "$(field ok "$C16")"
# The same battles from pgbench, with m44d's statements (bench/battle-cycle.sql: eight
# transactions a battle, on campaigns 1-16, battles 1001 on), without m44d.
PGB_DB=bench_cycle PGB_PER=8 pgbench_cpu "pgbench: the battle cycle's SQL, per action" 16 battle-cycle.sql -M prepared -D b=1000 >"$out/pgc.txt"
PGC=$(cat "$out/pgc.txt")
row "pgbench: m44d's battle-cycle SQL (8 transactions a battle), actions; ms per battle" 16 "$(field rps "$PGC")" "$(field p50_ms "$PGC")" "$(field p99_ms "$PGC")" "$(ratio "$(field rps "$PGC")" "$(field rps "$PG16")") × pgbench"
row "m44d: battle cycle (8 actions a battle), actions" 16 "$(field rps "$C16")" "$(field p50_ms "$C16")" "$(field p99_ms "$C16")" "$(ratio "$(field rps "$C16")" "$(field rps "$PGC")") × pgbench's cycle"

echo "== pgbench: m44d's own reserve-roll transaction" >&2
# Campaigns 10001 to 60000, at random, each client on campaigns of its own (some already rolled
# on by m44d above); pgbench's rolls go to random battles.
pgbench_cpu "pgbench: m44d's reserve-roll SQL" 16 reserve-roll.sql -M prepared >"$out/pgm.txt"
PGM=$(cat "$out/pgm.txt")
row "pgbench: m44d's reserve-roll SQL, pipelined as m44d sends it" 16 "$(field rps "$PGM")" "$(field p50_ms "$PGM")" "$(field p99_ms "$PGM")" "$(ratio "$(field rps "$PGM")" "$(field rps "$PG16")") × pgbench"
# The same on a campaign held: one pipeline, the version bump first in place of the lock and load.
pgbench_cpu "pgbench: m44d's warm reserve-roll SQL" 16 reserve-roll-warm.sql -M prepared >"$out/pgmw.txt"
PGMW=$(cat "$out/pgmw.txt")
row "pgbench: m44d's warm reserve-roll SQL (one round trip: version bump first, no load)" 16 "$(field rps "$PGMW")" "$(field p50_ms "$PGMW")" "$(field p99_ms "$PGMW")" "$(ratio "$(field rps "$PGMW")" "$(field rps "$PG16")") × pgbench"
# The same without the reads: only the writes a roll cannot do without (the roll, its event-log
# line, the campaign's version bump), in one round trip. What is left of the 0.5 for m44d.
awk '/^SELECT /{next} /^\\startpipeline/{if (s++) next} /^\\endpipeline/{if (!e++) next} {print}' \
  bench/reserve-roll.sql >"$out/reserve-roll-writes.sql"
chmod a+r "$out/reserve-roll-writes.sql"
waited "pgbench: only the writes of m44d's reserve roll" pgbench \
  pgbench_cpu "pgbench: only the writes of m44d's reserve roll" 16 reserve-roll-writes.sql -M prepared >"$out/pgw.txt"
PGW=$(cat "$out/pgw.txt")
row "pgbench: only the writes of m44d's reserve roll" 16 "$(field rps "$PGW")" "$(field p50_ms "$PGW")" "$(field p99_ms "$PGW")" "$(ratio "$(field rps "$PGW")" "$(field rps "$PG16")") × pgbench"
# The writes one at a time, each in a transaction of its own: the roll with its event-log
# line, then the version bump. Only for the CPU table.
for part in roll save; do
  awk -v part="$part" '/^SELECT /{next} /^WITH r AS/ && part != "roll" {next}
    /^WITH u AS/ && part != "save" {next} /^\\startpipeline/{if (s++) next}
    /^\\endpipeline/{if (!e++) next} {print}' bench/reserve-roll.sql >"$out/reserve-roll-$part.sql"
done
chmod a+r "$out"/reserve-roll-*.sql
pgbench_cpu "pgbench: the roll's INSERT with its event-log line, alone" 16 reserve-roll-roll.sql -M prepared >/dev/null
pgbench_cpu "pgbench: the campaign's version bump, alone" 16 reserve-roll-save.sql -M prepared >/dev/null

echo "== what the record of a change costs (its row in m44_changes, off for these rows only)" >&2
# With the trigger that writes it off, the same writes, and m44d's warm rolls on campaigns
# 60001.. (warmed by an unmeasured pass of the Allies' rolls).
psqlq -d bench -c "ALTER TABLE campaigns DISABLE TRIGGER campaigns_version_changed"
waited "pgbench: only the writes, no change record" pgbench \
  pgbench_cpu "pgbench: only the writes, no change record" 16 reserve-roll-writes.sql -M prepared >"$out/pgq.txt"
PGQ=$(cat "$out/pgq.txt")
row "pgbench: only the writes of m44d's reserve roll, no change record" 16 "$(field rps "$PGQ")" "$(field p50_ms "$PGQ")" "$(field p99_ms "$PGQ")" "$(ratio "$(field rps "$PGQ")" "$(field rps "$PG16")") × pgbench"
roll_targets 60001 "$N" a >"$out/rolls-quiet-cold.txt"
QC=$($LG -c 16 -d "$SECS" -p "$out/rolls-quiet-cold.txt" "127.0.0.1:$PORT")
roll_targets 60001 "$((60000 + $(field requests "$QC")))" x >"$out/rolls-quiet-warm.txt"
P0=$(pg_ticks); T0=$(proc_ticks "$M44_PID")
waited "m44d: POST .../reserve-roll, warm, no change record" m44d \
  eval 'QW=$($LG -c 16 -d "$SECS" -p "$out/rolls-quiet-warm.txt" "127.0.0.1:$PORT")'
P1=$(pg_ticks); T1=$(proc_ticks "$M44_PID")
cpu_row "m44d: POST .../reserve-roll, warm, no change record" "$P0" "$P1" "$T0" "$T1" "$(field ok "$QW")"
row "m44d: POST .../reserve-roll, warm, no change record" 16 "$(field rps "$QW")" "$(field p50_ms "$QW")" "$(field p99_ms "$QW")" "$(ratio "$(field rps "$QW")" "$(field rps "$PG16")") × pgbench"
psqlq -d bench -c "ALTER TABLE campaigns ENABLE TRIGGER campaigns_version_changed"

echo "== GET: bare libmicrohttpd + libpq against m44d" >&2
# From a settled database: the writes above leave work for autovacuum and the checkpointer,
# which would otherwise land on whichever side runs at that moment.
psqlq -d bench -c "VACUUM ANALYZE" -c "CHECKPOINT"
psqlq -d bench -At -c "SELECT '/row/' || md5('c' || i)::uuid FROM generate_series(1, 1000) i" >"$out/bare.txt"
psqlq -d bench -At -c "SELECT '/api/v1/campaigns/' || md5('c' || i)::uuid FROM generate_series(1, 1000) i" >"$out/get.txt"
psqlq -d bench -At -c "SELECT '/api/v1/campaigns/' || id || E'\t\"' || version || '\"' FROM campaigns WHERE id IN (SELECT md5('c' || i)::uuid FROM generate_series(1, 1000) i)" >"$out/get304.txt"
BPORT=$(free_port)
$BIN/bare "$(conn bench)" "127.0.0.1:$BPORT" 2 &
BARE_PID=$!
pids+=("$BARE_PID")
until curl -sf -o /dev/null "http://127.0.0.1:$BPORT/row/$(psqlq -d bench -At -c "SELECT md5('c1')::uuid")"; do sleep 0.05; done
B16=$($LG -c 16 -d "$SECS" -g "$out/bare.txt" "127.0.0.1:$BPORT")
$LG -c 16 -d 2 -g "$out/get.txt" "127.0.0.1:$PORT" >/dev/null # fill the standing cache
G16=$($LG -c 16 -d "$SECS" -g "$out/get.txt" "127.0.0.1:$PORT")
# The 304s and the hello are measured in alternating rounds, 304s-hello-hello-304s repeated,
# SECS seconds each in all, so that what else the machine does during the measurement falls
# on both alike (the hello's own rate moved by a third between runs measured one after the
# other). Each side's line sums its rounds: requests over their time (a round that answered
# nothing counts its whole length), the median of the rounds' p50s, the worst round's p99 and
# max. Its CPU is the sum of its rounds'.
echo "/hello" >"$out/hello.txt"
ROUNDS=4
RSECS=$(awk -v s="$SECS" -v r="$ROUNDS" 'BEGIN { printf "%.3f", s / r }')
combine() { # loadgen lines on stdin -> one line of their sums
  awk -v rsecs="$RSECS" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[NR, kv[1]] = kv[2] } }
       END { m = 0
             for (r = 1; r <= NR; r++) { n += v[r, "requests"]; ok += v[r, "ok"]; e += v[r, "errors"]
               t += v[r, "rps"] > 0 ? v[r, "requests"] / v[r, "rps"] : rsecs
               if (v[r, "requests"] > 0) p50[++m] = v[r, "p50_ms"]
               if (v[r, "p99_ms"] > p99) p99 = v[r, "p99_ms"]
               if (v[r, "max_ms"] > mx) mx = v[r, "max_ms"] }
             for (i = 2; i <= m; i++) for (j = i; j > 1 && p50[j - 1] > p50[j]; j--) {
               x = p50[j]; p50[j] = p50[j - 1]; p50[j - 1] = x }
             med = m == 0 ? 0 : m % 2 ? p50[(m + 1) / 2] : (p50[m / 2] + p50[m / 2 + 1]) / 2
             printf "requests=%.0f ok=%.0f errors=%.0f rps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
                    n, ok, e, (t > 0 ? n / t : 0), med, p99, mx }'
}
N_LINES=(); H_LINES=(); NP=0; NT=0; HP=0; HT=0
round_304() {
  local p0 t0; p0=$(pg_ticks); t0=$(proc_ticks "$M44_PID")
  N_LINES+=("$($LG -c 16 -d "$RSECS" -g "$out/get304.txt" "127.0.0.1:$PORT")")
  NP=$((NP + $(pg_ticks) - p0)); NT=$((NT + $(proc_ticks "$M44_PID") - t0))
}
round_hello() {
  local p0 t0; p0=$(pg_ticks); t0=$(proc_ticks "$BARE_PID")
  H_LINES+=("$($LG -c 16 -d "$RSECS" -g "$out/hello.txt" "127.0.0.1:$BPORT")")
  HP=$((HP + $(pg_ticks) - p0)); HT=$((HT + $(proc_ticks "$BARE_PID") - t0))
}
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then round_304; round_hello; else round_hello; round_304; fi
done
N16=$(printf '%s\n' "${N_LINES[@]}" | combine)
H16=$(printf '%s\n' "${H_LINES[@]}" | combine)
cpu_row "m44d: GET /api/v1/campaigns/{id}, 304 Not Modified" 0 "$NP" 0 "$NT" "$(field requests "$N16")"
MEM=$(curl -s "http://127.0.0.1:$PORT/metrics" | sed -n 's/^m44d_memory_answers_total \([0-9]*\)$/\1/p')
cpu_row "bare libmicrohttpd: GET /hello (its process in the second column)" 0 "$HP" 0 "$HT" "$(field requests "$H16")"
NR_304=$(for l in "${N_LINES[@]}"; do field rps "$l"; done | paste -sd' ')
NR_HELLO=$(for l in "${H_LINES[@]}"; do field rps "$l"; done | paste -sd' ')
row "bare libmicrohttpd + libpq: GET primary key" 16 "$(field rps "$B16")" "$(field p50_ms "$B16")" "$(field p99_ms "$B16")" "baseline"
row "m44d: GET /api/v1/campaigns/{id}" 16 "$(field rps "$G16")" "$(field p50_ms "$G16")" "$(field p99_ms "$G16")" "$(ratio "$(field rps "$G16")" "$(field rps "$B16")") × bare"
row "m44d: GET /api/v1/campaigns/{id}, 304 Not Modified" 16 "$(field rps "$N16")" "$(field p50_ms "$N16")" "$(field p99_ms "$N16")" "$(ratio "$(field rps "$N16")" "$(field rps "$B16")") × bare"
row "bare libmicrohttpd: GET /hello (no database)" 16 "$(field rps "$H16")" "$(field p50_ms "$H16")" "$(field p99_ms "$H16")" "baseline"
row "m44d: the same 304s, against the hello" 16 "$(field rps "$N16")" "$(field p50_ms "$N16")" "$(field p99_ms "$N16")" "$(ratio "$(field rps "$N16")" "$(field rps "$H16")") × hello"
RSS_KB=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' "/proc/$M44_PID/status")
kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true

echo "== scale: standing GET with 10 and with 100,000 campaigns of 10 battles (no cache)" >&2
for db in bench_small bench_big; do bin/m44d --migrate --database "$(conn "$db")" 2>>"$out/m44d-$db.log"; done
gen_campaigns bench_small 10 10 reserves >/dev/null
gen_campaigns bench_big 100000 10 reserves >/dev/null
psqlq -d bench_small -c ANALYZE; psqlq -d bench_big -c ANALYZE
for size in small big; do
  db=bench_$size
  n=$([ $size = small ] && echo 10 || echo 100000)
  psqlq -d "$db" -At -c "SELECT '/api/v1/campaigns/' || md5('c' || (1 + (i * 7919) % $n))::uuid FROM generate_series(1, 2000) i" >"$out/scale-$size.txt"
  SPORT=$(free_port)
  # --state-entries 0: a read holds the campaign it loads (campaign_read), so without it only
  # the first read of each campaign would load; these rows measure the load every time.
  start_m44d "$db" "$SPORT" --cache-entries 0 --state-entries 0 --threads 4
  $LG -c 4 -d 1 -g "$out/scale-$size.txt" "127.0.0.1:$SPORT" >/dev/null
  S=$($LG -c 4 -d "$SECS" -g "$out/scale-$size.txt" "127.0.0.1:$SPORT")
  label=$([ $size = small ] && echo "10 campaigns" || echo "100,000 campaigns")
  if [ $size = small ]; then SMALL=$S; cmp="baseline"; else cmp="p99 $(ratio "$(field p99_ms "$S")" "$(field p99_ms "$SMALL")") × 10 campaigns"; fi
  row "m44d: standing GET, $label of 10 battles, no cache" 4 "$(field rps "$S")" "$(field p50_ms "$S")" "$(field p99_ms "$S")" "$cmp"
  if [ $size = small ]; then
    # The same GETs once the daemon holds each campaign as its own write left it (the Allies'
    # reserve roll): rendered from the campaign held, after one version lookup. A daemon with
    # room to hold them (the default --state-entries).
    kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true
    start_m44d "$db" "$SPORT" --cache-entries 0 --threads 4
    BENCH_DB=$db roll_targets 1 "$n" a 10 >"$out/scale-rolls.txt"
    $LG -c 1 -d 10 -p "$out/scale-rolls.txt" "127.0.0.1:$SPORT" >/dev/null
    RH0=$(read_found "$SPORT" hit); RL0=$(read_found "$SPORT" loaded)
    S=$($LG -c 4 -d "$SECS" -g "$out/scale-$size.txt" "127.0.0.1:$SPORT")
    HELD_READS="hit $(( $(read_found "$SPORT" hit) - RH0 )), loaded $(( $(read_found "$SPORT" loaded) - RL0 ))"
    row "m44d: standing GET, 10 campaigns held in memory, no cache" 4 "$(field rps "$S")" "$(field p50_ms "$S")" "$(field p99_ms "$S")" "$(ratio "$(field rps "$S")" "$(field rps "$SMALL")") × not held"
  fi
  kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true
done

echo "== live viewers: ${M44_BENCH_VIEWERS:=10000} long polls on one campaign, one write" >&2
# A table of its own: these are not requests per second but one wake of every viewer.
vrows=()
# m44d's defaults (connections, long polls, memory per connection) but --max-wait: the viewers
# ask for 120 s so that parking ten thousand never outlasts a wait.
VIEW_ARGS=(--max-wait 120)
for mode in one two; do
  VPORT=$(free_port)
  start_m44d bench "$VPORT" "${VIEW_ARGS[@]}"
  VPID=$M44_PID
  WPORT=$VPORT
  if [ $mode = two ]; then WPORT=$(free_port); start_m44d bench "$WPORT"; fi
  r=$(curl -s -X POST -H 'Content-Type: application/json' -d '{"name":"Viewers","ruleset":"standard"}' "http://127.0.0.1:$VPORT/api/v1/campaigns")
  vid=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' <<<"$r")
  vkey=$(sed -n 's/.*"organizer_key":"\([^"]*\)".*/\1/p' <<<"$r")
  V=$($BIN/viewers "$M44_BENCH_VIEWERS" "$VPORT" "$WPORT" "$vid" 1 "$vkey" || echo "failed")
  vrss=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' "/proc/$VPID/status")
  label=$([ $mode = one ] && echo "the write through the same m44d" || echo "the write through another m44d (seen by its look at the changes)")
  vrows+=("| $label | $(field viewers "$V") | $(field answered "$V") | $(field ok "$V") | $(field p50_ms "$V") | $(field p99_ms "$V") | $(field max_ms "$V") | $(( ${vrss:-0} / 1024 )) |")
  kill "$VPID" "$M44_PID" 2>/dev/null || true; wait "$VPID" "$M44_PID" 2>/dev/null || true
done

cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
pgv=$("$pgbin/postgres" --version)
{
  echo "# m44d benchmark"
  echo
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -srm), $(nproc) CPU ($cpu), $mem; $pgv"
  echo "with default settings (fsync on), over a unix socket. Each measurement runs ${SECS} s;"
  echo "m44d with --threads $WORKERS (database workers) and --http-threads 2. Load from bench/loadgen"
  echo "(keep-alive connections, one thread each) and pgbench, on the same machine."
  echo
  echo "| measurement | connections | requests/s | p50 ms | p99 ms | compared |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo
  echo "CPU per request at 16 connections, in milliseconds (from /proc: PostgreSQL's server"
  echo "processes, and m44d's process; the load generators' own CPU is not counted):"
  echo
  echo "| measurement | PostgreSQL CPU ms | m44d CPU ms |"
  echo "|---|---|---|"
  printf '%s\n' "${cpu_rows[@]}"
  echo
  echo "What PostgreSQL's server processes for the clients were doing during the rows at 16"
  echo "connections, in percent of samples (bench/common.sh, waits_start: every 20 ms, from"
  echo "pg_stat_activity; each process the load used): on a CPU; waiting for the lock that"
  echo "serializes the commits of transactions that notify; writing or flushing the WAL; waiting"
  echo "for another lock (a row's, extending a table); waiting for the client inside a transaction"
  echo "(its next statements), or between transactions:"
  echo
  echo "| measurement | samples | CPU | notify lock | WAL | other lock | client, in a transaction | client, between | other |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${wait_rows[@]}"
  echo
  echo "Live viewers: long polls parked on one campaign (their If-None-Match its version), then one"
  echo "write; the time from sending the write until each viewer has the first bytes of its answer."
  echo
  echo "| viewers woken by | viewers | answered | 200 with the change | p50 ms | p99 ms | max ms | m44d peak RSS MiB |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${vrows[@]}"
  echo
  echo "- m44d peak RSS under this load: $(( RSS_KB / 1024 )) MiB"
  echo "- warm rolls: writes that started from the campaign held in memory during the warm rows: $((HITS1 - HITS0)) of their $(( $(field requests "$W1") + $(field requests "$W16") )) requests, with an Idempotency-Key $((KHITS1 - KHITS0)) of $(field requests "$KW16") (m44d_state_writes_total{found=\"hit\"}); cold: the first write on a campaign that no read or write of this daemon has held loads it (lock and load, one round trip with the battle's rolls; a campaign whose page was read first is held by that read, and its first write is warm)"
  echo "- battle cycle: $(field ok "$C16") actions answered 2xx, $(field errors "$C16") not; campaigns found $CYCLE_FOUND; compared with pgbench sending the cycle's own statements (bench/battle-cycle.sql, taken from PostgreSQL's log of one battle played through m44d; the db suite checks each against m44d's), whose latencies are those of a whole battle"
  echo "- start to /readyz 200: ${FIRST_READY_MS} ms on an empty database (migrations applied), ${READY_MS_AGAIN} ms with $((N + IN_USE)) campaigns"
  echo "- a cold reserve-roll is one transaction of two round trips (BEGIN, lock and load the campaign with its battles, seeds and effects, the battle's rolls and choices | the roll with its event-log line, the version bump, COMMIT), a warm one of one round trip (BEGIN, the version bump made only at the version held, the roll with its event-log line, COMMIT; a roll that clashes with the side's roll stored fails it, and it runs again from a load; with an Idempotency-Key, the key's answer stored in the same round trip, only if none is), against pgbench's four, plus HTTP, JSON and the rules; the rows \"m44d's reserve-roll SQL\" run the same statements from pgbench (bench/reserve-roll.sql, bench/reserve-roll-warm.sql), without m44d, and the row \"only the writes\" the cold roll's without its two reads, in one round trip"
  echo "- the 304s and the hello ran in $ROUNDS alternating rounds of $RSECS s each (304s first in odd rounds, the hello first in even ones); requests a second in each round, in order: 304s $NR_304; hello $NR_HELLO"
  echo "- the standing GET and its 304 are answered from the version seen in the database's record of changes (db/listener.c) and the rendering cached for it, on the HTTP thread, without the database; GETs answered so during the GET rows: ${MEM:-?} (m44d_memory_answers_total); a version not known is read (one primary-key lookup; under load one query reads the versions of all the GETs waiting); with --cache-entries 0 the campaign is rendered each time (the scale rows): loaded, or, in the row "held in memory", taken as this daemon's own write left it once one primary-key lookup has shown it is still at that version (reads in that row: ${HELD_READS:-?}, m44d_state_reads_total); the GET rows start after VACUUM and CHECKPOINT"
} | tee "$out/results.md"
