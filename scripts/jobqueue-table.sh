#!/usr/bin/env bash
# The job-queue example's 20-run table (examples/thirdparty/jobqueue: a
# payout worker over maragu.dev/goqite on SQLite, unmodified, with the
# blind resume planted). For each rapid seed 1..SEEDS it runs
# properties.Check twice in a fresh process: the default check (the walk
# of schedules of at most two faults, then rapid's draws) and rapid's
# draws alone (the walk left out). Each row: found?, the faults of the
# shrunk schedule, the checks to failure (the walk's schedule number, or
# rapid's check), the fault kind and the seconds. Then the correct
# worker's default check at each seed must find nothing. Exits 1 when a
# planted run misses the bug, a correct run finds one, or any run ends in
# a harness error.
# Usage: scripts/jobqueue-table.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../examples/thirdparty"
seeds=${1:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/jobqueue.test" ./jobqueue
cd jobqueue
status=0
row() { # seed mode env...
  local seed=$1 mode=$2
  shift 2
  local start out found faults checks kind secs
  start=$(date +%s.%N)
  out=$(env "$@" JOBQUEUE_PLANTED=1 JOBQUEUE_FAILDIR="$dir/fail-$mode-$seed" "$dir/jobqueue.test" -test.run '^TestPlanted$' \
    -test.count=1 -rapid.seed="$seed" -rapid.nofailfile 2>&1) || true
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  found=no faults=- checks=- kind=-
  if grep -q 'an invariant violated, exit 1' <<<"$out"; then
    found=yes
    faults=$(sed -n 's/.*minimal schedule (\([0-9]*\) faults\{0,1\}).*/\1/p' <<<"$out" | head -1)
    checks=$(sed -n -e 's/.*counterexample at schedule \([0-9]*\) of the walk.*/walk \1/p' \
      -e 's/.*counterexample after \([0-9]*\) checks.*/rapid \1/p' <<<"$out" | head -1)
    kind=$(sed -n 's/.*reached by f[0-9]* (\([a-z_]*\)).*/\1/p' <<<"$out" | head -1)
  else
    status=1
  fi
  if grep -q 'harness or option error\|cannot be replayed\|nondeterministic' <<<"$out"; then
    found=ERROR
    status=1
  fi
  printf '%4d  %-7s  %-6s  %6s  %-9s  %-17s %5.1f\n' "$seed" "$mode" "$found" "$faults" "$checks" "$kind" "$secs"
}
printf 'seed  mode     found   faults  checks     kind              secs\n'
for seed in $(seq 1 "$seeds"); do
  row "$seed" default
  row "$seed" random JOBQUEUE_RANDOM=1
done
printf '\nthe correct worker (bug off), default check of TestCheck per seed:\n'
bad=0
for seed in $(seq 1 "$seeds"); do
  if ! "$dir/jobqueue.test" -test.run '^TestCheck$' -test.count=1 -rapid.seed="$seed" >"$dir/ok.txt" 2>&1; then
    bad=$((bad + 1))
    status=1
    grep -E -- '--- FAIL|violated|error' "$dir/ok.txt" | head -5 | sed "s/^/  seed $seed: /"
  fi
done
printf '%d of %d seeds found something\n' "$bad" "$seeds"
exit "$status"
