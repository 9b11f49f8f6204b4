#!/usr/bin/env bash
# make bench, its scale part: scripts/cluster.sh's cluster (a primary, a synchronous standby,
# nginx) with one daemon and with three, reading from the primary and from the standby.
# Standing GETs with the rendering cache off (--cache-entries 0: each GET loads and renders its
# campaign, the work a standby can take), and cold reserve rolls, through nginx. Bounded in
# time; figures are printed, never judged. Appends its table to bench/out/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
SECS=${M44_BENCH_SECONDS:-8}
LG=build/release/bench/loadgen
N=30000 # campaigns: enough that no roll target is used twice
. scripts/pg-common.sh # pgbin

work=$(mktemp -d /tmp/m44-bench-cluster.XXXXXX)
chmod 755 "$work"
export M44_CLUSTER_DIR=$work/cluster
export M44_CLUSTER_PORT=${M44_BENCH_CLUSTER_PORT:-18780}
# Rate limits off (the load is one client far faster than people), the same workers as
# bench/run.sh's m44d, and no rendering cache.
export M44_CLUSTER_DAEMON_ARGS="--rate-read 0 --rate-write 0 --rate-create 0 --threads ${M44_BENCH_THREADS:-4} --cache-entries 0"
cleanup() {
  M44_CLUSTER_DAEMONS=3 scripts/cluster.sh destroy >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
primary_port=$((M44_CLUSTER_PORT + 1))
standby_port=$((M44_CLUSTER_PORT + 2))
nginx=127.0.0.1:$M44_CLUSTER_PORT
psqlq() { "$pgbin/psql" -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$primary_port" -U m44 "$@"; }
BENCH_DB=m44
. bench/common.sh

# up DAEMONS READS: the cluster with that many daemons, reading from the primary or the standby.
up() {
  M44_CLUSTER_DAEMONS=3 scripts/cluster.sh down >/dev/null
  M44_CLUSTER_DAEMONS=$1 M44_CLUSTER_READS=$2 scripts/cluster.sh up >/dev/null
}

echo "== cluster: $N campaigns" >&2
up 3 standby
IN_USE=10000 # campaigns N+1.. that have rolled once before the statistics are taken (in_use)
gen_campaigns m44 "$((N + IN_USE))" 1 reserves >/dev/null
in_use m44 "$((N + 1))" "$((N + IN_USE))" "$nginx"
psqlq -d m44 -c "VACUUM ANALYZE" -c "CHECKPOINT"
psqlq -d m44 -At -c "SELECT '/api/v1/campaigns/' || md5('c' || i)::uuid FROM generate_series(1, 1000) i" >"$out/cluster-get.txt"
# The standby has replayed it all before anything is measured.
until [ "$(psqlq -d m44 -At -c "SELECT count(*) FROM pg_stat_replication WHERE replay_lsn >= pg_current_wal_lsn()")" = 1 ]; do sleep 0.1; done

rows=()
pdir=$M44_CLUSTER_DIR/pg/primary
sdir=$M44_CLUSTER_DIR/pg/standby
# measure LABEL DAEMONS READS LOADGEN-ARGS...: one row, with each database's CPU per request.
measure() {
  local label=$1 daemons=$2 reads=$3 p0 p1 s0 s1 r
  shift 3
  p0=$(pg_ticks "$pdir"); s0=$(pg_ticks "$sdir")
  r=$($LG "$@" "$nginx")
  p1=$(pg_ticks "$pdir"); s1=$(pg_ticks "$sdir")
  rows+=("| $label | $daemons | $reads | $(field rps "$r") | $(field p50_ms "$r") | $(field p99_ms "$r") | $(field errors "$r") | $(ms_per "$p0" "$p1" "$(field requests "$r")") | $(ms_per "$s0" "$s1" "$(field requests "$r")") |")
  echo "$label, $daemons daemons, reads from the $reads: $r" >&2
}
get_row() { # DAEMONS READS
  $LG -c 32 -d 2 -g "$out/cluster-get.txt" "$nginx" >/dev/null # connections, plans and pages warm
  measure "GET /api/v1/campaigns/{id}, rendering cache off" "$1" "$2" -c 32 -d "$SECS" -g "$out/cluster-get.txt"
}
roll_row() { # DAEMONS FIRST LAST
  roll_targets "$2" "$3" a >"$out/cluster-rolls.txt"
  measure "POST .../reserve-roll, cold" "$1" "(a write)" -c 32 -d "$SECS" -p "$out/cluster-rolls.txt"
}

get_row 3 standby
roll_row 3 1 15000
up 3 primary
get_row 3 primary
up 1 primary
get_row 1 primary
roll_row 1 15001 "$N"
up 1 standby
get_row 1 standby

{
  echo
  echo "Scale (bench/cluster.sh): scripts/cluster.sh's cluster on this machine, a PostgreSQL primary"
  echo "with a synchronous streaming standby (both fsync on), m44d daemons behind nginx, over"
  echo "loopback TCP. Load from bench/loadgen, 32 keep-alive connections to nginx, ${SECS} s each."
  echo "CPU per request of each database, in milliseconds (from /proc)."
  echo
  echo "| measurement | daemons | reads from | requests/s | p50 ms | p99 ms | errors | primary CPU ms | standby CPU ms |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee -a "$out/results.md"
