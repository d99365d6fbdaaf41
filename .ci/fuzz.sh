#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.cpp) with clang-14 under ASan + UBSan and runs
# each for a bounded time. Exits non-zero if any fuzzer crashes, leaks, times out or fails to
# build; the crashing input is kept in the fuzzer's artifact directory and its log is printed.
#
# Targets: the compressors' decoders, every trace reader, the explorer's option parser and the C
# interface (decompression, the policy handle's protocol checks, the DRAM controllers, policy
# settings text).
# sc2 and best_of (the largest input spaces: code books built from the input, five members)
# still found new coverage at 180 s, so they run longer (FUZZ_LONG_SECONDS), side by side first.
#
# Environment: FUZZ_SECONDS (per target, default 20), FUZZ_LONG_SECONDS (sc2 and best_of,
#              default 4.5 x FUZZ_SECONDS = 90), FUZZ_BUILD_DIR (default build-fuzz),
#              CXX (default clang++-14), FUZZ_JOBS (build parallelism, default 2),
#              FUZZ_PARALLEL (fuzzers run at once, default 2).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${FUZZ_SECONDS:-20}"
long_seconds="${FUZZ_LONG_SECONDS:-$((seconds * 9 / 2))}"
long_targets=(fuzz_sc2 fuzz_best_of)
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
seconds_for() { # name -> its fuzzing time
    local t
    for t in "${long_targets[@]}"; do [[ "$1" == "$t" ]] && { echo "$long_seconds"; return; }; done
    echo "$seconds"
}
run_one() { # name -> exit status of the fuzzer; its log is in $work/<name>/log.txt
    local name="$1"
    local corpus="$work/$name/corpus" artifacts="$work/$name/artifacts/"
    mkdir -p "$corpus" "$artifacts"
    "$fuzz_dir/$name" -max_total_time="$(seconds_for "$name")" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" >"$work/$name/log.txt" 2>&1
}
names=()
for t in "${long_targets[@]}"; do [[ -f "$root/tests/fuzz/$t.cpp" ]] && names+=("$t"); done
for src in "$root"/tests/fuzz/fuzz_*.cpp; do
    name="$(basename "$src" .cpp)"
    [[ " ${long_targets[*]} " == *" $name "* ]] || names+=("$name")
done
for ((i = 0; i < ${#names[@]}; i += parallel)); do
    batch=("${names[@]:i:parallel}")
    pids=()
    for name in "${batch[@]}"; do
        echo "== $name: $(seconds_for "$name")s"
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
echo "all ${#names[@]} fuzzers ran without a finding (${seconds}s each; ${long_targets[*]}: ${long_seconds}s)"
