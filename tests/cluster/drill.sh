#!/usr/bin/env bash
# `make test-cluster`: a failover drill on scripts/cluster.sh's cluster (docs/SCALING.md).
#
# Four clients play campaigns through nginx: each creates a campaign, then plays battles (set-up,
# Victory Event Rolls, Reserve Rolls, reserve choices, result), every write with its own
# Idempotency-Key, retried with that key (for up to 60 s) until it gets an answer that is not
# 5xx; any 4xx is a failure (a retry that was not recognised as one, say). Meanwhile:
#   1. the standby's replay is paused: reads that the daemons send to it (--read-database) must
#      still show every write (read-your-writes), and, once it is behind more than
#      --read-max-lag-ms, go to the primary; after the replay resumes, the standby answers again;
#   2. one daemon is killed (SIGKILL: nginx routes around it);
#   3. the primary is killed (SIGKILL) while the standby's WAL receiver is stopped, and the
#      standby is promoted (pg_ctl promote); the daemons find it by themselves.
# Afterwards, in SQL on the new primary: every write that got a 2xx is there (none lost), no key
# made two (none duplicated), every campaign's roll numbers run 1, 2, 3... with no gap, each
# roll is the one its key was answered with, and each side's Reserve Tokens are the sum of its
# token ledger and what the last result acknowledged. Bounded: about 40 s.
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
number() { sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" "$2" | head -1; }

# One acknowledged write of client $c, or a failure. Sets $body (the answer's file).
step() { # what expected-status method path auth json
  local what=$1 want=$2 res key
  key=$(cat /proc/sys/kernel/random/uuid)
  res=$(write "$c-$what" "$3" "$4" "$key" "$5" "$6")
  body=${res#* }
  if [ "${res%% *}" != "$want" ]; then
    echo "failed $what $4 $key ${res%% *} $(head -c 300 "$body")" >>"$work/failed"
    return 1
  fi
  stamp="$key $(date +%s%N)"
}

# A roll: the answer's roll number and faces, kept with the key that made it.
roll() { # side battle kind auth
  step "$3-$1-$2" 201 POST "/api/v1/campaigns/$id/battles/$2/$3" "$4" '{}' || return 1
  [ -n "$(number roll "$body")" ] || return 0 # no dice to roll: no roll
  echo "roll $id $(number roll "$body") $(sed -n 's/.*"faces":\[\([^]]*\)\].*/\1/p' "$body" | tr -d '"') $stamp" >>"$work/acked-$c"
}

# A reserve choice: the first option of one grant that the side's tokens pay for, or none.
choose() { # side battle auth rollbody
  local tokens opt
  tokens=$(number reserve_tokens "$4")
  opt=$(grep -o '{"id":"[^"]*","dice":\[[0-9,]*\],"cost":[0-9]*,"grants":\["[a-z-]*"\]' "$4" |
    awk -F'"' -v t="$tokens" '{ split($0, a, "\"cost\":"); split(a[2], b, ",");
      if (b[1] + 0 <= t + 0) { printf "{\"id\":\"%s\",\"grant\":\"%s\"}", $4, $(NF - 1); exit } }')
  step "choice-$1-$2" 200 POST "/api/v1/campaigns/$id/battles/$2/reserve-choice" "$3" \
    "{\"options\":[$opt]}" || return 1
  echo "choice $id $2 $1 $stamp" >>"$work/acked-$c"
}

client() {
  local c=$1 n=0 org al ax battle phase allies_roll axis_roll
  while [ ! -f "$work/stop" ]; do
    n=$((n + 1))
    step campaign 201 POST /api/v1/campaigns "" "{\"name\":\"Drill $c-$n\",\"ruleset\":\"standard\"}" || continue
    id=$(field id "$body"); org=$(field organizer_key "$body")
    al=$(field allies_key "$body"); ax=$(field axis_key "$body")
    echo "campaign $id $stamp" >>"$work/acked-$c"
    for battle in 1 2 3; do
      [ ! -f "$work/stop" ] || break
      step "battle-$battle" 201 POST "/api/v1/campaigns/$id/battles" "$org" \
        '{"scenario":"Pegasus Bridge","first_player":"allies","cards":{"allies":5,"axis":5},"medals_to_win":6}' || break
      phase=$(field phase "$body")
      echo "battle $id $battle $stamp" >>"$work/acked-$c"
      if [ "$phase" = victory_events ]; then
        roll allies "$battle" victory-events "$al" && roll axis "$battle" victory-events "$ax" || break
      fi
      roll allies "$battle" reserve-roll "$al" && cp "$body" "$work/$c.allies" || break
      roll axis "$battle" reserve-roll "$ax" && cp "$body" "$work/$c.axis" || break
      choose allies "$battle" "$al" "$work/$c.allies" && choose axis "$battle" "$ax" "$work/$c.axis" || break
      step "result-$battle" 200 POST "/api/v1/campaigns/$id/battles/$battle/result" "$org" \
        '{"winner":"allies","medals":{"allies":6,"axis":3}}' || break
      echo "result $id $battle $(sed -n 's/.*"reserve_tokens":{"allies":\([0-9]*\),"axis":\([0-9]*\)}.*/\1 \2/p' "$body") $stamp" >>"$work/acked-$c"
    done
  done
}

# Every daemon's count of reads by how they went (db/replica.h), summed: "standby 12 lagging 3 ...".
reads() {
  local i
  for i in 1 2 3; do curl -s --max-time 2 "http://127.0.0.1:$((M44_CLUSTER_PORT + 2 + i))/metrics" || true; done |
    awk -F'[="} ]+' '/^m44d_standby_reads_total/ { n[$2] += $3 } END { printf "standby %d lagging %d behind %d refused %d failed %d\n", n["standby"], n["lagging"], n["behind"], n["refused"], n["failed"] }'
}
outcome() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'; }
fail() { echo "drill: FAIL: $*"; echo "$*" >>"$work/lag-failed"; }

# Part 1, the standby lags: reads of each daemon still show every write.
new_campaign() { # name -> sets id, org, allies
  curl -s -o "$work/lag.json" -X POST -H 'Content-Type: application/json' \
    -d "{\"name\":\"$1\",\"ruleset\":\"standard\"}" "$nginx_url/api/v1/campaigns"
  id=$(field id "$work/lag.json"); org=$(field organizer_key "$work/lag.json")
  allies=$(field allies_key "$work/lag.json")
  [ -n "$id" ] || fail "the campaign '$1' was not created"
}
standby_sql() { "$pgbin/psql" -h 127.0.0.1 -p "$standby_port" -U m44 -d m44 -tAqc "$1"; }
lagging_standby() {
  local org allies id old new i p code etag before after
  before=$(reads)
  # One campaign the standby holds at version 2 (a battle), then sees no more of (a roll: 3); one
  # it never sees.
  new_campaign "Drill lag old"; old=$id
  curl -s -o "$work/lag-battle.json" -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $org" \
    -d '{"scenario":"Pegasus Bridge","first_player":"allies","cards":{"allies":5,"axis":5},"medals_to_win":6}' \
    "$nginx_url/api/v1/campaigns/$old/battles"
  for _ in $(seq 1 50); do [ "$(standby_sql "SELECT count(*) FROM battles WHERE campaign_id = '$old'")" = 1 ] && break; sleep 0.1; done
  [ "$(standby_sql "SELECT count(*) FROM battles WHERE campaign_id = '$old'")" = 1 ] ||
    { fail "the standby did not receive a battle within 5 s"; return; }
  standby_sql "SELECT pg_wal_replay_pause()" >/dev/null
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $allies" -d '{}' "$nginx_url/api/v1/campaigns/$old/battles/1/reserve-roll")
  [ "$code" = 201 ] || fail "the roll made while the standby lagged was answered $code"
  new_campaign "Drill lag new"; new=$id
  for i in 1 2 3; do
    p="http://127.0.0.1:$((M44_CLUSTER_PORT + 2 + i))/api/v1/campaigns"
    etag=$(curl -s -D - -o /dev/null "$p/$old" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: "\([0-9]*\)"/\1/p')
    [ "$etag" = 3 ] || fail "m44d $i showed version '$etag' of a campaign at version 3 while the standby lagged"
    etag=$(curl -s -D - -o /dev/null "$p/$old/battles/1" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: "\([0-9]*\)"/\1/p')
    [ "$etag" = 3 ] || fail "m44d $i showed a battle of version '$etag' after a roll made while the standby lagged (3)"
    code=$(curl -s -o /dev/null -w '%{http_code}' "$p/$new/rolls")
    [ "$code" = 200 ] || fail "m44d $i answered $code for the rolls of a campaign made while the standby lagged"
  done
  after=$(reads)
  [ $(( $(outcome behind "$after") - $(outcome behind "$before") )) -gt 0 ] ||
    fail "no read found the standby behind what it must show, and went to the primary ($after)"
  [ $(( $(outcome refused "$after") - $(outcome refused "$before") )) -gt 0 ] ||
    fail "no read the standby refused went to the primary ($after)"
  sleep 1.5 # more than --read-max-lag-ms (1 s): the standby is no longer read at all
  for i in 1 2 3; do
    curl -s "http://127.0.0.1:$((M44_CLUSTER_PORT + 2 + i))/api/v1/campaigns?limit=100" | grep -q "$new" ||
      fail "m44d $i listed campaigns without one made while the standby lagged"
  done
  after=$(reads)
  echo "drill: reads while the standby's replay was paused: $after (before: $before)"
  [ "$(outcome lagging "$after")" -gt "$(outcome lagging "$before")" ] ||
    fail "no read was kept from the standby once it lagged beyond the bound"
  standby_sql "SELECT pg_wal_replay_resume()" >/dev/null
  sleep 1
  before=$(reads)
  for i in 1 2 3; do
    curl -s -o /dev/null "http://127.0.0.1:$((M44_CLUSTER_PORT + 2 + i))/api/v1/campaigns?limit=5"
  done
  after=$(reads)
  [ "$(outcome standby "$after")" -gt "$(outcome standby "$before")" ] ||
    fail "the standby was not read again after it caught up ($after)"
}

for c in 1 2 3 4; do client "$c" & done
sleep 2
lagging_standby
echo "drill: standby lag checked"
sleep 1
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
count() { grep -c "^$1 " "$work/acked" || true; }
campaigns=$(count campaign); battles=$(count battle); rolls=$(count roll)
choices=$(count choice); results=$(count result)
if [ -s "$work/failed" ]; then
  echo "drill: FAIL: writes that never got the answer they should:"; cat "$work/failed"; rc=1
fi
if [ -s "$work/lag-failed" ]; then rc=1; fi

# What the new primary holds of the drill's campaigns, one line per row, in the acked format.
sql "SELECT 'campaign ' || id FROM campaigns WHERE name LIKE 'Drill %-%'" >"$work/db"
sql "SELECT 'battle ' || b.campaign_id || ' ' || b.number FROM battles b JOIN campaigns c ON c.id = b.campaign_id WHERE c.name LIKE 'Drill %-%'" >>"$work/db"
sql "SELECT 'roll ' || r.campaign_id || ' ' || r.n || ' ' || array_to_string(r.faces, ',') FROM rolls r JOIN campaigns c ON c.id = r.campaign_id WHERE c.name LIKE 'Drill %-%'" >>"$work/db"
sql "SELECT 'choice ' || x.campaign_id || ' ' || x.battle || ' ' || x.side FROM reserve_choices x JOIN campaigns c ON c.id = x.campaign_id WHERE c.name LIKE 'Drill %-%'" >>"$work/db"
sql "SELECT 'result ' || b.campaign_id || ' ' || b.number FROM battles b JOIN campaigns c ON c.id = b.campaign_id WHERE c.name LIKE 'Drill %-%' AND b.phase = 'finished'" >>"$work/db"
# Lost: an acknowledged write whose row is not there (a roll: with the faces it was answered).
awk '{ if ($1 == "campaign") k = $1 " " $2; else if ($1 == "battle" || $1 == "result") k = $1 " " $2 " " $3;
       else if ($1 == "roll") k = $1 " " $2 " " $3 " " $4; else k = $1 " " $2 " " $3 " " $4; print k }' \
  "$work/acked" | sort >"$work/acked-keys"
sort "$work/db" >"$work/db-keys"
lost=$(comm -23 "$work/acked-keys" "$work/db-keys" | tee "$work/lost" | wc -l)
[ "$lost" -eq 0 ] || { echo "drill: lost:"; head -20 "$work/lost"; }
# Duplicated: rows that no acknowledged write made (each key, retried, made at most one).
dup=$(comm -13 "$work/acked-keys" "$work/db-keys" | tee "$work/dup" | wc -l)
[ "$dup" -eq 0 ] || { echo "drill: duplicated (in the database, never acknowledged):"; head -20 "$work/dup"; }
# One roll per key: no two keys were answered with the same roll, nor one key with two.
same=$(awk '$1 == "roll" { print $2, $3 }' "$work/acked" | sort | uniq -d | wc -l)
[ "$same" -eq 0 ] || { echo "drill: FAIL: $same rolls were answered to two keys"; rc=1; }
# Roll numbers run 1..N with no gap, and the next roll is N + 1.
gaps=$(sql "SELECT count(*) FROM campaigns c WHERE c.name LIKE 'Drill %'
              AND (SELECT coalesce(max(n), 0) <> count(*) OR coalesce(max(n), 0) + 1 <> c.next_roll
                   FROM rolls r WHERE r.campaign_id = c.id)")
[ "$gaps" = 0 ] || { echo "drill: FAIL: $gaps campaigns have gaps in their roll numbers"; rc=1; }
# Tokens balance: each side's count is the sum of its ledger, each ledger line's balance the sum
# so far, and the last acknowledged result's count is the campaign's (nothing after it changes it).
unbalanced=$(sql "SELECT count(*) FROM campaigns c WHERE c.name LIKE 'Drill %' AND (
                    c.tokens_allies <> (SELECT coalesce(sum(delta), 0) FROM token_ledger l WHERE l.campaign_id = c.id AND l.side = 'allies')
                 OR c.tokens_axis <> (SELECT coalesce(sum(delta), 0) FROM token_ledger l WHERE l.campaign_id = c.id AND l.side = 'axis')
                 OR EXISTS (SELECT 1 FROM (SELECT balance, sum(delta) OVER (PARTITION BY side ORDER BY seq) AS running
                                           FROM token_ledger l WHERE l.campaign_id = c.id) t WHERE balance <> running))")
[ "$unbalanced" = 0 ] || { echo "drill: FAIL: $unbalanced campaigns' tokens do not balance with their ledgers"; rc=1; }
awk '$1 == "result" { last[$2] = $4 " " $5 } $1 != "result" && $1 != "campaign" { delete last[$2] }
     END { for (id in last) print id, last[id] }' "$work/acked" >"$work/last-results"
mismatched=0
while read -r id allies axis; do
  [ "$(sql "SELECT tokens_allies || ' ' || tokens_axis FROM campaigns WHERE id = '$id'")" = "$allies $axis" ] ||
    { echo "drill: tokens of $id are not those its last result acknowledged ($allies $axis)"; mismatched=$((mismatched + 1)); }
done <"$work/last-results"
[ "$mismatched" -eq 0 ] || rc=1
[ -s "$work/last-results" ] || { echo "drill: FAIL: no campaign's tokens could be checked against a result"; rc=1; }
echo "drill: acknowledged $campaigns campaigns, $battles battles, $rolls rolls, $choices choices, $results results; lost $lost, duplicated $dup"
echo "drill: answers retried with their key (no answer, or 5xx): $(cat "$work/retries" 2>/dev/null | wc -l)"
echo "drill: tokens checked against the last result of $(wc -l <"$work/last-results") campaigns"
[ "$(sql "SELECT pg_is_in_recovery()")" = f ] || { echo "drill: FAIL: the standby is not the primary"; rc=1; }
[ "$campaigns" -gt 0 ] && [ "$rolls" -gt 0 ] && [ "$results" -gt 0 ] || { echo "drill: FAIL: too little was acknowledged"; rc=1; }
[ "$lost" -eq 0 ] && [ "$dup" -eq 0 ] || rc=1
retried=$(cat "$work/retries" 2>/dev/null | wc -l)
[ "$retried" -gt 0 ] || { echo "drill: FAIL: no write was cut off by the kills (nothing was tested)"; rc=1; }
# Writes went on after the promotion (through the daemons that reconnected by themselves).
after=$(awk -v t="$promoted" '$NF > t' "$work/acked" | wc -l)
echo "drill: acknowledged after the promotion: $after"
[ "$after" -gt 0 ] || { echo "drill: FAIL: no write acknowledged after the promotion"; rc=1; }
[ $rc -eq 0 ] && echo "drill: passed" || echo "drill: FAILED"
exit $rc
