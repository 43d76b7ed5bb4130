#!/usr/bin/env bash
# Regenerates the mutants table of docs/exploration.md: every mutant of the
# reference system explored in random mode (the default draws, or swarm
# draws with -swarm; no enumeration first) over 20 seeds, at most 1000 checks each, on the three-task
# workload, then walked exhaustively with up to 1 and 2 faults in the same
# scope. Usage: scripts/mutants-table.sh [SEEDS [CHECKS [MUTANTSTABLE FLAGS...]]]
# (for instance -swarm, -exhaustive-max 0, -workers 1; see
# scripts/mutantstable).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-20}
checks=${2:-1000}
shift $(($# < 2 ? $# : 2))
table=$(mktemp)
trap 'rm -f "$table" docs/exploration.md.tmp' EXIT
go run ./scripts/mutantstable -seeds "$seeds" -checks "$checks" "$@" >"$table"
awk -v table="$table" '
  /<!-- mutants-table:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- mutants-table:end -->/ { skip = 0 }
  !skip { print }
' docs/exploration.md >docs/exploration.md.tmp
mv docs/exploration.md.tmp docs/exploration.md
cat "$table"
