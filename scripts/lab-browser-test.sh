#!/usr/bin/env bash
# Real-browser test of the lab page (reference/lab/browser_test.go, build tag
# "browser"): installs Debian's chromium when /usr/bin/chromium is missing
# (needs root and apt), then runs the test headless. Screenshots go to the
# test's artifact directory under $LAB_ARTIFACTS (default: a fresh
# temporary directory); the test log prints their paths.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ] && [ -z "${LAB_CHROMIUM:-}" ]; then
  echo "lab-browser-test: installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
"${LAB_CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null
go vet -tags browser ./reference/lab/...
out="${LAB_ARTIFACTS:-$(mktemp -d -t faultline-lab-XXXXXX)}"
mkdir -p "$out"
echo "lab-browser-test: artifacts under $out"
go test -tags browser -count=1 -v -run 'TestBrowser' -artifacts -outputdir "$out" ./reference/lab/...
