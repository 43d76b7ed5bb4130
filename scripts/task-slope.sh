#!/usr/bin/env bash
# Measures how one run's cost grows with the number of tasks: runs
# BenchmarkHarnessTasks (model/bench_test.go: N copies of the reference
# workload's task on distinct subjects, N = 10, 100, 1000), takes the median
# ns/op of each N over COUNT runs, and prints the least-squares slope of
# log(ns/op) against log(N) (1.00 is linear). With a file argument it reads
# benchmark output from it (or from stdin for "-") instead of running.
# Exits 1 when the slope is above MAX (default 1.05).
# With -workers it runs BenchmarkFleetWorkers instead (N concurrent
# workers, N = 10, 100, 1000, for each pick policy) and prints, per policy,
# the log-log slopes from 100 to 1000 workers of CPU time (cpu-ns/op) and
# bytes (B/op) a run, beside wall time; MAX defaults to 1.1, BENCHTIME to 5x.
# It runs BenchmarkHandoffFloor too (N coroutines resumed round robin as the
# scheduler resumes its workers, no model work) and prints its slopes as the
# floor row, and each policy's CPU slope over the floor's; and
# BenchmarkHandoffTouch, the floor whose coroutines write K KiB of stack at
# each resume (K = 1, 2, 4, 8), as the touch-KKB rows: what the caches
# charge for the bytes a worker touches between two picks. Only the
# policies count for exit 1.
# Usage: scripts/task-slope.sh [-workers] [-count COUNT] [-benchtime T] [-max MAX] [FILE|-]
set -euo pipefail
cd "$(dirname "$0")/.."
count=5
benchtime=""
maxslope=""
input=""
workers=""
while [ $# -gt 0 ]; do
  case "$1" in
    -workers) workers=1; shift ;;
    -count) count=$2; shift 2 ;;
    -benchtime) benchtime=$2; shift 2 ;;
    -max) maxslope=$2; shift 2 ;;
    -h|-help|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -) input=-; shift ;;
    -?*) echo "task-slope: unknown flag $1" >&2; exit 2 ;;
    *) input=$1; shift ;;
  esac
done
bench=BenchmarkHarnessTasks
if [ -n "$workers" ]; then
  bench='(BenchmarkFleetWorkers|BenchmarkHandoffFloor|BenchmarkHandoffTouch)'
  : "${benchtime:=5x}" "${maxslope:=1.1}"
fi
: "${benchtime:=1s}" "${maxslope:=1.05}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ -z "$input" ]; then
  go test ./model -run '^$' -bench "^$bench\$" -benchtime "$benchtime" -count "$count" | tee "$out"
elif [ "$input" = "-" ]; then
  cat >"$out"
else
  cat "$input" >"$out"
fi
if [ -n "$workers" ]; then
  awk -v max="$maxslope" '
    function median(key, m,   i, j, x, a) {
      for (i = 1; i <= m; i++) a[i] = v[key, i] + 0
      for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j >= 1 && a[j] > x) { a[j+1] = a[j]; j-- } a[j+1] = x }
      return (m % 2) ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
    }
    /^Benchmark(FleetWorkers\/pick=[a-z-]+|HandoffFloor|HandoffTouch\/kb=[0-9]+)\/workers=[0-9]+/ {
      name = $1; sub(/^BenchmarkFleetWorkers\/pick=/, "", name); sub(/^BenchmarkHandoffFloor/, "floor", name); sub(/-[0-9]+$/, "", name)
      if (sub(/^BenchmarkHandoffTouch\/kb=/, "touch-", name)) sub(/\//, "KB/", name)
      p = name; sub(/\/.*/, "", p); n = name; sub(/^.*workers=/, "", n)
      if (!(p in seen)) { seen[p] = 1; order[++np] = p }
      k = p SUBSEP n; r = ++c[k]
      for (i = 2; i < NF; i++) {
        if ($(i+1) == "ns/op") v[k SUBSEP "ns", r] = $i
        if ($(i+1) == "cpu-ns/op") v[k SUBSEP "cpu", r] = $i
        if ($(i+1) == "B/op") v[k SUBSEP "B", r] = $i
      }
    }
    END {
      bad = 0
      if (np == 0) { print "task-slope: no BenchmarkFleetWorkers results" > "/dev/stderr"; exit 4 }
      printf "%-20s %7s %14s %14s %14s\n", "pick", "workers", "wall ns/op", "CPU ns/op", "B/op"
      for (q = 1; q <= np; q++) {
        p = order[q]
        for (w = 10; w <= 1000; w *= 10) {
          k = p SUBSEP w
          if (!(k in c)) continue
          med[p, w, "ns"] = median(k SUBSEP "ns", c[k]); med[p, w, "cpu"] = median(k SUBSEP "cpu", c[k]); med[p, w, "B"] = median(k SUBSEP "B", c[k])
          printf "%-20s %7d %14.0f %14.0f %14.0f\n", p, w, med[p, w, "ns"], med[p, w, "cpu"], med[p, w, "B"]
        }
      }
      printf "\nlog-log slopes from 100 to 1000 workers (medians of each; at most %s for CPU and bytes):\n", max
      printf "%-20s %8s %8s %8s %10s\n", "pick", "wall", "CPU", "bytes", "CPU-floor"
      for (q = 1; q <= np; q++) {
        p = order[q]
        if (!((p SUBSEP 100) in c) || !((p SUBSEP 1000) in c)) { print "task-slope: " p " lacks 100 or 1000 workers" > "/dev/stderr"; exit 4 }
        sw[p] = log(med[p, 1000, "ns"] / med[p, 100, "ns"]) / log(10)
        sc[p] = (med[p, 100, "cpu"] > 0) ? log(med[p, 1000, "cpu"] / med[p, 100, "cpu"]) / log(10) : 0
        sb[p] = log(med[p, 1000, "B"] / med[p, 100, "B"]) / log(10)
      }
      for (q = 1; q <= np; q++) {
        p = order[q]
        flag = (sc[p] > max + 0 || sb[p] > max + 0) ? "  above" : ""
        over = ("floor" in sc && p != "floor") ? sprintf("%+.3f", sc[p] - sc["floor"]) : "-"
        if (p == "floor") flag = "  (coroutine switches alone)"
        else if (p ~ /^touch-/) flag = "  (switches and a fresh stack frame a resume)"
        else if (flag != "") bad = 1
        printf "%-20s %8.3f %8.3f %8.3f %10s%s\n", p, sw[p], sc[p], sb[p], over, flag
      }
      if (bad) exit 1
    }
  ' "$out"
  exit
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
