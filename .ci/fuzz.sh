#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.cpp) with clang-14 under ASan + UBSan and runs
# each for a bounded time. Exits non-zero if any fuzzer crashes, leaks, times out or fails to
# build; the crashing input is kept in the fuzzer's artifact directory and its log is printed.
#
# Environment: FUZZ_SECONDS (per target, default 20), FUZZ_BUILD_DIR (default build-fuzz),
#              CXX (default clang++-14), FUZZ_JOBS (build parallelism, default 2),
#              FUZZ_PARALLEL (fuzzers run at once, default 2).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${FUZZ_SECONDS:-20}"
cxx="${CXX:-clang++-14}"
jobs="${FUZZ_JOBS:-2}"

cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DMEMSUB_BUILD_FUZZERS=ON \
    -DMEMSUB_BUILD_TESTS=OFF -DMEMSUB_BUILD_EXAMPLES=OFF -DMEMSUB_BUILD_BENCHMARKS=OFF \
    -DMEMSUB_INSTALL=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target memsub_fuzzers

fuzz_dir="$build/tests/fuzz"
work="$build/fuzz-runs"
mkdir -p "$work"
failed=()
# One fuzzer per core at a time (FUZZ_PARALLEL, default 2): each run is bounded by its own time.
parallel="${FUZZ_PARALLEL:-2}"
run_one() { # name -> exit status of the fuzzer; its log is in $work/<name>/log.txt
    local name="$1"
    local corpus="$work/$name/corpus" artifacts="$work/$name/artifacts/"
    mkdir -p "$corpus" "$artifacts"
    "$fuzz_dir/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" >"$work/$name/log.txt" 2>&1
}
names=()
for src in "$root"/tests/fuzz/fuzz_*.cpp; do names+=("$(basename "$src" .cpp)"); done
for ((i = 0; i < ${#names[@]}; i += parallel)); do
    batch=("${names[@]:i:parallel}")
    pids=()
    for name in "${batch[@]}"; do
        echo "== $name: ${seconds}s"
        mkdir -p "$work/$name"
        run_one "$name" &
        pids+=($!)
    done
    for k in "${!batch[@]}"; do
        name="${batch[$k]}"
        status=0
        wait "${pids[$k]}" || status=$?
        log="$work/$name/log.txt"
        echo "-- $name:"
        grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
        if [[ $status -ne 0 ]]; then
            echo "!! $name exited with status $status; log follows" >&2
            tail -n 60 "$log" >&2
            failed+=("$name")
        fi
    done
done

if [[ ${#failed[@]} -ne 0 ]]; then
    echo "fuzzing failed: ${failed[*]}" >&2
    exit 1
fi
echo "all fuzzers ran ${seconds}s without a finding"
