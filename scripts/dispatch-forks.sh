#!/usr/bin/env bash
# The forked run on examples/dispatch at full size: the fenced booker
# holds over the whole default search (the walk of up to two faults,
# forked_run drawn on its at-least-once fixture, then 100 random draws).
# go test ./... runs the small exact version (the unfenced booker found at
# the walk's schedule 144, the fenced one holding over the single faults).
# Not part of go test ./... (about 2 CPU-s). Usage: scripts/dispatch-forks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FAULTLINE_HEAVY=1 go test -count=1 -run 'TestFencedHoldsOverTheDefaultSearch|TestDefaultSearchFindsForkedRun' -v ./examples/dispatch
