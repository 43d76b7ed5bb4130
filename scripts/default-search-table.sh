#!/usr/bin/env bash
# Regenerates the default search table of docs/exploration.md: for 20
# seeds each, with default settings (the walk of <= 2 faults within its
# budget, then 100 random checks), every mutant of the reference system on
# copperfin-batch under the typed profile (scoped as scripts/mutants-table.sh
# explores them), the billing agent's lost-checkpoint bug (and the random
# phase alone beside it), and the typed profile without each of the paper's
# seven controls (a one-fault counterexample counts): found/20 and the
# median walk index or checks to failure. Not part of go test ./... (about
# 45 CPU-s); TestDefaultCheckFindsTheLostCheckpointBug pins the billing row.
# Usage: scripts/default-search-table.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-20}
table=$(mktemp)
trap 'rm -f "$table" docs/exploration.md.tmp' EXIT
go run ./scripts/defaultsearch -seeds "$seeds" >"$table"
awk -v table="$table" '
  /<!-- default-search-table:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- default-search-table:end -->/ { skip = 0 }
  !skip { print }
' docs/exploration.md >docs/exploration.md.tmp
mv docs/exploration.md.tmp docs/exploration.md
cat "$table"
