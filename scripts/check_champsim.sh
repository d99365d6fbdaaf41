#!/usr/bin/env bash
# Builds a ChampSim checkout with memsub's replacement module and compares, on one trace,
# ChampSim's own LLC policies with memsub's of the same name inside ChampSim:
#
#   scripts/check_champsim.sh CHAMPSIM_DIR [TRACE]
#
# CHAMPSIM_DIR is a checkout of github:ChampSim/ChampSim; it is copied, never changed. TRACE is
# a ChampSim trace (.xz, .gz or plain); without one, a trace is made from a Valgrind Lackey
# capture of GNU sort (scripts/lackey_to_champsim.py). Environment: WORK_DIR (default
# build/champsim-check), WARMUP and INSTRUCTIONS (default 5000000 and 20000000), EXTRA_POLICIES
# (memsub policies that are only run, default "drrip ship remap"), REUSE_BUILD=1 (keep an earlier
# run's ChampSim build, refreshing only the module).
#
# It prints, per pair, every LLC statistics line that differs (none: "equal") and whether the
# rest of the output is equal too, and exits 1 if a pair's LLC lines differ. ChampSim's own configuration is used unchanged but for the LLC's policy.
#
# What it changes in the copy, and why (each is printed when done):
#   * Debian's packages instead of vcpkg: CLI11 is header-only (no -lCLI11), and the include
#     options name inc/ only.
#   * ChampSim snapshots up to at least May 2025 drop the fill notification of a module that
#     has no replacement_cache_fill (its srrip, drrip, ship): update_replacement_state is only
#     called for hits, so those policies insert every line as if never updated. The check
#     patches inc/cache.h to call it on fills too, as ChampSim's documentation describes.
set -euo pipefail
cd "$(dirname "$0")/.."
memsub_root=$PWD

if [ $# -lt 1 ] || [ ! -f "$1/champsim_config.json" ]; then
    echo "usage: scripts/check_champsim.sh CHAMPSIM_DIR [TRACE]" >&2
    echo "  CHAMPSIM_DIR: a checkout of https://github.com/ChampSim/ChampSim" >&2
    exit 2
fi
champsim_src=$(cd "$1" && pwd)
trace=${2:-}
[ -z "$trace" ] || trace=$(cd "$(dirname "$trace")" && pwd)/$(basename "$trace")
work=${WORK_DIR:-$memsub_root/build/champsim-check}
warmup=${WARMUP:-5000000}
instructions=${INSTRUCTIONS:-20000000}
extra_policies=${EXTRA_POLICIES:-drrip ship remap}
jobs=${JOBS:-2}
mkdir -p "$work"

need=(libfmt-dev libcli11-dev nlohmann-json3-dev libbz2-dev liblzma-dev zlib1g-dev cmake g++ make)
[ -n "$trace" ] || need+=(valgrind)
missing=()
for p in "${need[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
        echo "check_champsim: missing Debian packages: sudo apt-get install ${missing[*]}" >&2
        exit 2
    fi
fi

echo "== memsub's C interface library (memsub::host), installed into $work/memsub"
cmake -S "$memsub_root" -B "$work/memsub-build" -DCMAKE_BUILD_TYPE=Release -DMEMSUB_HOST=ON \
    -DMEMSUB_BUILD_TESTS=OFF -DMEMSUB_BUILD_EXAMPLES=OFF -DMEMSUB_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$work/memsub-build" --target memsub_host -j "$jobs"
cmake --install "$work/memsub-build" --prefix "$work/memsub" >/dev/null
libdir=$(dirname "$(find "$work/memsub" -name 'libmemsub_host.so*' | head -1)")

if [ "${REUSE_BUILD:-0}" = 1 ] && [ -x "$work/champsim/bin/champsim_memsub" ]; then
    echo "== reusing the ChampSim build in $work/champsim (REUSE_BUILD=1)"
    cp "$memsub_root"/include/memsub/host/champsim/memsub/* "$work/champsim/replacement/memsub/"
    (cd "$work/champsim" && make -j "$jobs" CPPFLAGS="-I$work/memsub/include" \
        LDFLAGS="-L$libdir -Wl,-rpath,$libdir" LDLIBS="-lmemsub_host" >>"$work/champsim-build.log" 2>&1)
    cd "$work/champsim"
else
echo "== ChampSim copied to $work/champsim with the module in replacement/memsub"
rm -rf "$work/champsim"
if git -C "$champsim_src" rev-parse --git-dir >/dev/null 2>&1; then
    mkdir -p "$work/champsim"
    git -C "$champsim_src" archive HEAD | tar -x -C "$work/champsim"
    echo "ChampSim commit $(git -C "$champsim_src" rev-parse HEAD)"
else
    cp -a "$champsim_src" "$work/champsim"
fi
cp -r "$memsub_root/include/memsub/host/champsim/memsub" "$work/champsim/replacement/memsub"
cd "$work/champsim"
if [ ! -d vcpkg_installed ]; then
    sed -i 's/-lCLI11 //' Makefile
    echo "-I$PWD/inc" > absolute.options
    echo "patched: Debian's packages instead of vcpkg (no -lCLI11; absolute.options names inc/)"
fi
if grep -q 'if (hit || replacement::has_cache_fill<' inc/cache.h; then
    # The fill path's fallback goes through impl_update_replacement_state, whose guard drops
    # every non-hit call of such a module: call the module's update_replacement_state itself.
    python3 - <<'PATCH'
import sys
path = "inc/cache.h"
text = open(path).read()
old = """    else
      impl_update_replacement_state(triggering_cpu, set, way, full_addr, ip, victim_addr, type, false);"""
new = """    else if constexpr (replacement::has_update_state<decltype(r), uint32_t, long, long, champsim::address, champsim::address, champsim::address,
                                                     access_type, bool>)
      r.update_replacement_state(triggering_cpu, set, way, full_addr, ip, victim_addr, type, false);
    else
      impl_update_replacement_state(triggering_cpu, set, way, full_addr, ip, victim_addr, type, false);"""
if text.count(old) != 1:
    sys.exit("check_champsim: inc/cache.h's fill fallback is not where expected; patch it by hand")
open(path, "w").write(text.replace(old, new))
PATCH
    echo "patched: inc/cache.h notifies modules without replacement_cache_fill of their fills"
fi

configs=()
for llc in lru srrip memsub; do
    python3 - "$llc" <<'EOF'
import json, sys
llc = sys.argv[1]
c = json.load(open("champsim_config.json"))
c["LLC"]["replacement"] = llc
c["executable_name"] = "champsim_" + llc
json.dump(c, open("check_" + llc + ".json", "w"), indent=2)
EOF
    configs+=("check_$llc.json")
done
./config.sh --join chain "${configs[@]}" >/dev/null
echo "== building ChampSim (3 configurations)"
make -j "$jobs" CPPFLAGS="-I$work/memsub/include" LDFLAGS="-L$libdir -Wl,-rpath,$libdir" \
    LDLIBS="-lmemsub_host" >"$work/champsim-build.log" 2>&1 || {
    tail -30 "$work/champsim-build.log" >&2
    exit 1
}
fi

if [ -z "$trace" ]; then
    trace=$work/sort.champsimtrace.gz
    if [ ! -f "$trace" ]; then
        echo "== making a trace: GNU sort of 40,000 lines under Valgrind Lackey"
        python3 -c "
import random
random.seed(2026)
with open('$work/sort-input.txt', 'w') as f:
    for i in range(40000):
        f.write('%08d %s\n' % (random.randrange(10**8), 'x' * random.randrange(40, 120)))
"
        # The converter stops after the instructions it needs; valgrind then dies of SIGPIPE,
        # which is expected (|| true), so only the converter's and gzip's statuses count.
        (LC_ALL=C valgrind --tool=lackey --trace-mem=yes --log-fd=3 \
            sort --parallel=1 -S 64M "$work/sort-input.txt" -o /dev/null 3>&1 1>/dev/null ||
            true) |
            python3 "$memsub_root/scripts/lackey_to_champsim.py" --skip 20000000 \
                --count $((warmup + instructions)) | gzip -1 >"$trace.part"
        mv "$trace.part" "$trace"
    fi
fi
echo "trace: $trace"

run() { # run NAME [ENV...]: ChampSim binary NAME on the trace; its LLC lines into NAME.llc
    local name=$1 label=$2
    shift 2
    env "$@" "bin/champsim_$name" --warmup-instructions "$warmup" \
        --simulation-instructions "$instructions" "$trace" >"$work/$label.out" 2>&1
    grep -E '^(LLC|cpu0->LLC) ' "$work/$label.out" | grep -v '^LLC memsub policy' >"$work/$label.llc" || true
    # Everything but wall-clock times, heartbeats and the module's own line.
    grep -vE 'Simulation time|^Heartbeat|memsub policy' "$work/$label.out" >"$work/$label.all" || true
    grep -E 'memsub policy' "$work/$label.out" || true
}
status=0
compare() { # compare A B: every LLC line equal, then the whole output
    if diff -u "$work/$1.llc" "$work/$2.llc" >"$work/$1-vs-$2.diff"; then
        echo "$1 vs $2: equal ($(wc -l <"$work/$1.llc") LLC statistics lines)"
        if diff -q "$work/$1.all" "$work/$2.all" >/dev/null; then
            echo "$1 vs $2: the whole output is equal too ($(wc -l <"$work/$1.all") lines, wall-clock times and heartbeats aside)"
        else
            echo "$1 vs $2: other lines differ (diff $work/$1.all $work/$2.all)"
        fi
    else
        echo "$1 vs $2: DIFFERENT (see $work/$1-vs-$2.diff):"
        grep '^[-+][^-+]' "$work/$1-vs-$2.diff" | head -20
        status=1
    fi
}
echo "== running $((warmup / 1000000)) M warm-up + $((instructions / 1000000)) M instructions"
run lru champsim_lru
run srrip champsim_srrip
run memsub memsub_lru MEMSUB_POLICY_LLC=lru MEMSUB_WRITEBACK_HITS=ignore
run memsub memsub_srrip MEMSUB_POLICY_LLC=srrip
compare champsim_lru memsub_lru
compare champsim_srrip memsub_srrip
for p in $extra_policies; do
    run memsub "memsub_$p" MEMSUB_POLICY_LLC="$p"
    echo "memsub $p: $(grep -E '(^|->)LLC TOTAL' "$work/memsub_$p.llc" | head -1)"
done
echo "ChampSim's LLC TOTAL lines: lru $(grep -E '(^|->)LLC TOTAL' "$work/champsim_lru.llc" | head -1 | tr -s ' ')"
echo "                           srrip $(grep -E '(^|->)LLC TOTAL' "$work/champsim_srrip.llc" | head -1 | tr -s ' ')"
exit $status
