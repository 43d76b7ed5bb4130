#!/usr/bin/env bash
# Runs the default search that finds server_error on the reference system
# from scratch (a kind outside the catalogue, drawn by default at every
# tool.commit of every fixture): copperfin-fleet-10 under typed_fleet with
# transport_error_as_failure, found at the walk's schedule 2,273. Not part
# of go test ./... (about 10 CPU-s); the pair on one schedule runs in
# every go test (model's TestTransportKindsOnCopperfin), and
# examples/mailfleet's TestDefaultSearchFindsErrorAsSent (walk schedule
# 192) is cheap enough to.
# Usage: scripts/transport-search.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FAULTLINE_HEAVY=1 go test -count=1 -v -run 'TestDefaultSearchFindsTransportErrorAsFailure' ./properties
