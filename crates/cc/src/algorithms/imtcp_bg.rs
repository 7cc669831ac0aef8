//! ImTCP-bg, background TCP with inline available-bandwidth measurement (Tsugawa,
//! Hasegawa, Murata 2006, extending ImTCP of Man, Hasegawa, Murata), as Ong 2020
//! describes it (§2.2.6, Table 2.1; Ong 2020 notes §2.8; the papers and the FreeBSD 4.1
//! implementation were not available):
//!
//! - "an exponentially weighted moving average of the bandwidth averages, in addition
//!   to the minimum RTT observed for that connection, to determine the maximum
//!   allowable size of cwnd": cwnd ≤ A·rtt_min, A the EWMA of bandwidth estimates;
//! - congestion when rtt_avg/rtt_min > δ = 1.2, answered with cwnd ← cwnd·rtt_min/rtt_avg;
//! - otherwise Reno growth ("cwnd + 1 per RTT", Table 2.1), Reno halving on loss.
//!
//! Bandwidth estimator (ours, documented in docs/deviations/imtcp-bg.md#imtcp-bg-estimator): ImTCP
//! measures with packet streams it paces itself; this module does not control send
//! times, so it measures *packet trains from ACK timing*: every `train_packets`
//! consecutively acknowledged packets (outside recovery and application-limited periods)
//! form a train, and the train's rate is the bytes acknowledged after its first ACK
//! divided by the time from its first to its last ACK (the ACK dispersion). When the
//! bottleneck spread the train (its ACK span exceeds `spread`× the span over which the
//! same packets were sent), the packets queued and the dispersion is the rate the
//! bottleneck gives this flow: the capacity when alone, less when cross traffic
//! interleaves; A = EWMA of such train rates, and the cap applies. A train that arrives
//! as it was sent only shows the flow's own rate, a lower bound on what is available:
//! it switches the cap off until the next spread train (otherwise a small window would
//! measure itself and lock the cap at its own size). rtt_avg is the mean RTT sample of
//! the last round (one RTT, Vegas-style rounds), evaluated once per round.
//!
//! Differences from the source (the reasoning is in docs/deviations/imtcp-bg.md):
//! - available bandwidth from ACK-timed packet trains, not ImTCP's paced streams:
//!   docs/deviations/imtcp-bg.md#imtcp-bg-estimator
//! - how rtt_avg is smoothed: docs/deviations/imtcp-bg.md#imtcp-bg-rtt-avg
//! - Reno growth and loss response: docs/deviations/imtcp-bg.md#imtcp-bg-growth-loss

use super::fractional_window;
use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};
use std::collections::VecDeque;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "imtcp-bg",
    aliases: &["imtcpbg"],
    summary: "ImTCP-bg: Reno capped at (EWMA available bandwidth)·rtt_min, cwnd·rtt_min/rtt_avg when rtt_avg/rtt_min > 1.2",
    source: "Ong 2020 §2.2.6, Table 2.1; Tsugawa et al. 2006",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "delta",
        kind: ParamKind::Float { min: 1.0, max: 10.0 },
        default: ParamValue::Float(1.2),
        unit: "",
        doc: "δ: congestion when rtt_avg/rtt_min exceeds it",
        source: "Ong 2020 §2.2.6 (\"set to 1.2 by default\")",
    },
    ParamSpec {
        name: "bw_weight",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.125),
        unit: "",
        doc: "EWMA weight of a new train rate in the available-bandwidth estimate A",
        source: "Ong 2020 §2.2.6 (an EWMA; weight not given); assumption 1/8",
    },
    ParamSpec {
        name: "train_packets",
        kind: ParamKind::Int { min: 2, max: 1000 },
        default: ParamValue::Int(8),
        unit: "packets",
        doc: "Acknowledged packets per measurement train",
        source: "assumption (docs/deviations/imtcp-bg.md): ImTCP groups packets into streams; our trains come from ACK timing",
    },
    ParamSpec {
        name: "spread",
        kind: ParamKind::Float { min: 1.0, max: 100.0 },
        default: ParamValue::Float(1.1),
        unit: "",
        doc: "A train measures available bandwidth when its ACK span exceeds this multiple of its send span",
        source: "assumption (docs/deviations/imtcp-bg.md): the ImTCP idea that a stream sent faster than the available bandwidth arrives spread out",
    },
    ParamSpec {
        name: "train_max_gap",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(0.25),
        unit: "× rtt_min",
        doc: "An ACK gap longer than this breaks a train (its packets were not in flight together)",
        source: "assumption (docs/deviations/imtcp-bg.md)",
    },
    ParamSpec {
        name: "bw_cap",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Cap cwnd at A·rtt_min",
        source: "Ong 2020 §2.2.6",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "Floor of the window after the RTT-ratio reduction and the cap",
        source: "assumption: Linux's minimum ssthresh of 2 packets",
    },
];

/// ImTCP-bg's parameters. Ong 2020 §2.2.6 gives δ; the rest are our assumptions,
/// argued in docs/deviations/imtcp-bg.md.
#[derive(Clone, Debug, PartialEq)]
pub struct ImTcpBgConfig {
    /// `delta`: δ, congestion when rtt_avg/rtt_min exceeds it. Ong 2020 §2.2.6 ("set to
    /// 1.2 by default").
    pub delta: f64,
    /// `bw_weight`: EWMA weight of a new train rate in the available-bandwidth estimate A.
    /// Ong 2020 §2.2.6 (an EWMA, weight not given); assumption 1/8.
    pub bw_weight: f64,
    /// `train_packets`: acknowledged packets per measurement train; assumption 8.
    pub train_packets: usize,
    /// `spread`: a train measures available bandwidth when its ACK span exceeds this
    /// multiple of its send span; assumption 1.1.
    pub spread: f64,
    /// `train_max_gap`, × rtt_min: a longer ACK gap breaks a train; assumption 0.25.
    pub train_max_gap: f64,
    /// `bw_cap`: cap cwnd at A·rtt_min. Ong 2020 §2.2.6.
    pub bw_cap: bool,
    /// `min_cwnd`, packets: floor after the RTT-ratio reduction and the cap; assumption
    /// 2, Linux's minimum ssthresh.
    pub min_cwnd: u64,
}

impl Default for ImTcpBgConfig {
    fn default() -> ImTcpBgConfig {
        ImTcpBgConfig {
            delta: 1.2,
            bw_weight: 0.125,
            train_packets: 8,
            spread: 1.1,
            train_max_gap: 0.25,
            bw_cap: true,
            min_cwnd: 2,
        }
    }
}

impl TryFrom<&ParamSet> for ImTcpBgConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<ImTcpBgConfig, ParamError> {
        let r = p.reader("imtcp-bg");
        Ok(ImTcpBgConfig {
            delta: r.f64("delta")?,
            bw_weight: r.f64("bw_weight")?,
            train_packets: r.usize("train_packets")?,
            spread: r.f64("spread")?,
            train_max_gap: r.f64("train_max_gap")?,
            bw_cap: r.bool("bw_cap")?,
            min_cwnd: r.u64("min_cwnd")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = ImTcpBgConfig::try_from(p).expect("imtcp-bg: parameters resolved against PARAMS");
    Box::new(ImTcpBg::new(&cfg, &init))
}

/// Available bandwidth from ACK-timed packet trains (see the module documentation).
#[derive(Clone, Debug)]
pub struct TrainEstimator {
    train_packets: f64,
    weight: f64,
    spread: f64,
    /// First ACK time, send time of the newest packet it acknowledged, bytes after it,
    /// packets in the train.
    train: Option<(Time, Time, u64, f64)>,
    /// EWMA of the rates of spread trains, bytes per second.
    pub rate: Option<f64>,
    pub last_sample: Option<f64>,
    /// The last complete train was spread by the bottleneck: `rate` is a measurement
    /// of what the bottleneck gives this flow, and the cap applies.
    pub valid: bool,
    last_ack: Option<Time>,
}

impl TrainEstimator {
    pub fn new(train_packets: usize, weight: f64, spread: f64) -> Self {
        TrainEstimator {
            train_packets: train_packets as f64,
            weight,
            spread,
            train: None,
            rate: None,
            last_sample: None,
            valid: false,
            last_ack: None,
        }
    }

    /// One ACK at `now` of `bytes`, whose newest cumulatively acknowledged packet was sent
    /// at `sent`. `usable` is false in recovery or when application-limited. An ACK more
    /// than `max_gap` after the previous one breaks the train: its packets were not in
    /// flight together (a window smaller than a train), and the cap is switched off.
    pub fn on_ack(
        &mut self,
        now: Time,
        sent: Time,
        bytes: u64,
        mss: u64,
        usable: bool,
        max_gap: Option<Dur>,
    ) {
        let gap = self.last_ack.map(|t| now.since(t));
        self.last_ack = Some(now);
        if !usable {
            self.train = None;
            return;
        }
        if let (Some(g), Some(m)) = (gap, max_gap) {
            if g > m && self.train.is_some() {
                self.valid = false;
                self.train = None;
            }
        }
        let pkts = bytes as f64 / mss as f64;
        match &mut self.train {
            None => self.train = Some((now, sent, 0, pkts)),
            Some((t0, s0, b, n)) => {
                *b += bytes;
                *n += pkts;
                if *n >= self.train_packets {
                    let ack_span = now.since(*t0);
                    let send_span = sent.since(*s0);
                    if ack_span > Dur::ZERO {
                        let sample = *b as f64 / ack_span.secs_f64();
                        self.last_sample = Some(sample);
                        self.valid = ack_span.secs_f64() > self.spread * send_span.secs_f64();
                        if self.valid {
                            self.rate = Some(self.rate.map_or(sample, |a| {
                                (1.0 - self.weight) * a + self.weight * sample
                            }));
                        }
                    }
                    // This ACK opens the next train.
                    self.train = Some((now, sent, 0, 0.0));
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct ImTcpBg {
    bw: TrainEstimator,
    delta: f64,
    cap: bool,
    min_cwnd: f64,
    cwnd: f64,
    ssthresh: f64,
    mss: u64,
    rtt_min: Option<Dur>,
    rtt_sum: f64,
    rtt_n: u32,
    rtt_sum_multi: f64,
    rtt_n_multi: u32,
    max_gap: f64,
    seen_multi: bool,
    round_end: Option<u64>,
    last_ratio: f64,
    /// (end sequence, send time) of new data in flight, oldest first.
    sent: VecDeque<(u64, Time)>,
    last_acked_sent: Time,
}

impl ImTcpBg {
    pub fn new(cfg: &ImTcpBgConfig, init: &CcInit) -> ImTcpBg {
        let mss = init.mss.max(1);
        ImTcpBg {
            bw: TrainEstimator::new(cfg.train_packets, cfg.bw_weight, cfg.spread),
            delta: cfg.delta,
            cap: cfg.bw_cap,
            min_cwnd: cfg.min_cwnd as f64,
            cwnd: (init.initial_cwnd / mss).max(1) as f64,
            ssthresh: f64::INFINITY,
            mss,
            rtt_min: None,
            rtt_sum: 0.0,
            rtt_n: 0,
            rtt_sum_multi: 0.0,
            rtt_n_multi: 0,
            max_gap: cfg.train_max_gap,
            seen_multi: false,
            round_end: None,
            last_ratio: 1.0,
            sent: VecDeque::new(),
            last_acked_sent: init.now,
        }
    }

    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }

    /// A in bytes per second.
    pub fn available_bandwidth(&self) -> Option<f64> {
        self.bw.rate
    }

    /// The window limit A·rtt_min in packets, while the last train was spread.
    pub fn max_cwnd(&self) -> Option<f64> {
        if !self.bw.valid {
            return None;
        }
        Some(self.bw.rate? * self.rtt_min?.secs_f64() / self.mss as f64)
    }

    /// End of a round: rtt_avg/rtt_min > δ → cwnd ← cwnd·rtt_min/rtt_avg (Ong 2020 §2.2.6).
    /// Returns true when the window was reduced.
    fn end_round(&mut self) -> bool {
        // With delayed ACKs in use (an ACK of several segments was seen), a round with only
        // single-segment ACKs has no trustworthy sample: no decision.
        let (n, sum) = if self.rtt_n_multi > 0 || self.seen_multi {
            (self.rtt_n_multi, self.rtt_sum_multi)
        } else {
            (self.rtt_n, self.rtt_sum)
        };
        self.rtt_n = 0;
        self.rtt_sum = 0.0;
        self.rtt_n_multi = 0;
        self.rtt_sum_multi = 0.0;
        let Some(min) = self.rtt_min else {
            return false;
        };
        if n == 0 {
            return false;
        }
        let avg = sum / n as f64;
        let ratio = avg / min.secs_f64();
        self.last_ratio = ratio;
        if ratio > self.delta {
            self.cwnd = (self.cwnd / ratio).max(self.min_cwnd);
            self.ssthresh = self.cwnd;
            return true;
        }
        false
    }
}

impl CongestionControl for ImTcpBg {
    fn name(&self) -> &'static str {
        "imtcp-bg"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.mss = ack.mss.max(1);
        while let Some(&(end, t)) = self.sent.front() {
            if end > ack.snd_una {
                break;
            }
            self.last_acked_sent = t;
            self.sent.pop_front();
        }
        let max_gap = self.rtt_min.map(|m| m.mul_f64(self.max_gap));
        self.bw.on_ack(
            now,
            self.last_acked_sent,
            ack.bytes_acked,
            self.mss,
            !ack.in_recovery && !ack.app_limited && ack.bytes_acked > 0,
            max_gap,
        );
        if let Some(r) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
            self.rtt_sum += r.secs_f64();
            self.rtt_n += 1;
            // ACKs of a single segment may have waited for the receiver's delayed-ACK
            // timer; rtt_avg prefers the others when the round has any.
            if ack.bytes_acked > self.mss {
                self.seen_multi = true;
                self.rtt_sum_multi += r.secs_f64();
                self.rtt_n_multi += 1;
            }
        }
        let mut reduced = false;
        match self.round_end {
            None => self.round_end = Some(ack.snd_nxt),
            Some(end) if ack.snd_una >= end => {
                self.round_end = Some(ack.snd_nxt);
                reduced = self.end_round();
            }
            Some(_) => {}
        }
        if !reduced && !ack.in_recovery && ack.cwnd_limited {
            let acked = ack.bytes_acked as f64 / self.mss as f64;
            if self.cwnd < self.ssthresh {
                let used = acked.min(self.ssthresh - self.cwnd);
                self.cwnd += used;
                if acked > used {
                    self.cwnd += (acked - used) / self.cwnd;
                }
            } else {
                // Table 2.1: cwnd + 1 per RTT.
                self.cwnd += acked / self.cwnd;
            }
        }
        // cwnd ≤ A·rtt_min.
        if self.cap {
            if let Some(max) = self.max_cwnd() {
                if self.cwnd > max {
                    self.cwnd = max.max(self.min_cwnd);
                }
            }
        }
    }

    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        if !sent.retransmission {
            self.sent.push_back((sent.seq + sent.bytes, now));
        }
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        self.cwnd = (self.cwnd / 2.0).max(2.0);
        self.ssthresh = self.cwnd;
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.ssthresh = (self.cwnd / 2.0).max(2.0);
        self.cwnd = 1.0;
    }

    fn cwnd(&self) -> u64 {
        fractional_window::cwnd_bytes(self.cwnd, self.mss)
    }

    fn ssthresh(&self) -> u64 {
        fractional_window::ssthresh_bytes(self.ssthresh, self.mss)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cwnd_pkts", self.cwnd));
        if let Some(a) = self.bw.rate {
            out.push(("avail_bw_mbps", a * 8.0 / 1e6));
        }
        if let Some(m) = self.max_cwnd() {
            out.push(("max_cwnd_pkts", m));
        }
        out.push(("rtt_ratio", self.last_ratio));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            ImTcpBgConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            ImTcpBgConfig::default()
        );
    }
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn make(cfg: ImTcpBgConfig) -> ImTcpBg {
        ImTcpBg::new(
            &cfg,
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    fn ack(segs: u64, rtt_ms: u64, una: u64, nxt: u64) -> AckSample {
        AckSample {
            bytes_acked: segs * MSS,
            rtt: Some(Dur(rtt_ms * MS)),
            snd_una: una,
            snd_nxt: nxt,
            ..AckSample::empty(MSS)
        }
    }

    #[test]
    fn packet_train_rate_and_ewma() {
        let mut e = TrainEstimator::new(8, 0.125, 1.1);
        let sent = Time(0); // all sent back to back: send span 0, any ACK span is spread
                            // 8 one-packet ACKs 1 ms apart: 7000 bytes after the first over 7 ms = 1e6 B/s.
        for i in 0..8 {
            e.on_ack(Time(i * MS), sent, MSS, MSS, true, None);
        }
        assert_eq!((e.rate, e.valid), (Some(1e6), true));
        // Next train opens at 7 ms; 8 more packets as four 2-packet ACKs 4 ms apart
        // (8000 B over 16 ms = 5e5 B/s): A = 7/8·1e6 + 1/8·5e5 = 937 500 B/s.
        for i in 1..=4 {
            e.on_ack(Time((7 + 4 * i) * MS), sent, 2 * MSS, MSS, true, None);
        }
        assert_eq!((e.last_sample, e.rate), (Some(5e5), Some(937_500.0)));
        // A train that arrives spaced as it was sent (ACK span 8 ms = send span 8 ms,
        // not above 1.1×) is only a lower bound: A unchanged, the cap is off.
        for i in 1..=8 {
            e.on_ack(
                Time((23 + i) * MS),
                Time((23 + i) * MS),
                MSS,
                MSS,
                true,
                None,
            );
        }
        assert_eq!(
            (e.last_sample, e.rate, e.valid),
            (Some(1e6), Some(937_500.0), false)
        );
        // A recovery or app-limited ACK breaks the train.
        e.on_ack(Time(40 * MS), sent, MSS, MSS, true, None);
        e.on_ack(Time(41 * MS), sent, MSS, MSS, false, None);
        assert!(e.train.is_none());
        // A gap longer than max_gap breaks the train and switches the cap off.
        let mut g = TrainEstimator::new(8, 0.125, 1.1);
        for i in 0..8 {
            g.on_ack(
                Time(i * MS),
                sent,
                MSS,
                MSS,
                true,
                Some(Dur::from_millis(5)),
            );
        }
        assert!(g.valid);
        g.on_ack(
            Time(8 * MS),
            sent,
            MSS,
            MSS,
            true,
            Some(Dur::from_millis(5)),
        );
        g.on_ack(
            Time(20 * MS),
            sent,
            MSS,
            MSS,
            true,
            Some(Dur::from_millis(5)),
        );
        assert!(!g.valid);
        assert_eq!(g.train.map(|t| t.0), Some(Time(20 * MS))); // a new train starts there
    }

    #[test]
    fn send_times_come_from_on_sent() {
        let mut c = make(ImTcpBgConfig::default());
        // Ten packets sent 1 ms apart, acknowledged 1 ms apart: not spread, no cap.
        for i in 0..10 {
            c.on_sent(
                Time(i * MS),
                &SentInfo {
                    bytes: MSS,
                    bytes_in_flight: (i + 1) * MSS,
                    retransmission: false,
                    seq: i * MSS,
                    app_limited: false,
                },
            );
        }
        for i in 0..9 {
            c.on_ack(Time((100 + i) * MS), &ack(1, 100, (i + 1) * MSS, 10 * MSS));
        }
        assert_eq!(
            (c.max_cwnd(), c.bw.valid, c.bw.last_sample),
            (None, false, Some(1e6))
        );
        assert_eq!(c.last_acked_sent, Time(8 * MS));
    }

    #[test]
    fn window_is_capped_at_bandwidth_times_min_rtt() {
        let mut c = make(ImTcpBgConfig::default());
        // Slow start; RTT 50 ms; a train of 8 packets at 1e6 B/s: A·rtt_min = 1e6 B/s ·
        // 0.05 s / 1000 B = 50 packets. The window (10 + 8 = 18) is below it.
        for i in 0..8 {
            c.on_ack(Time(i * MS), &ack(1, 50, 1000 * (i + 1), 100_000));
        }
        assert_eq!(c.max_cwnd(), Some(50.0));
        assert_eq!(c.cwnd_pkts(), 18.0);
        c.cwnd = 80.0;
        c.on_ack(Time(9 * MS), &ack(1, 50, 9000, 100_000));
        assert_eq!(c.cwnd_pkts(), 50.0);
        // Without the cap the window keeps slow-starting.
        let mut u = make(ImTcpBgConfig {
            bw_cap: false,
            ..ImTcpBgConfig::default()
        });
        u.cwnd = 80.0;
        for i in 0..8 {
            u.on_ack(Time(i * MS), &ack(1, 50, 1000 * (i + 1), 100_000));
        }
        assert_eq!(u.cwnd_pkts(), 88.0);
    }

    #[test]
    fn rtt_ratio_reduction_once_per_round() {
        let mut c = make(ImTcpBgConfig {
            bw_cap: false,
            ..ImTcpBgConfig::default()
        });
        c.ssthresh = 40.0;
        c.cwnd = 40.0;
        // Round 1 starts (ends at snd_una ≥ 10 000); samples 100 and 160 ms: rtt_min 100.
        c.on_ack(Time(0), &ack(0, 100, 0, 10_000));
        c.on_ack(Time(0), &ack(0, 160, 5_000, 10_000));
        // The round ends with samples {100, 160, 130}: avg 130, ratio 1.3 > 1.2:
        // cwnd = 40·100/130 = 30.769…; no growth on this ACK.
        c.on_ack(Time(0), &ack(1, 130, 10_000, 20_000));
        assert!(
            (c.cwnd_pkts() - 40.0 / 1.3).abs() < 1e-9,
            "{}",
            c.cwnd_pkts()
        );
        assert_eq!(c.ssthresh(), 30 * MSS);
        // Next round: samples of 1.1·rtt_min: no reduction; AI of 1/cwnd.
        let w = c.cwnd_pkts();
        c.on_ack(Time(0), &ack(0, 110, 15_000, 20_000));
        c.on_ack(Time(0), &ack(1, 110, 20_000, 30_000));
        assert!((c.cwnd_pkts() - (w + 1.0 / w)).abs() < 1e-9);
    }

    #[test]
    fn delayed_ack_samples_do_not_count_once_ack_pairs_were_seen() {
        let mut c = make(ImTcpBgConfig {
            bw_cap: false,
            ..ImTcpBgConfig::default()
        });
        c.ssthresh = 10.0;
        c.cwnd = 10.0;
        // Round 1: a 2-segment ACK with RTT 100 ms (rtt_min), then a single-segment ACK
        // that waited 40 ms for the delayed-ACK timer (140 ms): rtt_avg uses the pair
        // only → ratio 1.0, no reduction.
        c.on_ack(Time(0), &ack(2, 100, 2_000, 10_000));
        c.on_ack(Time(0), &ack(1, 140, 10_000, 20_000));
        assert!(c.cwnd_pkts() > 10.0);
        // Round 2 has only a delayed single-segment ACK: no decision (would be 1.4).
        let w = c.cwnd_pkts();
        c.on_ack(Time(0), &ack(1, 140, 20_000, 30_000));
        assert!((c.cwnd_pkts() - (w + 1.0 / w)).abs() < 1e-12);
        // A pair at 130 ms: 1.3 > 1.2 → cwnd·100/130.
        let w = c.cwnd_pkts();
        c.on_ack(Time(0), &ack(2, 130, 30_000, 40_000));
        assert!((c.cwnd_pkts() - w / 1.3).abs() < 1e-9);
    }

    #[test]
    fn loss_and_timeout() {
        let mut c = make(ImTcpBgConfig::default());
        c.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 0,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh()), (5 * MSS, 5 * MSS));
        c.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 2 * MSS));
    }
}
