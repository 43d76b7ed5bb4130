#!/usr/bin/env bash
# Measures the paper's retry storm (thought experiment 4) on fleets of the
# reference system of 10, 100 and 1,000 agents: peak load and retry count
# with neither fleet control, with jittered_backoff, with
# shared_retry_budget and with both (typed_fleet), as the Markdown table of
# docs/retry-storms.md. Every figure is a pure function of the schedule:
# the table is the same on every machine. Then the benchmark of one
# 1,000-agent run.
# Usage: scripts/retry-storms.sh [-agents 10,100,1000] [-no-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
agents=10,100,1000
bench=1
while [ $# -gt 0 ]; do
  case "$1" in
    -agents) agents=$2; shift 2 ;;
    -no-bench) bench=0; shift ;;
    -h|-help|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "retry-storms: unknown argument $1" >&2; exit 2 ;;
  esac
done
go run ./scripts/stormtable -agents "$agents"
if [ "$bench" = 1 ]; then
  go test ./model -run '^$' -bench '^BenchmarkFleet1000$' -benchtime 5x
fi
