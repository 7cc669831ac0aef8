//! PCC Vivace (Dong et al., "PCC Vivace: Online-Learning Congestion Control", NSDI
//! 2018), the latency-aware variant Wang 2018 compares against (§2.3.2, §3.2, §5.3).
//!
//! The sender runs in monitor intervals (MIs) of about one RTT, each at a fixed rate,
//! and scores each MI once all its packets are acknowledged with the utility
//! `u(x) = x^t − b·x·dRTT/dT − c·x·L` (x in Mbit/s, t = 0.9, b = 900, c = 11.35; RTT
//! gradients below 0.01 in magnitude count as zero). Starting: the rate doubles every MI
//! until an MI's utility falls below its predecessor's, then the predecessor's rate is
//! kept. Online learning: two MIs at r(1+ε) and r(1−ε) (random order) give the gradient
//! γ = (u₊ − u₋)/(2εr); the rate moves by Δr = m·θ₀·γ, where the confidence amplifier m
//! counts consecutive decisions in the same direction, bounded by the dynamic change
//! boundary |Δr| ≤ ω·r with ω = ω₀ + k·δ and k the number of consecutive times the bound
//! was hit. Differences listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/vivace.md):
//! - monitor intervals defined on our packets: docs/deviations/vivace.md#vivace-monitor-intervals
//! - rate control details: docs/deviations/vivace.md#vivace-rate-control
//! - window and RTO: docs/deviations/vivace.md#vivace-window-rto
//! - the rate stays within reach of what was sent (a target at most `SENT_RATE_HEADROOM`
//!   times the fastest rate an MI actually sent): docs/deviations/vivace.md#vivace-rate-bound

use std::collections::VecDeque;

use crate::api::*;
use crate::estimators::receive_rate::LostBytes;
use crate::params::{ParamError, ParamSet, ParamSpec};
use crate::registry::AlgorithmInfo;
use crate::rng::Rng;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "vivace",
    aliases: &["pcc-vivace"],
    summary: "PCC Vivace: online gradient ascent on a throughput/latency-gradient/loss utility",
    source: "Dong et al., PCC Vivace, NSDI 2018 §3-4; Wang 2018 §2.3.2",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec::float(
        "utility_exponent",
        0.01,
        1.0,
        0.9,
        "",
        "t in x^t (0 < t < 1)",
        "Vivace §3 (Vivace-latency utility)",
    ),
    ParamSpec::float(
        "latency_coefficient",
        0.0,
        1e6,
        900.0,
        "",
        "b, weight of the RTT gradient",
        "Vivace §3",
    ),
    ParamSpec::float(
        "loss_coefficient",
        0.0,
        1e6,
        11.35,
        "",
        "c, weight of the loss rate",
        "Vivace §3",
    ),
    ParamSpec::float(
        "rtt_gradient_threshold",
        0.0,
        1.0,
        0.01,
        "",
        "RTT gradients of smaller magnitude count as zero (noise filter)",
        "Vivace §3; WebRTC PCC kDelayGradientThreshold",
    ),
    ParamSpec::float(
        "epsilon",
        0.001,
        0.5,
        0.05,
        "",
        "probing step: MIs at r(1+ε) and r(1−ε)",
        "Vivace §4",
    ),
    ParamSpec::float(
        "theta0",
        0.0,
        1e6,
        1.0,
        "Mbit/s per utility/(Mbit/s)",
        "initial conversion factor θ₀ from gradient to rate change",
        "Vivace §4; WebRTC PCC kInitialConversionFactor",
    ),
    ParamSpec::float(
        "boundary_initial",
        0.0,
        10.0,
        0.05,
        "",
        "ω₀, initial dynamic change boundary (fraction of the rate)",
        "Vivace §4; WebRTC PCC kInitialDynamicBoundary",
    ),
    ParamSpec::float(
        "boundary_increment",
        0.0,
        10.0,
        0.1,
        "",
        "δ, boundary increase per consecutive hit",
        "Vivace §4; WebRTC PCC kDynamicBoundaryIncrement",
    ),
    ParamSpec::float(
        "mi_rtts",
        0.1,
        10.0,
        1.0,
        "RTTs",
        "monitor interval length in smoothed RTTs",
        "Vivace §4 (MI ≈ one RTT)",
    ),
    ParamSpec::float(
        "cwnd_rtts",
        1.0,
        100.0,
        2.0,
        "RTTs",
        "in-flight guard: at most the rate times this many smoothed RTTs",
        "ours (Vivace is a UDP sender without a window)",
    ),
];

/// The target rate is at most this many times the fastest rate any monitor interval
/// actually sent (or the initial rate). Starting doubles an MI's rate as the previous one
/// ends, so a sender that keeps up runs 2× ahead of its last measurement; 4 leaves room
/// for an MI's packet count rounding. A sender held back by its window or its
/// application does not keep doubling a rate it never reaches
/// (docs/deviations/vivace.md#vivace-rate-bound).
pub const SENT_RATE_HEADROOM: f64 = 4.0;

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    // `INFO.resolve` checked every value against PARAMS, so the conversion cannot fail.
    let cfg = VivaceConfig::try_from(p).expect("vivace: parameters resolved against PARAMS");
    Box::new(Vivace::new(&cfg, init))
}

/// What a utility function sees of one finished monitor interval. The machinery here
/// (monitor intervals, starting, gradient ascent, the rate bound) is shared by every
/// PCC utility: Vivace's own and PCC Proteus's (`proteus.rs`).
#[derive(Clone, Copy, Debug)]
pub struct MiStats<'a> {
    /// The MI's target sending rate, Mbit/s (10^6 bit/s).
    pub rate_mbps: f64,
    /// Lost bytes over sent bytes, at most 1.
    pub loss: f64,
    /// (ACK time s, RTT s) of the RTT samples the MI received, in ACK order.
    pub rtts: &'a [(f64, f64)],
    /// The MI ran in the starting phase (rate doubling).
    pub starting: bool,
    /// The MI's planned length, s.
    pub duration_s: f64,
}

/// A PCC utility function: scores each finished monitor interval, in MI order. It may
/// keep state across MIs (Proteus's noise tolerance does).
pub trait MiUtility: Clone + std::fmt::Debug + Send {
    /// The registry name of the algorithm this utility makes.
    fn name(&self) -> &'static str;
    fn score(&mut self, mi: &MiStats) -> f64;
    /// Probing pairs per decision at base rate `rate_mbps` (Vivace: 1).
    fn probe_pairs(&self, _rate_mbps: f64) -> usize {
        1
    }
    /// With several pairs: whether `increases` of `pairs` pairs that favour the higher
    /// rate are enough to move (in the majority's direction).
    fn decides(&self, _increases: usize, _pairs: usize) -> bool {
        true
    }
    /// Extra trace variables of the utility.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Vivace-latency's utility (Vivace §3) with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct VivaceUtility {
    pub t: f64,
    pub b: f64,
    pub c: f64,
    pub threshold: f64,
}

impl MiUtility for VivaceUtility {
    fn name(&self) -> &'static str {
        "vivace"
    }
    fn score(&mut self, mi: &MiStats) -> f64 {
        utility(
            mi.rate_mbps,
            slope(mi.rtts),
            mi.loss,
            self.t,
            self.b,
            self.c,
            self.threshold,
        )
    }
}

/// PCC Vivace's parameters. Defaults: Dong et al., NSDI 2018 (Vivace) unless noted; the
/// same values as the `PARAMS` table.
#[derive(Clone, Debug, PartialEq)]
pub struct VivaceConfig {
    /// t in x^t (0 < t < 1): 0.9 (Vivace §3, Vivace-latency utility).
    pub utility_exponent: f64,
    /// b, weight of the RTT gradient: 900 (Vivace §3).
    pub latency_coefficient: f64,
    /// c, weight of the loss rate: 11.35 (Vivace §3).
    pub loss_coefficient: f64,
    /// RTT gradients of smaller magnitude count as zero: 0.01 (Vivace §3; WebRTC PCC
    /// kDelayGradientThreshold).
    pub rtt_gradient_threshold: f64,
    /// ε, probing step: MIs at r(1+ε) and r(1−ε): 0.05 (Vivace §4).
    pub epsilon: f64,
    /// θ₀, initial conversion factor from gradient to rate change, Mbit/s per
    /// utility/(Mbit/s): 1 (Vivace §4; WebRTC PCC kInitialConversionFactor).
    pub theta0: f64,
    /// ω₀, initial dynamic change boundary as a fraction of the rate: 0.05 (Vivace §4;
    /// WebRTC PCC kInitialDynamicBoundary).
    pub boundary_initial: f64,
    /// δ, boundary increase per consecutive hit: 0.1 (Vivace §4; WebRTC PCC
    /// kDynamicBoundaryIncrement).
    pub boundary_increment: f64,
    /// Monitor interval length in smoothed RTTs: 1 (Vivace §4, MI ≈ one RTT).
    pub mi_rtts: f64,
    /// In-flight guard: at most the rate times this many smoothed RTTs: 2 (ours; Vivace is
    /// a UDP sender without a window).
    pub cwnd_rtts: f64,
}

impl Default for VivaceConfig {
    fn default() -> VivaceConfig {
        VivaceConfig {
            utility_exponent: 0.9,
            latency_coefficient: 900.0,
            loss_coefficient: 11.35,
            rtt_gradient_threshold: 0.01,
            epsilon: 0.05,
            theta0: 1.0,
            boundary_initial: 0.05,
            boundary_increment: 0.1,
            mi_rtts: 1.0,
            cwnd_rtts: 2.0,
        }
    }
}

impl TryFrom<&ParamSet> for VivaceConfig {
    type Error = ParamError;
    /// The only place Vivace's parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<VivaceConfig, ParamError> {
        let r = p.reader("vivace");
        Ok(VivaceConfig {
            utility_exponent: r.f64("utility_exponent")?,
            latency_coefficient: r.f64("latency_coefficient")?,
            loss_coefficient: r.f64("loss_coefficient")?,
            rtt_gradient_threshold: r.f64("rtt_gradient_threshold")?,
            epsilon: r.f64("epsilon")?,
            theta0: r.f64("theta0")?,
            boundary_initial: r.f64("boundary_initial")?,
            boundary_increment: r.f64("boundary_increment")?,
            mi_rtts: r.f64("mi_rtts")?,
            cwnd_rtts: r.f64("cwnd_rtts")?,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MiKind {
    Start,
    Up,
    Down,
    Hold,
}

#[derive(Clone, Debug)]
struct Mi {
    kind: MiKind,
    epoch: u64,
    /// Sending rate, bytes/s.
    rate: f64,
    start: Time,
    end: Time,
    seq_lo: u64,
    seq_hi: u64,
    sent: u64,
    lost: u64,
    /// (ACK time s, RTT s).
    rtts: Vec<(f64, f64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VivaceState {
    Starting,
    Probing,
}

/// Vivace-latency utility (Vivace §3), x in Mbit/s.
pub fn utility(
    x_mbps: f64,
    rtt_gradient: f64,
    loss: f64,
    t: f64,
    b: f64,
    c: f64,
    threshold: f64,
) -> f64 {
    let g = if rtt_gradient.abs() < threshold {
        0.0
    } else {
        rtt_gradient
    };
    x_mbps.powf(t) - b * x_mbps * g - c * x_mbps * loss
}

/// Least-squares slope of y over x (0 with fewer than two distinct x).
pub fn slope(pts: &[(f64, f64)]) -> f64 {
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return 0.0;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    if sxx <= 0.0 {
        return 0.0;
    }
    pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx
}

/// One probing pair's (rate B/s, utility) at r(1+ε) and at r(1−ε).
type ProbePair = ((f64, f64), (f64, f64));

/// The PCC sender: Vivace's rate control around a utility `U` (Vivace's own by default).
#[derive(Clone, Debug)]
pub struct Vivace<U: MiUtility = VivaceUtility> {
    utility: U,
    epsilon: f64,
    theta0: f64,
    omega0: f64,
    omega_step: f64,
    mi_rtts: f64,
    cwnd_rtts: f64,
    mss: u64,
    initial_cwnd: u64,
    rng: Rng,
    state: VivaceState,
    /// Base rate r, bytes/s (`None` until the first RTT sample).
    rate: Option<f64>,
    mis: VecDeque<Mi>,
    epoch: u64,
    prev_start: Option<(f64, f64)>,
    probes_started: u8,
    first_up: bool,
    up: Option<(f64, f64)>,
    down: Option<(f64, f64)>,
    /// Probing pairs of this cycle and the (up, down) results of those finished.
    cycle_pairs: usize,
    pairs_done: Vec<ProbePair>,
    amplifier: f64,
    last_dir: Option<bool>,
    boundary_hits: u32,
    srtt: Option<Dur>,
    lost_bytes: LostBytes,
    lost_total: u64,
    last_utility: f64,
    /// The fastest rate an MI actually sent (its bytes over its length), bytes/s; `None`
    /// until the first MI ends. Bounds the target (`SENT_RATE_HEADROOM`).
    max_sent_rate: Option<f64>,
    /// The initial rate (one initial window per first RTT), bytes/s, 0 before the first
    /// RTT sample: the bound until an MI has measured a rate.
    initial_rate: f64,
}

impl Vivace {
    pub fn new(cfg: &VivaceConfig, init: CcInit) -> Vivace {
        let u = VivaceUtility {
            t: cfg.utility_exponent,
            b: cfg.latency_coefficient,
            c: cfg.loss_coefficient,
            threshold: cfg.rtt_gradient_threshold,
        };
        Vivace::with_utility(cfg, u, init)
    }
}

impl<U: MiUtility> Vivace<U> {
    /// Vivace's rate control (`cfg`'s ε, θ₀, ω₀, δ, MI length, window guard) scoring MIs
    /// with `utility`; `cfg`'s utility fields are not used.
    pub fn with_utility(cfg: &VivaceConfig, utility: U, init: CcInit) -> Vivace<U> {
        Vivace {
            utility,
            epsilon: cfg.epsilon,
            theta0: cfg.theta0,
            omega0: cfg.boundary_initial,
            omega_step: cfg.boundary_increment,
            mi_rtts: cfg.mi_rtts,
            cwnd_rtts: cfg.cwnd_rtts,
            mss: init.mss.max(1),
            initial_cwnd: init.initial_cwnd.max(init.mss),
            rng: init.rng,
            state: VivaceState::Starting,
            rate: None,
            mis: VecDeque::new(),
            epoch: 0,
            prev_start: None,
            probes_started: 0,
            first_up: true,
            up: None,
            down: None,
            cycle_pairs: 1,
            pairs_done: Vec::new(),
            amplifier: 0.0,
            last_dir: None,
            boundary_hits: 0,
            srtt: None,
            lost_bytes: LostBytes::default(),
            lost_total: 0,
            last_utility: 0.0,
            max_sent_rate: None,
            initial_rate: 0.0,
        }
    }

    pub fn state(&self) -> VivaceState {
        self.state
    }

    fn min_rate(&self) -> f64 {
        // Two packets per smoothed RTT.
        2.0 * self.mss as f64 / self.srtt.unwrap_or(Dur::from_millis(100)).secs_f64()
    }

    fn new_probe_cycle(&mut self) {
        self.epoch += 1;
        self.probes_started = 0;
        self.up = None;
        self.down = None;
        self.first_up = self.rng.chance(0.5);
        self.pairs_done.clear();
        let r_mbps = self.rate.map_or(0.0, |r| r * 8.0 / 1e6);
        self.cycle_pairs = self.utility.probe_pairs(r_mbps).max(1);
    }

    /// The rate the target is held near: the fastest an MI sent, or the initial rate
    /// before any MI has ended (docs/deviations/vivace.md#vivace-rate-bound); bytes/s.
    fn sent_rate_bound(&self) -> f64 {
        self.max_sent_rate.unwrap_or(self.initial_rate)
    }

    /// A target rate within reach of what was sent (`SENT_RATE_HEADROOM`).
    fn bounded(&self, rate: f64) -> f64 {
        let bound = self.sent_rate_bound();
        if bound > 0.0 {
            rate.min(SENT_RATE_HEADROOM * bound)
        } else {
            rate
        }
    }

    fn open_mi(&mut self, now: Time, seq: u64) {
        let (Some(r), Some(srtt)) = (self.rate, self.srtt) else {
            return;
        };
        // The previous MI has ended: what it sent over its length is final.
        if let Some(m) = self.mis.back() {
            let len = m.end.since(m.start).secs_f64();
            if len > 0.0 {
                // The first measured rate replaces the initial one (one initial window
                // per first RTT, which a tiny first RTT makes huge and nothing ever sent):
                // docs/deviations/vivace.md#vivace-rate-bound.
                let sent = m.sent as f64 / len;
                self.max_sent_rate = Some(self.max_sent_rate.map_or(sent, |m| m.max(sent)));
            }
        }
        let (kind, rate) = match self.state {
            VivaceState::Starting => {
                // Double the rate of the previous MI (the first MI runs at r).
                let last = self
                    .mis
                    .back()
                    .filter(|m| m.kind == MiKind::Start)
                    .map(|m| 2.0 * m.rate);
                (MiKind::Start, last.unwrap_or(r))
            }
            VivaceState::Probing if (self.probes_started as usize) < 2 * self.cycle_pairs => {
                let even = self.probes_started & 1 == 0;
                if self.probes_started > 0 && even {
                    // Each further pair draws its own order (PCC-Uspace pcc_sender.cpp).
                    self.first_up = self.rng.chance(0.5);
                }
                let up = even == self.first_up;
                self.probes_started += 1;
                if up {
                    (MiKind::Up, r * (1.0 + self.epsilon))
                } else {
                    (MiKind::Down, r * (1.0 - self.epsilon))
                }
            }
            VivaceState::Probing => (MiKind::Hold, r),
        };
        let rate = self.bounded(rate);
        let len = srtt
            .mul_f64(self.mi_rtts)
            .max(Dur::from_secs_f64(10.0 * self.mss as f64 / rate));
        self.mis.push_back(Mi {
            kind,
            epoch: self.epoch,
            rate,
            start: now,
            end: now + len,
            seq_lo: seq,
            seq_hi: seq,
            sent: 0,
            lost: 0,
            rtts: Vec::new(),
        });
    }

    /// One online-learning decision from the two probing MIs (Vivace §4).
    fn decide(&mut self, up: (f64, f64), down: (f64, f64)) {
        let to_mbps = |x: f64| x * 8.0 / 1e6;
        // γ = (u₊ − u₋) / (r₊ − r₋) = (u₊ − u₋) / (2εr), utility per Mbit/s.
        let gamma = (up.1 - down.1) / (to_mbps(up.0) - to_mbps(down.0));
        self.step(gamma);
    }

    /// A decision from several probing pairs (PCC-Uspace `CanMakeDecision`,
    /// `ComputeRateChange` in PROBING): the utility's rule says whether the pairs agree
    /// enough; if so the rate moves in the majority's direction with γ = the mean, over all
    /// pairs, of |u₊ − u₋| of the pairs on that side, over the first pair's rate gap.
    /// Otherwise nothing changes and probing starts again.
    fn decide_pairs(&mut self, pairs: &[ProbePair]) {
        let increases = pairs.iter().filter(|(u, d)| u.1 > d.1).count();
        if !self.utility.decides(increases, pairs.len()) {
            return;
        }
        let inc = increases > pairs.len() - increases;
        let du: f64 = pairs
            .iter()
            .filter(|(u, d)| (u.1 > d.1) == inc)
            .map(|(u, d)| (u.1 - d.1).abs())
            .sum::<f64>()
            / pairs.len() as f64;
        let (u0, d0) = pairs[0];
        let dr = (u0.0 - d0.0) * 8.0 / 1e6;
        self.step(if inc { du / dr } else { -du / dr });
    }

    /// Moves the rate by the gradient γ (utility per Mbit/s) with the confidence
    /// amplifier and the dynamic change boundary (Vivace §4).
    fn step(&mut self, gamma: f64) {
        let Some(r) = self.rate else { return };
        let to_mbps = |x: f64| x * 8.0 / 1e6;
        let dir = gamma >= 0.0;
        // Confidence amplifier: consecutive decisions in the same direction.
        if self.last_dir == Some(dir) {
            self.amplifier += 1.0;
        } else {
            self.amplifier = 1.0;
            self.boundary_hits = 0;
        }
        self.last_dir = Some(dir);
        let mut delta = self.amplifier * self.theta0 * gamma;
        // Dynamic change boundary ω = ω₀ + k·δ.
        let omega = self.omega0 + self.boundary_hits as f64 * self.omega_step;
        let r_mbps = to_mbps(r);
        if delta.abs() > omega * r_mbps {
            delta = delta.signum() * omega * r_mbps;
            self.boundary_hits += 1;
        } else {
            self.boundary_hits = 0;
        }
        self.rate = Some(
            self.bounded((r_mbps + delta) * 1e6 / 8.0)
                .max(self.min_rate()),
        );
    }

    fn mi_done(&mut self, mi: Mi) {
        let x = mi.rate * 8.0 / 1e6;
        let loss = if mi.sent == 0 {
            0.0
        } else {
            (mi.lost as f64 / mi.sent as f64).min(1.0)
        };
        let u = self.utility.score(&MiStats {
            rate_mbps: x,
            loss,
            rtts: &mi.rtts,
            starting: mi.kind == MiKind::Start,
            duration_s: mi.end.since(mi.start).secs_f64(),
        });
        self.last_utility = u;
        if mi.epoch != self.epoch {
            return;
        }
        match mi.kind {
            MiKind::Start => {
                if let Some((r0, u0)) = self.prev_start {
                    if u < u0 {
                        // Utility fell: keep the previous rate and start learning.
                        self.rate = Some(r0);
                        self.state = VivaceState::Probing;
                        self.new_probe_cycle();
                        return;
                    }
                }
                self.prev_start = Some((mi.rate, u));
                self.rate = Some(mi.rate);
            }
            MiKind::Up => self.up = Some((mi.rate, u)),
            MiKind::Down => self.down = Some((mi.rate, u)),
            MiKind::Hold => {}
        }
        if let (Some(up), Some(down)) = (self.up, self.down) {
            if self.cycle_pairs == 1 {
                self.decide(up, down);
                self.new_probe_cycle();
                return;
            }
            self.up = None;
            self.down = None;
            self.pairs_done.push((up, down));
            if self.pairs_done.len() >= self.cycle_pairs {
                let pairs = std::mem::take(&mut self.pairs_done);
                self.decide_pairs(&pairs);
                self.new_probe_cycle();
            }
        }
    }

    fn current_rate(&self) -> Option<f64> {
        self.mis.back().map(|m| m.rate).or(self.rate)
    }
}

impl<U: MiUtility + 'static> CongestionControl for Vivace<U> {
    fn name(&self) -> &'static str {
        self.utility.name()
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.srtt = Some(
                self.srtt
                    .map_or(rtt, |s| Dur((7 * s.nanos() + rtt.nanos()) / 8)),
            );
            if self.rate.is_none() {
                // Start at one initial window per RTT.
                let r0 = self.initial_cwnd as f64 / rtt.secs_f64();
                self.rate = Some(r0);
                self.initial_rate = r0;
            }
            let newest = ack.snd_una.saturating_sub(1);
            if let Some(mi) = self
                .mis
                .iter_mut()
                .find(|m| m.seq_lo <= newest && newest < m.seq_hi)
            {
                mi.rtts.push((now.secs_f64(), rtt.secs_f64()));
            }
        }
        let lost = self.lost_bytes.lost(ack);
        if lost > self.lost_total {
            let newly = lost - self.lost_total;
            self.lost_total = lost;
            // The first hole is at snd_una: charge the MI that holds it.
            let una = ack.snd_una;
            if let Some(mi) = self.mis.iter_mut().find(|m| una < m.seq_hi) {
                mi.lost += newly;
            }
        }
        // An MI is complete once it has ended and all its packets are acknowledged.
        while self.mis.len() > 1 || self.mis.front().is_some_and(|m| now >= m.end) {
            let done = self
                .mis
                .front()
                .is_some_and(|m| ack.snd_una >= m.seq_hi && (self.mis.len() > 1 || now >= m.end));
            if !done {
                break;
            }
            let mi = self.mis.pop_front().expect("front exists");
            self.mi_done(mi);
        }
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        // Losses enter only through the utility's loss term.
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.rate = self.rate.map(|r| (r / 2.0).max(self.min_rate()));
        self.mis.clear();
        self.state = VivaceState::Probing;
        self.new_probe_cycle();
    }

    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.lost_bytes.on_sent(sent.bytes);
        if sent.retransmission {
            return;
        }
        if self.mis.back().is_none_or(|m| now >= m.end) {
            self.open_mi(now, sent.seq);
        }
        if let Some(mi) = self.mis.back_mut() {
            if mi.seq_hi <= sent.seq {
                mi.seq_hi = sent.seq + sent.bytes;
                mi.sent += sent.bytes;
            }
        }
    }

    fn cwnd(&self) -> u64 {
        match (self.current_rate(), self.srtt) {
            (Some(r), Some(srtt)) => {
                ((r * self.cwnd_rtts * srtt.secs_f64()).ceil() as u64).max(4 * self.mss)
            }
            _ => self.initial_cwnd,
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        self.current_rate().map(|r| Rate((r * 8.0).round() as u64))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("rate_mbps", self.rate.map_or(0.0, |r| r * 8.0 / 1e6)));
        out.push((
            "mi_rate_mbps",
            self.current_rate().map_or(0.0, |r| r * 8.0 / 1e6),
        ));
        out.push(("utility", self.last_utility));
        out.push(("amplifier", self.amplifier));
        out.push(("boundary_hits", self.boundary_hits as f64));
        out.push((
            "probing",
            if self.state == VivaceState::Probing {
                1.0
            } else {
                0.0
            },
        ));
        self.utility.trace(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn vivace() -> Vivace {
        Vivace::new(
            &VivaceConfig::default(),
            CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(3),
            },
        )
    }

    fn mbps(x: f64) -> f64 {
        x * 1e6 / 8.0
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            VivaceConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            VivaceConfig::default()
        );
    }

    #[test]
    fn utility_terms() {
        let u = |x, g, l| utility(x, g, l, 0.9, 900.0, 11.35, 0.01);
        // 10^0.9 = 7.943282347242815.
        assert!((u(10.0, 0.0, 0.0) - 7.943282347242815).abs() < 1e-12);
        // Loss 10 %: − 11.35 · 10 · 0.1 = − 11.35.
        assert!((u(10.0, 0.0, 0.1) - (7.943282347242815 - 11.35)).abs() < 1e-12);
        // RTT gradient 0.02: − 900 · 10 · 0.02 = − 180.
        assert!((u(10.0, 0.02, 0.0) - (7.943282347242815 - 180.0)).abs() < 1e-9);
        // Below the 0.01 threshold the gradient is ignored; a negative one above it adds.
        assert_eq!(u(10.0, 0.005, 0.0), u(10.0, 0.0, 0.0));
        assert!((u(10.0, -0.02, 0.0) - (7.943282347242815 + 180.0)).abs() < 1e-9);
    }

    #[test]
    fn rtt_gradient_is_the_least_squares_slope() {
        // RTT 40, 41, 42 ms at 0, 0.1, 0.2 s: slope 0.01 s/s.
        let pts = [(0.0, 0.040), (0.1, 0.041), (0.2, 0.042)];
        assert!((slope(&pts) - 0.01).abs() < 1e-12);
        assert_eq!(slope(&pts[..1]), 0.0);
    }

    #[test]
    fn gradient_step_with_confidence_amplifier_and_dynamic_boundary() {
        let mut v = vivace();
        v.srtt = Some(Dur::from_millis(40));
        v.rate = Some(mbps(10.0));
        // ε = 0.05: probes at 10.5 and 9.5 Mbit/s; u₊ − u₋ = 0.3 → γ = 0.3 / 1.0.
        // m = 1: Δ = 0.3 ≤ ω₀ · r = 0.05 · 10 = 0.5 → r = 10.3.
        v.decide((mbps(10.5), 1.3), (mbps(9.5), 1.0));
        assert!((v.rate.unwrap() - mbps(10.3)).abs() < 1e-6);
        assert_eq!((v.amplifier, v.boundary_hits), (1.0, 0));
        // Same direction, γ = 0.3 again (probes 10.815 / 9.785, width 1.03 → u diff
        // 0.309): m = 2, Δ = 0.6 > 0.05 · 10.3 = 0.515 → clamped to 0.515, k = 1.
        v.decide((mbps(10.815), 1.309), (mbps(9.785), 1.0));
        assert!((v.rate.unwrap() - mbps(10.815)).abs() < 1e-6);
        assert_eq!((v.amplifier, v.boundary_hits), (2.0, 1));
        // m = 3, Δ = 0.9; ω = 0.05 + 0.1 = 0.15 → bound 1.62225: not hit, k = 0.
        v.decide((mbps(11.0), 1.3), (mbps(10.0), 1.0));
        assert!((v.rate.unwrap() - mbps(11.715)).abs() < 1e-6);
        assert_eq!((v.amplifier, v.boundary_hits), (3.0, 0));
        // Direction change: m = 1, Δ = −0.3 → 11.415.
        v.decide((mbps(11.0), 1.0), (mbps(10.0), 1.3));
        assert!((v.rate.unwrap() - mbps(11.415)).abs() < 1e-6);
        assert_eq!(v.amplifier, 1.0);
    }

    /// Several probing pairs (Proteus's rule, PCC-Uspace `CanMakeDecision` /
    /// `ComputeRateChange`): a scavenger moves only when both pairs agree, with γ the
    /// mean over the pairs of |u₊ − u₋| on the agreeing side over the first pair's gap.
    #[test]
    fn several_probing_pairs_move_only_when_the_utility_rule_agrees() {
        use crate::algorithms::proteus::{Mode, ProteusConfig, ProteusUtility};
        let sender = |mode| {
            let u = ProteusUtility::new(ProteusConfig {
                mode,
                ..ProteusConfig::default()
            });
            let mut v = Vivace::with_utility(
                &VivaceConfig::default(),
                u,
                CcInit {
                    now: Time(0),
                    mss: MSS,
                    initial_cwnd: 10 * MSS,
                    rng: Rng::new(3),
                },
            );
            v.srtt = Some(Dur::from_millis(40));
            v.rate = Some(mbps(10.0));
            v
        };
        let up = |u| (mbps(10.5), u);
        let down = |u| (mbps(9.5), u);
        // Scavenger, both pairs favour the higher rate: γ = (0.3 + 0.2)/2 / 1.0 = 0.25,
        // m = 1, within ω₀·r = 0.5 → 10.25 Mbit/s.
        let mut s = sender(Mode::Scavenger);
        s.decide_pairs(&[(up(1.3), down(1.0)), (up(1.2), down(1.0))]);
        assert!((s.rate.unwrap() - mbps(10.25)).abs() < 1e-6);
        // The pairs disagree: no move.
        let mut s = sender(Mode::Scavenger);
        s.decide_pairs(&[(up(1.3), down(1.0)), (up(0.9), down(1.0))]);
        assert_eq!(s.rate, Some(mbps(10.0)));
        // Both favour the lower rate: γ = −(0.3 + 0.1)/2 = −0.2 → 9.8 Mbit/s.
        let mut s = sender(Mode::Scavenger);
        s.decide_pairs(&[(up(1.0), down(1.3)), (up(1.0), down(1.1))]);
        assert!((s.rate.unwrap() - mbps(9.8)).abs() < 1e-6);
        // Primary, 2 of 3 favour the higher rate: γ = (0.3 + 0.2)/3 → 10.1667 Mbit/s.
        let mut p = sender(Mode::Primary);
        p.decide_pairs(&[
            (up(1.3), down(1.0)),
            (up(1.2), down(1.0)),
            (up(0.9), down(1.0)),
        ]);
        assert!((p.rate.unwrap() - mbps(10.0 + 0.5 / 3.0)).abs() < 1e-6);
        // Primary, 2 of 3 favour the lower rate: not all three, no move.
        let mut p = sender(Mode::Primary);
        p.decide_pairs(&[
            (up(1.0), down(1.3)),
            (up(1.0), down(1.2)),
            (up(1.1), down(1.0)),
        ]);
        assert_eq!(p.rate, Some(mbps(10.0)));
        // The cycle's pair count comes from the utility: 2 (scavenger), 3 (primary),
        // Proteus-H by its higher probing rate against the threshold.
        let mut h = sender(Mode::Hybrid(10.0));
        h.new_probe_cycle();
        assert_eq!(h.cycle_pairs, 2); // 10 · 1.05 > 10
        h.rate = Some(mbps(9.0));
        h.new_probe_cycle();
        assert_eq!(h.cycle_pairs, 3); // 9.45 ≤ 10
        assert_eq!(vivace().cycle_pairs, 1);
    }

    fn mi(
        kind: MiKind,
        epoch: u64,
        rate_mbps: f64,
        rtts: Vec<(f64, f64)>,
        sent: u64,
        lost: u64,
    ) -> Mi {
        Mi {
            kind,
            epoch,
            rate: mbps(rate_mbps),
            start: Time(0),
            end: Time(0),
            seq_lo: 0,
            seq_hi: 0,
            sent,
            lost,
            rtts,
        }
    }

    #[test]
    fn starting_doubles_until_utility_falls_then_probes_around_the_previous_rate() {
        let mut v = vivace();
        v.srtt = Some(Dur::from_millis(40));
        v.rate = Some(mbps(2.0));
        let flat = vec![(0.0, 0.04), (0.04, 0.04)];
        v.mi_done(mi(MiKind::Start, 0, 2.0, flat.clone(), 100, 0));
        v.mi_done(mi(MiKind::Start, 0, 4.0, flat.clone(), 100, 0));
        assert_eq!(
            (v.state(), v.prev_start.map(|p| p.0)),
            (VivaceState::Starting, Some(mbps(4.0)))
        );
        // 8 Mbit/s with 10 % loss: 8^0.9 − 11.35 · 8 · 0.1 = 6.498 − 9.08 < 4^0.9 = 3.482.
        v.mi_done(mi(MiKind::Start, 0, 8.0, flat.clone(), 100, 10));
        assert_eq!((v.state(), v.rate), (VivaceState::Probing, Some(mbps(4.0))));
        assert_eq!(v.epoch, 1);
        // A stale start MI from epoch 0 is ignored.
        v.mi_done(mi(MiKind::Start, 0, 16.0, flat.clone(), 100, 0));
        assert_eq!(v.rate, Some(mbps(4.0)));
        // Probing pair (epoch 1): 4.2 and 3.8 Mbit/s, no loss, flat RTT:
        // γ = (4.2^0.9 − 3.8^0.9) / 0.4 = 0.7835; Δ = γ (m = 1) exceeds the bound
        // ω₀ · r = 0.05 · 4 = 0.2 → r = 4.2 Mbit/s, k = 1.
        v.mi_done(mi(MiKind::Up, 1, 4.2, flat.clone(), 100, 0));
        v.mi_done(mi(MiKind::Down, 1, 3.8, flat, 100, 0));
        let gamma = (4.2f64.powf(0.9) - 3.8f64.powf(0.9)) / 0.4;
        assert!((gamma - 0.7835).abs() < 1e-4);
        assert!((v.rate.unwrap() - mbps(4.2)).abs() < 1e-6);
        assert_eq!((v.boundary_hits, v.epoch), (1, 2));
    }

    #[test]
    fn monitor_intervals_follow_sends_and_complete_on_acks() {
        let mut v = vivace();
        // First RTT sample (40 ms) sets r = 10 000 B / 0.04 s = 250 000 B/s.
        v.on_ack(
            Time(40_000_000),
            &AckSample {
                rtt: Some(Dur::from_millis(40)),
                ..AckSample::empty(MSS)
            },
        );
        assert_eq!(v.rate, Some(250_000.0));
        // Sends at 40..79 ms open one start MI (length max(40 ms, 10 packets at
        // 250 kB/s = 40 ms) = 40 ms, ending at 80 ms); the send at 80 ms opens the next
        // one at twice the rate.
        for i in 0..10u64 {
            v.on_sent(
                Time((40 + 4 * i) * 1_000_000),
                &SentInfo {
                    bytes: MSS,
                    bytes_in_flight: (i + 1) * MSS,
                    retransmission: false,
                    seq: i * MSS,
                    app_limited: false,
                },
            );
        }
        v.on_sent(
            Time(80_000_000),
            &SentInfo {
                bytes: MSS,
                bytes_in_flight: MSS,
                retransmission: false,
                seq: 10 * MSS,
                app_limited: false,
            },
        );
        assert_eq!(v.mis.len(), 2);
        assert_eq!(
            (v.mis[0].seq_lo, v.mis[0].seq_hi, v.mis[0].sent),
            (0, 10 * MSS, 10 * MSS)
        );
        assert_eq!(v.mis[1].rate, 500_000.0);
        assert_eq!(v.pacing_rate(), Some(Rate(4_000_000)));
        // The ACK covering the first MI completes it: x = 2 Mbit/s, no loss, one RTT
        // sample → u = 2^0.9 = 1.8660659830736148.
        let a = AckSample {
            rtt: Some(Dur::from_millis(40)),
            snd_una: 10 * MSS,
            delivered: 10 * MSS,
            bytes_in_flight: MSS,
            bytes_acked: 10 * MSS,
            ..AckSample::empty(MSS)
        };
        v.on_ack(Time(120_000_000), &a);
        assert_eq!(v.mis.len(), 1);
        assert!((v.last_utility - 1.8660659830736148).abs() < 1e-12);
        assert_eq!(v.prev_start, Some((250_000.0, v.last_utility)));
    }

    /// The fuzz finding of issue 23 (docs/fuzzing.md): a sender that cannot send at
    /// Vivace's rate (here two packets per 50 ms, window- or application-limited) with a
    /// flat RTT and no loss. Each round's ACK completes the previous round's start MI,
    /// whose utility, scored at its target rate, keeps rising, so the rate used to double
    /// every MI without bound: after 40 MIs 2^40 × 250 kB/s and a window of terabytes.
    /// Now the target stays within `SENT_RATE_HEADROOM` × the fastest rate an MI sent:
    /// the initial 250 kB/s until the first MI ends, then what MIs sent (2 kB per MI of
    /// 25-50 ms), so under 400 kB/s and a window of at most 2 × 400 kB/s × 40 ms.
    #[test]
    fn a_rate_the_sender_never_reaches_does_not_keep_doubling() {
        let mut v = vivace();
        let rtt = Dur::from_millis(40);
        // The first RTT sample sets r = 10 packets per 40 ms = 250 kB/s.
        v.on_ack(
            Time(0),
            &AckSample {
                rtt: Some(rtt),
                ..AckSample::empty(MSS)
            },
        );
        let mut seq = 0u64;
        for round in 1..=40u64 {
            let t = Time(round * 50_000_000);
            // Two new packets open this round's MI (the previous one ended at +40 ms)...
            for _ in 0..2 {
                v.on_sent(
                    t,
                    &SentInfo {
                        bytes: MSS,
                        bytes_in_flight: 4 * MSS,
                        retransmission: false,
                        seq,
                        app_limited: false,
                    },
                );
                seq += MSS;
            }
            // ...then the ACK of the previous round's two completes the previous MI.
            let una = seq - 2 * MSS;
            v.on_ack(
                t + Dur::from_millis(1),
                &AckSample {
                    rtt: (round > 1).then_some(rtt),
                    snd_una: una,
                    delivered: una,
                    bytes_acked: if round > 1 { 2 * MSS } else { 0 },
                    bytes_in_flight: 2 * MSS,
                    prior_in_flight: 4 * MSS,
                    ..AckSample::empty(MSS)
                },
            );
            let r = v.pacing_rate().map_or(0, |r| r.bps()) as f64 / 8.0;
            assert!(r <= 4.0 * 250_000.0, "round {round}: rate {r} B/s");
            // Once an MI has ended, the rates MIs measured (2 packets per MI: 40-80 kB/s)
            // replace the initial 250 kB/s in the bound; with the initial rate kept in it,
            // Starting climbed to 1 MB/s.
            if round >= 3 {
                assert!(
                    v.sent_rate_bound() < 100_000.0,
                    "round {round}: {}",
                    v.sent_rate_bound()
                );
                assert!(
                    r <= 4.0 * v.sent_rate_bound() + 1.0,
                    "round {round}: rate {r} B/s"
                );
            }
        }
        assert!(v.cwnd() <= 2 * 400_000 * 40 / 1000, "cwnd {}", v.cwnd());
    }
}
