#!/usr/bin/env bash
# The glue-to-system ratio of the two examples a new user copies: the lines
# a user writes for faultline (the glue) over the lines of the system under
# test, both counted as non-blank, non-comment Go lines (a line with code
# and a trailing comment counts), the rule of TestGlueTable
# (examples/measure), which checks the table of docs/examples.md.
#
#   examples/billing, the model path: glue definition.go and billing_test.go;
#     system billing.go and invariants.go.
#   examples/snapshots, production code: glue definition.go, world.go,
#     service.go (the in-process stand-in of the storage provider) and
#     readme_test.go; system every non-test Go file of examples/snapshots/app.
#
# Prints one line per example; exits 1 when either ratio is worse than what
# a new user measured on the previous API for a billing agent: 0.44 on the
# model path, 1.17 on production code.
# Usage: scripts/glue-ratio.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# lines FILE...: the non-blank, non-comment lines of the files together.
lines() {
  awk '
    { l = $0; gsub(/^[ \t\r]+|[ \t\r]+$/, "", l) }
    block { if (index(l, "*/") > 0) block = 0; next }
    l == "" || substr(l, 1, 2) == "//" { next }
    substr(l, 1, 2) == "/*" { if (index(l, "*/") == 0) block = 1; next }
    { n++ }
    END { print n + 0 }
  ' "$@"
}

status=0
# measure NAME PATH BOUND "GLUE FILES" "SYSTEM FILES" (relative to PATH)
measure() {
  local name=$1 dir=$2 bound=$3 glue system g s ratio
  read -r -a glue <<<"$4"
  read -r -a system <<<"$5"
  g=$(cd "$dir" && lines "${glue[@]}")
  s=$(cd "$dir" && lines "${system[@]}")
  ratio=$(awk -v g="$g" -v s="$s" 'BEGIN { printf "%.2f", g / s }')
  local verdict=ok
  if awk -v g="$g" -v s="$s" -v b="$bound" 'BEGIN { exit !(g > b * s) }'; then
    verdict="WORSE than $bound"
    status=1
  fi
  printf '%s (%s): glue %d lines (%s), system %d lines (%s): %s (at most %s): %s\n' \
    "$dir" "$name" "$g" "${glue[*]}" "$s" "${system[*]}" "$ratio" "$bound" "$verdict"
}

measure "model path" examples/billing 0.44 \
  "definition.go billing_test.go" "billing.go invariants.go"
app=$(cd examples/snapshots && ls app/*.go | grep -v '_test\.go$' | tr '\n' ' ')
measure "production code" examples/snapshots 1.17 \
  "definition.go world.go service.go readme_test.go" "$app"
exit "$status"
