"""Bad input raises ScenarioError naming the field, with the CLI's message."""

import subprocess

import pytest

import scavenger

BASE = 'duration = "1s"\n[link]\nrate = "8Mbit"\ndelay = "10ms"\nbuffer = "10 packets"\n[[flow]]\nalgorithm = "{alg}"\n'


def test_bad_algorithm_names_the_field(tmp_path, cli):
    text = BASE.format(alg="warp-speed")
    with pytest.raises(scavenger.ScenarioError) as e:
        scavenger.run(text)
    assert e.value.field == "flow[0].algorithm"
    assert "warp-speed" in str(e.value)
    # The CLI says the same.
    p = tmp_path / "bad.toml"
    p.write_text(text)
    err = subprocess.run([cli, "run", str(p)], capture_output=True, text=True).stderr
    msg = str(e.value).replace("<string>", str(p))
    assert msg in err


def test_bad_parameter_and_unit(tmp_path):
    with pytest.raises(scavenger.ScenarioError) as e:
        scavenger.run(BASE.format(alg="ledbat") + '[flow.params]\ntarget = "fast"\n')
    assert e.value.field == "flow[0].params.target"
    with pytest.raises(scavenger.ScenarioError) as e:
        scavenger.run({"duration": "1s", "link": {"rate": "8 parsecs", "delay": "10ms", "buffer": "1BDP"},
                       "flow": [{"algorithm": "cubic"}]})
    assert e.value.field == "link.rate"
    assert e.value.file == "<dict>"


def test_none_missing_file_and_bad_plan(tmp_path):
    with pytest.raises(scavenger.ScenarioError, match="not None"):
        scavenger.run({"link": None})
    with pytest.raises(scavenger.ScenarioError, match="cannot read"):
        scavenger.run(tmp_path / "nope.toml")
    p = tmp_path / "plan.toml"
    p.write_text('scenario = "missing.toml"\n')
    with pytest.raises(scavenger.ScenarioError) as e:
        scavenger.sweep(p, out=tmp_path / "s")
    assert e.value.field == "scenario"
    with pytest.raises(scavenger.RunError, match="ong2020"):
        scavenger.reproduce("nonesuch")
    with pytest.raises(TypeError):
        scavenger.run(42)


def test_store_in_use(tmp_path, plan):
    store = scavenger._core.ResultStore(str(tmp_path / "s"))
    try:
        with pytest.raises(scavenger.StoreError, match="in use by"):
            scavenger.sweep(plan, out=tmp_path / "s")
    finally:
        store.close()
