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
explorer=$1 compiler=$2 source=$3 work=$4

if ! command -v valgrind >/dev/null 2>&1; then
    echo "agreement.sh: valgrind is not installed (sudo apt-get install valgrind, or run" >&2
    echo "agreement.sh: scripts/quickstart.sh test as root, which installs it)" >&2
    exit 1
fi
mkdir -p "$work"
cd "$work"

# The workload: plain -O1 C, nothing that differs between runs.
"$compiler" -x c -std=c11 -O1 -o workload "$source"

d1=(--D1=32768,8,64 --I1=32768,8,64 --LL=1048576,16,64)
valgrind --tool=lackey --trace-mem=yes --log-file=trace.lackey ./workload
valgrind --tool=cachegrind --cache-sim=yes "${d1[@]}" --cachegrind-out-file=cachegrind.out \
    ./workload 2>cachegrind.txt

# cachegrind.out: "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw" and "summary: <numbers>".
cachegrind_value() {
    awk -v want="$1" '
        $1 == "events:" { for (i = 2; i <= NF; ++i) col[$i] = i }
        $1 == "summary:" { if (want in col) print $(col[want]); else print "missing" }
    ' cachegrind.out
}

"$explorer" --quiet --sets 64 --ways 8 --line-bytes 64 --policies lru --no-opt \
    --format lackey --csv explorer.csv trace.lackey >explorer.txt
# explorer.csv: a header, then one row per policy (the trace label is quoted, no comma in it).
explorer_value() {
    awk -F, -v want="$1" '
        NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        $(col["policy"]) == "lru" { print $(col[want]) }
    ' explorer.csv
}

# The trace must exercise what the test is about.
modifies=$(grep -c '^ M ' trace.lackey || true)
crossing=$(awk -F'[ ,]+' '/^ [LSM] / { # the offset in a 64 B line: the last two hex digits
        h = tolower(substr($3, length($3) - 1))
        hi = index("0123456789abcdef", substr(h, 1, 1)) - 1
        off = hi * 16 + index("0123456789abcdef", substr(h, 2, 1)) - 1
        if (off % 64 + $4 > 64) ++n
    } END { print n + 0 }' trace.lackey)
echo "lackey trace: $(grep -c '^ [LSM] ' trace.lackey) data records, $modifies read-modify-writes (M)," \
    "$crossing crossing a 64 B line boundary"
status=0
if [ "$modifies" -lt 1000 ] || [ "$crossing" -lt 1000 ]; then
    echo "FAIL: the workload made too few read-modify-writes or line-crossing references" >&2
    status=1
fi

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
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        $(col["policy"]) == "lru" {
            print $(col["accesses"]), $(col["misses"]), $(col["reads"]), $(col["writes"])
        }' "$1"
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
fa_misses=$(( $(awk '$1 == "events:" { for (i = 2; i <= NF; ++i) col[$i] = i }
    $1 == "summary:" { print $(col["D1mr"]) + $(col["D1mw"]) }' cachegrind_fa.out) ))
"$explorer" --quiet --sets 1 --ways 64 --policies lru,fifo,fa_lru,fa_fifo,fa_opt,opt --3c \
    --format lackey --csv one_set.csv trace.lackey >one_set.txt
one_set() { # column $2 of policy $1's row
    awk -F, -v p="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        $(col["policy"]) == p { print $(col[c]) }' one_set.csv
}
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
