#!/usr/bin/env bash
# Renders the coverage HTML report in a real headless browser (Debian's
# chromium, installed with apt-get when missing) and checks that it
# rendered: the DOM chromium builds holds the three heatmaps, the keys table
# and the unreachable-key reasons, and the screenshot is a non-trivial PNG.
#
# Usage: scripts/coverage-html-check.sh [OUT_DIR]
#   OUT_DIR (default: a new temporary folder) receives coverage.json,
#   coverage.html, dom.html and screenshot.png.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing chromium (Debian package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

go build -o "$out/faultline" ./cmd/faultline
rm -f "$out/coverage.json"
# a partial record: the tool domain under baseline, the state domain and a
# few evidence trials under typed, so the page shows violated, held and
# unvisited keys
"$out/faultline" assay --profile baseline --fault tool --trials 40 --coverage "$out/coverage.json" >/dev/null
"$out/faultline" assay --profile typed --fault state --trials 40 --coverage "$out/coverage.json" >/dev/null
"$out/faultline" assay --profile typed --fault evidence --trials 3 --coverage "$out/coverage.json" >/dev/null
"$out/faultline" coverage report "$out/coverage.json" --format html >"$out/coverage.html"

profile=$(mktemp -d)
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
  --disable-sync --no-first-run --user-data-dir="$profile")
chromium "${flags[@]}" --dump-dom "file://$out/coverage.html" >"$out/dom.html" 2>/dev/null
chromium "${flags[@]}" --window-size=1280,2400 --screenshot="$out/screenshot.png" "file://$out/coverage.html" >/dev/null 2>&1
rm -rf "$profile"

fail() { echo "coverage-html-check: $*" >&2; exit 1; }
svgs=$(grep -o '<svg' "$out/dom.html" | wc -l)
cells=$(grep -o 'class="cell"' "$out/dom.html" | wc -l)
[ "$svgs" -eq 3 ] || fail "want 3 heatmaps in the rendered DOM, found $svgs"
# domain x phase (5x5) + boundary x oracle (11x9) + correlation x domain (4x5)
[ "$cells" -eq $((25 + 99 + 20)) ] || fail "want 144 heatmap cells, found $cells"
grep -q 'id="keys"' "$out/dom.html" || fail "no keys table in the rendered DOM"
grep -q 'id="unreachable"' "$out/dom.html" || fail "no unreachable keys in the rendered DOM"
[ -s "$out/screenshot.png" ] || fail "no screenshot"
head -c 8 "$out/screenshot.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' || fail "screenshot is not a PNG"
size=$(stat -c %s "$out/screenshot.png")
[ "$size" -gt 20000 ] || fail "screenshot is only $size bytes: the page looks blank"
echo "coverage-html-check: ok: $svgs heatmaps, $cells cells rendered; screenshot $out/screenshot.png ($size bytes)"
