#!/usr/bin/env python3
# %% [markdown]
# # memsub from Python: a tour
#
# Run it as a script or open it as a notebook (VS Code, Jupyter with jupytext: each `# %%` is a
# cell). It needs the built module on PYTHONPATH (docs/embedding/python.md):
#
#     PYTHONPATH=build/release/python /usr/bin/python3 examples/python/notebook_tour.py [TRACE]
#
# With a trace file (any format memsub reads: lackey, din, text, u64, oracleGeneral, champsim)
# it studies that trace; without one it makes a workload like the explorer's built-in mix.

# %%
import argparse
import time

import numpy as np

import memsub

parser = argparse.ArgumentParser(description="memsub's Python tour")
parser.add_argument("trace", nargs="?", help="a trace file (default: a synthetic mix)")
parser.add_argument("--accesses", type=int, default=2_000_000,
                    help="accesses of the synthetic mix, or the most read from the trace")
parser.add_argument("--plot", default="mrc.png", help="where the MRC plot goes (matplotlib)")
args = parser.parse_args()

# %% [markdown]
# ## The stream
# A trace becomes a dict of NumPy arrays; the synthetic mix is a zipf hot set interleaved with
# a loop 1.25x a 2 MiB cache and a scan, a quarter of the accesses stores.

# %%
if args.trace:
    trace = memsub.read_trace(args.trace, limit=args.accesses)
    addresses, kinds, pcs = trace["address"], trace["kind"], trace["pc"]
    source = f"{args.trace} ({trace['format']})"
else:
    rng = np.random.default_rng(2026)
    n = args.accesses
    choice = rng.random(n)
    hot = (rng.zipf(1.2, n) % 20000).astype(np.uint64)
    loop = (np.arange(n, dtype=np.uint64) % 40960) + np.uint64(1 << 20)
    scan = np.arange(n, dtype=np.uint64) + np.uint64(1 << 28)
    addresses = np.where(choice < 0.55, hot, np.where(choice < 0.85, loop, scan)) * np.uint64(64)
    kinds = np.where(rng.random(n) < 0.25, memsub.STORE, memsub.LOAD).astype(np.uint8)
    pcs = (0x400000 + 4 * (rng.zipf(1.5, n) % 256)).astype(np.uint64)
    source = "synthetic mix (zipf 55% / loop 30% / scan 15%)"
print(f"stream: {source}, {len(addresses)} accesses, "
      f"{len(np.unique(addresses // 64))} distinct 64-byte lines")

# %% [markdown]
# ## Policies compared on a 2 MiB 16-way LLC
# One call per policy runs the whole array in C++. OPT's next uses come from the same array.

# %%
sets, ways = 2048, 16
policies = [p for p in memsub.policy_names(sets=sets, ways=ways)
            if p in ("lru", "fifo", "random", "tree_plru", "srrip", "brrip", "drrip", "ship", "opt")]
rows = []
for policy in policies:
    cache = memsub.Cache(policy, sets=sets, ways=ways)
    start = time.perf_counter()
    cache.access(addresses, kinds, pcs=pcs)
    seconds = time.perf_counter() - start
    rows.append((policy, cache.stats(), len(addresses) / seconds / 1e6))
opt_misses = next(s["misses"] for p, s, _ in rows if p == "opt")
print(f"\n{'policy':<10} {'misses':>10} {'miss ratio':>10} {'vs OPT':>8} {'writebacks':>10} "
      f"{'M acc/s':>8}")
for policy, s, speed in rows:
    vs_opt = "bound" if policy == "opt" else f"{100 * (s['misses'] / opt_misses - 1):+.1f}%"
    print(f"{policy:<10} {s['misses']:>10} {100 * s['miss_ratio']:>9.2f}% {vs_opt:>8} "
          f"{s['writebacks']:>10} {speed:>8.1f}")

# %% [markdown]
# ## Two levels
# A 32 KiB 8-way L1 in front of the LLC: which level served each access.

# %%
hierarchy = memsub.Hierarchy([dict(policy="lru", sets=64, ways=8),
                              dict(policy="drrip", sets=sets, ways=ways)])
served = hierarchy.access(addresses, kinds, pcs=pcs)
share = np.bincount(served, minlength=3) / len(served)
print(f"\nL1 {100 * share[0]:.1f}%, LLC {100 * share[1]:.1f}%, memory {100 * share[2]:.1f}% of "
      f"accesses; LLC writebacks to memory: {hierarchy.memory_stats()['writebacks']}")

# %% [markdown]
# ## Miss-ratio curves: every size in one pass
# Exact LRU and OPT (fully associative), and SHARDS' estimate from a 1% sample of the lines.

# %%
sizes = 2 ** np.arange(6, 17)
curves = {method: memsub.miss_ratio_curve(addresses, sizes=sizes, method=method)
          for method in ("lru_stack", "opt", "shards")}
print(f"\n{'KiB':>8} " + " ".join(f"{m:>10}" for m in curves))
for i, size in enumerate(curves["lru_stack"]["bytes"]):
    print(f"{size // 1024:>8} " + " ".join(f"{c['miss_ratio'][i]:>10.4f}" for c in curves.values()))
print("shards estimates LRU from a sample: at small sizes, where few sampled lines fit, it can\n"
      "differ from lru_stack by a few points and even fall below opt's exact bound.")

# %%
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("\nmatplotlib is not installed: the curves above are the plot's data")
else:
    fig, ax = plt.subplots(figsize=(7, 4))
    for method, c in curves.items():
        ax.plot(c["bytes"] / 1024, c["miss_ratio"], marker="o", label=method)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cache size (KiB, fully associative)")
    ax.set_ylabel("miss ratio")
    ax.set_title(source)
    ax.legend()
    fig.savefig(args.plot, dpi=120, bbox_inches="tight")
    print(f"\nplot written to {args.plot}")

# %% [markdown]
# ## How compressible is the data?
# The bytes of this interpreter's own executable, line by line.

# %%
import sys

with open(sys.executable, "rb") as f:
    data = f.read(1 << 20)
data = data[: len(data) // 64 * 64]
print(f"\n{'compressor':<12} {'mean bytes/line':>15} {'ratio':>6}")
for name in memsub.compressor_names():
    sizes_bytes = memsub.compressed_sizes(data, name)
    print(f"{name:<12} {sizes_bytes.mean():>15.1f} {64 / sizes_bytes.mean():>6.2f}")
line = data[64 * 100: 64 * 101]
packed = memsub.compress(line, "bdi")
assert bytes(memsub.decompress(packed)) == line
