#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The HTML report's render test: headless Chromium screenshots HTML_FILE into OUT_PNG, and
# png_not_blank.py checks the screenshot shows a page (size, ink, colours, the verdict banner); then Chromium
# dumps the loaded page's DOM and detection_dom_check.py checks every backend's line shows its detection
# thresholds (what a pass rules out, in ulps and relative, and the loosest tensor).
#
# usage: render_html.sh HTML_FILE OUT_PNG
# Exit 77 (ctest: skipped, never passed) when Chromium is not installed; ci/bootstrap.sh installs Debian's.
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 HTML_FILE OUT_PNG" >&2
  exit 2
fi
html=$1
png=$2

. "$(dirname "$0")/find_chromium.sh"
if [ ! -s "$html" ]; then
  echo "no page at $html: html_test (HtmlReport.WritesThePageForTheRenderTest) did not write it"
  exit 1
fi

page=$(realpath "$html")
mkdir -p "$(dirname "$png")"
png=$(realpath -m "$png")
rm -f "$png"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM

# The machine runs as root, where Chromium's sandbox cannot start: --no-sandbox. A fresh profile per run
# (--user-data-dir) keeps runs independent. Newer Chromium wants --headless=new, older only --headless.
render() {
  timeout 120 "$chromium" "$1" --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --no-first-run --no-default-browser-check --user-data-dir="$scratch/profile" \
    --window-size=1400,3000 --screenshot="$png" "file://$page" >"$scratch/chromium.log" 2>&1 || true
}
render --headless=new
if [ ! -s "$png" ]; then
  render --headless
fi
if [ ! -s "$png" ]; then
  echo "chromium ($("$chromium" --version 2>/dev/null || echo "unknown version")) wrote no screenshot:"
  tail -n 20 "$scratch/chromium.log"
  exit 1
fi
echo "rendered $page -> $png"
/usr/bin/python3 "$(dirname "$0")/png_not_blank.py" "$png"
rm -rf "$scratch/profile"
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --no-default-browser-check --user-data-dir="$scratch/profile" --dump-dom "file://$page" \
  >"$scratch/report.dom.html" 2>"$scratch/chromium.log" || true
if [ ! -s "$scratch/report.dom.html" ]; then
  echo "chromium dumped no DOM of $page:"
  tail -n 20 "$scratch/chromium.log"
  exit 1
fi
exec /usr/bin/python3 "$(dirname "$0")/detection_dom_check.py" "$scratch/report.dom.html"
