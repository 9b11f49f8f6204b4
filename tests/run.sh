#!/usr/bin/env bash
# Runs every test suite: unit, contract (redocly lint of api/openapi.json), rules, replay (fuzz
# corpora and regressions), db, api (every response also checked against api/openapi.json), e2e
# (browser), proxy (nginx and TLS in front of m44d, as docs/DEPLOY.md sets them up), then
# unit/rules/replay/db/api again built with AddressSanitizer + UndefinedBehaviorSanitizer. A throwaway PostgreSQL cluster is
# created for the run and removed afterwards.
#   tests/run.sh                 everything
#   tests/run.sh unit db         only these suites (release build)
# Environment: M44_TEST_SKIP_ASAN=1 skips the sanitizer pass; M44_TEST_VERBOSE=1 shows logs;
# M44_TEST_SUITE_LIMIT=SECONDS: how long one suite may run before it is stopped and counted as
# failed (default 1800: the longest, e2e or the API suite under valgrind, takes about 4 minutes;
# a bug that makes a test wait forever must not hang the run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export M44_ROOT=$root
# Every daemon the suites start (e2e and proxy included) checks, on every write, that the
# campaign it keeps in memory is the one stored.
export M44_CHECK_STATE=on

all_suites=(unit contract rules replay db api e2e proxy)
suites=("$@")
full=0
if [ ${#suites[@]} -eq 0 ]; then suites=("${all_suites[@]}"); full=1; fi

jobs=$(nproc 2>/dev/null || echo 2)
step() { printf '\n=== %s ===\n' "$*"; }

step "build"
make -s -j"$jobs" all tests

pgdir=$(mktemp -d /tmp/m44-test-pg.XXXXXX)
chmod 755 "$pgdir"
cleanup() { scripts/pg.sh destroy "$pgdir" >/dev/null 2>&1 || true; }
trap cleanup EXIT
scripts/pg.sh start "$pgdir" --fast
export M44_TEST_PGDIR=$pgdir
M44_TEST_PGHOST=$(scripts/pg.sh host "$pgdir")
export M44_TEST_PGHOST
# Each run replaces the logs; other outputs (e2e screenshots, fuzz findings) stay until their
# own suite runs again, so `make test-faults` after `make test` keeps the screenshots.
rm -rf tests/out/logs && mkdir -p tests/out/logs

failed=()

# The contract tools (npm: @redocly/cli, Ajv), pinned by tests/contract/package-lock.json.
needs_contract=0
for s in "${suites[@]}"; do case "$s" in api|contract) needs_contract=1 ;; esac; done
if [ $needs_contract -eq 1 ] && [ ! -x tests/contract/node_modules/.bin/redocly ]; then
  step "contract tools (npm ci)"
  (cd tests/contract && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

step "docs"
# The README's configuration table must be the one m44d prints.
if diff -u <(sed -n '/<!-- config:begin -->/,/<!-- config:end -->/p' README.md | sed '1d;$d') \
           <(bin/m44d --config-markdown); then
  echo "README configuration table matches bin/m44d --config-markdown"
else
  echo "README.md's configuration table differs from 'bin/m44d --config-markdown' (diff above)"
  failed+=("docs")
fi

step "bench tools"
# bench/pg-phases.awk (make bench-profile) on four samples of PostgreSQL's and one of another
# program, as `perf script -F comm,ip,sym` prints them: a statement's triggers inside the
# statement (the outermost phase counts), the backend's loop, the WAL writer (outside any
# backend's work), a part twice on one stack (counted once), pgbench's sample (not counted).
# tests/bench/pg-phases.expected is worked out by hand: a quarter each.
if diff -u <(LC_ALL=C sort tests/bench/pg-phases.expected) \
           <(awk -f bench/pg-phases.awk tests/bench/pg-phases.perf | LC_ALL=C sort); then
  echo "bench/pg-phases.awk reads recorded samples as worked out by hand"
else
  echo "bench/pg-phases.awk's reading of tests/bench/pg-phases.perf differs (diff above)"
  failed+=("bench-tools")
fi

step "deploy tools"
# The alert's filter of the failed unit's journal (deploy/systemd/m44d-alert@.service: what
# comes between journalctl and tail there, run as it is) on journal lines of m44d's text and
# JSON logs and of systemd's: request lines (clients' addresses) left out, every id put as
# "(id)", warnings and errors kept (tests/deploy/alert-journal.expected, worked out by hand).
alert_filter=$(sed -n '/^ExecStart=/,/[^\\]$/p' deploy/systemd/m44d-alert@.service | sed 's/\\$//' |
  tr -d '\n' | sed -n 's/.*--no-pager -o short-iso | *\(.*[^ ]\) *| *tail -n 30 |.*/\1/p')
if [ -n "$alert_filter" ] &&
  diff -u tests/deploy/alert-journal.expected <(sh -c "$alert_filter" <tests/deploy/alert-journal.txt); then
  echo "the alert's filter keeps and leaves out journal lines as worked out by hand"
else
  echo "the alert's filter (${alert_filter:-not found in deploy/systemd/m44d-alert@.service}) differs (diff above)"
  failed+=("deploy-tools")
fi

timings=()
limit=${M44_TEST_SUITE_LIMIT:-1800}
case "$limit" in ''|*[!0-9]*|0) echo "M44_TEST_SUITE_LIMIT must be a number of seconds above 0" >&2; exit 2 ;; esac
# limited COMMAND...: the command, stopped whole past the suite's limit: timeout makes it a
# process group of its own and, at the limit, sends TERM to the group, then KILL 30 s later, so
# that nothing it started (a daemon, a browser, a second program holding the pipe to tee) is
# left running. Its status: the command's, or 124 when it was stopped at the limit. Ctrl-C
# reaches only the terminal's process group: it is passed on to timeout, which passes it on to
# its group (and the run stops: the INT trap below). In a subshell, so that its trap is its own.
limited() (
  t0=$SECONDS
  timeout --kill-after=30 "$limit" "$@" &
  p=$!
  trap 'kill -INT "$p" 2>/dev/null' INT
  st=0
  # wait's own standard error is bash's "Killed" notice when the group needed the KILL: the
  # status says it (124 below), and over() in words.
  wait "$p" 2>/dev/null || st=$?
  # A trap ends a wait early: wait again until the command has ended (a zombie answers kill -0).
  while kill -0 "$p" 2>/dev/null; do st=0; wait "$p" 2>/dev/null || st=$?; done
  if [ "$st" -eq 137 ] && [ $((SECONDS - t0)) -ge "$limit" ]; then st=124; fi # it took the KILL
  exit "$st"
)
trap 'echo "tests/run.sh: interrupted" >&2; exit 130' INT
# over SUITE STATUS [LOG]: true, and says so (in the summary too), when the suite's command was
# stopped at the limit; with the suite's LOG, names the test that was running (a C suite's: the
# last one CUnit began), or else repeats the log's last line.
over() {
  [ "$2" -eq 124 ] || return 1
  local what="a test waited too long" running=""
  if [ -n "${3:-}" ] && [ -s "$3" ]; then
    running=$(sed -n 's/^ *Test: \(.*\) \.\.\..*/\1/p' "$3" | tail -n 1)
    if [ -n "$running" ]; then
      what="the test running: $running"
      local in; in=$(sed -n 's/^Suite: \(.*\)/\1/p' "$3" | tail -n 1)
      [ -z "$in" ] || what="$what (suite $in)"
    else
      running=$(grep -v '^[[:space:]]*$' "$3" | tail -n 1 | cut -c1-160 || true)
      [ -z "$running" ] || what="its last line: $running"
    fi
  fi
  printf '\n%s: stopped after the limit of %s s (M44_TEST_SUITE_LIMIT); %s\n' "$1" "$limit" "$what"
  echo "$1: stopped after the limit of $limit s (M44_TEST_SUITE_LIMIT); $what" >>tests/out/logs/limit.out
}
run_suite() { # mode suite
  local t0=$SECONDS
  run_suite_body "$@"
  timings+=("$2 ($1) $((SECONDS - t0)) s")
}
run_suite_body() { # mode suite
  local mode=$1 suite=$2 bdir bin st=0
  if [ "$mode" = asan ]; then bdir=build/asan; bin=build/asan/bin; else bdir=build/release; bin=bin; fi
  step "$suite ($mode)"
  if [ "$suite" = e2e ]; then
    M44_TEST_BIN=$root/$bin limited tests/e2e/run.sh || st=$?
    [ "$st" -eq 0 ] || { failed+=("$suite/$mode"); over "$suite ($mode)" "$st" || true; }
  elif [ "$suite" = proxy ]; then
    M44_TEST_BIN=$root/$bin limited tests/proxy/run.sh 2>&1 | tee "tests/out/logs/proxy-$mode.out" ||
      st=${PIPESTATUS[0]}
    [ "$st" -eq 0 ] ||
      { failed+=("$suite/$mode"); over "$suite ($mode)" "$st" "tests/out/logs/proxy-$mode.out" || true; }
  elif [ "$suite" = cluster ]; then
    # The failover drill (make test-cluster): not in a full run; its cluster is its own.
    limited tests/cluster/drill.sh 2>&1 | tee "tests/out/logs/cluster.out" || st=${PIPESTATUS[0]}
    [ "$st" -eq 0 ] || { failed+=("$suite"); over "$suite" "$st" tests/out/logs/cluster.out || true; }
  elif [ "$suite" = contract ]; then
    # The document itself: redocly's recommended rules (tests/contract/redocly.yaml).
    (cd tests/contract && limited node_modules/.bin/redocly lint --config redocly.yaml \
      ../../api/openapi.json) >tests/out/logs/contract-lint.out 2>&1 || st=$?
    [ "$st" -eq 0 ] ||
      { failed+=("contract"); over "$suite" "$st" tests/out/logs/contract-lint.out || true; }
    grep -vE '^npm warn|^$' tests/out/logs/contract-lint.out | tail -n 25 || true
  elif [ "$suite" = replay ]; then
    # The fuzz corpora and every crash ever found, through each fuzz target.
    for f in tests/fuzz/fuzz_*.c; do
      t=$(basename "$f" .c); t=${t#fuzz_}
      st=0
      limited "$bdir/fuzz-replay/$t" "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" || st=$?
      [ "$st" -eq 0 ] || { failed+=("replay-$t/$mode"); over "replay $t ($mode)" "$st" || true; }
    done
  else
    # The output is kept, so that the summary can repeat what failed (CI shows the tail).
    M44_TEST_BIN=$root/$bin limited "$bdir/test-bin/$suite" 2>&1 | tee "tests/out/logs/$suite-$mode.out" ||
      st=${PIPESTATUS[0]}
    if [ "$st" -ne 0 ]; then
      failed+=("$suite/$mode")
      # A test program killed by a signal prints no summary: say so. (An `if`, not `&&`: a
      # false test as the function's last command would be its status, and `set -e` would end
      # the whole run there, without the other suites and the summary.)
      if ! over "$suite ($mode)" "$st" "tests/out/logs/$suite-$mode.out" && [ "$st" -gt 128 ]; then
        echo "$suite ($mode): the test program was killed by signal $((st - 128))" |
          tee -a "tests/out/logs/$suite-$mode.out"
      fi
    fi
  fi
}

for s in "${suites[@]}"; do
  case "$s" in
    unit|contract|rules|replay|db|api|e2e|proxy|faults|abuse|cluster) ;;
    *) echo "unknown suite '$s' (unit contract rules replay db api e2e proxy faults abuse cluster)" >&2; exit 2 ;;
  esac
  run_suite release "$s"
done

if [ $full -eq 1 ] && [ -z "${M44_TEST_SKIP_ASAN:-}" ]; then
  step "build (AddressSanitizer + UndefinedBehaviorSanitizer)"
  make -s -j"$jobs" MODE=asan all tests
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=66
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  for s in unit rules replay db api; do
    run_suite asan "$s"
  done
fi

# A daemon's own report (valgrind under `make valgrind`, the sanitizers in the asan pass) fails
# the run wherever the daemon was started, a suite's set-up and tear-down included.
step "daemon logs"
reports=0
for log in tests/out/logs/m44d-*.log; do
  [ -e "$log" ] || continue
  if grep -qE '^==[0-9]+==|ERROR: (Address|Leak)Sanitizer|runtime error: ' "$log"; then
    echo "a report in $log:"
    # `|| true`: head leaving early ends grep with SIGPIPE, which pipefail and set -e would make
    # the end of the run.
    grep -E '^==[0-9]+==|ERROR: (Address|Leak)Sanitizer|runtime error: |^    #[0-9]+ ' "$log" | head -60 || true
    reports=$((reports + 1))
  fi
done
if [ $reports -gt 0 ]; then failed+=("daemon-reports"); else echo "no valgrind or sanitizer report in any daemon's log"; fi

step "summary"
echo "time per suite: $(IFS=,; echo "${timings[*]}" | sed 's/,/, /g'); all in all $SECONDS s"
if [ ${#failed[@]} -gt 0 ]; then
  # Each failed test with its failed assertions (daemons' reports are printed above).
  for f in tests/out/logs/*.out; do
    [ -e "$f" ] || continue
    awk -v f="$(basename "$f" .out)" '/\.\.\.FAILED/ { print f ": " $0; show = 1; next }
      show && /^ +[0-9]+\. / { print; next } { show = 0 }' "$f"
  done
  if [ -e tests/out/logs/limit.out ]; then cat tests/out/logs/limit.out; fi
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test suites passed"
