#!/usr/bin/env bash
# Regenerates the mutants table of docs/exploration.md: every
# mutant of the reference system explored over 20 seeds (at most 5000 checks
# each) on the three-task workload. Usage: scripts/mutants-table.sh [SEEDS [CHECKS]]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-20}
checks=${2:-5000}
table=$(mktemp)
trap 'rm -f "$table" docs/exploration.md.tmp' EXIT
go run ./scripts/mutantstable -seeds "$seeds" -checks "$checks" >"$table"
awk -v table="$table" '
  /<!-- mutants-table:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- mutants-table:end -->/ { skip = 0 }
  !skip { print }
' docs/exploration.md >docs/exploration.md.tmp
mv docs/exploration.md.tmp docs/exploration.md
cat "$table"
