#!/usr/bin/env bash
# The explorer against the real thing: valgrind's cachegrind (ctest "cachegrind_agreement",
# registered in examples/CMakeLists.txt).
#
#   agreement.sh EXPLORER COMPILER WORKLOAD_SOURCE WORK_DIR
#
# Builds the deterministic workload (tests/cachegrind/workload.c: misaligned and line-crossing
# loads and stores, read-modify-writes), captures its data references with
# `valgrind --tool=lackey --trace-mem=yes`, simulates it with
# `valgrind --tool=cachegrind --cache-sim=yes` and a 32 KiB 8-way 64 B D1, replays the lackey
# trace through the explorer's lru with the same D1 shape (64 sets x 8 ways x 64 B), and
# requires the explorer's reads, writes, read misses and write misses to equal cachegrind's
# Dr, Dw, D1mr and D1mw exactly; then the same trace through a pipe, /dev/stdin and a FIFO must
# give the file's counts; and a fully associative 4 KiB D1 must give cachegrind's misses in the
# explorer's one-set lru and in its fully associative rows alike (one line-splitting rule for
# every row, no conflict misses in one set). Valgrind comes from Debian's `valgrind` package
# (scripts/quickstart.sh installs it).
set -euo pipefail

if [ $# -ne 4 ]; then
    echo "usage: agreement.sh EXPLORER COMPILER WORKLOAD_SOURCE WORK_DIR" >&2
    exit 2
fi
explorer=$1 compiler=$2 workload_c=$3 work=$4

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mkdir -p "$work"
cd "$work"
capture_workload "$compiler" "$workload_c" --D1=32768,8,64

"$explorer" --quiet --sets 64 --ways 8 --line-bytes 64 --policies lru --no-opt \
    --format lackey --csv explorer.csv trace.lackey >explorer.txt
explorer_value() { csv_column explorer.csv "$1" policy lru; }

# The trace must exercise what the test is about.
status=0
check_workload_trace trace.lackey || status=1

printf '%-14s %12s %12s\n' "D1 (32 KiB)" "cachegrind" "explorer"
for pair in Dr:reads Dw:writes D1mr:read_misses D1mw:write_misses; do
    cg=$(cachegrind_value "${pair%%:*}")
    ex=$(explorer_value "${pair##*:}")
    mark=""
    if [ -z "$cg" ] || [ -z "$ex" ] || [ "$cg" != "$ex" ]; then
        mark="  <- differs"
        status=1
    fi
    printf '%-14s %12s %12s%s\n' "${pair%%:*}/${pair##*:}" "$cg" "$ex" "$mark"
done
if [ $status -ne 0 ]; then
    echo "FAIL: the explorer does not reproduce cachegrind's D1 counts (files in $work)" >&2
    exit 1
fi
echo "PASS: the explorer's D1 reads, writes and misses equal cachegrind's"

# The same trace through a pipe: standard input as "-" and as /dev/stdin, and a FIFO, must give
# the file's counts (format detection reads the start of the input: it must not lose it).
csv_counts() { # accesses, misses, reads, writes of the lru row of CSV $1
    local c
    for c in accesses misses reads writes; do printf '%s ' "$(csv_column "$1" $c policy lru)"; done
}
cp trace.lackey trace_no_extension # detected from its content, as a pipe must be
"$explorer" --quiet --sets 64 --ways 8 --policies lru --no-opt --csv file.csv trace_no_extension \
    >/dev/null
want=$(csv_counts file.csv)
rm -f trace.fifo && mkfifo trace.fifo
for how in dash dev_stdin fifo; do
    case $how in
    dash) cat trace.lackey | "$explorer" --quiet --sets 64 --ways 8 --policies lru --no-opt \
        --csv pipe.csv - >/dev/null ;;
    dev_stdin) cat trace.lackey | "$explorer" --quiet --sets 64 --ways 8 --policies lru \
        --no-opt --csv pipe.csv /dev/stdin >/dev/null ;;
    fifo) cat trace.lackey >trace.fifo &
        "$explorer" --quiet --sets 64 --ways 8 --policies lru --no-opt --csv pipe.csv trace.fifo \
            >/dev/null
        wait ;;
    esac
    got=$(csv_counts pipe.csv)
    if [ "$got" != "$want" ]; then
        echo "FAIL: through a pipe ($how) the explorer counts '$got' (accesses misses reads" \
            "writes), from the file '$want'" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "PASS: a pipe, /dev/stdin and a FIFO give the file's counts ($want)"

# One line-splitting rule for every row: a fully associative 4 KiB D1 (64 lines of 64 B) as
# cachegrind simulates it (--D1=4096,64,64: one set), as the explorer's one-set LRU, and as its
# fully associative rows must give the same misses; the one-set cache has no conflict misses,
# and the set-associative and fully associative OPT of one set agree.
valgrind --tool=cachegrind --cache-sim=yes --D1=4096,64,64 --I1=32768,8,64 --LL=1048576,16,64 \
    --cachegrind-out-file=cachegrind_fa.out ./workload 2>/dev/null
fa_misses=$(CACHEGRIND_OUT=cachegrind_fa.out cachegrind_value D1mr D1mw)
"$explorer" --quiet --sets 1 --ways 64 --policies lru,fifo,fa_lru,fa_fifo,fa_opt,opt --3c \
    --format lackey --csv one_set.csv trace.lackey >one_set.txt
one_set() { csv_column one_set.csv "$2" policy "$1"; } # column $2 of policy $1's row
printf '%-26s %12s\n' "4 KiB fully associative" "misses"
printf '%-26s %12s\n' "cachegrind" "$fa_misses"
for p in lru fa_lru fifo fa_fifo opt fa_opt; do printf '%-26s %12s\n' "explorer $p" "$(one_set $p misses)"; done
check_equal() {
    if [ "$2" != "$3" ]; then
        echo "FAIL: $1: $2 != $3 (files in $work)" >&2
        status=1
    fi
}
check_equal "cachegrind's fully associative D1 misses vs the explorer's one-set lru" \
    "$fa_misses" "$(one_set lru misses)"
check_equal "one-set lru vs fa_lru misses" "$(one_set lru misses)" "$(one_set fa_lru misses)"
check_equal "one-set fifo vs fa_fifo misses" "$(one_set fifo misses)" "$(one_set fa_fifo misses)"
check_equal "one-set opt vs fa_opt misses" "$(one_set opt misses)" "$(one_set fa_opt misses)"
check_equal "one-set lru conflict misses" "$(one_set lru conflict)" 0
check_equal "one-set lru Hill conflict" "$(one_set lru hill_conflict)" 0
check_equal "fa_lru Hill conflict" "$(one_set fa_lru hill_conflict)" 0
for p in lru fifo fa_lru fa_fifo; do
    if [ "$(one_set $p misses)" -lt "$(one_set opt misses)" ]; then
        echo "FAIL: $p misses fewer than OPT" >&2
        status=1
    fi
done
if [ $status -ne 0 ]; then
    exit 1
fi
echo "PASS: cachegrind's fully associative D1, the one-set lru and fa_lru agree; no conflict" \
    "misses in one set; fa_opt = opt"
