#!/usr/bin/env bash
# Regenerates the mutants table of the README's "Exploration" section: every
# mutant of the reference system explored over 20 seeds (at most 5000 checks
# each) on the three-task workload. Usage: scripts/mutants-table.sh [SEEDS [CHECKS]]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-20}
checks=${2:-5000}
table=$(mktemp)
trap 'rm -f "$table" README.md.tmp' EXIT
go run ./scripts/mutantstable -seeds "$seeds" -checks "$checks" >"$table"
awk -v table="$table" '
  /<!-- mutants-table:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- mutants-table:end -->/ { skip = 0 }
  !skip { print }
' README.md >README.md.tmp
mv README.md.tmp README.md
cat "$table"
