#!/usr/bin/env bash
# Checks that everything the repository cites can be followed from a clone of it:
#   (a) no "issue N" / "issue #N" in include/ (history belongs in commit messages and CHANGELOG.md);
#   (b) no citation of documents the repository does not contain (work notes, engineering specs
#       kept elsewhere, absolute paths of a work machine);
#   (c) every repository path written in code or docs (docs/….md, examples/…, include/memsub/….hpp,
#       scripts/…, tests/…) and every relative Markdown link in docs/ names a file that exists;
#   (d) every citation key "[Key]" used in include/ comments or docs/ is defined in
#       docs/references.md.
# Prints file:line: rule: text for each finding; exits 1 if there is any.
#
# Usage: scripts/check_repository_references.sh [--root DIR] [--exclude PATH]...
#   --exclude PATH  skip a file or a directory (relative to the root); may be repeated.

set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
excludes=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --root)
        root="$(cd "$2" && pwd)"
        shift 2
        ;;
    --exclude)
        excludes+=("${2%/}")
        shift 2
        ;;
    -h | --help)
        sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "check_repository_references: unknown argument '$1'" >&2
        exit 2
        ;;
    esac
done
cd "$root"

self="scripts/check_repository_references.sh"
findings=0

report() { # file line rule text
    printf '%s:%s: %s: %s\n' "$1" "$2" "$3" "$4"
    findings=$((findings + 1))
}

excluded() {
    local f="$1" e
    for e in "${excludes[@]+"${excludes[@]}"}"; do
        [[ "$f" == "$e" || "$f" == "$e"/* ]] && return 0
    done
    return 1
}

# Text files under the given roots (files or directories that exist), minus exclusions and
# build output.
list_files() {
    local r
    for r in "$@"; do
        [[ -e "$r" ]] || continue
        if [[ -f "$r" ]]; then
            echo "$r"
        else
            find "$r" -type d \( -name build -o -name .git -o -name 'cmake-build-*' \) -prune -o \
                -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.md' \
                -o -name '*.sh' -o -name '*.txt' -o -name '*.cmake' -o -name '*.py' \
                -o -name '*.json' -o -name '*.in' \) -print
        fi
    done | sort | while read -r f; do
        excluded "$f" || echo "$f"
    done
}

# grep -nE over files, one "file:line:text" per hit (no output and no failure when none).
grep_lines() { # pattern files...
    local pattern="$1"
    shift
    [[ $# -gt 0 ]] || return 0
    grep -HnE -i -- "$pattern" "$@" || true
}

# ---------------------------------------------------------------------------- (a) issue numbers
mapfile -t include_files < <(list_files include)
while IFS=: read -r f n text; do
    report "$f" "$n" "issue number (history belongs in commit messages)" "$text"
done < <(grep_lines '(^|[^a-z])issue #?[0-9]+' "${include_files[@]+"${include_files[@]}"}")

# ---------------------------------------------------------------- (b) documents not in the tree
mapfile -t cited_files < <(list_files include examples bench tests docs README.md CMakeLists.txt \
    scripts | grep -vxF "$self")
outside='seed 00[0-9]|spec [A-Za-z0-9_./-]*\.md|system-policies\.md|id-cache\.md|latte-cc\.md'
outside+='|\[resolution\]|/work/|\.\./shared'
while IFS=: read -r f n text; do
    report "$f" "$n" "cites a document the repository does not contain" "$text"
done < <(grep_lines "$outside" "${cited_files[@]+"${cited_files[@]}"}")

# ----------------------------------------------------------------- (c) paths that do not exist
# One grep over every file lists each candidate as file:line:match; bash checks them (no process
# per line, so the check stays fast on a loaded machine).
mapfile -t path_files < <(list_files include examples bench tests docs README.md CMakeLists.txt \
    scripts cmake CHANGELOG.md)
path_pattern='(^|[^A-Za-z0-9_./${}-])(docs/[A-Za-z0-9_./-]+\.md|examples/[A-Za-z0-9_./*-]+|'
path_pattern+='include/memsub/[A-Za-z0-9_./-]+\.hpp|scripts/[A-Za-z0-9_./*-]+|tests/[A-Za-z0-9_./*-]+)'
while IFS=: read -r f n p; do
    p="${p#"${p%%[A-Za-z]*}"}" # drop the boundary character
    p="${p%%[.,;:)]}"          # a sentence's punctuation is not part of the path
    # A glob is not a path; a name without an extension is checked only as a directory written
    # with its trailing slash (without one it may be prose: "tests/examples/benchmarks").
    [[ "$p" == *'*'* ]] && continue
    if [[ "$p" != */ && "${p##*/}" != *.* ]]; then continue; fi
    p="${p%/}"
    [[ -z "$p" || -e "$p" ]] && continue
    report "$f" "$n" "path does not exist" "$p"
done < <(if [[ ${#path_files[@]} -gt 0 ]]; then grep -HnoE -- "$path_pattern" "${path_files[@]}"; fi || true)

# Relative Markdown links in docs/ resolve against the page's own directory.
mapfile -t doc_pages < <(list_files docs CHANGELOG.md | grep -E '\.md$' || true)
while IFS=: read -r f n link; do
    target="${link#](}"
    target="${target%)}"
    target="${target%%#*}"
    [[ -z "$target" || "$target" =~ ^[a-z]+: ]] && continue
    [[ -e "$(dirname "$f")/$target" ]] && continue
    report "$f" "$n" "link target does not exist" "$target"
done < <(if [[ ${#doc_pages[@]} -gt 0 ]]; then grep -HnoE '\]\([^) ]+\)' "${doc_pages[@]}"; fi || true)

# --------------------------------------------------------------- (d) undefined citation keys
# A key looks like [Dissertation], [MCM-GPU], [SC2]: a capital letter, then at least one more
# letter, digit or - + . ². Array indexing ([i], [K]) and attributes ([[nodiscard]]) do not, nor
# does a Markdown link's text ("[Text](target)").
declare -A known_keys=()
while read -r key; do
    [[ -n "$key" ]] && known_keys["$key"]=1
done < <(grep -oE '^\| *\[[^]]+\]' docs/references.md | sed -E 's/^\| *\[([^]]+)\]/\1/')
# Bracketed words that are not citations: a status marker docs/design.md defines.
known_keys["UNVERIFIED"]=1
key_regex='(^|[^[A-Za-z0-9_])\[([A-Z][A-Za-z0-9²+._-]+)\]([^(]|$)'
mapfile -t key_files < <(list_files include docs | grep -vxF docs/references.md)
# Lines inside a Markdown code fence are program text (a usage line's "[FILE...]"), not prose.
declare -A fenced=()
while IFS= read -r at; do
    fenced["$at"]=1
done < <(for f in "${key_files[@]}"; do
    [[ "$f" == *.md ]] && awk -v f="$f" '/^ *```/ { inside = !inside; next } inside { print f ":" NR }' "$f"
done || true)
while IFS= read -r hit; do
    f="${hit%%:*}"
    rest="${hit#*:}"
    n="${rest%%:*}"
    text="${rest#*:}"
    scan="$text"
    [[ -n "${fenced["$f:$n"]+x}" ]] && continue
    if [[ "$f" != *.md ]]; then
        [[ "$text" == *//* ]] || continue
        scan="${text#*//}" # comments only: code indexes arrays with capitalised names
    fi
    while [[ "$scan" =~ $key_regex ]]; do
        key="${BASH_REMATCH[2]}"
        scan="${scan#*"[$key]"}"
        [[ -n "${known_keys[$key]+x}" ]] && continue
        report "$f" "$n" "citation key [$key] is not defined in docs/references.md" "$text"
    done
done < <(if [[ ${#key_files[@]} -gt 0 ]]; then grep -HnE -- "$key_regex" "${key_files[@]}"; fi || true)

if [[ $findings -gt 0 ]]; then
    echo "check_repository_references: $findings finding(s)" >&2
    exit 1
fi
echo "check_repository_references: no findings"
