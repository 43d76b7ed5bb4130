#!/usr/bin/env bash
# The production-code example's campaign with its bug off: for each of
# SEEDS fixed seeds (1..SEEDS), CHECKS checks of properties.Check
# on the storage janitor of examples/snapshots (every run in its own
# testing/synctest bubble, the janitor's real HTTP, MCP and SQL clients
# wrapped by httpfault, mcpfault and sqlfault). Prints one line per seed
# with its time; exits 1 when a seed finds a counterexample. Each seed is
# bounded by TIMEOUT seconds.
# Usage: scripts/snapshots-campaign.sh [SEEDS [CHECKS [TIMEOUT]]]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-10}
checks=${2:-1000}
limit=${3:-600}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/snapshots.test" ./examples/snapshots
cd examples/snapshots
status=0
for seed in $(seq 1 "$seeds"); do
  start=$(date +%s.%N)
  if out=$(timeout "$limit" "$dir/snapshots.test" -test.run '^TestCheckFindsNothing$' -test.v -test.count=1 \
    -rapid.checks="$checks" -rapid.seed="$seed" 2>&1); then
    verdict=ok
  else
    verdict=FAIL
    status=1
  fi
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  line=$(printf '%s\n' "$out" | sed -n 's/.*properties: \(no counterexample in .*\)$/\1/p' | head -1)
  printf 'seed %d, %d checks: %s in %.1f s; %s\n' "$seed" "$checks" "$verdict" "$secs" "${line:-no summary (see the test output)}"
  if [ "$verdict" = FAIL ]; then
    printf '%s\n' "$out" | grep -E -- '--- FAIL|violated|counterexample|replay:' | head -20 | sed 's/^/  /'
  fi
done
exit "$status"
