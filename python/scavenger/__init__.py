"""Scavenger from Python: less-than-best-effort and delay-based congestion control.

>>> import scavenger
>>> r = scavenger.run("examples/two-cubic.toml", seed=1)
>>> r.flows[["goodput_bps", "rtt_ms.mean"]]
>>> df = scavenger.sweep("examples/sweeps/buffers.toml", out="results/buffers")
>>> table = scavenger.reproduce("ong2020", quick=True)

Every run goes through the same Rust core as the ``scavenger`` command, so results are
identical to the CLI's for the same scenario and seed. Errors raise
:class:`ScenarioError` (with ``.field``), :class:`StoreError` or :class:`RunError`
carrying the CLI's messages.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from . import _scavenger as _core
from ._scavenger import RunError, ScenarioError, StoreError
from .driver import RayExecutor, execute

__all__ = [
    "run", "sweep", "reproduce", "algorithms", "load_store", "Result", "RayExecutor",
    "ScenarioError", "StoreError", "RunError", "__version__", "__commit__",
]

__version__, __commit__ = _core.version()

Scenario = Union[str, os.PathLike, Mapping[str, Any]]


def _pd():
    import pandas as pd  # noqa: PLC0415

    return pd


class Result:
    """One run: the record and views of it as pandas DataFrames."""

    def __init__(self, record: dict):
        #: The full result record (the JSON of ``scavenger run --json``) as a dict.
        self.record = record

    @property
    def seed(self) -> int:
        return self.record["seed"]

    @property
    def flows(self):
        """One row per flow (index: the flow's name); the record's flow metrics, nested
        statistics flattened (``rtt_ms.mean``, ``rtt_ms.p95``)."""
        pd = _pd()
        df = pd.json_normalize(self.record["metrics"]["flows"])
        return df.set_index("name", drop=False)

    @property
    def link(self):
        """One row per link: utilisation, drops, queueing-delay statistics."""
        return _pd().json_normalize(self.record["metrics"]["links"])

    @property
    def jain(self):
        """Jain's fairness index per group the scenario asks for."""
        return _pd().json_normalize(self.record["metrics"].get("jain", []))

    @property
    def series(self):
        """Time series in long form (columns time_s, flow, variable, value; ``flow`` is
        empty for link series), when the scenario keeps them; else an empty DataFrame."""
        pd = _pd()
        s = self.record["metrics"].get("series")
        cols = ["time_s", "flow", "variable", "value"]
        if not s:
            return pd.DataFrame(columns=cols)
        t = s["time_s"]
        parts = []
        names = [f["name"] for f in self.record["metrics"]["flows"]]

        def add(flow, var, values):
            parts.append(pd.DataFrame({"time_s": t, "flow": flow, "variable": var,
                                       "value": pd.array(values, dtype="Float64")}))

        for name, g, c, tr in zip(names, s["flow_goodput_bps"], s["flow_cwnd_bytes"],
                                  s.get("flow_trace", [[] for _ in names])):
            add(name, "goodput_bps", g)
            add(name, "cwnd_bytes", c)
            for var, col in tr:
                add(name, var, col)
        add("", "utilisation", s["link_utilisation"])
        add("", "queue_pkts", s["queue_pkts"])
        return pd.concat(parts, ignore_index=True)

    def plot(self, ax=None):
        """Goodput, congestion window, RTT (when traced) and queue over time
        (matplotlib); needs time series in the scenario (``[output] series = ...``)."""
        import matplotlib.pyplot as plt  # noqa: PLC0415

        s = self.series
        if s.empty:
            raise RunError("this run kept no time series; ask for them in the scenario "
                           "([output] series_interval) to plot them")
        panels = [("goodput_bps", "goodput (Mbit/s)", 1e-6), ("cwnd_bytes", "cwnd (kB)", 1e-3),
                  ("rtt", "RTT (ms)", 1e3), ("queue_pkts", "queue (packets)", 1.0)]
        present = [p for p in panels if s["variable"].str.startswith(p[0]).any()]
        if ax is None:
            fig, axes = plt.subplots(len(present), 1, sharex=True,
                                     figsize=(8, 2.2 * len(present)), squeeze=False)
            axes = axes[:, 0]
        else:
            axes, fig = [ax] * len(present), ax.figure
        for a, (var, label, scale) in zip(axes, present):
            sel = s[s["variable"].str.startswith(var)]
            for (flow, v), g in sel.groupby(["flow", "variable"], sort=False):
                a.plot(g["time_s"], g["value"].astype(float) * scale,
                       label=flow or v, linewidth=0.8)
            a.set_ylabel(label)
            if sel["flow"].ne("").any():
                a.legend(loc="upper right", fontsize="small")
        axes[-1].set_xlabel("time (s)")
        return fig

    def __repr__(self) -> str:
        sc = self.record.get("scenario", {})
        return (f"<scavenger.Result {sc.get('name')!r} seed {self.seed}, "
                f"{len(self.record['metrics']['flows'])} flows>")


def run(scenario: Scenario, seed: Optional[int] = None, force: bool = False) -> Result:
    """Runs one scenario on the simulator.

    ``scenario``: a TOML file's path, TOML text, or a dict of the same tables.
    ``seed``: the RNG seed (default: the scenario's ``seed``, else 1).
    ``force``: run even past the cost bound, as ``scavenger run --force``.
    Raises :class:`ScenarioError` naming the field of a bad setting. The interpreter lock
    is released while the simulation runs.
    """
    if isinstance(scenario, Mapping):
        text, kind = json.dumps(scenario), "json"
    elif isinstance(scenario, os.PathLike):
        text, kind = os.fspath(scenario), "path"
    elif isinstance(scenario, str):
        # A path has no newline and no '='; TOML text always has one of them.
        kind = "toml" if ("\n" in scenario or "=" in scenario) else "path"
        text = scenario
    else:
        raise TypeError(f"scenario: expected a path, TOML text or a dict, not {type(scenario).__name__}")
    return Result(json.loads(_core.run(text, kind, seed, force)))


def load_store(path: Union[str, os.PathLike]):
    """A result store as a DataFrame, one row per run: key, label, the sweep's
    parameters (``param.*``), seed, version, commit, then every metric (``flows.NAME.*``,
    ``links.0.*``, ``jain.*``), through Arrow. The same table as ``scavenger export``.

    The columns are pandas' Arrow-backed dtypes (``double[pyarrow]``,
    ``string[pyarrow]``, ...): each column keeps the buffers the Rust core filled, without
    a copy. ``df.convert_dtypes(dtype_backend="numpy_nullable")`` or ``.astype`` gives
    NumPy columns where a library needs them."""
    return _frame(_core.table(os.fspath(path)))


def _frame(batch):
    """A pyarrow RecordBatch (or Table) as a DataFrame without copying its buffers:
    ``types_mapper=pd.ArrowDtype`` wraps each Arrow array in an ``ArrowExtensionArray``,
    where the default conversion copies into NumPy blocks (and consolidates them)."""
    pd = _pd()
    return batch.to_pandas(types_mapper=pd.ArrowDtype)


def _run_source(source: str, out: str, executor, jobs, force, address, shard, progress):
    shard_t = None
    if shard is not None:
        from .driver import parse_shard  # noqa: PLC0415

        shard_t = parse_shard(shard) if isinstance(shard, str) else tuple(shard)
    return execute(source, out, executor=executor, jobs=jobs, force=force, address=address,
                   shard=shard_t, progress=progress)


def sweep(plan: Union[str, os.PathLike], executor: Any = "local", jobs: Optional[int] = None,
          out: Union[str, os.PathLike, None] = None, force: bool = False,
          address: Optional[str] = None, shard=None, progress: bool = True):
    """Runs a sweep plan (``scavenger sweep``) and returns a DataFrame of every run's
    parameters and metrics (:func:`load_store`).

    ``executor``: ``"local"`` (threads on this machine), ``"process"``, ``"ray"``
    (``address`` of a cluster, default a local instance) or any
    ``concurrent.futures``-style executor. ``out``: the result store; a rerun resumes
    and skips what it holds (default: a new temporary directory). ``jobs``: parallel
    runs. ``shard``: ``"I/N"`` runs only the keys ≡ I mod N.
    """
    source = _core.plan_source(os.fspath(plan), force)
    out = os.fspath(out) if out is not None else tempfile.mkdtemp(prefix="scavenger-sweep-")
    _run_source(source, out, executor, jobs, force, address, shard, progress)
    if shard is None:
        summary = _core.report(source, out)
        if progress:
            print(summary, end="", file=sys.stderr)
    return load_store(out)


def reproduce(study: str, quick: bool = True, executor: Any = "local",
              jobs: Optional[int] = None, out: Union[str, os.PathLike, None] = None,
              force: bool = False, address: Optional[str] = None, progress: bool = True):
    """Re-runs a source's evaluation (``scavenger reproduce``) and returns the
    published-versus-ours table as a DataFrame (``published-vs-ours.csv``). The report
    (report.html, report.md, summary.txt) is written to ``out`` (default:
    results/STUDY[-quick], as the CLI)."""
    source = _core.study_source(study, quick)
    out = os.fspath(out) if out is not None else str(Path("results") / (f"{study}-quick" if quick else study))
    _run_source(source, out, executor, jobs, force, address, None, progress)
    summary = _core.report(source, out)
    if progress:
        print(summary, end="", file=sys.stderr)
    return _pd().read_csv(Path(out) / "published-vs-ours.csv")


def algorithms():
    """Every algorithm (sender, receiver-side, DA-LBE controllers) with its parameters,
    defaults, units, ranges and sources: one row per parameter."""
    return _pd().DataFrame(json.loads(_core.algorithms()))
