#!/usr/bin/env python3
"""Issue 20's executor figures (docs/performance.md, "Executors"): run with the venv of
scripts/test-all, from the workspace root, after `cargo build --release -p scavenger-cli`:

    target/pyvenv/bin/python scripts/bench-executors.py scaling [--shard 0/40] [--workers 1,2,4]
    target/pyvenv/bin/python scripts/bench-executors.py quick [--rounds 3]

`scaling`: a slice of the full ong2020 study (`--shard I/N` of its 41 320 runs) on the
process pool and on Ray, with 1, 2 and 4 workers, each into a fresh store. Per point: the
wall time of the runs (the driver's, Ray's start excluded), runs/s and runs/s per worker,
the simulations' own time (the sum of the records' wall_time_s), and the overhead:
workers x wall minus the simulation time, as a share of the simulation time (what
scheduling, pickling, the store and idle workers cost). The load average is printed with
every point; the machine is shared, so points run back to back, alternating executors.

`quick`: `reproduce ong2020 --quick` with Ray (2 workers) against the CLI's local
executor with `--jobs 2`, alternating, `rounds` times each; runs only (the CLI's progress
line and the driver's "N runs in S s").
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import scavenger
from scavenger.driver import execute, parse_shard

CLI = os.environ.get("SCAVENGER_BIN", "target/release/scavenger")


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def sim_seconds(store):
    total = 0.0
    with open(os.path.join(store, "results.jsonl"), "rb") as f:
        for line in f:
            m = re.search(rb'"wall_time_s":([0-9.eE+-]+)', line)
            if m:
                total += float(m.group(1))
    return total


def scaling(a):
    source = scavenger._core.study_source("ong2020", False)
    shard = parse_shard(a.shard)
    workers = [int(w) for w in a.workers.split(",")]
    print(f"# ong2020 full, shard {a.shard}; cpu_count {os.cpu_count()}")
    print("executor workers runs wall_s runs_per_s per_worker sim_s overhead_pct load_before load_after")
    for w in workers:
        for ex in a.executors.split(","):
            with tempfile.TemporaryDirectory(prefix="scv-exbench-") as d:
                out = os.path.join(d, "s")
                l0 = load()
                if ex == "ray":
                    import ray
                    ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False)
                    try:
                        r = execute(source, out, executor="ray", jobs=w, shard=shard, progress=False)
                    finally:
                        ray.shutdown()
                else:
                    r = execute(source, out, executor=ex, jobs=w, shard=shard, progress=False)
                sim = sim_seconds(out)
                wall = r["wall_s"]
                over = (w * wall - sim) / sim * 100
                print(f"{ex} {w} {r['ran']} {wall:.1f} {r['ran'] / wall:.1f} {r['ran'] / wall / w:.2f} "
                      f"{sim:.1f} {over:.1f} {l0} {load()}", flush=True)


def quick(a):
    print("what round runs wall_s runs_per_s load_before load_after")
    res = {"cli": [], "ray": []}
    for rnd in range(a.rounds):
        for what in ["cli", "ray"]:
            with tempfile.TemporaryDirectory(prefix="scv-exbench-") as d:
                out = os.path.join(d, "q")
                l0 = load()
                if what == "cli":
                    t0 = time.monotonic()
                    p = subprocess.run([CLI, "reproduce", "ong2020", "--quick", "--jobs", "2", "--out", out],
                                       capture_output=True, text=True, check=True)
                    # Its line "N runs in S s" (else the whole command's time).
                    runs = sum(1 for l in open(os.path.join(out, "results.jsonl")) if l.strip())
                    m = re.search(r"(\d+) runs in ([0-9.]+) s", p.stderr)
                    wall = float(m.group(2)) if m else time.monotonic() - t0
                else:
                    import ray
                    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
                    try:
                        source = scavenger._core.study_source("ong2020", True)
                        r = execute(source, out, executor="ray", jobs=2, progress=False)
                    finally:
                        ray.shutdown()
                    runs, wall = r["ran"], r["wall_s"]
                res[what].append(runs / wall)
                print(f"{what} {rnd} {runs} {wall:.2f} {runs / wall:.1f} {l0} {load()}", flush=True)
    c, r = statistics.median(res["cli"]), statistics.median(res["ray"])
    print(f"# medians: cli --jobs 2 {c:.1f} runs/s, ray 2 workers {r:.1f} runs/s = {100 * r / c:.0f} %")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scaling")
    s.add_argument("--shard", default="0/40")
    s.add_argument("--workers", default="1,2,4")
    s.add_argument("--executors", default="process,ray")
    q = sub.add_parser("quick")
    q.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    scaling(a) if a.cmd == "scaling" else quick(a)


if __name__ == "__main__":
    sys.exit(main())
