#!/bin/sh
# faultline-fan-in OUT N: the fan-in of the indexed Job (k8s/job.yaml)
# whose N pods each wrote OUT/I (I from 0 to N-1) in the run of SEED (an
# environment variable, the Job's): waits until every index's OUT/I/done
# holds SEED (a folder of an earlier run does not count), then
#   1. merges the N coverage files into OUT/merged.json (the coverage file
#      of the one run, byte for byte);
#   2. runs the audit into OUT/audit.json (sequential exploration draws no
#      correlation modifier and no kind outside the catalogue: the audit's
#      correlated runs visit those keys), merges both into OUT/gated.json
#      and gates it (every reachable key visited);
#   3. names the run's counterexample: of OUT/*/cx/*.counterexample.json,
#      the one of the least found_by.checks_to_failure (ties: the least
#      path).
# Exit 0: the gate passed and no counterexample; 1: the gate failed or the
# run found a counterexample; 2: bad arguments; 4: an I/O error.
set -u
if [ "$#" -ne 2 ] || ! [ "$2" -ge 1 ] 2>/dev/null || [ -z "${SEED:-}" ]; then
  echo "usage: SEED=S faultline-fan-in OUT N (N >= 1 indexes, S the Job's seed); exit 2" >&2
  exit 2
fi
out=$1 n=$2
i=0
while [ "$i" -lt "$n" ]; do
  until [ "$(cat "$out/$i/done" 2>/dev/null)" = "$SEED" ]; do sleep 10; done
  i=$((i + 1))
done
set --
i=0
while [ "$i" -lt "$n" ]; do
  set -- "$@" "$out/$i/coverage.json"
  i=$((i + 1))
done
# the fan-in's own files are made afresh (audit --coverage merges into its
# file; a volume keeps last night's)
rm -f "$out/merged.json" "$out/audit.json" "$out/gated.json" || exit 4
faultline coverage merge "$out/merged.json" "$@" || exit
faultline audit --coverage "$out/audit.json" >/dev/null
code=$?
[ "$code" -le 1 ] || exit "$code"
faultline coverage merge "$out/gated.json" "$out/merged.json" "$out/audit.json" || exit
faultline coverage gate "$out/gated.json" --min-ratio 1
gate=$?
[ "$gate" -le 1 ] || exit "$gate"
set -- "$out"/*/cx/*.counterexample.json
if ! [ -e "$1" ]; then
  echo "no counterexample in the run"
  exit "$gate"
fi
found=$(jq -r '[.found_by.checks_to_failure, .expect.violated[0].invariant, input_filename] | @tsv' "$@") || exit 4
tab=$(printf '\t')
printf '%s\n' "$found" | sort -t "$tab" -k1,1n -k3,3 | head -n 1 |
  awk -F '\t' '{ printf "the run found %s at check %s: %s\n", $2, $1, $3 }'
exit 1
