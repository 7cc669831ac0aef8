"""The distributed driver: runs a study's or a plan's work items on any
``concurrent.futures``-style executor and appends the records to one result store.

Design (docs/distributed.md):

* The driver expands the source (a study or a plan) into keyed items, drops the keys the
  store already holds, and submits batches of tens of keys, so scheduling overhead stays
  small next to the simulations.
* A worker runs a batch through the Rust core (``_scavenger.run_batch``) and *returns*
  the store lines; it writes nothing, so workers need no shared file system.
* The driver is the one writer: it appends each finished batch and syncs it, in
  completion order. A crash loses at most the batches in flight; the same command
  resumes and skips what is stored. A worker killed mid-batch loses nothing: Ray retries
  the task (``max_retries``), and a batch whose lines arrive twice is not stored twice
  (the driver appends only keys it does not hold).
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import sys
import time
from typing import Any, Callable, Optional

from . import _scavenger as _core

#: Seconds between progress lines.
LOG_EVERY = 5.0


def run_batch(source: str, keys: list[str]) -> list[str]:
    """Runs one batch on a worker; module-level so every executor can pickle it."""
    return _core.run_batch(source, keys)


class RayExecutor:
    """A ``concurrent.futures``-style executor over Ray tasks.

    ``address=None`` starts a local Ray instance with ``num_cpus`` (default: all cores);
    an address (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``) joins a running
    cluster. Tasks take one CPU and are retried up to ``max_retries`` times when their
    worker dies.
    """

    def __init__(self, address: Optional[str] = None, num_cpus: Optional[int] = None,
                 max_retries: int = 3, runtime_env: Optional[dict] = None):
        import ray  # noqa: PLC0415 (optional dependency)

        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if runtime_env:
                kw["runtime_env"] = runtime_env
            if address:
                ray.init(address=address, **kw)
            else:
                ray.init(num_cpus=num_cpus, **kw)
            self._started = True
        self._remote = ray.remote(num_cpus=1, max_retries=max_retries)(run_batch)

    def submit(self, fn: Callable, *args: Any) -> cf.Future:
        if fn is not run_batch:
            return self._ray.remote(fn).remote(*args).future()
        return self._remote.remote(*args).future()

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False

    def __enter__(self) -> "RayExecutor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


def make_executor(executor: Any, jobs: Optional[int], address: Optional[str]):
    """``"local"``: threads in this process (the core releases the interpreter lock);
    ``"process"``: a process pool; ``"ray"``: :class:`RayExecutor`; anything with a
    ``submit`` method (a Dask ``client.get_executor()``, a pool) is used as it is.
    Returns (executor, owned, workers)."""
    if executor == "local" or executor is None:
        n = jobs or os.cpu_count() or 1
        return cf.ThreadPoolExecutor(max_workers=n), True, n
    if executor == "process":
        n = jobs or os.cpu_count() or 1
        return cf.ProcessPoolExecutor(max_workers=n), True, n
    if executor == "ray":
        ex = RayExecutor(address=address, num_cpus=jobs)
        n = jobs or int(ex._ray.cluster_resources().get("CPU", 1))
        return ex, True, n
    if hasattr(executor, "submit"):
        n = jobs or getattr(executor, "_max_workers", None) or os.cpu_count() or 1
        return executor, False, n
    raise ValueError(
        f'executor {executor!r}: expected "local", "process", "ray" or an object with '
        "a submit(fn, *args) method (concurrent.futures.Executor)"
    )


def batch_size(todo: int, workers: int) -> int:
    """Tens of runs per task: about four tasks per worker, between 10 and 50 runs each
    (fewer only when there are fewer runs)."""
    if todo == 0:
        return 1
    return max(1, min(todo, max(10, min(50, math.ceil(todo / (4 * workers))))))


def shard_holds(key: str, shard: Optional[tuple[int, int]]) -> bool:
    """``--shard I/N``: the key read as a hex number, modulo N, is I (as in the CLI)."""
    if shard is None:
        return True
    i, n = shard
    return int(key, 16) % n == i


def parse_shard(s: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in s.split("/"))
    except ValueError:
        raise ValueError(f'"{s}" is not a shard; write I/N with 0 <= I < N') from None
    if n < 1 or not 0 <= i < n:
        raise ValueError(f'"{s}": write I/N with 0 <= I < N, for example 0/4')
    return i, n


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}h{s // 60 % 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class _Progress:
    """A line every LOG_EVERY seconds (overwritten in place on a terminal)."""

    def __init__(self, total: int, stream=None):
        self.total, self.done, self.t0 = total, 0, time.monotonic()
        self.last = self.t0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()

    def line(self) -> str:
        el = time.monotonic() - self.t0
        eta = ""
        if 0 < self.done < self.total:
            eta = f", ETA {_hms((self.total - self.done) * el / self.done)}"
        rate = self.done / el if el > 0 else 0.0
        return f"{self.done}/{self.total} runs done, {rate:.1f} runs/s, {_hms(el)} elapsed{eta}"

    def add(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if self.tty:
            print("\r" + self.line(), end="", file=self.stream, flush=True)
        elif now - self.last >= LOG_EVERY:
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def finish(self) -> None:
        if self.tty:
            print(file=self.stream)


def execute(source: str, out: str, executor: Any = "local", jobs: Optional[int] = None,
            force: bool = False, address: Optional[str] = None,
            shard: Optional[tuple[int, int]] = None, batch: Optional[int] = None,
            progress: bool = True) -> dict:
    """Runs every item of ``source`` missing from the store ``out`` (all with ``force``)
    on ``executor`` and appends the records. Returns counts: ran, skipped, total."""
    items = _core.items(source)
    items = [it for it in items if shard_holds(it[0], shard)]
    os.makedirs(out, exist_ok=True)
    store = _core.ResultStore(out)  # the lock: one writer per store
    try:
        for r in store.repairs():
            print(f"warning: {r}", file=sys.stderr)
        _core.describe_store(source, out, force)
        todo = [k for k, _, _ in items if force or k not in store]
        ex, owned, workers = make_executor(executor, jobs, address)
        size = batch or batch_size(len(todo), workers)
        batches = [todo[i:i + size] for i in range(0, len(todo), size)]
        prog = _Progress(len(todo)) if progress else None
        stored: set[str] = set()
        t0 = time.monotonic()
        try:
            futures = {ex.submit(run_batch, source, b): b for b in batches}
            for f in cf.as_completed(futures):
                keys = futures[f]
                lines = f.result()
                if len(lines) != len(keys):
                    raise _core.RunError(f"a worker returned {len(lines)} records for {len(keys)} runs")
                # A retried batch may come back after a rerun stored it: store each key once.
                new = [(k, l) for k, l in zip(keys, lines) if k not in stored]
                store.append_lines(new)
                stored.update(k for k, _ in new)
                if prog:
                    prog.add(len(keys))
        finally:
            if owned:
                ex.shutdown(wait=True, cancel_futures=True)
            if prog:
                prog.finish()
        wall = time.monotonic() - t0
        if progress:
            print(f"{len(todo)} runs in {wall:.1f} s ({len(items) - len(todo)} of {len(items)} "
                  f"already in {out})", file=sys.stderr)
        return {"ran": len(todo), "skipped": len(items) - len(todo), "total": len(items),
                "wall_s": wall, "batch": size, "workers": workers}
    finally:
        store.close()


