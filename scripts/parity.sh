#!/usr/bin/env bash
# Parity and speed against the paper's published Python artefact
# (paper-188-typed-failure-injector.py, from "Failure injection as the
# primary evaluation"; you supply its path):
#
#   scripts/parity.sh PATH/TO/paper-188-typed-failure-injector.py [TRIALS] [RUNS]
#
# For each profile (baseline, typed) it runs the artefact and
# `faultline assay --compat paper188` with the same arguments (TRIALS,
# default 200000), in text and in JSON, and fails (exit 1) when any output
# differs byte for byte. Then it times RUNS (default 5) alternating runs of
# each, with the JSON output, and prints, per profile, the median wall time
# and the median CPU time (user + system) of both, and the two ratios
# (faultline / artefact: below 1 is faster; the CPU ratio is the steadier
# figure on a loaded machine, the wall ratio counts both cores the assay
# uses). Exit 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
  echo "usage: scripts/parity.sh ARTEFACT.py [TRIALS] [RUNS]" >&2
  exit 2
fi
artefact=$1
trials=${2:-200000}
runs=${3:-5}
if [ ! -f "$artefact" ]; then
  echo "parity: $artefact: no such file (give the path of the paper's paper-188-typed-failure-injector.py)" >&2
  exit 2
fi
case "$trials$runs" in
  *[!0-9]*) echo "parity: TRIALS and RUNS must be positive integers" >&2; exit 2 ;;
esac
if [ "$trials" -lt 1 ] || [ "$runs" -lt 1 ]; then
  echo "parity: TRIALS and RUNS must be positive integers" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "parity: python3 is not installed" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/faultline" ./cmd/faultline

status=0
for profile in baseline typed; do
  for format in text json; do
    flag=()
    [ "$format" = json ] && flag=(--json)
    python3 "$artefact" --profile "$profile" --trials "$trials" "${flag[@]}" >"$tmp/a.out"
    "$tmp/faultline" assay --compat paper188 --profile "$profile" --trials "$trials" "${flag[@]}" >"$tmp/f.out"
    if cmp -s "$tmp/a.out" "$tmp/f.out"; then
      echo "parity: $profile $format, $trials trials: identical ($(wc -c <"$tmp/a.out") bytes)"
    else
      echo "parity: $profile $format, $trials trials: DIFFERENT"
      diff "$tmp/a.out" "$tmp/f.out" | head -20
      status=1
    fi
  done
done

# time one command: prints "WALL CPU" in seconds
timed() {
  local out
  out=$( { /usr/bin/time -f '%e %U %S' "$@" >/dev/null; } 2>&1 | tail -1)
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$out"
}
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

printf '\n%-9s %-10s %-10s %-10s %-10s %-10s %-10s\n' profile fl_wall fl_cpu art_wall art_cpu wall_ratio cpu_ratio
for profile in baseline typed; do
  : >"$tmp/fw"; : >"$tmp/fc"; : >"$tmp/aw"; : >"$tmp/ac"
  for _ in $(seq "$runs"); do
    read -r w c < <(timed "$tmp/faultline" assay --compat paper188 --profile "$profile" --trials "$trials" --json)
    echo "$w" >>"$tmp/fw"; echo "$c" >>"$tmp/fc"
    read -r w c < <(timed python3 "$artefact" --profile "$profile" --trials "$trials" --json)
    echo "$w" >>"$tmp/aw"; echo "$c" >>"$tmp/ac"
  done
  fw=$(median <"$tmp/fw"); fc=$(median <"$tmp/fc"); aw=$(median <"$tmp/aw"); ac=$(median <"$tmp/ac")
  awk -v p="$profile" -v fw="$fw" -v fc="$fc" -v aw="$aw" -v ac="$ac" \
    'BEGIN { printf "%-9s %-10s %-10s %-10s %-10s %-10.3f %-10.3f\n", p, fw, fc, aw, ac, fw / aw, fc / ac }'
done
echo "(medians of $runs alternating runs, seconds; load average $(cut -d' ' -f1-3 /proc/loadavg))"
exit $status
