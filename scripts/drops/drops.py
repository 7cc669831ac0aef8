#!/usr/bin/env python3
"""Who takes the drops at the bottleneck, and how each flow's packets arrive there.

Pairs captures taken before and after the forward bottleneck and reports, per flow, the
data packets that went in and never came out (drops), their times, and the arrival
pattern at the queue around them: inter-arrival times, bursts (packets of one flow
arriving less than BURST_GAP apart), where in its burst a dropped packet was, and the
spacing of the ACKs the sender received. docs/validation.md#vfull-drops has the numbers.

  drops.py sim DIR        # `scavenger run --pcap DIR`: NN-NAME.sender/receiver.pcap
  drops.py testbed DIR    # scripts/drops/testbed-capture.sh: tunS.pcap, tunC.pcap
  drops.py ... --replay   # also push the arrivals through an ideal 70-packet drop-tail
                          # queue at 8 Mbit/s and report whose packets it drops

Options: --fg-start S (default 10), --queue N (70), --rate BPS (8e6). Standard library
only (the pcap reader below reads classic pcap, Ethernet or raw IPv4, µs or ns).
"""
import collections
import glob
import os
import struct
import sys

BURST_GAP = 200e-6  # s: a 1500-byte packet takes 1.5 ms at 8 Mbit/s; a host burst is µs
EPISODE_GAP = 0.3  # s: drops closer than this (about 2 RTTs with a full queue) are one episode


def read_pcap(path):
    """Yields (time s, ip bytes) for every IPv4 record."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    else:
        e = ">"
        magic = struct.unpack(">I", data[:4])[0]
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    linktype = struct.unpack(e + "I", data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[off:off + 16])
        rec = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if linktype == 1:
            if len(rec) < 14 or rec[12:14] != b"\x08\x00":
                continue
            rec = rec[14:]
        elif linktype not in (101, 12, 228):
            raise SystemExit(f"{path}: link type {linktype} not read (Ethernet or raw IPv4 only)")
        if len(rec) >= 20 and rec[0] >> 4 == 4:
            yield sec + frac * scale, rec


def tcp_fields(ip):
    """(src, dst, sport, dport, ipid, seq, payload len, tsval) of a TCP/IPv4 packet, or None."""
    ihl = (ip[0] & 15) * 4
    if ip[9] != 6 or len(ip) < ihl + 20:
        return None
    total = struct.unpack(">H", ip[2:4])[0]
    ipid = struct.unpack(">H", ip[4:6])[0]
    src, dst = ip[12:16], ip[16:20]
    t = ip[ihl:]
    sport, dport, seq, ack = struct.unpack(">HHII", t[:12])
    doff = (t[12] >> 4) * 4
    payload = total - ihl - doff
    tsval = None
    opts = t[20:doff]
    i = 0
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts):
            break
        ln = opts[i + 1]
        if kind == 8 and ln == 10 and i + 10 <= len(opts):
            tsval = struct.unpack(">I", opts[i + 2:i + 6])[0]
        i += max(ln, 2)
    return src, dst, sport, dport, ipid, seq, payload, tsval, ack, total, bool(t[13] & 8)


def is_forward(src):
    return src[0] == 10 and src[1] == 1  # senders 10.1.x.y (both datapaths)


class Flow:
    def __init__(self, name):
        self.name = name
        self.arrivals = []  # (t, key, bytes) data packets entering the bottleneck
        self.psh = []  # per arrival: carries PSH
        self.acks = []  # t of ACKs reaching the sender side
        self.drops = []  # t of data packets that never left


def load_sim(d):
    flows = {}
    for snd in sorted(glob.glob(os.path.join(d, "*.sender.pcap"))):
        name = os.path.basename(snd)[: -len(".sender.pcap")]
        fl = Flow(name)
        out = collections.Counter()
        last_out = 0.0
        for t, ip in read_pcap(snd.replace(".sender.", ".receiver.")):
            f = tcp_fields(ip)
            if f and is_forward(f[0]) and f[6] > 0:
                out[(f[2], f[3], f[5], f[7])] += 1
                last_out = t
        for t, ip in read_pcap(snd):
            f = tcp_fields(ip)
            if not f:
                continue
            if is_forward(f[0]):
                if f[6] > 0:
                    # The simulator's IP ID is not the packet's identity (a retransmission
                    # can reuse one); the sequence number and the TSval are (µs ticks).
                    key = (f[2], f[3], f[5], f[7])
                    fl.arrivals.append((t, key, f[9]))
                    fl.psh.append(f[10])
                    if out[key] > 0:
                        out[key] -= 1
                    elif t < last_out - 0.2:  # else still in flight when the run ended
                        fl.drops.append(t)
            else:
                fl.acks.append(t)
        flows[name] = fl
    return flows


def load_testbed(d):
    """tunS: data in (10.1 → 10.2), ACKs out; tunC: data out. Flows by receiver port."""
    out = collections.Counter()
    last_out = 0.0
    for t, ip in read_pcap(os.path.join(d, "tunC.pcap")):
        f = tcp_fields(ip)
        if f and is_forward(f[0]) and f[6] > 0:
            out[(f[2], f[3], f[4], f[5], f[7])] += 1
            last_out = t
    flows = {}
    rows = []
    for t, ip in read_pcap(os.path.join(d, "tunS.pcap")):
        f = tcp_fields(ip)
        if f:
            rows.append((t, f))
    for t, f in rows:
        port = f[3] if is_forward(f[0]) else f[2]
        name = f"{port - 5001:02d}"
        fl = flows.setdefault(name, Flow(name))
        if is_forward(f[0]):
            if f[6] == 0:
                continue
            key = (f[2], f[3], f[4], f[5], f[7])
            fl.arrivals.append((t, key, f[9]))
            fl.psh.append(f[10])
            # Packets still in flight when tunC's capture stopped are not drops.
            if out[key] > 0:
                out[key] -= 1
            elif t < last_out - 0.2:
                fl.drops.append(t)
        else:
            fl.acks.append(t)
    return flows


def bursts(arr):
    """Burst sizes of one flow's arrivals and, for each arrival, (burst index, position)."""
    sizes, pos = [], []
    for i, (t, _k, _b) in enumerate(arr):
        if i == 0 or t - arr[i - 1][0] > BURST_GAP:
            sizes.append(0)
        pos.append((len(sizes) - 1, sizes[-1]))
        sizes[-1] += 1
    return sizes, pos


def pct(v, q):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def replay(flows, queue, rate):
    """Push every flow's arrivals, merged in time order, through an ideal drop-tail queue
    of `queue` packets served at `rate` (the simulator's link: a packet is in the queue
    until its transmission ends). Returns drops per flow."""
    ev = sorted((t, name, b) for name, fl in flows.items() for (t, _k, b) in fl.arrivals)
    dep = collections.deque()  # departure times of queued packets (FIFO)
    free = 0.0
    drops = collections.Counter()
    for t, name, b in ev:
        while dep and dep[0] <= t:
            dep.popleft()
        if len(dep) >= queue:
            drops[name] += 1
            continue
        start = max(t, free)
        free = start + b * 8 / rate
        dep.append(free)
    return drops


def dump_around(flows, t0, at, span, queue, rate):
    """Every arrival within `span` s of `at`: time, flow, gap to the flow's previous arrival,
    queue length found (ideal replay) and whether the replay drops it."""
    ev = sorted((t - t0, name, b, k) for name, fl in flows.items() for (t, k, b) in fl.arrivals)
    drops = {n: set(fl.drops) for n, fl in flows.items()}
    dep = collections.deque()
    free = 0.0
    last = {}
    for t, name, b, k in ev:
        while dep and dep[0] <= t:
            dep.popleft()
        q = len(dep)
        gap = t - last.get(name, t)
        last[name] = t
        full = q >= queue
        if not full:
            start = max(t, free)
            free = start + b * 8 / rate
            dep.append(free)
        if abs(t - at) <= span:
            mark = ("DROP" if full else "") + (" (captured drop)" if t + t0 in drops[name] else "")
            print(f"    {t:10.6f} {name:>6} gap {gap*1e3:7.3f} ms  queue {q:3d} {mark}")


def main():
    args = sys.argv[1:]
    kind, d = args[0], args[1]
    fg_start = float(args[args.index("--fg-start") + 1]) if "--fg-start" in args else 10.0
    queue = int(args[args.index("--queue") + 1]) if "--queue" in args else 70
    rate = float(args[args.index("--rate") + 1]) if "--rate" in args else 8e6
    flows = load_sim(d) if kind == "sim" else load_testbed(d)
    # Common time origin: the first data packet of the flow that starts at 0 s.
    names = sorted(flows)
    t0 = min(fl.arrivals[0][0] for fl in flows.values() if fl.arrivals)
    fg = flows[names[-1]]
    fg_first = fg.arrivals[0][0] - t0
    print(f"{kind} {d}: flows {names}; times from the first data packet; "
          f"foreground's first data at {fg_first:.3f} s")
    fg_end = fg.arrivals[-1][0] - t0
    for name in names:
        fl = flows[name]
        arr = [(t - t0, k, b) for (t, k, b) in fl.arrivals]
        drops = [t - t0 for t in fl.drops]
        sizes, pos = bursts(arr)
        win = [a for a in arr if fg_first <= a[0] <= fg_end]
        gaps = [win[i][0] - win[i - 1][0] for i in range(1, len(win))]
        wsizes, _ = bursts(win)
        acks = [t - t0 for t in fl.acks if fg_first <= t - t0 <= fg_end]
        agaps = [acks[i] - acks[i - 1] for i in range(1, len(acks))]
        before = [t for t in drops if t < fg_first]
        during = [t for t in drops if fg_first <= t <= fg_end]
        psh = sum(p for (t, _k, _b), p in zip(fl.arrivals, fl.psh) if fg_first <= t - t0 <= fg_end)
        print(f"  flow {name}: {len(arr)} data packets in, drops {len(drops)} "
              f"(before fg {len(before)}, while fg runs {len(during)})")
        if win:
            print(f"    while fg runs: PSH on {psh} of {len(win)} ({psh / len(win) * 100:.1f} %), "
                  f"{len(win) / max(len(acks), 1):.2f} data packets per ACK, "
                  f"lone arrivals {sum(x == 1 for x in wsizes) / len(wsizes) * 100:.1f} % of bursts")
        # Where PSH sits in each burst over the whole run, `-` without and `P` with it:
        # Linux's paced tcp_bbr at 8 Mbit/s sends `-P` pairs and lone `-`
        # (docs/deviations/simulator.md#sim-psh-paced).
        shapes = collections.Counter()
        cur = ""
        for i, p in enumerate(fl.psh):
            if i and pos[i][0] != pos[i - 1][0]:
                shapes[cur] += 1
                cur = ""
            cur += "P" if p else "-"
        if cur:
            shapes[cur] += 1
        print(f"    PSH by burst over the run ({sum(shapes.values())} bursts): "
              + ", ".join(f"{k} {n}" for k, n in shapes.most_common(6)))
        print(f"    while fg runs [{fg_first:.2f}, {fg_end:.2f}] s: {len(win)} packets in; "
              f"inter-arrival p10/p50/p90 {pct(gaps,.1)*1e3:.3f}/{pct(gaps,.5)*1e3:.3f}/"
              f"{pct(gaps,.9)*1e3:.3f} ms; bursts (gap < {BURST_GAP*1e6:.0f} µs): "
              f"{len(wsizes)}, sizes {dict(sorted(collections.Counter(wsizes).items()))}")
        pre = [a for a in arr if fg_first - 5 <= a[0] < fg_first]
        if pre:
            packs = sum(1 for t in fl.acks if fg_first - 5 <= t - t0 < fg_first)
            ppsh = sum(p for (t, _k, _b), p in zip(fl.arrivals, fl.psh) if fg_first - 5 <= t - t0 < fg_first)
            psizes, _ = bursts(pre)
            print(f"    the 5 s before fg: {len(pre)} packets in, PSH on {ppsh / len(pre) * 100:.1f} %, "
                  f"{len(pre) / max(packs, 1):.2f} data packets per ACK, bursts "
                  f"{dict(sorted(collections.Counter(psizes).items()))}")
        if agaps:
            print(f"    ACKs at the sender while fg runs: {len(acks)}, spacing p10/p50/p90 "
                  f"{pct(agaps,.1)*1e3:.3f}/{pct(agaps,.5)*1e3:.3f}/{pct(agaps,.9)*1e3:.3f} ms, "
                  f"< 100 µs apart: {sum(g < 1e-4 for g in agaps)/len(agaps)*100:.1f} %")
        if during:
            idx = {round(a[0], 9): i for i, a in enumerate(arr)}
            where = collections.Counter()
            for t in during:
                i = idx.get(round(t, 9))
                if i is None:
                    continue
                b, p = pos[i]
                where[(sizes[b], p + 1)] += 1
            print("    drops while fg runs by (burst size, position in burst): "
                  + ", ".join(f"{s}:{p}×{n}" for (s, p), n in sorted(where.items())))
        print(f"    drop times: {' '.join(f'{t:.3f}' for t in drops[:60])}"
              + (" …" if len(drops) > 60 else ""))
    # Episodes: who loses in each cluster of drops.
    alld = sorted((t - t0, n) for n, fl in flows.items() for t in fl.drops)
    eps = []
    for t, n in alld:
        if eps and t - eps[-1][1] < EPISODE_GAP:
            eps[-1][1] = t
            eps[-1][2][n] += 1
        else:
            eps.append([t, t, collections.Counter({n: 1})])
    print("  drop episodes (start s: drops per flow):")
    for s, e, c in eps:
        print(f"    {s:8.3f}-{e:7.3f}: " + ", ".join(f"{n}×{c[n]}" for n in names if c[n]))
    if "--around" in args:
        at = float(args[args.index("--around") + 1])
        span = float(args[args.index("--span") + 1]) if "--span" in args else 0.02
        dump_around(flows, t0, at, span, queue, rate)
    if "--replay" in args:
        r = replay(flows, queue, rate)
        print(f"  replay through an ideal {queue}-packet drop-tail queue at {rate/1e6:g} Mbit/s: "
              + ", ".join(f"{n} {r[n]}" for n in names) + "  (captured: "
              + ", ".join(f"{n} {len(flows[n].drops)}" for n in names) + ")")


if __name__ == "__main__":
    main()
