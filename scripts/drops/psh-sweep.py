#!/usr/bin/env python3
"""Simulator side of `scavenger validate`'s 50 ms cases (full mode: alone 30 s, short-fg
40 s, fair4 60 s; the 12 seeds validate runs against 3 testbed repetitions) under both
PSH rules of the simulator's sender (`psh_rule = "every-ack"`, the default, and
`"skb-tail"`, the kernel's rule by the sender-side capture, docs/receiver.md#psh-writer).
Prints validate's figures as medians [range] per rule. docs/validation.md#vfull-drops.

  psh-sweep.py SCAVENGER ALG[,ALG...] [--seeds 1,2,3,5,...]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

SEEDS = [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15]  # validate's sim_seeds for --reps 3
LINK = '[link]\nrate = "8Mbit"\nreverse_rate = "1Mbit"\ndelay = "25ms"\nbuffer = "70 packets"\n'


def flow(name, alg, rule, start_ms=None, size=None):
    s = f'[[flow]]\nname = "{name}"\nalgorithm = "{alg}"\npsh_rule = "{rule}"\n'
    if start_ms is not None:
        s += f'start = "{start_ms}ms"\n'
    if size:
        s += f'size = "{size}"\n'
    return s


def scenario(kind, alg, rule, seed):
    if kind == "alone":
        return 'name = "alone"\nduration = "30s"\n' + LINK + flow("bg", alg, rule)
    if kind == "short-fg":
        start = 10000 + (seed - 1) % 4 * 250  # validate's Case::scenario_for
        return ('name = "short-fg"\nduration = "40s"\n' + LINK + flow("bg", alg, rule)
                + flow("fg", "newreno", rule, start, "2469KiB"))
    names = ["f1", "f2", "f3", "f4"]
    s = ('name = "fair4"\nduration = "60s"\n' + LINK
         + '[measure]\njain = [{ name = "all", flows = ["f1", "f2", "f3", "f4"], from = "30s", to = "60s" }]\n')
    for i, n in enumerate(names):
        s += flow(n, alg, rule, 2000 * i)
    return s


def figures(kind, rec):
    fl = {f["name"]: f for f in rec["metrics"]["flows"]}
    if kind == "alone":
        return {"share of link": fl["bg"]["goodput_bps"] / 8e6, "mean RTT ms": fl["bg"]["rtt_ms"]["mean"]}
    if kind == "short-fg":
        return {"foreground completion s": fl["fg"]["completion_time_s"] or float("nan"),
                "background share": fl["bg"]["goodput_bps"] / 8e6,
                "background mean RTT ms": fl["bg"]["rtt_ms"]["mean"]}
    return {"Jain's index": rec["metrics"]["jain"][0]["index"]}


def main():
    scv, algs = sys.argv[1], sys.argv[2].split(",")
    seeds = [int(x) for x in sys.argv[sys.argv.index("--seeds") + 1].split(",")] if "--seeds" in sys.argv else SEEDS
    with tempfile.TemporaryDirectory() as d:
        for alg in algs:
            for kind in ["alone", "short-fg", "fair4"]:
                res = {}
                for rule in ["every-ack", "skb-tail"]:
                    vals = {}
                    for seed in seeds:
                        p = os.path.join(d, "s.toml")
                        with open(p, "w") as f:
                            f.write(scenario(kind, alg, rule, seed))
                        out = subprocess.run([scv, "run", p, "--seed", str(seed), "--json"],
                                             check=True, capture_output=True, text=True).stdout
                        for k, v in figures(kind, json.loads(out)).items():
                            vals.setdefault(k, []).append(v)
                    res[rule] = vals
                for metric in res["every-ack"]:
                    cols = []
                    for rule in ["every-ack", "skb-tail"]:
                        v = res[rule][metric]
                        cols.append(f"{statistics.median(v):8.3f} [{min(v):.3f}–{max(v):.3f}]")
                    print(f"{kind}/50ms/{alg:8} {metric:26} every-ack {cols[0]:28} skb-tail {cols[1]}", flush=True)


if __name__ == "__main__":
    main()
