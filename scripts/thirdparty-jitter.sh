#!/usr/bin/env bash
# The 20-fresh-run table of the planted agents over real, unmodified SDKs
# with jittered retries (examples/thirdparty: stripeagent over stripe-go,
# openaiagent over openai-go). Each run is a process of its own running the
# example's TestCheck on the planted agent (a fresh math/rand seed, so the
# SDK's back-offs jitter differently each time), and is classified:
#   found   - the check failed with effect_at_most_once and a replay line
#   harness - a harness error (a nondeterministic replay among them)
#   passed  - the check passed: the bug went unseen
# with the shrunk schedule's fault count and the jitter note's N ("-" when
# the confirming rerun crossed at the same times). See docs/production.md.
#
# Usage: scripts/thirdparty-jitter.sh [RUNS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/../examples/thirdparty"
runs=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ex in stripeagent openaiagent; do
  env=$(echo "$ex" | tr a-z A-Z)
  go test -c -o "$work/$ex.test" "./$ex"
  found=0 harness=0 passed=0 varied=0 maxn=0
  printf '%s (%s runs)\n' "$ex" "$runs"
  printf '%4s  %-8s %-22s %6s %10s\n' run verdict invariant faults jitter_ms
  for i in $(seq 1 "$runs"); do
    dir="$work/$ex-$i"
    mkdir -p "$dir"
    out=$(cd "$ex" && env "${env}_PLANTED=1" "${env}_BODY=1" "${env}_FAIL_DIR=$dir" \
      "$work/$ex.test" -test.run '^TestCheck$' -test.count=1 2>&1 || true)
    inv=- faults=- n=-
    if grep -q 'nondeterministic replay\|a harness or option error' <<<"$out"; then
      verdict=harness; harness=$((harness + 1))
    elif grep -q 'effect_at_most_once violated' <<<"$out" && grep -q '^ *replay: ' <<<"$out"; then
      verdict=found; found=$((found + 1)); inv=effect_at_most_once
      faults=$(grep -o 'minimal schedule ([0-9]* fault' <<<"$out" | grep -o '[0-9]*' || echo '?')
      if m=$(grep -o 'jittered back-off): up to [0-9]* ms' <<<"$out"); then
        n=$(grep -o '[0-9]* ms' <<<"$m" | grep -o '[0-9]*'); varied=$((varied + 1))
        [ "$n" -gt "$maxn" ] && maxn=$n
      fi
    elif grep -q '^--- PASS: TestCheck' <<<"$out"; then
      verdict=passed; passed=$((passed + 1))
    else
      verdict=harness; harness=$((harness + 1))
    fi
    printf '%4d  %-8s %-22s %6s %10s\n' "$i" "$verdict" "$inv" "$faults" "$n"
  done
  printf '%s: found %d/%d, harness errors %d, passed %d; logical times varied in %d runs, up to %d ms\n\n' \
    "$ex" "$found" "$runs" "$harness" "$passed" "$varied" "$maxn"
done
