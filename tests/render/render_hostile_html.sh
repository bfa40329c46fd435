#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Untrusted text in a browser: `scancheck render` turns REPORT_JSON (UntrustedText's hostile report: a
# label, a foreign backend name, a worker's error and stderr, diagnoses and scope lines carrying
# <script>document.title='PWNED'</script> and <img src=x onerror="document.title='PWNED'">) into OUT_DIR,
# headless Chromium loads report.html with scripts on and dumps its DOM, and hostile_text_check.py checks
# that no script ran (the title is not PWNED, no script or img element, no event handler) and that the
# payloads show as text, and that report.md's tables keep their columns. Two control pages holding the
# payloads unescaped must come out PWNED first: so the check cannot pass by a browser that runs nothing.
#
# usage: render_hostile_html.sh SCANCHECK REPORT_JSON OUT_DIR
# Exit 77 (ctest: skipped, never passed) when Chromium is not installed; ci/bootstrap.sh installs Debian's.
set -eu

if [ $# -ne 3 ]; then
  echo "usage: $0 SCANCHECK REPORT_JSON OUT_DIR" >&2
  exit 2
fi
scancheck=$1
json=$2
out=$3

. "$(dirname "$0")/find_chromium.sh"
if [ ! -s "$json" ]; then
  echo "no report at $json: UntrustedText.WritesTheHostileReportForTheBrowserTest did not write it"
  exit 1
fi

rm -rf "$out"
"$scancheck" render "$json" --out "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM

printf '<!DOCTYPE html><title>control</title><p>%s</p>\n' "<script>document.title='PWNED'</script>" \
  >"$scratch/control-script.html"
printf '<!DOCTYPE html><title>control</title><p>%s</p>\n' "<img src=x onerror=\"document.title='PWNED'\">" \
  >"$scratch/control-image.html"

# As render_html.sh: no sandbox as root, a fresh profile per page, --headless=new with --headless as
# fallback. --dump-dom prints the DOM once the page has loaded (an image's error event fires before that).
dump() {
  page=$(realpath "$1")
  for headless in --headless=new --headless; do
    rm -rf "$scratch/profile"
    timeout 120 "$chromium" "$headless" --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
      --no-default-browser-check --user-data-dir="$scratch/profile" --dump-dom "file://$page" \
      >"$2" 2>"$scratch/chromium.log" || true
    if [ -s "$2" ]; then
      return 0
    fi
  done
  echo "chromium ($("$chromium" --version 2>/dev/null || echo "unknown version")) dumped no DOM of $1:"
  tail -n 20 "$scratch/chromium.log"
  exit 1
}
dump "$scratch/control-script.html" "$scratch/control-script.dom"
dump "$scratch/control-image.html" "$scratch/control-image.dom"
dump "$out/report.html" "$out/report.dom.html"
echo "rendered $json -> $out/report.html, its DOM in $out/report.dom.html"
exec /usr/bin/python3 "$(dirname "$0")/hostile_text_check.py" "$out/report.dom.html" "$out/report.md" \
  "$scratch/control-script.dom" "$scratch/control-image.dom"
