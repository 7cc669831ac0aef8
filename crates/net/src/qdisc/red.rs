//! RED (Floyd & Jacobson 1993, "Random Early Detection Gateways for Congestion
//! Avoidance"), with Floyd's gentle mode (2000), byte mode, ECN marking (RFC 3168 §7)
//! and the automatic configuration of ns-2.35 (`queue/red.cc`), whose defaults Trang 2015
//! used ("ns-2 RED default config, gentle on, thresholds from targetdelay = 5 ms").

use super::Ctx;
use crate::queue::Fifo;
use crate::WirePacket;
use scavenger_cc::{Dur, Rate, Time};

/// RED parameters. Defaults are those of ns-2.35 `tcl/lib/ns-default.tcl`.
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Minimum threshold in packets (of `mean_pktsize` bytes in byte mode); `None`:
    /// ns-2's automatic value max(5, target_delay · C / (8 · mean_pktsize) / 2).
    pub min_th: Option<f64>,
    /// Maximum threshold in packets; `None`: 3 × min_th (ns-2).
    pub max_th: Option<f64>,
    /// Drop probability at max_th (F&J max_p; ns-2 `linterm_` 10 → 0.1).
    pub max_p: f64,
    /// Queue weight w_q of the average (F&J §4); `None`: ns-2's automatic value
    /// 1 − exp(−1 / (10 · RTT · C/(8 · mean_pktsize))) with RTT = max(0.1 s, 3 · (delay + 1/ptc)).
    pub w_q: Option<f64>,
    /// Gentle RED: the probability ramps from max_p to 1 between max_th and 2 · max_th
    /// (ns-2 default true).
    pub gentle: bool,
    /// Byte mode: average queue in bytes, thresholds scaled by `mean_pktsize`, and the
    /// probability scaled by packet size / mean_pktsize (ns-2 `bytes_` and
    /// `queue_in_bytes_`, both true by default in ns-2.35).
    pub bytes: bool,
    /// ns-2 `mean_pktsize_` (500 bytes): packet-time constant and byte-mode unit.
    pub mean_pktsize: u32,
    /// ns-2 `wait_` (true): wait between drops (p/(2 − count·p)) instead of F&J's
    /// p/(1 − count·p).
    pub wait: bool,
    /// Target queueing delay for the automatic thresholds (ns-2 `targetdelay_`, 5 ms).
    pub target_delay: Dur,
    /// Mark ECN-capable packets instead of dropping them (ns-2 `setbit_`, default false).
    pub ecn: bool,
    /// Mark only while the RED probability is at most this value and drop above it
    /// (ns-2 `mark_p_` with `use_mark_p_`). Default 1.0: mark whenever RED would drop
    /// early, as Linux does without `harddrop`.
    pub mark_p: f64,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: None,
            max_th: None,
            max_p: 0.1,
            w_q: None,
            gentle: true,
            bytes: true,
            mean_pktsize: 500,
            wait: true,
            target_delay: Dur::from_millis(5),
            ecn: false,
            mark_p: 1.0,
        }
    }
}

/// The values RED runs with once the automatic ones are resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedResolved {
    /// Thresholds in queue units (packets, or bytes in byte mode).
    pub th_min: f64,
    pub th_max: f64,
    pub w_q: f64,
    /// Packet-time constant: mean-size packets per second at the link rate.
    pub ptc: f64,
}

impl RedParams {
    /// ns-2.35 `REDQueue::initialize_params` and `reset`.
    pub fn resolve(&self, rate: Rate, delay: Dur) -> RedResolved {
        let ptc = rate.bps() as f64 / (8.0 * self.mean_pktsize as f64);
        let w_q = self.w_q.unwrap_or_else(|| {
            let mut rtt = 3.0 * (delay.secs_f64() + 1.0 / ptc);
            if rtt < 0.1 {
                rtt = 0.1;
            }
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        });
        let th_min_pkts = self.min_th.unwrap_or_else(|| {
            // "set th_min_pkts to half of targetqueue, if this is greater than 5 packets"
            let targetqueue = self.target_delay.secs_f64() * ptc;
            f64::max(5.0, targetqueue / 2.0)
        });
        let th_max_pkts = self.max_th.unwrap_or(3.0 * th_min_pkts);
        let scale = if self.bytes {
            self.mean_pktsize as f64
        } else {
            1.0
        };
        RedResolved {
            th_min: th_min_pkts * scale,
            th_max: th_max_pkts * scale,
            w_q,
            ptc,
        }
    }
}

/// ns-2 `calculate_p_new`: the probability before the count correction.
pub fn red_probability(ave: f64, th_min: f64, th_max: f64, max_p: f64, gentle: bool) -> f64 {
    let p = if gentle && ave >= th_max {
        // "p ranges from max_p to 1 as the average queue size ranges from th_max to twice th_max"
        (1.0 - max_p) / th_max * ave + (2.0 * max_p - 1.0)
    } else if !gentle && ave >= th_max {
        1.0
    } else {
        // F&J §4: p_b = max_p (avg − min_th) / (max_th − min_th)
        let diff = if th_max > th_min {
            th_max - th_min
        } else {
            1.0
        };
        max_p * (ave - th_min) / diff
    };
    p.min(1.0)
}

/// ns-2 `modify_p`: uniform instead of geometric inter-drop spacing (F&J §4:
/// p_a = p_b / (1 − count · p_b)), or with `wait` p_b / (2 − count · p_b); byte mode
/// counts bytes in mean-size packets and scales by the packet's size.
pub fn red_modify_p(
    p: f64,
    count: u64,
    count_bytes: u64,
    bytes: bool,
    mean_pktsize: u32,
    wait: bool,
    size: u32,
) -> f64 {
    let count1 = if bytes {
        (count_bytes / mean_pktsize as u64) as f64
    } else {
        count as f64
    };
    let mut p = if wait {
        if count1 * p < 1.0 {
            0.0
        } else if count1 * p < 2.0 {
            p / (2.0 - count1 * p)
        } else {
            1.0
        }
    } else if count1 * p < 1.0 {
        p / (1.0 - count1 * p)
    } else {
        1.0
    };
    if bytes && p < 1.0 {
        p = p * size as f64 / mean_pktsize as f64;
    }
    p.min(1.0)
}

#[derive(Debug)]
pub struct Red<T> {
    pub(crate) params: RedParams,
    r: RedResolved,
    pub(crate) q: Fifo<T>,
    ave: f64,
    count: u64,
    count_bytes: u64,
    /// ns-2 `old`: the average was above min_th at the previous arrival.
    old: bool,
    idle: bool,
    idle_since: Time,
}

impl<T: WirePacket> Red<T> {
    pub fn new(params: RedParams, rate: Rate, delay: Dur, cap: usize) -> Self {
        let r = params.resolve(rate, delay);
        Red {
            params,
            r,
            q: Fifo::with_capacity(cap),
            ave: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle: true,
            idle_since: Time::ZERO,
        }
    }

    pub fn resolved(&self) -> RedResolved {
        self.r
    }
    pub fn average(&self) -> f64 {
        self.ave
    }

    fn qlen(&self) -> f64 {
        if self.params.bytes {
            self.q.bytes() as f64
        } else {
            self.q.len() as f64
        }
    }

    /// ns-2 `REDQueue::enque`.
    pub(crate) fn enqueue(&mut self, now: Time, mut pkt: T, cx: &mut Ctx<'_, T>) {
        let size = pkt.wire_bytes();
        // "if we were idle, we pretend that m packets arrived during the idle period"
        let mut m = 0u64;
        if self.idle {
            self.idle = false;
            m = (self.r.ptc * now.since(self.idle_since).secs_f64()) as u64;
        }
        // F&J §4 (ns-2 `estimator`): avg ← (1 − w_q)^m avg, then avg ← (1 − w_q) avg + w_q q.
        let w = self.r.w_q;
        let qlen = self.qlen();
        self.ave *= (1.0 - w).powf(m as f64);
        self.ave = self.ave * (1.0 - w) + w * qlen;
        self.count += 1;
        self.count_bytes += size as u64;

        let mut early = false;
        if self.ave >= self.r.th_min && qlen > 1.0 {
            if !self.old {
                // "The average queue size has just crossed the threshold from below."
                self.count = 1;
                self.count_bytes = size as u64;
                self.old = true;
            } else {
                let p = &self.params;
                let prob1 =
                    red_probability(self.ave, self.r.th_min, self.r.th_max, p.max_p, p.gentle);
                let prob = red_modify_p(
                    prob1,
                    self.count,
                    self.count_bytes,
                    p.bytes,
                    p.mean_pktsize,
                    p.wait,
                    size,
                );
                if cx.rng.uniform() <= prob {
                    self.count = 0;
                    self.count_bytes = 0;
                    if p.ecn && pkt.ecn_capable() && prob1 <= p.mark_p {
                        pkt.set_ce();
                        cx.stats.marks += 1;
                    } else {
                        early = true;
                    }
                }
            }
        } else {
            self.old = false;
        }
        if early {
            cx.stats.aqm_drops += 1;
            cx.drops.push(pkt);
        } else if !cx.limit.admits(self.q.len(), self.q.bytes(), size as u64) {
            // A forced drop: the physical queue is full.
            self.count = 0;
            self.count_bytes = 0;
            cx.stats.overflow_drops += 1;
            cx.drops.push(pkt);
        } else {
            self.q.push_back(now, pkt);
        }
    }

    /// ns-2 `REDQueue::deque`: an empty queue starts the idle period.
    pub(crate) fn dequeue(&mut self, now: Time) -> Option<(Time, T)> {
        let r = self.q.pop_front();
        if r.is_none() && !self.idle {
            self.idle = true;
            self.idle_since = now;
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_configuration_follows_ns2() {
        // 10 Mbit/s, mean_pktsize 500: ptc = 10e6 / 4000 = 2500 packets/s.
        // targetqueue = 0.005 · 2500 = 12.5 → th_min = max(5, 6.25) = 6.25 packets,
        // th_max = 18.75; in byte mode × 500 → 3125 and 9375 bytes.
        // delay 50 ms: rtt = 3 · (0.05 + 0.0004) = 0.1512 s; w_q = 1 − exp(−1/(10 · 0.1512 · 2500))
        //   = 1 − exp(−1/3780) = 2.64515e-4.
        let r = RedParams::default().resolve(Rate::from_mbps(10), Dur::from_millis(50));
        assert!((r.ptc - 2500.0).abs() < 1e-9);
        assert!((r.th_min - 3125.0).abs() < 1e-9);
        assert!((r.th_max - 9375.0).abs() < 1e-9);
        assert!((r.w_q - (1.0 - (-1.0f64 / 3780.0).exp())).abs() < 1e-15);
        assert!((r.w_q - 2.64515e-4).abs() < 1e-9);
        // Packet mode at 1500 B: ptc = 833.3; targetqueue 4.17 → th_min = 5, th_max = 15.
        let p = RedParams {
            bytes: false,
            mean_pktsize: 1500,
            ..RedParams::default()
        };
        let r = p.resolve(Rate::from_mbps(10), Dur::from_millis(50));
        assert_eq!((r.th_min, r.th_max), (5.0, 15.0));
    }

    #[test]
    fn probability_is_linear_then_gentle() {
        // Between thresholds: 0.1 · (10 − 5) / (15 − 5) = 0.05.
        assert!((red_probability(10.0, 5.0, 15.0, 0.1, true) - 0.05).abs() < 1e-12);
        // Below min_th the line goes negative (0.1 · (4 − 5) / 10); RED never evaluates it there.
        assert!((red_probability(4.0, 5.0, 15.0, 0.1, true) + 0.01).abs() < 1e-12);
        // Gentle at max_th: exactly max_p; halfway to 2·max_th (22.5): 0.1 + 0.9 · 0.5 = 0.55;
        // at 2·max_th: 1.
        assert!((red_probability(15.0, 5.0, 15.0, 0.1, true) - 0.1).abs() < 1e-12);
        assert!((red_probability(22.5, 5.0, 15.0, 0.1, true) - 0.55).abs() < 1e-12);
        assert!((red_probability(30.0, 5.0, 15.0, 0.1, true) - 1.0).abs() < 1e-12);
        assert_eq!(red_probability(40.0, 5.0, 15.0, 0.1, true), 1.0);
        // Without gentle, everything at or above max_th is dropped.
        assert_eq!(red_probability(15.0, 5.0, 15.0, 0.1, false), 1.0);
    }

    #[test]
    fn count_spreads_drops_uniformly() {
        // F&J: p_a = p_b / (1 − count · p_b): 0.05 / (1 − 10 · 0.05) = 0.1.
        assert!((red_modify_p(0.05, 10, 0, false, 500, false, 1500) - 0.1).abs() < 1e-12);
        assert_eq!(red_modify_p(0.05, 20, 0, false, 500, false, 1500), 1.0);
        // ns-2 wait: 0 while count · p < 1, then p / (2 − count · p): 0.05 / (2 − 30·0.05) = 0.1.
        assert_eq!(red_modify_p(0.05, 10, 0, false, 500, true, 1500), 0.0);
        assert!((red_modify_p(0.05, 30, 0, false, 500, true, 1500) - 0.1).abs() < 1e-12);
        // Byte mode: count = 15000 bytes / 500 = 30 → 0.1, then × 1500/500 = 0.3.
        assert!((red_modify_p(0.05, 0, 15_000, true, 500, true, 1500) - 0.3).abs() < 1e-12);
    }
}
