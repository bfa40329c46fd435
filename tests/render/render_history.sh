#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The history page in a browser: headless Chromium loads HTML_FILE (History.WritesTheHistoryForTheBrowserTest's
# page of 30 nightly reports, scan/chunk16@fp32 made 100x worse and failing after revision 20), dumps its
# DOM once loaded and takes a screenshot; history_dom_check.py checks from the rendered DOM that the worse
# backend's plots exist with 30 points that rise after revision 20 and carry failure markers with their
# verdict and reason, and png_not_blank.py that the screenshot shows a page.
#
# usage: render_history.sh HTML_FILE OUT_DIR
# Exit 77 (ctest: skipped, never passed) when Chromium is not installed; ci/bootstrap.sh installs Debian's.
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 HTML_FILE OUT_DIR" >&2
  exit 2
fi
html=$1
out=$2

. "$(dirname "$0")/find_chromium.sh"
if [ ! -s "$html" ]; then
  echo "no page at $html: history_page_test (History.WritesTheHistoryForTheBrowserTest) did not write it"
  exit 1
fi

page=$(realpath "$html")
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM

# As render_html.sh: no sandbox as root, a fresh profile per run, --headless=new with --headless as fallback.
chrome() {
  rm -rf "$scratch/profile"
  timeout 120 "$chromium" "$@" --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run \
    --no-default-browser-check --user-data-dir="$scratch/profile" "file://$page" 2>"$scratch/chromium.log" || true
}
for headless in --headless=new --headless; do
  [ -s "$out/history.dom.html" ] || chrome "$headless" --dump-dom >"$out/history.dom.html"
  [ -s "$out/history.png" ] || chrome "$headless" --window-size=1400,3000 --screenshot="$out/history.png" >/dev/null
done
if [ ! -s "$out/history.dom.html" ] || [ ! -s "$out/history.png" ]; then
  echo "chromium ($("$chromium" --version 2>/dev/null || echo "unknown version")) wrote no DOM or no screenshot:"
  tail -n 20 "$scratch/chromium.log"
  exit 1
fi
echo "rendered $page -> $out/history.dom.html, $out/history.png"
/usr/bin/python3 "$(dirname "$0")/png_not_blank.py" "$out/history.png"
exec /usr/bin/python3 "$(dirname "$0")/history_dom_check.py" "$out/history.dom.html"
