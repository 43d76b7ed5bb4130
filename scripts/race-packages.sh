#!/usr/bin/env bash
# Prints, one a line (the longest under the detector first, see below), the
# packages of the module whose own Go files (code or
# tests) can run work on more than one goroutine: they start a goroutine, use
# a channel, sync, sync/atomic or testing/synctest, or run the exhaustive walk
# on more than one worker (properties.WithWorkers, --workers). .ci/run runs
# these under the race detector; the others run in one goroutine of their own
# code (what they call is tested under the detector in its own package), and
# go test ./... runs every package.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='(^|[^[:alnum:]_.])go (func|[[:alnum:]_.]+\()|chan |"sync"|"sync/atomic"|"testing/synctest"|WithWorkers\(|"--workers"'
# Left out by name: vet, whose own code runs in one goroutine; the goroutines
# its tests run are the x/tools package loader's and, in one test, the
# snapshots example's inside a synctest bubble, which examples/snapshots runs
# under the detector. internal/strictjson, whose tests decode in one
# goroutine: its one shared state, the field cache (a sync.Map), is
# exercised from many goroutines under the detector by the packages that
# decode with it (every run of the reference system parses its settings
# with it, on the exhaustive walk's workers and the studies' goroutines;
# coverage's twelve writers merge into one file with it).
exclude=' github.com/faultline/faultline/vet github.com/faultline/faultline/internal/strictjson '
# The longest test binaries under the detector come first (measured:
# properties, cli, sqlfault, reference/lab, assay, model, each 5 to 17 s),
# the rest in go list's order: go test starts the packages it is given in
# order, and a long one started last runs alone on one core at the end.
first='properties cli sqlfault reference/lab assay model'
module=$(go list -m)
go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
  if [[ "$exclude" == *" $pkg "* ]]; then
    continue
  fi
  if grep -qE "$pattern" "$dir"/*.go 2>/dev/null; then
    echo "$pkg"
  fi
done | awk -v first="$first" -v module="$module" '
  BEGIN { n = split(first, f, " "); for (i = 1; i <= n; i++) rank[module "/" f[i]] = i }
  ($0 in rank) { head[rank[$0]] = $0; next }
  { rest[++m] = $0 }
  END {
    for (i = 1; i <= n; i++) if (i in head) print head[i]
    for (i = 1; i <= m; i++) print rest[i]
  }'
