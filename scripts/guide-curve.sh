#!/usr/bin/env bash
# Measures coverage keys visited against runs for guided and unguided
# exploration (faultline explore's defaults: typed, one refund, one to three
# faults and world events a schedule), seeds 1 to 10 (or $1), 200 runs each
# (or $2), and splices the median curve's table into the "Guided
# exploration" section of docs/coverage.md. The whole curves (each seed's count after every
# run) go to $TSV (default ${TMPDIR:-/tmp}/guide-curve.tsv). Not part of
# `go test`; about 3 s. Usage: scripts/guide-curve.sh [SEEDS [RUNS]]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-10}
runs=${2:-200}
tsv=${TSV:-${TMPDIR:-/tmp}/guide-curve.tsv}
table=$(mktemp)
trap 'rm -f "$table" docs/coverage.md.tmp' EXIT
go run ./scripts/guidecurve -seeds "$seeds" -runs "$runs" -tsv "$tsv" >"$table"
awk -v table="$table" '
  /<!-- guide-curve:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- guide-curve:end -->/ { skip = 0 }
  !skip { print }
' docs/coverage.md >docs/coverage.md.tmp
mv docs/coverage.md.tmp docs/coverage.md
cat "$table"
echo "whole curves: $tsv"
