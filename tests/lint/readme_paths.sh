#!/usr/bin/env bash
# lint.readme_paths: the README and the pages under docs/ name the tree as it is.
#   1. every backticked path into the tree (`agent/...`, `controller/...`, `tests/...`, ...) in
#      README.md or docs/*.md exists (a glob must match something);
#   2. the layout block of docs/development.md ("Layout") names every folder directly under
#      agent/, controller/, common/ and tests/, each under its own top folder's entry, and
#      promises nothing for "later";
#   3. every docs/*.md page is linked from the README, and every relative link of the README and
#      of the pages names a file that exists and, with a #fragment into a page, one of its headings
#      (as GitHub makes anchors: lowercase, punctuation dropped, spaces as hyphens).
set -euo pipefail
root="${KV_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"
readme=README.md
layout_page=docs/development.md
pages=("$readme" docs/*.md)
problems=0
problem() { echo "$1" >&2; problems=$((problems + 1)); }
[ -f "$layout_page" ] || problem "$layout_page is missing (the layout block lives there)"

# 1. Backticked paths, each reported with the first file that names it.
while IFS=$'\t' read -r path file; do
  path="${path%%[ :,]*}"
  path="${path%.}"
  # shellcheck disable=SC2086  # a glob in the docs is expanded on purpose
  compgen -G "$path" >/dev/null || problem "$file names \`$path\`, which does not exist"
done < <(for page in "${pages[@]}"; do
    { grep -oE '`[^`]+`' "$page" || true; } | tr -d '`' |
      { grep -E '^(agent|controller|common|tests|proto|deploy|cmake)/' || true; } |
      sed "s|\$|"$'\t'"$page|"
  done | sort -u -t$'\t' -k1,1)

# 2. The layout block: the first ``` block after "## Layout" in docs/development.md.
block="$(awk '/^## Layout/ { s = 1 } s && /^```/ { if (b) exit; b = 1; next } b' "$layout_page" 2>/dev/null)" || true
[ -n "$block" ] || problem "$layout_page has no layout block under \"## Layout\""
grep -qi 'later' <<<"$block" && problem "the layout block promises something for later"
# The text of one top folder's entry: from its line ("agent/ ...") to the next top-level line.
entry() { awk -v top="$1/" 'index($0, top) == 1 { s = 1; print; next } s && /^[^ ]/ { exit } s' <<<"$block"; }
for top in agent controller common tests; do
  text="$(entry "$top")"
  [ -n "$text" ] || { problem "the layout block has no entry for $top/"; continue; }
  for dir in "$top"/*/; do
    name="$(basename "$dir")"
    grep -qE "(^|[ (,])$name/" <<<"$text" ||
      problem "the layout block's $top/ entry does not name $top/$name/"
  done
done

# 3. Links between the README and the pages.
for page in docs/*.md; do
  grep -qF -e "](${page})" -e "](${page}#" "$readme" ||
    problem "$readme does not link $page (its \"Where to read on\" list names every page)"
done
# FILE:ANCHOR for each heading of the files given (one awk for them all).
anchors_of() {
  awk '/^#+ / { h = tolower($0); sub(/^#+ /, "", h); gsub(/[^a-z0-9 _-]/, "", h)
    gsub(/ /, "-", h); print FILENAME ":" h }' "$@"
}
declare -A ANCHORS  # FILE -> its anchors, one per line; pages at once, other files when linked
while IFS= read -r line; do ANCHORS[${line%%:*}]+="${line#*:}"$'\n'; done < <(anchors_of "${pages[@]}")
while IFS= read -r hit; do  # FILE:TARGET[#FRAGMENT]
  file="${hit%%:*}" link="${hit#*:}"
  target="${link%%#*}" fragment=""
  [ "$target" = "$link" ] || fragment="${link#*#}"
  resolved="$file"
  if [ -n "$target" ]; then
    case "$file" in docs/*) resolved="docs/$target" ;; *) resolved="$target" ;; esac
    while [[ "$resolved" == */../* ]]; do resolved="$(sed -E 's#[^/]+/\.\./##' <<<"$resolved")"; done
  fi
  [ -e "$resolved" ] || { problem "$file links $link, which does not exist"; continue; }
  if [ -n "$fragment" ] && [[ "$resolved" == *.md ]] && [ -z "${ANCHORS[$resolved]+set}" ]; then
    while IFS= read -r line; do ANCHORS[$resolved]+="${line#*:}"$'\n'; done < <(anchors_of "$resolved")
  fi
  if [ -n "$fragment" ] && [[ "$resolved" == *.md ]] &&
    ! grep -qx -- "$fragment" <<<"${ANCHORS[$resolved]:-}"; then
    problem "$file links $link: $resolved has no heading with that anchor"
  fi
done < <(grep -oE '\]\([^)[:space:]]+' "${pages[@]}" | sed -E 's/:\]\(/:/' | grep -vE ':(https?|mailto):')

[ "$problems" -eq 0 ] || { echo "FAIL: $problems problem(s) in README.md and docs/" >&2; exit 1; }
echo "PASS"
