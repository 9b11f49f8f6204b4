#!/usr/bin/env bash
# make mutants: the mutation trial of docs/TESTING.md. Each tests/mutants/*.patch puts one
# realistic bug into a copy of this tree; the suite named in its header must then fail. A
# mutant whose suite still passes "survived": the tests cannot see that bug.
#   scripts/mutants.sh [NAME...]     (NAME: a patch's file name without .patch; default all)
# Patch header lines: "# suite: SUITE" (a tests/run.sh suite, or "valgrind") and
# "# caught by: TEST" (the test that must fail). Takes 1-3 minutes a mutant. A mutant that
# makes a test wait forever is stopped after 15 minutes (M44_TEST_SUITE_LIMIT, tests/run.sh),
# and killed: its suite failed.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
export M44_TEST_SUITE_LIMIT=${M44_TEST_SUITE_LIMIT:-900}
work=$(mktemp -d /tmp/m44-mutants.XXXXXX)
trap 'rm -rf "$work"' EXIT
# One copy of the tree, builds included, so each mutant rebuilds only what it touches.
tar -C "$repo" --exclude=./tests/out --exclude=./.git --exclude='*/node_modules' -cf - . | tar -C "$work" -xf -
for d in tests/e2e tests/contract; do
  [ -d "$repo/$d/node_modules" ] && ln -s "$repo/$d/node_modules" "$work/$d/node_modules"
done
patches=()
if [ $# -gt 0 ]; then for n in "$@"; do patches+=("tests/mutants/$n.patch"); done
else patches=(tests/mutants/*.patch); fi

killed=0 survived=() broken=()
for p in "${patches[@]}"; do
  name=$(basename "$p" .patch)
  suite=$(sed -n 's/^# suite: *//p' "$p" | head -1)
  caught=$(sed -n 's/^# caught by: *//p' "$p" | head -1)
  if ! (cd "$work" && patch -s -p1 --dry-run <"$repo/$p" >/dev/null); then
    echo "mutant $name: the patch no longer applies (update it)"; broken+=("$name"); continue
  fi
  (cd "$work" && patch -s -p1 <"$repo/$p")
  log="$repo/tests/out/mutants/$name.log"
  mkdir -p "$(dirname "$log")"
  t0=$SECONDS
  # A mutant that does not build proves nothing: it is broken, not killed.
  if ! (cd "$work" && make -s all tests) >"$log" 2>&1; then
    (cd "$work" && patch -s -R -p1 <"$repo/$p")
    echo "mutant $name: does not build (update it); see $log"; broken+=("$name"); continue
  fi
  if [ "$suite" = valgrind ]; then
    (cd "$work" && make -s valgrind) >"$log" 2>&1
  else
    (cd "$work" && M44_TEST_SKIP_ASAN=1 tests/run.sh "$suite") >"$log" 2>&1
  fi
  status=$?
  (cd "$work" && patch -s -R -p1 <"$repo/$p")
  if [ $status -ne 0 ]; then
    killed=$((killed + 1))
    echo "mutant $name: killed by the $suite suite in $((SECONDS - t0)) s (expected: $caught)"
    # The failed tests: CUnit's "Test: NAME ..." whose FAILED may come lines later.
    awk '/^  Test: /{t=$0} /^(  Test: .*)?FAILED$/{if(t!=""){print t; t=""}} /^not ok|contract: /{print}' "$log" |
      head -3 | sed 's/^ */    /'
  else
    survived+=("$name")
    echo "mutant $name: SURVIVED the $suite suite ($caught should have caught it); see $log"
  fi
done
echo "mutation trial: ${#patches[@]} mutant(s), $killed killed, ${#survived[@]} survived${survived:+ (${survived[*]})}, ${#broken[@]} no longer apply${broken:+ (${broken[*]})}"
[ ${#survived[@]} -eq 0 ] && [ ${#broken[@]} -eq 0 ]
