#!/bin/sh
# The speed table: memsub's FR-FCFS controller against DRAMSim3 on DDR4-2400 (the matched
# config), read latency and simulation time on the same traces. Not part of CI (nor of
# regenerate.sh, which writes figures.csv).
#
#   tests/data/dramsim3/speed.sh <DRAMSim3 source dir> [work dir] [reps]
#
# Needs what regenerate.sh needs (a DRAMSim3 checkout, cmake, a C++20 compiler). Steps: builds
# DRAMSim3's library twice from copies of the checkout (its CMakeLists writes the library next
# to its sources, so the checkout's own library is left alone): plain (Release, what is timed)
# and with its command trace (-DCMD_TRACE=ON: the bus turnarounds and bandwidth, as
# regenerate.sh, timed too for the record); builds make_traces.cpp, dramsim3_reference.cpp (its
# timing mode) and memsub_speed.cpp (-O3 -DNDEBUG, memsub's release flags); writes the traces
# (the fidelity suite's, plus three isolated reads: idle bank, row hit, row conflict at cycles
# 1000 / 1500 / 2000, as timing_test.cpp); runs each traced `reps` times (default 5) on both
# sides and prints the table. Timed on both sides: the simulation loop from the first offer to
# the last read returned (memsub: the last completion), the trace already in memory and the
# simulator constructed; the least CPU time of the runs. Raw lines: <work dir>/speed/*.csv.
set -eu
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=${2:-$(mktemp -d)}
reps=${3:-5}
root=$(cd "$here/../../.." && pwd)
mkdir -p "$work/speed"
for kind in plain cmdtrace; do
    if [ ! -f "$work/lib-$kind/libdramsim3.so" ]; then
        rm -rf "$work/src-$kind" && cp -r "$src" "$work/src-$kind" && rm -f "$work/src-$kind/libdramsim3.so"
        flag=OFF && [ "$kind" = cmdtrace ] && flag=ON
        cmake -S "$work/src-$kind" -B "$work/build-$kind" -DCMAKE_BUILD_TYPE=Release \
            -DCMD_TRACE=$flag >/dev/null
        cmake --build "$work/build-$kind" --target dramsim3 -j 1 >/dev/null
        mkdir -p "$work/lib-$kind" && cp "$work/src-$kind/libdramsim3.so" "$work/lib-$kind/"
    fi
    c++ -std=c++17 -O3 -DNDEBUG -isystem "$src/src" -isystem "$src/ext/headers" \
        -o "$work/dramsim3_reference_$kind" "$here/dramsim3_reference.cpp" \
        -L"$work/lib-$kind" -ldramsim3 -Wl,-rpath,"$work/lib-$kind"
done
c++ -std=c++20 -O2 -o "$work/make_traces" "$here/make_traces.cpp"
c++ -std=c++20 -O3 -DNDEBUG -I"$root/include" -o "$work/memsub_speed" "$here/memsub_speed.cpp"
"$work/make_traces" "$work/traces"
# Isolated reads ("rochrababgco": the row starts at bit 17): bank 0 row 0 column 0 (idle bank),
# column 1 (row hit), row 1 (row conflict).
printf '0x0 READ 1000\n0x40 READ 1500\n0x20000 READ 2000\n' > "$work/traces/ddr4/isolated.trace"
ini="$here/DDR4_8Gb_x8_2400_memsub.ini"
: > "$work/speed/dramsim3.csv"
: > "$work/speed/dramsim3_cmdtrace.csv"
: > "$work/speed/memsub.csv"
for n in isolated read_random_g20 read_stream_g4 mix70_random_g8; do
    t="$work/traces/ddr4/$n.trace"
    # DDR4 column command -> end of its data burst: RL 16 + 4, WL 12 + 4 (as regenerate.sh).
    "$work/dramsim3_reference_plain" "$ini" "$t" "$work/out/plain/$n" "$n" 20 16 "$reps" \
        | tail -n 1 >> "$work/speed/dramsim3.csv"
    "$work/dramsim3_reference_cmdtrace" "$ini" "$t" "$work/out/cmdtrace/$n" "$n" 20 16 1 \
        | tail -n 1 >> "$work/speed/dramsim3_cmdtrace.csv"
    "$work/memsub_speed" ddr4 "$t" "$n" "$reps" >> "$work/speed/memsub.csv"
done
echo "DRAMSim3 (plain; cmdtrace for turnarounds): name,requests,reads,mean,p50,p95,row_hit_rate,bytes_per_cycle,turnarounds,column_commands,refused,cpu_min_s,cpu_median_s,wall_min_s[,latencies]"
cat "$work/speed/dramsim3.csv" "$work/speed/dramsim3_cmdtrace.csv"
echo "memsub: name,params,requests,reads,mean,p50,p95,row_hit_rate,bytes_per_cycle,turnarounds,refused,cpu_min_s,cpu_median_s,wall_min_s[,latencies]"
cat "$work/speed/memsub.csv"
echo
# The table: read latency mean / p95 (isolated: each read's), turnarounds, refused offers, least
# CPU time, and the speed ratio DRAMSim3 CPU time / memsub CPU time (× faster).
awk -F, '
FNR == 1 { ++f }
f == 1 { ta[$1] = $9; tcpu[$1] = $12; next }
f == 2 { order[++k] = $1; d[$1] = ($15 != "" ? $15 : sprintf("%.1f / %d", $4, $6)); dref[$1] = $11; dcpu[$1] = $12; next }
{ key = $1 "," $2; m[key] = ($15 != "" ? $15 : sprintf("%.1f / %d", $5, $7)); mta[key] = $10; mref[key] = $11; mcpu[key] = $12 }
END {
    print "| trace | memsub dramsim3_params | memsub default | DRAMSim3 | turnarounds (d3p / default / DRAMSim3) | refused offers (d3p / default / DRAMSim3) | CPU ms (d3p / default / DRAMSim3 / DRAMSim3 CMD_TRACE) | speed vs DRAMSim3 (d3p / default) |"
    print "|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= k; ++i) {
        n = order[i]; a = n ",dramsim3_params"; b = n ",default"
        printf "| %s | %s | %s | %s | %s / %s / %s | %s / %s / %s | %.3g / %.3g / %.3g / %.3g | ×%.1f / ×%.1f |\n", n, m[a], m[b], d[n], mta[a], mta[b], ta[n], mref[a], mref[b], dref[n], 1e3 * mcpu[a], 1e3 * mcpu[b], 1e3 * dcpu[n], 1e3 * tcpu[n], (mcpu[a] > 0 ? dcpu[n] / mcpu[a] : 0), (mcpu[b] > 0 ? dcpu[n] / mcpu[b] : 0)
    }
}' "$work/speed/dramsim3_cmdtrace.csv" "$work/speed/dramsim3.csv" "$work/speed/memsub.csv"
