#!/usr/bin/env bash
# The README's `make run`, used as a group would use it: started with nothing running, it must
# install what it needs, build, and serve the dashboard and the API on 127.0.0.1:8044 with a
# private PostgreSQL; a campaign made there is kept for the next `make run`; Ctrl-C (SIGINT to
# its process group, as a terminal sends it) stops m44d and that PostgreSQL.
# make test-fresh runs this first on the bare Debian 12 root, before `make test`, so that
# nothing `make test` installs can hide a package `make run` lacks. It needs nothing but bash:
# the requests go through bash's /dev/tcp (a bare root has no curl).
#   scripts/check-make-run.sh     (refuses to start while anything answers on port 8044)
set -uo pipefail
cd "$(dirname "$0")/.."
port=8044
log=$(mktemp /tmp/m44-make-run.XXXXXX)
pid=""

fail() {
  echo "check-make-run: FAILED: $*" >&2
  echo "check-make-run: the end of make run's output:" >&2
  tail -n 30 "$log" | sed 's/^/  /' >&2
  # Nothing is left running: Ctrl-C, then whatever is still there is killed, PostgreSQL stopped.
  if [ -n "$pid" ]; then
    kill -INT -- "-$pid" 2>/dev/null
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$pid" 2>/dev/null
  fi
  scripts/pg.sh stop var/pg >/dev/null 2>&1
  exit 1
}

# One HTTP/1.0 request; prints the status code, then the body on the following lines.
http() { # method path [json body]
  local body=${3:-} answer
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  printf '%s %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$1" "$2" "$port" "${#body}" "$body" >&3
  answer=$(timeout 10 cat <&3)
  exec 3<&-
  printf '%s\n' "$answer" | head -n 1 | cut -d' ' -f2
  printf '%s\n' "$answer" | sed '1,/^\r\{0,1\}$/d'
}

start() { # what: waits until this make run's m44d answers /readyz with 200 (installs included)
  [ -z "$(http GET /readyz | head -n 1)" ] || { echo "check-make-run: something already answers on port $port; stop it first" >&2; exit 1; }
  local from
  from=$(wc -l <"$log")
  # Its own process group, as a terminal gives it; and SIGINT as a terminal leaves it (a shell
  # starts background commands with SIGINT ignored, which would hide how make run takes Ctrl-C).
  setsid env --default-signal=INT,QUIT make run >>"$log" 2>&1 &
  pid=$!
  local deadline=$((SECONDS + 1200))
  until tail -n +"$((from + 1))" "$log" | grep -q 'main: m44d .* ready' &&
        [ "$(http GET /readyz | head -n 1)" = 200 ]; do
    kill -0 "$pid" 2>/dev/null || { pid=""; fail "$1: make run ended before serving"; }
    [ $SECONDS -lt $deadline ] || fail "$1: nothing served on 127.0.0.1:$port after 20 minutes"
    sleep 1
  done
}

stop() { # what: Ctrl-C; make run must end, PostgreSQL with it
  kill -INT -- "-$pid" || fail "$1: could not send Ctrl-C"
  local i
  for i in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && fail "$1: make run still running 30 s after Ctrl-C"
  pid=""
  # m44d ends cleanly first (its requests drained), and only then its PostgreSQL is stopped.
  local ended stopped
  ended=$(grep -n 'main: stopped$' "$log" | tail -n 1 | cut -d: -f1)
  stopped=$(grep -n '^run.sh: PostgreSQL stopped' "$log" | tail -n 1 | cut -d: -f1)
  [ -n "$ended" ] && [ -n "$stopped" ] && [ "$ended" -lt "$stopped" ] ||
    fail "$1: after Ctrl-C, m44d did not stop before its PostgreSQL (m44d's end on line ${ended:-none}, PostgreSQL's on ${stopped:-none})"
  [ ! -e var/pg/cluster/data/postmaster.pid ] || fail "$1: PostgreSQL still running after Ctrl-C"
  [ -z "$(http GET /readyz | head -n 1)" ] || fail "$1: something still answers on port $port"
}

t0=$SECONDS
start "the first make run"
echo "check-make-run: make run serves after $((SECONDS - t0)) s (its installs and build included)"
page=$(http GET /)
[ "$(head -n 1 <<<"$page")" = 200 ] && grep -q '<html' <<<"$page" || fail "GET / is not the dashboard"
made=$(http POST /api/v1/campaigns \
  '{"name":"Kept between runs","ruleset":"standard","players":{"allies":"A","axis":"B"}}')
[ "$(head -n 1 <<<"$made")" = 201 ] || fail "making a campaign: $(head -c 300 <<<"$made")"
id=$(grep -oE '"id" *: *"[0-9a-f-]{36}"' <<<"$made" | head -n 1 | grep -oE '[0-9a-f-]{36}')
[ -n "$id" ] || fail "no campaign id in the answer"
echo "check-make-run: the dashboard served, a campaign made"
stop "the first make run"
echo "check-make-run: Ctrl-C stopped m44d and its PostgreSQL"

start "make run again"
[ "$(http GET "/api/v1/campaigns/$id" | head -n 1)" = 200 ] || fail "the campaign is not kept for the next make run"
stop "make run again"
echo "check-make-run: the next make run still has the campaign; make run passed"
rm -f "$log"
