#!/usr/bin/env bash
# What checking production code costs beside a bare run of the same code,
# on examples/snapshots (the storage janitor: real HTTP, MCP and SQLite
# clients). Each round runs, in one process (TestCost, cost_test.go) and
# each run in its own testing/synctest bubble over a fresh World:
#   - RUNS bare runs (the janitor's clients unwrapped, no harness);
#   - RUNS fault-free checks (one harness run each, the adapters wrapping
#     the clients): the ratio of their CPU time to the bare runs' is the
#     one the target bounds (at most 1.5);
#   - RUNS one-fault checks (each kind in scope at its place, in turn; the
#     janitor's retries after the fault are in the run, a bare run has
#     none to make);
#   - RUNS checks with a lost reply (timeout_after_commit at the first
#     deletion) against RUNS bare runs that lose the same reply by hand,
#     so make the same retries, in alternating blocks of ten;
#   - one properties.Check (the default search: its walk, then RUNS random
#     checks, seed 1), with its runs of the system by what they are for
#     (preflight, survey, prefix, confirming) and per schedule checked.
# CPU is user plus system time of the process, wall time beside it; the
# machine's other load moves wall time more than CPU time.
# Usage: scripts/production-cost.sh [RUNS [ROUNDS]]   (defaults 200 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
rounds=${2:-3}
case "$runs$rounds" in *[!0-9]*|'') echo "usage: scripts/production-cost.sh [RUNS [ROUNDS]] (exit 2)" >&2; exit 2 ;; esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/snapshots.test" ./examples/snapshots
cd examples/snapshots
for round in $(seq 1 "$rounds"); do
  out=$(SNAPSHOTS_COST_RUNS="$runs" "$dir/snapshots.test" -test.run '^TestCost$' -test.v -test.count=1 2>&1) || {
    printf '%s\n' "$out" | tail -20 >&2
    echo "production-cost: TestCost failed (exit 1)" >&2
    exit 1
  }
  printf '%s\n' "$out" | awk -v round="$round" -v runs="$runs" '
    /cost: bare run:/ { bare = $(NF-4) + 0; sub(/.*cost: /, ""); print "round " round ", " runs " runs each"; print "  " $0 }
    /cost: fault-free check:/ || /cost: one-fault check:/ || /cost: bare run, reply lost/ || /cost: check with timeout_after_commit/ { sub(/.*cost: /, ""); print "  " $0 }
    /properties: walk:/ { sub(/.*properties: /, ""); print "  check " $0 }
    /properties: no counterexample in/ { sub(/.*properties: /, ""); print "  check " $0 }
    /runs of the system:/ {
      sub(/.*properties: /, ""); line = $0
      total = $1 + 0
      n = split(line, w, /[ ,:]+/)
      for (i = 1; i < n; i++) {
        if (w[i+1] == "schedules") schedules = w[i] + 0
        if (w[i+1] == "preflight") pre = w[i] + 0
        if (w[i+1] == "survey") survey = w[i] + 0
        if (w[i+1] == "prefix") prefix = w[i] + 0
        if (w[i+1] == "confirming") confirm = w[i] + 0
      }
      print "  check " line
    }
    /cost: properties.Check:/ {
      cpu = $(NF-4) + 0; wall = $(NF-1) + 0
      printf "  check cpu %.1f ms, wall %.1f ms: per schedule %.2f system runs (preflight %.3f, survey %.3f, prefix %.3f, confirming %.3f), cpu %.3f ms = %.2f bare runs; per system run cpu %.3f ms = %.2f bare runs\n",
        cpu, wall, total / schedules, pre / schedules, survey / schedules, prefix / schedules, confirm / schedules,
        cpu / schedules, cpu / schedules / bare, cpu / total, cpu / total / bare
    }'
done
