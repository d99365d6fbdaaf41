#!/usr/bin/env bash
# Every C++ snippet in the docs compiles: each ```cpp block of the markdown files given is one
# translation unit with its own #includes.
#
#   check_doc_snippets.sh [options] MARKDOWN...     (ctest "doc_snippets", label doc_check)
#
# MARKDOWN is a .md file or a directory, which stands for every .md file under it (for example
# `README.md docs`). A block is checked by what it holds and by an optional marker, an HTML
# comment on the nearest non-blank line above its fence:
#
#   (no marker)                       a whole translation unit: compiled; when it defines
#                                     main() it is also linked and run and must exit 0
#   <!-- snippet: fragment -->        statements: its #include lines go to the top and the rest
#                                     becomes the body of a function, which is compiled
#   <!-- snippet: no-run -->          a whole translation unit with main() that is compiled and
#                                     linked but not run (a program that waits for input)
#   <!-- snippet: skip REASON -->     not compiled (pseudo-code, or a call into a host that
#                                     cannot be written down); listed in the output with REASON
#
# Compiler messages name the markdown file and line (each unit carries #line directives).
#
# Options:
#   --cxx COMPILER        the compiler (default: $CXX, else g++)
#   -I DIR                an include directory (repeatable; default: the repository's include/
#                         and examples/)
#   --flags "FLAGS"       extra compiler flags (default none)
#   --keep DIR            keep the generated units in DIR instead of a temporary folder
#   --exclude PATH        leave out the markdown files under PATH (repeatable)
#   -j N                  compile N snippets at a time (default: the number of processors)
#
# Exit status: 0 every block compiles (and every main() runs and exits 0); 1 a block failed (its
# file, line and the compiler's message are printed); 2 bad usage or no ```cpp block anywhere.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cxx="${CXX:-g++}"
includes=()
extra_flags=""
keep=""
inputs=()
excludes=()
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
    case "$1" in
    --cxx) cxx="$2"; shift 2 ;;
    -I) includes+=("-I$2"); shift 2 ;;
    -I*) includes+=("$1"); shift ;;
    --flags) extra_flags="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --exclude) excludes+=("${2%/}"); shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -h | --help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check_doc_snippets.sh: unknown option $1" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
    esac
done
if [ ${#inputs[@]} -eq 0 ]; then
    echo "usage: check_doc_snippets.sh [--cxx CXX] [-I DIR]... [--flags FLAGS] MARKDOWN..." >&2
    exit 2
fi
[ ${#includes[@]} -gt 0 ] || includes=("-I$root/include")
# ccache makes a second run of unchanged snippets take seconds; nothing needs it.
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(ccache)

files=()
for arg in "${inputs[@]}"; do
    if [ -d "$arg" ]; then
        while IFS= read -r -d '' f; do
            for x in "${excludes[@]}"; do [[ "$f" == "$x"/* || "$f" == "$x" ]] && continue 2; done
            files+=("$f")
        done \
            < <(find "$arg" -name '*.md' -type f -print0 | sort -z)
    elif [ -f "$arg" ]; then
        files+=("$arg")
    else
        echo "check_doc_snippets.sh: no such file or directory: $arg" >&2
        exit 2
    fi
done

if [ -n "$keep" ]; then
    mkdir -p "$keep"
    work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

# Splits every file's ```cpp blocks into units: $work/NNN.cpp plus $work/NNN.info holding
# "file line kind reason". Fragments get their #include lines hoisted above a function.
awk -v work="$work" '
    function flush_unit(   i, out) {
        ++n
        out = sprintf("%s/%03d.cpp", work, n)
        if (kind == "fragment") {
            for (i = 1; i <= count; ++i)
                if (body[i] ~ /^[ \t]*#[ \t]*include/) {
                    printf "#line %d \"%s\"\n%s\n", start + i, FILENAME, body[i] > out
                    body[i] = ""
                }
            printf "[[maybe_unused]] static void memsub_doc_fragment_%d() {\n", n > out
        }
        printf "#line %d \"%s\"\n", start + 1, FILENAME > out
        for (i = 1; i <= count; ++i) print body[i] > out
        if (kind == "fragment") print "}" > out
        close(out)
        printf "%s %d %s %s\n", FILENAME, start, kind, reason > sprintf("%s/%03d.info", work, n)
        close(sprintf("%s/%03d.info", work, n))
    }
    FNR == 1 { marker = ""; in_block = 0 }
    in_block && $0 ~ /^[ \t]*```[ \t]*$/ { in_block = 0; flush_unit(); marker = ""; next }
    in_block { sub("^" indent, ""); body[++count] = $0; next }
    /^[ \t]*```cpp[ \t]*$/ {
        in_block = 1; count = 0; start = FNR
        indent = $0; sub(/```cpp.*/, "", indent)
        kind = "unit"; reason = ""
        if (marker ~ /snippet:[ \t]*fragment/) kind = "fragment"
        else if (marker ~ /snippet:[ \t]*no-run/) kind = "no-run"
        else if (marker ~ /snippet:[ \t]*skip/) {
            kind = "skip"; reason = marker
            sub(/.*snippet:[ \t]*skip[ \t]*/, "", reason); sub(/[ \t]*-->.*/, "", reason)
        } else if (marker ~ /snippet:/) {
            printf "%s:%d: unknown snippet marker: %s\n", FILENAME, FNR - 1, marker > "/dev/stderr"
            bad = 1
        }
        next
    }
    /^[ \t]*$/ { next }
    { marker = ($0 ~ /^[ \t]*<!--.*-->[ \t]*$/) ? $0 : "" }
    END { exit bad }
' "${files[@]}" || exit 2

shopt -s nullglob
units=("$work"/*.cpp)
if [ ${#units[@]} -eq 0 ]; then
    echo "check_doc_snippets.sh: no \`\`\`cpp block in ${files[*]}" >&2
    exit 2
fi

flags=(-std=c++20 -Wall -Wextra -Wpedantic -Werror -pthread "${includes[@]}")
# shellcheck disable=SC2206 # the extra flags are split on purpose
[ -z "$extra_flags" ] || flags+=($extra_flags)
# A snippet may use the explorer module or fmt directly (as a program using memsub::explorer).
libs=(-lfmt)

# One unit: writes its verdict line to UNIT.verdict ("ok …", "FAIL …" + the log, or "skip …").
check_unit() {
    local unit="$1" file line kind reason where
    read -r file line kind reason <"${unit%.cpp}.info"
    where="$file:$line"
    exec >"${unit%.cpp}.verdict" 2>&1
    if [ "$kind" = "skip" ]; then
        echo "skip: $where ($reason)"
        return
    fi
    if [ "$kind" != "fragment" ] && grep -Eq '^[[:space:]]*int[[:space:]]+main[[:space:]]*\(' "$unit"; then
        if ! "${launcher[@]}" "$cxx" "${flags[@]}" -O1 -o "${unit%.cpp}" "$unit" "${libs[@]}" \
            >"${unit%.cpp}.log" 2>&1; then
            echo "FAIL: $where: the snippet does not compile:"
            cat "${unit%.cpp}.log"
            return
        fi
        if [ "$kind" = "no-run" ]; then
            echo "ok: $where (compiled and linked, not run)"
            return
        fi
        if ! (cd "$work" && "${unit%.cpp}") >"${unit%.cpp}.out" 2>&1; then
            echo "FAIL: $where: the snippet's program exited with an error:"
            cat "${unit%.cpp}.out"
            return
        fi
        echo "ok: $where (compiled, linked and run)"
    else
        if ! "${launcher[@]}" "$cxx" "${flags[@]}" -fsyntax-only "$unit" >"${unit%.cpp}.log" 2>&1; then
            echo "FAIL: $where: the snippet ($kind) does not compile:"
            cat "${unit%.cpp}.log"
            return
        fi
        if [ "$kind" = "fragment" ]; then
            echo "ok: $where (compiled as a function body)"
        else
            echo "ok: $where (compiled)"
        fi
    fi
}

# Units are independent: compiled $jobs at a time, reported in order.
for unit in "${units[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    check_unit "$unit" &
done
wait
status=0 compiled=0 ran=0 skipped=0
for unit in "${units[@]}"; do
    cat "${unit%.cpp}.verdict"
    case "$(head -n 1 "${unit%.cpp}.verdict")" in
    FAIL*) status=1 ;;
    skip*) skipped=$((skipped + 1)) ;;
    *"and run)") ran=$((ran + 1)) ;;
    ok*) compiled=$((compiled + 1)) ;;
    esac
done
echo "$((compiled + ran)) snippet(s) compiled ($ran of them run), $skipped skipped"
exit $status
