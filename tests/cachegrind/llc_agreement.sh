#!/usr/bin/env bash
# llc_explorer against the real thing: valgrind's lackey and cachegrind (ctest
# "llc_cachegrind_agreement", registered in examples/CMakeLists.txt).
#
#   llc_agreement.sh LLC_EXPLORER COMPILER WORKLOAD_SOURCE WORK_DIR
#
# Builds the deterministic workload (tests/cachegrind/workload.c: misaligned and line-crossing
# loads and stores, read-modify-writes), captures the whole run with
# `valgrind --tool=lackey --trace-mem=yes`, simulates it with `valgrind --tool=cachegrind` with a
# D1 of llc_explorer's L1-D shape (32 KiB, 8-way, 64 B lines), replays the lackey trace through
# llc_explorer as one core, and requires
#   * its instruction count to equal cachegrind's I refs (Ir) exactly: lackey prints one I record
#     per instruction cachegrind counts, those after the last data reference included;
#   * its L1-D reads, writes, read misses and write misses to equal cachegrind's Dr, Dw, D1mr and
#     D1mw exactly: a line-crossing reference touches both lines and counts as one access with
#     at most one miss (llc_explorer translates pages, but 64 sets x 64 B is one 4 KiB page, so
#     the L1-D's set of every line is the one cachegrind sees);
# then the same trace through a pipe, as "-" and as /dev/stdin, must give the file's counts.
# Valgrind comes from Debian's `valgrind` package (scripts/quickstart.sh installs it).
set -euo pipefail

if [ $# -ne 4 ]; then
    echo "usage: llc_agreement.sh LLC_EXPLORER COMPILER WORKLOAD_SOURCE WORK_DIR" >&2
    exit 2
fi
llc_explorer=$1 compiler=$2 workload_c=$3 work=$4

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mkdir -p "$work"
cd "$work"
capture_workload "$compiler" "$workload_c" --D1=32768,8,64

run_llc() { # CSV file, stdout file, then the trace arguments
    local csv=$1 out=$2
    shift 2
    "$llc_explorer" --quiet --policies lru --sweep '' --csv "$csv" "$@" >"$out"
}
run_llc file.csv llc.txt --trace trace.lackey
# The instruction count from the trace's line of the report ("<trace>: N data references ...,
# M instructions, ..."); the L1-D counts from the CSV's core row.
instructions() {
    awk '/ data reference/ { for (i = 2; i <= NF; ++i) if ($i == "instructions,") print $(i - 1) }' "$1"
}
core_value() { # column $2 of the core row of CSV $1 ("missing" when there is no such column)
    awk -F, -v want="$2" '
        NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        $1 == "core" { print (want in col) ? $(col[want]) : "missing" }
    ' "$1"
}

# The trace must exercise what the test is about.
status=0
check_workload_trace trace.lackey || status=1

printf '%-22s %12s %12s\n' "" "cachegrind" "llc_explorer"
compare() { # label, cachegrind's value, llc_explorer's value
    local mark=""
    if [ -z "$2" ] || [ -z "$3" ] || [ "$2" != "$3" ]; then
        mark="  <- differs"
        status=1
    fi
    printf '%-22s %12s %12s%s\n' "$1" "$2" "$3" "$mark"
}
compare "Ir/instructions" "$(cachegrind_value Ir)" "$(instructions llc.txt)"
for pair in Dr:l1_reads Dw:l1_writes D1mr:l1_read_misses D1mw:l1_write_misses; do
    compare "${pair%%:*}/${pair##*:}" "$(cachegrind_value "${pair%%:*}")" \
        "$(core_value file.csv "${pair##*:}")"
done
if [ $status -ne 0 ]; then
    echo "FAIL: llc_explorer does not reproduce cachegrind's instruction and D1 counts (files in" \
        "$work)" >&2
    exit 1
fi
echo "PASS: llc_explorer's instructions and L1-D reads, writes and misses equal cachegrind's"

# Standard input: "-" (also bare) and /dev/stdin give the file's counts.
counts() { # instructions, then the LLC misses of lru and the core row's L1-D counts
    echo "$(instructions "$2") $(awk -F, '$1 == "policies" && $2 == "lru" { print $4 }' "$1")" \
        "$(core_value "$1" l1_reads) $(core_value "$1" l1_read_misses)"
}
want=$(counts file.csv llc.txt)
cat trace.lackey | run_llc dash.csv dash.txt --trace -
cat trace.lackey | run_llc bare.csv bare.txt -
cat trace.lackey | run_llc dev_stdin.csv dev_stdin.txt --trace /dev/stdin
for how in dash bare dev_stdin; do
    got=$(counts $how.csv $how.txt)
    if [ "$got" != "$want" ]; then
        echo "FAIL: through a pipe ($how) llc_explorer counts '$got' (instructions, LLC misses," \
            "L1-D reads, L1-D read misses), from the file '$want'" >&2
        status=1
    fi
done
[ $status -eq 0 ] || exit 1
echo "PASS: standard input as '-', bare '-' and /dev/stdin gives the file's counts ($want)"
