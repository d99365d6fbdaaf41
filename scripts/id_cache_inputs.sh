#!/usr/bin/env bash
# Re-runs the ID-Cache comparison of gpu_l1_explorer ([Dissertation] ch. 3: the L1 configurations
# from the 16 KB baseline to ID-Cache) on input shapes beyond its defaults, and writes every
# run's rows into one CSV.
#
#   scripts/id_cache_inputs.sh [OUT_CSV]          (default: id_cache_inputs.csv)
#
# Inputs (generated, deterministic for their seed; --help of gpu_l1_explorer describes each):
#   BFS   R-MAT, seeds 1, 2, 3 x 2^12, 2^14, 2^16 vertices (edge factor 8)
#         Barabasi-Albert (8 edges per new vertex), Erdos-Renyi (mean degree 16): 2^14 vertices
#         a 128 x 128 grid (2^14 vertices, 4 neighbours)
#   SpMV  power-law, banded (half-bandwidth 4, 8, 16) and uniform-random (16 per row): 32768 rows
#         the 5-point 2-D Laplacian of a 181 x 181 grid (32761 rows)
# The CSV is gpu_l1_explorer's (one row per run, kernel and configuration; its input column names
# the input) with a first column, run, holding the options of the run that wrote the row.
# Environment: EXPLORER (default build/release/examples/gpu_l1_explorer, built with the release
# preset when missing), SMS (default 15, Table 3.1), SEEDS (default "1 2 3", R-MAT's seeds).
# A run that fails stops the script with its exit status; the rows written so far are kept.
set -euo pipefail

out="${1:-id_cache_inputs.csv}"
explorer="${EXPLORER:-build/release/examples/gpu_l1_explorer}"
sms="${SMS:-15}"
seeds="${SEEDS:-1 2 3}"

if [ ! -x "$explorer" ]; then
    if [ -n "${EXPLORER:-}" ]; then
        echo "id_cache_inputs: EXPLORER=$explorer is not an executable" >&2
        exit 2
    fi
    echo "id_cache_inputs: building gpu_l1_explorer (release preset)" >&2
    cmake --preset release >/dev/null
    cmake --build --preset release --target gpu_l1_explorer >&2
fi

runs=()
for seed in $seeds; do
    for vertices in 4096 16384 65536; do
        runs+=("--kernels bfs --graph-gen rmat --vertices $vertices --seed $seed")
    done
done
runs+=("--kernels bfs --graph-gen ba --vertices 16384 --edges-per-vertex 8")
runs+=("--kernels bfs --graph-gen er --vertices 16384 --mean-degree 16")
runs+=("--kernels bfs --graph-gen grid --grid-size 128x128")
runs+=("--kernels spmv --matrix-gen power-law --rows 32768")
for half in 4 8 16; do
    runs+=("--kernels spmv --matrix-gen banded --rows 32768 --half-bandwidth $half")
done
runs+=("--kernels spmv --matrix-gen uniform --rows 32768 --nonzeros-per-row 16")
runs+=("--kernels spmv --matrix-gen laplacian --laplacian-size 181x181")

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
: >"$out"
n=0
for run in "${runs[@]}"; do
    n=$((n + 1))
    echo "id_cache_inputs: run $n of ${#runs[@]}: $run" >&2
    # shellcheck disable=SC2086 # each run is a list of options
    "$explorer" --quiet --sms "$sms" $run --csv "$tmp"
    # The header once, then each row behind its run's options.
    awk -v run="$run" -v first="$n" 'NR == 1 { if (first == 1) print "run," $0; next }
                                     { print "\"" run "\"," $0 }' "$tmp" >>"$out"
done
echo "id_cache_inputs: wrote $out ($n runs)" >&2
