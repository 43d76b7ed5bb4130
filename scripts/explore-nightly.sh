#!/usr/bin/env bash
# Nightly exploration of the typed profile: 10,000 checks (or $1) of ordered
# fault and world-event compositions on each built-in workload, with a seed
# that changes every night (or $2). Exit 0 when no counterexample was found;
# otherwise 1, with the counterexample's schedule file and record in
# $OUT (default ./nightly-counterexamples). Not part of `go test`.
#
# After each workload it prints one plain line: the workload (done of all),
# the checks run, the time, the rate and the counterexamples so far. On a
# terminal, explore itself shows a progress line on stderr while it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
checks=${1:-10000}
seed=${2:-$(date -u +%Y%m%d)}
out=${OUT:-nightly-counterexamples}
go build -o /tmp/faultline-nightly ./cmd/faultline
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# now_ms: the time in milliseconds (whole seconds where date has no %N)
now_ms() { local n; n=$(date +%s%N); case "$n" in *[!0-9]*) echo $(( $(date +%s) * 1000 )) ;; *) echo $(( n / 1000000 )) ;; esac; }
# took N MS: "S.s s (R checks/s)" for N checks in MS milliseconds
took() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.1f s (", ms / 1000; if (ms > 0) printf "%.1f", n * 1000 / ms; else printf "-"; printf " checks/s)" }'; }
fixtures=(copperfin copperfin-batch)
status=0
found=0
for i in "${!fixtures[@]}"; do
  fixture=${fixtures[$i]}
  start=$(now_ms)
  code=0
  /tmp/faultline-nightly explore --profile typed --fixture "$fixture" --checks "$checks" --seed "$seed" --out "$out" | tee "$log" || code=${PIPESTATUS[0]}
  case "$code" in
    0) ;;
    1) status=1; found=$((found + 1)) ;;
    *) exit "$code" ;;
  esac
  # the checks explore ran: all of them, or those up to the counterexample
  ran=$(grep -oE '^(no counterexample in|counterexample after) [0-9]+ checks' "$log" | grep -oE '[0-9]+' | head -n 1)
  echo "fixture $fixture ($((i + 1)) of ${#fixtures[@]}): ${ran:-0} checks in $(took "${ran:-0}" $(( $(now_ms) - start ))), counterexamples so far: $found"
done
exit "$status"
