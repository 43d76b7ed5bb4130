#!/usr/bin/env bash
# fuzz-shrink.sh: how far fuzzing shrinks the billing agent's two-fault
# bug (billing.ChargeAfterLostCheckpoint: a lost checkpoint plus a ledger
# read behind the charge), which properties.Check reports with 2 faults.
# It runs CAMPAIGNS native fuzzing campaigns of each of examples/billing's
# two targets of it, FuzzLostCheckpoint (bytes decoded into faults at the
# clean run's sites) and FuzzLostCheckpointRapid (the exploration's
# generator under rapid.MakeFuzz), one worker each, from an empty fuzzing
# cache, Go's minimisation on, until the first failure, and prints, per
# campaign, the
# faults of the failing input after Go's minimisation, the faults of the
# schedule fuzz.Decoder.Verify shrank it to, and its shrinking's runs
# (removal, then the walk over fewer faults, at most 2,000 runs;
# docs/fuzzing.md, "Shrinking"). Then, without Go's minimisation,
# scripts/fuzzshrink shrinks the first 40 failing draws of the decoder's
# rapid generator: the faults removal left and the faults shrunk to. Not
# part of go test ./... (about 20 s when every campaign fails at once; a
# campaign that does not fail takes LIMIT).
# Usage: scripts/fuzz-shrink.sh [CAMPAIGNS] [LIMIT]   (default 5, 60s)
set -uo pipefail
summary=""
cd "$(dirname "$0")/.." || exit 2
campaigns=${1:-5}
limit=${2:-60s}
work=$(mktemp -d)
clean() { rm -rf examples/billing/testdata/fuzz/FuzzLostCheckpoint examples/billing/testdata/fuzz/FuzzLostCheckpointRapid; rmdir examples/billing/testdata/fuzz examples/billing/testdata 2>/dev/null; }
trap 'rm -rf "$work"; clean' EXIT
go test -c -o "$work/billing.test" ./examples/billing || exit 1
echo "| target | campaign | failed | input faults | shrunk faults | shrinking |"
echo "| --- | ---: | --- | ---: | ---: | --- |"
for target in FuzzLostCheckpoint FuzzLostCheckpointRapid; do
  two=0
  failed=0
  for i in $(seq 1 "$campaigns"); do
    log="$work/$target-$i.log"
    (cd examples/billing && "$work/billing.test" -test.run='^$' -test.fuzz="^$target\$" \
      -test.fuzztime="$limit" -test.parallel=1 -test.fuzzcachedir="$work/cache-$target-$i" >"$log" 2>&1)
    rc=$?
    clean
    line=$(grep -o 'shrunk to [0-9]* of its [0-9]* faults[^:]*' "$log" | head -n 1)
    if [ "$rc" -eq 0 ] || [ -z "$line" ]; then
      echo "| $target | $i | no | - | - | - |"
      continue
    fi
    shrunk=$(awk '{print $3}' <<<"$line")
    input=$(awk '{print $6}' <<<"$line")
    steps=$(sed -n 's/.*(\(.*\))/\1/p' <<<"$line")
    failed=$((failed + 1))
    [ "$shrunk" = 2 ] && two=$((two + 1))
    echo "| $target | $i | yes | $input | $shrunk | ${steps:--} |"
  done
  summary="$summary$target: $failed of $campaigns campaigns failed within $limit, $two of them shrunk to 2 faults (Check's count). "
done
echo
echo "$summary"
echo
go run ./scripts/fuzzshrink -n 40
