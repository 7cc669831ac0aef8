"""Sweeps: DataFrames out, resumable, the same store on every executor."""

import concurrent.futures as cf
import subprocess

import pytest

import scavenger
from conftest import keys, normalised


def test_sweep_dataframe_and_resume(tmp_path, plan, capsys):
    out = tmp_path / "s"
    df = scavenger.sweep(plan, out=out, jobs=2)
    assert len(df) == 12
    assert {"param.link.delay", "param.flow.b.params.target", "seed", "version", "commit",
            "flows.a.goodput_bps", "flows.b.rtt_ms.mean"} <= set(df.columns)
    assert sorted(df["param.link.delay"].unique()) == ["10ms", "20ms", "30ms"]
    assert str(df["flows.a.goodput_bps"].dtype) == "double[pyarrow]"
    capsys.readouterr()
    # Resumes: nothing to run the second time, and the store is unchanged.
    before = (out / "results.jsonl").read_bytes()
    df2 = scavenger.sweep(plan, out=out)
    assert "0 runs in" in capsys.readouterr().err
    assert (out / "results.jsonl").read_bytes() == before
    assert df2.equals(df)


def test_executors_give_the_cli_store(tmp_path, plan, cli):
    """The CLI, threads, a process pool and a user's executor: the same store, sorted."""
    subprocess.run([cli, "sweep", str(plan), "--out", str(tmp_path / "cli")], check=True,
                   capture_output=True)
    want = normalised(tmp_path / "cli")
    assert len(want) == 12
    scavenger.sweep(plan, out=tmp_path / "local", jobs=2, progress=False)
    scavenger.sweep(plan, executor="process", out=tmp_path / "proc", jobs=2, progress=False)
    with cf.ThreadPoolExecutor(3) as ex:
        scavenger.sweep(plan, executor=ex, out=tmp_path / "mine", progress=False)
    for d in ["local", "proc", "mine"]:
        assert normalised(tmp_path / d) == want, d
    # And the CLI's report reads a store the driver wrote.
    r = subprocess.run([cli, "report", str(tmp_path / "local")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_driver_shards_merge_to_the_whole(tmp_path, plan, cli):
    for s in ["0/2", "1/2"]:
        scavenger.sweep(plan, out=tmp_path / s.replace("/", "of"), shard=s, progress=False)
    subprocess.run([cli, "sweep", str(plan), "--out", str(tmp_path / "cli"), "--shard", "0/2"],
                   check=True, capture_output=True)
    assert normalised(tmp_path / "cli") == normalised(tmp_path / "0of2")
    subprocess.run([cli, "merge", str(tmp_path / "m"), str(tmp_path / "0of2"), str(tmp_path / "1of2")],
                   check=True, capture_output=True)
    scavenger.sweep(plan, out=tmp_path / "all", progress=False)
    assert normalised(tmp_path / "m") == normalised(tmp_path / "all")


def test_reproduce_quick_table(tmp_path):
    t = scavenger.reproduce("hayes2011", quick=True, out=tmp_path / "h", progress=False)
    assert len(t) > 0
    assert (tmp_path / "h" / "report.html").is_file()
