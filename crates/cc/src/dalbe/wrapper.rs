//! `DaLbe`: the DA-LBE kernel component (Storbukås 2018, as fixed by Wallenburg, Wallenburg 2018
//! §3.6 and App. B; exact semantics in Wallenburg 2018 notes §4.2) as a wrapper around any
//! `CongestionControl`. It sits between the datapath and the wrapped algorithm and
//! changes what the algorithm perceives: it injects phantom ECNs, hides real loss or ECN
//! backoffs, and scales queueing delay; it also keeps the `da_lbe_info` statistics.

use super::knobs::{DaLbeInfo, Knobs};
use crate::api::*;
use crate::rng::Rng;
use crate::units::{Dur, Rate, Time};

/// Stream number for the wrapper's own generator (see [`DaLbe::derive_rng`]).
const RNG_STREAM: u64 = 0xDA1B_E000;

pub struct DaLbe {
    inner: Box<dyn CongestionControl>,
    knobs: Knobs,
    rng: Rng,
    info: DaLbeInfo,
    started: bool,
    /// Right edge (snd_nxt, bytes) when a wrapper-initiated ECN reduction began: the
    /// Linux CWR state, left when snd_una passes it (tcp_fastretrans_alert, "CWR is to
    /// be held something *above* high_seq is ACKed").
    cwr_high: Option<u64>,
    /// The delay knob's round: it ends when snd_una reaches this right edge (snd_nxt
    /// at the round's start), and the smallest RTT sample seen in it.
    delay_round_end: u64,
    delay_round_min: Option<Dur>,
}

impl DaLbe {
    /// Wraps `inner` with the given knob settings. `rng` must be the wrapper's own
    /// generator (e.g. [`DaLbe::derive_rng`]), so that the wrapped algorithm's draws are
    /// the same with and without the wrapper.
    pub fn new(inner: Box<dyn CongestionControl>, knobs: Knobs, rng: Rng) -> DaLbe {
        DaLbe {
            inner,
            knobs,
            rng,
            info: DaLbeInfo::default(),
            started: false,
            cwr_high: None,
            delay_round_end: 0,
            delay_round_min: None,
        }
    }

    /// A generator for the wrapper derived from the flow's, leaving `init.rng` to the
    /// wrapped algorithm.
    pub fn derive_rng(init: &CcInit) -> Rng {
        let mut r = init.rng.clone();
        Rng::derive(r.next_u64(), RNG_STREAM)
    }

    pub fn knobs(&self) -> Knobs {
        self.knobs
    }

    /// Changes the knobs; takes effect from the next event.
    pub fn set_knobs(&mut self, knobs: Knobs) {
        self.knobs = knobs;
    }

    /// The statistics (a snapshot; cwnd, ssthresh and the CWR flag are current).
    pub fn info(&self) -> DaLbeInfo {
        let mut i = self.info;
        i.cwnd = self.inner.cwnd();
        i.ssthresh = self.inner.ssthresh();
        i.in_cwr = self.cwr_high.is_some();
        i
    }

    pub fn inner(&self) -> &dyn CongestionControl {
        self.inner.as_ref()
    }

    /// Registry name of the wrapped algorithm.
    pub fn inner_name(&self) -> &'static str {
        self.inner.name()
    }

    fn touch(&mut self, now: Time) {
        if !self.started {
            self.started = true;
            self.info.last_congestion = now;
        }
    }

    /// A real congestion indication: count it and update the EWMA of the time between
    /// events. Kernel (Wallenburg 2018 notes §4.2 [K], after the Wallenburg 2018 §3.6.2 fixes): signed ns,
    /// `avg += (128 - weight)·(new - avg)/128`, weight 0 = no update, first event
    /// takes the interval itself.
    fn real_event(&mut self, now: Time) {
        let interval = now.since(self.info.last_congestion).nanos() as i128;
        self.info.avg_congestion_interval = Some(match self.info.avg_congestion_interval {
            None => Dur(interval as u64),
            Some(avg) if self.knobs.ewma_weight == 0 => avg,
            Some(avg) => {
                let a = avg.nanos() as i128;
                let gain = 128 - self.knobs.ewma_weight.min(128) as i128;
                Dur((a + gain * (interval - a) / 128).max(0) as u64)
            }
        });
        self.info.last_congestion = now;
        self.info.congestion_events += 1;
    }

    /// Phantom-ECN suppression, Wallenburg 2018 §2.6.3 prose and App. B ("ECNs are not
    /// triggered if a long time has passed since the last real congestion indication"),
    /// Wallenburg 2018 notes §11.1: suppress when t_cong ≥ v·τ_cong (Alg 2 prints the inverse).
    fn suppressed(&self, now: Time) -> bool {
        let v = self.knobs.suppression_v as u128;
        match self.info.avg_congestion_interval {
            Some(tau) if v > 0 && tau.nanos() > 0 => {
                now.since(self.info.last_congestion).nanos() as u128 >= v * tau.nanos() as u128
            }
            _ => false,
        }
    }

    /// Lets the wrapped algorithm react and records the cwnd-reduction proportion
    /// (kernel `cwnd_proportion_aggregated`, new/old).
    fn reduce(&mut self, now: Time, ev: &CongestionEvent) {
        let before = self.inner.cwnd();
        self.inner.on_congestion(now, ev);
        let after = self.inner.cwnd();
        if before > 0 && after < before {
            self.info.reduction_ratio_sum += after as f64 / before as f64;
            self.info.reductions += 1;
        }
    }

    /// Wallenburg 2018 Alg 4 (with the §3.6.3 direction fix): d = RTT - RTT_base;
    /// RTT' = RTT_base + d/μ. Without base-RTT mode the whole RTT is divided by μ.
    fn scale_delays(&self, a: &mut AckSample) {
        let mu = if self.knobs.mu.is_finite() && self.knobs.mu > 1e-9 {
            self.knobs.mu
        } else {
            1e-9
        };
        let scale = |r: Dur| match (self.knobs.base_rtt_based, self.info.rtt_min) {
            (true, Some(base)) => base + (r - base).mul_f64(1.0 / mu),
            (true, None) => r,
            (false, _) => r.mul_f64(1.0 / mu),
        };
        a.rtt = a.rtt.map(scale);
        // The echo RTT is the same delay seen through the timestamp (TCP-LP reads it).
        a.ts_echo_rtt = a.ts_echo_rtt.map(scale);
        if let (Some(o), Some(base)) = (a.owd, self.info.owd_min) {
            a.owd = Some(base + ((o - base) as f64 / mu).round() as i64);
        }
    }

    fn record_ack(&mut self, ack: &AckSample) {
        let i = &mut self.info;
        i.mss = ack.mss;
        i.acks += 1;
        i.packets_acked += ack.bytes_acked.div_ceil(ack.mss.max(1));
        i.bytes_acked = i.bytes_acked.max(ack.snd_una);
        i.bytes_delivered = i.bytes_delivered.max(ack.delivered);
        i.in_recovery = ack.in_recovery;
        if let Some(r) = ack.rtt {
            i.rtt_min = Some(i.rtt_min.map_or(r, |m| m.min(r)));
            // RFC 6298 §2: SRTT <- 7/8 SRTT + 1/8 R'.
            i.srtt = Some(i.srtt.map_or(r, |s| Dur((s.nanos() * 7 + r.nanos()) / 8)));
            i.rtt_latest = Some(r);
            i.rtt_sum_secs += r.secs_f64();
            i.rtt_samples += 1;
        }
        if let Some(o) = ack.owd {
            i.owd_min = Some(i.owd_min.map_or(o, |m| m.min(o)));
        }
    }
}

impl CongestionControl for DaLbe {
    fn name(&self) -> &'static str {
        "dalbe"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.touch(now);
        self.record_ack(ack);
        // End of a phantom-ECN reduction (Linux: CWR -> Open once snd_una passes
        // high_seq), checked before this ACK's own ECE as in tcp_fastretrans_alert.
        if let Some(high) = self.cwr_high {
            if ack.snd_una > high {
                self.cwr_high = None;
                if !ack.in_recovery {
                    self.inner.on_recovery_exit(now);
                }
            }
        }
        let k = self.knobs;
        if let Some(r) = ack.rtt {
            self.delay_round_min = Some(self.delay_round_min.map_or(r, |m| m.min(r)));
        }
        let mut standing = false;
        if ack.snd_una >= self.delay_round_end {
            // The delay knob judges a standing queue: the smallest RTT sample of a
            // whole round trip above min RTT + threshold (docs/dalbe.md#delay-knob).
            // A single sample is not a queue: at a 2-3 segment window the receiver
            // holds every other ACK for its delayed-ACK timer (40 ms and more), and
            // reading that as queueing delay kept the flow at 2-3 segments for good
            // (issue 18, case 1; on the kernel too). Wallenburg 2018's controllers read
            // delay through the smoothed RTT (§3.5.3), never a single ACK's sample.
            let round_min = self.delay_round_min.take();
            self.delay_round_end = ack.snd_nxt;
            if let (Some(th), Some(r), Some(base)) =
                (k.delay_ecn_threshold, round_min, self.info.rtt_min)
            {
                standing = r > base + th;
            }
        }
        if k.enabled && !ack.ecn_ce {
            // Wallenburg 2018 notes §4.2: p_eff = min(1, P · max(1, packets in ACK)), on every ACK
            // (fast and slow path, Wallenburg 2018 §3.6.1).
            let mut fire = false;
            if k.phantom_ecn_prob > 0.0 {
                if self.suppressed(now) {
                    self.info.phantom_suppressed += 1;
                } else {
                    let pkts = ack.bytes_acked.div_ceil(ack.mss.max(1)).max(1);
                    let p = (k.phantom_ecn_prob * pkts as f64).min(1.0);
                    if self.rng.chance(p) {
                        self.info.phantom_ecn += 1;
                        fire = true;
                    }
                }
            }
            if !fire && standing {
                self.info.delay_phantom_ecn += 1;
                fire = true;
            }
            // The ECE response (tcp_enter_cwr -> ssthresh()) happens only from the Open
            // state: in recovery or an ongoing CWR the phantom ECN is absorbed.
            if fire && !ack.in_recovery && self.cwr_high.is_none() {
                let ev = CongestionEvent {
                    kind: CongestionKind::Ecn,
                    bytes_in_flight: ack.prior_in_flight,
                    bytes_lost: 0,
                    mss: ack.mss,
                };
                self.reduce(now, &ev);
                self.info.phantom_reductions += 1;
                self.cwr_high = Some(ack.snd_nxt);
            }
        }
        let mut a = *ack;
        if self.cwr_high.is_some() {
            // Linux does not call cong_avoid while reducing cwnd (tcp_cong_control).
            a.in_recovery = true;
        }
        if k.enabled && k.delay_based {
            self.scale_delays(&mut a);
        }
        let before = self.inner.cwnd();
        self.inner.on_ack(now, &a);
        let after = self.inner.cwnd();
        if !a.in_recovery && before > 0 && after < before {
            // A reduction the algorithm made by itself (Vegas diff > beta): Wallenburg 2018 notes §11.6.
            self.info.delay_reduction_ratio_sum += after as f64 / before as f64;
            self.info.delay_reductions += 1;
        }
    }

    fn on_congestion(&mut self, now: Time, ev: &CongestionEvent) {
        self.touch(now);
        match ev.kind {
            CongestionKind::Loss => self.info.loss_events += 1,
            CongestionKind::Ecn => self.info.ecn_events += 1,
        }
        self.real_event(now);
        let k = self.knobs;
        if !k.enabled {
            self.reduce(now, ev);
            return;
        }
        if self.cwr_high.is_some() {
            // Linux tcp_enter_recovery / tcp_enter_cwr: no second reduction while one
            // is under way. A loss turns CWR into Recovery, which the datapath ends.
            self.info.absorbed_events += 1;
            if ev.kind == CongestionKind::Loss {
                self.cwr_high = None;
            }
            return;
        }
        match ev.kind {
            // DA_LBE_CWND_BACKOFF at recovery entry: skip tcp_init_cwnd_reduction.
            CongestionKind::Loss if self.rng.chance(k.loss_ignore_prob) => {
                self.info.ignored_losses += 1
            }
            // DA_LBE_ECN_BACKOFF: the ECE does not reach the congestion control.
            CongestionKind::Ecn if self.rng.chance(k.ecn_ignore_prob) => {
                self.info.ignored_ecns += 1
            }
            _ => self.reduce(now, ev),
        }
    }

    fn on_rto(&mut self, now: Time, ev: &RtoEvent) {
        self.touch(now);
        self.info.rto_events += 1;
        self.real_event(now);
        // The kernel component leaves tcp_enter_loss alone: timeouts always act.
        self.cwr_high = None;
        self.inner.on_rto(now, ev);
    }

    fn on_recovery_exit(&mut self, now: Time) {
        self.inner.on_recovery_exit(now);
    }

    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.touch(now);
        if sent.retransmission {
            self.info.retransmits += 1;
        }
        self.inner.on_sent(now, sent);
    }

    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }

    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }

    fn pacing_rate(&self) -> Option<Rate> {
        self.inner.pacing_rate()
    }

    fn paces_payload(&self) -> bool {
        self.inner.paces_payload()
    }

    fn min_tso_segs(&self) -> u32 {
        self.inner.min_tso_segs()
    }

    fn cong_control(&self) -> bool {
        self.inner.cong_control()
    }

    fn on_handshake_rtt(&mut self, now: Time, rtt: Dur) {
        self.inner.on_handshake_rtt(now, rtt);
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace(out);
        let k = &self.knobs;
        out.push(("dalbe_p_phantom", k.phantom_ecn_prob));
        out.push(("dalbe_p_ignore_loss", k.loss_ignore_prob));
        out.push(("dalbe_p_ignore_ecn", k.ecn_ignore_prob));
        out.push(("dalbe_mu", if k.delay_based { k.mu } else { 1.0 }));
        out.push((
            "dalbe_phantom_ecn",
            (self.info.phantom_ecn + self.info.delay_phantom_ecn) as f64,
        ));
        out.push((
            "dalbe_phantom_reductions",
            self.info.phantom_reductions as f64,
        ));
        out.push((
            "dalbe_in_cwr",
            if self.cwr_high.is_some() { 1.0 } else { 0.0 },
        ));
    }
}
