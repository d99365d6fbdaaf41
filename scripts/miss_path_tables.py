#!/usr/bin/env python3
"""Tables of docs/performance/miss_path.md from the miss-path harnesses' output.

Reads the host harness's CSV (bench/host/miss_path_host.cpp --csv) and, optionally, Google
Benchmark's JSON of bench_miss_path (--benchmark_format=json) and further host CSVs (another
optimisation level or a -march=native build), and prints Markdown:

  * per subject and geometry, x_plain_loop per associativity (range, median, cells >= 1.00);
  * memsub's LRU and SRRIP (fixed geometry) against their hand-written design floors, cell by
    cell, with the cells below the plain loop and whether the floor is below it too;
  * every other run against the first host CSV, cell by cell (median, range, cells more than
    10 % apart);
  * every cell of each subject (x_plain_loop and the measured miss ratio).

  scripts/miss_path_tables.py HOST_O3.csv [--gb GB.json] [--also NAME=HOST.csv ...]

Each input may name several runs of one harness, separated by commas (HOST_1.csv,HOST_2.csv,…):
a cell's figure is then the median over the runs that measured it (of its ratio and of its miss
ratio), so one run of further subjects can join several runs of LRU and SRRIP. On a
shared machine a cell's ratio moves from one process to the next as a whole (the same cell is
steady within a run); separate processes, and their median, are what make it reproducible.
"""
import argparse
import csv
import json
import statistics
import sys

FLOOR_OF = {"lru": "design_floor", "srrip": "design_floor_srrip"}


def read_host(path):
    cells = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["subject"], r["geometry"], int(r["sets"]), int(r["ways"]),
                   round(float(r["target_miss_ratio"]) * 100))
            cells[key] = (float(r["x_plain_loop"]), float(r["miss_ratio"]))
    return cells


def read_gb(path):
    cells = {}
    with open(path) as f:
        for b in json.load(f)["benchmarks"]:
            if "x_plain_loop" not in b:
                continue
            _, subject, geometry, sets, ways, target = b["name"].split("/")[:6]
            key = (subject, geometry, int(sets[1:]), int(ways[1:]), int(target[1:]))
            cells[key] = (float(b["x_plain_loop"]), float(b["miss_ratio"]))
    return cells


def read_runs(reader, spec):
    """The per-cell median over the comma-separated runs of `spec` that measured the cell (a
    subject may come from fewer runs than another), and the number of runs per subject."""
    runs = [reader(path) for path in spec.split(",") if path]
    cells, runs_of = {}, {}
    for k in set().union(*runs):
        have = [r[k] for r in runs if k in r]
        cells[k] = (statistics.median(v[0] for v in have), statistics.median(v[1] for v in have))
        runs_of[k[0]] = max(runs_of.get(k[0], 0), len(have))
    return cells, runs_of


def runs_note(runs_of):
    """' (3 runs)' when every subject has as many, else the count per subject; '' for one run."""
    counts = set(runs_of.values())
    if counts == {1}:
        return ""
    if len(counts) == 1:
        return f" ({counts.pop()} runs)"
    return " (" + ", ".join(f"{s} {n}" for s, n in sorted(runs_of.items())) + " runs)"


def summary(cells):
    print("| subject | geometry | 4 ways | 8 ways | 16 ways | 32 ways | cells >= 1.00 |")
    print("|---|---|---|---|---|---|---:|")
    subjects = sorted({(k[0], k[1]) for k in cells}, key=lambda s: (s[0] != "lru", s))
    for subject, geometry in subjects:
        row, total, at_least = [], 0, 0
        for ways in (4, 8, 16, 32):
            xs = [v[0] for k, v in cells.items() if k[:2] == (subject, geometry) and k[3] == ways]
            if not xs:
                row.append("-")
                continue
            total += len(xs)
            at_least += sum(x >= 1.0 for x in xs)
            row.append(f"{min(xs):.2f}-{max(xs):.2f} (median {statistics.median(xs):.2f})")
        print(f"| {subject} | {geometry} | " + " | ".join(row) + f" | {at_least} / {total} |")


def floors(cells):
    for policy, floor in FLOOR_OF.items():
        keys = [k for k in cells if k[0] == policy and k[1] == "fixed"]
        have = [k for k in keys if (floor, "fixed") + k[2:] in cells]
        if not have:
            continue
        print(f"\n{policy} (fixed geometry) against `{floor}`, by shape: memsub ÷ floor (median, "
              "range); cells of the six below the plain loop: memsub, and the floor itself")
        print()
        print("| sets x ways | memsub ÷ floor | memsub below 1.00 | floor below 1.00 |")
        print("|---|---|---:|---:|")
        shapes = sorted({k[2:4] for k in have})
        below, floor_below = 0, 0
        for sets, ways in shapes:
            ks = [k for k in have if k[2:4] == (sets, ways)]
            q = [cells[k][0] / cells[(floor, "fixed") + k[2:]][0] for k in ks]
            b = sum(cells[k][0] < 1.0 for k in ks)
            fb = sum(cells[k][0] < 1.0 and cells[(floor, "fixed") + k[2:]][0] < 1.0 for k in ks)
            below += b
            floor_below += fb
            print(f"| {sets} x {ways} | {statistics.median(q):.2f} ({min(q):.2f}-{max(q):.2f}) "
                  f"| {b} | {fb} |")
        print(f"\n{policy}: {below} cells below the plain loop, {floor_below} of them with the "
              "design floor below it too.")
        gap = sorted(k for k in have
                     if cells[k][0] < 1.0 and cells[(floor, "fixed") + k[2:]][0] >= 1.0)
        if gap:
            print("Below the plain loop with the floor at or above it: " + "; ".join(
                f"{k[2]} x {k[3]} at {k[4]} % ({cells[k][0]:.2f}, floor "
                f"{cells[(floor, 'fixed') + k[2:]][0]:.2f})" for k in gap) + ".")


def agreement(name, base, other, list_far=False, base_name="host -O3"):
    common = [k for k in base if k in other and k[0] in ("lru", "srrip")]
    if not common:
        return
    q = [other[k][0] / base[k][0] for k in common]
    far = [(other[k][0] / base[k][0], k) for k in common if abs(other[k][0] / base[k][0] - 1) > 0.10]
    print(f"* {name} ÷ {base_name}, LRU and SRRIP cells: median {statistics.median(q):.2f}, range "
          f"{min(q):.2f}-{max(q):.2f}; {len(far)} of {len(common)} cells more than 10 % apart"
          + (":" if far and list_far else "."))
    for r, k in sorted(far) if list_far else []:
        print(f"  {k[0]} {k[1]} {k[2]} x {k[3]} at {k[4]} %: {r:.2f} "
              f"({other[k][0]:.2f} against {base[k][0]:.2f})")


def every_cell(cells):
    for subject, geometry in sorted({(k[0], k[1]) for k in cells}):
        print(f"\n### {subject}, {geometry} geometry\n")
        targets = sorted({k[4] for k in cells if k[:2] == (subject, geometry)})
        print("| sets × ways | " + " | ".join(f"{t} %" for t in targets) + " |")
        print("|---|" + "---:|" * len(targets))
        for sets, ways in sorted({k[2:4] for k in cells if k[:2] == (subject, geometry)}):
            row = []
            for t in targets:
                v = cells.get((subject, geometry, sets, ways, t))
                row.append(f"{v[0]:.2f} ({100 * v[1]:.0f} %)" if v else "-")
            print(f"| {sets} × {ways} | " + " | ".join(row) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("host_csv")
    ap.add_argument("--gb", help="bench_miss_path's JSON")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=CSV",
                    help="another host run to compare with the first (e.g. host-O2=o2.csv)")
    ap.add_argument("--list-far", action="store_true",
                    help="list the cells more than 10 %% apart")
    a = ap.parse_args()
    base, runs = read_runs(read_host, a.host_csv)
    print("## Summary\n")
    if runs_note(runs):
        print(f"Each cell: the median of the host harness's runs{runs_note(runs)}.\n")
    summary(base)
    floors(base)
    print("\n## Agreement\n")
    base_name = "host -O3" + runs_note(runs)
    if a.gb:
        gb, gb_runs = read_runs(read_gb, a.gb)
        name = "Google Benchmark" + runs_note(gb_runs)
        agreement(name, base, gb, a.list_far, base_name)
    for spec in a.also:
        name, _, path = spec.partition("=")
        other, other_runs = read_runs(read_host, path)
        name += runs_note(other_runs)
        agreement(name, base, other, a.list_far, base_name)
    print("\n## Every cell")
    every_cell(base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
