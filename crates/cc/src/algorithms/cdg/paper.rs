//! CDG as Hayes & Armitage 2011 describe it (§3), refined by the authors' FreeBSD module
//! `cc_cdg.c` v0.1 where the paper is silent (Hayes & Armitage 2011 notes §4, §6, §7):
//! probabilistic backoff on the smoothed (or, in slow start, raw) gradients, the queue
//! state of Fig 1, loss tolerance (eq 8), the shadow window (eq 7), ineffectual-backoff
//! detection with b and b' (§3.6). Windows in bytes; reductions take effect at once.

use super::{Cdg, QueueState};
use crate::api::*;
use crate::units::Time;

/// Eq 5: P[backoff] = 1 − e^(−ḡ/G), zero for ḡ ≤ 0 (Hayes & Armitage 2011 §3.4). `g_ms` in ms per RTT
/// interval, `scale_g` = G in the same unit.
pub fn backoff_probability(g_ms: f64, scale_g: f64) -> f64 {
    if g_ms <= 0.0 {
        return 0.0;
    }
    -(-g_ms / scale_g).exp_m1()
}

impl Cdg {
    pub(super) fn on_ack_paper(&mut self, now: Time, ack: &AckSample) {
        // CONGRECOVERY after a delay backoff ends when the ACK reaches snd_recover.
        if let Some(r) = self.cwr_until {
            if ack.snd_una >= r {
                self.cwr_until = None;
            }
        }
        let in_recovery = ack.in_recovery || self.cwr_until.is_some();
        if self.cfg.hystart_detect != 0
            && self.in_slow_start()
            && !in_recovery
            && ack.bytes_acked > 0
        {
            self.hystart_update(now, ack.cwnd_limited);
        }

        let mut congestion = false;
        // FreeBSD: ERTT_NEW_MEASUREMENT, one marked measurement per RTT (Hayes & Armitage 2011 notes §4.1).
        let new_interval = ack.snd_una > self.rtt_seq && self.cur_max > 0;
        if new_interval {
            let slow_start = self.in_slow_start();
            if let Some((pmin, pmax)) = self.prev {
                // Eq 1–2, ns.
                let gmin = self.cur_min as i64 - pmin as i64;
                let gmax = self.cur_max as i64 - pmax as i64;
                self.push_gradients(gmin, gmax);
                let (gbar_min, gbar_max) = self.smoothed_gradients_ms();
                // Gradient choice (FreeBSD order, Hayes & Armitage 2011 notes §4.5); slow start uses the raw
                // gradients (Hayes & Armitage 2011 footnote 2).
                let chosen = if slow_start && gmin > 0 {
                    Some(gmin as f64 / 1e6)
                } else if self.sum_min > 0 {
                    Some(gbar_min)
                } else if slow_start && gmax > 0 {
                    Some(gmax as f64 / 1e6)
                } else if self.sum_max > 0 {
                    Some(gbar_max)
                } else {
                    None
                };
                self.last_p = 0.0;
                if let Some(g) = chosen {
                    // Eq 5 and eq 6's "X < P[backoff]".
                    let p = backoff_probability(g, self.cfg.exp_backoff_scale);
                    self.last_p = p;
                    congestion = self.rng.chance(p);
                }
                // Queue state from the smoothed gradients (Fig 1; FreeBSD rules, first match).
                let (smin, smax) = (self.sum_min, self.sum_max);
                if smin > 0 && smax <= 0 {
                    self.queue = QueueState::Full;
                } else if smin >= 0 && smax < 0 {
                    self.queue = QueueState::Empty;
                    self.shadow = 0; // eq 7, Q = empty
                } else if smin > 0 && smax > 0 {
                    self.queue = QueueState::Rising;
                } else if smin < 0 && smax < 0 {
                    self.queue = QueueState::Falling;
                }
                // §3.6: backoffs were effectual once a smoothed gradient turns negative.
                if smin < 0 || smax < 0 {
                    self.ineff_cnt = 0;
                }
            }
            self.roll_interval();
            self.rtt_seq = ack.snd_nxt.max(self.snd_nxt);
        }

        if congestion {
            self.ineff_cnt += 1;
            if !in_recovery {
                let w_before = self.w.cwnd;
                let b = self.cfg.use_ineff;
                if b == 0 || self.ineff_cnt <= b {
                    self.delay_backoff_paper();
                } else if self.ineff_cnt >= b + self.cfg.hold_backoff {
                    // §3.6: b' indications ignored; start counting again.
                    self.ineff_cnt = 0;
                }
                // §3.5: the backoff's effect is not visible in the next interval, so the
                // next gradient is ignored (FreeBSD maxrtt_in_prevrtt = 0).
                self.prev = None;
                // Eq 7: s := max(w_i, s_i) on a delay-based backoff (pre-backoff w; FreeBSD
                // also resyncs on suppressed backoffs).
                self.shadow = self.shadow.max(w_before);
            }
        } else if ack.bytes_acked > 0 && !in_recovery && ack.cwnd_limited {
            self.increase_paper(new_interval);
        }
    }

    /// Eq 6 backoff: w := β·w (floored at 2 segments), ssthresh := w, enter CWR.
    pub(super) fn delay_backoff_paper(&mut self) {
        let target = (self.w.cwnd as f64 * self.cfg.backoff_beta) as u64;
        self.w.ssthresh = target.max(2 * self.mss);
        self.w.cwnd = self.w.ssthresh;
        self.w.ca_acked = 0;
        self.window_incr = 0;
        self.rtt_count = 0;
        self.delay_backoffs += 1;
        self.enter_cwr();
    }

    /// §3.5: slow start +1 segment per ACK, congestion avoidance +1 segment per RTT
    /// (eq 6 "otherwise"); s grows alike while non-zero (FreeBSD cdg_window_increase).
    pub(super) fn increase_paper(&mut self, new_interval: bool) {
        let mss = self.mss;
        let (incr, s_incr) = if self.w.cwnd <= self.w.ssthresh {
            self.window_incr = 0;
            self.rtt_count = 0;
            (mss, mss)
        } else if new_interval {
            let incr = if self.cfg.alpha_inc == 0 {
                mss
            } else {
                self.rtt_count += 1;
                if self.rtt_count >= self.cfg.alpha_inc {
                    self.window_incr += 1;
                    self.rtt_count = 0;
                }
                mss * self.window_incr
            };
            (incr, mss)
        } else {
            (0, 0)
        };
        self.w.cwnd += incr;
        if self.shadow > 0 {
            self.shadow += s_incr;
        }
    }

    /// Eq 8 with FreeBSD's CC_NDUPACK handling (Hayes & Armitage 2011 notes §4.10).
    pub(super) fn on_loss_paper(&mut self) {
        let tolerant = self.cfg.use_tolerance
            && matches!(
                self.queue,
                QueueState::Empty | QueueState::Rising | QueueState::Falling
            );
        if self.cwr_until.is_some() || tolerant {
            // Already reducing, or the queue is not inferred full (UNKNOWN counts as full):
            // retransmit without reducing w.
            self.w.ssthresh = self.w.cwnd;
            if self.cwr_until.is_some() {
                self.enter_cwr();
            }
        } else {
            // s is halved as NewReno would (FreeBSD RENO_BETA = 50), w by loss_beta;
            // w := max(s/2, w/2) = max(s, w)/2 for the defaults.
            if self.shadow > 0 {
                self.shadow /= 2;
            }
            let s = if self.cfg.use_shadow { self.shadow } else { 0 };
            let w_red = (self.w.cwnd as f64 * self.cfg.loss_beta) as u64;
            self.w.ssthresh = s.max(w_red).max(2 * self.mss);
            self.w.cwnd = self.w.ssthresh;
            self.w.ca_acked = 0;
            self.window_incr = 0;
            self.rtt_count = 0;
        }
    }

    /// FreeBSD NewReno CC_ECN / CC_RTO window: max(cwnd/2/mss, 2)·mss.
    pub(super) fn newreno_half(&self) -> u64 {
        (self.w.cwnd / 2 / self.mss).max(2) * self.mss
    }

    pub(super) fn on_congestion_paper(&mut self, kind: CongestionKind) {
        match kind {
            CongestionKind::Loss => {
                self.on_loss_paper();
                self.in_loss_recovery = true;
            }
            CongestionKind::Ecn => {
                // FreeBSD: NewReno's CC_ECN, ignored while already reducing.
                if self.cwr_until.is_none() && !self.in_loss_recovery {
                    self.w.ssthresh = self.newreno_half();
                    self.w.cwnd = self.w.ssthresh;
                    self.w.ca_acked = 0;
                    self.enter_cwr();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::*;
    use super::super::*;
    use crate::rng::Rng;

    #[test]
    fn backoff_probability_table() {
        // Eq 5 with G = 3 ms: P = 1 − e^(−g/3).
        let table = [
            (-2.0, 0.0),
            (0.0, 0.0),
            (0.5, 0.15351827510938593), // 1 − e^(−1/6)
            (1.5, 0.3934693402873666),  // 1 − e^(−1/2)
            (3.0, 0.6321205588285577),  // 1 − e^(−1)
            (6.0, 0.8646647167633873),  // 1 − e^(−2)
            (9.0, 0.950212931632136),   // 1 − e^(−3)
            (15.0, 0.9932620530009145), // 1 − e^(−5)
        ];
        for (g, p) in table {
            let got = backoff_probability(g, 3.0);
            assert!(close(got, p), "g = {g}: {got} vs {p}");
        }
        // Far beyond 5G the probability is 1 exactly in f64 (e^(−41.7) < 2^−54).
        assert_eq!(backoff_probability(125.0, 3.0), 1.0);
        // Linux: sum over 8 intervals of a 3 ms gradient = 24000 µs; ×42e−6 = 1.008.
        assert!(close(
            linux_backoff_probability(24_000, 42),
            0.6350518535455063
        ));
        assert!(close(
            linux_backoff_probability(1_000, 42),
            0.04113021942751544
        )); // 1 − e^(−0.042)
        assert_eq!(linux_backoff_probability(0, 42), 0.0);
        assert_eq!(linux_backoff_probability(-500, 42), 0.0);
    }

    #[test]
    fn gradients_moving_average_and_queue_state() {
        // Per-interval (τ_min, τ_max) in ms; ACKs flagged in_recovery so that no backoff
        // interferes (gradients and Q are still computed, as FreeBSD does in recovery).
        let seq: [(u64, u64); 19] = [
            (40, 40),
            (41, 44),
            (43, 50),
            (46, 58),
            (50, 68),
            (52, 80),
            (54, 80),
            (56, 80),
            (58, 80),
            (60, 80),
            (60, 80),
            (60, 80),
            (60, 80),
            (60, 80),
            (60, 70),
            (60, 60),
            (60, 60),
            (60, 60),
            (55, 55),
        ];
        // Expected raw g (eq 1–2), ḡ (eq 3, a = 8, sums/8) and Q after each interval n ≥ 1.
        use QueueState::*;
        type Expected = ((f64, f64), (f64, f64), QueueState);
        let expect: [Expected; 18] = [
            ((1.0, 4.0), (0.125, 0.5), Rising), // sums 1, 4 (ring filling: missing = 0)
            ((2.0, 6.0), (0.375, 1.25), Rising), // 3, 10
            ((3.0, 8.0), (0.75, 2.25), Rising), // 6, 18
            ((4.0, 10.0), (1.25, 3.5), Rising), // 10, 28
            ((2.0, 12.0), (1.5, 5.0), Rising),  // 12, 40
            ((2.0, 0.0), (1.75, 5.0), Rising),  // 14, 40
            ((2.0, 0.0), (2.0, 5.0), Rising),   // 16, 40
            ((2.0, 0.0), (2.25, 5.0), Rising),  // 18, 40 (ring full)
            ((2.0, 0.0), (2.375, 4.5), Rising), // 18−1+2 = 19, 40−4 = 36
            ((0.0, 0.0), (2.125, 3.75), Rising), // 19−2 = 17, 36−6 = 30
            ((0.0, 0.0), (1.75, 2.75), Rising), // 17−3 = 14, 30−8 = 22
            ((0.0, 0.0), (1.25, 1.5), Rising),  // 14−4 = 10, 22−10 = 12
            ((0.0, 0.0), (1.0, 0.0), Full),     // 10−2 = 8, 12−12 = 0: ḡmin > 0, ḡmax ≤ 0
            ((0.0, -10.0), (0.75, -1.25), Full), // 6, −10: FULL is tested first
            ((0.0, -10.0), (0.5, -2.5), Full),  // 4, −20
            ((0.0, 0.0), (0.25, -2.5), Full),   // 2, −20
            ((0.0, 0.0), (0.0, -2.5), Empty),   // 0, −20: ḡmin ≥ 0, ḡmax < 0
            ((-5.0, -5.0), (-0.625, -3.125), Falling), // −5, −25
        ];
        let mut c = new_cdg(CdgConfig::paper(), 10, 1);
        c.w.ssthresh = 0; // congestion avoidance: selection uses ḡ
        let mut h = Harness::new();
        // Two ACKs per interval: one carries τ_max, the closing one τ_min.
        h.interval_with(&mut c, &[seq[0].1, seq[0].0], 0, true);
        assert_eq!(c.queue_state(), Unknown);
        for (n, &(tmin, tmax)) in seq.iter().enumerate().skip(1) {
            h.interval_with(&mut c, &[tmax, tmin], 0, true);
            let ((gmin, gmax), (bmin, bmax), q) = expect[n - 1];
            let (rmin, rmax) = c.raw_gradients_ms();
            let (smin, smax) = c.smoothed_gradients_ms();
            assert!(
                close(rmin, gmin) && close(rmax, gmax),
                "n = {n}: raw ({rmin}, {rmax})"
            );
            assert!(
                close(smin, bmin) && close(smax, bmax),
                "n = {n}: smoothed ({smin}, {smax})"
            );
            assert_eq!(c.queue_state(), q, "n = {n}");
            if n == 17 {
                // Eq 7: Q = empty zeroes the shadow window.
                assert_eq!(c.shadow(), 0);
                // A negative smoothed gradient resets the ineffectual-backoff counter.
                assert_eq!(c.ineffectual_count(), 0);
            }
        }
        // No window change in recovery.
        assert_eq!(c.cwnd(), 10 * MSS);
    }

    #[test]
    fn window_progression_backoff_skip_and_slow_start() {
        // G tiny: any positive gradient gives P = 1 exactly, so the test is seed-free.
        let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 10, 3);
        let mut h = Harness::new();
        // Slow start: +1 MSS per ACK (3 ACKs), the closing ACK has no previous interval.
        h.interval(&mut c, &[100, 100, 100]);
        assert_eq!(c.cwnd(), 13 * MSS);
        // Flat RTT: g = 0, P = 0, +1 MSS per ACK.
        h.interval(&mut c, &[100, 100]);
        assert_eq!(c.cwnd(), 15 * MSS);
        // Rising RTT: interval (101, 102) → raw g_min = +1 ms in slow start → P = 1 →
        // backoff at the closing ACK: first ACK grows 15 → 16, then w = 0.7·16000 = 11200.
        h.interval(&mut c, &[101, 102]);
        assert_eq!((c.cwnd(), c.ssthresh()), (11_200, 11_200));
        assert!(close(c.last_backoff_probability(), 1.0));
        // Eq 7: s = max(w_before = 16000, s = 10000 + 6000 slow-start growth) = 16000.
        assert_eq!(c.shadow(), 16_000);
        // Next interval: CWR ends at its first ACK (snd_una ≥ recover); the gradient is
        // ignored even though RTT rises again (prev invalidated, §3.5). cwnd = ssthresh
        // is still slow start (FreeBSD ≤): 11200 + 1000 on the first ACK, then CA: the
        // closing ACK adds +1 MSS per RTT → 13200; s: +1000 (SS ACK) +1000 (CA RTT).
        h.interval(&mut c, &[150, 150]);
        assert_eq!(c.cwnd(), 13_200);
        assert_eq!(c.shadow(), 18_000);
        // Flat RTT in CA: the ring holds g_min of intervals 2 (0), 3 (+1) and now 5 (0)
        // → ḡmin = 1/8 ms > 0 → P = 1 → backoff: 0.7·13200 = 9240.
        h.interval(&mut c, &[150]);
        assert_eq!(c.cwnd(), 9_240);
        assert_eq!(c.shadow(), 18_000); // max(13200, 18000)
                                        // CA without gradient (skipped interval): +1 MSS at the closing ACK only;
                                        // non-closing ACKs in CA do not grow. cwnd 9240 = ssthresh → first ACK is SS.
        h.interval(&mut c, &[150, 150, 150]);
        assert_eq!(c.cwnd(), 9_240 + MSS + MSS);
    }

    #[test]
    fn ineffectual_backoff_counter_disables_then_restores_backoff() {
        // b = 5, b' = 5, P = 1 for every positive gradient (G tiny), CA, no growth
        // (pure ACKs with bytes_acked = 0 so the numbers stay simple).
        let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 100, 9);
        c.w.ssthresh = 0;
        let mut h = Harness::new();
        let mut rtt = 100;
        let mut step = |c: &mut Cdg, h: &mut Harness| {
            rtt += 1; // +1 ms per interval
            h.interval_with(c, &[rtt], 0, false);
        };
        step(&mut c, &mut h); // first interval: no previous
                              // Indications arrive every second interval (each one invalidates the next gradient).
        let mut cw = 100_000u64;
        for k in 1..=5 {
            step(&mut c, &mut h);
            cw = (cw as f64 * 0.7) as u64;
            assert_eq!(c.cwnd(), cw, "backoff {k}");
            assert_eq!(c.ineffectual_count(), k);
            step(&mut c, &mut h); // skipped interval
            assert_eq!(c.cwnd(), cw);
        }
        // 100000 → 70000 → 49000 → 34300 → 24010 → 16807.
        assert_eq!(cw, 16_807);
        // Counter 6..9 suppressed, 10 = b + b' suppressed and resets the counter.
        for k in 6..=10 {
            step(&mut c, &mut h);
            assert_eq!(c.cwnd(), 16_807, "suppressed {k}");
            assert_eq!(c.ineffectual_count(), if k == 10 { 0 } else { k });
            step(&mut c, &mut h);
        }
        // Backing off again: 0.7·16807 = 11764.9 → 11764.
        step(&mut c, &mut h);
        assert_eq!((c.cwnd(), c.ineffectual_count()), (11_764, 1));
        assert_eq!(c.shadow(), 100_000); // eq 7: max(w, s) with s = initial window

        // A negative smoothed gradient (the backoffs were effectual) resets the counter.
        step(&mut c, &mut h); // skipped interval
                              // The ring holds the last 8 computed gradients, all +1 ms; a drop of 20 ms gives
                              // ḡmin = ḡmax = (7 − 20)/8 < 0 → counter 0, Q falling, and no indication
                              // (neither smoothed gradient is positive).
        rtt -= 20;
        h.interval_with(&mut c, &[rtt], 0, false);
        assert_eq!(c.ineffectual_count(), 0);
        assert_eq!(c.cwnd(), 11_764);
        assert_eq!(c.queue_state(), QueueState::Falling);
    }

    #[test]
    fn lbe_setting_never_suppresses_backoffs() {
        // use_ineff = 0 (Linux LBE recommendation): every indication backs off.
        let mut c = new_cdg(
            cfg_with(|c| {
                c.exp_backoff_scale = 0.001;
                c.use_ineff = 0;
                c.use_shadow = false;
            }),
            1000,
            9,
        );
        c.w.ssthresh = 0;
        let mut h = Harness::new();
        let mut rtt = 100;
        h.interval_with(&mut c, &[rtt], 0, false);
        let mut cw = 1_000_000u64;
        for _ in 0..12 {
            rtt += 1;
            h.interval_with(&mut c, &[rtt], 0, false);
            cw = ((cw as f64 * 0.7) as u64).max(2 * MSS);
            assert_eq!(c.cwnd(), cw);
            rtt += 1;
            h.interval_with(&mut c, &[rtt], 0, false);
        }
        // 1e6 → 700000 → 490000 → 343000 → 240100 → 168070 → 117649 → 82354 → 57647
        // → 40352 → 28246 → 19772 → 13840 (each step truncated to bytes).
        assert_eq!(cw, 13_840);
    }

    #[test]
    fn shadow_window_on_loss_eq7_eq8() {
        let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 50, 5);
        c.w.ssthresh = 40_000; // congestion avoidance
        let mut h = Harness::new();
        // I0: no gradient → CA +1 MSS at the closing ACK: w = 51000, s = 51000.
        h.interval(&mut c, &[100]);
        assert_eq!((c.cwnd(), c.shadow()), (51_000, 51_000));
        // I1: g = +1 ms → ḡmin = 0.125 → P = 1 → backoff. Eq 7: s = max(51000, 51000);
        // w = 0.7·51000 = 35700.
        h.interval(&mut c, &[101]);
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.shadow()),
            (35_700, 35_700, 51_000)
        );
        assert_eq!(c.queue_state(), QueueState::Rising);
        // A loss inside the delay CWR (FreeBSD IN_CONGRECOVERY) does not reduce again.
        let mut in_cwr = c.clone();
        in_cwr.on_congestion(Time(0), &loss());
        assert_eq!((in_cwr.cwnd(), in_cwr.ssthresh()), (35_700, 35_700));
        // I2: skipped gradient; w = ssthresh → slow start +1 MSS: 36700, s 52000.
        h.interval(&mut c, &[100]);
        assert_eq!((c.cwnd(), c.shadow()), (36_700, 52_000));
        // I3: g = −1 → sums 0 → ḡ = 0: no indication, Q unchanged; CA +1: 37700, s 53000.
        h.interval(&mut c, &[99]);
        // I4: g = 0: 38700, s 54000.
        h.interval(&mut c, &[99]);
        assert_eq!(
            (c.cwnd(), c.shadow(), c.queue_state()),
            (38_700, 54_000, QueueState::Rising)
        );

        // Eq 8, Q = rising: tolerated, w unchanged (ssthresh = cwnd).
        let mut t = c.clone();
        t.on_congestion(Time(0), &loss());
        assert_eq!(
            (t.cwnd(), t.ssthresh(), t.shadow()),
            (38_700, 38_700, 54_000)
        );

        // Eq 8, Q = full: w = max(s, w)/2 = max(54000, 38700)/2 = 27000; s halved to 27000.
        let mut f = c.clone();
        f.queue = QueueState::Full;
        f.on_congestion(Time(0), &loss());
        assert_eq!(
            (f.cwnd(), f.ssthresh(), f.shadow()),
            (27_000, 27_000, 27_000)
        );

        // UNKNOWN counts as full (FreeBSD queue_state < FULL test).
        let mut u = c.clone();
        u.queue = QueueState::Unknown;
        u.on_congestion(Time(0), &loss());
        assert_eq!(u.cwnd(), 27_000);

        // Without the shadow window: w/2 = 19350.
        let mut ns = c.clone();
        ns.cfg.use_shadow = false;
        ns.queue = QueueState::Full;
        ns.on_congestion(Time(0), &loss());
        assert_eq!(ns.cwnd(), 19_350);

        // Without loss tolerance every loss reduces, even with Q = rising: 27000.
        let mut nt = c.clone();
        nt.cfg.use_tolerance = false;
        nt.on_congestion(Time(0), &loss());
        assert_eq!(nt.cwnd(), 27_000);

        // Q = empty zeroed s (eq 7): a loss (tolerance off) gives w/2 = 19350, and the
        // next delay backoff re-seeds s = max(w_before, 0).
        let mut e = c.clone();
        e.shadow = 0;
        e.cfg.use_tolerance = false;
        e.on_congestion(Time(0), &loss());
        assert_eq!((e.cwnd(), e.shadow()), (19_350, 0));

        // Eq 7 when s > w: a further delay backoff keeps s = max(38700, 54000) = 54000.
        // I5: g = +3 ms → ring g_min [+1, −1, 0, +3], sum 3 > 0 → P = 1 → backoff:
        // w = 0.7·38700 = 27090.
        h.interval(&mut c, &[102]);
        assert_eq!((c.cwnd(), c.shadow()), (27_090, 54_000));
    }

    #[test]
    fn backoff_decisions_are_deterministic_for_a_seed() {
        // (a) P = 1 exactly: every seed backs off; (b) zero gradient: P = 0, no draw.
        for seed in 0..20 {
            let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 20, seed);
            c.w.ssthresh = 0;
            let mut h = Harness::new();
            h.interval_with(&mut c, &[100], 0, false);
            h.interval_with(&mut c, &[100], 0, false); // g = 0
            assert_eq!(c.last_backoff_probability(), 0.0);
            assert_eq!(
                c.rng.clone().next_u64(),
                Rng::new(seed).next_u64(),
                "P = 0 consumed randomness"
            );
            h.interval_with(&mut c, &[110], 0, false); // g = +10 ms
            assert_eq!(c.cwnd(), 14_000, "seed {seed}");
        }
        // (c) intermediate P: slow start uses the raw gradient g = 3 ms → P = 1 − e^(−1).
        // The decision is X < P with X the flow's first uniform draw.
        let run = |seed: u64| -> (bool, u64) {
            let mut c = new_cdg(CdgConfig::paper(), 20, seed);
            let mut h = Harness::new();
            h.interval_with(&mut c, &[100], 0, false);
            h.interval_with(&mut c, &[103], 0, false);
            assert!(close(c.last_backoff_probability(), 0.6321205588285577));
            (c.cwnd() == 14_000, c.cwnd())
        };
        let mut backed = 0;
        for seed in 0..200 {
            let expect = Rng::new(seed).uniform() < 0.6321205588285577;
            let (b, w) = run(seed);
            assert_eq!(b, expect, "seed {seed}");
            assert_eq!(run(seed), (b, w));
            assert!(w == 14_000 || w == 20_000);
            backed += b as u32;
        }
        // Sanity of the draw: about 63 % of 200.
        assert!((100..150).contains(&backed), "{backed}");
    }

    #[test]
    fn ecn_and_rto_follow_newreno() {
        let mut c = new_cdg(CdgConfig::paper(), 21, 1);
        c.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        // max(21000/2/1000, 2)·1000 = 10000.
        assert_eq!((c.cwnd(), c.ssthresh()), (10_000, 10_000));
        c.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh()), (1_000, 5_000));
    }

    #[test]
    fn delayed_ack_filter_keeps_held_acks_out_of_the_maximum() {
        let mut c = new_cdg(CdgConfig::paper(), 10, 1);
        // A stretch ACK (2 segments) arms the filter; the next 1-segment ACK (held by the
        // receiver's delayed-ACK timer) may only lower the minimum.
        let a = |bytes, ms| AckSample {
            bytes_acked: bytes,
            rtt: Some(Dur::from_millis(ms)),
            ..AckSample::empty(MSS)
        };
        c.on_ack(Time(0), &a(2 * MSS, 50));
        c.on_ack(Time(0), &a(MSS, 90));
        assert_eq!((c.cur_min, c.cur_max), (50_000_000, 50_000_000));
        c.on_ack(Time(0), &a(2 * MSS, 60));
        c.on_ack(Time(0), &a(MSS, 40));
        assert_eq!((c.cur_min, c.cur_max), (40_000_000, 60_000_000));
    }
}
