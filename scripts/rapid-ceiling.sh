#!/usr/bin/env bash
# Explore's checks per second against rapid's own ceiling on this machine:
# a bare rapid state machine of a ledger (commit and readback actions, 30
# steps a check) beside faultline's exploration of the reference system
# (typed profile, one refund; its checks alone, without the default
# check's walk; the default draws, --swarm and --guided), the same number
# of checks each, in one process (scripts/rapidceiling). Prints checks per
# wall-clock and per CPU second and each ratio to rapid's.
# Usage: scripts/rapid-ceiling.sh [CHECKS [ROUNDS]]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./scripts/rapidceiling -checks "${1:-20000}" -rounds "${2:-3}"
