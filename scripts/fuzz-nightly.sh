#!/usr/bin/env bash
# fuzz-nightly.sh: run every native fuzz target of package fuzz for a given
# time each, on all cores, against a chosen profile, control set, mutant,
# fixture and scope; convert every new failing input into a readable
# counterexample in reference/corpus/counterexamples/; print a line per finished target
# (execs, rate, failures so far) and a summary; exit non-zero on a new
# failure.
#
# Usage (from anywhere in a checkout; needs only Go and bash):
#
#   scripts/fuzz-nightly.sh [-time 5m] [-profile typed | -controls a,b] \
#       [-scope designed|ordinals|anywhere] [-mutant NAME] [-fixture NAME] \
#       [-parallel N] [-targets "FuzzA FuzzB"]
#
#   -time      fuzzing time per target, a Go duration (default 5m: four
#              targets, 20 minutes in all, a nightly job's budget)
#   -profile   baseline, typed or fail_closed (default typed, where no target
#              may fail)
#   -controls  an explicit comma-separated control list instead of a profile
#   -scope     where the composition decoder places faults (default designed)
#   -mutant    a mutant of the reference system, by name
#              (go run ./scripts/fuzztool mutants lists them)
#   -fixture   the workload: copperfin (default) or copperfin-batch
#   -parallel  fuzzing workers per target (default: every core)
#   -targets   the targets to run (default: every Fuzz function, from go test -list)
#
# A failing input Go writes to fuzz/testdata/fuzz/<Target>/ is converted by
# scripts/fuzztool (a Go program) into reference/corpus/counterexamples/*.json, which
# records the native input too, and is then removed from testdata so that the
# next run fuzzes instead of stopping on it. A counterexample already in
# reference/corpus/counterexamples/ is reported as known and is not a new failure.
#
# Exit status: 0 when no target found a new failure; 1 when one did (or a
# target failed without an input to convert, e.g. on its seed corpus or to
# build); 2 for bad usage.
set -uo pipefail

time_per_target=5m
parallel=""
targets=""
envs=()
tool_flags=()
scope=designed

usage() { sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
# value FLAG ARGS...: the value after FLAG, or bad usage (exit 2)
value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then
    echo "fuzz-nightly: $1 needs a value" >&2; exit 2
  fi
}

while [ $# -gt 0 ]; do
  case "$1" in
    -time) value "$@"; time_per_target="$2"; shift 2 ;;
    -profile) value "$@"; envs+=("FAULTLINE_PROFILE=$2"); tool_flags+=(-profile "$2"); shift 2 ;;
    -controls) [ $# -ge 2 ] || value "$1"; envs+=("FAULTLINE_CONTROLS=$2"); tool_flags+=(-controls "$2"); shift 2 ;;
    -scope) value "$@"; scope="$2"; envs+=("FAULTLINE_SCOPE=$2"); shift 2 ;;
    -mutant) value "$@"; envs+=("FAULTLINE_MUTANT=$2"); tool_flags+=(-mutant "$2"); shift 2 ;;
    -fixture) value "$@"; envs+=("FAULTLINE_FIXTURE=$2"); tool_flags+=(-fixture "$2"); shift 2 ;;
    -parallel) value "$@"; parallel="$2"; shift 2 ;;
    -targets) value "$@"; targets="$2"; shift 2 ;;
    -h|-help|--help) usage ;;
    *) echo "fuzz-nightly: unknown flag $1" >&2; usage ;;
  esac
done
tool_flags+=(-scope "$scope")
# a Go duration above zero (go test -fuzztime also takes Nx, not used here)
if ! [[ "$time_per_target" =~ ^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$ ]] || ! [[ "$time_per_target" =~ [1-9] ]]; then
  echo "fuzz-nightly: -time $time_per_target is not a Go duration above zero (5m, 90s, 1h30m)" >&2; exit 2
fi
if [ -n "$parallel" ] && ! [[ "$parallel" =~ ^[1-9][0-9]{0,3}$ ]]; then
  echo "fuzz-nightly: -parallel $parallel is not a count of workers from 1 to 9999" >&2; exit 2
fi

cd "$(dirname "$0")/.." || exit 2
if [ -z "$parallel" ]; then
  parallel=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
fi
all_targets=$(go test -list '^Fuzz' ./fuzz | grep '^Fuzz') || { echo "fuzz-nightly: cannot list the targets" >&2; exit 1; }
if [ -z "$targets" ]; then
  targets=$all_targets
fi
# no target, or one that does not exist, would fuzz nothing: bad usage,
# never a pass
if [ -z "${targets//[[:space:]]/}" ]; then
  echo "fuzz-nightly: -targets names no target" >&2; exit 2
fi
for t in $targets; do
  if ! grep -qx -- "$t" <<<"$all_targets"; then
    echo "fuzz-nightly: no fuzz target $t in package fuzz (the targets: $(echo $all_targets))" >&2; exit 2
  fi
done

# Build the converter once; check the setting before spending fuzzing time.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/fuzztool" ./scripts/fuzztool || exit 1
if ! env "${envs[@]}" go test ./fuzz -run '^TestSettingIsValid$' -count=1 >"$work/setting.log" 2>&1; then
  cat "$work/setting.log" >&2
  echo "fuzz-nightly: the setting is invalid" >&2
  exit 2
fi

cache=$(go env GOCACHE)/fuzz/github.com/faultline/faultline/fuzz
# fuzz_secs LOG: the fuzzing time Go reported last ("elapsed: 1m2s"), in
# seconds (0 when it reported none)
fuzz_secs() {
  grep -oE 'elapsed: [0-9hms]+' "$1" | tail -n 1 | sed 's/elapsed: //' |
    awk '{ t = 0; s = $0; while (match(s, /^[0-9]+[hms]/)) { v = substr(s, 1, RLENGTH - 1); u = substr(s, RLENGTH, 1); t += v * (u == "h" ? 3600 : u == "m" ? 60 : 1); s = substr(s, RLENGTH + 1) } print t } END { if (NR == 0) print 0 }'
}
# took N SECS: "S s of fuzzing (R execs/s)" for N execs in SECS seconds
took() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%d s of fuzzing (", s; if (s > 0) printf "%.0f", n / s; else printf "-"; printf " execs/s)" }'; }
ntargets=$(echo $targets | wc -w | tr -d ' ')
done_targets=0
all_failures=0
count() { if [ -d "$1" ]; then find "$1" -type f | wc -l | tr -d ' '; else echo 0; fi; }

echo "fuzz-nightly: ${time_per_target} per target, ${parallel} workers, setting: ${envs[*]:-FAULTLINE_PROFILE=typed (default)}"
summary=$(printf '%-24s %12s %12s %10s  %s' target execs new_corpus failures "counterexamples (new or known)")
status=0
for t in $targets; do
  dir=fuzz/testdata/fuzz/$t
  before=$(ls "$dir" 2>/dev/null | sort)
  corpus_before=$(count "$cache/$t")
  log="$work/$t.log"
  echo "== $t"
  env "${envs[@]}" go test ./fuzz -run '^$' -fuzz "^${t}\$" -fuzztime "$time_per_target" \
    -parallel "$parallel" -timeout 0 >"$log" 2>&1
  rc=$?
  tail -n 25 "$log"
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
  corpus_after=$(count "$cache/$t")
  after=$(ls "$dir" 2>/dev/null | sort)
  new_inputs=$(comm -13 <(echo "$before") <(echo "$after") | grep -v '^$')
  failures=0
  written=""
  for f in $new_inputs; do
    failures=$((failures + 1))
    if line=$("$work/fuzztool" convert -target "$t" -input "$dir/$f" "${tool_flags[@]}"); then
      echo "   $line"
      written="$written $line"
      case "$line" in new\ *) status=1 ;; esac
      rm -f "$dir/$f"
    else
      echo "   could not convert $dir/$f (kept)"
      status=1
    fi
  done
  rmdir "$dir" 2>/dev/null || true
  if [ "$rc" -ne 0 ] && [ "$failures" -eq 0 ]; then
    echo "   $t failed without a new input to convert (seed corpus, build or setting): see the log above"
    failures=1
    written=" (none: see the log)"
    status=1
  fi
  summary="$summary
$(printf '%-24s %12s %12s %10s  %s' "$t" "${execs:-0}" "$((corpus_after - corpus_before))" "$failures" "${written# }")"
  done_targets=$((done_targets + 1))
  all_failures=$((all_failures + failures))
  echo "-- $t ($done_targets of $ntargets): ${execs:-0} execs in $(took "${execs:-0}" "$(fuzz_secs "$log")"), $((corpus_after - corpus_before)) new corpus entries, $failures failures, $all_failures so far"
done
rmdir fuzz/testdata/fuzz fuzz/testdata 2>/dev/null || true

echo
echo "$summary"
if [ "$status" -ne 0 ]; then
  echo "fuzz-nightly: new failures (replay each counterexample with the command in its \"replay\" field)"
fi
exit "$status"
