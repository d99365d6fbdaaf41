#!/usr/bin/env bash
# The fully associative LRU miss-ratio curve, memsub against libCacheSim on the same trace, in
# alternating runs of the same session:
#   libCacheSim: its one-pass LRU profiler (get_lru_obj_miss_ratio: a splay tree over stack
#                distances), called by a small C driver this script compiles against the
#                checkout's static library, timed around open_trace + the profile;
#   memsub:      mrc_explorer --curves lru (stack_distance_lru fed by memsub's oracleGeneral
#                reader), timed around the whole program (reading, the curve and its table;
#                the curves are compared from one more, untimed run that writes every point).
# Prints each run's seconds, the median ratio libCacheSim ÷ memsub, and both curves' misses at
# power-of-four capacities (they must agree up to libCacheSim's one-hit difference above 16384
# lines, docs/mechanisms/miss_ratio_curves.md).
#
# Usage: scripts/compare_libcachesim_mrc.sh LIBCACHESIM_DIR [TRACE]
#   LIBCACHESIM_DIR  a libCacheSim source checkout (github:1a1a11a/libCacheSim); built here in
#                    Release into $WORK/libcachesim-build unless that holds liblibCacheSim.a
#   TRACE            an oracleGeneral trace (default: 5,000,000 requests made by
#                    tests/data/fully_associative/make_oracle_general.py into $WORK)
# Environment: WORK (default build/libcachesim-check), RUNS (default 3), BOUND (capacity bound
# in objects, default 1048576), JOBS (build parallelism, default 2).
# Needs Debian's libglib2.0-dev and libzstd-dev (libCacheSim's dependencies), cmake and gcc;
# installs the first two when run as root and they are missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,23p' "$0" >&2; exit 2; }
lcs_src="$(cd "$1" && pwd)"
trace="${2:-}"
work="${WORK:-$root/build/libcachesim-check}"
runs="${RUNS:-3}"
bound="${BOUND:-1048576}"
jobs="${JOBS:-2}"
mkdir -p "$work"

missing=()
for pkg in libglib2.0-dev libzstd-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
    else
        echo "compare_libcachesim_mrc: install ${missing[*]} (Debian) first" >&2
        exit 2
    fi
fi

lcs_build="$work/libcachesim-build"
if [ ! -f "$lcs_build/liblibCacheSim.a" ]; then
    echo "== building libCacheSim ($(git -C "$lcs_src" rev-parse --short HEAD 2>/dev/null ||
        echo 'not a git checkout')) in $lcs_build"
    cmake -S "$lcs_src" -B "$lcs_build" -DCMAKE_BUILD_TYPE=Release -DENABLE_TESTS=OFF >/dev/null
    cmake --build "$lcs_build" --target libCacheSim -j "$jobs" >/dev/null
fi

# The driver: open the trace, profile every capacity up to the bound, print the time and the
# misses at power-of-four capacities (miss ratio x requests, rounded).
cat >"$work/lcs_lru_curve.c" <<'EOF'
#include <libCacheSim.h>
#include <libCacheSim/profilerLRU.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  reader_t *reader = open_trace(argv[1], ORACLE_GENERAL_TRACE, NULL);
  const gint64 bound = atoll(argv[2]);
  double *mr = get_lru_obj_miss_ratio(reader, bound);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const gint64 n = get_num_of_req(reader);
  printf("seconds %.3f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  for (gint64 c = 1024; c <= bound; c *= 4) printf("misses %lld %.0f\n", (long long)c, round(mr[c] * (double)n));
  g_free(mr);
  close_trace(reader);
  return 0;
}
EOF
# shellcheck disable=SC2046
gcc -O2 -o "$work/lcs_lru_curve" "$work/lcs_lru_curve.c" -I"$lcs_src/libCacheSim/include" \
    -I"$lcs_build/include" $(pkg-config --cflags glib-2.0) "$lcs_build/liblibCacheSim.a" \
    $(pkg-config --libs glib-2.0) -lzstd -lm -lpthread -ldl

mrc="$root/build/release/examples/mrc_explorer"
if [ ! -x "$mrc" ]; then
    echo "== building memsub's mrc_explorer (Release) in build/release"
    cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$root/build/release" --target mrc_explorer -j "$jobs" >/dev/null
fi

if [ -z "$trace" ]; then
    trace="$work/mixed_5m.oracleGeneral.bin"
    [ -f "$trace" ] || python3 "$root/tests/data/fully_associative/make_oracle_general.py" \
        --requests 5000000 --output "$trace"
fi
echo "trace: $trace ($(($(stat -c %s "$trace") / 24)) requests), bound $bound objects"

now() { date +%s.%N; }
lcs_times=() memsub_times=()
for ((r = 1; r <= runs; ++r)); do
    "$work/lcs_lru_curve" "$trace" "$bound" >"$work/lcs.out"
    lcs_times+=("$(awk '/^seconds/ {print $2}' "$work/lcs.out")")
    t0=$(now)
    "$mrc" --quiet --curves lru --format oracleGeneral --max-capacity "$bound" "$trace" \
        >"$work/memsub.out"
    memsub_times+=("$(echo "$(now) - $t0" | bc)")
    echo "run $r: libCacheSim ${lcs_times[-1]} s, memsub ${memsub_times[-1]} s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
lm=$(median "${lcs_times[@]}")
mm=$(median "${memsub_times[@]}")
echo "median: libCacheSim $lm s, memsub $mm s: memsub is $(echo "scale=2; $lm / $mm" | bc) times as fast"
# Every point, for the comparison (not timed: the CSV has a row per capacity).
"$mrc" --quiet --curves lru --format oracleGeneral --max-capacity "$bound" \
    --csv "$work/memsub.csv" "$trace" >/dev/null
echo "misses at capacity (libCacheSim | memsub):"
while read -r _ c m; do
    mine=$(awk -F, -v c="$c" 'NR == 1 {for (i = 1; i <= NF; ++i) col[$i] = i; next}
        $col["curve"] == "lru" && $col["capacity_lines"] == c {print $col["misses"]}' \
        "$work/memsub.csv")
    echo "  $c: $m | ${mine:-?}"
done < <(grep '^misses' "$work/lcs.out")
