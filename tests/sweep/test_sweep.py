"""scripts/memsub_sweep against the explorer it drives (ctest `sweep`).

  MEMSUB_EXPLORER=build/release/examples/explorer python3 -m unittest discover -s tests/sweep -v

Covers: a small sweep's results equal the explorer run by hand; resume after the runner is
stopped (finished fragments are not rewritten); a bad trace is reported by name, the other
configurations are kept, and the next run retries only it; sweep-file errors name the key.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SWEEP = REPO / "scripts" / "memsub_sweep"
EXPLORER = os.environ.get("MEMSUB_EXPLORER", "")
TIMING = {"seconds", "accesses_per_second"}
RESTATED = {"trace", "policy", "sets", "ways", "line_bytes"}

TINY_TRACE = "# memsub plain-text trace\n" + "".join(
    f"0x{(i * 4160 + (i % 7) * 64) % 65536:x} {'W' if i % 5 == 0 else 'R'}\n" for i in range(3000))


def sweep(*args, check=None, **kw):
    r = subprocess.run([sys.executable, str(SWEEP), *map(str, args)], capture_output=True,
                       text=True, env={**os.environ, "MEMSUB_EXPLORER": EXPLORER}, **kw)
    if check is not None and r.returncode != check:
        raise AssertionError(f"memsub_sweep {' '.join(map(str, args))}: exit {r.returncode}, "
                             f"expected {check}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    return r


def load(path):
    with open(path) as f:
        return json.load(f)


def fragments(results: Path) -> dict[str, int]:
    """Fragment name -> mtime (ns)."""
    return {p.name: p.stat().st_mtime_ns for p in (results / "configs").glob("*.json")}


class SweepTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Not a skip: without the explorer nothing here would be checked.
        if not (EXPLORER and os.access(EXPLORER, os.X_OK)):
            raise RuntimeError("set MEMSUB_EXPLORER to the explorer binary")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memsub_sweep_test.")
        self.dir = Path(self.tmp.name)
        self.results = self.dir / "results"

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text) -> Path:
        p = self.dir / name
        p.write_text(text)
        return p

    def small_sweep(self) -> Path:
        self.write("tiny.txt", TINY_TRACE)
        return self.write("small.toml", """
policies = ["lru", "srrip"]
traces = ["builtin", "tiny.txt"]
[builtin]
accesses = 30000
seed = 7
[[geometry]]
sets = [16, 64]
ways = 4
""")

    def test_small_sweep_equals_the_explorer_by_hand(self):
        sw = self.small_sweep()
        r = sweep("run", sw, "--results", self.results, "--jobs", 2, check=0)
        self.assertIn("8 configurations, 0 already finished, 8 to run", r.stderr)
        doc = load(self.results / "results.json")
        self.assertEqual(doc["program"], "memsub_sweep")
        self.assertEqual(doc["columns"][:7],
                         ["config", "trace", "policy", "sets", "ways", "line_bytes", "params"])
        self.assertEqual(len(doc["rows"]), 8)
        self.assertEqual(len(fragments(self.results)), 8)
        self.assertEqual(load(self.results / "failures.json"), {"failed": [], "not_finished": []})
        csv_lines = (self.results / "results.csv").read_text().splitlines()
        self.assertEqual(csv_lines[0].split(","), doc["columns"])
        self.assertEqual(len(csv_lines), 9)

        listing = sweep("list", sw, check=0).stdout.splitlines()
        self.assertEqual(len(listing), 8)
        for case in (
                # (policy, sets, trace in the results, explorer's input options)
                ("srrip", 64, "tiny.txt", [str(self.dir / "tiny.txt")]),
                ("lru", 16, "builtin(accesses=30000,seed=7)", ["--accesses", "30000", "--seed", "7"])):
            policy, sets, trace, input_args = case
            rows = [x for x in doc["rows"]
                    if (x["policy"], x["sets"], x["trace"]) == (policy, sets, trace)]
            self.assertEqual(len(rows), 1, case)
            row = rows[0]
            by_hand = self.dir / "by_hand.json"
            subprocess.run([EXPLORER, "--policies", policy, "--no-opt", "--sets", str(sets),
                            "--ways", "4", "--line-bytes", "64", "--json", str(by_hand),
                            "--quiet", *input_args], check=True, stdout=subprocess.DEVNULL)
            (expected,) = load(by_hand)["rows"]
            self.assertGreater(expected["accesses"], 0)
            for col, value in expected.items():
                if col in TIMING:
                    continue
                if col in RESTATED:
                    if col != "trace":
                        self.assertEqual(row[col], value, col)
                    continue
                self.assertEqual(row[col], value, f"{case}: column {col}")

        # run-one runs one configuration by index: remove its fragment, it comes back alone.
        index, cid = listing[5].split("\t")[:2]
        before = fragments(self.results)
        (self.results / "configs" / f"{cid}.json").unlink()
        sweep("run-one", sw, "--index", index, "--results", self.results, check=0)
        after = fragments(self.results)
        self.assertEqual(set(after), set(before))
        changed = [n for n in after if after[n] != before[n]]
        self.assertEqual(changed, [f"{cid}.json"])

    def test_policy_settings_are_configurations_of_their_own(self):
        # The same policy under two settings: two configurations, each the explorer's own row.
        spec = "srrip:rrpv_bits=3,promotion=frequency_priority"
        sw = self.write("settings.toml", f"""
policies = ["srrip", "{spec}"]
traces = ["builtin"]
[builtin]
accesses = 30000
seed = 7
[[geometry]]
sets = 64
ways = 8
""")
        sweep("run", sw, "--results", self.results, check=0)
        rows = {x["policy"]: x for x in load(self.results / "results.json")["rows"]}
        self.assertEqual(set(rows), {"srrip", spec})
        by_hand = self.dir / "by_hand.json"
        subprocess.run([EXPLORER, "--policies", spec, "--no-opt", "--sets", "64", "--ways", "8",
                        "--json", str(by_hand), "--quiet", "--accesses", "30000", "--seed", "7"],
                       check=True, stdout=subprocess.DEVNULL)
        (expected,) = load(by_hand)["rows"]
        self.assertEqual(expected["policy"], spec)
        self.assertEqual(rows[spec]["misses"], expected["misses"])
        self.assertNotEqual(rows[spec]["misses"], rows["srrip"]["misses"])
        for name in fragments(self.results):  # file names keep to safe characters
            self.assertRegex(name, r"^[A-Za-z0-9._+-]+$")

    def resume_after(self, signum, status):
        sw = self.write("resume.toml", """
policies = ["lru", "srrip", "drrip", "ship", "remap", "opt"]
traces = ["builtin"]
[builtin]
accesses = 3000000
[[geometry]]
sets = 1024
ways = 16
""")
        p = subprocess.Popen([sys.executable, str(SWEEP), "run", str(sw), "--results",
                              str(self.results), "--jobs", "1"], stderr=subprocess.PIPE,
                             text=True, env={**os.environ, "MEMSUB_EXPLORER": EXPLORER})
        deadline = time.monotonic() + 60
        while len(fragments(self.results)) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        p.send_signal(signum)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, status, err)
        first = fragments(self.results)
        self.assertGreaterEqual(len(first), 2, err)
        self.assertLess(len(first), 6, "every configuration finished before the signal")
        # The stopped configuration is not a failure; the gathered results hold the finished.
        failures = load(self.results / "failures.json")
        self.assertEqual(failures["failed"], [])
        self.assertEqual(len(failures["not_finished"]), 6 - len(first))
        self.assertEqual(len(load(self.results / "results.json")["rows"]), len(first))
        self.assertEqual(list((self.results / "work").iterdir()), [])

        r = sweep("run", sw, "--results", self.results, "--jobs", 1, check=0)
        self.assertIn(f"6 configurations, {len(first)} already finished, {6 - len(first)} to run",
                      r.stderr)
        second = fragments(self.results)
        self.assertEqual(len(second), 6)
        for name, mtime in first.items():
            self.assertEqual(second[name], mtime, f"{name} was run again")
        self.assertEqual(len(load(self.results / "results.json")["rows"]), 6)

    def test_resume_after_sigint(self):
        self.resume_after(signal.SIGINT, 130)

    def test_resume_after_sigterm(self):
        self.resume_after(signal.SIGTERM, 143)

    def test_bad_trace_is_reported_by_name_and_retried_alone(self):
        self.write("good.txt", TINY_TRACE)
        bad = self.write("bad.txt", "0x1000 R\nzzz\n")
        sw = self.write("bad.toml", """
policies = ["lru", "fifo"]
traces = ["good.txt", "bad.txt"]
[[geometry]]
sets = 16
ways = 2
""")
        r = sweep("run", sw, "--results", self.results, "--jobs", 2, check=1)
        failures = load(self.results / "failures.json")
        failed = sorted(f["id"] for f in failures["failed"])
        self.assertEqual(len(failed), 2, failures)
        for f in failures["failed"]:
            self.assertIn("bad.txt", f["id"])
            self.assertEqual(f["exit_status"], 1)
            self.assertIn("bad decimal digit", f["stderr_tail"])
            self.assertIn(f"failed: {f['id']}", r.stderr)
        self.assertEqual(failures["not_finished"], [])
        good = fragments(self.results)
        self.assertEqual(len(good), 2)
        self.assertTrue(all("good.txt" in n for n in good))
        rows = load(self.results / "results.json")["rows"]
        self.assertEqual(sorted(x["trace"] for x in rows), ["good.txt", "good.txt"])

        # Still broken: the two are retried (and fail again), the good ones are not rerun.
        r = sweep("run", sw, "--results", self.results, check=1)
        self.assertIn("4 configurations, 2 already finished, 2 to run", r.stderr)
        self.assertEqual(fragments(self.results), good)

        bad.write_text(TINY_TRACE)
        r = sweep("run", sw, "--results", self.results, check=0)
        self.assertIn("4 configurations, 2 already finished, 2 to run", r.stderr)
        after = fragments(self.results)
        self.assertEqual(len(after), 4)
        self.assertEqual({n: after[n] for n in good}, good)
        self.assertEqual(load(self.results / "failures.json")["failed"], [])
        self.assertEqual(list((self.results / "failed").iterdir()), [])

    def test_sweep_file_errors_name_the_key(self):
        self.write("t.txt", TINY_TRACE)
        base = {
            "policies": '["lru"]',
            "traces": '["t.txt"]',
        }
        geometry = "[[geometry]]\nsets = 16\nways = 2\n"

        def case(extra_top="", geometry_text=geometry, **over):
            keys = {**base, **over}
            text = "".join(f"{k} = {v}\n" for k, v in keys.items() if v is not None)
            return text + extra_top + "\n" + geometry_text

        cases = [
            (case('polices = ["lru"]\n'), "polices: unknown key"),
            (case(geometry_text="[[geometry]]\nsets = 16\nways = 100\n"),
             "geometry[0].ways: 100 is out of range: it must be in 1..64"),
            (case(geometry_text="[[geometry]]\nsets = [16, 1000]\nways = 2\n"),
             "geometry[0].sets: 1000 is not a power of two"),
            (case(geometry_text="[[geometry]]\nsets = 16\nway = 2\n"),
             "geometry[0].way: unknown key"),
            (case(traces='["t.txt", "missing.txt"]'),
             "traces[1].path: trace file missing.txt does not exist"),
            (case(traces='[{path = "t.txt", format = "dinero"}]'),
             'traces[0].format: "dinero" is not one of'),
            (case("[params]\nlimit = \"x\"\n"), 'params.limit: "x" is not a non-negative integer'),
            (case("[params]\njobs = 4\n"), "params.jobs: unknown key"),
            (case("[builtin]\naccesses = 0\n", traces='["builtin"]'), "builtin.accesses: 0 is"),
            (case(policies='["lru", "lfu"]'), "policies: 'lfu' is not an explorer policy"),
            (case(policies='["srrip:bits=3"]'),
             "policies: 'srrip:bits=3': explorer: --policies srrip:bits=3: srrip: bits = 3 "
             "violates \"names no parameter (there are: rrpv_bits, promotion)\""),
            (case(policies=None), "policies: missing"),
            (case(policies='["lru", "lru"]'), "policies: 'lru' is listed more than once"),
            (case("[params]\nopt_memory = 0\n"), "--opt-memory = 0 is out of range"),
            ("policies = [\n", "not valid TOML"),
        ]
        for i, (text, message) in enumerate(cases):
            with self.subTest(message=message):
                sw = self.write(f"e{i}.toml", text)
                results = self.dir / f"r{i}"
                r = sweep("run", sw, "--results", results, check=2)
                self.assertIn(f"{sw}: ", r.stderr)
                self.assertIn(message, r.stderr)
                self.assertFalse(results.exists(), "something ran")
        # Every error of a file, not only the first.
        sw = self.write("many.toml", case('colour = "red"\n',
                                          geometry_text="[[geometry]]\nsets = 3\nways = 0\n"))
        r = sweep("run", sw, "--results", self.dir / "many", check=2)
        for message in ("colour: unknown key", "geometry[0].sets: 3 is not a power of two",
                        "geometry[0].ways: 0 is out of range"):
            self.assertIn(message, r.stderr)

    def test_no_explorer_is_a_clear_error(self):
        sw = self.small_sweep()
        r = sweep("run", sw, "--results", self.results, "--explorer", self.dir / "nope", check=2)
        self.assertIn(f"--explorer {self.dir / 'nope'}: not an executable file", r.stderr)
        self.assertFalse(self.results.exists())


if __name__ == "__main__":
    unittest.main()
