"""The Ray executor on a local cluster of two worker processes."""

import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import scavenger  # noqa: E402
from conftest import keys, make_plan, normalised  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_and_local_give_the_same_store(tmp_path, plan, cluster):
    scavenger.sweep(plan, executor="ray", out=tmp_path / "ray", progress=False)
    scavenger.sweep(plan, executor="local", jobs=2, out=tmp_path / "local", progress=False)
    assert normalised(tmp_path / "ray") == normalised(tmp_path / "local")
    assert len(keys(tmp_path / "ray")) == 12


def _ray_task_pids():
    """Worker processes running a batch (Ray titles them `ray::run_batch`)."""
    pids = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            cmd = (p / "cmdline").read_bytes()
        except OSError:
            continue
        if cmd.startswith(b"ray::run_batch"):
            pids.append(int(p.name))
    return pids


def test_killed_worker_loses_and_duplicates_no_run(tmp_path, cluster):
    # Runs long enough (about 0.25 s of CPU each, a batch of four about 1 s) that the
    # killer, polling every 10 ms, finds a batch running: with 8 s runs (5 ms each) the
    # batches were over before it looked, and the test failed on a fast idle machine.
    plan = make_plan(tmp_path, delays=[f"{10 + i}ms" for i in range(8)], seeds=3, duration="600s")
    killed = []

    def killer():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            # A worker titled `ray::run_batch` is inside a batch (Ray retitles it when
            # idle), so killing it at once kills it mid-batch.
            for pid in _ray_task_pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    continue  # the batch ended between the scan and the kill
                killed.append(pid)
                break
            time.sleep(0.01)

    k = threading.Thread(target=killer)
    k.start()
    from scavenger.driver import execute

    source = scavenger._core.plan_source(str(plan))
    execute(source, str(tmp_path / "ray"), executor="ray", batch=4, progress=False)
    k.join()
    assert killed, "no worker was running a batch to kill"
    got = Counter(keys(tmp_path / "ray"))
    want = {k for k, _, _ in scavenger._core.items(source)}
    assert set(got) == want, "no run lost"
    assert max(got.values()) == 1, "no run stored twice"
    scavenger.sweep(plan, out=tmp_path / "local", progress=False)
    assert normalised(tmp_path / "ray") == normalised(tmp_path / "local")
