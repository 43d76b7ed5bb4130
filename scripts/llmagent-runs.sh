#!/usr/bin/env bash
# The fresh-run table of the agent over anthropic-sdk-go whose model's
# replies are a fault boundary (examples/thirdparty/llmagent). For each
# planted bug, each run is a process of its own running TestCheck on the
# planted agent (a fresh math/rand seed, so the SDK's back-offs jitter
# differently; over the eight kinds, or for fresh_budget_on_resume, which
# takes budget_exhaustion and worker_crash, the plain check over every
# kind, LLMAGENT_PLAIN=1) and is classified:
#   found   - the check failed with the bug's invariant and a replay line
#   harness - a harness error (a nondeterministic replay among them)
#   passed  - the check passed: the bug went unseen
# with the shrunk schedule's fault count (one, or the bug's two) and the
# jitter note's N. See docs/llm-agents.md.
#
# Usage: scripts/llmagent-runs.sh [RUNS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/../examples/thirdparty"
runs=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/llmagent.test" ./llmagent
for pair in unbound_subject:right_subject reask_fresh_key:effect_at_most_once ignore_retry_after:retry_paced every_tool_call:effect_at_most_once refusal_as_done:no_invented_progress ignore_context_version:current_entitlement fresh_budget_on_resume:budget; do
  bug=${pair%%:*} want=${pair##*:} plain= faults='1 fault'
  if [ "$bug" = fresh_budget_on_resume ]; then plain=1 faults='2 faults'; fi
  found=0 harness=0 passed=0 varied=0 maxn=0 one=0
  for i in $(seq 1 "$runs"); do
    dir="$work/$bug-$i"
    mkdir -p "$dir"
    out=$(cd llmagent && env LLMAGENT_BUG="$bug" LLMAGENT_BODY=1 LLMAGENT_FAIL_DIR="$dir" LLMAGENT_PLAIN="$plain" \
      "$work/llmagent.test" -test.run '^TestCheck$' -test.count=1 2>&1 || true)
    if grep -q 'nondeterministic replay\|a harness or option error' <<<"$out"; then
      harness=$((harness + 1))
    elif grep -q "$want violated" <<<"$out" && grep -q '^ *replay: ' <<<"$out"; then
      found=$((found + 1))
      grep -q "minimal schedule ($faults)" <<<"$out" && one=$((one + 1))
      if m=$(grep -o 'jittered back-off): up to [0-9]* ms' <<<"$out"); then
        n=$(grep -o '[0-9]* ms' <<<"$m" | grep -o '[0-9]*'); varied=$((varied + 1))
        [ "$n" -gt "$maxn" ] && maxn=$n
      fi
    elif grep -q '^--- PASS: TestCheck' <<<"$out"; then
      passed=$((passed + 1))
    else
      harness=$((harness + 1))
    fi
  done
  printf '%-22s %-20s found %2d/%d (shrunk to its faults: %d), harness errors %d, passed %d; times varied in %d runs, up to %d ms\n' \
    "$bug" "$want" "$found" "$runs" "$one" "$harness" "$passed" "$varied" "$maxn"
done
