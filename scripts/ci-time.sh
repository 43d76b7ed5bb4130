#!/usr/bin/env bash
# Measures .ci/run on a fresh clone of HEAD (committed work only): wall time
# and CPU time (user + sys of every process .ci/run waited for), with the
# load average at the start and end of each run and .ci/run's own
# per-phase lines ("ci: PHASE: ...").
#
#   scripts/ci-time.sh            warm: module and build caches warm, test
#                                 results not used (GOFLAGS=-count=1, which
#                                 .ci/run keeps; the shared test cache is
#                                 left as it is)
#   scripts/ci-time.sh --cold     the warm figure, then the cold one beside
#                                 it: an empty GOCACHE and staticcheck cache
#                                 (modules still come from the module cache)
#
# The clone goes to one fixed folder, $FAULTLINE_CI_TIME_DIR (default
# ${TMPDIR:-/tmp}/faultline-ci-time/clone), removed and cloned again for
# each run: the go command's build cache keys hold a package's folder, so
# only a clone in the same folder as an earlier run finds its compilations.
# When that folder has not been built yet at this commit, a first run warms
# the cache (printed, not counted as the warm figure). Exit 1 when a run of
# .ci/run fails; 2 on bad usage. CPU seconds are the steadier figure on a
# shared machine: two cores give a wall time of at least CPU / 2.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cold=0
case "${1:-}" in
"") ;;
--cold) cold=1 ;;
*)
  echo "usage: scripts/ci-time.sh [--cold] (exit 2)" >&2
  exit 2
  ;;
esac
dir=${FAULTLINE_CI_TIME_DIR:-${TMPDIR:-/tmp}/faultline-ci-time/clone}
rev=$(git -C "$root" rev-parse HEAD)
logs=$(mktemp -d -t faultline-ci-time-XXXXXX)

# run LABEL [ENV=VALUE...]: clones HEAD into $dir, runs .ci/run there with
# the environment given, and prints its figures; returns .ci/run's status.
run() {
  local label=$1
  shift
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  git clone -q "$root" "$dir"
  git -C "$dir" checkout -q "$rev"
  local log="$logs/${label// /-}.log" status=0
  echo "== $label: load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  local TIMEFORMAT="%R %U %S"
  { time env GOFLAGS=-count=1 "$@" "$dir/.ci/run" >"$log" 2>&1 || status=$?; } 2>"$logs/time"
  read -r wall user sys <"$logs/time"
  grep '^ci: ' "$log" | sed 's/^/   /' || true
  echo "== $label: $(awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f s wall, %.1f s CPU (%.1f user + %.1f sys)", w, u + s, u, s }'), exit $status, load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$status" -ne 0 ]; then
    echo "== $label: .ci/run failed; its log: $log"
    tail -40 "$log"
  fi
  return "$status"
}

echo "commit $rev, $(nproc) cores, clone in $dir, logs in $logs"
# a first run warms the build cache for this folder and commit; every run
# runs its tests (-count=1)
if [ "$(cat "$dir.built" 2>/dev/null)" != "$rev" ]; then
  run "warm-up (compiles what this folder lacks)" || exit 1
fi
run "warm (-count=1)" || exit 1
echo "$rev" >"$dir.built"
if [ "$cold" -eq 1 ]; then
  cache=$(mktemp -d -t faultline-ci-time-cache-XXXXXX)
  run "cold (empty build cache)" GOCACHE="$cache/go-build" STATICCHECK_CACHE="$cache/staticcheck" || status=$?
  chmod -R u+w "$cache" && rm -rf "$cache"
  exit "${status:-0}"
fi
