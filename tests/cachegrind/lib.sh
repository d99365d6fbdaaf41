# Shared by the scripts that check the example programs against valgrind (agreement.sh,
# llc_agreement.sh, memory_agreement.sh): capture the deterministic workload once with lackey
# and cachegrind, read cachegrind's summary, and make sure the trace exercises the two rules
# under test. Source it; it defines functions only.

# capture_workload COMPILER SOURCE [CACHEGRIND OPTIONS...]
#   Builds SOURCE (plain -O1 C, nothing that differs between runs) as ./workload in the current
#   directory, writes its lackey trace to trace.lackey and cachegrind's counts to
#   cachegrind.out (the D1 shape of the options; 32 KiB 8-way 64 B lines unless given).
capture_workload() {
    local compiler=$1 source=$2
    shift 2
    local shape=("$@")
    [ ${#shape[@]} -ne 0 ] || shape=(--D1=32768,8,64)
    if ! command -v valgrind >/dev/null 2>&1; then
        echo "valgrind is not installed (sudo apt-get install valgrind, or run" \
            "scripts/quickstart.sh test as root, which installs it)" >&2
        return 1
    fi
    "$compiler" -x c -std=c11 -O1 -o workload "$source"
    valgrind --tool=lackey --trace-mem=yes --log-file=trace.lackey ./workload
    valgrind --tool=cachegrind --cache-sim=yes "${shape[@]}" --I1=32768,8,64 --LL=1048576,16,64 \
        --cachegrind-out-file=cachegrind.out ./workload 2>cachegrind.txt
}

# cachegrind_value EVENT... [< FILE]: the sum of the named events of a cachegrind.out summary
# ("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw", "summary: <numbers>"); "missing" when one
# is not there. Reads cachegrind.out unless CACHEGRIND_OUT names another file.
cachegrind_value() {
    awk -v want="$*" '
        $1 == "events:" { for (i = 2; i <= NF; ++i) col[$i] = i }
        $1 == "summary:" {
            n = split(want, w, " "); s = 0
            for (i = 1; i <= n; ++i) { if (!(w[i] in col)) { print "missing"; exit } s += $(col[w[i]]) }
            print s
        }' "${CACHEGRIND_OUT:-cachegrind.out}"
}

# check_workload_trace TRACE: prints how many read-modify-writes and line-crossing references
# the lackey trace holds; fails when there are too few for the test to mean anything.
check_workload_trace() {
    local modifies crossing
    modifies=$(grep -c '^ M ' "$1" || true)
    crossing=$(awk -F'[ ,]+' '/^ [LSM] / { # the offset in a 64 B line: the last two hex digits
            h = tolower(substr($3, length($3) - 1))
            hi = index("0123456789abcdef", substr(h, 1, 1)) - 1
            off = hi * 16 + index("0123456789abcdef", substr(h, 2, 1)) - 1
            if (off % 64 + $4 > 64) ++n
        } END { print n + 0 }' "$1")
    echo "lackey trace: $(grep -c '^ [LSM] ' "$1") data records, $modifies read-modify-writes" \
        "(M), $crossing crossing a 64 B line boundary"
    if [ "$modifies" -lt 1000 ] || [ "$crossing" -lt 1000 ]; then
        echo "FAIL: the workload made too few read-modify-writes or line-crossing references" >&2
        return 1
    fi
}

# csv_column CSV COLUMN [KEY_COLUMN KEY]: the column's values, one per row (of the rows whose
# KEY_COLUMN equals KEY, when given); "missing" when the CSV has no such column.
csv_column() {
    awk -F, -v want="$2" -v key="${3:-}" -v value="${4:-}" '
        NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        key == "" || $(col[key]) == value { print (want in col) ? $(col[want]) : "missing" }
    ' "$1"
}
