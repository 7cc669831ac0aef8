#!/usr/bin/env python3
"""The slowdown an ideal background would cause (docs/ebb.md#oracle, #floor-cost).

A scorecard cell's short NewReno foreground (one second of the link's capacity, from 5 s)
runs beside an "oracle" background: a constant-rate datagram stream at FRAC of the link
(payload at 1448/1500 of the rate, so no queue) that stops STOP base RTTs after the
foreground starts, as a sender told of the foreground by its first delayed ACKs and gone
at once. With --floor MBIT an unresponsive stream of that rate runs throughout as well,
standing for a background that keeps a floor while it yields. Prints the foreground's
completion time with the oracle over its time alone, per seed.

  scripts/drops/ebb-oracle.py SCAVENGER [--cell rtt10] [--frac 0.97] [--stop 3] [--floor 1.13]

Cells (as the scorecard's, crates/lab/src/score/grid.rs): base, rate2, rtt10, buf0.25,
codel, fqcodel.
"""
import argparse
import json
import subprocess
import tempfile

# rate Mbit/s, RTT ms, buffer in packets ("" for the AQMs' defaults), queue discipline.
CELLS = {
    "base": (20, 50, "84", ""),
    "rate2": (2, 50, "9", ""),
    "rtt10": (20, 10, "17", ""),
    "buf0.25": (20, 50, "21", ""),
    "codel": (20, 50, "", 'qdisc = { kind = "codel" }'),
    "fqcodel": (20, 50, "", 'qdisc = { kind = "fq-codel" }'),
}


def scenario(cell, frac, stop, floor, with_bg):
    rate, rtt, buf, qdisc = CELLS[cell]
    size = max(250_000, min(10_000_000, rate * 1_000_000 // 8))
    lines = [
        'name = "oracle"',
        'duration = "30s"',
        "[link]",
        f'rate = "{rate}Mbit"',
        f'reverse_rate = "{rate}Mbit"',
        f'delay = "{rtt / 2}ms"',
    ]
    if buf:
        lines.append(f'buffer = "{buf} packets"')
    if qdisc:
        lines.append(qdisc)
    lines += [
        "[[flow]]",
        'name = "fg"',
        'algorithm = "newreno"',
        'ack_model = "linux"',
        'start = "5s"',
        f'size = "{size}B"',
    ]
    if with_bg:
        lines += [
            "[[flow]]",
            'name = "oracle"',
            'kind = "cbr"',
            f'rate = "{rate * frac * 1448 / 1500}Mbit"',
            "packet_size = 1472",
            'arrivals = "constant"',
            f'stop = "{5000 + stop * rtt}ms"',
        ]
        if floor > 0:
            lines += [
                "[[flow]]",
                'name = "floor"',
                'kind = "cbr"',
                f'rate = "{floor}Mbit"',
                "packet_size = 1472",
                'arrivals = "constant"',
            ]
    return "\n".join(lines) + "\n"


def fct(scv, text, seed):
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(text)
        f.flush()
        out = subprocess.run(
            [scv, "run", f.name, "--seed", str(seed), "--json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    flows = json.loads(out)["metrics"]["flows"]
    return next(x for x in flows if x["name"] == "fg")["completion_time_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scavenger")
    ap.add_argument("--cell", default="rtt10", choices=sorted(CELLS))
    ap.add_argument("--frac", type=float, default=0.97)
    ap.add_argument("--stop", type=float, default=3.0, help="base RTTs after the foreground's start")
    ap.add_argument("--floor", type=float, default=0.0, help="Mbit/s of an unresponsive floor")
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    for seed in range(1, a.seeds + 1):
        alone = fct(a.scavenger, scenario(a.cell, a.frac, a.stop, a.floor, False), seed)
        with_bg = fct(a.scavenger, scenario(a.cell, a.frac, a.stop, a.floor, True), seed)
        print(f"{a.cell} seed {seed}: alone {alone:.3f} s, with {with_bg:.3f} s, slowdown {with_bg / alone:.3f}")


if __name__ == "__main__":
    main()
