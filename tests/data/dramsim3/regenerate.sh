#!/bin/sh
# Regenerates tests/data/dramsim3/figures.csv, the reference figures of the fidelity suite
# (tests/memory/fidelity_test.cpp), from DRAMSim3. CI never runs this: the figures are committed.
#
#   tests/data/dramsim3/regenerate.sh <DRAMSim3 source dir> [work dir]
#
# Needs a DRAMSim3 checkout (github.com/umd-memsys/DRAMsim3; the committed figures come from
# commit 29817593b3389f1337235d63cac515024ab8fd6e), cmake and a C++17 compiler. Steps: builds
# DRAMSim3's library with its command trace on (-DCMD_TRACE=ON: the bus turnarounds are counted
# from it), builds make_traces.cpp and dramsim3_reference.cpp, writes the traces, runs each
# through DRAMSim3 with the matched configs here, and writes figures.csv.
set -eu
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=${2:-$(mktemp -d)}
mkdir -p "$work"
cmake -S "$src" -B "$work/dramsim3" -DCMAKE_BUILD_TYPE=Release -DCMD_TRACE=ON >/dev/null
cmake --build "$work/dramsim3" --target dramsim3 -j 2 >/dev/null
# DRAMSim3's CMakeLists writes the library next to its sources.
mkdir -p "$work/lib" && cp "$src/libdramsim3.so" "$work/lib/"
c++ -std=c++20 -O2 -o "$work/make_traces" "$here/make_traces.cpp"
c++ -std=c++17 -O2 -I"$src/src" -I"$src/ext/headers" -o "$work/dramsim3_reference" \
    "$here/dramsim3_reference.cpp" -L"$work/lib" -ldramsim3 -Wl,-rpath,"$work/lib"
"$work/make_traces" "$work/traces"
out="$here/figures.csv"
echo "# DRAMSim3 $(git -C "$src" rev-parse HEAD 2>/dev/null || echo 29817593b3389f1337235d63cac515024ab8fd6e) reference figures; regenerate.sh" > "$out"
echo "memory,trace,requests,reads,read_mean,read_p50,read_p95,row_hit_rate,bytes_per_cycle,turnarounds,column_commands" >> "$out"
# Column command -> end of its data burst: DDR4 RL 16 + 4, WL 12 + 4; HBM2 RL 14 + 2, WL 4 + 2.
for t in "$work"/traces/ddr4/*.trace; do
    n=$(basename "$t" .trace)
    printf 'ddr4,' >> "$out"
    "$work/dramsim3_reference" "$here/DDR4_8Gb_x8_2400_memsub.ini" "$t" "$work/out/ddr4/$n" "$n" 20 16 \
        | tail -n 1 >> "$out"
done
for t in "$work"/traces/hbm2/*.trace; do
    n=$(basename "$t" .trace)
    printf 'hbm2,' >> "$out"
    "$work/dramsim3_reference" "$here/HBM2_4Gb_x128_memsub.ini" "$t" "$work/out/hbm2/$n" "$n" 16 6 \
        | tail -n 1 >> "$out"
done
cat "$out"
