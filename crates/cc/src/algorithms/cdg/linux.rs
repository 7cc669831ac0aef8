//! CDG as Linux `net/ipv4/tcp_cdg.c` runs it (Hayes & Armitage 2011 notes §8; Linux 4.4, the
//! kernel Ong 2020 ran): gradient sums with extrapolation, `backoff_factor`, a single
//! ineffectual-backoff threshold, FULL/NONFULL states, the Linux loss ssthresh, Reno
//! per-ACK increase, packet arithmetic, RTT samples in whole µs (the datapath's
//! `ca_rtt_us`) and PRR during the CWR that follows a delay backoff.

use super::{Cdg, QueueState, NO_MIN};
use crate::api::*;
use crate::units::Time;

/// Linux `tcp_cdg_backoff`: P = 1 − exp(−grad·backoff_factor·1e−6), grad the (extrapolated)
/// sum of gradients over the window in µs (Hayes & Armitage 2011 notes §8.4).
pub fn linux_backoff_probability(grad_sum_us: i64, backoff_factor: u64) -> f64 {
    if grad_sum_us <= 0 {
        return 0.0;
    }
    -(-(grad_sum_us as f64) * backoff_factor as f64 * 1e-6).exp_m1()
}

/// Linux `DIV_ROUND_CLOSEST` for a signed dividend and positive divisor.
fn div_round_closest(x: i64, d: i64) -> i64 {
    if x > 0 {
        (x + d / 2) / d
    } else {
        (x - d / 2) / d
    }
}

impl Cdg {
    pub(super) fn beta_1024(&self) -> u64 {
        ((self.cfg.backoff_beta * 1024.0).round() as u64).min(1024)
    }

    pub(super) fn on_ack_linux(&mut self, now: Time, ack: &AckSample) {
        // CWR ends once something above high_seq is acknowledged (tcp_fastretrans_alert),
        // then CA_EVENT_COMPLETE_CWR.
        if let Some(h) = self.cwr_until {
            if ack.snd_una > h {
                self.cwr_until = None;
                // tcp_end_cwnd_reduction: cwnd = ssthresh, then CA_EVENT_COMPLETE_CWR.
                self.w.cwnd = self.w.ssthresh;
                self.complete_cwr();
            }
        }
        // tcp_cong_control: in CWR the window follows PRR (tcp_cwnd_reduction); cong_avoid
        // is not called in CWR or Recovery, nor without forward progress.
        if self.cwr_until.is_some() && !ack.in_recovery {
            self.prr_reduction(ack);
            return;
        }
        if ack.in_recovery || self.cwr_until.is_some() || ack.bytes_acked == 0 {
            return;
        }
        if self.in_slow_start() && self.cfg.hystart_detect != 0 {
            self.hystart_update(now, ack.cwnd_limited);
        }
        if ack.snd_una > self.rtt_seq && self.cur_max > 0 {
            let mut grad = 0;
            if let Some((pmin, pmax)) = self.prev {
                grad = self.linux_grad(pmin, pmax);
            }
            self.rtt_seq = ack.snd_nxt.max(self.snd_nxt);
            self.roll_interval();
            if grad > 0 && self.linux_backoff(grad) {
                return;
            }
        }
        if !ack.cwnd_limited {
            self.shadow = self.shadow.min(self.w.cwnd);
            return;
        }
        let prior = self.w.cwnd;
        self.w.reno_on_ack(ack.bytes_acked, self.mss);
        // shadow_wnd = max(shadow_wnd, shadow_wnd + incr)
        self.shadow = self.shadow.saturating_add(self.w.cwnd - prior);
    }

    /// Linux tcp_cdg_grad: returns the (extrapolated) gradient sum in µs.
    pub(super) fn linux_grad(&mut self, pmin: u64, pmax: u64) -> i64 {
        let gmin = (self.cur_min / 1000) as i64 - (pmin / 1000) as i64;
        let gmax = (self.cur_max / 1000) as i64 - (pmax / 1000) as i64;
        self.push_gradients(gmin, gmax);
        let (smin, smax) = (self.sum_min, self.sum_max);
        let mut grad = if smin > 0 { smin } else { smax };
        let window = self.ring_min.len();
        if self.pushed < window {
            // Extrapolate missing values in the gradient window.
            grad = grad * window as i64 / self.pushed as i64;
        }
        // Backoff was effectual.
        if smin <= -32 || smax <= -32 {
            self.ineff_cnt = 0;
        }
        if self.cfg.use_tolerance {
            let gmin = div_round_closest(smin, 64);
            let gmax = div_round_closest(smax, 64);
            if gmin > 0 && gmax <= 0 {
                self.queue = QueueState::Full;
            } else if (gmin > 0 && gmax > 0) || gmax < 0 {
                self.queue = QueueState::NonFull;
            }
        }
        grad
    }

    /// Linux tcp_cdg_backoff.
    pub(super) fn linux_backoff(&mut self, grad: i64) -> bool {
        let p = linux_backoff_probability(grad, self.cfg.backoff_factor);
        self.last_p = p;
        if !self.rng.chance(p) {
            return false;
        }
        if self.cfg.use_ineff > 0 {
            self.ineff_cnt += 1;
            if self.ineff_cnt > self.cfg.use_ineff {
                return false;
            }
        }
        self.shadow = self.shadow.max(self.w.cwnd);
        self.queue = QueueState::Backoff;
        // tcp_enter_cwr: ssthresh from tcp_cdg_ssthresh in state BACKOFF; cwnd is left as
        // it is and PRR brings it down to ssthresh over the next round trip.
        self.delay_backoffs += 1;
        self.linux_enter_cwr();
        true
    }

    /// Linux tcp_enter_cwr → tcp_init_cwnd_reduction: high_seq = snd_nxt, snd_cwnd_cnt = 0,
    /// prior_cwnd = cwnd, prr_delivered = prr_out = 0, ssthresh = tcp_cdg_ssthresh. cwnd is
    /// not changed here.
    pub(super) fn linux_enter_cwr(&mut self) {
        self.prior_cwnd = (self.w.cwnd / self.mss).max(1);
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.w.ca_acked = 0;
        self.w.ssthresh = self.linux_ssthresh_pkts() * self.mss;
        self.enter_cwr();
    }

    /// Linux tcp_cwnd_reduction (PRR, RFC 6937; Linux 4.4, the kernel Ong 2020 ran), per
    /// ACK in CWR, in packets:
    ///   delta = ssthresh − in_flight; prr_delivered += newly_acked_sacked;
    ///   delta < 0: sndcnt = ⌈ssthresh·prr_delivered / prior_cwnd⌉ − prr_out
    ///   else:      sndcnt = min(delta, newly_acked_sacked)   (conservative reduction bound;
    ///              the slow-start bound needs retransmitted data acknowledged, never in CWR)
    ///   cwnd = in_flight + sndcnt.
    pub(super) fn prr_reduction(&mut self, ack: &AckSample) {
        let mss = self.mss.max(1);
        let newly = ack.bytes_acked.div_ceil(mss) as i64;
        if newly <= 0 || self.prior_cwnd == 0 {
            return;
        }
        let ss = (self.w.ssthresh / mss) as i64;
        let in_flight = ack.bytes_in_flight.div_ceil(mss) as i64;
        let delta = ss - in_flight;
        self.prr_delivered += newly as u64;
        let sndcnt = if delta < 0 {
            let dividend = ss as u64 * self.prr_delivered + self.prior_cwnd - 1;
            (dividend / self.prior_cwnd) as i64 - self.prr_out as i64
        } else {
            delta.min(newly)
        };
        // snd_cwnd is unsigned in Linux; in_flight + sndcnt ≥ 0 unless prr_out ran ahead.
        self.w.cwnd = ((in_flight + sndcnt).max(1) as u64) * mss;
    }

    /// Linux tcp_cdg_ssthresh, in packets (Hayes & Armitage 2011 notes §8.11).
    pub(super) fn linux_ssthresh_pkts(&mut self) -> u64 {
        let cwnd = self.w.cwnd / self.mss;
        if self.queue == QueueState::Backoff {
            return ((cwnd * self.beta_1024()) >> 10).max(2);
        }
        if self.queue == QueueState::NonFull && self.cfg.use_tolerance {
            return cwnd;
        }
        let shadow = ((self.shadow / self.mss) >> 1).min(cwnd);
        self.shadow = shadow * self.mss;
        let half = (cwnd as f64 * self.cfg.loss_beta) as u64;
        if self.cfg.use_shadow {
            shadow.max(half).max(2)
        } else {
            half.max(2)
        }
    }

    /// CA_EVENT_COMPLETE_CWR: gradients across the reduction are ignored.
    pub(super) fn complete_cwr(&mut self) {
        self.queue = QueueState::Unknown;
        self.rtt_seq = self.snd_nxt;
        self.prev = if self.cur_max > 0 {
            Some((self.cur_min, self.cur_max))
        } else {
            None
        };
        self.cur_min = NO_MIN;
        self.cur_max = 0;
    }

    pub(super) fn on_congestion_linux(&mut self, kind: CongestionKind) {
        match kind {
            CongestionKind::Loss => {
                // tcp_enter_recovery: ssthresh from tcp_cdg_ssthresh, unless a window
                // reduction is already in progress (CWR after a delay backoff or ECN): then
                // "if (!tcp_in_cwnd_reduction(sk))" skips tcp_init_cwnd_reduction and the
                // CWR's ssthresh stays. Recovery replaces CWR.
                if self.cwr_until.is_none() {
                    self.w.ssthresh = self.linux_ssthresh_pkts() * self.mss;
                }
                let ss = self.w.ssthresh;
                self.w.cwnd = ss;
                self.w.ca_acked = 0;
                self.cwr_until = None;
                self.in_loss_recovery = true;
                self.after_rto = false;
            }
            CongestionKind::Ecn => {
                // tcp_enter_cwr (only from Open/Disorder), then PRR.
                if self.cwr_until.is_none() && !self.in_loss_recovery {
                    self.linux_enter_cwr();
                }
            }
        }
    }

    /// tcp_enter_loss calls ssthresh() unless already in CWR/Recovery.
    pub(super) fn rto_ssthresh_linux(&mut self) {
        if self.cwr_until.is_none() && !self.in_loss_recovery {
            self.w.ssthresh = self.linux_ssthresh_pkts() * self.mss;
        }
    }

    pub(super) fn on_sent_linux(&mut self, sent: &SentInfo) {
        if self.cwr_until.is_some() {
            // tcp_event_new_data_sent / tcp_retransmit_skb: prr_out += pcount.
            self.prr_out += sent.bytes.div_ceil(self.mss.max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::*;
    use super::super::*;
    use super::*;

    // ------------------------------------------------------------------ Linux variant

    fn linux_cfg() -> CdgConfig {
        CdgConfig::linux()
    }

    #[test]
    fn linux_ssthresh_rules() {
        // cwnd 100 packets, shadow 150 packets.
        let mk = |f: &dyn Fn(&mut Cdg)| {
            let mut c = new_cdg(linux_cfg(), 100, 1);
            c.shadow = 150 * MSS;
            f(&mut c);
            c.on_congestion(Time(0), &loss());
            (c.cwnd() / MSS, c.shadow() / MSS)
        };
        // shadow = min(150 >> 1, 100) = 75; max3(2, 75, 100 >> 1) = 75.
        assert_eq!(mk(&|_| {}), (75, 75));
        // use_shadow = 0: max(2, 50).
        assert_eq!(mk(&|c| c.cfg.use_shadow = false), (50, 75));
        // In BACKOFF (a loss during the delay CWR): 100·724 >> 10 = 70.
        assert_eq!(mk(&|c| c.queue = QueueState::Backoff), (70, 150));
        // NONFULL with tolerance: no reduction; without tolerance (stock): halving rule.
        assert_eq!(
            mk(&|c| {
                c.cfg.use_tolerance = true;
                c.queue = QueueState::NonFull
            }),
            (100, 150)
        );
        assert_eq!(mk(&|c| c.queue = QueueState::NonFull), (75, 75));
        assert_eq!(linux_cfg().variant, Variant::Linux);
        assert_eq!(new_cdg(linux_cfg(), 1, 1).beta_1024(), 724);
    }

    #[test]
    fn linux_gradient_sums_extrapolation_and_single_ineff_threshold() {
        // backoff_factor so large that any positive sum gives P = 1; use_ineff = 5.
        let mut cfg = linux_cfg();
        cfg.backoff_factor = 1_000_000;
        cfg.hystart_detect = 0;
        let mut c = new_cdg(cfg, 100, 2);
        c.w.ssthresh = 0;
        let mut h = Harness::new();
        h.interval(&mut c, &[100]);
        // I0: Reno AI adds 1/cwnd per ACK: still 100 packets.
        assert_eq!(c.cwnd(), 100 * MSS);
        // First gradient +1 ms = 1000 µs, extrapolated ×8/1 = 8000 µs. P = 1 → backoff:
        // tcp_enter_cwr sets ssthresh = 100·724 >> 10 = 72400 >> 10 = 70 and leaves cwnd
        // (PRR reduces it on the following ACKs of the CWR; this harness has none).
        h.interval(&mut c, &[101]);
        assert_eq!((c.cwnd(), c.ssthresh()), (100 * MSS, 70 * MSS));
        assert_eq!(c.queue_state(), QueueState::Backoff);
        assert!(close(
            c.last_backoff_probability(),
            linux_backoff_probability(8000, 1_000_000)
        ));
        // Each following interval alternates: the CWR completes at the next ACK (snd_una >
        // high_seq: tcp_end_cwnd_reduction sets cwnd = ssthresh; Q unknown, rtt_prev := rtt,
        // so the gradient across the reduction is ignored), then the next closing ACK backs
        // off again (ssthresh only): 70 → 49 → 34 → 24 → 16.
        let mut seen = Vec::new();
        let mut rtt = 101;
        for _ in 0..20 {
            rtt += 1;
            h.interval(&mut c, &[rtt]);
            seen.push(c.cwnd() / MSS);
        }
        // 70·724 >> 10 = 50680 >> 10 = 49, 49·724 >> 10 = 35476 >> 10 = 34,
        // 34·724 >> 10 = 24616 >> 10 = 24, 24·724 >> 10 = 17376 >> 10 = 16; each takes
        // effect one interval after its backoff. Reno AI at 16 packets needs 16 ACKs for +1:
        // the 12 ACKs after the last CWR (iterations 9–20) add nothing.
        let mut expect = vec![70, 70, 49, 49, 34, 34, 24, 24, 16];
        expect.resize(20, 16);
        assert_eq!(seen, expect);
        // Exactly use_ineff = 5 backoffs (I1 and loop iterations 2, 4, 6, 8), then every
        // closing ACK (iterations 10..=20, no CWR any more) is a refused indication:
        // backoff_cnt = 5 + 11 = 16 (no reset: the sums never fall to −32 µs).
        assert_eq!(c.ineffectual_count(), 16);
    }

    fn lack(una: u64, nxt: u64, acked: u64, in_flight: u64, rtt_ms: u64) -> AckSample {
        AckSample {
            bytes_acked: acked,
            rtt: Some(Dur::from_millis(rtt_ms)),
            snd_una: una,
            snd_nxt: nxt,
            bytes_in_flight: in_flight,
            ..AckSample::empty(MSS)
        }
    }

    fn sent(seq: u64, retransmission: bool) -> SentInfo {
        SentInfo {
            bytes: MSS,
            bytes_in_flight: 0,
            retransmission,
            seq,
            app_limited: false,
        }
    }

    #[test]
    fn linux_rtt_sample_is_the_datapaths_ca_rtt_in_whole_microseconds() {
        // tcp_cdg_acked gets ack_sample.rtt_us = ca_rtt_us, which the datapath gives as
        // `AckSample::rtt` (the send time of the newest segment the ACK covers, not the
        // TSecr echo); CDG keeps no send-time table and ignores transmission reports.
        let mut c = new_cdg(linux_cfg(), 10, 1);
        c.on_sent(Time(0), &sent(0, false));
        c.on_sent(Time(40_000_500), &sent(1000, false));
        // A 2-segment ACK with a 53.0009 ms sample → 53000 µs (Linux works in whole µs).
        let mut a = lack(2000, 100_000, 2000, 0, 0);
        a.rtt = Some(Dur(53_000_900));
        c.on_ack(Time(93_001_400), &a);
        // That ACK closed the first interval (rtt_seq 0): rtt_prev = (53, 53) ms.
        assert_eq!(c.prev, Some((53_000_000, 53_000_000)));
        assert_eq!(c.last_rtt, 53_000_900);
        // Two more 2-segment ACKs (45, 60 ms) arm the delayed-ACK filter (delack 3); a
        // 1-segment ACK may then only lower the minimum: 99 ms never reaches the maximum.
        c.on_ack(Time(360_000_000), &lack(4000, 100_000, 2000, 0, 60));
        c.on_ack(Time(460_000_000), &lack(5000, 100_000, 2000, 0, 45));
        assert_eq!((c.cur_min, c.cur_max), (45_000_000, 60_000_000));
        c.on_ack(Time(555_000_000), &lack(6000, 100_000, 1000, 0, 99));
        assert_eq!(c.last_rtt, 99_000_000);
        assert_eq!(
            (c.cur_min, c.cur_max, c.delack),
            (45_000_000, 60_000_000, 2)
        );
        // No sample (Karn's rule): nothing changes.
        let mut k = lack(7000, 100_000, 2000, 0, 0);
        k.rtt = None;
        c.on_ack(Time(600_000_000), &k);
        assert_eq!(
            (c.cur_min, c.cur_max, c.last_rtt),
            (45_000_000, 60_000_000, 99_000_000)
        );
    }

    /// Linux variant, cwnd 20 packets in CA, gradient P = 1: A0 opens, A1 backs off.
    fn linux_backed_off() -> (Cdg, u64) {
        let mut cfg = linux_cfg();
        cfg.backoff_factor = 1_000_000;
        cfg.hystart_detect = 0;
        let mut c = new_cdg(cfg, 20, 1);
        c.w.ssthresh = 0;
        c.on_ack(Time(1_000_000), &lack(1000, 20_000, MSS, 19_000, 100));
        c.on_ack(Time(2_000_000), &lack(21_000, 40_000, MSS, 19_000, 101));
        (c, 40_000)
    }

    #[test]
    fn linux_backoff_reduces_cwnd_with_prr_then_ends_at_ssthresh() {
        let (mut c, mut next) = linux_backed_off();
        // Gradient +1 ms ×8 → P = 1: tcp_enter_cwr: ssthresh = 20·724 >> 10 = 14480 >> 10
        // = 14, prior_cwnd = 20, high_seq = snd_nxt = 40000; cwnd unchanged.
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.cwr_until),
            (20 * MSS, 14 * MSS, Some(40_000))
        );
        // A toy datapath: sends while in flight < cwnd (each send counts in prr_out).
        let mut in_flight = 19;
        let send = |c: &mut Cdg, in_flight: &mut u64, next: &mut u64| {
            while *in_flight < c.cwnd() / MSS {
                c.on_sent(Time(0), &sent(*next, false));
                *next += MSS;
                *in_flight += 1;
            }
        };
        send(&mut c, &mut in_flight, &mut next); // old cwnd 20: one send, prr_out 1
        assert_eq!((in_flight, c.prr_out), (20, 1));
        // Each ACK delivers one packet. delta = 14 − in_flight < 0 throughout, so
        // sndcnt = ⌈14·k/20⌉ − prr_out (k = prr_delivered), cwnd = in_flight + sndcnt:
        //  k=1: F 19, ⌈0.7⌉=1 − 1 = 0 → 19 (no send)     k=2: F 18, 2 − 1 = 1 → 19 (send, P 2)
        //  k=3: F 18, ⌈2.1⌉=3 − 2 = 1 → 19 (send, P 3)   k=4: F 18, ⌈2.8⌉=3 − 3 = 0 → 18
        //  k=5: F 17, ⌈3.5⌉=4 − 3 = 1 → 18 (send, P 4)   k=6: F 17, ⌈4.2⌉=5 − 4 = 1 → 18 (P 5)
        //  k=7: F 17, ⌈4.9⌉=5 − 5 = 0 → 17               k=8: F 16, ⌈5.6⌉=6 − 5 = 1 → 17 (P 6)
        let mut seen = Vec::new();
        for k in 1..=8u64 {
            in_flight -= 1;
            c.on_ack(
                Time(2_000_000 + k),
                &lack(21_000 + k * MSS, next, MSS, in_flight * MSS, 101),
            );
            seen.push(c.cwnd() / MSS);
            send(&mut c, &mut in_flight, &mut next);
        }
        assert_eq!(seen, [19, 19, 19, 18, 18, 18, 17, 17]);
        assert_eq!((c.prr_delivered, c.prr_out, in_flight), (8, 6, 17));
        // Once in flight ≤ ssthresh, sndcnt = min(delta, newly acked) (CRB). Force it:
        // in flight 10 → delta = 4, sndcnt = min(4, 1) = 1 → cwnd 11.
        c.on_ack(Time(3_000_000), &lack(30_000, next, MSS, 10 * MSS, 101));
        assert_eq!(c.cwnd(), 11 * MSS);
        // The first ACK above high_seq ends the CWR: cwnd = ssthresh = 14 (then the ACK's
        // cong_avoid: Reno AI credit 1000 of 14000, no growth); state UNKNOWN.
        c.on_ack(Time(4_000_000), &lack(41_000, next, MSS, 13 * MSS, 101));
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.cwr_until),
            (14 * MSS, 14 * MSS, None)
        );
        assert_eq!(c.queue_state(), QueueState::Unknown);
        // The paper variant (FreeBSD, no PRR) cuts at once: see
        // window_progression_backoff_skip_and_slow_start.
    }

    #[test]
    fn linux_loss_or_ecn_during_cwr_keeps_the_backoff_ssthresh() {
        // tcp_enter_recovery only calls ssthresh() when no reduction is in progress.
        let (c, _) = linux_backed_off();
        let mut l = c.clone();
        l.on_congestion(Time(0), &loss());
        // ssthresh stays 14 (not 14·724 >> 10 = 9, not the shadow rule); shadow untouched.
        assert_eq!(
            (l.cwnd(), l.ssthresh(), l.shadow()),
            (14 * MSS, 14 * MSS, 20 * MSS)
        );
        // An ECN echo in CWR does nothing (tcp_enter_cwr only from Open/Disorder).
        let mut e = c.clone();
        e.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        assert_eq!((e.cwnd(), e.ssthresh()), (20 * MSS, 14 * MSS));
        // Outside a reduction, cwnd 20 and shadow 20 in state UNKNOWN: the loss rule,
        // shadow = min(20 >> 1, 20) = 10, ssthresh = max3(2, 10, 20 >> 1) = 10.
        let mut fresh = new_cdg(linux_cfg(), 20, 1);
        fresh.on_congestion(Time(0), &loss());
        assert_eq!(
            (fresh.cwnd(), fresh.ssthresh(), fresh.shadow()),
            (10 * MSS, 10 * MSS, 10 * MSS)
        );
        // ECN outside a reduction: same ssthresh, but cwnd follows PRR from 20.
        let mut ecn = new_cdg(linux_cfg(), 20, 1);
        ecn.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        assert_eq!((ecn.cwnd(), ecn.ssthresh()), (20 * MSS, 10 * MSS));
        // First ACK: in flight 19, delta = 10 − 19 < 0: ⌈10·1/20⌉ − 0 = 1 → cwnd 20.
        ecn.on_ack(Time(0), &lack(0, 0, MSS, 19 * MSS, 100));
        assert_eq!(ecn.cwnd(), 20 * MSS);
    }

    #[test]
    fn linux_rounding_and_effectual_reset() {
        // DIV_ROUND_CLOSEST(x, 64): ties away from zero.
        assert_eq!(
            [31, 32, 95, 96, -31, -32, -96, 0].map(|x| div_round_closest(x, 64)),
            [0, 1, 1, 2, 0, -1, -2, 0]
        );
        // A gradient sum ≤ −32 µs resets backoff_cnt; with use_tolerance, a rounded
        // g_min > 0 and g_max ≤ 0 is FULL, g_max < 0 is NONFULL.
        let mut cfg = linux_cfg();
        cfg.use_tolerance = true;
        let mut c = new_cdg(cfg, 100, 2);
        c.ineff_cnt = 3;
        c.cur_min = 100_040_000; // τ_min +40 µs
        c.cur_max = 100_000_000; // τ_max −32 µs
        let grad = c.linux_grad(100_000_000, 100_032_000);
        // sums: +40, −32 → grad = g_min sum 40, extrapolated ×8/1 = 320.
        assert_eq!(grad, 320);
        assert_eq!(c.ineffectual_count(), 0);
        // rounded: 40 → 1 > 0, −32 → −1 ≤ 0 → FULL.
        assert_eq!(c.queue_state(), QueueState::Full);
        c.ineff_cnt = 3;
        c.cur_min = 100_000_000;
        c.cur_max = 100_000_000;
        // second sample (0, −31): sums (40, −63) → rounded (1, −1): FULL again; −63 ≤ −32 resets.
        assert_eq!(c.linux_grad(100_000_000, 100_031_000), 40 * 8 / 2);
        assert_eq!(
            (c.queue_state(), c.ineffectual_count()),
            (QueueState::Full, 0)
        );
        // third sample (−100, 0): sums (−60, −63) → rounded (−1, −1): g_max < 0 → NONFULL;
        // grad = g_max sum (g_min sum not > 0) = −63 ×8/3 = −168.
        c.cur_min = 99_900_000;
        c.cur_max = 100_000_000;
        assert_eq!(c.linux_grad(100_000_000, 100_000_000), -168);
        assert_eq!(c.queue_state(), QueueState::NonFull);
    }

    #[test]
    fn linux_hystart_delay_exit() {
        let mut cfg = linux_cfg();
        cfg.hystart_detect = 2;
        let mut c = new_cdg(cfg, 10, 1);
        let mut h = Harness::new();
        // One long round: delay_min = 100 ms from the first samples, then after 8 samples
        // rtt.min of the round exceeds 100 + 100/8 = 112.5 ms → ssthresh = cwnd.
        let mut s = vec![100u64];
        s.extend([100; 8]);
        h.interval(&mut c, &s);
        assert_eq!(c.ssthresh(), u64::MAX);
        // New round: all samples 120 ms; detection on the 9th call of the round.
        // Round 1 grew cwnd by 9 (slow start) to 19; ACKs 1–8 of round 2 grow it to 27;
        // the 9th ACK detects 120 ms > 112.5 ms → ssthresh = cwnd = 27 packets, after
        // which the flow is in congestion avoidance (ACKs 10–12 add only ca_acked).
        assert_eq!(c.cwnd(), 19 * MSS);
        // (ACKs that do not close the round: the closing one would add a delay backoff.)
        h.open_acks(&mut c, &[120; 12]);
        assert_eq!((c.ssthresh(), c.cwnd()), (27 * MSS, 27 * MSS));
    }
}
