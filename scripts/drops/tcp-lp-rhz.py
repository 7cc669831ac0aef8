#!/usr/bin/env python3
"""TCP-LP's remote-HZ estimate and its early indications, from either datapath.

tcp_lp.c (Linux 4.4, our default `owd_clock`) computes its "OWD" as
tsval·(1000/remote_hz) − tsecr·(1000/HZ) with an integer factor 1000/remote_hz, so when
the estimate crosses 200 or 250 the factor moves between 5, 4 and 3 and the OWD jumps by a
whole TSval: an early indication, and cwnd 1 if a second follows within the inference
period (docs/deviations/tcp-lp.md#tcp-lp-owd-clock). This prints, for one flow, every
change of the factor and of the early-indication count, with the window, and a summary.

  tcp-lp-rhz.py agent DIR          # SCAVENGER_AGENT_TRACE=DIR scavenger testbed run ...
  tcp-lp-rhz.py sim SERIES.csv     # scavenger run SCENARIO --out DIR (series_bin set)

docs/validation.md#tcp-lp-350-rhz has what it showed at 350 ms.
"""
import csv
import glob
import sys


def agent_rows(d):
    # The socket with the most records is the data flow (the other is the control one).
    path = max(glob.glob(d + "/agent-*.csv"), key=lambda p: sum(1 for _ in open(p)))
    rows = list(csv.DictReader(open(path)))
    t0 = int(rows[0]["ts_ns"])
    for x in rows:
        st = dict(kv.split("=", 1) for kv in x["state"].split(";"))
        yield ((int(x["ts_ns"]) - t0) / 1e9, x["kind"], x["cwnd_pkts"],
               st.get("remote_hz"), st.get("early_events"))


def sim_rows(path):
    for x in csv.DictReader(open(path)):
        cwnd = x.get("bg_cwnd_bytes", "nan")
        pkts = str(round(float(cwnd) / 1448)) if cwnd not in ("", "NaN", "nan") else "?"
        yield (float(x["time_s"]), "bin", pkts, x.get("bg_remote_hz"), x.get("bg_early_events"))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("agent", "sim"):
        sys.exit(__doc__)
    rows = agent_rows(sys.argv[2]) if sys.argv[1] == "agent" else sim_rows(sys.argv[2])
    prev = (None, None)
    hz = []
    early = "0"
    for t, kind, cwnd, rhz, ev in rows:
        try:
            r = int(float(rhz))
        except (TypeError, ValueError):
            continue
        if r <= 0:
            continue
        hz.append(r)
        early = ev
        key = (1000 // r, ev)
        if key != prev:
            print(f"{t:8.3f} s  {kind:10} cwnd {cwnd:>5}  remote_hz {r:3}  factor {1000 // r}  early {ev}")
        prev = key
    if not hz:
        sys.exit("no remote_hz in the input (is the algorithm tcp-lp with owd_clock = linux-4.4?)")
    changes = sum(1 for a, b in zip(hz, hz[1:]) if 1000 // a != 1000 // b)
    print(f"remote_hz first {hz[0]} min {min(hz)} max {max(hz)} last {hz[-1]}; "
          f"factor changes {changes}; early indications {early}")


if __name__ == "__main__":
    main()
