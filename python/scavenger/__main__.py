"""``python -m scavenger reproduce|sweep ... --executor ray``: the Python driver behind
``scavenger reproduce/sweep --executor ray`` (crates/cli/src/ray.rs passes its flags)."""

from __future__ import annotations

import argparse
import sys

from . import RunError, ScenarioError, StoreError, _core, _run_source


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m scavenger")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("reproduce", "sweep"):
        s = sub.add_parser(name)
        s.add_argument("target", help="the study (reproduce) or the plan file (sweep)")
        if name == "reproduce":
            s.add_argument("--quick", action="store_true")
        s.add_argument("--out", required=True)
        s.add_argument("--force", action="store_true")
        s.add_argument("--jobs", type=int)
        s.add_argument("--executor", default="ray", choices=["local", "process", "ray"])
        s.add_argument("--address")
        s.add_argument("--shard")
    a = p.parse_args(argv)
    try:
        if a.cmd == "reproduce":
            source = _core.study_source(a.target, a.quick)
        else:
            source = _core.plan_source(a.target, a.force)
        _run_source(source, a.out, a.executor, a.jobs, a.force, a.address, a.shard, True)
        if a.shard:
            print(f"shard {a.shard} done; join the shards with `scavenger merge OUT {a.out} ...` "
                  "and run `scavenger report OUT`", file=sys.stderr)
            return 0
        print(_core.report(source, a.out), end="")
        return 0
    except (ScenarioError, StoreError, RunError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: stored runs are kept; run the same command again to resume",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
