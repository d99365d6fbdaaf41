#!/usr/bin/env python3
"""Recompute libcachesim_reference.txt with small independent models (not libCacheSim's code).

Reads every data row `trace algorithm capacity_objects requests misses` of the reference file,
simulates a fully associative cache of `capacity_objects` objects on the trace (records with
obj_size 0 skipped, as libCacheSim does) and checks requests and misses. Exit status 1 on any
difference. Rows whose trace file is absent (e.g. libCacheSim's own sample) are reported and
skipped.

Models (the semantics the libCacheSim figures were produced with):
  LRU    - hit moves the object to the MRU end; a miss inserts it, evicting the LRU object when full.
  FIFO   - hits change nothing; a miss inserts at the tail, evicting the oldest inserted object.
  Belady - no bypass: a miss always inserts the requested object, first evicting the resident
           object whose next access (next_access_vtime, -1 = never) is farthest away.

Usage: verify_reference.py [reference file] [--trace-dir DIR ...]
"""
import argparse
import heapq
import os
import struct
import sys
from collections import OrderedDict

RECORD = struct.Struct("<IQIq")
NEVER = 1 << 63


def load_requests(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) % RECORD.size:
        raise SystemExit(f"{path}: size {len(data)} is not a multiple of 24")
    out = []
    for offset in range(0, len(data), RECORD.size):
        _, obj_id, obj_size, next_vtime = RECORD.unpack_from(data, offset)
        if obj_size == 0:
            continue
        out.append((obj_id, NEVER if next_vtime == -1 else next_vtime))
    return out


def lru_misses(requests, capacity):
    resident, misses = OrderedDict(), 0
    for obj_id, _ in requests:
        if obj_id in resident:
            resident.move_to_end(obj_id)
            continue
        misses += 1
        if len(resident) >= capacity:
            resident.popitem(last=False)
        resident[obj_id] = None
    return misses


def fifo_misses(requests, capacity):
    resident, misses = OrderedDict(), 0
    for obj_id, _ in requests:
        if obj_id in resident:
            continue
        misses += 1
        if len(resident) >= capacity:
            resident.popitem(last=False)
        resident[obj_id] = None
    return misses


def belady_misses(requests, capacity):
    next_use, heap, misses = {}, [], 0  # heap of (-next_use, obj_id), stale entries skipped
    for obj_id, nxt in requests:
        if obj_id not in next_use:
            misses += 1
            while len(next_use) >= capacity:
                neg, victim = heapq.heappop(heap)
                if next_use.get(victim) == -neg:
                    del next_use[victim]
        next_use[obj_id] = nxt
        heapq.heappush(heap, (-nxt, obj_id))
    return misses


MODELS = {"LRU": lru_misses, "FIFO": fifo_misses, "Belady": belady_misses}


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("reference", nargs="?", default=os.path.join(here, "libcachesim_reference.txt"))
    ap.add_argument("--trace-dir", action="append",
                    default=[here, os.path.normpath(os.path.join(here, ".."))])
    args = ap.parse_args(argv)

    cache, failures, checked = {}, 0, 0
    with open(args.reference) as f:
        for line_no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            trace, algo, capacity, requests, misses = line.split()
            path = next((os.path.join(d, trace) for d in args.trace_dir
                         if os.path.exists(os.path.join(d, trace))), None)
            if path is None:
                print(f"line {line_no}: {trace} not found, skipped")
                continue
            if path not in cache:
                cache[path] = load_requests(path)
            reqs = cache[path]
            got = MODELS[algo](reqs, int(capacity))
            checked += 1
            if len(reqs) != int(requests) or got != int(misses):
                failures += 1
                print(f"line {line_no}: {trace} {algo} {capacity}: model {len(reqs)} requests "
                      f"{got} misses, reference {requests} {misses}")
    print(f"{checked} rows checked, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
