//! The TCP-like receiver: in-order delivery with out-of-order ranges for SACK
//! (RFC 2018), Linux 6.x's delayed ACKs (quick-ACK mode, the adaptive timeout, SACK
//! compression: `crate::delack`, opt-in for now), and RFC 7323 timestamp echo, with a configurable
//! receiver clock offset. The receiver of before 2026-11-27 (every second segment or a
//! fixed timer) stays available as [`AckModel::Legacy`]. ACKs advertise a receive window:
//! the configured one, or, with a receive-side controller (rLEDBAT, RFC 9840),
//! min(configured, the controller's) without ever moving the window's right edge left.

use crate::delack::{AckDecision, LinuxDelack};
use crate::packet::{Packet, MAX_SACK_BLOCKS, NO_TS_ECHO};
use crate::rcvbuf::RcvBuf;
use scavenger_cc::{non_shrinking_window, Dur, ReceiveWindowControl, RecvSample, Time};

/// How the receiver decides when to acknowledge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckModel {
    /// Linux 6.x (`crate::delack`, `crate::rcvbuf`); `ack_every = 1` still acknowledges
    /// every segment. The default since 2026-11-27 (docs/receiver.md).
    #[default]
    Linux,
    /// Every `ack_every` in-order segments or `delack_timeout` after the first held one;
    /// at once for out-of-order data, hole fills, duplicates and a new CE mark; the
    /// configured window, no autotuning.
    Legacy,
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub flow: u32,
    pub header: u32,
    pub total_segs: Option<u32>,
    /// 1 acknowledges every segment; otherwise delayed ACKs as `ack_model` says.
    pub ack_every: u32,
    /// The legacy model's timer (Linux's is adaptive).
    pub delack_timeout: Dur,
    pub ack_model: AckModel,
    /// The path's base RTT, as the handshake would measure it: sets the Linux model's
    /// RTO and RTT bounds.
    pub path_rtt: Dur,
    /// Added to the true time to give the receiver's clock (ns).
    pub clock_offset: i64,
    /// Segment size: segment `i` starts at byte `i * mss` (sequence numbers in bytes for
    /// the advertised window and the receive-side controller).
    pub mss: u32,
    /// Flow-control window (receive buffer; the application reads at once), bytes.
    pub rwnd: u64,
}

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    pub data_pkts: u64,
    pub data_wire_bytes: u64,
    /// Distinct payload bytes received (goodput numerator).
    pub unique_bytes: u64,
    pub first_byte: Option<Time>,
    /// When the last missing byte of a finite transfer arrived.
    pub completed_at: Option<Time>,
    pub acks_sent: u64,
    /// Data packets that arrived with ECN-CE.
    pub ce_received: u64,
}

pub struct Receiver {
    cfg: ReceiverConfig,
    rcv_nxt: u32,
    /// Disjoint, sorted [start, end) segment ranges received above `rcv_nxt`.
    ooo: Vec<(u32, u32)>,
    /// The range holding the most recently received out-of-order segment: first SACK block.
    recent: Option<u32>,
    /// Segments received since the last ACK (ICSK_ACK_SCHED when non-zero).
    pending: u32,
    /// The legacy model's timer.
    delack_deadline: Option<Time>,
    /// The Linux model, unless the legacy one or ACK-every-segment is configured.
    linux: Option<LinuxDelack>,
    /// Linux's receive-window autotuning (`crate::rcvbuf`), with the Linux model (also
    /// when every segment is acknowledged).
    tune: Option<RcvBuf>,
    /// The handshake's window has been advertised.
    opened: bool,
    /// RCV.NXT at the last ACK (Linux's `rcv_wup`).
    last_ack_sent: u32,
    /// RCV.WND of the last advertisement, bytes.
    last_wnd: u64,
    /// An ECT or CE segment has arrived (TCP_ECN_SEEN).
    ecn_seen: bool,
    ts_recent: u64,
    /// RFC 3168 §6.1.3: set ECE on every ACK until a CWR arrives.
    ece: bool,
    /// Receive-side window controller (rLEDBAT), if any.
    control: Option<Box<dyn ReceiveWindowControl>>,
    /// Right edge (bytes) of the last advertised window: RCV.NXT + RCV.WND.
    right_edge: u64,
    pub stats: ReceiverStats,
}

/// What kind of segment arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    /// At RCV.NXT; `filled`: it emptied the out-of-order queue.
    InOrder {
        filled: bool,
    },
    OutOfOrder,
    /// Entirely below RCV.NXT.
    Duplicate,
}

pub enum DataOutcome {
    AckNow,
    /// Hold the ACK until this deadline unless another segment arrives.
    Delay(Time),
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig) -> Receiver {
        let linux = (cfg.ack_every > 1 && cfg.ack_model == AckModel::Linux)
            .then(|| LinuxDelack::new(cfg.mss, cfg.path_rtt));
        let tune = (cfg.ack_model == AckModel::Linux).then(|| RcvBuf::new(cfg.mss, Time::ZERO));
        Receiver {
            tune,
            opened: false,
            last_wnd: cfg.rwnd,
            cfg,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: None,
            pending: 0,
            delack_deadline: None,
            linux,
            last_ack_sent: 0,
            ecn_seen: false,
            ts_recent: 0,
            ece: false,
            control: None,
            right_edge: 0,
            stats: ReceiverStats::default(),
        }
    }

    /// Lets `c` choose the advertised window (RFC 9840 RCV.WND = min(fc.WND, RLWND)).
    pub fn set_window_control(&mut self, c: Box<dyn ReceiveWindowControl>) {
        self.control = Some(c);
    }
    pub fn window_control(&self) -> Option<&dyn ReceiveWindowControl> {
        self.control.as_deref()
    }

    /// The window to advertise now, in bytes from RCV.NXT, and the right edge it sets.
    /// Without a controller: the configured window. With one: min(configured, the
    /// controller's), but never less than keeps the right edge of the previous
    /// advertisement (RFC 9293 §3.8.6.2.2, RFC 9840 "Avoiding window shrinking"). The
    /// first call is the window of the handshake.
    /// With Linux's autotuning the window is min(configured, `__tcp_select_window`), the
    /// SYN-ACK's `rcv_wnd` in the handshake, never shrinking (`tcp_select_window`).
    pub fn advertise(&mut self) -> u64 {
        let nxt = self.rcv_nxt as u64 * self.cfg.mss as u64;
        let mut wnd = self.cfg.rwnd;
        if let Some(t) = &self.tune {
            wnd = wnd.min(if self.opened {
                t.select_window()
            } else {
                t.syn_window()
            });
        }
        if let Some(c) = &self.control {
            wnd = wnd.min(c.rwnd());
        }
        if self.tune.is_some() || self.control.is_some() {
            wnd = non_shrinking_window(wnd, self.right_edge, nxt);
        }
        self.opened = true;
        let wnd = wnd.min(u32::MAX as u64);
        self.right_edge = nxt + wnd;
        self.last_wnd = wnd;
        wnd
    }

    /// The handshake ended at `now` (`crate::handshake::Server::establish`): its RTT
    /// sample, if any, replaces the configured path RTT in the Linux model's RTO and
    /// srtt, and autotuning's first DRS measure starts (`tcp_init_transfer`).
    pub fn on_established(&mut self, now: Time, rtt: Option<Dur>) {
        if let Some(l) = self.linux.as_mut() {
            l.set_handshake_rtt(rtt);
        }
        if let Some(t) = self.tune.as_mut() {
            t.on_established(now);
        }
    }

    /// When a held ACK is due, if one is.
    pub fn ack_deadline(&self) -> Option<Time> {
        match &self.linux {
            Some(l) => l.deadline(),
            None => self.delack_deadline,
        }
    }
    /// The Linux model's state, for tests and traces.
    pub fn linux_delack(&self) -> Option<&LinuxDelack> {
        self.linux.as_ref()
    }
    /// The autotuning state, for tests and traces.
    pub fn rcvbuf(&self) -> Option<&RcvBuf> {
        self.tune.as_ref()
    }
    /// Whether the receiver advertises a window the sender must respect (a receive-side
    /// controller or Linux's autotuning).
    pub fn limits_window(&self) -> bool {
        self.control.is_some() || self.tune.is_some()
    }
    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    /// Inserts segment `s` into the out-of-order set; false if it was already there.
    fn insert_ooo(&mut self, s: u32) -> bool {
        let pos = self.ooo.partition_point(|r| r.1 < s);
        if pos < self.ooo.len() && self.ooo[pos].0 <= s && s < self.ooo[pos].1 {
            return false;
        }
        let joins_prev = pos < self.ooo.len() && self.ooo[pos].1 == s;
        if joins_prev {
            self.ooo[pos].1 = s + 1;
            if pos + 1 < self.ooo.len() && self.ooo[pos + 1].0 == s + 1 {
                self.ooo[pos].1 = self.ooo[pos + 1].1;
                self.ooo.remove(pos + 1);
            }
        } else if pos < self.ooo.len() && self.ooo[pos].0 == s + 1 {
            self.ooo[pos].0 = s;
        } else {
            self.ooo.insert(pos, (s, s + 1));
        }
        true
    }

    pub fn on_data(&mut self, now: Time, p: &Packet) -> DataOutcome {
        self.stats.data_pkts += 1;
        self.stats.data_wire_bytes += p.wire as u64;
        // RFC 7323 §4.3: remember TSval of a segment that starts at or before the last ACK.
        if p.seg <= self.last_ack_sent {
            self.ts_recent = p.tsval;
        }
        let mut new = false;
        let mut immediate = false;
        // RFC 3168 §6.1.3: CWR ends the echo; a CE mark (on this very packet too) starts it.
        if p.cwr {
            self.ece = false;
        }
        let new_ce = p.ce && !self.ece;
        if p.ce {
            self.stats.ce_received += 1;
            // A new congestion signal is acknowledged at once (Linux tcp_ecn_check_ce
            // enters quick-ACK mode when CE appears).
            immediate |= !self.ece;
            self.ece = true;
        }
        let mut arrival = Arrival::Duplicate;
        if p.seg == self.rcv_nxt {
            new = true;
            arrival = Arrival::InOrder { filled: false };
            self.rcv_nxt += 1;
            if !self.ooo.is_empty() {
                immediate = true; // filled (part of) a hole
                if self.ooo[0].0 == self.rcv_nxt {
                    self.rcv_nxt = self.ooo.remove(0).1;
                }
                arrival = Arrival::InOrder {
                    filled: self.ooo.is_empty(),
                };
            }
        } else if p.seg > self.rcv_nxt {
            new = self.insert_ooo(p.seg);
            self.recent = Some(p.seg);
            immediate = true;
            arrival = Arrival::OutOfOrder;
        } else {
            immediate = true; // duplicate
        }
        if new {
            self.stats.unique_bytes += p.len as u64;
            self.stats.first_byte.get_or_insert(now);
            if self.cfg.total_segs == Some(self.rcv_nxt) && self.stats.completed_at.is_none() {
                self.stats.completed_at = Some(now);
            }
        }
        if let Some(c) = self.control.as_mut() {
            let mss = self.cfg.mss as u64;
            let s = RecvSample {
                seq: p.seg as u64 * mss,
                bytes: p.len as u64,
                new_data: new,
                rcv_nxt: self.rcv_nxt as u64 * mss,
                ts_val: p.tsval,
                ts_ecr: (p.rx_tsval != NO_TS_ECHO).then_some(p.rx_tsval),
                ts_now: now.nanos() as i64 + self.cfg.clock_offset,
                mss,
                right_edge: self.right_edge,
            };
            c.on_data(now, &s);
        }
        self.pending += 1;
        let grew = self.autotune_on_segment(now, p, arrival);
        if self.linux.is_some() {
            let out = self.linux_ack(now, p, arrival, new_ce, grew);
            return self.after_read(now, arrival, out);
        }
        if self.tune.is_some() {
            // Every segment is acknowledged (`ack_every = 1`): only DRS is left to do.
            let out = if immediate || self.pending >= self.cfg.ack_every {
                DataOutcome::AckNow
            } else {
                DataOutcome::Delay(
                    *self
                        .delack_deadline
                        .get_or_insert(now + self.cfg.delack_timeout),
                )
            };
            return self.after_read(now, arrival, out);
        }
        if immediate || self.pending >= self.cfg.ack_every {
            DataOutcome::AckNow
        } else {
            let d = *self
                .delack_deadline
                .get_or_insert(now + self.cfg.delack_timeout);
            DataOutcome::Delay(d)
        }
    }

    /// Segments held in the out-of-order queue.
    fn ooo_segments(&self) -> u64 {
        self.ooo.iter().map(|&(s, e)| (e - s) as u64).sum()
    }

    /// Autotuning for a data segment (`tcp_rcv_rtt_measure_ts`, `tcp_measure_rcv_mss`,
    /// `tcp_grow_window`); true if the window grew (`icsk_ack.quick |= 1`).
    fn autotune_on_segment(&mut self, now: Time, p: &Packet, arrival: Arrival) -> bool {
        if self.tune.is_none() || arrival == Arrival::Duplicate {
            return false;
        }
        let queued = self.ooo_segments() + matches!(arrival, Arrival::InOrder { .. }) as u64;
        let now_rx = now.nanos() as i64 + self.cfg.clock_offset;
        let last_wnd = self.last_wnd;
        let t = self.tune.as_mut().expect("autotuning");
        if p.rx_tsval != NO_TS_ECHO {
            t.rtt_measure(now_rx, p.rx_tsval, p.len);
        }
        t.on_segment(now, p.len, queued, last_wnd).quick
    }

    /// The application reads what arrived in order: `tcp_rcv_space_adjust`, then
    /// `tcp_cleanup_rbuf`: the ACK of a PSH or short segment when the read left nothing
    /// queued, or else the window-update ACK, when no ACK was due.
    fn after_read(&mut self, now: Time, arrival: Arrival, out: DataOutcome) -> DataOutcome {
        let in_order = matches!(arrival, Arrival::InOrder { .. });
        let ofo_queued = !self.ooo.is_empty();
        let out = match (out, &self.linux) {
            (DataOutcome::Delay(_), Some(l)) if in_order && l.read_drained(ofo_queued) => {
                DataOutcome::AckNow
            }
            (out, _) => out,
        };
        let mss = self.cfg.mss as u64;
        let nxt = self.rcv_nxt as u64 * mss;
        let ooo_span = self.ooo.last().map_or(0, |r| r.1 as u64 * mss - nxt);
        let right_edge = self.right_edge;
        let Some(t) = self.tune.as_mut() else {
            return out;
        };
        if !in_order {
            return out;
        }
        t.space_adjust(now, nxt, ooo_span);
        match out {
            DataOutcome::Delay(_) if t.window_update_due(right_edge.saturating_sub(nxt)) => {
                DataOutcome::AckNow
            }
            out => out,
        }
    }

    /// Linux's decision for the segment `p` that just arrived (`tcp_data_queue`,
    /// `tcp_event_data_recv`, `tcp_ecn_check_ce`, `tcp_ecn_accept_cwr`, then
    /// `__tcp_ack_snd_check`); `grew`: `tcp_grow_window` opened the window.
    fn linux_ack(
        &mut self,
        now: Time,
        p: &Packet,
        arrival: Arrival,
        new_ce: bool,
        grew: bool,
    ) -> DataOutcome {
        let wnd = self.last_wnd;
        let l = self.linux.as_mut().expect("Linux model");
        match arrival {
            Arrival::InOrder { filled } => {
                l.on_in_order(now, p.len, p.psh, wnd);
                if filled {
                    // "RFC5681. 4.2. SHOULD send immediate ACK, when gap in queue is filled."
                    l.ack_now();
                }
            }
            Arrival::OutOfOrder => {}
            // "A retransmit, 2nd most common case. Force an immediate ack."
            Arrival::Duplicate => l.enter_quickack_mode(wnd, crate::delack::MAX_QUICKACKS),
        }
        if arrival != Arrival::Duplicate {
            // `__tcp_ecn_check_ce`, called for in-order and out-of-order data.
            if p.ect || p.ce {
                self.ecn_seen = true;
            }
            if new_ce {
                // "Better not delay acks, sender can have a very low cwnd".
                l.enter_quickack_mode(wnd, 2);
            } else if !p.ect && !p.ce && self.ecn_seen {
                // Not-ECT after ECT: "it is probably a retransmit".
                l.enter_quickack_mode(wnd, 2);
            }
        }
        if p.cwr {
            // `tcp_ecn_accept_cwr`: the sender's cwnd may be very low.
            l.ack_now();
        }
        if grew {
            // `tcp_grow_window` (from `tcp_event_data_recv` in order, from
            // `tcp_data_queue_ofo` out of order).
            l.window_grew();
        }
        let unacked =
            (self.rcv_nxt - self.last_ack_sent.min(self.rcv_nxt)) as u64 * self.cfg.mss as u64;
        match l.check(now, unacked, !self.ooo.is_empty(), self.rcv_nxt) {
            AckDecision::Now => DataOutcome::AckNow,
            AckDecision::At(t) => DataOutcome::Delay(t),
        }
    }

    /// Whether an ACK is still owed (the delayed-ACK timer fired with data pending).
    pub fn ack_pending(&self) -> bool {
        self.pending > 0
    }

    /// A held-ACK timer event at `now`: true if an ACK must go out now.
    pub fn on_ack_timer(&mut self, now: Time) -> bool {
        let scheduled = self.pending > 0;
        match self.linux.as_mut() {
            Some(l) => l.on_timer(now, scheduled),
            None => self.delack_deadline.is_some_and(|d| d <= now) && scheduled,
        }
    }

    pub fn make_ack(&mut self, now: Time) -> Packet {
        let mut sack = [(0u32, 0u32); MAX_SACK_BLOCKS];
        let mut n = 0;
        // First block: the one containing the most recent arrival (RFC 2018 §4).
        let first = self
            .recent
            .and_then(|r| self.ooo.iter().position(|&(s, e)| s <= r && r < e));
        if let Some(i) = first {
            sack[0] = self.ooo[i];
            n = 1;
        }
        for (i, &r) in self.ooo.iter().enumerate().rev() {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if Some(i) != first {
                sack[n] = r;
                n += 1;
            }
        }
        let mut p = Packet::data(self.cfg.flow, 0, 0, 0, 0, false);
        p.kind = crate::packet::Kind::Ack;
        p.wire = Packet::ack_wire_bytes(self.cfg.header, n);
        p.ack = self.rcv_nxt;
        p.sack = sack;
        p.nsack = n as u8;
        p.ts_ecr = self.ts_recent;
        p.rx_tsval = now.nanos() as i64 + self.cfg.clock_offset;
        p.ece = self.ece;
        p.wnd = self.advertise() as u32;
        if let Some(l) = self.linux.as_mut() {
            l.on_ack_sent(self.pending > 0);
        }
        self.pending = 0;
        self.delack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        self.stats.acks_sent += 1;
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx() -> Receiver {
        Receiver::new(ReceiverConfig {
            flow: 0,
            header: 52,
            total_segs: Some(10),
            ack_every: 2,
            delack_timeout: Dur::from_millis(40),
            ack_model: AckModel::Legacy,
            path_rtt: Dur::from_millis(50),
            clock_offset: 1_000,
            mss: 1000,
            rwnd: 64 << 20,
        })
    }
    fn data(seg: u32, ts: u64) -> Packet {
        Packet::data(0, seg, 1000, 52, ts, false)
    }

    #[test]
    fn acks_every_second_segment_and_echoes_the_first_timestamp() {
        let mut r = rx();
        assert!(
            matches!(r.on_data(Time(5), &data(0, 1)), DataOutcome::Delay(t) if t == Time(5) + Dur::from_millis(40))
        );
        assert!(matches!(
            r.on_data(Time(6), &data(1, 2)),
            DataOutcome::AckNow
        ));
        let a = r.make_ack(Time(7));
        assert_eq!(
            (a.ack, a.nsack, a.ts_ecr, a.rx_tsval, a.wire),
            (2, 0, 1, 1_007, 52)
        );
    }

    #[test]
    fn out_of_order_data_is_sacked_at_once_and_holes_fill() {
        let mut r = rx();
        r.on_data(Time(0), &data(0, 0));
        r.make_ack(Time(0));
        for s in [2, 3, 5] {
            assert!(matches!(
                r.on_data(Time(1), &data(s, 9)),
                DataOutcome::AckNow
            ));
        }
        let a = r.make_ack(Time(1));
        assert_eq!(a.ack, 1);
        assert_eq!(&a.sack[..a.nsack as usize], &[(5, 6), (2, 4)]);
        assert_eq!(a.wire, 52 + 4 + 16);
        // The retransmission of 1 fills the hole up to 4.
        assert!(matches!(
            r.on_data(Time(2), &data(1, 10)),
            DataOutcome::AckNow
        ));
        let a = r.make_ack(Time(2));
        assert_eq!((a.ack, a.nsack), (4, 1));
        assert_eq!(a.ts_ecr, 10);
        assert_eq!(r.stats.unique_bytes, 5000);
        // Duplicates are not counted twice.
        r.on_data(Time(3), &data(2, 11));
        assert_eq!(r.stats.unique_bytes, 5000);
    }

    #[test]
    fn ece_is_echoed_until_cwr() {
        let mut r = rx();
        let mut d = data(0, 0);
        d.ce = true;
        // The first CE is acknowledged at once, with ECE.
        assert!(matches!(r.on_data(Time(1), &d), DataOutcome::AckNow));
        assert!(r.make_ack(Time(1)).ece);
        // Later ACKs keep echoing...
        r.on_data(Time(2), &data(1, 0));
        r.on_data(Time(3), &data(2, 0));
        assert!(r.make_ack(Time(3)).ece);
        // ...until a segment with CWR arrives.
        let mut c = data(3, 0);
        c.cwr = true;
        r.on_data(Time(4), &c);
        r.on_data(Time(5), &data(4, 0));
        assert!(!r.make_ack(Time(5)).ece);
        assert_eq!(r.stats.ce_received, 1);
    }

    #[test]
    fn completion_time_is_the_arrival_of_the_last_missing_segment() {
        let mut r = rx();
        for s in (0..10).rev() {
            r.on_data(Time(100 + s as u64), &data(s, 0));
        }
        assert_eq!(r.stats.completed_at, Some(Time(100)));
        assert_eq!(r.stats.first_byte, Some(Time(109)));
    }
}
