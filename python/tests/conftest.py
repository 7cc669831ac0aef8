import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> str:
    """The scavenger binary of this checkout (scripts/test-all builds it)."""
    exe = os.environ.get("SCAVENGER_BIN") or str(REPO / "target" / "release" / "scavenger")
    if not Path(exe).is_file():
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "scavenger-cli"], cwd=REPO, check=True)
    return exe


WALL = re.compile(rb'"wall_time_s":[^,}]*')


def normalised(store) -> list:
    """A store's lines sorted, the wall time blanked: the one field that differs between
    two runs of the same item."""
    data = (Path(store) / "results.jsonl").read_bytes()
    return sorted(WALL.sub(b'"wall_time_s":0', l) for l in data.splitlines() if l.strip())


def keys(store) -> list:
    data = (Path(store) / "results.jsonl").read_bytes()
    return [l[8:40].decode() for l in data.splitlines() if l.strip()]


@pytest.fixture
def plan(tmp_path) -> Path:
    """6 settings × 2 seeds of a 2-second scenario (12 runs)."""
    return make_plan(tmp_path, delays=["10ms", "20ms", "30ms"], seeds=2, duration="2s")


def make_plan(d: Path, delays, seeds, duration) -> Path:
    (d / "base.toml").write_text(
        f'duration = "{duration}"\n[link]\nrate = "10Mbit"\ndelay = "10ms"\nbuffer = "1BDP"\n'
        '[[flow]]\nname = "a"\nalgorithm = "cubic"\n'
        '[[flow]]\nname = "b"\nalgorithm = "ledbat"\n'
    )
    vals = ", ".join(f'"{x}"' for x in delays)
    p = d / "plan.toml"
    p.write_text(
        f'name = "t"\nscenario = "base.toml"\nrepetitions = {seeds}\n'
        f'[[vary]]\nset = "link.delay"\nvalues = [{vals}]\n'
        '[[vary]]\nset = "flow.b.params.target"\nvalues = ["25ms", "100ms"]\n'
    )
    return p
