#!/usr/bin/env bash
# A whole campaign with curl alone: create it, play up to five battles, finish, verify.
#   scripts/walkthrough.sh [BASE_URL] [RULESET]      (default http://127.0.0.1:8044 standard)
# Every request is printed before it is sent, so this doubles as a worked example.
set -euo pipefail
BASE=${1:-http://127.0.0.1:8044}
RULESET=${2:-standard}
API=$BASE/api/v1

# The value of a string or number field in a one-line JSON reply (enough for this walk).
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\)\"\{0,1\}.*/\1/p" | head -n 1; }

call() { # METHOD PATH KEY [BODY]
  local method=$1 path=$2 key=$3 body=${4:-}
  echo "> $method $path ${body:+$body}" >&2
  local args=(-sS -X "$method" "$API$path" -H 'Content-Type: application/json')
  [ -n "$key" ] && args+=(-H "Authorization: Bearer $key")
  [ -n "$body" ] && args+=(--data "$body")
  local out
  out=$(curl "${args[@]}")
  echo "< $out" >&2
  case "$out" in *'"type":"urn:m44d:problem:'*) echo "walkthrough: refused: $out" >&2; return 1 ;; esac
  printf '%s' "$out"
}

# 1. Create the campaign: the reply holds the three keys, shown only this once.
created=$(call POST /campaigns "" "{\"name\":\"Walkthrough\",\"ruleset\":\"$RULESET\",\"players\":{\"allies\":\"Ann\",\"axis\":\"Bob\"}}")
ID=$(field id <<<"$created")
ORG=$(field organizer_key <<<"$created")
ALLIES=$(field allies_key <<<"$created")
AXIS=$(field axis_key <<<"$created")
C=/campaigns/$ID
has_list=$(call GET "$C" "" | field scenario_list)

for n in 1 2 3 4 5; do
  # 2. The organizer sets up the battle ({} takes the next scenario of the list).
  if [ "$has_list" = true ]; then
    over=$(call GET "$C" "" | field campaign_over)
    [ "$over" = true ] && break
    battle=$(call POST "$C/battles" "$ORG" '{}')
  else
    battle=$(call POST "$C/battles" "$ORG" "{\"scenario\":\"Battle $n\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":6}")
  fi
  phase=$(field phase <<<"$battle")
  # 3. From battle 2: each side rolls its victory event dice (2 + battles won).
  if [ "$phase" = victory_events ]; then
    for key in "$ALLIES" "$AXIS"; do
      call POST "$C/battles/$n/victory-events" "$key" '{"client_seed":"lucky"}' >/dev/null || true
    done
    call GET "$C/battles/$n" "" >/dev/null   # the instructions, in order, and starting hands
  fi
  # 4. Each side rolls 2 reserve dice and takes what it wants (here: nothing).
  phase=$(call GET "$C/battles/$n" "" | field phase)
  if [ "$phase" = reserves ]; then
    for key in "$ALLIES" "$AXIS"; do
      call POST "$C/battles/$n/reserve-roll" "$key" '{}' >/dev/null
      call POST "$C/battles/$n/reserve-choice" "$key" '{"options":[]}' >/dev/null
    done
  fi
  # 5. Play the battle at the table, then the organizer records the result: the winner reached
  #    the medals to win, the loser did not (anything else is refused).
  win=$(field medals_to_win <<<"$battle")
  lose=$(( (n - 1) % win ))
  if [ $((n % 2)) -eq 1 ]; then medals="{\"allies\":$win,\"axis\":$lose}"; winner=allies
  else medals="{\"allies\":$lose,\"axis\":$win}"; winner=axis; fi
  call POST "$C/battles/$n/result" "$ORG" "{\"winner\":\"$winner\",\"medals\":$medals}" >/dev/null
done

# 6. Finish: the server seed is revealed; anyone can now check every roll.
call POST "$C/finish" "$ORG" '{}' >/dev/null
curl -sS "$API$C/export" -o "/tmp/m44-walkthrough-$ID.json"
echo "export saved to /tmp/m44-walkthrough-$ID.json; check it with: bin/m44 verify /tmp/m44-walkthrough-$ID.json" >&2
echo "$ID"
