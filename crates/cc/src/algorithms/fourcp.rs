//! 4CP, Competitive and Considerate Congestion Control (Liu, Vojnović, Gunawardena,
//! IWQoS 2007 / MSR-TR-2006-24), as Ong 2020 describes it (§2.2.4, Table 2.1; Ong 2020 notes
//! §2.6; the paper and its Windows Vista implementation were not available).
//!
//! 4CP compares the loss-event probability p with a target probability tarp:
//! - p ≤ tarp (the "good" phase, no cross traffic inferred): TCP behaviour, slow start
//!   then an additive increase of 1/cwnd per acknowledged packet (Ong 2020 §2.2.4, "When
//!   no cross traffic is detected, an additive increase of 1/cwnd is applied") and the
//!   Reno halving on a loss event;
//! - p > tarp (the "bad" phase): no increase, and on each loss event (multiple duplicate
//!   ACKs) cwnd = max(cwnd − 1/(tarp·cwnd), mincwnd) (Ong 2020 eq. 2.3), the simplified
//!   form of the virtual-window reduction. 1/(tarp·cwnd) is the additive increase a
//!   window gains between two losses at the target probability, so the window holds at
//!   p = tarp and shrinks towards mincwnd while p > tarp.
//! - tarp is fixed, or adapted once per RTT with tarp += α·(f − cwnd)/cwnd (Ong 2020
//!   eq. 2.2 with its parentheses balanced), f an EWMA of cwnd.
//!
//! p is estimated TFRC-style (RFC 5348 §5.4, unweighted): the inverse of the mean of the
//! last `loss_intervals` loss intervals in packets, the open interval included when that
//! lowers p. Ambiguities and their resolutions are listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/4cp.md):
//! - eq. 2.2's unbalanced parentheses: docs/deviations/4cp.md#4cp-eq22-parens
//! - "the lesser of" read as max(): docs/deviations/4cp.md#4cp-lesser-vs-max
//! - when eq. 2.3 applies, and what the increase is: docs/deviations/4cp.md#4cp-eq23
//! - p estimated TFRC-style: docs/deviations/4cp.md#4cp-p-estimate
//! - the tarp default: docs/deviations/4cp.md#4cp-tarp

use super::fractional_window;
use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::Time;
use std::collections::VecDeque;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "4cp",
    aliases: &["fourcp"],
    summary: "4CP: TCP below a target loss-event probability, considerate virtual-window backoff above it",
    source: "Ong 2020 §2.2.4 (eq. 2.2, 2.3), Table 2.1; Liu et al. IWQoS 2007",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "tarp",
        kind: ParamKind::Float {
            min: 1e-6,
            max: 1.0,
        },
        default: ParamValue::Float(0.01),
        unit: "",
        doc: "Target loss-event probability (the initial value in adaptive mode)",
        source: "Ong 2020 §2.2.4 (value not given); assumption 0.01 (docs/deviations/4cp.md)",
    },
    ParamSpec {
        name: "tarp_mode",
        kind: ParamKind::Choice(&["fixed", "adaptive"]),
        default: ParamValue::Choice("fixed"),
        unit: "",
        doc:
            "\"fixed\" tarp, or \"adaptive\": tarp += alpha·(f − cwnd)/cwnd once per RTT (eq. 2.2)",
        source: "Ong 2020 §2.2.4 (\"can be a fixed target or calculated dynamically\")",
    },
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.01),
        unit: "",
        doc: "α of eq. 2.2 (step of the adaptive tarp)",
        source: "Ong 2020 eq. 2.2 (value not given); assumption (docs/deviations/4cp.md)",
    },
    ParamSpec {
        name: "cwnd_avg_weight",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.125),
        unit: "",
        doc: "EWMA weight of f, the moving average of cwnd in eq. 2.2",
        source: "Ong 2020 §2.2.4 (\"a moving average of the cwnd\"); assumption 1/8",
    },
    ParamSpec {
        name: "tarp_min",
        kind: ParamKind::Float {
            min: 1e-9,
            max: 1.0,
        },
        default: ParamValue::Float(1e-4),
        unit: "",
        doc: "Lower bound of the adaptive tarp",
        source: "assumption (docs/deviations/4cp.md)",
    },
    ParamSpec {
        name: "tarp_max",
        kind: ParamKind::Float {
            min: 1e-9,
            max: 1.0,
        },
        default: ParamValue::Float(0.5),
        unit: "",
        doc: "Upper bound of the adaptive tarp",
        source: "assumption (docs/deviations/4cp.md)",
    },
    ParamSpec {
        name: "mincwnd",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "mincwnd, the lower bound of eq. 2.3",
        source: "Ong 2020 eq. 2.3 (value not given); assumption 2, Linux's minimum ssthresh",
    },
    ParamSpec {
        name: "loss_intervals",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(8),
        unit: "",
        doc: "Loss intervals averaged to estimate p",
        source: "RFC 5348 §5.4 (n = 8); assumption (docs/deviations/4cp.md)",
    },
];

/// How tarp is set (the `tarp_mode` parameter; Ong 2020 §2.2.4: "can be a fixed target
/// or calculated dynamically").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TarpMode {
    Fixed,
    /// tarp += α·(f − cwnd)/cwnd once per RTT (Ong 2020 eq. 2.2).
    Adaptive,
}

/// 4CP's parameters. Ong 2020 §2.2.4 gives no values; the defaults are our assumptions,
/// argued in docs/deviations/4cp.md.
#[derive(Clone, Debug, PartialEq)]
pub struct FourCpConfig {
    /// `tarp`: target loss-event probability (the initial value in adaptive mode).
    /// Assumption 0.01.
    pub tarp: f64,
    /// `tarp_mode`: fixed (default) or adaptive (eq. 2.2).
    pub tarp_mode: TarpMode,
    /// `alpha`: α of eq. 2.2, the step of the adaptive tarp. Assumption 0.01.
    pub alpha: f64,
    /// `cwnd_avg_weight`: EWMA weight of f, "a moving average of the cwnd" (§2.2.4).
    /// Assumption 1/8.
    pub cwnd_avg_weight: f64,
    /// `tarp_min`: lower bound of the adaptive tarp. Assumption 1e-4.
    pub tarp_min: f64,
    /// `tarp_max`: upper bound of the adaptive tarp. Assumption 0.5.
    pub tarp_max: f64,
    /// `mincwnd`, packets: the lower bound of eq. 2.3. Assumption 2, Linux's minimum
    /// ssthresh.
    pub mincwnd: u64,
    /// `loss_intervals`: loss intervals averaged to estimate p. RFC 5348 §5.4 (n = 8).
    pub loss_intervals: usize,
}

impl Default for FourCpConfig {
    fn default() -> FourCpConfig {
        FourCpConfig {
            tarp: 0.01,
            tarp_mode: TarpMode::Fixed,
            alpha: 0.01,
            cwnd_avg_weight: 0.125,
            tarp_min: 1e-4,
            tarp_max: 0.5,
            mincwnd: 2,
            loss_intervals: 8,
        }
    }
}

impl TryFrom<&ParamSet> for FourCpConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<FourCpConfig, ParamError> {
        let r = p.reader("4cp");
        Ok(FourCpConfig {
            tarp: r.f64("tarp")?,
            tarp_mode: match r.choice("tarp_mode")? {
                "adaptive" => TarpMode::Adaptive,
                _ => TarpMode::Fixed,
            },
            alpha: r.f64("alpha")?,
            cwnd_avg_weight: r.f64("cwnd_avg_weight")?,
            tarp_min: r.f64("tarp_min")?,
            tarp_max: r.f64("tarp_max")?,
            mincwnd: r.u64("mincwnd")?,
            loss_intervals: r.usize("loss_intervals")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = FourCpConfig::try_from(p).expect("4cp: parameters resolved against PARAMS");
    Box::new(FourCp::new(&cfg, &init))
}

/// Loss-event rate from loss intervals (RFC 5348 §5.4, equal weights).
#[derive(Clone, Debug)]
pub struct LossRate {
    n: usize,
    /// Closed intervals in packets, newest first.
    closed: VecDeque<f64>,
    open: f64,
}

impl LossRate {
    pub fn new(n: usize) -> Self {
        LossRate {
            n: n.max(1),
            closed: VecDeque::new(),
            open: 0.0,
        }
    }

    pub fn on_delivered(&mut self, pkts: f64) {
        self.open += pkts;
    }

    pub fn on_loss_event(&mut self) {
        self.closed.push_front(self.open);
        self.closed.truncate(self.n);
        self.open = 0.0;
    }

    /// p = 1 / max(mean of the closed intervals, mean with the open one replacing the
    /// oldest); 0 before the first loss event.
    pub fn p(&self) -> f64 {
        if self.closed.is_empty() {
            return 0.0;
        }
        let k = self.closed.len() as f64;
        let mean_closed = self.closed.iter().sum::<f64>() / k;
        let with_open = if self.closed.len() < self.n {
            (self.closed.iter().sum::<f64>() + self.open) / (k + 1.0)
        } else {
            (self.closed.iter().take(self.n - 1).sum::<f64>() + self.open) / k
        };
        let mean = mean_closed.max(with_open);
        if mean <= 0.0 {
            1.0
        } else {
            (1.0 / mean).min(1.0)
        }
    }
}

#[derive(Clone, Debug)]
pub struct FourCp {
    /// Packets (fractional).
    cwnd: f64,
    ssthresh: f64,
    mss: u64,
    tarp: f64,
    adaptive: bool,
    alpha: f64,
    avg_w: f64,
    tarp_min: f64,
    tarp_max: f64,
    mincwnd: f64,
    loss: LossRate,
    /// f: the moving average of cwnd.
    cwnd_avg: Option<f64>,
    round_end: Option<u64>,
}

impl FourCp {
    pub fn new(cfg: &FourCpConfig, init: &CcInit) -> FourCp {
        let mss = init.mss.max(1);
        FourCp {
            cwnd: (init.initial_cwnd / mss).max(1) as f64,
            ssthresh: f64::INFINITY,
            mss,
            tarp: cfg.tarp,
            adaptive: cfg.tarp_mode == TarpMode::Adaptive,
            alpha: cfg.alpha,
            avg_w: cfg.cwnd_avg_weight,
            tarp_min: cfg.tarp_min,
            tarp_max: cfg.tarp_max,
            mincwnd: cfg.mincwnd as f64,
            loss: LossRate::new(cfg.loss_intervals),
            cwnd_avg: None,
            round_end: None,
        }
    }

    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }
    pub fn tarp(&self) -> f64 {
        self.tarp
    }
    pub fn p(&self) -> f64 {
        self.loss.p()
    }
    /// The bad phase: the loss-event probability is above the target.
    pub fn bad_phase(&self) -> bool {
        self.loss.p() > self.tarp
    }

    /// Once per RTT in adaptive mode: f ← (1 − w)·f + w·cwnd; tarp ← tarp + α·(f − cwnd)/cwnd
    /// (Ong 2020 eq. 2.2), within [tarp_min, tarp_max].
    pub fn adapt_tarp(&mut self) {
        let f = self.cwnd_avg.map_or(self.cwnd, |f| {
            (1.0 - self.avg_w) * f + self.avg_w * self.cwnd
        });
        self.cwnd_avg = Some(f);
        self.tarp = (self.tarp + self.alpha * (f - self.cwnd) / self.cwnd)
            .clamp(self.tarp_min, self.tarp_max);
    }
}

impl CongestionControl for FourCp {
    fn name(&self) -> &'static str {
        "4cp"
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        self.mss = ack.mss.max(1);
        let acked = ack.bytes_acked as f64 / self.mss as f64;
        self.loss.on_delivered(acked);
        match self.round_end {
            None => self.round_end = Some(ack.snd_nxt),
            Some(end) if ack.snd_una >= end => {
                self.round_end = Some(ack.snd_nxt);
                if self.adaptive {
                    self.adapt_tarp();
                }
            }
            Some(_) => {}
        }
        if ack.in_recovery || !ack.cwnd_limited || self.bad_phase() {
            return;
        }
        if self.cwnd < self.ssthresh {
            // Slow start (RFC 5681), up to ssthresh.
            let room = self.ssthresh - self.cwnd;
            let used = acked.min(room);
            self.cwnd += used;
            let left = acked - used;
            if left > 0.0 {
                self.cwnd += left / self.cwnd;
            }
        } else {
            // Ong 2020 §2.2.4: additive increase of 1/cwnd per acknowledged packet.
            self.cwnd += acked / self.cwnd;
        }
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        self.loss.on_loss_event();
        if self.bad_phase() {
            // Ong 2020 eq. 2.3: cwnd = max(cwnd − 1/(tarp·cwnd), mincwnd).
            self.cwnd = (self.cwnd - 1.0 / (self.tarp * self.cwnd)).max(self.mincwnd);
        } else {
            // TCP: halve (floored at two packets, Linux tcp_reno_ssthresh).
            self.cwnd = (self.cwnd / 2.0).max(2.0);
        }
        self.ssthresh = self.cwnd;
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.loss.on_loss_event();
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
        out.push(("p", self.loss.p()));
        out.push(("tarp", self.tarp));
        out.push(("bad_phase", if self.bad_phase() { 1.0 } else { 0.0 }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;

    fn make(cfg: FourCpConfig) -> FourCp {
        FourCp::new(
            &cfg,
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            FourCpConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            FourCpConfig::default()
        );
    }

    #[test]
    fn choice_words_map_to_their_variants() {
        use crate::params::RawParam;
        let v = RawParam::Text("adaptive".into());
        let p = INFO.resolve([("tarp_mode", &v)]).unwrap();
        assert_eq!(
            FourCpConfig::try_from(&p).unwrap(),
            FourCpConfig {
                tarp_mode: TarpMode::Adaptive,
                ..FourCpConfig::default()
            }
        );
    }

    fn ack(segs: u64) -> AckSample {
        AckSample {
            bytes_acked: segs * MSS,
            ..AckSample::empty(MSS)
        }
    }

    fn loss() -> CongestionEvent {
        CongestionEvent {
            kind: CongestionKind::Loss,
            bytes_in_flight: 0,
            bytes_lost: MSS,
            mss: MSS,
        }
    }

    #[test]
    fn loss_event_rate_from_intervals() {
        let mut l = LossRate::new(8);
        assert_eq!(l.p(), 0.0);
        l.on_delivered(100.0);
        l.on_loss_event();
        l.on_delivered(100.0);
        l.on_loss_event();
        // Closed {100, 100}, open 0: max(100, 200/3) = 100 → p = 0.01.
        assert_eq!(l.p(), 0.01);
        // Open interval 400: (100 + 100 + 400)/3 = 200 > 100 → p = 0.005.
        l.on_delivered(400.0);
        assert_eq!(l.p(), 0.005);
        // With n = 2 the open interval replaces the oldest: (100 + 400)/2 = 250 → 0.004.
        let mut l2 = LossRate::new(2);
        for _ in 0..3 {
            l2.on_delivered(100.0);
            l2.on_loss_event();
        }
        l2.on_delivered(400.0);
        assert_eq!(l2.p(), 0.004);
    }

    #[test]
    fn good_phase_is_tcp() {
        let mut c = make(FourCpConfig::default());
        // Slow start: 10 → 12.
        c.on_ack(Time(0), &ack(2));
        assert_eq!(c.cwnd_pkts(), 12.0);
        c.on_ack(Time(0), &ack(198)); // 12 + 198 = 210
                                      // The loss event closes an interval of 200 packets: p = 1/200 = 0.005 ≤ tarp
                                      // 0.01 → TCP halving: 210 → 105 = ssthresh.
        c.on_congestion(Time(0), &loss());
        assert_eq!((c.cwnd(), c.ssthresh()), (105 * MSS, 105 * MSS));
        // Then 1/cwnd per packet: 105 acknowledged packets add one.
        c.on_ack(Time(0), &ack(105));
        assert_eq!(c.cwnd_pkts(), 106.0);
    }

    #[test]
    fn bad_phase_follows_eq_2_3_and_does_not_grow() {
        let mut c = make(FourCpConfig {
            tarp: 0.01,
            ..FourCpConfig::default()
        });
        c.cwnd = 20.0;
        c.ssthresh = 20.0;
        // Intervals of 10 packets: p = 0.1 > 0.01 → bad phase.
        c.on_ack(Time(0), &ack(10));
        c.on_congestion(Time(0), &loss()); // first event: p = 1/10 → bad → eq. 2.3
                                           // cwnd was 20 + 10/20 = 20.5 (good phase AI before the event):
                                           // 20.5 − 1/(0.01·20.5) = 20.5 − 4.878… = 15.6219…
        assert!((c.cwnd_pkts() - (20.5 - 1.0 / 0.205)).abs() < 1e-12);
        assert!(c.bad_phase());
        let w = c.cwnd_pkts();
        c.on_ack(Time(0), &ack(5)); // open 5: p = 1/max(10, 7.5) = 0.1: still bad, no growth
        assert_eq!(c.cwnd_pkts(), w);
        // Small windows fall to mincwnd: 5 − 1/(0.01·5) = −15 → 2.
        c.cwnd = 5.0;
        c.on_congestion(Time(0), &loss());
        assert_eq!(c.cwnd_pkts(), 2.0);
        // At tarp = 0.2 the first event (p = 0.1) is in the good phase: halving 20.5.
        let mut g = make(FourCpConfig {
            tarp: 0.2,
            ..FourCpConfig::default()
        });
        g.cwnd = 20.0;
        g.ssthresh = 20.0;
        g.on_ack(Time(0), &ack(10));
        g.on_congestion(Time(0), &loss());
        assert_eq!(g.cwnd_pkts(), 10.25);
    }

    #[test]
    fn adaptive_tarp_eq_2_2() {
        let mut c = make(FourCpConfig {
            tarp_mode: TarpMode::Adaptive,
            alpha: 0.1,
            ..FourCpConfig::default()
        });
        c.cwnd_avg = Some(20.0);
        c.cwnd = 10.0;
        // f = 7/8·20 + 1/8·10 = 18.75; tarp = 0.01 + 0.1·(18.75 − 10)/10 = 0.0975.
        c.adapt_tarp();
        assert!((c.tarp() - 0.0975).abs() < 1e-15);
        // Above the average the target falls: f = 7/8·18.75 + 1/8·1000 = 141.40625;
        // tarp = 0.0975 + 0.1·(141.40625 − 1000)/1000 = 0.0975 − 0.085859375 = 0.011640625.
        c.cwnd = 1000.0;
        c.adapt_tarp();
        assert!((c.tarp() - 0.011640625).abs() < 1e-15);
        // Bounded by tarp_min = 1e-4: with α = 1 the step (248.7 − 1000)/1000 < −0.0116.
        c.alpha = 1.0;
        c.adapt_tarp();
        assert_eq!(c.tarp(), 1e-4);
        // Once per round through on_ack: first ACK starts the round, the second ends it.
        let mut d = make(FourCpConfig {
            tarp_mode: TarpMode::Adaptive,
            ..FourCpConfig::default()
        });
        d.on_ack(
            Time(0),
            &AckSample {
                snd_una: 0,
                snd_nxt: 5000,
                bytes_acked: 0,
                ..ack(0)
            },
        );
        d.cwnd_avg = Some(20.0);
        d.on_ack(
            Time(0),
            &AckSample {
                snd_una: 5000,
                snd_nxt: 9000,
                bytes_acked: 0,
                ..ack(0)
            },
        );
        // f = 17.5 + 1.25 = 18.75, cwnd 10: tarp = 0.01 + 0.01·0.875 = 0.01875.
        assert!((d.tarp() - 0.01875).abs() < 1e-15);
    }

    #[test]
    fn timeout() {
        let mut c = make(FourCpConfig::default());
        c.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 5 * MSS));
    }
}
