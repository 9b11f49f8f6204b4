#!/usr/bin/env bash
# make bench-profile: where a warm reserve roll's time goes, on a throwaway PostgreSQL with
# pg_stat_statements (default settings otherwise: fsync on). One daemon (--threads 4, as make
# bench), the Allies' rolls on campaigns it has not seen (cold, 16 connections), then the Axis'
# on the campaigns rolled on (warm), profiled:
#   - CPU per roll of PostgreSQL's server processes, of m44d and of the load generator (/proc,
#     and the shell's time of loadgen);
#   - each statement PostgreSQL ran for the warm rolls (pg_stat_statements, track = all: the
#     statements m44d sent, and those run inside them by triggers and functions), its calls and
#     execution time per roll; the server's CPU outside any statement's execution (receiving,
#     parsing and binding, commit, the WAL) is the rest;
#   - the same for pgbench's UPDATE + INSERT in one transaction, the baseline of make bench;
#   - PostgreSQL's CPU by what it was doing (perf on the whole machine, when installed; call
#     graphs read by bench/pg-phases.awk): receiving, planning, starting, running and ending the
#     statements, their triggers (the foreign keys' checks, the record of changes), committing;
#     and parts of it wherever they ran (ON CONFLICT's look for a clash, CHECK constraints,
#     index entries, jsonb and arrays read, the WAL), for the warm rolls and for pgbench;
#   - what each transaction wrote to the WAL, and the WAL's flushes (pg_stat_wal, with
#     track_wal_io_timing on), and the warm rolls' WAL by kind of record (pg_waldump --stats);
#   - m44d's own CPU during the warm rolls by what it was doing (perf with DWARF call graphs:
#     its HTTP thread; on a database worker, the round trip, the campaign held taken out of
#     memory and put back, the roll, the answer written), by library and by function (perf,
#     when installed).
# Figures are printed, never judged; bench/RESULTS.md reads one run. M44_BENCH_SECONDS: the
# length of each pass (default 8).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${M44_BENCH_SECONDS:-8}
LG=build/release/bench/loadgen
out=bench/out/profile
rm -rf "$out"
mkdir -p "$out"
pgdir=$(mktemp -d /tmp/m44-profile-pg.XXXXXX)
chmod 755 "$pgdir"
M44_PID= # the daemon, once m44d_up has started it
cleanup() {
  [ -n "${pg_perf_pid:-}" ] && kill -INT "$pg_perf_pid" 2>/dev/null || true
  [ -n "$M44_PID" ] && kill "$M44_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  scripts/pg.sh destroy "$pgdir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
scripts/pg.sh start "$pgdir" >/dev/null
host=$(scripts/pg.sh host "$pgdir")
psqlq() { psql -q -X -v ON_ERROR_STOP=1 -h "$host" -U m44 "$@"; }
conn() { echo "host='$host' user=m44 dbname=$1"; }
pgbin=$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -rV | head -1)
as_m44() { if [ "$(id -u)" -eq 0 ]; then runuser -u m44 -- "$@"; else "$@"; fi; }
. bench/common.sh # field, ratio, pg_ticks, ms_per, m44d_up, gen_campaigns, roll_targets, in_use

psqlq -d postgres -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
scripts/pg.sh stop "$pgdir" >/dev/null
scripts/pg.sh start "$pgdir" >/dev/null
psqlq -d postgres -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" \
  -c "ALTER SYSTEM SET track_wal_io_timing = on" -c "SELECT pg_reload_conf()" >/dev/null
psqlq -d postgres -c "CREATE DATABASE bench"
psqlq -d bench -c "CREATE EXTENSION pg_stat_statements"

echo "== setting up (campaigns through SQL, as make bench)" >&2
N=40000
IN_USE=10000
bin/m44d --migrate --database "$(conn bench)" 2>>"$out/m44d.log"
gen_campaigns bench "$((N + IN_USE))" 1 reserves >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
up() { m44d_up bin/m44d bench "$port" "$out/m44d.log" --threads 4 --per-ip-limit 256 --state-entries 65536; }
down() { kill "$M44_PID"; wait "$M44_PID" 2>/dev/null || true; M44_PID=; }
up
in_use bench "$((N + 1))" "$((N + IN_USE))" "127.0.0.1:$port"
down
baseline_tables bench
psqlq -d bench -c "VACUUM ANALYZE" -c "CHECKPOINT"

# statements LABEL N: the statements run since the last reset, per one of N transactions.
statements() {
  echo
  echo "$1: each statement's calls and execution time per transaction (pg_stat_statements)"
  echo
  echo "| statement | run by | calls | ms |"
  echo "|---|---|---|---|"
  psqlq -d bench -At -F $'\t' -v n="$2" <<'SQL' | awk -F '\t' '{ gsub(/\|/, "\\|", $1); printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, $4 }'
SELECT left(regexp_replace(query, '\s+', ' ', 'g'), 110),
       CASE WHEN toplevel THEN 'the client' ELSE 'a trigger or function' END,
       to_char(sum(calls)::numeric / :n, 'FM990.00'),
       to_char(sum(total_exec_time)::numeric / :n, 'FM990.0000')
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench')
  AND query NOT LIKE '%pg_stat_statements%'
GROUP BY query, toplevel
HAVING sum(calls) >= :n / 100
ORDER BY toplevel DESC, sum(total_exec_time) DESC
LIMIT 25
SQL
  EXEC_MS=$(psqlq -d bench -At -v n="$2" <<'SQL'
SELECT to_char(coalesce(sum(total_exec_time), 0)::numeric / :n, 'FM990.0000')
FROM pg_stat_statements
WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = 'bench')
  AND query NOT LIKE '%pg_stat_statements%'
SQL
)
}
reset() { psqlq -d bench -c "SELECT pg_stat_statements_reset()" >/dev/null; }
# What a pass wrote to the WAL: wal_start before it (the server's WAL counters set to zero, and
# where the WAL is), wal_row LABEL N after it, once its clients have gone (a backend adds its
# counts when it is idle a while, or ends): a table row per transaction of N (pg_stat_wal);
# wal_records N: each kind of record a transaction wrote, and its full-page images
# (pg_waldump --stats over the pass's WAL).
wal_start() {
  WAL0=$(psqlq -d bench -At -c "SELECT pg_current_wal_lsn() FROM (SELECT pg_stat_reset_shared('wal')) r")
}
wal_row() {
  WAL1=$(psqlq -d bench -At -c "SELECT pg_current_wal_lsn()")
  psqlq -d bench -At -F ' | ' -v n="$2" -v label="$1" -v w0="$WAL0" -v w1="$WAL1" <<'SQL'
SELECT '| ' || :'label', to_char(pg_wal_lsn_diff(:'w1', :'w0') / :n, 'FM999990'), to_char(wal_records::numeric / :n, 'FM990.00'),
       to_char(wal_fpi::numeric / :n, 'FM990.000'), to_char(:n::numeric / greatest(wal_sync, 1), 'FM990.0'),
       to_char(wal_sync_time / greatest(wal_sync, 1), 'FM990.000'),
       to_char(wal_sync_time / 1000, 'FM990.0') || ' |'
FROM pg_stat_wal
SQL
}
wal_records() {
  "$pgbin/pg_waldump" --stats=record -p "$host/data/pg_wal" -s "$WAL0" -e "$WAL1" 2>/dev/null |
    awk -v n="$1" '$2 ~ /^[0-9]+$/ && $1 ~ /\// && $2 > 0 {
        gsub(/[()]/, ""); printf "| %s | %.2f | %.0f | %.0f |\n", $1, $2 / n, $8 / n, $6 / n }' |
    sort -t '|' -k4 -n -r
}
# perf, when installed and allowed to record here: the whole machine's (for PostgreSQL's
# processes) from pg_perf_start NAME to pg_perf_end, into $out/pg-NAME.data.
PERF=
if command -v perf >/dev/null && perf record -q -o "$out/probe.data" -- true >/dev/null 2>&1 &&
  perf record -q -a -o "$out/probe.data" -- true >/dev/null 2>&1; then
  PERF=1
fi
pg_perf_pid=
pg_perf_start() {
  [ -n "$PERF" ] || return 0
  perf record -q -a -g -F 1999 -o "$out/pg-$1.data" >/dev/null 2>&1 &
  pg_perf_pid=$!
}
pg_perf_end() {
  [ -n "$pg_perf_pid" ] || return 0
  kill -INT "$pg_perf_pid" 2>/dev/null || true
  wait "$pg_perf_pid" 2>/dev/null || true
  pg_perf_pid=
}
# pg_phases NAME: bench/pg-phases.awk on $out/pg-NAME.data ("phase|part FUNCTION PERCENT").
pg_phases() {
  perf script -i "$out/pg-$1.data" -F comm,ip,sym 2>/dev/null | awk -f bench/pg-phases.awk
}
# The CPU, in milliseconds, of a command run by the shell (user + system), into the named var.
timed() {
  local var=$1 t; shift
  t=$( { TIMEFORMAT='%U %S'; time "$@" >"$out/timed.out"; } 2>&1 )
  printf -v "$var" '%s' "$(awk '{ printf "%.0f", ($1 + $2) * 1000 }' <<<"$t")"
}

echo "== pgbench: UPDATE + INSERT in one transaction (16 connections)" >&2
baseline_script "$out/pgbench.sql"
chmod a+r "$out/pgbench.sql"
reset
n0=$(pg_children "$host/data")
pg_perf_start pgbench
wal_start
p0=$(pg_ticks "$host/data")
timed pgb_cpu as_m44 "$pgbin/pgbench" -n -M prepared -h "$host" -U m44 -f "$(realpath "$out/pgbench.sql")" -c 16 -j 2 -T "$SECS" bench
pg_settle "$n0" "$host/data"
p1=$(pg_ticks "$host/data")
pg_perf_end
pgb_n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$out/timed.out")
pgb_tps=$(sed -n 's/^tps = \([0-9]*\).*/\1/p' "$out/timed.out")
pgb_pg=$(ms_per "$p0" "$p1" "$pgb_n")
wal_row "pgbench: UPDATE + INSERT in one transaction" "$pgb_n" >"$out/wal.md"
statements "pgbench's transaction" "$pgb_n" >"$out/pgbench-statements.md"
pgb_exec=$EXEC_MS

echo "== m44d: reserve rolls, cold then warm (16 connections)" >&2
up
roll_targets 1 "$N" a >"$out/targets.txt"
C=$($LG -c 16 -d "$SECS" -p "$out/targets.txt" "127.0.0.1:$port")
roll_targets 1 "$(field requests "$C")" x >"$out/targets.txt"
# The cold pass's WAL counts not yet added by m44d's idle backends (each adds its own when idle
# 10 s, or at its next commit a second or more after its last) would count in the warm pass.
sleep 11
reset
perf_pid=
if [ -n "$PERF" ]; then
  # DWARF call graphs: m44d is built without frame pointers.
  perf record -q -F 499 --call-graph dwarf,16384 -p "$M44_PID" -o "$out/perf.data" -- sleep "$SECS" >/dev/null 2>&1 &
  perf_pid=$!
fi
pg_perf_start warm
wal_start
p0=$(pg_ticks "$host/data"); m0=$(awk '{ print $14 + $15 }' "/proc/$M44_PID/stat")
timed lg_cpu "$LG" -c 16 -d "$SECS" -p "$out/targets.txt" "127.0.0.1:$port"
W=$(cat "$out/timed.out")
p1=$(pg_ticks "$host/data"); m1=$(awk '{ print $14 + $15 }' "/proc/$M44_PID/stat")
[ -n "$perf_pid" ] && { wait "$perf_pid" || true; }
pg_perf_end
w_n=$(field ok "$W")
hits=$(curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^m44d_state_writes_total{found="hit"} \([0-9]*\).*/\1/p')
down
pg_settle "$n0" "$host/data" # m44d's backends gone: their WAL counts added
wal_row "m44d: POST .../reserve-roll, warm" "$w_n" >>"$out/wal.md"
wal_records "$w_n" >"$out/wal-records.md"
statements "m44d's warm reserve roll" "$w_n" >"$out/m44d-statements.md"
w_exec=$EXEC_MS
w_pg=$(ms_per "$p0" "$p1" "$w_n")
w_m=$(ms_per "$m0" "$m1" "$w_n")

cat <<EOF
# Where a warm reserve roll's time goes (bench/profile.sh)

Run $(date -u '+%Y-%m-%d %H:%M') UTC on $(uname -srm), $(nproc) CPU ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)); $("$pgbin/postgres" --version)
with default settings (fsync on) and pg_stat_statements (track = all), over a unix socket; each
pass $SECS s at 16 connections; m44d with --threads 4.

| measurement | per second | PostgreSQL CPU ms | of which in statements ms | m44d CPU ms | client CPU ms |
|---|---|---|---|---|---|
| pgbench: UPDATE + INSERT in one transaction | $pgb_tps | $pgb_pg | $pgb_exec | - | $(awk -v c="$pgb_cpu" -v n="$pgb_n" 'BEGIN { printf "%.4f", n ? c / n : 0 }') (pgbench) |
| m44d: POST .../reserve-roll, warm ($w_n answered 2xx; from the campaign held: ${hits:-?}) | $(field rps "$W") | $w_pg | $w_exec | $w_m | $(awk -v c="$lg_cpu" -v n="$w_n" 'BEGIN { printf "%.4f", n ? c / n : 0 }') (loadgen) |

(The cold pass before it: $(field rps "$C") rolls a second. The CPU is per transaction or roll; the
load generators run on the same CPUs. "In statements": the execution time of the statements the
client sent, summed; the rest of the server's CPU is spent outside them, receiving, parsing and
binding, committing and writing the WAL.)
EOF
cat "$out/pgbench-statements.md" "$out/m44d-statements.md"
cat <<EOF

What each transaction or roll wrote to the WAL, and the WAL's flushes during each pass
(pg_stat_wal, with track_wal_io_timing on; a flush waits for the disk, and a commit waits for
the flush that takes its WAL: commits that come while one is under way go in the next):

| measurement | WAL bytes | records | full-page images | transactions a flush | ms a flush | s flushing |
|---|---|---|---|---|---|---|
$(cat "$out/wal.md")

The warm rolls' WAL by kind of record, per roll (pg_waldump --stats=record over the pass's WAL; a
page's first change after a checkpoint writes the whole page, a full-page image, with its record):

| record | per roll | bytes | of which full-page images |
|---|---|---|---|
$(if [ -s "$out/wal-records.md" ]; then cat "$out/wal-records.md"; else echo "| (pg_waldump could not read the pass's WAL) | - | - | - |"; fi)
EOF
if [ -n "$PERF" ]; then
  pg_phases pgbench >"$out/pg-pgbench.txt"
  pg_phases warm >"$out/pg-warm.txt"
  # phase_row KIND FUNCTION WORDS: the share of the kind and function in each pass, as
  # milliseconds of PostgreSQL's CPU per transaction or roll.
  phase_row() {
    local a b
    a=$(awk -v k="$1" -v f="$2" '$1 == k && $2 == f { print $3 }' "$out/pg-pgbench.txt")
    b=$(awk -v k="$1" -v f="$2" '$1 == k && $2 == f { print $3 }' "$out/pg-warm.txt")
    awk -v w="$3" -v a="${a:-0}" -v b="${b:-0}" -v pa="$pgb_pg" -v pb="$w_pg" \
      'BEGIN { printf "| %s | %.4f | %.4f |\n", w, a * pa / 100, b * pb / 100 }'
  }
  cat <<EOF

PostgreSQL's CPU by what it was doing, in milliseconds per transaction or roll (perf, the whole
machine during each pass, the samples of PostgreSQL's processes, in call graphs: a sample
counts in the outermost of these phases on its stack, so the statements a trigger runs count
as the trigger's; each share times the CPU per transaction above):

| PostgreSQL was | pgbench's transaction ms | m44d's warm roll ms |
|---|---|---|
$(phase_row phase pq_getbyte "reading what the client sent")
$(phase_row phase GetCachedPlan "taking each statement's prepared plan")
$(phase_row phase standard_ExecutorStart "starting each statement: opening its tables and indexes, building its expressions")
$(phase_row phase standard_ExecutorRun "running the statements")
$(phase_row phase standard_ExecutorFinish "running the triggers at each statement's end (the foreign keys' checks, the record of changes)")
$(phase_row phase standard_ExecutorEnd "ending each statement")
$(phase_row phase CommitTransactionCommand "committing, the WAL's flush included")
$(phase_row phase PostgresMain "in the rest of its loop (messages in and out, a transaction's start)")
$(phase_row phase other "outside the backends' work (the WAL writer and the other background processes)")

Parts of that CPU, wherever they ran (a sample counts in each of these on its stack):

| part | pgbench's transaction ms | m44d's warm roll ms |
|---|---|---|
$(phase_row part index_getnext_slot "finding a row through an index (the row updated; the row a foreign key names)")
$(phase_row part heap_update "updating the row")
$(phase_row part heap_insert "adding rows")
$(phase_row part ExecInsertIndexTuples "adding their index entries")
$(phase_row part ExecCheckIndexConstraints "looking for a clash before adding a row (ON CONFLICT)")
$(phase_row part ExecConstraints "checking CHECK constraints and NOT NULL")
$(phase_row part plpgsql_exec_function "PL/pgSQL functions the statements call (m44_still)")
$(phase_row part SPI_execute_snapshot "the foreign keys' checks")
$(phase_row part plpgsql_exec_trigger "the trigger that records a version's change (m44_changes)")
$(phase_row part jsonb_in "reading JSON into jsonb (the roll's details, its log line)")
$(phase_row part array_in "reading arrays (the roll's faces)")
$(phase_row part XLogInsert "writing the WAL's records")
$(phase_row part XLogFlush "flushing the WAL at commit")
EOF
fi
if [ -s "$out/perf.data" ]; then
  echo
  echo "m44d's CPU during the warm pass, by library (perf, $(perf version 2>/dev/null | head -1); self time):"
  echo
  echo '```'
  perf report -i "$out/perf.data" --no-children --sort dso --stdio -q -g none 2>/dev/null |
    grep -v '^$' | sed -n 1,12p
  echo '```'
  echo
  # m44d_share SYMBOL: the percent of m44d's samples with SYMBOL on their stack (its inlined
  # copies summed); m44d_thread NAME: of those of the threads NAME.
  perf report -i "$out/perf.data" --children --sort sym --stdio -q -g none 2>/dev/null >"$out/m44d-children.txt"
  perf report -i "$out/perf.data" --no-children --sort comm --stdio -q -g none 2>/dev/null >"$out/m44d-threads.txt"
  m44d_share() {
    awk -v s="$1" '$3 == "[.]" && $4 == s { t += $1 }
      END { printf "%.4f", t / 100 }' "$out/m44d-children.txt"
  }
  m44d_thread() { awk -v s="$1" '$2 == s { t += $1 } END { printf "%.4f", t / 100 }' "$out/m44d-threads.txt"; }
  m44d_row() { awk -v w="$1" -v f="$2" -v m="$w_m" 'BEGIN { printf "| %s | %.0f | %.4f |\n", w, f * 100, f * m }'; }
  echo
  echo "m44d's CPU during the warm pass by what it was doing (perf, call graphs: a sample counts in"
  echo "each of these on its stack; the share of m44d's samples, and that share of its CPU a roll):"
  echo
  echo "| m44d was | % | ms a roll |"
  echo "|---|---|---|"
  m44d_row "on the HTTP thread: reading requests, sending answers (libmicrohttpd, the kernel's sockets)" "$(m44d_thread MHD-worker)"
  m44d_row "on a database worker, in all" "$(m44d_thread m44d-db)"
  m44d_row "- sending the write's one round trip, waiting for and reading PostgreSQL's answers (libpq)" "$(m44d_share pipeline)"
  m44d_row "- taking the campaign held out of memory" "$(m44d_share start_from)"
  m44d_row "- the roll: its dice drawn, its options by the rules, its statements made" "$(m44d_share campaign_reserve_roll)"
  m44d_row "  - of which the roll's details and its log line as JSON, and their statements queued" "$(m44d_share roll_store)"
  m44d_row "- putting the campaign, as the write left it, back in memory" "$(m44d_share hold)"
  m44d_row "- writing the answer as JSON, handed to the HTTP thread" "$(m44d_share reply_json_headers)"
  m44d_row "on the other threads (the reader of the record of changes, the log)" \
    "$(awk -v a="$(m44d_thread MHD-worker)" -v b="$(m44d_thread m44d-db)" 'BEGIN { printf "%.4f", 1 - a - b }')"
  echo
  echo "by function, the first 25:"
  echo
  echo '```'
  perf report -i "$out/perf.data" --no-children --sort dso,sym --stdio -q -g none 2>/dev/null |
    grep -v '^$' | sed -n 1,25p
  echo '```'
else
  echo
  echo "(perf is not installed or may not record here: no profile of m44d's own CPU)"
fi
