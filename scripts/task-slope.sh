#!/usr/bin/env bash
# Measures how one run's cost grows with the number of tasks: runs
# BenchmarkHarnessTasks (model/bench_test.go: N copies of the reference
# workload's task on distinct subjects, N = 10, 100, 1000), takes the median
# ns/op of each N over COUNT runs, and prints the least-squares slope of
# log(ns/op) against log(N) (1.00 is linear). With a file argument it reads
# benchmark output from it (or from stdin for "-") instead of running.
# Exits 1 when the slope is above MAX (default 1.05).
# Usage: scripts/task-slope.sh [-count COUNT] [-benchtime T] [-max MAX] [FILE|-]
set -euo pipefail
cd "$(dirname "$0")/.."
count=5
benchtime=1s
maxslope=1.05
input=""
while [ $# -gt 0 ]; do
  case "$1" in
    -count) count=$2; shift 2 ;;
    -benchtime) benchtime=$2; shift 2 ;;
    -max) maxslope=$2; shift 2 ;;
    -h|-help|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -) input=-; shift ;;
    -?*) echo "task-slope: unknown flag $1" >&2; exit 2 ;;
    *) input=$1; shift ;;
  esac
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ -z "$input" ]; then
  go test ./model -run '^$' -bench 'BenchmarkHarnessTasks' -benchtime "$benchtime" -count "$count" | tee "$out"
elif [ "$input" = "-" ]; then
  cat >"$out"
else
  cat "$input" >"$out"
fi
awk -v max="$maxslope" '
  /^BenchmarkHarnessTasks\/tasks=[0-9]+/ {
    n = $1; sub(/^BenchmarkHarnessTasks\/tasks=/, "", n); sub(/-[0-9]+$/, "", n)
    for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") { v[n, ++c[n]] = $i }
  }
  END {
    k = 0
    nn = 0
    for (n in c) ns[++nn] = n + 0
    for (i = 2; i <= nn; i++) { x = ns[i]; j = i - 1; while (j >= 1 && ns[j] > x) { ns[j+1] = ns[j]; j-- } ns[j+1] = x }
    for (q = 1; q <= nn; q++) {
      n = ns[q]; m = c[n]
      for (i = 1; i <= m; i++) a[i] = v[n, i] + 0
      for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j >= 1 && a[j] > x) { a[j+1] = a[j]; j-- } a[j+1] = x }
      med = (m % 2) ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
      printf "tasks=%-5d median %.0f ns/op over %d runs (%.0f ns per task)\n", n, med, m, med / n
      k++; lx[k] = log(n); ly[k] = log(med)
    }
    if (k < 2) { print "task-slope: need BenchmarkHarnessTasks results for two task counts or more" > "/dev/stderr"; exit 4 }
    sx = sy = sxx = sxy = 0
    for (i = 1; i <= k; i++) { sx += lx[i]; sy += ly[i]; sxx += lx[i]*lx[i]; sxy += lx[i]*ly[i] }
    slope = (k*sxy - sx*sy) / (k*sxx - sx*sx)
    printf "log-log slope of ns/op against tasks: %.3f (at most %s)\n", slope, max
    if (slope > max + 0) exit 1
  }
' "$out"
