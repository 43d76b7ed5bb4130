#!/usr/bin/env bash
# The policy replica that cannot update (policy_fetch_failed, policy_fresh)
# on the reference system's copperfin-policy-replica fixture, by the
# default search from scratch without world events: typed over the
# complete walk of every schedule of at most two faults and 100 random
# checks after it (exit 0: no counterexample), then typed with
# policy_age_unchecked, and baseline with the kind alone (--kinds
# policy_fetch_failed; every kind finds a subject swap first), each exit 1:
# its counterexample, printed. Then typed with world events, whose pause
# between its policy re-read and its send is a known gap: printed, not
# failed. Every figure is a pure function of the seed (1). Exit 1 when
# typed breaks an invariant without world events or a defect is not
# found; 2 on bad usage. Usage: scripts/policy-replica.sh. Documented in
# docs/catalogue.md.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "") ;;
  -h|-help|--help) sed -n '2,14p' "$0"; exit 0 ;;
  *) echo "policy-replica: unknown argument $1 (exit 2)" >&2; exit 2 ;;
esac
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/faultline" ./cmd/faultline
fl() { "$bin/faultline" explore --fixture copperfin-policy-replica --seed 1 --no-world "$@"; }
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
echo "== typed with world events (the check-to-send gap)"
if out=$("$bin/faultline" explore --fixture copperfin-policy-replica --seed 1 --profile typed); then
  echo "typed holds with world events"
else
  printf '%s\n' "$out" | sed -n '1p;3p'
fi
exit $rc
