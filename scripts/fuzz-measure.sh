#!/usr/bin/env bash
# fuzz-measure.sh: measure the native fuzz targets on this machine.
#
#   1. execs per second of every target against the default setting (typed
#      profile, designed scope; -rate-time 0 skips it): one run of
#      -rate-time per target on -parallel workers, from an empty fuzzing
#      cache; execs/s is the fuzzer's final execs count divided by the
#      fuzzing time.
#   2. time and execs until the first failure of -target (default
#      FuzzComposition; FuzzRapid counts the same way), median of -runs
#      runs, for each setting given with -failing, on one fuzzing worker
#      from an empty fuzzing cache, minimisation off. The default settings:
#      the baseline profile; the typed controls without state_precondition,
#      and without evidence_gate (a defence removed). -mutants adds one
#      setting per mutant of the reference system (scripts/fuzztool
#      mutants: the mutant, under the typed profile less the controls that
#      mask it), each with FAULTLINE_SCOPE=-mutant-scope when that is given.
#      Time is the test binary's wall time from start to exit (start-up and
#      the seed corpus included); execs are the compositions the worker had
#      checked when it failed (seeds included), as the failure message
#      reports. A run that has not failed within -limit counts as not failed.
#
# Usage (from anywhere in a checkout; needs only Go and bash):
#
#   scripts/fuzz-measure.sh [-rate-time 20s] [-parallel N] [-runs 5] [-limit 120s] \
#       [-target FuzzComposition] [-failing "FAULTLINE_PROFILE=baseline FAULTLINE_SCOPE=ordinals;FAULTLINE_MUTANT=NAME"] \
#       [-mutants] [-mutant-scope designed|ordinals|anywhere]
#
# -failing is a list of settings separated by spaces, each a list of
# FAULTLINE_* assignments separated by ";" (e.g. FAULTLINE_MUTANT=NAME).
# It prints a Markdown table for each measurement and the machine's load.
set -uo pipefail

rate_time=20s
parallel=""
runs=5
limit=120s
no_gate=bind_identity,pre_effect_authority,refresh_context,state_precondition,idempotency,effect_readback
no_state=bind_identity,pre_effect_authority,refresh_context,idempotency,effect_readback,evidence_gate
failing="FAULTLINE_PROFILE=baseline FAULTLINE_CONTROLS=$no_state FAULTLINE_CONTROLS=$no_gate"
target=FuzzComposition
mutants=no
mutant_scope=""

while [ $# -gt 0 ]; do
  case "$1" in
    -rate-time) rate_time="${2:?}"; shift 2 ;;
    -parallel) parallel="${2:?}"; shift 2 ;;
    -runs) runs="${2:?}"; shift 2 ;;
    -limit) limit="${2:?}"; shift 2 ;;
    -failing) failing="${2:?}"; shift 2 ;;
    -target) target="${2:?}"; shift 2 ;;
    -mutants) mutants=yes; shift ;;
    -mutant-scope) mutant_scope="${2:?}"; shift 2 ;;
    *) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.." || exit 2
if [ -z "$parallel" ]; then
  parallel=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/fuzz.test" ./fuzz || exit 1
targets=$(go test -list '^Fuzz' ./fuzz | grep '^Fuzz')
if ! grep -qxF "$target" <<<"$targets"; then
  echo "fuzz-measure: unknown target $target (valid: $(echo $targets))" >&2
  exit 2
fi
if [ "$mutants" = yes ]; then
  go build -o "$work/fuzztool" ./scripts/fuzztool || exit 1
  for m in $("$work/fuzztool" mutants); do
    failing="$failing $m${mutant_scope:+;FAULTLINE_SCOPE=$mutant_scope}"
  done
fi
before=$(ls fuzz/testdata/fuzz/*/ 2>/dev/null | sort)

# cleanup removes failing inputs the measuring runs wrote into testdata.
cleanup() {
  for d in fuzz/testdata/fuzz/*/; do
    [ -d "$d" ] || continue
    for f in "$d"*; do
      if ! grep -qxF "$(basename "$f")" <<<"$before"; then rm -f "$f"; fi
    done
    rmdir "$d" 2>/dev/null || true
  done
  rmdir fuzz/testdata/fuzz fuzz/testdata 2>/dev/null || true
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "machine: $(getconf _NPROCESSORS_ONLN 2>/dev/null) cores, $(go version | cut -d' ' -f3), load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
if [ "$rate_time" != 0 ]; then
echo
echo "execs per second, default setting, ${parallel} workers, ${rate_time} each:"
echo
echo "| target | execs | execs/s |"
echo "| --- | ---: | ---: |"
secs=$(awk -v d="$rate_time" 'BEGIN { n = d + 0; if (d ~ /m$/) n *= 60; print n }')
for t in $targets; do
  (cd fuzz && "$work/fuzz.test" -test.run='^$' -test.fuzz="^${t}\$" -test.fuzztime="$rate_time" \
    -test.parallel="$parallel" -test.fuzzcachedir="$work/cache-rate-$t" >"$work/rate-$t.log" 2>&1)
  execs=$(grep -o 'execs: [0-9]*' "$work/rate-$t.log" | tail -n 1 | grep -o '[0-9]*$')
  echo "| $t | ${execs:-0} | $(awk -v e="${execs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", e / s }') |"
done
cleanup
fi

echo
echo "$target until its first failure, 1 worker, median of ${runs} runs (limit ${limit} a run):"
echo
echo "| setting | failed runs | median time (s) | median execs | times (s) | execs |"
echo "| --- | ---: | ---: | ---: | --- | --- |"
for setting in $failing; do
  IFS=';' read -r -a assigns <<<"$setting"
  times=()
  counts=()
  failed=0
  for i in $(seq 1 "$runs"); do
    log="$work/fail-$i.log"
    start=$(date +%s.%N)
    (cd fuzz && env "${assigns[@]}" "$work/fuzz.test" -test.run='^$' -test.fuzz="^${target}\$" \
      -test.fuzztime="$limit" -test.parallel=1 -test.fuzzminimizetime=0 \
      -test.fuzzcachedir="$work/cache-fail-$RANDOM-$i" >"$log" 2>&1)
    rc=$?
    end=$(date +%s.%N)
    cleanup
    if [ "$rc" -ne 0 ] && n=$(grep -o 'had checked [0-9]* compositions' "$log" | head -n 1 | grep -o '[0-9]*'); then
      failed=$((failed + 1))
      times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')")
      counts+=("$n")
    fi
  done
  mt=$(printf '%s\n' "${times[@]:-}" | grep . | median)
  mc=$(printf '%s\n' "${counts[@]:-}" | grep . | median)
  echo "| ${setting//;/ } | $failed/$runs | $mt | $mc | ${times[*]:-} | ${counts[*]:-} |"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
