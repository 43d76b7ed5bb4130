#!/usr/bin/env bash
# Measures the outage storms of examples/mailfleet (docs/retry-storms.md,
# "Outages"): the default search of the outage fleet from scratch for each
# sender's answer to an outage, including the control's full walk (20,000
# schedules and 100 random checks, too heavy for go test), and the
# one-outage schedule under many seeds, as a Markdown table.
# Usage: scripts/outage-storms.sh [-seeds N]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./scripts/fleetstorms -kind provider_outage "$@"
