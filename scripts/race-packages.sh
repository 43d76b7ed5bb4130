#!/usr/bin/env bash
# Prints, one a line, the packages of the module whose own Go files (code or
# tests) can run work on more than one goroutine: they start a goroutine, use
# a channel, sync, sync/atomic or testing/synctest, or run the exhaustive walk
# on more than one worker (properties.WithWorkers, --workers). .ci/run runs
# these under the race detector; the others run in one goroutine of their own
# code (what they call is tested under the detector in its own package), and
# go test ./... runs every package.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='(^|[^[:alnum:]_.])go (func|[[:alnum:]_.]+\()|chan |"sync"|"sync/atomic"|"testing/synctest"|WithWorkers\(|"--workers"'
go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
  if grep -qE "$pattern" "$dir"/*.go 2>/dev/null; then
    echo "$pkg"
  fi
done
