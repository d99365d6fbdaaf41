#!/usr/bin/env python3
"""The Python binding's overhead: memsub.Cache.access on one NumPy stream against the same
loop in C++ alone (memsub.baseline.access_loop) on the same stream, in alternating passes of
the same run.

Usage (PYTHONPATH = the directory holding the built module, e.g. build/release/python):
    /usr/bin/python3 bench/python_overhead.py [--accesses 10000000] [--repeat 5]

Two baselines, both timed in C++ around the loop alone, each pass with a fresh cache:
  records  memsub::access records built before the clock starts, run by
           basic_cache::access_all (the loop a C++20 host runs), hit flags written as the
           binding writes them;
  columns  the binding's own loop over the same NumPy columns, called from C++: the
           difference to it is the cost of the Python call itself.
The Python time is the whole call as a user sees it: argument checks, the output array, the
loop. Reported: the median of the passes, and x_records / x_columns = Python time / that
baseline's time (1 = no overhead).

Small calls (--chunks 1000,10000,100000): the same stream fed as consecutive slices of that
many addresses, one call each, as a simulator loop feeding memsub batch by batch would. Reported:
x_columns of the whole stream, and the fixed cost of one call: the median time of a call with
one address (with and without a kinds array), timed over 100,000 calls.
"""
import argparse
import statistics
import time

import numpy as np

import memsub


def built_in_like_mix(n, seed=2026, line_bytes=64):
    """The explorer's built-in mix, approximately: a zipf hot set (55 %), a loop 1.25x a
    2 MiB cache (30 %) and a scan (15 %); a quarter of the accesses are stores."""
    rng = np.random.default_rng(seed)
    choice = rng.random(n)
    hot = (rng.zipf(1.2, n) % 20000).astype(np.uint64)
    loop_lines = int(1.25 * 2 * 1024 * 1024 / line_bytes)
    loop = (np.arange(n, dtype=np.uint64) % loop_lines) + np.uint64(1 << 20)
    scan = np.arange(n, dtype=np.uint64) + np.uint64(1 << 28)
    lines = np.where(choice < 0.55, hot, np.where(choice < 0.85, loop, scan))
    addresses = lines * np.uint64(line_bytes)
    kinds = (rng.random(n) < 0.25).astype(np.uint8)
    return addresses, kinds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accesses", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--policies", default="lru,srrip,drrip")
    parser.add_argument("--chunks", default="",
                        help="also feed the stream in calls of these many addresses")
    args = parser.parse_args()
    sets, ways, line_bytes = 2048, 16, 64
    addresses, kinds = built_in_like_mix(args.accesses)
    print(f"{args.accesses} accesses, {sets} sets x {ways} ways x {line_bytes} B, "
          f"median of {args.repeat} alternating passes")
    print(f"memsub::access is {memsub.baseline.access_record_bytes} bytes")
    print(f"{'policy':<8} {'python M/s':>10} {'records M/s':>11} {'columns M/s':>11} "
          f"{'x_records':>9} {'x_columns':>9} {'miss ratio':>10}")
    for policy in args.policies.split(","):
        times = {"python": [], "records": [], "columns": []}
        for _ in range(args.repeat):
            cache = memsub.Cache(policy, sets=sets, ways=ways, line_bytes=line_bytes)
            start = time.perf_counter()
            flags = cache.access(addresses, kinds)
            times["python"].append(time.perf_counter() - start)
            hits = int(flags.sum())
            for layout in ("records", "columns"):
                base = memsub.baseline.access_loop(policy, sets, ways, line_bytes, addresses,
                                                   kinds, layout=layout)
                times[layout].append(base["seconds"])
                if hits != base["hits"]:  # the same stream must give the same answer
                    raise SystemExit(f"{policy}: {hits} hits in Python, {base['hits']} in C++")
        t = {k: statistics.median(v) for k, v in times.items()}
        n = args.accesses
        print(f"{policy:<8} {n / t['python'] / 1e6:10.1f} {n / t['records'] / 1e6:11.1f} "
              f"{n / t['columns'] / 1e6:11.1f} {t['python'] / t['records']:9.3f} "
              f"{t['python'] / t['columns']:9.3f} {1 - hits / n:10.3f}")
    if args.chunks:
        small_calls(args, addresses, kinds, sets, ways, line_bytes)


def small_calls(args, addresses, kinds, sets, ways, line_bytes):
    n = args.accesses
    print(f"\nsmall calls: the same stream in consecutive slices, median of {args.repeat} passes")
    print(f"{'policy':<8} {'chunk':>8} {'calls':>8} {'python M/s':>10} {'columns M/s':>11} "
          f"{'x_columns':>9}")
    for policy in args.policies.split(","):
        for chunk in (int(c) for c in args.chunks.split(",")):
            chunked, columns = [], []
            calls = (n + chunk - 1) // chunk
            for _ in range(args.repeat):
                cache = memsub.Cache(policy, sets=sets, ways=ways, line_bytes=line_bytes)
                start = time.perf_counter()
                for i in range(0, n, chunk):
                    cache.access(addresses[i:i + chunk], kinds[i:i + chunk])
                chunked.append(time.perf_counter() - start)
                base = memsub.baseline.access_loop(policy, sets, ways, line_bytes, addresses,
                                                   kinds, layout="columns")
                columns.append(base["seconds"])
                if cache.stats()["hits"] != base["hits"]:
                    raise SystemExit(f"{policy}: chunked calls gave other hits than one call")
            tc, tb = statistics.median(chunked), statistics.median(columns)
            print(f"{policy:<8} {chunk:8d} {calls:8d} {n / tc / 1e6:10.1f} {n / tb / 1e6:11.1f} "
                  f"{tc / tb:9.3f}")
    cache = memsub.Cache("lru", sets=sets, ways=ways, line_bytes=line_bytes)
    one, kind = addresses[:1].copy(), kinds[:1].copy()
    for label, call_args in (("addresses", (one,)), ("addresses and kinds", (one, kind))):
        samples = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            for _ in range(100_000):
                cache.access(*call_args)
            samples.append((time.perf_counter() - start) / 100_000)
        print(f"fixed cost of one call with {label}: {statistics.median(samples) * 1e6:.2f} us")


if __name__ == "__main__":
    main()
