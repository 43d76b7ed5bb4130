#!/usr/bin/env bash
# The examples' campaign with every planted bug off: for each of SEEDS
# fixed seeds (1..SEEDS), CHECKS checks of properties.Check per example
# system (examples/billing, examples/inventory), then the same draws run
# for the kinds they reach (TestCampaign of examples/measure). Prints one
# line per seed; exits 1 when a seed finds a counterexample or leaves a
# kind in scope unreached. Each seed is bounded by TIMEOUT seconds.
# Usage: scripts/examples-campaign.sh [SEEDS [CHECKS [TIMEOUT]]]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-10}
checks=${2:-1000}
limit=${3:-300}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/measure.test" ./examples/measure
status=0
for seed in $(seq 1 "$seeds"); do
  if out=$(RAPID_SEED=$seed RAPID_CHECKS=$checks timeout "$limit" "$dir/measure.test" -test.run '^TestCampaign$' -test.v -test.count=1 2>&1); then
    verdict=ok
  else
    verdict=FAIL
    status=1
  fi
  line=$(printf '%s\n' "$out" | sed -n 's/.*campaign \([a-z]*\): seed [0-9]*, [0-9]* checks: \(.*\)$/\1: \2/p' | paste -sd '|' - | sed 's/|/; /g')
  echo "seed $seed, $checks checks per example: $verdict; ${line:-no summary (see the test output)}"
  if [ "$verdict" = FAIL ]; then
    printf '%s\n' "$out" | grep -E -- '--- FAIL|violated|never reached|counterexample' | head -20 | sed 's/^/  /'
  fi
done
exit "$status"
