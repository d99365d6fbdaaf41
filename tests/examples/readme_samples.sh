#!/usr/bin/env bash
# The sample outputs in the docs come from the programs: every code block a markdown file
# introduces with
#
#   <!-- sample: PROGRAM ARGS... [| mask: COLUMN[, COLUMN...]] [| from: RE] [| to: RE] -->
#
# must be exactly what `PROGRAM ARGS...` prints on stdout (PROGRAM is one of the example
# programs, run from a scratch directory), or with "from:" / "to:" the part of it from the first
# line matching the extended regular expression RE (and up to the next line matching the "to:"
# one), both included. The columns named after "mask:" are measured times or rates (e.g.
# "M acc/s") that differ from run to run: in a fixed-width table they are left out of the
# comparison, found by their header names (a right-aligned column spans from the end of the
# header name before it to the end of its own).
#
#   readme_samples.sh MARKDOWN... BIN_DIR             check every sample (ctest "readme_samples")
#   readme_samples.sh --update MARKDOWN... BIN_DIR    rewrite every sample block from the programs
#
# MARKDOWN is a .md file or a directory, which stands for every .md file under it (for example
# `README.md docs`). Files without markers are fine; no marker in any of them is an error.
#
# Exit status: 0 every sample matches (or was rewritten); 1 a sample differs (a diff is
# printed) or its program failed; 2 bad usage or a malformed sample marker.
set -euo pipefail

update=0
if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi
if [ $# -lt 2 ]; then
    echo "usage: readme_samples.sh [--update] MARKDOWN... BIN_DIR" >&2
    exit 2
fi
bin=$(realpath "${!#}")
markdown_files=()
for arg in "${@:1:$#-1}"; do
    if [ -d "$arg" ]; then
        while IFS= read -r -d '' f; do markdown_files+=("$(realpath "$f")"); done \
            < <(find "$arg" -name '*.md' -type f -print0 | sort -z)
    elif [ -f "$arg" ]; then
        markdown_files+=("$(realpath "$arg")")
    else
        echo "readme_samples.sh: no such file or directory: $arg" >&2
        exit 2
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Removes the masked columns (names in $2, comma-separated) from the table lines of file $1: a
# table starts at a line holding every masked name and ends at the first blank line.
mask_columns() {
    awk -v names="$2" '
        function strip(line,    i, out, from) {
            out = ""; from = 1
            for (i = 1; i <= n; ++i) {
                out = out substr(line, from, lo[i] - from + 1)
                from = hi[i] + 1
            }
            return out substr(line, from)
        }
        BEGIN { count = split(names, want, /[ ]*,[ ]*/) }
        in_table && $0 == "" { in_table = 0 }
        !in_table && count > 0 {
            found = 0
            for (i = 1; i <= count; ++i) if (index($0, want[i]) > 0) ++found
            if (found == count) {
                # Column i spans (lo[i], hi[i]]: from the last non-blank before its name to
                # its name'"'"'s end. Sorted by position so strip() walks left to right.
                n = 0
                for (i = 1; i <= count; ++i) {
                    at = index($0, want[i])
                    end = at + length(want[i]) - 1
                    start = at - 1
                    while (start > 0 && substr($0, start, 1) == " ") --start
                    ++n; lo[n] = start; hi[n] = end
                }
                for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (lo[j] < lo[i]) {
                    t = lo[i]; lo[i] = lo[j]; lo[j] = t; t = hi[i]; hi[i] = hi[j]; hi[j] = t
                }
                in_table = 1
            }
        }
        { print in_table ? strip($0) : $0 }
    ' "$1"
}

# Walks one markdown file ($readme): copies it through to $out_readme, and for each sample
# marker runs its command and either compares the block after it or replaces the block.
check_file() {
out_readme="$work/README.new"
: >"$out_readme"
file_samples=0
exec 3<"$readme"
while IFS= read -r line <&3 || [ -n "$line" ]; do
    printf '%s\n' "$line" >>"$out_readme"
    [[ "$line" =~ ^(\ *)\<\!--\ sample:\ (.*)\ --\>$ ]] || continue
    indent="${BASH_REMATCH[1]}" # a sample inside a list item is indented as the item's text
    spec="${BASH_REMATCH[2]}"
    command="${spec%%|*}"
    masks="" from="" to=""
    rest="${spec#"$command"}"
    while [[ "$rest" == "|"* ]]; do # the options, each "| name: value"
        rest="${rest#|}"
        option="${rest%%|*}"
        rest="${rest#"$option"}"
        option="${option#"${option%%[! ]*}"}"
        option="${option%"${option##*[! ]}"}"
        case "$option" in
        mask:*) masks="${option#mask:}" ;;
        from:*) from="${option#from:}" ;;
        to:*) to="${option#to:}" ;;
        *) echo "readme_samples.sh: bad sample option '$option' in: $line" >&2; exit 2 ;;
        esac
    done
    masks="${masks#"${masks%%[! ]*}"}" from="${from#"${from%%[! ]*}"}" to="${to#"${to%%[! ]*}"}"
    command="${command%"${command##*[! ]}"}"
    IFS= read -r fence <&3 || fence=""
    [[ "$fence" == "$indent"'```'* ]] ||
        { echo "readme_samples.sh: no code block after: $line" >&2; exit 2; }
    printf '%s\n' "$fence" >>"$out_readme"
    : >"$work/expected"
    while IFS= read -r block <&3; do
        [[ "$block" == "$indent"'```' ]] && break
        printf '%s\n' "${block#"$indent"}" >>"$work/expected"
    done
    samples=$((samples + 1))
    file_samples=$((file_samples + 1))
    read -r -a argv <<<"$command"
    program="${argv[0]}"
    if [ ! -x "$bin/$program" ]; then
        echo "readme_samples.sh: $program is not built in $bin" >&2
        exit 2
    fi
    mkdir -p "$work/run$samples"
    if ! (cd "$work/run$samples" && "$bin/$program" "${argv[@]:1}") >"$work/output" 2>"$work/stderr"; then
        echo "FAIL: \`$command\` exited with an error:" >&2
        cat "$work/stderr" >&2
        status=1
    fi
    # The part the sample shows: from the "from:" line to the "to:" line, both included.
    awk -v from="$from" -v to="$to" '
        !on && (from == "" || $0 ~ from) { on = 1 }
        on { print }
        on && to != "" && $0 ~ to { exit }
    ' "$work/output" >"$work/actual"
    if [ $update -eq 1 ]; then
        # Blank lines stay empty (no trailing blanks in the README).
        awk -v indent="$indent" '{ print ($0 == "" ? "" : indent $0) }' "$work/actual" \
            >>"$out_readme"
    else
        awk -v indent="$indent" '{ print ($0 == "" ? "" : indent $0) }' "$work/expected" \
            >>"$out_readme"
        if ! diff -u <(mask_columns "$work/expected" "$masks") <(mask_columns "$work/actual" "$masks") \
            >"$work/diff"; then
            echo "FAIL: the sample of \`$command\` in $readme differs from what it prints" \
                "(- markdown, + program; masked: ${masks:-nothing}):"
            cat "$work/diff"
            status=1
        else
            echo "ok: \`$command\` in $readme (masked: ${masks:-nothing})"
        fi
    fi
    printf '%s\n' "$indent"'```' >>"$out_readme"
done
exec 3<&-
if [ $update -eq 1 ] && [ $file_samples -gt 0 ]; then
    if [ $status -eq 0 ]; then
        cp "$out_readme" "$readme"
        echo "rewrote $file_samples sample(s) in $readme"
    else
        echo "readme_samples.sh: a program failed; $readme left unchanged" >&2
    fi
fi
}

status=0
samples=0
for readme in "${markdown_files[@]}"; do
    check_file
done
if [ $samples -eq 0 ]; then
    echo "readme_samples.sh: no <!-- sample: ... --> markers in ${markdown_files[*]}" >&2
    exit 2
fi
exit $status
