"""scavenger.run: the same record as `scavenger run --json`, as DataFrames."""

import json
import subprocess
import threading
import time

import pytest

import scavenger


def strip_wall(rec: dict) -> dict:
    rec = dict(rec)
    rec.pop("wall_time_s")
    return rec


def test_run_equals_cli_json(repo, cli):
    path = repo / "examples" / "two-cubic.toml"
    out = subprocess.run([cli, "run", str(path), "--seed", "3", "--json"], check=True,
                         capture_output=True, text=True).stdout
    ours = scavenger.run(str(path), seed=3)
    assert strip_wall(ours.record) == strip_wall(json.loads(out))
    # The same scenario as TOML text and as a dict gives the same metrics.
    text = path.read_text()
    assert scavenger.run(text, seed=3).record["metrics"] == ours.record["metrics"]
    import tomllib

    assert scavenger.run(tomllib.loads(text), seed=3).record["metrics"] == ours.record["metrics"]


def test_flows_series_link_and_plot(repo):
    r = scavenger.run(repo / "examples" / "two-cubic.toml")
    assert r.seed == 1  # the scenario's seed
    flows = r.flows
    assert len(flows) == 2
    rec_flows = r.record["metrics"]["flows"]
    assert list(flows["goodput_bps"]) == [f["goodput_bps"] for f in rec_flows]
    assert "rtt_ms.mean" in flows.columns
    assert list(r.link["name"]) == ["forward", "reverse"] and 0 < r.link["utilisation"][0] <= 1
    s = r.series
    assert set(s.columns) == {"time_s", "flow", "variable", "value"}
    assert {"goodput_bps", "cwnd_bytes", "queue_pkts"} <= set(s["variable"])
    import matplotlib

    matplotlib.use("Agg")
    fig = r.plot()
    assert len(fig.axes) >= 3


def test_run_releases_the_interpreter(repo):
    """While a run simulates, other Python threads keep running."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    t = threading.Thread(target=tick)
    t.start()
    t0 = time.monotonic()
    scavenger.run(repo / "examples" / "two-cubic.toml")
    took = time.monotonic() - t0
    stop.set()
    t.join()
    during = [x for x in ticks if t0 < x < t0 + took]
    assert took < 0.05 or len(during) >= took / 0.05, (took, len(during))


def test_algorithms():
    a = scavenger.algorithms()
    row = a[(a.algorithm == "ledbat") & (a.param == "target")]
    assert len(row) == 1
    assert {"kind", "default", "unit", "source", "doc"} <= set(a.columns)
    assert set(a.kind) == {"sender", "receiver", "dalbe"}
