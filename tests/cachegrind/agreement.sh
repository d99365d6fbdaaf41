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
# Dr, Dw, D1mr and D1mw exactly. Valgrind comes from Debian's `valgrind` package
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
