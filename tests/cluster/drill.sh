#!/usr/bin/env bash
# `make test-cluster`: a failover drill on scripts/cluster.sh's cluster (docs/SCALING.md).
#
# Four clients create campaigns and their first battle through nginx, each write with its own
# Idempotency-Key, retried with that key (for up to 60 s) until it gets an answer that is not
# 5xx. Meanwhile one daemon is killed (SIGKILL: nginx routes around it), then the primary
# (SIGKILL) while the standby's WAL receiver is stopped, and the standby is promoted (pg_ctl
# promote); the daemons find it by themselves.
# Afterwards, in SQL on the new primary: every write that got a 2xx is there (none lost), and
# no key made two (none duplicated). Bounded: about 30 s.
#
# Not yet in this drill: rolls (contiguous numbers, one roll per key, tokens balance), and a
# lagging standby (reads from the standby are not built).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/pg-common.sh

work=$(mktemp -d /tmp/m44-drill.XXXXXX)
chmod 755 "$work"
export M44_CLUSTER_DIR="$work/cluster"
export M44_CLUSTER_PORT=${M44_DRILL_PORT:-18580}
export M44_CLUSTER_DAEMON_ARGS="--rate-read 0 --rate-write 0 --rate-create 0"
finish() {
  touch "$work/stop" 2>/dev/null || true
  kill $(jobs -p) 2>/dev/null || true
  scripts/cluster.sh destroy >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap finish EXIT

scripts/cluster.sh up >/dev/null
nginx_url=http://127.0.0.1:$M44_CLUSTER_PORT
primary_port=$((M44_CLUSTER_PORT + 1))
standby_port=$((M44_CLUSTER_PORT + 2))
sql() { "$pgbin/psql" -h 127.0.0.1 -p "$standby_port" -U m44 -d m44 -tAqc "$1"; }

# One write, retried with its key while the answer is 5xx or none. Prints "STATUS BODYFILE".
write() { # name method path key auth body
  local name=$1 method=$2 path=$3 key=$4 auth=$5 body=$6 code t0=$SECONDS
  local out="$work/$name.body"
  while :; do
    code=$(curl -s -o "$out" -w '%{http_code}' --max-time 10 -X "$method" \
      -H 'Content-Type: application/json' -H "Idempotency-Key: $key" \
      ${auth:+-H "Authorization: Bearer $auth"} -d "$body" "$nginx_url$path" || true)
    case "$code" in
      2??|4??) echo "$code $out"; return 0 ;;
    esac
    if [ $((SECONDS - t0)) -ge 60 ]; then echo "$code $out"; return 0; fi
    echo "$name $code" >>"$work/retries"
    sleep 0.2
  done
}

field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$2"; }

client() {
  local c=$1 n=0 key id org res
  while [ ! -f "$work/stop" ]; do
    n=$((n + 1))
    key=$(cat /proc/sys/kernel/random/uuid)
    res=$(write "c$c-$n" POST /api/v1/campaigns "$key" "" "{\"name\":\"Drill $c-$n\",\"ruleset\":\"standard\"}")
    if [ "${res%% *}" != 201 ]; then echo "failed campaign $key ${res%% *} $(head -c 300 "${res#* }")" >>"$work/failed"; continue; fi
    id=$(field id "${res#* }"); org=$(field organizer_key "${res#* }")
    echo "campaign $id $key $(date +%s%N)" >>"$work/acked-$c"
    key=$(cat /proc/sys/kernel/random/uuid)
    res=$(write "b$c-$n" POST "/api/v1/campaigns/$id/battles" "$key" "$org" \
      '{"scenario":"Pegasus Bridge","first_player":"axis","cards":{"allies":4,"axis":4},"medals_to_win":4}')
    if [ "${res%% *}" != 201 ]; then echo "failed battle $id $key ${res%% *} $(head -c 300 "${res#* }")" >>"$work/failed"; continue; fi
    echo "battle $id $key $(date +%s%N)" >>"$work/acked-$c"
  done
}

for c in 1 2 3 4; do client "$c" & done
sleep 3
kill -KILL "$(cat "$M44_CLUSTER_DIR/m44d-2.pid")"
echo "drill: m44d 2 killed"
sleep 2
# Synchronous, or the drill would prove nothing: an asynchronous standby on loopback is seldom
# behind, and a lost write would only show by chance.
sync=$("$pgbin/psql" -h 127.0.0.1 -p "$primary_port" -U m44 -d m44 -tAqc "SELECT sync_state FROM pg_stat_replication")
[ "$sync" = sync ] || { echo "drill: FAIL: the standby is not synchronous ($sync)"; exit 1; }
# The standby stops receiving for a second, and the primary dies then: commits made meanwhile
# are not on the standby. Synchronous replication acknowledged none of them (they wait for the
# standby); asynchronous would have, and lost them.
receiver=$(sql "SELECT pid FROM pg_stat_wal_receiver")
kill -STOP "$receiver"
sleep 1
kill -KILL "$(head -1 "$M44_CLUSTER_DIR/pg/primary/postmaster.pid")"
echo "drill: primary killed (the standby's WAL receiver stopped for the last second)"
kill -CONT "$receiver"
sleep 1
scripts/cluster.sh promote >/dev/null
promoted=$(date +%s%N)
echo "drill: standby promoted"
sleep 6
touch "$work/stop"
wait

rc=0
cat "$work"/acked-* >"$work/acked" 2>/dev/null || true
campaigns=$(grep -c '^campaign ' "$work/acked" || true)
battles=$(grep -c '^battle ' "$work/acked" || true)
if [ -s "$work/failed" ]; then
  echo "drill: FAIL: writes that never got a 2xx:"; cat "$work/failed"; rc=1
fi
# Lost: an acknowledged campaign or battle that is not on the new primary.
lost=0
while read -r kind id _ _; do
  case $kind in
    campaign) q="SELECT count(*) FROM campaigns WHERE id = '$id'" ;;
    battle) q="SELECT count(*) FROM battles WHERE campaign_id = '$id' AND number = 1" ;;
  esac
  [ "$(sql "$q")" = 1 ] || { echo "drill: lost: $kind of $id"; lost=$((lost + 1)); }
done <"$work/acked"
# Duplicated: more rows than acknowledged writes (each key retried made at most one).
in_db_campaigns=$(sql "SELECT count(*) FROM campaigns WHERE name LIKE 'Drill %'")
in_db_battles=$(sql "SELECT count(*) FROM battles b JOIN campaigns c ON c.id = b.campaign_id WHERE c.name LIKE 'Drill %'")
dup=$(( (in_db_campaigns - campaigns) + (in_db_battles - battles) + lost ))
[ "$dup" -ge 0 ] || dup=0
echo "drill: acknowledged $campaigns campaigns and $battles battles; lost $lost, duplicated $dup"
echo "drill: on the new primary: $in_db_campaigns campaigns, $in_db_battles battles"
echo "drill: answers retried with their key (no answer, or 5xx): $(cat "$work/retries" 2>/dev/null | wc -l)"
[ "$(sql "SELECT pg_is_in_recovery()")" = f ] || { echo "drill: FAIL: the standby is not the primary"; rc=1; }
[ "$campaigns" -gt 0 ] || { echo "drill: FAIL: nothing was acknowledged"; rc=1; }
[ "$lost" -eq 0 ] && [ "$dup" -eq 0 ] || rc=1
retried=$(cat "$work/retries" 2>/dev/null | wc -l)
[ "$retried" -gt 0 ] || { echo "drill: FAIL: no write was cut off by the kills (nothing was tested)"; rc=1; }
# Writes went on after the promotion (through the daemons that reconnected by themselves).
after=$(awk -v t="$promoted" '$4 > t' "$work/acked" | wc -l)
echo "drill: acknowledged after the promotion: $after"
[ "$after" -gt 0 ] || { echo "drill: FAIL: no write acknowledged after the promotion"; rc=1; }
[ $rc -eq 0 ] && echo "drill: passed" || echo "drill: FAILED"
exit $rc
