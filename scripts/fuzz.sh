#!/usr/bin/env bash
# Runs every libFuzzer target (built by `make MODE=fuzz fuzz-bins`) for SECONDS each, all at
# once, starting from the seed corpora in tests/fuzz/corpus/<target>. Findings go to
# tests/out/fuzz/; any crash, leak or timeout fails the run. A crash found becomes a regression
# test: copy the input into tests/fuzz/regressions/<target>/ (make test replays it).
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
targets=()
for f in tests/fuzz/fuzz_*.c; do t=$(basename "$f" .c); targets+=("${t#fuzz_}"); done
out=tests/out/fuzz
rm -rf "$out"
mkdir -p "$out"
pids=()
for t in "${targets[@]}"; do
  work=tests/fuzz/corpus-work/$t
  mkdir -p "$work"
  build/fuzz/fuzz-bin/"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$t-" "$work" "tests/fuzz/corpus/$t" \
    "tests/fuzz/regressions/$t" >"$out/$t.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  if wait "${pids[$i]}"; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t.log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$out/$t.log" | tail -1 | grep -o '[0-9]*' || echo "?")
    echo "fuzz $t: ${seconds}s, $runs inputs, coverage $cov, no crash"
  else
    echo "fuzz $t: FAILED, see $out/$t.log and $out/$t-*" >&2
    tail -n 30 "$out/$t.log" >&2
    failed=1
  fi
done
exit $failed
