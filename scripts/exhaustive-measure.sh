#!/usr/bin/env bash
# Measures the exhaustive walk (faultline explore --exhaustive) of the
# reference system under the typed profile on the paper fixture: every
# schedule of up to 2 faults and world events at every event each kind fits
# (the anywhere scope), every schedule of up to 3 at each kind's own event
# (the designed scope), the anywhere walk of up to 3 faults of the
# deadline_from_restart mutant up to its first counterexample (two faults:
# a restart and an advance of the deadline's length), and, with
# --all, every schedule of up to 3 of the anywhere scope. For each walk it prints the schedules enumerated (the
# command's own count), the wall-clock and CPU (user plus system) seconds,
# and schedules per wall-clock second.
#
# Usage: scripts/exhaustive-measure.sh [--all] [WORKERS]
#   WORKERS (default: the number of cores) is --workers of every walk.
set -euo pipefail
cd "$(dirname "$0")/.."
all=false
if [ "${1:-}" = "--all" ]; then
  all=true
  shift
fi
workers=${1:-$(nproc)}
bin=$(mktemp -d)/faultline
go build -o "$bin" ./cmd/faultline

measure() {
  local name=$1
  shift
  local out tf
  tf=$(mktemp)
  out=$(/usr/bin/time -f "%e %U %S" -o "$tf" "$bin" explore --exhaustive --workers "$workers" --profile typed "$@") || {
    code=$?
    [ "$code" -eq 1 ] || { echo "$name: exit $code" >&2; echo "$out" >&2; exit 1; }
  }
  read -r wall user sys < <(tail -1 "$tf") # time notes a non-zero exit on a line of its own
  rm -f "$tf"
  local n
  n=$(echo "$out" | sed -n 's/^no counterexample among \([0-9]*\) schedules.*/\1/p; s/^counterexample at schedule \([0-9]*\) .*/\1/p' | head -1)
  printf '%-34s %10s schedules %8.2f s wall %8.2f s cpu %10.0f schedules/s\n' "$name" "$n" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$n / $wall" | bc -l)"
  echo "$out" | sed -n '1,2p' | sed 's/^/    /'
}

echo "workers: $workers, cores: $(nproc)"
measure "anywhere, at most 2 faults" --max-faults 2
measure "designed, at most 3 faults" --own-events --max-faults 3
# a mutant the walk finds: it stops at the first counterexample
measure "deadline_from_restart, anywhere, 3" --mutant deadline_from_restart --max-faults 3
if $all; then
  measure "anywhere, at most 3 faults" --max-faults 3
fi
