#!/usr/bin/env python3
"""How the receiver acknowledges at small windows: one flow, both datapaths.

For each data segment seen at the receiver's side of the bottleneck (simulator: the
receiver's pcap; testbed: tunC, where data leaves the emulated link and ACKs enter it)
finds the first ACK that covers it and reports, per segment, the delay from its arrival
to that ACK, and per ACK, how many segments it covered and why it went (the newest
covered segment's delay and PSH flag). The flight is counted at the sender's side (sim:
the sender's pcap; testbed: tunS) when the segment left: the highest sequence sent minus
the highest ACK received, in segments. docs/validation.md#psh-small-window has the numbers.

  ackdelay.py sim DIR [--flow NAME] [--from S] [--to S]  # `scavenger run --pcap DIR`
  ackdelay.py testbed DIR [--port P] [--from S] [--to S] # scripts/drops/testbed-capture.sh

--flow picks the simulator's flow by name (needed with more than one), --port the
testbed's by its receiver port (default: every TCP flow of the capture); --from/--to the
window in seconds from the first packet (default 5 s to the end).

Standard library only; reads pcaps with drops.py's reader.
"""
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from drops import is_forward, read_pcap, tcp_fields  # noqa: E402

MSS = 1448
IMMEDIATE = 0.001  # s: an ACK within 1 ms of the segment was sent on its arrival


def load(kind, d, flow):
    if kind == "sim":
        rcv = glob.glob(os.path.join(d, f"*{flow}.receiver.pcap"))
        snd = glob.glob(os.path.join(d, f"*{flow}.sender.pcap"))
        if len(rcv) != 1 or len(snd) != 1:
            raise SystemExit(f"{d}: expected one flow's sender and receiver pcap")
        return rcv[0], snd[0]
    return os.path.join(d, "tunC.pcap"), os.path.join(d, "tunS.pcap")


def flights(path):
    """(sport, seq, tsval) -> flight in segments when the segment was sent."""
    out = {}
    hi_seq = None
    hi_ack = None
    for _t, ip in read_pcap(path):
        f = tcp_fields(ip)
        if not f:
            continue
        if is_forward(f[0]):
            if f[6] > 0:
                end = (f[5] + f[6]) & 0xFFFFFFFF
                if hi_seq is None or ((end - hi_seq) & 0xFFFFFFFF) < 1 << 31:
                    hi_seq = end
                if hi_ack is not None:
                    out[(f[2], f[5], f[7])] = ((hi_seq - hi_ack) & 0xFFFFFFFF) / MSS
        else:
            if hi_ack is None or ((f[8] - hi_ack) & 0xFFFFFFFF) < 1 << 31:
                hi_ack = f[8]
    return out


def main():
    kind, d = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    t_from = float(args[args.index("--from") + 1]) if "--from" in args else 5.0
    t_to = float(args[args.index("--to") + 1]) if "--to" in args else 1e9
    flow = args[args.index("--flow") + 1] if "--flow" in args else ""
    port = int(args[args.index("--port") + 1]) if "--port" in args else None
    rcv, snd = load(kind, d, flow)
    fl = flights(snd)
    segs = []  # [t, seq_end, psh, flight]
    acks = []  # (t, ack)
    for t, ip in read_pcap(rcv):
        f = tcp_fields(ip)
        if not f or (port is not None and port not in (f[2], f[3])):
            continue
        if is_forward(f[0]):
            if f[6] > 0:
                segs.append([t, (f[5] + f[6]) & 0xFFFFFFFF, f[10], fl.get((f[2], f[5], f[7]))])
        else:
            acks.append((t, f[8]))
    t0 = min(segs[0][0], acks[0][0]) if acks else segs[0][0]
    # Per segment: the first later ACK at or past its end.
    delays = collections.Counter()
    by_flight = collections.defaultdict(collections.Counter)
    per_ack = collections.Counter()
    cause = collections.Counter()
    flight_hist = collections.Counter()
    j = 0
    pending = []  # segments not yet covered, oldest first
    n = 0
    for s in segs:
        while j < len(acks) and acks[j][0] < s[0]:
            a = acks[j]
            covered = [p for p in pending if ((a[1] - p[1]) & 0xFFFFFFFF) < 1 << 31]
            if covered:
                pending = [p for p in pending if p not in covered]
                if t_from <= a[0] - t0 < t_to:
                    newest = covered[-1]
                    dt = a[0] - newest[0]
                    k = len(covered)
                    per_ack[min(k, 4)] += 1
                    if dt < IMMEDIATE:
                        why = ("2+ segs" if k >= 2 else ("lone PSH" if newest[2] else "lone no-PSH")) + " immediate"
                    elif dt < 0.030:
                        why = "1-30 ms"
                    elif dt < 0.070:
                        why = "30-70 ms (timer)"
                    else:
                        why = ">= 70 ms"
                    cause[why] += 1
                    for p in covered:
                        dp = a[0] - p[0]
                        b = "immediate" if dp < IMMEDIATE else ("1-30 ms" if dp < 0.030 else ("30-70 ms" if dp < 0.070 else ">= 70 ms"))
                        delays[b] += 1
                        fb = "?" if p[3] is None else (str(int(round(p[3]))) if p[3] < 3.5 else "4+")
                        by_flight[fb][b] += 1
                        flight_hist[fb] += 1
            j += 1
        pending.append(s)
        if t_from <= s[0] - t0 < t_to:
            n += 1
    psh = sum(1 for s in segs if t_from <= s[0] - t0 < t_to and s[2])
    print(f"{kind} {d}: window {t_from}-{min(t_to, segs[-1][0] - t0):.1f} s")
    print(f"data segments {n}, with PSH {psh} ({100 * psh / max(n, 1):.1f} %)")
    na = sum(per_ack.values())
    print(f"ACKs covering data {na}, segments per ACK {sum(delays.values()) / max(na, 1):.2f};"
          f" covering 1/2/3/4+: " + " / ".join(str(per_ack[k]) for k in (1, 2, 3, 4)))
    print("why each ACK went (newest covered segment):")
    for k, v in sorted(cause.items(), key=lambda x: -x[1]):
        print(f"  {k:28s} {v:7d} ({100 * v / max(na, 1):.1f} %)")
    tot = sum(delays.values())
    print("segment -> covering ACK delay: " + ", ".join(
        f"{b} {delays[b]} ({100 * delays[b] / max(tot, 1):.1f} %)" for b in ("immediate", "1-30 ms", "30-70 ms", ">= 70 ms")))
    print("by flight at send (segments): n, immediate %, 30-70 ms %")
    for fb in sorted(by_flight):
        c = by_flight[fb]
        m = sum(c.values())
        print(f"  {fb:>3s} {m:7d} {100 * c['immediate'] / m:6.1f} {100 * c['30-70 ms'] / m:6.1f}")


if __name__ == "__main__":
    main()
