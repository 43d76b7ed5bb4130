#!/usr/bin/env bash
# Nightly exploration of the typed profile: 10,000 checks (or $1) of ordered
# fault and world-event compositions on each built-in workload, with a seed
# that changes every night (or $2). Exit 0 when no counterexample was found;
# otherwise 1, with the counterexample's schedule file and record in
# $OUT (default ./nightly-counterexamples). Not part of `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
checks=${1:-10000}
seed=${2:-$(date -u +%Y%m%d)}
out=${OUT:-nightly-counterexamples}
go build -o /tmp/faultline-nightly ./cmd/faultline
status=0
for fixture in copperfin copperfin-batch; do
  start=$(date +%s)
  if /tmp/faultline-nightly explore --profile typed --fixture "$fixture" --checks "$checks" --seed "$seed" --out "$out"; then
    :
  else
    code=$?
    [ "$code" -eq 1 ] || exit "$code"
    status=1
  fi
  echo "fixture $fixture: $(( $(date +%s) - start )) s"
done
exit "$status"
