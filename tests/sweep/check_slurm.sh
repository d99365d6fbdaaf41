#!/usr/bin/env bash
# memsub_sweep on Slurm: the same sweep run here and as a job array on a one-node cluster
# (scripts/slurm_local_cluster.sh) gathers equal results, all columns but the timing ones;
# a second submission runs only the configurations whose fragments are gone; gather names a
# configuration that has no fragment with its Slurm state, and a task Slurm stopped (cancelled)
# as not finished, with no fragment and no failure record.
#   tests/sweep/check_slurm.sh EXPLORER_PATH   (default: $MEMSUB_EXPLORER, else build/release)
# Needs root (the cluster script installs and starts Slurm). The cluster is stopped at the end
# when this script started it.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
export MEMSUB_EXPLORER="${1:-${MEMSUB_EXPLORER:-$repo/build/release/examples/explorer}}"
[ -x "$MEMSUB_EXPLORER" ] || { echo "check_slurm: no explorer at $MEMSUB_EXPLORER" >&2; exit 1; }
sweep="$repo/scripts/memsub_sweep"
# Debian's interpreter, whatever python3 comes first on PATH (the job script records this one).
py=/usr/bin/python3
[ -x $py ] || py=python3

# The results folder must be on a filesystem the nodes share: here the one node is this machine.
work=$(mktemp -d "${TMPDIR:-/tmp}/memsub_check_slurm.XXXXXX")
started=0
cleanup() {
    [ $started -eq 1 ] && scripts/slurm_local_cluster.sh stop >/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

if ! scripts/slurm_local_cluster.sh status >/dev/null 2>&1; then
    scripts/slurm_local_cluster.sh start
    started=1
fi

# The sweep of tests/sweep/test_sweep.py's first case: 2 policies x 2 geometries x (the
# built-in mix, a small trace file) = 8 configurations.
$py - "$work/tiny.txt" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("# memsub plain-text trace\n")
    for i in range(3000):
        f.write(f"0x{(i * 4160 + (i % 7) * 64) % 65536:x} {'W' if i % 5 == 0 else 'R'}\n")
EOF
cat >"$work/small.toml" <<'EOF'
policies = ["lru", "srrip"]
traces = ["builtin", "tiny.txt"]
[builtin]
accesses = 30000
seed = 7
[[geometry]]
sets = [16, 64]
ways = 4
EOF

compare() { # two results.json: equal but for the timing columns
    $py - "$1" "$2" <<'EOF'
import json, sys
timing = {"seconds", "accesses_per_second"}
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda d: [{k: v for k, v in r.items() if k not in timing} for r in d["rows"]]
assert a["columns"] == b["columns"], (a["columns"], b["columns"])
assert len(a["rows"]) == 8, len(a["rows"])
assert strip(a) == strip(b), "local and Slurm results differ"
print(f"check_slurm: {len(a['rows'])} rows equal ({len(a['columns']) - len(timing)} columns "
      "compared, timing columns left out)")
EOF
}

echo "check_slurm: local run"
$py "$sweep" run "$work/small.toml" --results "$work/local" --jobs 2
echo "check_slurm: Slurm run"
t0=$(date +%s)
$py "$sweep" run "$work/small.toml" --results "$work/slurm" --slurm --wait --time 5
echo "check_slurm: the job array ran and was gathered in $(( $(date +%s) - t0 )) s"
compare "$work/local/results.json" "$work/slurm/results.json"

# Resume on Slurm: two fragments removed, the next submission's array holds exactly those two.
mapfile -t listing < <($py "$sweep" list "$work/small.toml")
gone=()
for i in 2 5; do
    id=$(cut -f2 <<<"${listing[$i]}")
    rm "$work/slurm/configs/$id.json"
    gone+=("$id")
done
# Before resubmitting, gather names them as not finished, with their (completed) Slurm task.
if out=$($py "$sweep" gather "$work/small.toml" --results "$work/slurm" 2>&1); then
    echo "check_slurm: gather succeeded with two fragments missing" >&2; exit 1
fi
for id in "${gone[@]}"; do
    grep -q "not finished: $id (Slurm: COMPLETED (job [0-9]*_[0-9]*))" <<<"$out" ||
        { echo "check_slurm: gather did not name $id with its Slurm state:" >&2; echo "$out" >&2; exit 1; }
done
$py "$sweep" run "$work/small.toml" --results "$work/slurm" --slurm --wait
grep -qx '#SBATCH --array=2,5' "$work/slurm/slurm/job.sh" ||
    { echo "check_slurm: the resubmitted array is not 2,5:" >&2; cat "$work/slurm/slurm/job.sh" >&2; exit 1; }
compare "$work/local/results.json" "$work/slurm/results.json"

# Nothing left: nothing is submitted.
out=$($py "$sweep" run "$work/small.toml" --results "$work/slurm" --slurm --wait 2>&1)
grep -q "nothing to submit" <<<"$out" || { echo "check_slurm: $out" >&2; exit 1; }
# A task Slurm stops (a time limit or scancel: SIGTERM, then SIGKILL) leaves no fragment and no
# failure record; gather names it as not finished with its Slurm state. scancel stands in for
# the time limit, whose shortest value (1 minute) would make this check slow.
cat >"$work/slow.toml" <<'EOF2'
policies = ["lru"]
traces = ["builtin"]
[builtin]
accesses = 1000000000000
[[geometry]]
sets = 1024
ways = 16
EOF2
job=$($py "$sweep" run "$work/slow.toml" --results "$work/slow" --slurm)
for _ in $(seq 1 60); do
    [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break
    sleep 0.5
done
sleep 2 # the task has started its explorer
scancel "$job"
for _ in $(seq 1 60); do
    [ -z "$(squeue -h -j "$job" -t PENDING,RUNNING,COMPLETING -o %T 2>/dev/null)" ] && break
    sleep 0.5
done
slow_id=$($py "$sweep" list "$work/slow.toml" | cut -f2)
if out=$($py "$sweep" gather "$work/slow.toml" --results "$work/slow" 2>&1); then
    echo "check_slurm: gather succeeded for a cancelled task" >&2; exit 1
fi
grep -q "not finished: $slow_id (Slurm: CANCELLED (job ${job}_0))" <<<"$out" ||
    { echo "check_slurm: gather did not name the cancelled task:" >&2; echo "$out" >&2; exit 1; }
[ -z "$(find "$work/slow/configs" "$work/slow/failed" -type f)" ] ||
    { echo "check_slurm: the cancelled task left a fragment or a failure record" >&2; exit 1; }
grep -q "stopped by SIGTERM" "$work/slow/slurm/logs/${job}_0.out" ||
    { echo "check_slurm: the task did not stop on SIGTERM:" >&2; cat "$work/slow/slurm/logs/${job}_0.out" >&2; exit 1; }
echo "check_slurm: ok"
