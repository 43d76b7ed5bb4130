#!/usr/bin/env bash
# Measures the expired-credential storm of examples/mailfleet
# (docs/retry-storms.md, "Expired credentials"): the default search of the
# credential fleet from scratch for each sender's answer to a 401,
# including the control's full walk (20,000 schedules and 100 random
# checks, too heavy for go test), and the one-expiry schedule under many
# seeds, as a Markdown table.
# Usage: scripts/credential-storm.sh [-seeds N]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./scripts/fleetstorms -kind credential_expired "$@"
