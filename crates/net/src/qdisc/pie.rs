//! PIE (RFC 8033): random early drop at enqueue with a probability that a PI controller
//! updates every `t_update` from the queueing delay, with a burst allowance,
//! auto-scaled gains, de-randomisation and ECN marking below 10 % probability.
//!
//! The periodic update needs no timer: it is run lazily, at the next enqueue or
//! dequeue, for every period that has elapsed. Between two packet events the inputs of
//! the update do not change, so the result is the one a timer would have produced.

use super::Ctx;
use crate::queue::Fifo;
use crate::WirePacket;
use scavenger_cc::{Dur, Time};

/// How PIE estimates the current queueing delay (RFC 8033 §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieEstimator {
    /// The sojourn time of the last dequeued packet (timestamps; Linux's default).
    Timestamp,
    /// Little's law: queue bytes / departure rate measured over `dq_threshold` bytes
    /// (RFC 8033 §4.3, the draft's original estimator; Trang 2015's ns-2 PIE).
    DequeueRate { dq_threshold: u32 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, RFC 8033 §4.2 / §5: 15 ms.
    pub target: Dur,
    /// T_UPDATE, RFC 8033 §5: 15 ms.
    pub t_update: Dur,
    /// alpha in 1/s, RFC 8033 §5: 0.125.
    pub alpha: f64,
    /// beta in 1/s, RFC 8033 §5: 1.25.
    pub beta: f64,
    /// MAX_BURST, RFC 8033 §5: 150 ms.
    pub max_burst: Dur,
    /// Mark ECN-capable packets while the drop probability is at most `max_ecnth`
    /// (RFC 8033 §5.1).
    pub ecn: bool,
    /// RFC 8033 §5.1: 10 %.
    pub max_ecnth: f64,
    /// Scale the probability by packet size / mean_pktsize (RFC 8033 §5.3; Linux `bytemode`).
    pub bytemode: bool,
    /// MEAN_PKTSIZE of the work-conserving safeguard (RFC 8033 §4.1; 1500 bytes).
    pub mean_pktsize: u32,
    /// De-randomisation with the accumulated probability (RFC 8033 §5.2).
    pub derandomize: bool,
    pub estimator: PieEstimator,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: Dur::from_millis(15),
            t_update: Dur::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Dur::from_millis(150),
            ecn: false,
            max_ecnth: 0.1,
            bytemode: false,
            mean_pktsize: 1500,
            derandomize: true,
            estimator: PieEstimator::Timestamp,
        }
    }
}

/// One periodic update of the drop probability (RFC 8033 §4.2 and §5 `calculate_drop_prob`).
/// Delays in seconds; returns the new probability.
pub fn pie_update(
    drop_prob: f64,
    qdelay: f64,
    qdelay_old: f64,
    target: f64,
    alpha: f64,
    beta: f64,
) -> f64 {
    // p = alpha * (cur_del - ref_del) + beta * (cur_del - old_del)
    let mut p = alpha * (qdelay - target) + beta * (qdelay - qdelay_old);
    // Auto-scaling of the gains (RFC 8033 §4.2).
    if drop_prob < 0.000001 {
        p /= 2048.0;
    } else if drop_prob < 0.00001 {
        p /= 512.0;
    } else if drop_prob < 0.0001 {
        p /= 128.0;
    } else if drop_prob < 0.001 {
        p /= 32.0;
    } else if drop_prob < 0.01 {
        p /= 8.0;
    } else if drop_prob < 0.1 {
        p /= 2.0;
    }
    // Cap the adjustment at 2 % once the probability is above 10 % (RFC 8033 §4.2).
    if drop_prob >= 0.1 && p > 0.02 {
        p = 0.02;
    }
    let mut prob = drop_prob + p;
    // "Exponentially decay drop prob when congestion goes away"
    if qdelay < target / 2.0 && qdelay_old < target / 2.0 {
        prob *= 0.98;
    }
    prob.clamp(0.0, 1.0)
}

#[derive(Debug)]
pub struct Pie<T> {
    pub(crate) params: PieParams,
    pub(crate) q: Fifo<T>,
    drop_prob: f64,
    accu_prob: f64,
    qdelay_old: f64,
    /// Current queueing-delay estimate in seconds.
    qdelay: f64,
    burst_allowance: Dur,
    /// When the next periodic update is due (set at the first packet).
    next_update: Option<Time>,
    // Dequeue-rate estimator state (RFC 8033 §4.3).
    in_measurement: bool,
    measurement_start: Time,
    dq_count: u64,
    /// Seconds per `dq_threshold` bytes; 0 until the first measurement.
    avg_dq_time: f64,
}

impl<T: WirePacket> Pie<T> {
    pub fn new(params: PieParams, cap: usize) -> Self {
        // RFC 8033 §5: burst_allowance_ starts at MAX_BURST.
        let burst = params.max_burst;
        Pie {
            params,
            q: Fifo::with_capacity(cap),
            drop_prob: 0.0,
            accu_prob: 0.0,
            qdelay_old: 0.0,
            qdelay: 0.0,
            burst_allowance: burst,
            next_update: None,
            in_measurement: false,
            measurement_start: Time::ZERO,
            dq_count: 0,
            avg_dq_time: 0.0,
        }
    }

    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }
    pub fn qdelay(&self) -> f64 {
        self.qdelay
    }

    /// The current delay estimate, as the update and the enqueue see it.
    fn current_qdelay(&self) -> f64 {
        match self.params.estimator {
            PieEstimator::Timestamp => self.qdelay,
            PieEstimator::DequeueRate { dq_threshold } => {
                if self.avg_dq_time > 0.0 {
                    // current_qdelay = queue_.byte_length() * avg_dq_time / DQ_THRESHOLD
                    self.q.bytes() as f64 * self.avg_dq_time / dq_threshold as f64
                } else {
                    0.0
                }
            }
        }
    }

    /// Runs every periodic update due by `now`.
    fn catch_up(&mut self, now: Time) {
        let period = self.params.t_update;
        let Some(mut next) = self.next_update else {
            self.next_update = Some(now + period);
            return;
        };
        while next <= now {
            let qdelay = self.current_qdelay();
            if self.drop_prob == 0.0
                && qdelay == 0.0
                && self.qdelay_old == 0.0
                && self.burst_allowance == Dur::ZERO
            {
                // Every further update until the next packet event is a no-op.
                let skipped = (now.since(next).nanos() / period.nanos()) + 1;
                next += Dur(skipped * period.nanos());
                break;
            }
            let p = &self.params;
            self.drop_prob = pie_update(
                self.drop_prob,
                qdelay,
                self.qdelay_old,
                p.target.secs_f64(),
                p.alpha,
                p.beta,
            );
            self.qdelay_old = qdelay;
            // "update burst allowance"
            self.burst_allowance = Dur(self.burst_allowance.nanos().saturating_sub(period.nanos()));
            next += period;
        }
        self.next_update = Some(next);
    }

    /// RFC 8033 §5 `drop_early`.
    fn drop_early(&mut self, size: u32, u: &mut dyn FnMut() -> f64) -> bool {
        let p = &self.params;
        let target = p.target.secs_f64();
        // "Safeguard PIE to be work conserving"
        if (self.qdelay_old < target / 2.0 && self.drop_prob < 0.2)
            || self.q.bytes() <= 2 * p.mean_pktsize as u64
        {
            return false;
        }
        let mut prob = self.drop_prob;
        if p.bytemode {
            prob = prob * size as f64 / p.mean_pktsize as f64;
        }
        if !p.derandomize {
            return u() < prob;
        }
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        // De-randomisation (RFC 8033 §5.2).
        self.accu_prob += prob;
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            return true;
        }
        if u() < prob {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// RFC 8033 §5 `enque`.
    pub(crate) fn enqueue(&mut self, now: Time, mut pkt: T, cx: &mut Ctx<'_, T>) {
        self.catch_up(now);
        let size = pkt.wire_bytes();
        if !cx.limit.admits(self.q.len(), self.q.bytes(), size as u64) {
            cx.stats.overflow_drops += 1;
            cx.drops.push(pkt);
            return;
        }
        let target = self.params.target.secs_f64();
        let qdelay = self.current_qdelay();
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = self.params.max_burst;
        }
        let rng = &mut *cx.rng;
        if self.burst_allowance == Dur::ZERO && self.drop_early(size, &mut || rng.uniform()) {
            if self.params.ecn && pkt.ecn_capable() && self.drop_prob <= self.params.max_ecnth {
                pkt.set_ce();
                cx.stats.marks += 1;
            } else {
                cx.stats.aqm_drops += 1;
                cx.drops.push(pkt);
                return;
            }
        }
        self.q.push_back(now, pkt);
    }

    /// RFC 8033 §5 `deque`, with the delay estimate of the configured estimator.
    pub(crate) fn dequeue(&mut self, now: Time) -> Option<(Time, T)> {
        self.catch_up(now);
        let (enq, pkt) = self.q.pop_front()?;
        match self.params.estimator {
            PieEstimator::Timestamp => {
                // Linux pie_process_dequeue: the packet's sojourn, zero once the queue is empty.
                self.qdelay = if self.q.is_empty() {
                    0.0
                } else {
                    now.since(enq).secs_f64()
                };
            }
            PieEstimator::DequeueRate { dq_threshold } => {
                let th = dq_threshold as u64;
                let backlog = self.q.bytes() + pkt.wire_bytes() as u64;
                if !self.in_measurement && backlog >= th {
                    self.in_measurement = true;
                    self.measurement_start = now;
                    self.dq_count = 0;
                }
                if self.in_measurement {
                    self.dq_count += pkt.wire_bytes() as u64;
                    if self.dq_count >= th {
                        let tmp = now.since(self.measurement_start).secs_f64();
                        // The time to send DQ_THRESHOLD bytes, smoothed with weight 1/8
                        // (Linux sch_pie; see
                        // docs/deviations/network-models.md#pie-delay-estimator).
                        self.avg_dq_time = if self.avg_dq_time == 0.0 {
                            tmp
                        } else {
                            self.avg_dq_time * 7.0 / 8.0 + tmp / 8.0
                        };
                        self.in_measurement = false;
                    }
                }
            }
        }
        Some((enq, pkt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_scales_the_gains_with_the_probability() {
        // qdelay 25 ms, old 20 ms, target 15 ms: raw p = 0.125 · 0.010 + 1.25 · 0.005
        //   = 0.00125 + 0.00625 = 0.0075.
        // drop_prob 0 (< 1e-6): p / 2048 = 3.662109375e-6.
        let p = pie_update(0.0, 0.025, 0.020, 0.015, 0.125, 1.25);
        assert!((p - 0.0075 / 2048.0).abs() < 1e-15, "{p}");
        // drop_prob 0.05 (< 0.1): p / 2 = 0.00375 → 0.05375.
        assert!((pie_update(0.05, 0.025, 0.020, 0.015, 0.125, 1.25) - 0.05375).abs() < 1e-12);
        // drop_prob 0.2: raw p = 0.0075, below the 0.02 cap → 0.2075.
        assert!((pie_update(0.2, 0.025, 0.020, 0.015, 0.125, 1.25) - 0.2075).abs() < 1e-12);
        // Large error: qdelay 200 ms, old 100 ms → 0.125·0.185 + 1.25·0.1 = 0.148125 → cap 0.02.
        assert!((pie_update(0.3, 0.2, 0.1, 0.015, 0.125, 1.25) - 0.32).abs() < 1e-12);
        // Low delay twice: p = 0.125 · (0 − 0.015) = −0.001875, /2 (prob 0.05) = −0.0009375;
        // 0.05 − 0.0009375 = 0.0490625, then × 0.98 = 0.04808125.
        assert!((pie_update(0.05, 0.0, 0.0, 0.015, 0.125, 1.25) - 0.04808125).abs() < 1e-12);
        // Never below zero.
        assert_eq!(pie_update(0.0, 0.0, 0.0, 0.015, 0.125, 1.25), 0.0);
    }

    #[test]
    fn derandomisation_drops_once_the_accumulated_probability_is_large() {
        #[derive(Debug)]
        struct P;
        impl WirePacket for P {
            fn wire_bytes(&self) -> u32 {
                1500
            }
        }
        let mut pie: Pie<P> = Pie::new(PieParams::default(), 16);
        for _ in 0..10 {
            pie.q.push_back(Time::ZERO, P);
        }
        pie.drop_prob = 0.3;
        pie.qdelay_old = 0.02;
        let mut never = || 1.0; // a uniform draw that never drops
                                // accu 0.3, 0.6: below 0.85 → enqueue; 0.9: random (never here); 1.2 ...
        assert!(!pie.drop_early(1500, &mut never));
        assert!(!pie.drop_early(1500, &mut never));
        assert!(!pie.drop_early(1500, &mut never));
        let mut always = || 0.0;
        assert!(pie.drop_early(1500, &mut always));
        assert_eq!(pie.accu_prob, 0.0);
        // The safeguard: a small backlog (≤ 2 × 1500 bytes) is never dropped from.
        pie.q = Fifo::default();
        pie.q.push_back(Time::ZERO, P);
        assert!(!pie.drop_early(1500, &mut always));
    }
}
