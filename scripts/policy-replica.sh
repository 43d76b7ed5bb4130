#!/usr/bin/env bash
# The policy replica that cannot update (policy_fetch_failed, policy_fresh)
# on the reference system's copperfin-policy-replica fixture, by the
# default search from scratch: typed over the complete walk of every
# schedule of at most two faults (31,245) and 100 random checks after it
# (exit 0: no counterexample), then typed with policy_age_unchecked, and
# baseline with the kind alone (--kinds policy_fetch_failed; every kind
# finds a subject swap first), each exit 1: its counterexample, printed. Every figure is a
# pure function of the seed (1): the same on every machine. Exit 1 when
# typed breaks an invariant or a defect is not found; 2 on bad usage.
# Usage: scripts/policy-replica.sh. Documented in docs/catalogue.md.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "") ;;
  -h|-help|--help) sed -n '2,11p' "$0"; exit 0 ;;
  *) echo "policy-replica: unknown argument $1 (exit 2)" >&2; exit 2 ;;
esac
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/faultline" ./cmd/faultline
fl() { "$bin/faultline" explore --fixture copperfin-policy-replica --seed 1 "$@"; }
echo "== typed, complete walk"
fl --profile typed --max-schedules 40000 | head -3
rc=0
for arm in "--profile typed --mutant policy_age_unchecked" "--profile baseline --kinds policy_fetch_failed"; do
  echo "== $arm"
  # shellcheck disable=SC2086
  if out=$(fl $arm); then
    echo "policy-replica: $arm found nothing" >&2
    rc=1
  fi
  printf '%s\n' "$out" | sed -n '1p;3p'
done
exit $rc
