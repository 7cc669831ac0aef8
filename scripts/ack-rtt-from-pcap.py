#!/usr/bin/env python3
"""Mean RTT of the bulk flow in a sender-side capture, three ways (docs/validation.md#vfull-rtt).

Usage: scripts/ack-rtt-from-pcap.py CAPTURE.pcap [...]
(`scavenger run --pcap DIR` writes NN-NAME.sender.pcap; on the testbed, tcpdump in the
sender's namespace, e.g. `ip netns exec scvtb-PID-0-h0 tcpdump -i any -s 128 -w F tcp`.)
The flow is the (address, port) that sends the most payload; only ACKs to it count.

1. Per-ACK RTT as the simulator's reported RTT
(crates/sim/src/sender.rs on_ack: the newest newly cumulatively acknowledged segment that
was neither retransmitted nor SACKed before; no sample when the cumulative part covers a
retransmission; SACK-only ACKs give none). Its mean is the simulator's `rtt_ms.mean`
(checked: 565.8 ms on validate's alone/350ms/newreno, both ways).
2. The timestamp-echo RTT (now - TSecr, in the capture's clock, on every ACK of new data).
3. srtt (RFC 6298, gain 1/8, from the oldest newly acknowledged never-retransmitted
segment, cumulative else SACKed, as Linux's tcp_ack_update_rtt) polled every 10 ms and
weighted by the segments newly delivered (cumulative + SACK), as the testbed's
`rtt_ms.mean` from TCP_INFO (docs/deviations/testbed.md#testbed-rtt-tcp-info).
Appending `--bins` prints the samples of 1 per 2-s bin (count/mean ms)."""
import struct, sys, statistics

def packets(path):
    with open(path, 'rb') as f:
        gh = f.read(24)
        magic = struct.unpack('<I', gh[:4])[0]
        nano = magic == 0xa1b23c4d
        linktype = struct.unpack('<I', gh[20:24])[0]
        while True:
            h = f.read(16)
            if len(h) < 16: return
            s, frac, incl, orig = struct.unpack('<IIII', h)
            d = f.read(incl)
            t = s + frac * (1e-9 if nano else 1e-6)
            off = {1: 14, 113: 16, 276: 20}.get(linktype, 0)
            et = {1: d[12:14], 113: d[14:16], 276: d[0:2]}.get(linktype)
            if et is not None and struct.unpack('>H', et)[0] != 0x0800: continue
            ip = d[off:]
            if ip[0] >> 4 != 4 or ip[9] != 6: continue
            ihl = (ip[0] & 15) * 4
            tot = struct.unpack('>H', ip[2:4])[0]
            src = ip[12:16]; dst = ip[16:20]
            tcp = ip[ihl:]
            sp, dp, seq, ack = struct.unpack('>HHII', tcp[:12])
            doff = (tcp[12] >> 4) * 4
            flags = tcp[13]
            opts = tcp[20:doff]
            sacks = []; tsval = tsecr = None
            i = 0
            while i < len(opts):
                k = opts[i]
                if k == 0: break
                if k == 1: i += 1; continue
                if i + 1 >= len(opts): break
                l = opts[i+1]
                if l < 2: break
                if k == 5:
                    for j in range(i+2, i+l, 8):
                        sacks.append(struct.unpack('>II', opts[j:j+8]))
                if k == 8:
                    tsval, tsecr = struct.unpack('>II', opts[i+2:i+10])
                i += l
            plen = tot - ihl - doff
            yield t, (src, sp), (dst, dp), seq, ack, flags, plen, sacks, tsval, tsecr

def main(path):
    pk = list(packets(path))
    # data direction: the endpoint that sends the most payload
    by = {}
    for p in pk: by[p[1]] = by.get(p[1], 0) + p[6]
    snd = max(by, key=by.get)
    segs = {}   # seq -> [end, first_send, retransmitted, sacked, acked]
    order = []
    una = None
    samples = []; echo = []
    srtt = None; delivered = 0
    polls = []  # (t, srtt, delivered)
    next_poll = None
    high = None
    ts_sent = {}  # tsval -> first time (for echo rtt in the capture's own clock)
    for t, src, dst, seq, ack, flags, plen, sacks, tsval, tsecr in pk:
        if next_poll is None: next_poll = t + 0.01
        while t >= next_poll:
            polls.append((next_poll, srtt, delivered)); next_poll += 0.01
        if src == snd:
            if plen > 0:
                if tsval is not None and tsval not in ts_sent: ts_sent[tsval] = t
                if high is not None and seq < high:
                    # a retransmission (possibly cut differently from the original
                    # GSO packet): Karn for every range it overlaps
                    for s2 in order:
                        g = segs[s2]
                        if s2 < seq + plen and g[0] > seq: g[2] = True
                    if seq not in segs:
                        segs[seq] = [seq + plen, t, True, False, False]
                        order.append(seq); order.sort()
                else:
                    segs[seq] = [seq + plen, t, False, False, False]; order.append(seq)
                    high = seq + plen
            continue
        if dst != snd or not (flags & 0x10): continue
        # SACK part first collects, cum part
        last_cum = None; first_cum = None; retr = False; newly = 0
        first_sack = None
        for s in list(order):
            g = segs[s]
            if g[4]: continue
            if g[0] <= ack and ((ack - s) & 0xffffffff) < 1 << 31:
                if g[2]: retr = True
                elif not g[3]:
                    if first_cum is None: first_cum = g[1]
                    last_cum = g[1]
                if not g[3]: newly += 1
                g[4] = True
            else:
                break
        order = [s for s in order if not segs[s][4]]
        for (a, b) in sacks:
            for s in order:
                g = segs[s]
                if not g[3] and s >= a and g[0] <= b:
                    g[3] = True; newly += 1
                    if not g[2] and first_sack is None: first_sack = g[1]
        if last_cum is not None and not retr:
            samples.append((t, t - last_cum))
        f = None if retr else first_cum
        f = f if f is not None else first_sack
        if f is not None:
            r = t - f
            srtt = r if srtt is None else srtt + (r - srtt) / 8
        delivered += newly
        if newly and tsecr in ts_sent:
            echo.append(t - ts_sent[tsecr])
    polls.append((next_poll, srtt, delivered))
    w = 0; acc = 0; prev = 0
    for (_, s, d) in polls:
        if s is not None and d > prev:
            acc += s * (d - prev); w += d - prev
        prev = d
    ms = lambda v: v * 1e3
    v = [r for _, r in samples]
    print(f"{path}: per-ACK (sim's rule) n={len(v)} mean={ms(statistics.mean(v)):.1f} p50={ms(statistics.median(v)):.1f}")
    print(f"  echo RTT on ACKs of new data n={len(echo)} mean={ms(statistics.mean(echo)):.1f}")
    print(f"  srtt (1/8) polled 10 ms, delivery-weighted mean={ms(acc / w):.1f}")
    if BINS:
        t0 = samples[0][0]
        bins = {}
        for t, r in samples:
            bins.setdefault(int((t - t0) // 2), []).append(r)
        print("  per 2 s: " + " ".join(
            f"{k * 2}s:{len(v)}/{ms(statistics.mean(v)):.0f}" for k, v in sorted(bins.items())))

BINS = "--bins" in sys.argv
for p in sys.argv[1:]:
    if p != "--bins":
        main(p)
