"""`scavenger sweep|reproduce ... --executor ray` from the command line: the CLI hands the
command to `python -m scavenger` (crates/cli/src/ray.rs), which starts a local Ray
instance with `--jobs` CPUs and writes the same store as the CLI's own executor."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("ray")

from conftest import keys, make_plan, normalised  # noqa: E402


def _env():
    env = dict(os.environ)
    env["SCAVENGER_PYTHON"] = sys.executable
    env.setdefault("RAY_AUTH_MODE", "disabled")
    env.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    return env


def test_cli_sweep_on_ray_writes_the_local_store(tmp_path, cli):
    plan = make_plan(tmp_path, delays=["10ms", "20ms"], seeds=1, duration="2s")
    r = subprocess.run([cli, "sweep", str(plan), "--executor", "ray", "--jobs", "2",
                        "--out", str(tmp_path / "ray")], capture_output=True, text=True,
                       env=_env(), timeout=600)
    assert r.returncode == 0, r.stderr
    assert "4 runs in" in r.stderr
    subprocess.run([cli, "sweep", str(plan), "--out", str(tmp_path / "local")], check=True,
                   capture_output=True)
    assert len(keys(tmp_path / "ray")) == 4
    assert normalised(tmp_path / "ray") == normalised(tmp_path / "local")


def test_cli_reproduce_on_ray_prints_the_report(tmp_path, cli):
    r = subprocess.run([cli, "reproduce", "hayes2011", "--quick", "--executor", "ray",
                        "--jobs", "2", "--out", str(tmp_path / "h")], capture_output=True,
                       text=True, env=_env(), timeout=900)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "h" / "published-vs-ours.csv").is_file()
    subprocess.run([cli, "reproduce", "hayes2011", "--quick", "--out", str(tmp_path / "l")],
                   check=True, capture_output=True)
    assert normalised(tmp_path / "h") == normalised(tmp_path / "l")


def test_cli_ray_without_the_package_says_how_to_install(tmp_path, cli):
    plan = make_plan(tmp_path, delays=["10ms"], seeds=1, duration="1s")
    env = _env()
    env["SCAVENGER_PYTHON"] = str(tmp_path / "no-such-python")
    r = subprocess.run([cli, "sweep", str(plan), "--executor", "ray", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2
    assert "SCAVENGER_PYTHON" in r.stderr and "no-such-python" in r.stderr
