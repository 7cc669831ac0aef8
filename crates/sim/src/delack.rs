//! When the receiver acknowledges: Linux 6.x's delayed-ACK engine (`icsk_ack`), for a pure
//! receiver whose application reads at once. Functions cited are from the Linux 6.x tree:
//! net/ipv4/tcp_input.c, tcp_output.c, tcp_timer.c and include/net/tcp.h.
//!
//! - Quick-ACK mode: the first data segment, an idle gap longer than the RTO, a duplicate
//!   and a new CE mark put the receiver in quick-ACK mode, where it acknowledges every
//!   segment for up to `min(rcv_wnd / (2·rcv_mss), 16)` ACKs (`tcp_incr_quickack`,
//!   `tcp_enter_quickack_mode`, `tcp_dec_quickack_mode`).
//! - Otherwise an ACK goes out once more than one full segment is unacknowledged, or at
//!   once for a filled hole or a CWR (`__tcp_ack_snd_check`), else after the adaptive
//!   delayed-ACK timeout `ato` (`tcp_event_data_recv`, `tcp_send_delayed_ack`,
//!   `tcp_delack_timer_handler`).
//! - Out-of-order data: the first three ACKs for one RCV.NXT go out at once, further ones
//!   are compressed for min(1 ms, RTT/20) (`__tcp_ack_snd_check`, `tcp_comp_sack_delay_ns`).
//! - A short segment, or a full-sized one with PSH, sets ICSK_ACK_PUSHED
//!   (`tcp_measure_rcv_mss`); the application's read then ACKs at once if it left nothing
//!   queued, i.e. no out-of-order data (`tcp_cleanup_rbuf`).
//!
//! Time is counted in jiffies at HZ = 1000 (1 ms), as the kernel does for these timers.
//! Differences from Linux are in docs/receiver.md.

use scavenger_cc::{Dur, Time};

/// TCP_ATO_MIN = HZ/25 (include/net/tcp.h), in jiffies at HZ = 1000.
pub const ATO_MIN: u32 = 40;
/// TCP_DELACK_MIN = HZ/25.
pub const DELACK_MIN: u32 = 40;
/// TCP_DELACK_MAX = HZ/5: the ceiling of every delayed-ACK timeout (`tcp_delack_max`).
pub const DELACK_MAX: u32 = 200;
/// TCP_MAX_QUICKACKS.
pub const MAX_QUICKACKS: u32 = 16;
/// TCP_RTO_MIN = HZ/5 and TCP_RTO_MAX = 120·HZ.
const RTO_MIN: u32 = 200;
const RTO_MAX: u32 = 120_000;
/// `TCP_TIMEOUT_FALLBACK`: the RTO after a handshake without an RTT sample, jiffies.
const TIMEOUT_FALLBACK: u32 = 3000;
/// sysctl `tcp_comp_sack_delay_ns` (default 1 ms) and `tcp_comp_sack_nr` (default 44).
const COMP_SACK_DELAY: Dur = Dur::from_millis(1);
const COMP_SACK_NR: u32 = 44;
/// TCP_FASTRETRANS_THRESH: out-of-order ACKs sent uncompressed per RCV.NXT.
const FASTRETRANS_THRESH: u32 = 3;
/// Nanoseconds per jiffy at HZ = 1000.
const JIFFY_NS: u64 = 1_000_000;

fn jiffies(t: Time) -> u64 {
    t.nanos() / JIFFY_NS
}

/// usecs_to_jiffies: rounds up.
fn to_jiffies(d: Dur) -> u32 {
    d.nanos().div_ceil(JIFFY_NS).min(u32::MAX as u64) as u32
}

/// The receiver's RTO and smoothed RTT after one RTT sample `rtt` (the handshake's), as
/// `tcp_rtt_estimator` ("no previous measure": srtt = m, mdev = 2m, rttvar = max(mdev,
/// tcp_rto_min)) and `tcp_set_rto` (`__tcp_set_rto`: srtt + rttvar, `tcp_bound_rto`)
/// leave them: (rto, srtt) in jiffies.
pub fn rto_after_one_sample(rtt: Dur) -> (u32, u32) {
    let rttvar = (2 * rtt.nanos()).max(RTO_MIN as u64 * JIFFY_NS);
    let rto = to_jiffies(Dur::from_nanos(rtt.nanos() + rttvar)).min(RTO_MAX);
    (rto, to_jiffies(rtt))
}

/// What to do after a data segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckDecision {
    Now,
    /// Hold the ACK until this time unless something sends one earlier.
    At(Time),
}

#[derive(Clone, Debug)]
pub struct LinuxDelack {
    /// `icsk_ack.rcv_mss`, bytes (the sender's MSS: every full segment has this size).
    rcv_mss: u64,
    /// `icsk_rto` and `srtt_us >> 3` of the receiver, in jiffies.
    rto: u32,
    srtt: u32,
    /// `icsk_ack.quick`: ACKs left in quick-ACK mode.
    quick: u32,
    /// `icsk_ack.ato` in jiffies; 0 until the first data segment.
    ato: u32,
    /// `icsk_ack.lrcvtime`, jiffies.
    lrcvtime: u64,
    /// ICSK_ACK_NOW: a one-time immediate ACK is due.
    ack_now: bool,
    /// ICSK_ACK_PUSHED (with ICSK_ACK_PUSHED2, which `tcp_cleanup_rbuf` treats alike for
    /// a receiver that is never in ping-pong mode); cleared by any ACK sent.
    pushed: bool,
    /// ICSK_ACK_TIMER with `icsk_ack.timeout`, jiffies.
    timer: Option<u64>,
    /// `tp->compressed_ack`, `compressed_ack_rcv_nxt`, `dup_ack_counter`, and the
    /// compressed-ACK timer.
    compressed_ack: u32,
    compressed_ack_rcv_nxt: u32,
    dup_ack_counter: u32,
    comp_timer: Option<Time>,
}

impl LinuxDelack {
    /// A receiver for segments of `mss` bytes on a path whose handshake measured `rtt`.
    pub fn new(mss: u32, rtt: Dur) -> LinuxDelack {
        let (rto, srtt) = rto_after_one_sample(rtt);
        LinuxDelack {
            rcv_mss: mss.max(1) as u64,
            rto,
            srtt,
            quick: 0,
            ato: 0,
            lrcvtime: 0,
            ack_now: false,
            pushed: false,
            timer: None,
            compressed_ack: 0,
            compressed_ack_rcv_nxt: 0,
            dup_ack_counter: 0,
            comp_timer: None,
        }
    }

    /// The handshake's RTT sample replaces the path RTT given to `new`
    /// (`tcp_synack_rtt_meas`); `None` when the handshake gave none (more than one SYN-ACK
    /// sent): srtt 0 and `TCP_TIMEOUT_FALLBACK` (3 s) as `tcp_init_metrics` leaves them
    /// (RFC 6298 §5.7).
    pub fn set_handshake_rtt(&mut self, rtt: Option<Dur>) {
        (self.rto, self.srtt) = match rtt {
            Some(m) => rto_after_one_sample(m),
            None => (TIMEOUT_FALLBACK, 0),
        };
    }

    pub fn quick(&self) -> u32 {
        self.quick
    }
    /// The current `ato`, jiffies (ms).
    pub fn ato(&self) -> u32 {
        self.ato
    }
    pub fn rto(&self) -> u32 {
        self.rto
    }

    /// `tcp_incr_quickack`: quick = max(quick, min(rcv_wnd / (2·rcv_mss) or 2, max)).
    fn incr_quickack(&mut self, rcv_wnd: u64, max_quickacks: u32) {
        let mut q = (rcv_wnd / (2 * self.rcv_mss)).min(u32::MAX as u64) as u32;
        if q == 0 {
            q = 2;
        }
        q = q.min(max_quickacks);
        if q > self.quick {
            self.quick = q;
        }
    }

    /// `tcp_grow_window` opened the window: `icsk_ack.quick |= 1` (`crate::rcvbuf`).
    pub fn window_grew(&mut self) {
        self.quick |= 1;
    }

    /// `tcp_enter_quickack_mode` (the receiver never is in ping-pong mode: it sends no data).
    pub fn enter_quickack_mode(&mut self, rcv_wnd: u64, max_quickacks: u32) {
        self.incr_quickack(rcv_wnd, max_quickacks);
        self.ato = ATO_MIN;
    }

    /// ICSK_ACK_PUSHED is set: a PSH or short segment arrived since the last ACK.
    pub fn pushed(&self) -> bool {
        self.pushed
    }

    /// `tcp_event_data_recv` for an in-order segment of `len` bytes, `psh` its PSH flag:
    /// the ato estimator and `tcp_measure_rcv_mss`.
    pub fn on_in_order(&mut self, now: Time, len: u32, psh: bool, rcv_wnd: u64) {
        let now_j = jiffies(now);
        if self.ato == 0 {
            // "The _first_ data packet received, initialize delayed ACK engine."
            self.incr_quickack(rcv_wnd, MAX_QUICKACKS);
            self.ato = ATO_MIN;
        } else {
            let m = now_j.saturating_sub(self.lrcvtime);
            if m <= (ATO_MIN / 2) as u64 {
                self.ato = (self.ato >> 1) + ATO_MIN / 2;
            } else if m < self.ato as u64 {
                self.ato = ((self.ato >> 1) + m as u32).min(self.rto);
            } else if m > self.rto as u64 {
                // "Too long gap. Apparently sender failed to restart window."
                self.incr_quickack(rcv_wnd, MAX_QUICKACKS);
            }
        }
        self.lrcvtime = now_j;
        // `tcp_measure_rcv_mss` (net/ipv4/tcp_input.c): a segment shorter than rcv_mss sets
        // ICSK_ACK_PUSHED (and PUSHED2 if it was set); a full-sized one sets it when it
        // carries PSH ("likely the end of an application write", commit 4720852ed9af,
        // Linux 6.6, backported). `read_drained` turns the flag into the ACK.
        if (len as u64) < self.rcv_mss || psh {
            self.pushed = true;
        }
    }

    /// `tcp_cleanup_rbuf` (net/ipv4/tcp.c) after the application read the in-order data
    /// that just arrived (our application reads at once, so `copied > 0`): with an ACK
    /// scheduled, ICSK_ACK_PUSHED set, no ping-pong mode and the read emptying the receive
    /// memory (`!sk_rmem_alloc`: nothing held, so no out-of-order data queued), the ACK
    /// goes now. The "more than one rcv_mss unacknowledged" half of the test is
    /// `__tcp_ack_snd_check`'s, already applied in `check`.
    pub fn read_drained(&self, ofo_queued: bool) -> bool {
        self.pushed && !ofo_queued
    }

    /// ICSK_ACK_NOW: a filled hole (`tcp_data_queue`, RFC 5681 §4.2) or a data segment
    /// with CWR (`tcp_ecn_accept_cwr`).
    pub fn ack_now(&mut self) {
        self.ack_now = true;
    }

    /// `__tcp_ack_snd_check(sk, ofo_possible = 1)`: `unacked_bytes` = RCV.NXT − RCV.WUP
    /// (received since the last ACK), `ofo` whether out-of-order data is held.
    pub fn check(&mut self, now: Time, unacked_bytes: u64, ofo: bool, rcv_nxt: u32) -> AckDecision {
        // More than one full frame received (the window always allows: the application
        // reads at once), quick-ACK mode, or a one-time immediate ACK.
        if unacked_bytes > self.rcv_mss || self.quick > 0 || self.ack_now {
            return AckDecision::Now;
        }
        if !ofo {
            return self.send_delayed_ack(now);
        }
        // SACK compression.
        if self.compressed_ack >= COMP_SACK_NR {
            return AckDecision::Now;
        }
        if self.compressed_ack_rcv_nxt != rcv_nxt {
            self.compressed_ack_rcv_nxt = rcv_nxt;
            self.dup_ack_counter = 0;
        }
        if self.dup_ack_counter < FASTRETRANS_THRESH {
            self.dup_ack_counter += 1;
            return AckDecision::Now;
        }
        self.compressed_ack += 1;
        // "compress ack timer : 5 % of rtt, but no more than tcp_comp_sack_delay_ns".
        let t = *self.comp_timer.get_or_insert_with(|| {
            let rtt = Dur::from_millis(self.srtt as u64);
            now + COMP_SACK_DELAY.min(Dur::from_nanos(rtt.nanos() / 20))
        });
        AckDecision::At(self.earliest(t))
    }

    /// `tcp_send_delayed_ack`.
    fn send_delayed_ack(&mut self, now: Time) -> AckDecision {
        let mut ato = self.ato;
        if ato > DELACK_MIN {
            // HZ/2, or TCP_DELACK_MAX with ICSK_ACK_PUSHED (never ping-pong here), bounded
            // by the RTT estimate. `tcp_delack_max` below caps every timeout at
            // TCP_DELACK_MAX anyway, so PUSHED changes no timeout with the default
            // `icsk_delack_max`.
            let max_ato = if self.pushed { DELACK_MAX } else { 1000 / 2 };
            ato = ato.min(max_ato.min(self.srtt.max(DELACK_MIN)));
        }
        ato = ato.min(DELACK_MAX);
        let now_j = jiffies(now);
        let mut timeout = now_j + ato as u64;
        if let Some(old) = self.timer {
            // "If delack timer is about to expire, send ACK now."
            if old <= now_j + (ato >> 2) as u64 {
                return AckDecision::Now;
            }
            // "Use new timeout only if there wasn't a older one earlier."
            timeout = timeout.min(old);
        }
        self.timer = Some(timeout);
        AckDecision::At(self.earliest(Time(timeout * JIFFY_NS)))
    }

    fn earliest(&self, t: Time) -> Time {
        [self.deadline(), Some(t)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(t)
    }

    /// When a timer is due, if any.
    pub fn deadline(&self) -> Option<Time> {
        let delack = self.timer.map(|j| Time(j * JIFFY_NS));
        match (delack, self.comp_timer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A timer event at `now`; true if an ACK must go out. `scheduled`: data arrived since
    /// the last ACK (ICSK_ACK_SCHED). `tcp_compressed_ack_kick` and
    /// `tcp_delack_timer_handler`.
    pub fn on_timer(&mut self, now: Time, scheduled: bool) -> bool {
        if self.comp_timer.is_some_and(|t| t <= now) {
            self.comp_timer = None;
            if self.compressed_ack > 0 {
                return true;
            }
        }
        match self.timer {
            Some(j) if Time(j * JIFFY_NS) <= now => {
                self.timer = None;
                if scheduled {
                    // "Delayed ACK missed: inflate ATO."
                    self.ato = (self.ato << 1).min(self.rto);
                }
                scheduled
            }
            _ => false,
        }
    }

    /// `tcp_event_ack_sent`: an ACK carrying RCV.NXT went out; `scheduled` as above.
    pub fn on_ack_sent(&mut self, scheduled: bool) {
        self.compressed_ack = 0;
        self.comp_timer = None;
        // `tcp_dec_quickack_mode`: only ACKs of new data count (Linux 6.7+).
        if self.quick > 0 {
            let pkts = scheduled as u32;
            if pkts >= self.quick {
                self.quick = 0;
                // "Leaving quickack mode we deflate ATO."
                self.ato = ATO_MIN;
            } else {
                self.quick -= pkts;
            }
        }
        // `tcp_event_ack_sent` → `inet_csk_clear_xmit_timer(ICSK_TIME_DACK)`:
        // `icsk_ack.pending = 0` clears TIMER, PUSHED and PUSHED2 together.
        self.ack_now = false;
        self.pushed = false;
        self.timer = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;
    const WND: u64 = 64 << 20;
    fn ms(x: u64) -> Time {
        Time(x * JIFFY_NS)
    }

    #[test]
    fn rto_and_srtt_after_the_handshake_sample() {
        // 50 ms: rttvar = max(100 ms, 200 ms) → rto 250 ms. 350 ms: rttvar 700 → 1050.
        assert_eq!(rto_after_one_sample(Dur::from_millis(50)), (250, 50));
        assert_eq!(rto_after_one_sample(Dur::from_millis(350)), (1050, 350));
        // usecs_to_jiffies rounds up.
        assert_eq!(rto_after_one_sample(Dur::from_micros(50_200)).1, 51);
    }

    #[test]
    fn quick_ack_count_is_capped_by_the_window_and_sixteen() {
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, WND);
        assert_eq!((d.quick(), d.ato()), (16, 40));
        // rcv_wnd / (2·rcv_mss) = 10·1448 / 2896 = 5.
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, 10 * MSS as u64);
        assert_eq!(d.quick(), 5);
        // A window below 2·rcv_mss still gives 2.
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, 1000);
        assert_eq!(d.quick(), 2);
    }

    #[test]
    fn every_segment_is_acked_until_sixteen_acks_then_every_second_or_the_timer() {
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        // One segment per ms: 16 ACKs at once (each ACKs new data, so quick counts down).
        for i in 0..16 {
            d.on_in_order(ms(i), MSS, false, WND);
            assert_eq!(
                d.check(ms(i), MSS as u64, false, 0),
                AckDecision::Now,
                "segment {i}"
            );
            d.on_ack_sent(true);
        }
        // Leaving quick-ACK mode deflates ato to 40 ms.
        assert_eq!((d.quick(), d.ato()), (0, 40));
        // Segment 17 (t = 16 ms) is held: ato = 40/2 + 20 = 40 (m = 1 ≤ 20), timer at 56 ms.
        d.on_in_order(ms(16), MSS, false, WND);
        assert_eq!(
            d.check(ms(16), MSS as u64, false, 0),
            AckDecision::At(ms(56))
        );
        // Segment 18: two full segments unacknowledged (> rcv_mss): ACK now.
        d.on_in_order(ms(17), MSS, false, WND);
        assert_eq!(d.check(ms(17), 2 * MSS as u64, false, 0), AckDecision::Now);
        d.on_ack_sent(true);
        assert_eq!(d.deadline(), None);
    }

    #[test]
    fn a_missed_delayed_ack_inflates_ato_and_the_rtt_bounds_the_timer() {
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, WND);
        d.quick = 0; // as after sixteen ACKs
        d.on_in_order(ms(100), MSS, false, WND); // m = 100: 40 ≤ m ≤ rto: ato stays 40
        assert_eq!(
            d.check(ms(100), MSS as u64, false, 1),
            AckDecision::At(ms(140))
        );
        assert!(!d.on_timer(ms(139), true));
        assert!(d.on_timer(ms(140), true));
        // "Delayed ACK missed: inflate ATO": min(80, rto 250).
        assert_eq!(d.ato(), 80);
        d.on_ack_sent(true);
        // Next lone segment 100 ms later: m = 100 ≥ ato, unchanged; the timer is
        // min(ato 80, max(srtt 50, 40)) = 50 ms.
        d.on_in_order(ms(240), MSS, false, WND);
        assert_eq!(
            d.check(ms(240), MSS as u64, false, 2),
            AckDecision::At(ms(290))
        );
        // A second segment 30 ms later that does not complete two segments (a short one
        // would ACK at once, so use the inter-arrival branch): m = 30 < ato 80 →
        // ato = 80/2 + 30 = 70.
        d.on_in_order(ms(270), MSS, false, WND);
        assert_eq!(d.ato(), 70);
        // The pending timer (290) is within ato/4 of now + 50? 290 > 270 + 12: keep 290.
        assert_eq!(
            d.check(ms(270), MSS as u64, false, 3),
            AckDecision::At(ms(290))
        );
        // Closely spaced arrivals (m ≤ 20) pull ato back: 70/2 + 20 = 55, 55/2 + 20 = 47.
        d.on_in_order(ms(280), MSS, false, WND);
        d.on_in_order(ms(281), MSS, false, WND);
        assert_eq!(d.ato(), 47);
        // At 281 the old timer (290) is within 281 + 47/4 = 292: ACK now.
        assert_eq!(d.check(ms(281), MSS as u64, false, 4), AckDecision::Now);
    }

    #[test]
    fn an_idle_gap_longer_than_the_rto_re_enters_quick_ack_mode() {
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, WND);
        d.quick = 0;
        d.on_in_order(ms(250), MSS, false, WND); // m = 250, not > rto
        assert_eq!(d.quick(), 0);
        d.on_in_order(ms(501), MSS, false, WND); // m = 251 > 250
        assert_eq!(d.quick(), 16);
        assert_eq!(d.check(ms(501), MSS as u64, false, 2), AckDecision::Now);
    }

    #[test]
    fn out_of_order_acks_go_at_once_three_times_per_rcv_nxt_then_compressed() {
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, WND);
        d.quick = 0;
        d.on_ack_sent(true);
        for i in 0..3 {
            assert_eq!(d.check(ms(10 + i), 0, true, 1), AckDecision::Now);
            d.on_ack_sent(true);
        }
        // The fourth: compressed for min(1 ms, 50 ms / 20) = 1 ms.
        let t = Time(13 * JIFFY_NS);
        assert_eq!(
            d.check(t, 0, true, 1),
            AckDecision::At(t + Dur::from_millis(1))
        );
        // A fifth within the millisecond joins the same timer.
        assert_eq!(
            d.check(t + Dur::from_micros(500), 0, true, 1),
            AckDecision::At(t + Dur::from_millis(1))
        );
        assert!(d.on_timer(t + Dur::from_millis(1), true));
        d.on_ack_sent(true);
        // A new RCV.NXT (partial hole fill) resets the count: at once again.
        assert_eq!(d.check(ms(20), 0, true, 5), AckDecision::Now);
    }

    #[test]
    fn a_short_segment_or_a_filled_hole_is_acked_at_once() {
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, WND);
        d.quick = 0;
        // A short segment: `__tcp_ack_snd_check` arms the timer (ato 40 ms), and the read
        // that drains the queue sends the ACK (ICSK_ACK_PUSHED, `tcp_cleanup_rbuf`).
        d.on_in_order(ms(100), 500, false, WND);
        assert_eq!(d.check(ms(100), 500, false, 1), AckDecision::At(ms(140)));
        assert!(d.read_drained(false));
        d.on_ack_sent(true);
        d.on_in_order(ms(200), MSS, false, WND);
        d.ack_now();
        assert_eq!(d.check(ms(200), MSS as u64, false, 2), AckDecision::Now);
    }

    /// A receiver out of quick-ACK mode with ato 40 ms, its last segment at 0 ms.
    fn settled() -> LinuxDelack {
        let mut d = LinuxDelack::new(MSS, Dur::from_millis(50));
        d.on_in_order(ms(0), MSS, false, WND);
        d.quick = 0;
        d.on_ack_sent(true);
        d
    }

    #[test]
    fn a_lone_full_segment_with_psh_is_acked_when_read_and_without_psh_waits_for_the_timer() {
        // Without PSH: held until the delayed-ACK timer, now + ato = 100 + 40 ms.
        let mut d = settled();
        d.on_in_order(ms(100), MSS, false, WND);
        assert!(!d.pushed());
        assert_eq!(
            d.check(ms(100), MSS as u64, false, 1),
            AckDecision::At(ms(140))
        );
        assert!(!d.read_drained(false));
        assert!(!d.on_timer(ms(139), true));
        assert!(d.on_timer(ms(140), true));
        // With PSH (`tcp_measure_rcv_mss`, len ≥ rcv_mss): the same timer is armed, but
        // the read that empties the queue ACKs at once.
        let mut d = settled();
        d.on_in_order(ms(100), MSS, true, WND);
        assert!(d.pushed());
        assert_eq!(
            d.check(ms(100), MSS as u64, false, 1),
            AckDecision::At(ms(140))
        );
        assert!(d.read_drained(false));
        // Out-of-order data still queued keeps `sk_rmem_alloc` above 0: no ACK from the read.
        assert!(!d.read_drained(true));
    }

    #[test]
    fn any_ack_sent_clears_the_pushed_flag() {
        let mut d = settled();
        d.on_in_order(ms(100), MSS, true, WND);
        assert!(d.pushed());
        d.on_ack_sent(true);
        assert!(!d.pushed());
        // The next full segment without PSH waits for the timer again.
        d.on_in_order(ms(200), MSS, false, WND);
        assert!(!d.read_drained(false));
        assert_eq!(
            d.check(ms(200), MSS as u64, false, 2),
            AckDecision::At(ms(240))
        );
        // A flag that no ACK cleared stays: a PSH segment behind out-of-order data, then
        // a segment without PSH that drains the queue, is ACKed by that read.
        let mut d = settled();
        d.on_in_order(ms(100), MSS, true, WND);
        assert!(!d.read_drained(true));
        d.on_in_order(ms(101), MSS, false, WND);
        assert!(d.read_drained(false));
    }
}
