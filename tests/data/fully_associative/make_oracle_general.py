#!/usr/bin/env python3
"""Deterministic oracleGeneral trace generator for memsub's fully associative cache tests.

Writes a libCacheSim `oracleGeneral` binary trace: no header, packed little-endian 24-byte
records (libCacheSim traceReader/customizedReader/oracle/oracleGeneralBin.h)
    uint32 clock_time, uint64 obj_id, uint32 obj_size, int64 next_access_vtime

next_access_vtime follows libCacheSim's own converter (bin/traceUtils/traceConv.cpp, which
numbers requests backwards and stores n_req - reverse_index): the 1-based position of the next
request to the same object, i.e. (0-based index of that request) + 1, or -1 when the object is
never requested again. (libCacheSim's cloudPhysicsIO.oracleGeneral.bin follows the same rule.)

Request mix, drawn per request from one splitmix64 stream (seed below), so the output depends
only on the arguments, never on Python's `random` module:
  * 60 % Zipf(alpha = 0.9) over 50,000 objects (ids 1,000,000 + a fixed permutation of the rank);
  * 25 % a loop cycling through 3,000 objects in order (ids 2,000,000 + k);
  * 15 % a scan of objects never seen before (ids 10,000,000 + k, each requested once).
Every object is 64 bytes; clock_time = request index // 1000 (1000 requests per "second").

Usage:
  make_oracle_general.py                       # writes mixed_200k.oracleGeneral.bin next to this file
  make_oracle_general.py --requests 10000000 --output /tmp/mixed_10m.oracleGeneral.bin
"""
import argparse
import bisect
import hashlib
import os
import struct
import sys

SEED = 0x6D656D737562  # "memsub"
MASK64 = (1 << 64) - 1

ZIPF_OBJECTS = 50_000
ZIPF_ALPHA = 0.9
ZIPF_ID_BASE = 1_000_000
ZIPF_PERMUTE_MULTIPLIER = 7_919  # coprime with ZIPF_OBJECTS: rank -> (rank * m) mod n is a bijection
LOOP_OBJECTS = 3_000
LOOP_ID_BASE = 2_000_000
SCAN_ID_BASE = 10_000_000
OBJ_SIZE = 64
REQUESTS_PER_SECOND = 1000

RECORD = struct.Struct("<IQIq")
assert RECORD.size == 24


class SplitMix64:
    """splitmix64 (Steele, Lea, Flood 2014): small, portable, fully specified."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):
        """A double in [0, 1) from the top 53 bits."""
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))


def zipf_cdf(n, alpha):
    weights = [1.0 / (rank**alpha) for rank in range(1, n + 1)]
    total = sum(weights)
    cdf, acc = [], 0.0
    for w in weights:
        acc += w
        cdf.append(acc / total)
    cdf[-1] = 1.0
    return cdf


def generate_ids(n_requests):
    rng = SplitMix64(SEED)
    cdf = zipf_cdf(ZIPF_OBJECTS, ZIPF_ALPHA)
    ids = [0] * n_requests
    loop_pos = 0
    scan_next = 0
    for i in range(n_requests):
        choice = rng.next_u64() % 100
        if choice < 60:
            rank = bisect.bisect_right(cdf, rng.uniform())  # 0-based rank, 0 = most popular
            if rank >= ZIPF_OBJECTS:
                rank = ZIPF_OBJECTS - 1
            ids[i] = ZIPF_ID_BASE + (rank * ZIPF_PERMUTE_MULTIPLIER) % ZIPF_OBJECTS
        elif choice < 85:
            ids[i] = LOOP_ID_BASE + loop_pos
            loop_pos = (loop_pos + 1) % LOOP_OBJECTS
        else:
            ids[i] = SCAN_ID_BASE + scan_next
            scan_next += 1
    return ids


def next_access_vtimes(ids):
    """1-based position of the next request to the same object, -1 if none (libCacheSim)."""
    n = len(ids)
    nxt = [-1] * n
    seen = {}
    for i in range(n - 1, -1, -1):
        j = seen.get(ids[i])
        if j is not None:
            nxt[i] = j + 1
        seen[ids[i]] = i
    return nxt


def write_trace(path, n_requests):
    ids = generate_ids(n_requests)
    nxt = next_access_vtimes(ids)
    digest = hashlib.sha256()
    chunk = 1 << 16
    with open(path, "wb") as out:
        for start in range(0, n_requests, chunk):
            stop = min(start + chunk, n_requests)
            buf = b"".join(
                RECORD.pack(i // REQUESTS_PER_SECOND, ids[i], OBJ_SIZE, nxt[i])
                for i in range(start, stop)
            )
            digest.update(buf)
            out.write(buf)
    return digest.hexdigest(), len(set(ids))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=200_000)
    ap.add_argument("--output", default=os.path.join(here, "mixed_200k.oracleGeneral.bin"))
    args = ap.parse_args(argv)
    if args.requests < 1 or args.requests >= 1 << 32:
        ap.error("--requests must be in [1, 2^32)")
    sha, n_objects = write_trace(args.output, args.requests)
    print(f"{args.output}: {args.requests} requests, {n_objects} objects, sha256 {sha}")


if __name__ == "__main__":
    main(sys.argv[1:])
