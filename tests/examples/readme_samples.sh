#!/usr/bin/env bash
# The README's sample outputs come from the programs: every code block the README introduces with
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
#   readme_samples.sh README BIN_DIR             check every sample (ctest "readme_samples")
#   readme_samples.sh --update README BIN_DIR    rewrite every sample block from the programs
#
# Exit status: 0 every sample matches (or was rewritten); 1 a sample differs (a diff is
# printed) or its program failed; 2 bad usage or a malformed sample marker.
set -euo pipefail

update=0
if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi
if [ $# -ne 2 ]; then
    echo "usage: readme_samples.sh [--update] README BIN_DIR" >&2
    exit 2
fi
readme=$(realpath "$1")
bin=$(realpath "$2")
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

status=0
samples=0
out_readme="$work/README.new"
: >"$out_readme"
# Walk the README: copy it through, and for each sample marker run its command and either
# compare the block after it or replace the block.
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
            echo "FAIL: the README's sample of \`$command\` differs from what it prints" \
                "(- README, + program; masked: ${masks:-nothing}):"
            cat "$work/diff"
            status=1
        else
            echo "ok: \`$command\` (masked: ${masks:-nothing})"
        fi
    fi
    printf '%s\n' "$indent"'```' >>"$out_readme"
done
exec 3<&-
if [ $samples -eq 0 ]; then
    echo "readme_samples.sh: no <!-- sample: ... --> markers in $readme" >&2
    exit 2
fi
if [ $update -eq 1 ]; then
    if [ $status -eq 0 ]; then
        cp "$out_readme" "$readme"
        echo "rewrote $samples sample(s) in $readme"
    else
        echo "readme_samples.sh: a program failed; $readme left unchanged" >&2
    fi
fi
exit $status
