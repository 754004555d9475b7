#!/bin/sh
# The documentation is self-contained: no tracked file outside data/ points at design notes that
# live outside the repository, and every `docs/<name>.md §<n>` citation names an existing page with
# a section numbered <n>. Usage: self_contained_test.sh <source dir>. Exit 0 = clean, 1 = findings.
set -u
src=${1:?usage: self_contained_test.sh <source dir>}
cd "$src" || exit 2

if [ -d .git ] || [ -f .git ]; then
  files=$(git ls-files | grep -v '^data/')
else
  files=$(find . -type f ! -path './data/*' ! -path './build*' ! -path './.git/*' | sed 's|^\./||')
fi
self=docs/tests/self_contained_test.sh
status=0

# 1. No pointer outside the repository (the notes' file names are assembled so this file does not
#    match itself).
notes="signature-and-tolerances|vortex-2x|ncu-and-torch|robotics-workloads|style-and-lessons"
sh="shared"
pattern="${sh}/docs|\.\./${sh}|(${notes})\.md"
found=$(printf '%s\n' "$files" | grep -vx "$self" | tr '\n' '\0' | xargs -0 grep -InE "$pattern" 2>/dev/null)
if [ -n "$found" ]; then
  echo "references to files outside the repository (state the fact in docs/ and cite that):"
  printf '%s\n' "$found"
  status=1
fi

# 2. Every `docs/X.md §N` names an existing page and a section N of it: a heading '#… N. …' /
#    '#… N …', or a bold paragraph label '**N …'.
cites=$(printf '%s\n' "$files" | tr '\n' '\0' | xargs -0 grep -IohE 'docs/[A-Za-z0-9_-]+\.md`? §[0-9]+(\.[0-9]+)?' 2>/dev/null |
        sed 's/`//' | sort -u)
printf '%s\n' "$cites" | while read -r page sect; do
  [ -n "$page" ] || continue
  n=${sect#§}
  if [ ! -f "$page" ]; then
    echo "cited page does not exist: $page $sect"
    echo bad >> "${TMPDIR:-/tmp}/vxs_docs_bad.$$"
    continue
  fi
  esc=$(printf '%s' "$n" | sed 's/\./\\./g')
  if ! grep -qE "^(#+ ${esc}([. ]|$)|\*\*${esc}[ .])" "$page"; then
    echo "cited section does not exist: $page $sect"
    echo bad >> "${TMPDIR:-/tmp}/vxs_docs_bad.$$"
  fi
done
if [ -f "${TMPDIR:-/tmp}/vxs_docs_bad.$$" ]; then
  rm -f "${TMPDIR:-/tmp}/vxs_docs_bad.$$"
  status=1
fi
exit $status
