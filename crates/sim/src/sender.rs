//! The TCP-like sender: segment scoreboard with SACK (RFC 6675 loss detection and
//! pipe), fast recovery until the recovery point, RTO recovery (RFC 6298), delivery-rate
//! samples, optional pacing, and the calls into the congestion controller.

use crate::packet::{Packet, MAX_SACK_BLOCKS, NO_TS_ECHO};
use crate::rtt::RttEstimator;
use crate::scoreboard::Scoreboard;
use scavenger_cc::estimators::delivery_rate::{DeliveryRateEstimator, TxSnapshot};
use scavenger_cc::sample::{self, CaState, SenderAck};
use scavenger_cc::{
    CongestionControl, CongestionEvent, CongestionKind, Dur, Rate, RtoEvent, SentInfo, Time,
};
use scavenger_net::Histogram;
use std::collections::VecDeque;

/// RFC 6675 DupThresh.
const DUP_THRESH: u32 = 3;

#[derive(Clone, Copy, Debug)]
struct Seg {
    len: u32,
    snap: TxSnapshot,
    sacked: bool,
    lost: bool,
    in_flight: bool,
    retransmitted: bool,
    /// Sent with PSH; a retransmission of it carries PSH again (the flag is the skb's).
    psh: bool,
}

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub flow: u32,
    pub mss: u32,
    pub header: u32,
    /// Receiver's advertised window in bytes (with `receiver_window`: the window of the
    /// handshake, counted from sequence 0).
    pub rwnd: u64,
    /// The receiver runs a receive-window controller (rLEDBAT): send new data only up
    /// to the right edge the latest ACK advertised (SND.UNA + SND.WND), instead of
    /// holding a static `rwnd` against the pipe.
    pub receiver_window: bool,
    /// Segments to send; `None` for a bulk flow that never ends.
    pub total_segs: Option<u32>,
    pub last_seg_len: u32,
    /// Pace at Linux's default rate when the algorithm sets no pacing rate.
    pub pacing: bool,
    /// ECN-capable transport (RFC 3168): data is sent ECT(0) and ECE is acted on.
    pub ecn: bool,
    /// Proportional rate reduction in fast recovery (RFC 6937, Linux's default).
    pub prr: bool,
    /// Mark PSH as a bulk writer's pushes land (`push_mark`); `false`: no PSH at all.
    pub psh: bool,
    /// Which segment of an unpaced answer to an ACK carries PSH (`push_mark`).
    pub psh_rule: PshRule,
    /// Linux's `sk_gso_max_segs`: caps a paced burst (`crate::tso`); 1 paces single
    /// segments, as the simulator did for every algorithm but BBR before 2026-11-28.
    pub gso_max_segs: u32,
    /// The kernel shim's decision lag (`FlowConfig::shim_lag`): the window answering an
    /// ACK is the algorithm's window from before that ACK.
    pub shim_lag: bool,
    /// Linux's pacing credit (`FlowConfig::pacing_credit`): a paced burst that leaves
    /// after its earliest departure time is followed by the next one up to half its
    /// length sooner (`tcp_update_skb_after_send`).
    pub pacing_credit: bool,
}

/// Where an unpaced sender's PSH lands in the segments that answer an ACK
/// (docs/deviations/simulator.md#sim-psh).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PshRule {
    /// The last segment of every answer, a lone segment too: fitted to two goodputs of
    /// the testbed (2026-11-28), the default until the captures showed the mechanism was
    /// `SkbTail` (docs/validation.md#psh-flip). Kept for comparison.
    EveryAck,
    /// The last segment of an answer of two or more segments, none on a lone one: what
    /// the testbed's sender-side capture shows Linux 6.18 doing (one skb per answer, PSH
    /// on its tail), with the kernel's drop sharing at a full queue and its receiver's
    /// delayed ACK for a lone segment at flight 1 (docs/validation.md#psh-flip). A flow
    /// paced by its algorithm puts PSH on the last segment the window allows, a lone paced
    /// segment too: the default for 2026-11-28 to 2026-11-29, kept for comparison.
    SkbTail,
    /// `SkbTail`, and a flow paced by its algorithm puts PSH on the tail of each paced
    /// burst of two or more segments, none on a lone one (`Sender::paced_burst_tail`): the
    /// testbed's capture of Linux's `tcp_bbr`. The default since 2026-11-29
    /// (docs/deviations/simulator.md#sim-psh-paced).
    #[default]
    SkbTailBursts,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub data_pkts_sent: u64,
    pub data_wire_bytes_sent: u64,
    pub retransmits: u64,
    pub fast_recoveries: u64,
    pub timeouts: u64,
    /// Window reductions in response to ECN-Echo (at most one per round trip).
    pub ecn_responses: u64,
    /// ACKs that carried ECE.
    pub ece_acks: u64,
    /// RTT samples (ns); samples echoing retransmissions are excluded (Karn).
    pub rtt: Histogram,
    /// Σ srtt (ns) × segments newly delivered, over every ACK that delivered any, and
    /// Σ those segments: the testbed's RTT measure, Linux's srtt weighted by
    /// `tcpi_delivered` (deviations/testbed.md#testbed-rtt-tcp-info), so that `validate`
    /// compares like with like (docs/validation.md#srtt-measure).
    pub srtt_ns_segs: u128,
    pub srtt_segs: u64,
}

impl SenderStats {
    /// The mean srtt weighted by delivered segments, in ns (`None` before any sample).
    pub fn srtt_weighted_mean_ns(&self) -> Option<f64> {
        (self.srtt_segs > 0).then(|| self.srtt_ns_segs as f64 / self.srtt_segs as f64)
    }
}

/// RFC 6937 state for one fast recovery.
#[derive(Clone, Copy, Debug)]
struct Prr {
    /// Linux prior_cwnd (RFC 6937 RecoverFS): the window when recovery began.
    recover_fs: u64,
    delivered: u64,
    out: u64,
    /// Bytes the last ACK allows in flight (Linux: snd_cwnd = in_flight + sndcnt).
    window: u64,
}

impl Prr {
    /// RFC 6937 §3 on each ACK in recovery, as Linux 6.x `tcp_cwnd_reduction`. Below
    /// ssthresh the slow-start reduction bound's extra segment comes only on an ACK that
    /// advanced SND.UNA and marked nothing newly lost (`flag & FLAG_SND_UNA_ADVANCED &&
    /// !newly_lost`, Linux since 5.19); otherwise the bound is the conservative one,
    /// MAX(prr_delivered − prr_out, DeliveredData).
    fn on_ack(
        &mut self,
        delivered: u64,
        pipe: u64,
        ssthresh: u64,
        mss: u64,
        una_advanced_no_loss: bool,
    ) {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            ((self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs.max(1) as u128)
                as u64)
                .saturating_sub(self.out)
        } else {
            // MIN(ssthresh - pipe, MAX(prr_delivered - prr_out, DeliveredData) [+ MSS]).
            let extra = if una_advanced_no_loss { mss } else { 0 };
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + extra;
            (ssthresh - pipe).min(limit)
        };
        // Linux: sndcnt = max(sndcnt, (tp->prr_out ? 0 : 1)) -- one segment on the first ACK.
        let sndcnt = sndcnt.max(if self.out == 0 { mss } else { 0 });
        self.window = pipe + sndcnt;
    }
}

/// What happened when an ACK was processed, for the world to schedule timers.
pub struct AckOutcome {
    pub completed: bool,
}

pub struct Sender {
    cfg: SenderConfig,
    cc: Box<dyn CongestionControl>,
    una: u32,
    nxt: u32,
    segs: VecDeque<Seg>,
    pipe: u64,
    high_sacked: Option<u32>,
    /// RACK (RFC 8985 §6.2, Linux `tp->rack.mstamp`/`end_seq`): the send time (ns) and
    /// segment of the latest-sent segment delivered so far.
    rack: Option<(u64, u32)>,
    /// All segments below this index have been checked by loss detection.
    lost_cursor: u32,
    /// Reordering was seen (Linux `tp->reord_seen`, `tcp_check_sack_reordering`): a
    /// segment never retransmitted was delivered below one SACKed before it. RACK's
    /// reordering window is then no longer 0, so originals are left to DupThresh.
    reord_seen: bool,
    /// SACKed ranges, the retransmission queue and the retransmissions in flight, so
    /// that an ACK's work does not grow with the window.
    board: Scoreboard,
    /// Reused buffer for the parts of a SACK block not SACKed before.
    sack_gaps: Vec<(u32, u32)>,
    in_recovery: bool,
    /// The recovery began with a retransmission timeout (Linux's CA_Loss), not with fast
    /// retransmit (CA_Recovery).
    rto_recovery: bool,
    recovery_point: u32,
    /// RFC 6937 proportional rate reduction in fast recovery (Linux tcp_cwnd_reduction):
    /// the window the datapath allows instead of the algorithm's while recovering.
    prr: Option<Prr>,
    pub rtt: RttEstimator,
    rate: DeliveryRateEstimator,
    next_send: Time,
    /// The paced burst being sent (Linux's TSO skb, `Sender::tso_segs`): when
    /// its first segment left, its paced bytes and segments so far.
    burst_at: Time,
    burst_bytes: u64,
    burst_segs: u32,
    /// With `pacing_credit`: how late the burst being sent left after its earliest
    /// departure time (Linux's `tcp_wstamp_ns − prior_wstamp`).
    burst_credit: Dur,
    cwnd_limited: bool,
    app_limited: bool,
    rto_deadline: Option<Time>,
    completed: bool,
    /// RFC 3168 §6.1.2: no new ECN response until data sent after the last one is
    /// acknowledged (segments above this index).
    ecn_recover: Option<u32>,
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
    /// Segments (ascending, not sent yet) that carry PSH when first sent: where the
    /// writer's push after each buffer-freeing ACK lands (`push_mark`,
    /// docs/deviations/simulator.md#sim-psh).
    psh_marks: VecDeque<u32>,
    /// In the window reduction after an ECN response (Linux CA_CWR) until SND.UNA passes
    /// `ecn_recover` (tcp_fastretrans_alert ends CWR when something above high_seq is
    /// acknowledged).
    cwr: bool,
    /// RFC 7323 TS.Recent: the newest receiver TSval seen, echoed on data as TSecr.
    ts_recent: i64,
    /// With `receiver_window`: right edge of the advertised window (bytes), and how many
    /// ACKs moved it left (the receiver must never do that; checked by tests).
    snd_edge: u64,
    edge_retreats: u64,
    /// With `shim_lag`: the algorithm's window before the latest ACK, which the sender
    /// uses until the next ACK (the shim sets `snd_cwnd` from the agent's decision on the
    /// previous record; docs/deviations/kernel.md#kernel-shim-decision-lag).
    lagged_cwnd: Option<u64>,
    pub stats: SenderStats,
    trace_buf: Vec<(&'static str, f64)>,
}

impl Sender {
    pub fn new(cfg: SenderConfig, cc: Box<dyn CongestionControl>, now: Time) -> Sender {
        let snd_edge = cfg.rwnd;
        Sender {
            cfg,
            cc,
            una: 0,
            nxt: 0,
            segs: VecDeque::new(),
            pipe: 0,
            high_sacked: None,
            rack: None,
            lost_cursor: 0,
            reord_seen: false,
            board: Scoreboard::default(),
            sack_gaps: Vec::new(),
            in_recovery: false,
            rto_recovery: false,
            recovery_point: 0,
            prr: None,
            rtt: RttEstimator::default(),
            rate: DeliveryRateEstimator::new(now),
            next_send: now,
            burst_at: now,
            burst_bytes: 0,
            burst_segs: 0,
            burst_credit: Dur::ZERO,
            cwnd_limited: false,
            app_limited: false,
            rto_deadline: None,
            completed: false,
            ecn_recover: None,
            cwr_pending: false,
            psh_marks: VecDeque::new(),
            cwr: false,
            ts_recent: NO_TS_ECHO,
            snd_edge,
            edge_retreats: 0,
            lagged_cwnd: None,
            stats: SenderStats::default(),
            trace_buf: Vec::new(),
        }
    }

    /// The handshake is over (`crate::handshake`): its RTT sample seeds SRTT, RTTVAR, the
    /// RTO and the minimum RTT as Linux's SYN-ACK processing does (`tcp_ack_update_rtt` →
    /// `tcp_rtt_estimator`'s first-sample branch, `tcp_update_rtt_min`), and the SYN-ACK's
    /// TSval is TS.Recent for the first data segments. Not a data RTT: it is kept out of
    /// the reported RTT statistics and out of `AckSample`; the algorithm sees it once, as
    /// `tcp_min_rtt(tp)` at Linux's congestion-control init (`on_handshake_rtt`).
    pub fn on_handshake(&mut self, now: Time, rtt: Dur, ts_recent: i64) {
        self.rtt.on_sample(rtt);
        self.ts_recent = ts_recent;
        self.cc.on_handshake_rtt(now, rtt);
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }
    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    pub fn pipe(&self) -> u64 {
        self.pipe
    }
    pub fn completed(&self) -> bool {
        self.completed
    }
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }
    pub fn next_send_time(&self) -> Time {
        self.next_send
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn trace(&mut self) -> &[(&'static str, f64)] {
        self.trace_buf.clear();
        self.cc.trace(&mut self.trace_buf);
        if self.cfg.receiver_window {
            self.trace_buf.push((
                "snd_wnd_bytes",
                self.snd_edge.saturating_sub(self.acked_bytes()) as f64,
            ));
            self.trace_buf
                .push(("rwnd_edge_retreats", self.edge_retreats as f64));
        }
        &self.trace_buf
    }

    fn seg_len(&self, i: u32) -> u32 {
        match self.cfg.total_segs {
            Some(n) if i + 1 == n => self.cfg.last_seg_len,
            _ => self.cfg.mss,
        }
    }

    fn seg(&mut self, i: u32) -> &mut Seg {
        &mut self.segs[(i - self.una) as usize]
    }

    fn has_new_data(&self) -> bool {
        self.cfg.total_segs.is_none_or(|n| self.nxt < n)
    }

    /// Whether new segment `seg` of `len` bytes would end beyond the receiver's advertised
    /// right edge, SND.UNA + SND.WND (RFC 9293 §3.8.6.2.1), when the flow honours it.
    fn beyond_receive_window(&self, seg: u32, len: u32) -> bool {
        self.cfg.receiver_window && seg as u64 * self.cfg.mss as u64 + len as u64 > self.snd_edge
    }

    /// The lowest segment marked lost that is not being retransmitted (nor SACKed).
    fn next_retransmission(&mut self) -> Option<u32> {
        self.board.next_retransmission()
    }

    fn pacing_rate(&self) -> Option<Rate> {
        if let Some(r) = self.cc.pacing_rate() {
            return Some(r);
        }
        if !self.cfg.pacing {
            return None;
        }
        // Linux tcp_update_pacing_rate: 200 % of cwnd/srtt in slow start, 120 % after.
        let srtt = self.rtt.srtt()?;
        let cwnd = self.cc.cwnd();
        let factor = if cwnd < self.cc.ssthresh() / 2 {
            2.0
        } else {
            1.2
        };
        Some(Rate(
            (Rate::from_bytes_over(cwnd, srtt).0 as f64 * factor) as u64,
        ))
    }

    /// Segments a paced burst may hold now: Linux's `tcp_tso_segs` at the pacing rate,
    /// with the algorithm's `min_tso_segs` (deviations/simulator.md#sim-paced-bursts).
    /// An unpaced sender sends what the window allows, one segment per call.
    fn tso_segs(&self) -> u32 {
        match self.pacing_rate() {
            Some(rate) => crate::tso::tso_segs(
                rate,
                self.cfg.mss,
                self.rtt.min_rtt(),
                self.cc.min_tso_segs(),
                self.cfg.gso_max_segs,
            ),
            None => 1,
        }
    }

    /// Bytes the sender may have in flight: cwnd (PRR's window in fast recovery), and the
    /// static receive window unless the receiver advertises its own edge.
    fn send_window(&self) -> u64 {
        let cc_cwnd = self.lagged_cwnd.unwrap_or_else(|| self.cc.cwnd());
        let cwnd = self.prr.map_or(cc_cwnd, |p| p.window);
        if self.cfg.receiver_window {
            cwnd
        } else {
            cwnd.min(self.cfg.rwnd)
        }
    }

    /// An ACK freed send-buffer space (`tcp_clean_rtx_queue`) and the sender answers it
    /// (docs/deviations/simulator.md#sim-psh). The burst that answers it, unpaced, is the
    /// new segments its window allows: nxt + ⌊(window − pipe)/MSS⌋ − queued
    /// retransmissions, no further than the advertised edge with a receive-window
    /// controller. PSH goes on its last segment:
    ///
    /// - `PshRule::SkbTail` (the default: the testbed's sender-side capture of our writer
    ///   on Linux 6.18): only on an answer of two or more segments, which Linux sends as
    ///   one skb with PSH on its tail (2 082 of 2 120 two-segment answers, 7 of 800 lone
    ///   ones).
    /// - `PshRule::EveryAck` (fitted to two goodputs of the testbed, the default until
    ///   2026-11-28 night): on every answer, a lone segment too; with no room, on the
    ///   next new segment.
    ///
    /// The writer's own pushes (`tcp_sendmsg_locked` → `tcp_push` → `tcp_mark_push`) do
    /// not explain either: the capture's unsent queue held 60–250 KB, so a push lands far
    /// beyond what an ACK lets go. Paced flows put PSH on the last segment the window
    /// allows, sent when the pacing timer reaches it, except under `SkbTailBursts`, where
    /// a flow paced by its algorithm marks its bursts' tails (`paced_burst_tail`).
    fn push_mark(&mut self) {
        let mss = self.cfg.mss as u64;
        let room = self.send_window().saturating_sub(self.pipe) / mss;
        let mut new_room = room.saturating_sub(self.board.retransmissions_queued() as u64);
        if self.cfg.receiver_window {
            // No further than the advertised right edge (RFC 9293 SND.UNA + SND.WND).
            new_room = new_room.min((self.snd_edge / mss).saturating_sub(self.nxt as u64));
        }
        if self.cfg.psh_rule != PshRule::EveryAck && new_room < 2 && self.pacing_rate().is_none() {
            return;
        }
        let last = self.nxt as u64 + new_room.max(1) - 1;
        let last = last.min(u32::MAX as u64) as u32;
        // Marks normally rise with each ACK; a window that shrank puts one below an
        // earlier mark, which keeps its place too (Linux's PSH stays on its skb).
        match self.psh_marks.back() {
            Some(&b) if b >= last => {
                let at = self.psh_marks.partition_point(|&m| m < last);
                if self.psh_marks[at] != last {
                    self.psh_marks.insert(at, last);
                }
            }
            _ => self.psh_marks.push_back(last),
        }
    }

    /// PSH for the new segment `seg` sent now: a writer's push landed on it (`push_mark`),
    /// or it ends a finite transfer (the end of the application's last write,
    /// `tcp_sendmsg_locked` label `out:` → `tcp_push`). The first flight carries none here;
    /// the testbed's had PSH at the end of each of its two 5-segment skbs (not modelled,
    /// docs/deviations/simulator.md#sim-psh).
    fn take_push(&mut self, seg: u32) -> bool {
        while self.psh_marks.front().is_some_and(|&m| m < seg) {
            self.psh_marks.pop_front();
        }
        let marked = self.psh_marks.front() == Some(&seg);
        if marked {
            self.psh_marks.pop_front();
        }
        marked || (self.cfg.psh && self.cfg.total_segs == Some(seg + 1))
    }

    /// For a flow paced by its algorithm (as Linux's `tcp_bbr` asks TCP to pace) under
    /// `PshRule::SkbTailBursts`, whose bursts hold two or more segments: whether the segment just
    /// sent ends a burst of two or more (the burst is full, or the window or the data allow
    /// no further segment now), i.e. carries PSH as the tail of its skb. A lone segment
    /// carries none, as `tso_fragment` leaves PSH on the part not sent. `None` otherwise:
    /// `push_mark` decides, also for a flow paced at Linux's default rate (`pacing`, fq's
    /// case, which this kernel cannot show). The testbed's capture of Linux 6.18's
    /// `tcp_bbr` at 8 Mbit/s (2-segment skbs): 8 729 of 9 110 bursts `-P`, 372 lone `-`,
    /// 9 lone `P` (docs/deviations/simulator.md#sim-psh-paced).
    fn paced_burst_tail(&self) -> Option<bool> {
        if self.cfg.psh_rule != PshRule::SkbTailBursts
            || !self.cfg.psh
            || self.cc.pacing_rate().is_none()
            || self.tso_segs() < 2
        {
            return None;
        }
        if self.burst_segs < 2 {
            return Some(false);
        }
        let mss = self.cfg.mss as u64;
        let window_full = self.pipe + mss > self.send_window();
        // No further new segment now: none left, or the next lies beyond the receive window
        // (the same edge `next_packet` stops at).
        let no_next =
            !self.has_new_data() || self.beyond_receive_window(self.nxt, self.seg_len(self.nxt));
        Some(self.burst_segs >= self.tso_segs() || window_full || no_next)
    }

    /// The next packet the sender may transmit at `now`, if any. The caller loops until
    /// `None`, then arms the pacing timer at `next_send_time()` if it is in the future.
    pub fn next_packet(&mut self, now: Time) -> Option<Packet> {
        // A paced burst's further segments leave at its first one's time
        // (deviations/simulator.md#sim-paced-bursts).
        let in_burst = self.burst_at == now && self.burst_segs < self.tso_segs();
        if self.completed || (self.next_send > now && !in_burst) {
            return None;
        }
        let (seg, retrans) = match self.next_retransmission() {
            Some(i) => (i, true),
            None if self.has_new_data() => (self.nxt, false),
            None => {
                if !self.app_limited {
                    self.app_limited = true;
                    self.rate.on_app_limited(self.pipe);
                }
                self.cwnd_limited = false;
                return None;
            }
        };
        let len = self.seg_len(seg);
        let window = self.send_window();
        // RFC 6675 §5: send while cwnd - pipe >= 1 SMSS; one segment is always allowed
        // with nothing in flight so a window below one segment cannot stall the flow.
        if self.pipe > 0 && self.pipe + len as u64 > window {
            self.cwnd_limited = true;
            return None;
        }
        // RFC 9293 §3.8.6.2.1: new data only within SND.UNA + SND.WND (retransmissions lie
        // below SND.NXT, inside it). The receive window, not cwnd, is the limit then, so the
        // round is not cwnd-limited (Linux tcp_is_cwnd_limited looks at cwnd only). One
        // segment may go when nothing is outstanding (a zero-window probe stand-in).
        if !retrans && self.nxt > self.una && self.beyond_receive_window(seg, len) {
            self.cwnd_limited = false;
            return None;
        }
        self.app_limited = false;
        let snap = self.rate.on_send(now, self.pipe);
        if retrans {
            let s = self.seg(seg);
            s.retransmitted = true;
            s.in_flight = true;
            s.snap = snap;
            self.board.dequeue_retransmission(seg);
            self.board.sent_retransmission(now.nanos(), seg);
            // Linux tcp_xmit_retransmit_queue re-arms the timer when it retransmits the
            // head of the queue, so a fast retransmission gets a full RTO to be acked.
            if seg == self.una && !self.rto_recovery {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            self.stats.retransmits += 1;
        } else {
            self.segs.push_back(Seg {
                len,
                snap,
                sacked: false,
                lost: false,
                in_flight: true,
                retransmitted: false,
                psh: false,
            });
            self.nxt += 1;
        }
        self.pipe += len as u64;
        if let Some(p) = &mut self.prr {
            p.out += len as u64;
        }
        let mut pkt = Packet::data(
            self.cfg.flow,
            seg,
            len,
            self.cfg.header,
            now.nanos(),
            retrans,
        );
        pkt.rx_tsval = self.ts_recent;
        if self.cfg.ecn {
            // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
            pkt.ect = !retrans;
            if !retrans && self.cwr_pending {
                // §6.1.2: CWR on the first new data packet after the reduction.
                pkt.cwr = true;
                self.cwr_pending = false;
            }
        }
        self.stats.data_pkts_sent += 1;
        self.stats.data_wire_bytes_sent += pkt.wire as u64;
        let mss = self.cfg.mss as u64;
        self.cc.on_sent(
            now,
            &SentInfo {
                bytes: len as u64,
                bytes_in_flight: self.pipe,
                retransmission: retrans,
                seq: seg as u64 * mss,
                app_limited: !self.has_new_data(),
            },
        );
        if let Some(rate) = self.pacing_rate() {
            // Linux tcp_update_skb_after_send paces by skb->len, the payload; the
            // algorithms that say so get that, the others are spaced by wire size.
            let paced = if self.cc.paces_payload() {
                len as u64
            } else {
                pkt.wire as u64
            };
            // Up to tso_segs() segments leave back to back (one Linux skb), and the next
            // departure is the whole burst's length after the first:
            // tcp_update_skb_after_send's skb->len / sk_pacing_rate.
            if !in_burst {
                self.burst_credit = if self.cfg.pacing_credit {
                    now.since(self.next_send)
                } else {
                    Dur::ZERO
                };
                self.burst_at = now;
                self.burst_bytes = 0;
                self.burst_segs = 0;
            }
            self.burst_bytes += paced;
            self.burst_segs += 1;
            // Linux tcp_update_skb_after_send (6.x): `len_ns -= min(len_ns / 2, credit)`,
            // where credit is how far the clock had passed the earliest departure time
            // when the skb left ("take into account OS jitter"): after an idle or
            // window-limited gap the next burst may follow at up to twice the rate.
            let len = rate.tx_time(self.burst_bytes);
            let forgiven = Dur((len.nanos() / 2).min(self.burst_credit.nanos()));
            self.next_send = self.burst_at + (len - forgiven);
        }
        pkt.psh = if retrans {
            self.seg(seg).psh
        } else {
            let pushed = self.take_push(seg);
            let psh = match self.paced_burst_tail() {
                Some(tail) => tail || self.cfg.total_segs == Some(seg + 1),
                None => pushed,
            };
            self.seg(seg).psh = psh;
            psh
        };
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        Some(pkt)
    }

    /// Marks `i` delivered (cumulatively or by SACK) and returns its payload length if it
    /// was not delivered before.
    fn deliver(&mut self, now: Time, i: u32) -> u64 {
        let idx = (i - self.una) as usize;
        let s = self.segs[idx];
        if s.in_flight {
            self.pipe -= s.len as u64;
        }
        if s.sacked {
            return 0;
        }
        self.rate.on_packet_delivered(now, &s.snap, s.len as u64);
        s.len as u64
    }

    /// Loss detection for original transmissions. RFC 6675 IsLost: a segment with
    /// DupThresh SACKed segments above it is lost. And RACK's time order (RFC 8985 §6.2
    /// step 5, Linux 6.x `tcp_rack_detect_loss`, which marks originals and
    /// retransmissions alike): once the reordering window is 0, every unSACKed segment
    /// sent before the latest-sent delivered one is lost. Linux's `tcp_rack_reo_wnd` is 0
    /// when no reordering was seen and the connection is in recovery (CA_Recovery or
    /// CA_Loss) or DupThresh segments are SACKed; otherwise it is min_rtt/4 with a
    /// timer, which is not modelled: before recovery, or after reordering was seen, only
    /// DupThresh applies (docs/deviations/simulator.md#sim-loss-recovery). Without the
    /// time order, the last hole of a window (fewer than DupThresh SACKed segments above
    /// it) waited until new data sent after it was SACKed: a round trip later, and after
    /// a slow-start overshoot at 350 ms a second recovery (docs/validation.md#rack-originals).
    /// Returns the bytes newly marked lost.
    fn detect_losses(&mut self) -> u64 {
        let Some(high) = self.high_sacked else {
            return 0;
        };
        let floor = self.lost_cursor.max(self.una);
        let dup_limit = self.board.kth_highest_sacked(floor, high, DUP_THRESH);
        let rack_limit = if !self.reord_seen && (self.in_recovery || dup_limit.is_some()) {
            self.rack_original_limit(floor)
        } else {
            None
        };
        let Some(limit) = dup_limit.max(rack_limit) else {
            return 0;
        };
        let mut lost = 0;
        // Each segment passes here once: `lost_cursor` only grows.
        self.board.ops += (limit - floor) as u64;
        for j in floor..limit {
            let s = &mut self.segs[(j - self.una) as usize];
            // Retransmissions are RACK's in `mark_lost_retransmissions`.
            if !s.sacked && !s.lost && !s.retransmitted {
                s.lost = true;
                if s.in_flight {
                    s.in_flight = false;
                    self.pipe -= s.len as u64;
                }
                lost += s.len as u64;
                self.board.queue_retransmission(j);
            }
        }
        self.lost_cursor = limit;
        lost
    }

    /// RACK's bound for original transmissions (RFC 8985 §6.2 step 5 with a reordering
    /// window of 0; Linux `tcp_skb_sent_after` orders by send time, then sequence): one
    /// past the last segment at or above `floor` whose original was sent before the
    /// latest-sent delivered segment. Originals leave in sequence order, so the scan
    /// stops at the first one sent after it; retransmitted segments are skipped.
    fn rack_original_limit(&mut self, floor: u32) -> Option<u32> {
        let (rack_t, rack_i) = self.rack?;
        let mut limit = None;
        let mut j = floor;
        while j < self.nxt {
            self.board.ops += 1;
            let s = &self.segs[(j - self.una) as usize];
            if !s.retransmitted {
                if (s.snap.sent_time.nanos(), j) >= (rack_t, rack_i) {
                    break;
                }
                limit = Some(j + 1);
            }
            j += 1;
        }
        limit
    }

    /// RACK's advance (RFC 8985 §6.2 step 2, Linux `tcp_rack_advance`): segment `i`,
    /// last sent at `sent`, was just delivered (cumulatively or by SACK). A retransmitted
    /// segment delivered sooner than the minimum RTT after its retransmission was most
    /// likely the original's delivery, so it does not advance RACK.
    fn rack_advance(&mut self, now: Time, i: u32, sent: Time, retransmitted: bool) {
        let rtt = now.nanos().saturating_sub(sent.nanos());
        if retransmitted && self.rtt.min_rtt().is_some_and(|m| rtt < m.nanos()) {
            return;
        }
        let key = (sent.nanos(), i);
        if self.rack.is_none_or(|r| key > r) {
            self.rack = Some(key);
        }
    }

    /// Lost retransmissions, by RACK's time order (RFC 8985 §6.2 step 5, Linux
    /// `tcp_rack_detect_loss`, called in CA_Recovery and CA_Loss alike): in recovery, with
    /// no reordering seen, RACK's reordering window is 0 (`tcp_rack_reo_wnd`), so a
    /// retransmission is lost as soon as a segment sent after it is delivered, whether
    /// that segment is new data or another retransmission. The rule it replaces, Linux
    /// 4.4's `tcp_mark_lost_retrans` (a SACK above the SND.NXT of the retransmission),
    /// needed new data sent after the retransmission: when recovery sent retransmissions
    /// only, a lost one waited for the RTO (deviations/simulator.md#sim-loss-recovery).
    /// Returns the bytes newly marked lost.
    fn mark_lost_retransmissions(&mut self) -> u64 {
        if !self.board.retransmissions_sent() || !self.in_recovery {
            return 0;
        }
        let Some((rack_t, rack_i)) = self.rack else {
            return 0;
        };
        let mut lost = 0;
        // Retransmissions leave in the order sent.
        while let Some((t, i)) = self.board.pop_retransmission_sent_before(rack_t, rack_i) {
            if i < self.una {
                continue;
            }
            let s = self.seg(i);
            // A stale entry: SACKed, marked lost, or retransmitted again since.
            if !(s.retransmitted && s.in_flight && !s.sacked && s.snap.sent_time.nanos() == t) {
                continue;
            }
            s.in_flight = false;
            s.lost = true;
            let len = s.len as u64;
            self.pipe -= len;
            lost += len;
            self.board.queue_retransmission(i);
        }
        lost
    }

    /// Processes one ACK.
    pub fn on_ack(&mut self, now: Time, ack: &Packet) -> AckOutcome {
        let prior_in_flight = self.pipe;
        if self.cfg.shim_lag {
            // The shim applies the decision the agent took on the previous ACK.
            self.lagged_cwnd = Some(self.cc.cwnd());
        }
        // RFC 7323 §4.3: TS.Recent follows the newest TSval.
        self.ts_recent = self.ts_recent.max(ack.rx_tsval);
        if self.cfg.receiver_window && ack.ack >= self.una {
            // RFC 9293 SND.WND update from an ACK that is not older than SND.UNA.
            let edge = ack.ack as u64 * self.cfg.mss as u64 + ack.wnd as u64;
            if edge < self.snd_edge {
                self.edge_retreats += 1;
            }
            self.snd_edge = edge;
        }
        self.board.acks += 1;
        let mut newly = 0u64;
        // Segments newly delivered (Linux tp->delivered's increments: cumulatively
        // acknowledged ones not SACKed before, and newly SACKed ones).
        let mut newly_segs = 0u64;
        // Cumulative part.
        let cum = ack.ack.min(self.nxt);
        let advanced = cum > self.una;
        // The highest SACKed segment before this ACK: an original delivered below it
        // arrived out of order (Linux tcp_check_sack_reordering, from tcp_sacktag_one
        // and tcp_clean_rtx_queue).
        let prior_high = self.high_sacked;
        self.board.advance(self.una, cum.max(self.una));
        // Send times of the oldest and newest newly acknowledged segments that were never
        // retransmitted, cumulatively and by SACK (Linux tcp_clean_rtx_queue first_ackt /
        // last_ackt and tcp_sacktag_one first_sackt / last_sackt); Karn: an ACK that
        // covers retransmitted data gives no cumulative sample.
        let (mut first_cum, mut last_cum, mut retrans_acked) = (None, None, false);
        let (mut first_sack, mut last_sack) = (None, None);
        while self.una < cum {
            let s = self.segs[0];
            if !s.sacked {
                self.rack_advance(now, self.una, s.snap.sent_time, s.retransmitted);
            }
            if s.retransmitted {
                retrans_acked = true;
            } else if !s.sacked {
                // A hole below a SACKed segment filled by its original: reordering.
                if prior_high.is_some_and(|h| h > self.una) {
                    self.reord_seen = true;
                }
                first_cum.get_or_insert(s.snap.sent_time);
                last_cum = Some(s.snap.sent_time);
            }
            let bytes = self.deliver(now, self.una);
            newly += bytes;
            newly_segs += u64::from(bytes > 0);
            self.segs.pop_front();
            self.una += 1;
        }
        if self.high_sacked.is_some_and(|h| h < self.una) {
            self.high_sacked = None;
        }
        // SACK part.
        for &(s, e) in &ack.sack[..(ack.nsack as usize).min(MAX_SACK_BLOCKS)] {
            let (s, e) = (s.max(self.una), e.min(self.nxt));
            // Only the parts of the block not SACKed before: a block is walked once,
            // not on every ACK that repeats it.
            self.board.sack(s, e, &mut self.sack_gaps);
            self.board.ops += self
                .sack_gaps
                .iter()
                .map(|&(a, b)| (b - a) as u64)
                .sum::<u64>();
            for k in 0..self.sack_gaps.len() {
                let (a, b) = self.sack_gaps[k];
                for i in a..b {
                    let seg = self.segs[(i - self.una) as usize];
                    if !seg.sacked {
                        if !seg.retransmitted {
                            if prior_high.is_some_and(|h| i < h) {
                                self.reord_seen = true;
                            }
                            let t = seg.snap.sent_time;
                            first_sack = Some(first_sack.map_or(t, |f: Time| f.min(t)));
                            last_sack = Some(last_sack.map_or(t, |l: Time| l.max(t)));
                        }
                        if seg.lost && !seg.in_flight {
                            self.board.dequeue_retransmission(i);
                        }
                        self.rack_advance(now, i, seg.snap.sent_time, seg.retransmitted);
                        newly += self.deliver(now, i);
                        newly_segs += 1;
                        let seg = self.seg(i);
                        seg.sacked = true;
                        seg.in_flight = false;
                        self.high_sacked = Some(self.high_sacked.map_or(i, |h| h.max(i)));
                    }
                }
            }
        }
        // Round-trip samples from the sender's own send times, as Linux
        // tcp_ack_update_rtt prefers them to the timestamp echo: the echo of a SACK-only
        // ACK in recovery is TS.Recent from before the hole (RFC 7323 §4.3), which
        // inflates the RTT by the recovery time and with it the RTO. SRTT/RTO take the
        // oldest newly acknowledged segment (cumulative, else SACKed); the algorithm the
        // newest (Linux ca_rtt_us, the ack_sample/rate_sample RTT); the reported RTT the
        // newest cumulatively acknowledged one (what Wireshark's ack_rtt measures).
        let since = |t: Time| Dur(now.nanos().saturating_sub(t.nanos()));
        let (first_cum, last_cum) = if retrans_acked {
            (None, None)
        } else {
            (first_cum, last_cum)
        };
        if let Some(f) = first_cum.or(first_sack) {
            self.rtt.on_sample(since(f));
        }
        if let Some(srtt) = self.rtt.srtt().filter(|_| newly_segs > 0) {
            self.stats.srtt_ns_segs += srtt.nanos() as u128 * newly_segs as u128;
            self.stats.srtt_segs += newly_segs;
        }
        if let Some(l) = last_cum {
            self.stats.rtt.record(since(l).nanos());
        }
        // The algorithm's sample is Linux's ca_rtt_us (tcp_clean_rtx_queue: the newest
        // newly SACKed segment, else the newest cumulatively acknowledged one, none when
        // the cumulative part covers a retransmission), the rs->rtt_us a kernel
        // congestion control and our BPF shim see. The timestamp echo, which is the
        // oldest segment a delayed ACK covers (RFC 7323 §4.3), is kept as ts_echo_rtt
        // for modules that compute from TSecr (TCP-LP).
        let rtt = sample::ca_rtt(now, last_sack, last_cum);
        // The echo identifies the transmission it came from, a retransmission included
        // (RFC 7323 §4.1: no Karn ambiguity with timestamps), and Linux modules read
        // rcv_tsecr whatever was retransmitted.
        let echo_rtt =
            (newly > 0 && ack.ts_ecr <= now.nanos()).then(|| Dur(now.nanos() - ack.ts_ecr));
        let owd = Some(ack.rx_tsval - ack.ts_ecr as i64);

        if self.cwr && self.ecn_recover.is_none_or(|r| self.una > r) {
            self.cwr = false;
        }
        if self.in_recovery && self.una >= self.recovery_point {
            self.in_recovery = false;
            self.rto_recovery = false;
            self.prr = None;
            self.cc.on_recovery_exit(now);
        }
        let lost_retransmissions = self.mark_lost_retransmissions();
        let lost = self.detect_losses();
        if lost > 0 && !self.in_recovery {
            self.in_recovery = true;
            self.cwr = false;
            self.recovery_point = self.nxt;
            self.stats.fast_recoveries += 1;
            // A loss response covers ECN marks of the same window (RFC 3168 §6.1.2).
            self.ecn_recover = Some(self.nxt);
            let mss = self.cfg.mss as u64;
            let prior_cwnd = self.cc.cwnd();
            self.cc.on_congestion(
                now,
                &CongestionEvent {
                    kind: CongestionKind::Loss,
                    bytes_in_flight: prior_in_flight,
                    bytes_lost: lost,
                    mss,
                },
            );
            // Linux tcp_cong_control: an algorithm with cong_control (BBR) sets cwnd in
            // recovery itself, and tcp_cwnd_reduction (PRR) is not run.
            if self.cfg.prr && !self.cc.cong_control() {
                self.prr = Some(Prr {
                    recover_fs: prior_cwnd,
                    delivered: 0,
                    out: 0,
                    window: 0,
                });
            }
        }
        if let Some(p) = &mut self.prr {
            let una_advanced_no_loss = advanced && lost == 0 && lost_retransmissions == 0;
            p.on_ack(
                newly,
                self.pipe,
                self.cc.ssthresh(),
                self.cfg.mss as u64,
                una_advanced_no_loss,
            );
        }
        let ece = self.cfg.ecn && ack.ece;
        if ece {
            self.stats.ece_acks += 1;
            // RFC 3168 §6.1.2: react at most once per window of data, and not during loss
            // recovery, which already reduced the window.
            if !self.in_recovery && self.ecn_recover.is_none_or(|r| self.una > r) {
                self.ecn_recover = Some(self.nxt);
                self.cwr_pending = true;
                self.cwr = true;
                self.stats.ecn_responses += 1;
                let mss = self.cfg.mss as u64;
                self.cc.on_congestion(
                    now,
                    &CongestionEvent {
                        kind: CongestionKind::Ecn,
                        bytes_in_flight: prior_in_flight,
                        bytes_lost: 0,
                        mss,
                    },
                );
            }
        }
        let rate = self.rate.finish_ack(self.rtt.min_rtt());
        let mss = self.cfg.mss as u64;
        // Linux's congestion state after this ACK's state processing; the sample's
        // recovery semantics follow from it (scavenger_cc::sample::holds_growth).
        let ca_state = match (self.in_recovery, self.rto_recovery) {
            (true, true) => CaState::Loss,
            (true, false) => CaState::Recovery,
            _ if self.cwr => CaState::Cwr,
            _ if self.high_sacked.is_some() => CaState::Disorder,
            _ => CaState::Open,
        };
        let sample = sample::ack_sample(&SenderAck {
            bytes_acked: newly,
            rtt,
            owd,
            ts_echo_rtt: echo_rtt,
            delivered: self.rate.delivered(),
            rate,
            prior_in_flight,
            bytes_in_flight: self.pipe,
            app_limited: self.app_limited,
            cwnd_limited: self.cwnd_limited,
            ece,
            ca_state,
            data_acked: advanced,
            cong_control: self.cc.cong_control(),
            // Linux tcp_check_sack_reordering raises tp->reordering above 3.
            reordering: self.reord_seen,
            snd_una: self.una as u64 * mss,
            snd_nxt: self.nxt as u64 * mss,
            mss,
        });
        self.cc.on_ack(now, &sample);

        if self.cfg.total_segs == Some(self.una) {
            self.completed = true;
            self.rto_deadline = None;
        } else if advanced {
            // RFC 6298 §5.3: restart the timer when new data is acknowledged.
            self.rto_deadline = (self.una < self.nxt).then(|| now + self.rtt.rto());
        }
        if advanced && !self.completed && self.cfg.psh {
            self.push_mark();
        }
        AckOutcome {
            completed: self.completed,
        }
    }

    /// The retransmission timer fired (the caller checked the deadline).
    pub fn on_rto(&mut self, now: Time) {
        // Linux's tcp_enter_loss sets the window itself (one segment), whatever the shim
        // last applied; the agent's next decision applies from the next ACK.
        self.lagged_cwnd = None;
        if self.una == self.nxt || self.completed {
            self.rto_deadline = None;
            return;
        }
        self.rtt.on_timeout();
        self.stats.timeouts += 1;
        let in_flight = self.pipe;
        // Everything outstanding and not SACKed is presumed lost (RFC 6675 §5.1).
        for s in self.segs.iter_mut() {
            if !s.sacked {
                s.lost = true;
                s.in_flight = false;
            }
        }
        self.pipe = 0;
        let una = self.una;
        self.board.requeue_all(
            (una..self.nxt)
                .zip(self.segs.iter())
                .filter(|(_, s)| !s.sacked)
                .map(|(i, _)| i),
        );
        self.prr = None;
        self.lost_cursor = self.nxt;
        self.in_recovery = true;
        self.rto_recovery = true;
        self.cwr = false;
        self.recovery_point = self.nxt;
        self.ecn_recover = Some(self.nxt);
        self.next_send = now;
        let mss = self.cfg.mss as u64;
        self.cc.on_rto(
            now,
            &RtoEvent {
                bytes_in_flight: in_flight,
                backoff_count: self.rtt.backoff(),
                mss,
            },
        );
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// The application stops: nothing more is sent or retransmitted.
    pub fn stop(&mut self) {
        self.completed = true;
        self.rto_deadline = None;
    }

    /// Scoreboard steps taken and ACKs processed so far (crate::scoreboard).
    pub fn scoreboard_counts(&self) -> (u64, u64) {
        (self.board.ops, self.board.acks)
    }

    /// Payload bytes acknowledged cumulatively.
    pub fn acked_bytes(&self) -> u64 {
        self.una as u64 * self.cfg.mss as u64
    }
}

#[cfg(test)]
mod tests {
    use super::Prr;

    const MSS: u64 = 1448;

    #[test]
    fn prr_sends_in_proportion_while_the_pipe_is_above_ssthresh() {
        // RFC 6937 §3 with RecoverFS = 20 MSS and ssthresh = 10 MSS: one segment for every
        // two delivered. sndcnt = ceil(prr_delivered · 10/20) − prr_out, at least one
        // segment on the first ACK (Linux).
        let mut p = Prr {
            recover_fs: 20 * MSS,
            delivered: 0,
            out: 0,
            window: 0,
        };
        let pipe = 18 * MSS;
        p.on_ack(MSS, pipe, 10 * MSS, MSS, true);
        assert_eq!(
            p.window,
            pipe + MSS,
            "ceil(724) = 724 bytes, raised to one segment"
        );
        p.out += MSS;
        p.on_ack(MSS, pipe, 10 * MSS, MSS, true);
        assert_eq!(p.window, pipe, "ceil(2896 · 10/20) − 1448 = 0");
        p.on_ack(MSS, pipe, 10 * MSS, MSS, true);
        assert_eq!(p.window, pipe + MSS / 2, "ceil(4344 · 10/20) − 1448 = 724");
        p.on_ack(MSS, pipe, 10 * MSS, MSS, true);
        assert_eq!(p.window, pipe + MSS, "2896 − 1448");
    }

    #[test]
    fn prr_slow_start_reduction_bound_below_ssthresh() {
        // Pipe 6 MSS below ssthresh 10 MSS: sndcnt = min(ssthresh − pipe,
        // max(prr_delivered − prr_out, DeliveredData) + MSS).
        let mut p = Prr {
            recover_fs: 20 * MSS,
            delivered: 4 * MSS,
            out: 4 * MSS,
            window: 0,
        };
        p.on_ack(2 * MSS, 6 * MSS, 10 * MSS, MSS, true);
        // delivered 6, out 4: max(2, 2) + 1 = 3 MSS, below ssthresh − pipe = 4 MSS.
        assert_eq!(p.window, 9 * MSS);
        p.on_ack(5 * MSS, 6 * MSS, 10 * MSS, MSS, true);
        // delivered 11, out 4: max(7, 5) + 1 = 8 MSS, capped at ssthresh − pipe = 4 MSS.
        assert_eq!(p.window, 10 * MSS);
    }

    #[test]
    fn prr_adds_the_extra_segment_only_when_snd_una_advanced_without_new_loss() {
        // Linux 6.x tcp_cwnd_reduction: a SACK-only ACK, or one that marked a segment
        // lost, gets the conservative bound MAX(prr_delivered − prr_out, DeliveredData).
        let mut p = Prr {
            recover_fs: 20 * MSS,
            delivered: 4 * MSS,
            out: 4 * MSS,
            window: 0,
        };
        p.on_ack(2 * MSS, 6 * MSS, 10 * MSS, MSS, false);
        // delivered 6, out 4: max(2, 2) = 2 MSS.
        assert_eq!(p.window, 8 * MSS);
        p.out += 2 * MSS;
        p.on_ack(MSS, 6 * MSS, 10 * MSS, MSS, false);
        // delivered 7, out 6: max(1, 1) = 1 MSS.
        assert_eq!(p.window, 7 * MSS);
        p.on_ack(MSS, 6 * MSS, 10 * MSS, MSS, true);
        // delivered 8, out 6: max(2, 1) + 1 = 3 MSS.
        assert_eq!(p.window, 9 * MSS);
    }

    /// A fixed 10-segment window that keeps every ACK sample it is given.
    struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<scavenger_cc::AckSample>>>);

    impl scavenger_cc::CongestionControl for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn on_ack(&mut self, _now: scavenger_cc::Time, ack: &scavenger_cc::AckSample) {
            self.0.lock().unwrap().push(*ack);
        }
        fn on_congestion(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::CongestionEvent) {
        }
        fn on_rto(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::RtoEvent) {}
        fn cwnd(&self) -> u64 {
            10 * MSS
        }
    }

    /// A fixed unpaced window of the given number of segments.
    struct Fixed(u64);

    impl scavenger_cc::CongestionControl for Fixed {
        fn name(&self) -> &'static str {
            "fixed"
        }
        fn on_ack(&mut self, _now: scavenger_cc::Time, _ack: &scavenger_cc::AckSample) {}
        fn on_congestion(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::CongestionEvent) {
        }
        fn on_rto(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::RtoEvent) {}
        fn cwnd(&self) -> u64 {
            self.0 * MSS
        }
    }

    /// A fixed window of `cwnd` segments paced at 1 Mbit/s, declaring Linux's pacing and
    /// cong_control semantics or not.
    struct Paced {
        linux: bool,
        cwnd: u64,
        min_tso: u32,
    }

    impl scavenger_cc::CongestionControl for Paced {
        fn name(&self) -> &'static str {
            "paced"
        }
        fn on_ack(&mut self, _now: scavenger_cc::Time, _ack: &scavenger_cc::AckSample) {}
        fn on_congestion(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::CongestionEvent) {
        }
        fn on_rto(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::RtoEvent) {}
        fn cwnd(&self) -> u64 {
            self.cwnd * MSS
        }
        fn ssthresh(&self) -> u64 {
            2 * MSS
        }
        fn pacing_rate(&self) -> Option<scavenger_cc::Rate> {
            Some(scavenger_cc::Rate::from_bps(1_000_000))
        }
        fn paces_payload(&self) -> bool {
            self.linux
        }
        fn cong_control(&self) -> bool {
            self.linux
        }
        fn min_tso_segs(&self) -> u32 {
            self.min_tso
        }
    }

    /// A bulk sender of full segments over `cc`: no pacing by the datapath, no ECN, PRR
    /// in fast recovery, no receive-window limit.
    fn sender(cc: Box<dyn scavenger_cc::CongestionControl>) -> crate::sender::Sender {
        let cfg = crate::sender::SenderConfig {
            flow: 0,
            mss: MSS as u32,
            header: 52,
            rwnd: u64::MAX,
            receiver_window: false,
            total_segs: None,
            last_seg_len: MSS as u32,
            pacing: false,
            ecn: false,
            prr: true,
            psh: true,
            psh_rule: crate::sender::PshRule::EveryAck,
            gso_max_segs: crate::tso::GSO_MAX_SEGS,
            shim_lag: false,
            pacing_credit: false,
        };
        crate::sender::Sender::new(cfg, cc, scavenger_cc::Time::ZERO)
    }

    /// `sender` with PSH by `PshRule::SkbTail`.
    fn skb_tail(cc: Box<dyn scavenger_cc::CongestionControl>) -> crate::sender::Sender {
        let mut s = sender(cc);
        s.cfg.psh_rule = crate::sender::PshRule::SkbTail;
        s
    }

    /// A sender paced at 1 Mbit/s one segment per gap: GSO off (`gso_max_segs` 1), since
    /// these tests' 1-ms RTTs would make `tcp_tso_autosize` add half of GSO's 64 KB
    /// (`crate::tso`).
    fn paced_sender(linux: bool, cwnd: u64) -> crate::sender::Sender {
        let mut s = sender(Box::new(Paced {
            linux,
            cwnd,
            min_tso: 1,
        }));
        s.cfg.gso_max_segs = 1;
        s
    }

    /// Sends segments 0..=9, one per millisecond from 0 ms.
    fn send_ten(s: &mut crate::sender::Sender) {
        for i in 0..10u64 {
            let at = scavenger_cc::Time(i * 1_000_000);
            assert_eq!(s.next_packet(at).map(|p| p.seg), Some(i as u32));
        }
    }

    /// An ACK of everything below `cum` with the SACK blocks `sack` (most recent first).
    fn sack_ack(cum: u32, sack: &[(u32, u32)]) -> crate::packet::Packet {
        let mut a = crate::packet::Packet::data(0, 0, 0, 52, 0, false);
        a.kind = crate::packet::Kind::Ack;
        a.ack = cum;
        for (k, &b) in sack.iter().enumerate() {
            a.sack[k] = b;
        }
        a.nsack = sack.len() as u8;
        a
    }

    /// Everything the sender transmits at `t`: (segment, PSH).
    fn burst(s: &mut crate::sender::Sender, t: scavenger_cc::Time) -> Vec<(u32, bool)> {
        std::iter::from_fn(|| s.next_packet(t).map(|p| (p.seg, p.psh))).collect()
    }

    /// The scripted ACKs both PSH rules are tested on: the first flight (a fixed
    /// 10-segment window), then a cumulative ACK of 0 and 1, an ACK that only SACKs 3
    /// (it frees no buffer space), the cumulative ACK up to 5 (2 and 4 newly delivered)
    /// and the ACK of 5 alone. Returns each step's burst.
    fn scripted_psh_bursts(s: &mut crate::sender::Sender) -> Vec<Vec<(u32, bool)>> {
        use scavenger_cc::Time;
        let mut out = vec![burst(s, Time::ZERO)];
        for (t, cum, sack) in [
            (1, 2, None),
            (2, 2, Some((3, 4))),
            (3, 5, None),
            (4, 6, None),
        ] {
            let blocks: Vec<(u32, u32)> = sack.into_iter().collect();
            s.on_ack(Time(t), &sack_ack(cum, &blocks));
            out.push(burst(s, Time(t)));
        }
        out
    }

    #[test]
    fn psh_marks_the_last_segment_sent_in_response_to_each_ack_that_frees_buffer_space() {
        use scavenger_cc::Time;
        let recorder = || Box::new(Recorder(Default::default()));
        let b = scripted_psh_bursts(&mut sender(recorder()));
        // The first flight: no ACK freed space yet, no PSH.
        assert_eq!(b[0], (0..10).map(|i| (i, false)).collect::<Vec<_>>());
        // 10 and 11 answer the first ACK, the last with PSH (`tcp_sendmsg_locked`,
        // wait_for_space → `tcp_push`); the SACK-only ACK frees no buffer: 12 without PSH;
        // 13 and 14, PSH on 14; 15 alone answers the ACK of 5, with PSH.
        assert_eq!(b[1], [(10, false), (11, true)]);
        assert_eq!(b[2], [(12, false)]);
        assert_eq!(b[3], [(13, false), (14, true)]);
        assert_eq!(b[4], [(15, true)]);

        // A finite transfer: the last segment ends the application's last write
        // (label `out:` → `tcp_push`) and carries PSH, also in the first flight.
        let mut s = sender(recorder());
        s.cfg.total_segs = Some(3);
        assert_eq!(
            burst(&mut s, Time::ZERO),
            [(0, false), (1, false), (2, true)]
        );
    }

    #[test]
    fn skb_tail_psh_marks_the_last_segment_of_each_answer_of_two_or_more_and_no_lone_one() {
        use scavenger_cc::Time;
        let recorder = || Box::new(Recorder(Default::default()));
        let mut s = skb_tail(recorder());
        let b = scripted_psh_bursts(&mut s);
        assert_eq!(b[0], (0..10).map(|i| (i, false)).collect::<Vec<_>>());
        // Two-segment answers end in PSH as under `EveryAck` (the testbed: 2 082 of 2 120
        // two-segment answers); the ACK of 5 frees one segment and 15 goes alone, without
        // PSH (the testbed: 7 of 800 lone answers carried PSH).
        assert_eq!(b[1], [(10, false), (11, true)]);
        assert_eq!(b[2], [(12, false)]);
        assert_eq!(b[3], [(13, false), (14, true)]);
        assert_eq!(b[4], [(15, false)]);
        // The ACK of 6..=9 (four segments): 16..=19, PSH on 19 only.
        s.on_ack(Time(5), &sack_ack(10, &[]));
        assert_eq!(
            burst(&mut s, Time(5)),
            [(16, false), (17, false), (18, false), (19, true)]
        );

        // A finite transfer: the last segment ends the application's last write
        // (label `out:` → `tcp_push`) and carries PSH, also in the first flight and alone.
        let mut s = skb_tail(recorder());
        s.cfg.total_segs = Some(3);
        assert_eq!(
            burst(&mut s, Time::ZERO),
            [(0, false), (1, false), (2, true)]
        );
        let mut s = skb_tail(recorder());
        s.cfg.total_segs = Some(11);
        burst(&mut s, Time::ZERO);
        s.on_ack(Time(1), &sack_ack(1, &[]));
        assert_eq!(burst(&mut s, Time(1)), [(10, true)]);
    }

    #[test]
    fn skb_tail_at_a_window_of_one_no_segment_carries_psh_and_at_two_every_second_does() {
        use scavenger_cc::Time;
        // A fixed window of one segment, ACKed one by one: each answer is a lone segment
        // (the testbed at cwnd 1: no PSH, and the receiver's delayed ACK decides).
        let mut s = skb_tail(Box::new(Fixed(1)));
        let mut sent = burst(&mut s, Time::ZERO);
        for k in 1..=5u32 {
            s.on_ack(Time(k as u64), &sack_ack(k, &[]));
            sent.extend(burst(&mut s, Time(k as u64)));
        }
        assert_eq!(sent, (0..=5).map(|i| (i, false)).collect::<Vec<_>>());
        // A window of two, each ACK covering both: PSH on every second segment.
        let mut s = skb_tail(Box::new(Fixed(2)));
        let mut sent = burst(&mut s, Time::ZERO);
        for k in 1..=3u32 {
            s.on_ack(Time(k as u64), &sack_ack(2 * k, &[]));
            sent.extend(burst(&mut s, Time(k as u64)));
        }
        assert_eq!(
            sent,
            (0..=7)
                .map(|i| (i, i >= 2 && i % 2 == 1))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn paced_the_push_lands_on_the_last_segment_the_acks_window_allows() {
        use scavenger_cc::Time;
        // A window of 10 paced at 1 Mbit/s (11.584 ms per segment): one per release.
        let mut s = paced_sender(true, 10);
        assert_eq!(burst(&mut s, Time::ZERO), [(0, false)]);
        // The ACK of 0 empties the pipe: the writer's push lands on segment 10, the last
        // of the ten the window now allows, sent ten releases later.
        s.on_ack(Time(1_000_000), &sack_ack(1, &[]));
        let mut sent = vec![];
        for _ in 0..10 {
            let t = s.next_send_time();
            sent.extend(burst(&mut s, t));
        }
        assert_eq!(sent, (1..=10).map(|i| (i, i == 10)).collect::<Vec<_>>());
        // Two ACKs before the next release, freeing 1 and 2: pushes on 11 and 12 (the pipe
        // is 9, then 8), each the last segment its ACK's window allows.
        let t = s.next_send_time();
        s.on_ack(t, &sack_ack(2, &[]));
        s.on_ack(t, &sack_ack(3, &[]));
        assert_eq!(burst(&mut s, t), [(11, true)]);
        let t = s.next_send_time();
        assert_eq!(burst(&mut s, t), [(12, true)]);
        // 3..=12 fill the window: nothing more until the next ACK.
        let t = s.next_send_time();
        assert_eq!(burst(&mut s, t), []);
    }

    #[test]
    fn a_retransmission_carries_the_psh_of_the_original() {
        use scavenger_cc::Time;
        let mut s = sender(Box::new(Recorder(Default::default())));
        burst(&mut s, Time::ZERO);
        s.on_ack(Time(1), &sack_ack(1, &[]));
        assert_eq!(burst(&mut s, Time(1)), [(10, true)]);
        // Nothing more is acknowledged: the timeout retransmits 1..=10 from the head
        // (the fixed window of 10), and only 10 carries PSH, as when it was first sent.
        let rto = s.rto_deadline().unwrap();
        s.on_rto(rto);
        let resent = burst(&mut s, rto);
        assert_eq!(resent, (1..=10).map(|i| (i, i == 10)).collect::<Vec<_>>());
    }

    #[test]
    fn linux_pacing_spaces_packets_by_payload_others_by_wire_size() {
        use scavenger_cc::Time;
        // Linux tcp_update_skb_after_send: tcp_wstamp_ns += skb->len (payload, 1448 B) /
        // rate: at 1 Mbit/s 11.584 ms; by wire size (1500 B) 12.000 ms.
        let mut s = paced_sender(true, 10);
        s.next_packet(Time::ZERO).unwrap();
        assert_eq!(s.next_send_time(), Time(11_584_000));
        let mut s = paced_sender(false, 10);
        s.next_packet(Time::ZERO).unwrap();
        assert_eq!(s.next_send_time(), Time(12_000_000));
    }

    #[test]
    fn with_the_pacing_credit_a_late_burst_is_followed_up_to_half_its_gap_sooner() {
        use scavenger_cc::Time;
        // Linux tcp_update_skb_after_send (6.x): credit = tcp_wstamp_ns − prior_wstamp,
        // the time the clock had passed the earliest departure when the skb left, and
        // len_ns −= min(len_ns / 2, credit). One segment of 1448 B at 1 Mbit/s is
        // 11.584 ms; a window of 10, paced.
        for credit in [false, true] {
            let mut s = paced_sender(true, 10);
            s.cfg.pacing_credit = credit;
            // On time (the first departure, earliest 0): no credit, a full gap.
            s.next_packet(Time::ZERO).unwrap();
            assert_eq!(s.next_send_time(), Time(11_584_000), "credit {credit}");
            // 2 ms late: 2 ms of the next gap forgiven.
            s.next_packet(Time(13_584_000)).unwrap();
            let expect = if credit {
                13_584_000 + 9_584_000
            } else {
                13_584_000 + 11_584_000
            };
            assert_eq!(s.next_send_time(), Time(expect), "credit {credit}");
            // 100 ms late (an idle gap): at most half the gap, 5.792 ms.
            let late = Time(expect + 100_000_000);
            s.next_packet(late).unwrap();
            let gap = if credit { 5_792_000 } else { 11_584_000 };
            assert_eq!(
                s.next_send_time(),
                Time(late.nanos() + gap),
                "credit {credit}"
            );
            // Sent exactly at its earliest departure: no credit again.
            let t = s.next_send_time();
            s.next_packet(t).unwrap();
            assert_eq!(
                s.next_send_time(),
                Time(t.nanos() + 11_584_000),
                "credit {credit}"
            );
        }
    }

    #[test]
    fn a_paced_burst_of_tso_segs_leaves_at_once_and_the_gap_covers_it() {
        use scavenger_cc::Time;
        // Linux tcp_write_xmit sends one skb of tcp_tso_segs segments, and
        // tcp_update_skb_after_send sets the next departure skb->len / rate later: with 2
        // segments of 1448 B at 1 Mbit/s, two packets at 0, two at 23.168 ms, and a
        // window of 3 cuts the second burst to one segment, whose gap is one segment's.
        let mut s = sender(Box::new(Paced {
            linux: true,
            cwnd: 3,
            min_tso: 2,
        }));
        let mut sent = Vec::new();
        let mut t = Time::ZERO;
        for _ in 0..2 {
            while let Some(p) = s.next_packet(t) {
                sent.push((t, p.seg));
            }
            t = s.next_send_time();
        }
        assert_eq!(
            sent,
            [(Time::ZERO, 0), (Time::ZERO, 1), (Time(23_168_000), 2)]
        );
        assert_eq!(s.next_send_time(), Time(23_168_000 + 11_584_000));
    }

    #[test]
    fn skb_tail_bursts_puts_psh_on_the_tail_of_each_paced_burst_and_none_on_a_lone_one() {
        use scavenger_cc::Time;
        // Linux 6.18's tcp_bbr at 8 Mbit/s (2-segment skbs): bursts `-P`, a segment sent
        // alone because the window allows one `-` (tso_fragment keeps PSH on the part not
        // sent; deviations/simulator.md#sim-psh-paced). A window of 3 paced at 1 Mbit/s
        // in bursts of 2: segments 0-1 at 0 (PSH on 1), 2 alone at 23.168 ms (none).
        let mut s = sender(Box::new(Paced {
            linux: true,
            cwnd: 3,
            min_tso: 2,
        }));
        s.cfg.psh_rule = crate::sender::PshRule::SkbTailBursts;
        assert_eq!(burst(&mut s, Time::ZERO), [(0, false), (1, true)]);
        let t = s.next_send_time();
        assert_eq!(burst(&mut s, t), [(2, false)]);
        // An ACK of 0 frees one segment: 3 goes alone (no PSH, so the receiver waits for
        // a second segment as Linux's does); an ACK of 1-3 frees three: 4-5 go as a
        // burst, then 6 alone where the window ends.
        s.on_ack(Time(30_000_000), &sack_ack(1, &[]));
        let t = s.next_send_time().max(Time(30_000_000));
        assert_eq!(burst(&mut s, t), [(3, false)]);
        s.on_ack(Time(60_000_000), &sack_ack(4, &[]));
        let t = s.next_send_time().max(Time(60_000_000));
        assert_eq!(burst(&mut s, t), [(4, false), (5, true)]);
        let t = s.next_send_time();
        assert_eq!(burst(&mut s, t), [(6, false)]);
        // `EveryAck` keeps the older paced rule: PSH on the last segment the window
        // allows, a lone one too.
        let mut s = sender(Box::new(Paced {
            linux: true,
            cwnd: 3,
            min_tso: 2,
        }));
        assert_eq!(burst(&mut s, Time::ZERO), [(0, false), (1, false)]);
        s.on_ack(Time(30_000_000), &sack_ack(1, &[]));
        let t = s.next_send_time().max(Time(30_000_000));
        let lone: Vec<_> = std::iter::from_fn(|| {
            let t = s.next_send_time().max(t);
            s.next_packet(t).map(|p| (p.seg, p.psh))
        })
        .collect();
        assert_eq!(lone, [(2, false), (3, true)]);
    }

    #[test]
    fn a_paced_burst_cut_by_the_receive_window_carries_psh_on_its_tail() {
        use scavenger_cc::Time;
        // Bursts of 4 (min_tso 4), cwnd 10, the receiver's window 6 segments: 0-3 at 0
        // (PSH on 3, the burst is full), then 4-5, where the window's right edge (6 000)
        // ends the burst (PSH on 5).
        let mut s = sender(Box::new(Paced {
            linux: true,
            cwnd: 10,
            min_tso: 4,
        }));
        s.cfg.psh_rule = crate::sender::PshRule::SkbTailBursts;
        s.cfg.receiver_window = true;
        s.snd_edge = 6 * MSS;
        assert_eq!(
            burst(&mut s, Time::ZERO),
            [(0, false), (1, false), (2, false), (3, true)]
        );
        let t = s.next_send_time();
        assert_eq!(burst(&mut s, t), [(4, false), (5, true)]);
        // The cumulative ACK of 0-1 with 3 SACKed and a 6-segment window: the edge moves
        // to 8 000, so 6-7 may go, while cwnd and pipe (2, 4, 5) would allow more. The
        // burst ends at the edge, not at the window, and its tail carries PSH as the
        // segment `next_packet` stops after (deviations/simulator.md#sim-psh-paced).
        let mut a = sack_ack(2, &[(3, 4)]);
        a.wnd = 6 * MSS as u32;
        s.on_ack(Time(50_000_000), &a);
        let t = s.next_send_time().max(Time(50_000_000));
        assert_eq!(burst(&mut s, t), [(6, false), (7, true)]);
        assert_eq!(s.next_packet(s.next_send_time().max(t)), None);
    }

    /// A window of 100 segments paced at `bps` by the algorithm, which leaves
    /// `min_tso_segs` at the trait's default (the sysctl's 2), as every paced
    /// algorithm but BBR does.
    struct RatePaced(u64);

    impl scavenger_cc::CongestionControl for RatePaced {
        fn name(&self) -> &'static str {
            "rate-paced"
        }
        fn on_ack(&mut self, _now: scavenger_cc::Time, _ack: &scavenger_cc::AckSample) {}
        fn on_congestion(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::CongestionEvent) {
        }
        fn on_rto(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::RtoEvent) {}
        fn cwnd(&self) -> u64 {
            100 * MSS
        }
        fn pacing_rate(&self) -> Option<scavenger_cc::Rate> {
            Some(scavenger_cc::Rate::from_bps(self.0))
        }
    }

    /// Departure time (ns) of each of the first `n` segments a sender sends.
    fn departures(s: &mut crate::sender::Sender, n: usize) -> Vec<u64> {
        let mut out = Vec::new();
        let mut t = scavenger_cc::Time::ZERO;
        while out.len() < n {
            while s.next_packet(t).is_some() {
                out.push(t.0);
            }
            t = s.next_send_time();
        }
        out.truncate(n);
        out
    }

    #[test]
    fn a_paced_algorithm_sends_linux_tso_autosize_bursts() {
        // tcp_tso_autosize (deviations/simulator.md#sim-paced-bursts): 1 ms of the
        // pacing rate in segments, at least tcp_min_tso_segs = 2, and the next burst the
        // burst's bytes over the rate later (wire size here: 1500 B a segment).
        // 8 Mbit/s: 1,000,000 >> 10 = 976 B -> 2 segments, 3,000 B = 3 ms apart.
        let mut s = sender(Box::new(RatePaced(8_000_000)));
        assert_eq!(
            departures(&mut s, 6),
            [0, 0, 3_000_000, 3_000_000, 6_000_000, 6_000_000]
        );
        // 100 Mbit/s: 12,500,000 >> 10 = 12,207 B -> 8 segments, 12,000 B = 0.96 ms.
        let mut s = sender(Box::new(RatePaced(100_000_000)));
        let d = departures(&mut s, 17);
        assert_eq!(d[..8], [0; 8]);
        assert_eq!(d[8..16], [960_000; 8]);
        assert_eq!(d[16], 1_920_000);
        // gso_max_segs = 1 (GSO off): one segment per gap, 120 us apart.
        let mut s = sender(Box::new(RatePaced(100_000_000)));
        s.cfg.gso_max_segs = 1;
        assert_eq!(departures(&mut s, 3), [0, 120_000, 240_000]);
    }

    #[test]
    fn no_prr_over_an_algorithm_with_cong_control() {
        use scavenger_cc::Time;
        // Ten segments out; segment 0 is lost, 1..=3 are SACKed (RFC 6675 DupThresh):
        // fast recovery with 6 in the pipe. With PRR (ssthresh 2 below the pipe), the
        // window is pipe + one segment on the first ACK (RFC 6937, Linux's first sndcnt);
        // with cong_control (Linux tcp_cong_control returns before tcp_cwnd_reduction)
        // it is the algorithm's own, 10 segments.
        for (linux, expect) in [(false, 7), (true, 10)] {
            let mut s = paced_sender(linux, 10);
            let mut t = Time::ZERO;
            for _ in 0..10 {
                s.next_packet(t).unwrap();
                t = s.next_send_time();
            }
            s.on_ack(t, &sack_ack(0, &[(1, 4)]));
            assert!(s.in_recovery(), "linux {linux}");
            let window = s.prr.map_or(s.cwnd(), |p| p.window);
            assert_eq!((s.pipe() / MSS, window / MSS), (6, expect), "linux {linux}");
        }
    }

    /// RACK's time order for retransmissions (RFC 8985 §6.2, Linux tcp_rack_detect_loss;
    /// deviations/simulator.md#sim-loss-recovery). Ten segments leave 1 ms apart; an ACK
    /// at 100 ms SACKs 1 and 3..=5, so 0 and 2 are lost (DupThresh) and retransmitted in
    /// that order. At 200 ms the receiver SACKs 2's retransmission but not 0's. Nothing
    /// above the SND.NXT of 0's retransmission is SACKed, so Linux 4.4's rule (a SACK
    /// above that SND.NXT) would wait for the RTO; RACK marks 0 lost at once, because a
    /// segment sent after its retransmission was delivered, and 0 leaves again.
    /// A window that falls from 10 to 2 segments on the first ACK.
    struct CutOnFirstAck(u64);

    impl scavenger_cc::CongestionControl for CutOnFirstAck {
        fn name(&self) -> &'static str {
            "cut"
        }
        fn on_ack(&mut self, _now: scavenger_cc::Time, _ack: &scavenger_cc::AckSample) {
            self.0 = 2 * MSS;
        }
        fn on_congestion(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::CongestionEvent) {
        }
        fn on_rto(&mut self, _now: scavenger_cc::Time, _ev: &scavenger_cc::RtoEvent) {}
        fn cwnd(&self) -> u64 {
            self.0
        }
    }

    /// The kernel shim applies the agent's decision on an ACK from the next ACK
    /// (docs/deviations/kernel.md#kernel-shim-decision-lag): with `shim_lag` the answer
    /// to the ACK that cut the window to 2 segments still fills the old window of 10;
    /// without it nothing is sent (9 segments are in flight); after the next ACK the cut
    /// applies with the lag too.
    #[test]
    fn with_the_shim_lag_a_window_cut_applies_from_the_next_ack() {
        let ms = |m: u64| scavenger_cc::Time(m * 1_000_000);
        for (lag, after_first, after_second) in [(false, 0, 0), (true, 1, 0)] {
            let mut s = sender(Box::new(CutOnFirstAck(10 * MSS)));
            s.cfg.shim_lag = lag;
            send_ten(&mut s);
            assert!(s.next_packet(ms(10)).is_none(), "the window of 10 is full");
            s.on_ack(ms(100), &sack_ack(1, &[]));
            let sent = std::iter::from_fn(|| s.next_packet(ms(100))).count();
            assert_eq!(
                sent, after_first,
                "shim_lag {lag}: answer to the cutting ACK"
            );
            s.on_ack(ms(101), &sack_ack(2, &[]));
            let sent = std::iter::from_fn(|| s.next_packet(ms(101))).count();
            assert_eq!(sent, after_second, "shim_lag {lag}: answer to the next ACK");
        }
    }

    /// RACK's time order for originals in recovery (RFC 8985 §6.2 step 5, Linux
    /// `tcp_rack_detect_loss` with `tcp_rack_reo_wnd` 0): segment 4 has one SACKed segment
    /// above it, too few for DupThresh, but segment 5, sent after it, was delivered, so 4
    /// is lost and leaves next, before any new data.
    #[test]
    fn in_recovery_the_last_hole_is_lost_once_a_segment_sent_after_it_is_delivered() {
        let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut s = sender(Box::new(Recorder(samples)));
        let ms = |m: u64| scavenger_cc::Time(m * 1_000_000);
        send_ten(&mut s);
        // 1..=3 SACKed: DupThresh marks 0 and recovery begins.
        s.on_ack(ms(100), &sack_ack(0, &[(1, 4)]));
        assert!(s.in_recovery());
        assert_eq!(s.next_packet(ms(100)).map(|p| p.seg), Some(0));
        // 5 SACKed: only one SACKed segment above 4.
        s.on_ack(ms(105), &sack_ack(0, &[(5, 6), (1, 4)]));
        let p = s.next_packet(ms(105)).expect("PRR allows a segment");
        assert_eq!(
            p.seg, 4,
            "the hole below a later-sent delivered segment leaves first"
        );
        assert_eq!(s.stats.retransmits, 2);
    }

    /// Before recovery RACK's reordering window is min_rtt/4 with a timer, which the
    /// simulator does not model: two SACKed segments mark nothing lost (DupThresh 3).
    #[test]
    fn before_recovery_two_sacked_segments_mark_nothing_lost() {
        let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut s = sender(Box::new(Recorder(samples)));
        let ms = |m: u64| scavenger_cc::Time(m * 1_000_000);
        send_ten(&mut s);
        s.on_ack(ms(100), &sack_ack(0, &[(1, 3)]));
        assert!(!s.in_recovery());
        assert_eq!(s.stats.retransmits, 0);
    }

    /// Once reordering was seen (segment 1 SACKed after 2, never retransmitted: Linux
    /// `tcp_check_sack_reordering`), RACK's window is no longer 0 and originals are left to
    /// DupThresh: 0 is lost (three SACKed above), 4 is not (one above), and new data
    /// leaves after 0's retransmission.
    #[test]
    fn after_reordering_the_time_order_no_longer_marks_originals_lost() {
        let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut s = sender(Box::new(Recorder(samples)));
        let ms = |m: u64| scavenger_cc::Time(m * 1_000_000);
        send_ten(&mut s);
        s.on_ack(ms(100), &sack_ack(0, &[(2, 3)]));
        s.on_ack(ms(101), &sack_ack(0, &[(1, 3)]));
        s.on_ack(ms(102), &sack_ack(0, &[(5, 6), (1, 4)]));
        assert!(s.in_recovery());
        assert_eq!(s.next_packet(ms(102)).map(|p| p.seg), Some(0));
        assert_eq!(s.next_packet(ms(102)).map(|p| p.seg), Some(10));
        assert_eq!(s.stats.retransmits, 1);
    }

    #[test]
    fn a_retransmission_is_lost_when_a_later_sent_retransmission_is_delivered() {
        let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut s = sender(Box::new(Recorder(samples)));
        let ms = |m: u64| scavenger_cc::Time(m * 1_000_000);
        send_ten(&mut s);
        s.on_ack(ms(100), &sack_ack(0, &[(3, 6), (1, 2)]));
        assert!(s.in_recovery());
        let retx: Vec<u32> = (0..2)
            .map(|k| s.next_packet(ms(100 + k)).unwrap().seg)
            .collect();
        assert_eq!(retx, vec![0, 2]);
        assert_eq!(s.stats.retransmits, 2);
        // Segment 2's retransmission (sent at 101 ms) is delivered; 0's (100 ms) is not.
        s.on_ack(ms(200), &sack_ack(0, &[(1, 6)]));
        assert!(s.rto_deadline().is_some_and(|d| d > ms(200)), "no RTO yet");
        let p = s.next_packet(ms(200)).expect("a retransmission is allowed");
        assert_eq!(p.seg, 0, "segment 0 leaves a third time before any RTO");
        assert_eq!(s.stats.retransmits, 3);
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn the_algorithm_gets_the_newest_segments_send_time_and_the_echo_separately() {
        use crate::packet::{Kind, Packet};
        use scavenger_cc::{Dur, Time};
        let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut s = sender(Box::new(Recorder(samples.clone())));
        let ms = |m: u64| Time(m * 1_000_000);
        // Segments 0 and 1 leave 10 ms apart; a delayed ACK covers both at 100 ms and, by
        // RFC 7323 §4.3, echoes segment 0's TSval.
        let p0 = s.next_packet(ms(0)).unwrap();
        let p1 = s.next_packet(ms(10)).unwrap();
        assert_eq!((p0.seg, p1.seg), (0, 1));
        let mut ack = Packet::data(0, 0, 0, 52, 0, false);
        ack.kind = Kind::Ack;
        ack.ack = 2;
        ack.ts_ecr = p0.tsval;
        ack.rx_tsval = ms(60).nanos() as i64;
        s.on_ack(ms(100), &ack);
        let a = samples.lock().unwrap()[0];
        // Linux ca_rtt_us: the newest acknowledged segment, 100 − 10 ms.
        assert_eq!(a.rtt, Some(Dur::from_millis(90)));
        // TSecr: the oldest, 100 − 0 ms; the OWD is the receiver's TSval minus TSecr.
        assert_eq!(a.ts_echo_rtt, Some(Dur::from_millis(100)));
        assert_eq!(a.owd, Some(ms(60).nanos() as i64));
        assert_eq!(a.bytes_acked, 2 * MSS);

        // Segment 2 leaves at 110 ms and is retransmitted at 400 ms; an ACK covering it
        // gives no send-time sample (Karn), but its echo is the retransmission's TSval,
        // 500 − 400 ms, which Linux then takes as ca_rtt_us (tcp_ack_update_rtt).
        let p2 = s.next_packet(ms(110)).unwrap();
        assert_eq!(p2.seg, 2);
        s.on_rto(ms(400));
        let r2 = s.next_packet(ms(400)).unwrap();
        assert!(r2.retrans && r2.seg == 2);
        let mut ack = Packet::data(0, 0, 0, 52, 0, false);
        ack.kind = Kind::Ack;
        ack.ack = 3;
        ack.ts_ecr = r2.tsval;
        ack.rx_tsval = ms(450).nanos() as i64;
        s.on_ack(ms(500), &ack);
        let a = samples.lock().unwrap()[1];
        let echo = Some(Dur::from_millis(100));
        assert_eq!((a.rtt, a.ts_echo_rtt), (echo, echo));
    }

    #[test]
    fn srtt_is_weighted_by_the_segments_each_ack_delivers() {
        use crate::packet::{Kind, Packet};
        let mut s = sender(Box::new(Recorder(Default::default())));
        let ms = |m: u64| scavenger_cc::Time(m * 1_000_000);
        let ack = |n: u32| {
            let mut a = Packet::data(0, 0, 0, 52, 0, false);
            a.kind = Kind::Ack;
            a.ack = n;
            a
        };
        for t in [0, 10, 110, 110] {
            s.next_packet(ms(t)).unwrap();
        }
        assert_eq!(s.stats.srtt_weighted_mean_ns(), None);
        // Segments 0 and 1 by one ACK: the first sample is the oldest's, 100 ms
        // (tcp_ack_update_rtt's seq_rtt_us), and srtt = 100 ms weighs twice.
        s.on_ack(ms(100), &ack(2));
        // Segment 2 (sent at 110 ms) at 190 ms: srtt = 7/8·100 + 1/8·80 = 97.5 ms, once.
        s.on_ack(ms(190), &ack(3));
        // Segment 3 at 200 ms: srtt = 7/8·97.5 + 1/8·90 = 96.5625 ms, once.
        s.on_ack(ms(200), &ack(4));
        // A duplicate delivers nothing and adds no weight.
        s.on_ack(ms(210), &ack(4));
        let want = (2.0 * 100.0 + 97.5 + 96.5625) / 4.0 * 1e6;
        assert_eq!(s.stats.srtt_segs, 4);
        assert!((s.stats.srtt_weighted_mean_ns().unwrap() - want).abs() < 1.0);
    }
}
