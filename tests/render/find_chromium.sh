# SPDX-License-Identifier: Apache-2.0
# Sourced by the browser tests (render_html.sh, render_hostile_html.sh): sets $chromium to the headless
# browser, or exits 77 (ctest: skipped, never passed) when none is installed; ci/bootstrap.sh installs it.
chromium=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    chromium=$(command -v "$candidate")
    break
  fi
done
if [ -z "$chromium" ]; then
  echo "skipped: chromium is not installed (Debian: apt-get install chromium; ci/bootstrap.sh does)"
  exit 77
fi
