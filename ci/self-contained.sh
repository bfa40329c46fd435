#!/usr/bin/env bash
# Fails (exit 1, naming each file and line) when a tracked file points outside the repository: to the
# workspace folder the project began in beside the checkout, or to a path above the repository root built
# from the source directory. A clone with nothing beside it must build, test and explain itself: the
# recurrences are docs/recurrences.md, the fixtures tests/fixtures/. ctest runs it as `self_contained`
# (label unit); .ci/run runs every test in a clone alone in an empty folder, so a read that slips past this
# check fails the test that makes it.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "self-contained: not a git checkout (the check reads the tracked files)" >&2; exit 2; }
# The patterns are assembled so that this file does not match itself.
up='\.\.'
patterns=(
  -e "$up/shared"                                   # the workspace folder beside the checkout
  -e "shared""/(spec|fixtures|notes|hooks)"         # its contents named without the ../
  -e 'SOURCE_DIR\}?/'"$up"'(/|$)'                   # CMake: a path above the source root
  -e '\$\(dirname "\$0"\)(/'"$up"'){3,}'            # a script's folder, three or more levels up
)
if hits=$(git grep -n -I -E "${patterns[@]}" -- . ':!ci/self-contained.sh'); then
  echo "self-contained: tracked files point outside the repository:" >&2
  echo "$hits" | sed 's/^/  /' >&2
  exit 1
fi
echo "self-contained: $(git ls-files | wc -l) tracked files, none points outside the repository"
