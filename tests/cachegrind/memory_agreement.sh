#!/usr/bin/env bash
# memory_explorer's LLC against valgrind's cachegrind (ctest
# "memory_explorer_llc_matches_cachegrind", registered in examples/CMakeLists.txt).
#
#   memory_agreement.sh MEMORY_EXPLORER COMPILER WORKLOAD_SOURCE WORK_DIR
#
# A real program's lackey trace (tests/cachegrind/workload.c: line-crossing references,
# read-modify-writes): the LLC shaped as cachegrind's D1 (--D1=32768,8,64) must give its accesses
# and misses exactly, the same through a pipe ("-" and /dev/stdin), and every memory
# configuration must receive one request per line fill and writeback. Prints "same: ..." per
# check, "DIFFER: ..." for one that fails.
set -euo pipefail

if [ $# -ne 4 ]; then
    echo "usage: memory_agreement.sh MEMORY_EXPLORER COMPILER WORKLOAD_SOURCE WORK_DIR" >&2
    exit 2
fi
explorer=$1 compiler=$2 workload_c=$3 work=$4

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mkdir -p "$work"
cd "$work"
capture_workload "$compiler" "$workload_c" --D1=32768,8,64

status=0
check_workload_trace trace.lackey || status=1
run() { # memory_explorer on the trace given as "$@", CSV to m.csv
    "$explorer" --quiet --sets 64 --ways 8 --cdf cdf.svg --csv m.csv "$@" >/dev/null
}
column() { csv_column m.csv "$1" | sort -u; } # every distinct value of column $1 of m.csv
check() {
    if [ "$2" = "$3" ]; then echo "same: $1 $2"; else echo "DIFFER: $1 $2 vs $3"; status=1; fi
}
run trace.lackey
check "accesses (cachegrind Dr + Dw, memory_explorer llc_accesses)" "$(cachegrind_value Dr Dw)" \
    "$(column llc_accesses)"
check "misses (cachegrind D1mr + D1mw, memory_explorer llc_misses)" \
    "$(cachegrind_value D1mr D1mw)" "$(column llc_misses)"
check "requests of every configuration, and line fills + writebacks" "$(column requests)" \
    "$(($(column llc_line_fills) + $(column llc_writebacks)))"
sed 's/,trace\.lackey,/,TRACE,/' m.csv >file.csv
cat trace.lackey | run -
check "CSV through a pipe (-) and from the file" \
    "$(sed 's/,standard input,/,TRACE,/' m.csv | md5sum)" "$(md5sum <file.csv)"
cat trace.lackey | run /dev/stdin
check "CSV through /dev/stdin and from the file" "$(sed 's|,/dev/stdin,|,TRACE,|' m.csv | md5sum)" \
    "$(md5sum <file.csv)"
exit $status
