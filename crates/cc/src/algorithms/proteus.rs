//! PCC Proteus (Meng, Rozen Schiff, Godfrey, Schapira, "PCC Proteus: Scavenger Transport
//! And Beyond", SIGCOMM 2020): Vivace's online-learning rate control (`vivace.rs`, reused
//! through its `MiUtility` hooks) with Proteus's utilities and its RTT-noise tolerance.
//!
//! - Proteus-S (scavenger): u = x^0.9 − b·x·max(0, dRTT/dt) − c·x·L − d·x·σ(RTT), with
//!   x in Mbit/s, b = 900, c = 11.35, d = 0.0015 per µs of RTT standard deviation in the
//!   MI (authors' code `pcc_utility_manager.cpp`, CalculateUtilityScavenger).
//!   The deviation term is the paper's "latency deviation as a signal of competition".
//! - Proteus-P (primary): the same without the deviation term (CalculateUtilityVivace).
//! - Proteus-H (hybrid): primary below a rate threshold, scavenger above it
//!   (CalculateUtilityHybrid).
//!
//! Decisions (authors' code `CanMakeDecision`): a scavenger probes 2 pairs of MIs and
//! moves only when both agree; a primary probes 3 and moves up on a majority, down only
//! when all 3 say so.
//!
//! Noise tolerance (the paper's "noise tolerance"; `PrepareStatistics` in the authors' code): the RTT gradient
//! and deviation of an MI count only when they stand out of the noise: (1) the MI's RTT
//! regression must fit better than the slope it reports (RMS residual / mean RTT <
//! |gradient|); (2) over the last 6 MIs' mean RTTs a trend line is fitted and its slope
//! compared with a running mean ± 2 running deviations; (3) an MI's RTT deviation above
//! the running mean + 4 running deviations (and above 1 ms) counts in any case. While
//! starting, the deviation never counts and a gradient whose change over the MI is under
//! 1 ms is ignored.
//!
//! Differences from the source (the reasoning is in docs/deviations/proteus.md):
//! - probing pairs and their agreement rule: docs/deviations/proteus.md#proteus-probing-pairs
//! - MI statistics from our Vivace MIs (target rate, RTT over ACK time, every sample
//!   reliable): docs/deviations/proteus.md#proteus-mi-statistics
//! - Proteus-H's threshold default: docs/deviations/proteus.md#proteus-hybrid-threshold

use std::collections::VecDeque;

use crate::api::*;
use crate::params::{ParamError, ParamSet, ParamSpec};
use crate::registry::AlgorithmInfo;

use super::vivace::{MiStats, MiUtility, Vivace, VivaceConfig};

pub static SCAVENGER: AlgorithmInfo = AlgorithmInfo {
    name: "proteus-s",
    aliases: &["pcc-proteus-s", "proteus"],
    summary:
        "PCC Proteus-S: Vivace's rate control with a scavenger utility (RTT deviation penalty)",
    source: "Meng et al., PCC Proteus, SIGCOMM 2020; PCC-Uspace pcc_utility_manager.cpp",
    params: PARAMS,
    build: build_s,
};

pub static PRIMARY: AlgorithmInfo = AlgorithmInfo {
    name: "proteus-p",
    aliases: &["pcc-proteus-p"],
    summary: "PCC Proteus-P: Vivace's utility with Proteus's RTT-noise tolerance",
    source: "Meng et al., PCC Proteus, SIGCOMM 2020; PCC-Uspace pcc_utility_manager.cpp",
    params: PARAMS,
    build: build_p,
};

pub static HYBRID: AlgorithmInfo = AlgorithmInfo {
    name: "proteus-h",
    aliases: &["pcc-proteus-h"],
    summary: "PCC Proteus-H: primary utility below a rate threshold, scavenger above it",
    source:
        "Meng et al., PCC Proteus, SIGCOMM 2020 (hybrid mode); PCC-Uspace pcc_utility_manager.cpp",
    params: PARAMS_H,
    build: build_h,
};

const EXPONENT: ParamSpec = ParamSpec::float(
    "utility_exponent",
    0.0,
    1.0,
    0.9,
    "",
    "t in x^t",
    "PCC-Uspace pcc_utility_manager.cpp kSendingRateExponent",
);
const LATENCY: ParamSpec = ParamSpec::float(
    "latency_coefficient",
    0.0,
    1e6,
    900.0,
    "",
    "b, weight of the (positive) RTT gradient",
    "PCC-Uspace kLatencyCoefficient",
);
const LOSS: ParamSpec = ParamSpec::float(
    "loss_coefficient",
    0.0,
    1e6,
    11.35,
    "",
    "c, weight of the loss rate",
    "PCC-Uspace kVivaceLossCoefficient",
);
const DEVIATION: ParamSpec = ParamSpec::float(
    "rtt_deviation_coefficient",
    0.0,
    1.0,
    0.0015,
    "per µs",
    "d, weight of the MI's RTT standard deviation (µs) in the scavenger utility",
    "PCC-Uspace kRttDeviationCoefficient; `pccclient ... Vivace Scavenger 0.0015`",
);

static PARAMS: &[ParamSpec] = &[EXPONENT, LATENCY, LOSS, DEVIATION];
static PARAMS_H: &[ParamSpec] = &[
    EXPONENT,
    LATENCY,
    LOSS,
    DEVIATION,
    ParamSpec::float(
        "hybrid_threshold_mbps",
        0.0,
        1e5,
        10.0,
        "Mbit/s",
        "Proteus-H: primary utility below this sending rate, scavenger above",
        "Meng et al. 2020 (hybrid mode: a per-flow threshold); the default is ours",
    ),
];

/// Which of Proteus's utilities.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Scavenger,
    Primary,
    /// Primary below this rate (Mbit/s), scavenger at or above it.
    Hybrid(f64),
}

/// Proteus's utility parameters. Defaults: the authors' code (PCC-Uspace commit 2ca1811,
/// `src/pcc/pcc_utility_manager.cpp`).
#[derive(Clone, Debug, PartialEq)]
pub struct ProteusConfig {
    pub mode: Mode,
    /// t in x^t: 0.9 (kSendingRateExponent).
    pub utility_exponent: f64,
    /// b, weight of the positive RTT gradient: 900 (kLatencyCoefficient).
    pub latency_coefficient: f64,
    /// c, weight of the loss rate: 11.35 (kVivaceLossCoefficient).
    pub loss_coefficient: f64,
    /// d, weight of the RTT standard deviation in µs: 0.0015 (kRttDeviationCoefficient,
    /// the value the code's usage line passes).
    pub rtt_deviation_coefficient: f64,
}

impl Default for ProteusConfig {
    fn default() -> ProteusConfig {
        ProteusConfig {
            mode: Mode::Scavenger,
            utility_exponent: 0.9,
            latency_coefficient: 900.0,
            loss_coefficient: 11.35,
            rtt_deviation_coefficient: 0.0015,
        }
    }
}

impl ProteusConfig {
    /// The only place Proteus's parameter names are looked up.
    fn from_params(p: &ParamSet, name: &'static str, mode: Mode) -> Result<Self, ParamError> {
        let r = p.reader(name);
        let mode = match mode {
            Mode::Hybrid(_) => Mode::Hybrid(r.f64("hybrid_threshold_mbps")?),
            m => m,
        };
        Ok(ProteusConfig {
            mode,
            utility_exponent: r.f64("utility_exponent")?,
            latency_coefficient: r.f64("latency_coefficient")?,
            loss_coefficient: r.f64("loss_coefficient")?,
            rtt_deviation_coefficient: r.f64("rtt_deviation_coefficient")?,
        })
    }
}

fn build_with(
    p: &ParamSet,
    init: CcInit,
    name: &'static str,
    mode: Mode,
) -> Box<dyn CongestionControl> {
    // The registry resolved every value against the table, so the lookup cannot fail.
    let cfg = ProteusConfig::from_params(p, name, mode).expect("proteus: parameters resolved");
    Box::new(proteus(&cfg, init))
}

fn build_s(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    build_with(p, init, "proteus-s", Mode::Scavenger)
}
fn build_p(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    build_with(p, init, "proteus-p", Mode::Primary)
}
fn build_h(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    build_with(p, init, "proteus-h", Mode::Hybrid(0.0))
}

/// A Proteus sender: Vivace's rate control with default ε, θ₀, ω₀, δ, MI length and
/// window guard (the code's kProbingStepSize 0.05 is Vivace's ε), scoring with Proteus.
pub fn proteus(cfg: &ProteusConfig, init: CcInit) -> Vivace<ProteusUtility> {
    Vivace::with_utility(
        &VivaceConfig::default(),
        ProteusUtility::new(cfg.clone()),
        init,
    )
}

/// Probing pairs per decision: a scavenger's (kNumIntervalGroupsInProbingScavenger) and
/// a primary's (kNumIntervalGroupsInProbingPrimary).
pub const SCAVENGER_PAIRS: usize = 2;
pub const PRIMARY_PAIRS: usize = 3;
/// Vivace's probing step ε (the code's kProbingStepSize), for Proteus-H's switch.
const EPSILON: f64 = 0.05;

/// MIs of RTT history for the trend tests (kRttHistoryLen).
pub const RTT_HISTORY: usize = 6;
/// Update weight of the running means and deviations (kAlpha).
pub const ALPHA: f64 = 0.1;
/// A trend slope below the smallest one seen / BETA restarts the trend statistics (kBeta).
pub const BETA: f64 = 100.0;
/// Running deviations either side of the mean trend slope that count as noise
/// (kInflationToleranceGainHigh = kInflationToleranceGainLow = 2).
pub const TREND_GAIN: f64 = 2.0;
/// Running deviations above the mean RTT deviation that count as a signal (the literal 4.0
/// in DetermineToleranceDeviation).
pub const DEVIATION_GAIN: f64 = 4.0;
/// An MI's RTT deviation counts as a signal only above this, µs (the literal 1000).
pub const DEVIATION_FLOOR_US: f64 = 1000.0;
/// The share of recent MIs flagged as fluctuating above which the deviation statistics
/// restart (kTrendingResetIntervalRatio).
pub const RESET_RATIO: f64 = 0.95;
/// While starting, a gradient whose RTT change over the MI is below this many µs is
/// ignored (`1000.0 / interval_duration`, with the tolerance ratio 100 > 50 in STARTING).
pub const STARTING_GRADIENT_US: f64 = 1000.0;

/// One MI's RTT statistics (the code's `interval_stats_`), RTTs in µs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RttStats {
    /// Least-squares slope of RTT over ACK time, s/s (dimensionless).
    pub gradient: f64,
    /// RMS residual of that fit over the mean RTT (ComputeRttGradientError).
    pub gradient_error: f64,
    /// Mean RTT, µs.
    pub avg_rtt_us: f64,
    /// Population standard deviation of the RTTs, µs (ComputeRttDeviation).
    pub rtt_dev_us: f64,
    pub samples: usize,
}

/// Least-squares fit y = a + s·x: (s, a); (0, mean y) with fewer than two distinct x.
fn fit(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    if pts.is_empty() {
        return (0.0, 0.0);
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    if sxx <= 0.0 {
        return (0.0, my);
    }
    let s = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx;
    (s, my - s * mx)
}

impl RttStats {
    /// From (ACK time s, RTT s) samples. With fewer than two samples everything is 0
    /// (the code needs two reliable samples for a gradient and a deviation).
    pub fn of(rtts: &[(f64, f64)]) -> RttStats {
        if rtts.len() < 2 {
            return RttStats {
                samples: rtts.len(),
                ..RttStats::default()
            };
        }
        let n = rtts.len() as f64;
        let (s, a) = fit(rtts);
        let avg = rtts.iter().map(|p| p.1).sum::<f64>() / n;
        let rss: f64 = rtts.iter().map(|p| (p.1 - (a + s * p.0)).powi(2)).sum();
        let var: f64 = rtts.iter().map(|p| (p.1 - avg).powi(2)).sum::<f64>() / n;
        RttStats {
            gradient: s,
            gradient_error: if avg > 0.0 {
                (rss / n).sqrt() / avg
            } else {
                0.0
            },
            avg_rtt_us: avg * 1e6,
            rtt_dev_us: var.sqrt() * 1e6,
            samples: rtts.len(),
        }
    }
}

/// Proteus's utility and the noise-tolerance state it keeps across MIs.
#[derive(Clone, Debug)]
pub struct ProteusUtility {
    cfg: ProteusConfig,
    avg_rtt_history: VecDeque<f64>,
    dev_history: VecDeque<f64>,
    /// Running mean and deviation of the MI RTT deviation, µs (−1: unset).
    avg_mi_rtt_dev: f64,
    dev_mi_rtt_dev: f64,
    /// Trend statistics, µs of mean RTT per MI (min −1: unset).
    avg_trend: f64,
    min_trend: f64,
    dev_trend: f64,
    last_trend: f64,
    ratio_inflated: f64,
    ratio_fluctuated: f64,
    inflation_tolerable: bool,
    dev_tolerable: bool,
    /// The last MI's statistics, for traces and tests.
    last: RttStats,
    last_trend_slope: f64,
}

impl ProteusUtility {
    pub fn new(cfg: ProteusConfig) -> ProteusUtility {
        ProteusUtility {
            cfg,
            avg_rtt_history: VecDeque::new(),
            dev_history: VecDeque::new(),
            avg_mi_rtt_dev: -1.0,
            dev_mi_rtt_dev: -1.0,
            avg_trend: -1.0,
            min_trend: -1.0,
            dev_trend: -1.0,
            last_trend: -1.0,
            ratio_inflated: 0.0,
            ratio_fluctuated: 0.0,
            inflation_tolerable: true,
            dev_tolerable: true,
            last: RttStats::default(),
            last_trend_slope: 0.0,
        }
    }

    /// The noise tests for one MI (PrepareStatistics): sets whether its gradient and its
    /// deviation count.
    pub fn tolerance(&mut self, st: &RttStats) {
        // DetermineToleranceGeneral: a gradient that the regression's own error explains
        // is noise, and so is the deviation then.
        let signal = st.gradient_error < st.gradient.abs();
        self.inflation_tolerable = !signal;
        self.dev_tolerable = !signal;
        // ProcessRttTrend: needs two samples in the MI.
        if st.samples < 2 {
            return;
        }
        self.avg_rtt_history.push_back(st.avg_rtt_us);
        self.dev_history.push_back(st.rtt_dev_us);
        if self.avg_rtt_history.len() > RTT_HISTORY {
            self.avg_rtt_history.pop_front();
        }
        if self.dev_history.len() > RTT_HISTORY {
            self.dev_history.pop_front();
        }
        if self.avg_rtt_history.len() >= RTT_HISTORY {
            let pts: Vec<(f64, f64)> = self
                .avg_rtt_history
                .iter()
                .enumerate()
                .map(|(i, &y)| (i as f64, y))
                .collect();
            let trend = fit(&pts).0;
            self.last_trend_slope = trend;
            self.inflation(trend);
        }
        if self.dev_history.len() >= RTT_HISTORY {
            self.deviation(st.rtt_dev_us);
        }
    }

    /// DetermineToleranceInflation: the trend of the last 6 MIs' mean RTT (µs per MI)
    /// against its running mean ± 2 running deviations.
    fn inflation(&mut self, trend: f64) {
        self.ratio_inflated *= 1.0 - ALPHA;
        if self.min_trend < 0.000001 || trend.abs() < self.min_trend / BETA {
            self.avg_trend = 0.0;
            self.min_trend = trend.abs();
            self.dev_trend = trend.abs();
            self.last_trend = trend;
            return;
        }
        let hi = self.avg_trend + TREND_GAIN * self.dev_trend;
        let lo = self.avg_trend - TREND_GAIN * self.dev_trend;
        if trend < lo || trend > hi {
            if trend > 0.0 {
                self.inflation_tolerable = false;
            }
            self.dev_tolerable = false;
            self.ratio_inflated += ALPHA;
        } else {
            self.dev_trend =
                self.dev_trend * (1.0 - ALPHA) + (trend - self.last_trend).abs() * ALPHA;
            self.avg_trend = self.avg_trend * (1.0 - ALPHA) + trend * ALPHA;
            self.last_trend = trend;
        }
        self.min_trend = self.min_trend.min(trend.abs());
    }

    /// DetermineToleranceDeviation: an MI's RTT deviation far above its running mean.
    fn deviation(&mut self, dev_us: f64) {
        self.ratio_fluctuated *= 1.0 - ALPHA;
        if self.avg_mi_rtt_dev < 0.000001 {
            self.avg_mi_rtt_dev = dev_us;
            self.dev_mi_rtt_dev = 0.5 * dev_us;
        } else if dev_us > self.avg_mi_rtt_dev + self.dev_mi_rtt_dev * DEVIATION_GAIN
            && dev_us > DEVIATION_FLOOR_US
        {
            self.dev_tolerable = false;
            self.ratio_fluctuated += ALPHA;
        } else {
            self.dev_mi_rtt_dev =
                self.dev_mi_rtt_dev * (1.0 - ALPHA) + (dev_us - self.avg_mi_rtt_dev).abs() * ALPHA;
            self.avg_mi_rtt_dev = self.avg_mi_rtt_dev * (1.0 - ALPHA) + dev_us * ALPHA;
        }
        if self.ratio_fluctuated > RESET_RATIO {
            self.avg_mi_rtt_dev = -1.0;
            self.dev_mi_rtt_dev = -1.0;
            self.ratio_fluctuated = 0.0;
        }
    }

    /// The gradient and deviation (µs) the utility charges, after the noise tests and the
    /// starting rule; negative gradients are not rewarded.
    pub fn charged(&self, st: &RttStats, starting: bool, duration_s: f64) -> (f64, f64) {
        let mut g = if self.inflation_tolerable {
            0.0
        } else {
            st.gradient
        };
        let mut dev = if self.dev_tolerable {
            0.0
        } else {
            st.rtt_dev_us
        };
        if starting {
            // |g| < 1000 µs / duration (µs): the RTT moved less than 1 ms over the MI.
            if g.abs() < STARTING_GRADIENT_US / (duration_s * 1e6) {
                g = 0.0;
            }
            dev = 0.0;
        }
        (g.max(0.0), dev)
    }

    /// Proteus-P's utility: x^t − b·x·g − c·x·L (CalculateUtilityProportional).
    pub fn primary(&self, x: f64, g: f64, loss: f64) -> f64 {
        let c = &self.cfg;
        x.powf(c.utility_exponent) - c.latency_coefficient * g * x - c.loss_coefficient * loss * x
    }

    /// Proteus-S's utility: the primary one − d·x·σ (CalculateUtilityScavenger).
    pub fn scavenger(&self, x: f64, g: f64, loss: f64, dev_us: f64) -> f64 {
        self.primary(x, g, loss) - self.cfg.rtt_deviation_coefficient * dev_us * x
    }
}

impl MiUtility for ProteusUtility {
    fn name(&self) -> &'static str {
        match self.cfg.mode {
            Mode::Scavenger => "proteus-s",
            Mode::Primary => "proteus-p",
            Mode::Hybrid(_) => "proteus-h",
        }
    }

    /// Proteus-H probes as a scavenger when its higher probing rate r(1 + ε) exceeds the
    /// threshold (`EnterProbing`).
    fn probe_pairs(&self, rate_mbps: f64) -> usize {
        match self.cfg.mode {
            Mode::Scavenger => SCAVENGER_PAIRS,
            Mode::Primary => PRIMARY_PAIRS,
            Mode::Hybrid(th) if rate_mbps * (1.0 + EPSILON) > th => SCAVENGER_PAIRS,
            Mode::Hybrid(_) => PRIMARY_PAIRS,
        }
    }

    /// `CanMakeDecision`: a scavenger moves when most pairs favour the lower rate or all
    /// favour the higher one; a primary when most favour the higher rate or all the lower.
    fn decides(&self, increases: usize, pairs: usize) -> bool {
        let decreases = pairs - increases;
        let scavenger = match self.cfg.mode {
            Mode::Scavenger => true,
            Mode::Primary => false,
            Mode::Hybrid(_) => pairs == SCAVENGER_PAIRS,
        };
        if scavenger {
            decreases > pairs / 2 || increases == pairs
        } else {
            increases > pairs / 2 || decreases == pairs
        }
    }

    fn score(&mut self, mi: &MiStats) -> f64 {
        let st = RttStats::of(mi.rtts);
        self.tolerance(&st);
        self.last = st;
        let (g, dev) = self.charged(&st, mi.starting, mi.duration_s);
        let x = mi.rate_mbps;
        match self.cfg.mode {
            Mode::Scavenger => self.scavenger(x, g, mi.loss, dev),
            Mode::Primary => self.primary(x, g, mi.loss),
            Mode::Hybrid(th) if x < th => self.primary(x, g, mi.loss),
            Mode::Hybrid(_) => self.scavenger(x, g, mi.loss, dev),
        }
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("rtt_dev_ms", self.last.rtt_dev_us / 1e3));
        out.push(("rtt_gradient", self.last.gradient));
        out.push(("trend_us_per_mi", self.last_trend_slope));
        out.push((
            "gradient_counts",
            if self.inflation_tolerable { 0.0 } else { 1.0 },
        ));
        out.push((
            "deviation_counts",
            if self.dev_tolerable { 0.0 } else { 1.0 },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::units::Time;

    /// 10^0.9.
    const X10: f64 = 7.943282347242815;

    fn util(mode: Mode) -> ProteusUtility {
        ProteusUtility::new(ProteusConfig {
            mode,
            ..ProteusConfig::default()
        })
    }

    fn mi<'a>(rate_mbps: f64, rtts: &'a [(f64, f64)], starting: bool) -> MiStats<'a> {
        MiStats {
            rate_mbps,
            loss: 0.0,
            rtts,
            starting,
            duration_s: 0.04,
        }
    }

    #[test]
    fn config_defaults_match_spec_tables() {
        let p = ParamSet::defaults(PARAMS);
        assert_eq!(
            ProteusConfig::from_params(&p, "proteus-s", Mode::Scavenger).unwrap(),
            ProteusConfig::default()
        );
        let h = ParamSet::defaults(PARAMS_H);
        assert_eq!(
            ProteusConfig::from_params(&h, "proteus-h", Mode::Hybrid(0.0))
                .unwrap()
                .mode,
            Mode::Hybrid(10.0)
        );
    }

    #[test]
    fn scavenger_and_primary_utility_terms() {
        let u = util(Mode::Scavenger);
        // x = 10 Mbit/s, gradient 0.02, loss 10 %, σ = 2000 µs:
        // 10^0.9 − 900·0.02·10 − 11.35·0.1·10 − 0.0015·2000·10 = X10 − 180 − 11.35 − 30.
        let s = u.scavenger(10.0, 0.02, 0.1, 2000.0);
        assert!((s - (X10 - 180.0 - 11.35 - 30.0)).abs() < 1e-9, "{s}");
        // Proteus-P: the same without the deviation term.
        let p = u.primary(10.0, 0.02, 0.1);
        assert!((p - (X10 - 180.0 - 11.35)).abs() < 1e-9, "{p}");
    }

    #[test]
    fn mi_statistics_are_regression_slope_error_and_deviation() {
        // RTT 40, 41, 42, 43 ms at 0, 0.1, 0.2, 0.3 s: slope 0.01, a perfect fit (error 0),
        // mean 41.5 ms, σ = √((1.5² + 0.5² + 0.5² + 1.5²)/4) ms = √1.25 ms.
        let st = RttStats::of(&[(0.0, 0.040), (0.1, 0.041), (0.2, 0.042), (0.3, 0.043)]);
        assert!((st.gradient - 0.01).abs() < 1e-12);
        assert!(st.gradient_error < 1e-9);
        assert!((st.avg_rtt_us - 41_500.0).abs() < 1e-6);
        assert!((st.rtt_dev_us - 1.25f64.sqrt() * 1e3).abs() < 1e-6);
        // One sample: nothing.
        assert_eq!(RttStats::of(&[(0.0, 0.04)]).samples, 1);
        assert_eq!(RttStats::of(&[(0.0, 0.04)]).rtt_dev_us, 0.0);
    }

    #[test]
    fn a_clean_rising_rtt_is_charged_gradient_and_deviation() {
        let mut u = util(Mode::Scavenger);
        let rtts = [(0.0, 0.040), (0.1, 0.041), (0.2, 0.042), (0.3, 0.043)];
        // Regression error 0 < |0.01|: both terms count (DetermineToleranceGeneral).
        // u = X10 − 900·0.01·10 − 0.0015·1118.034·10.
        let v = u.score(&mi(10.0, &rtts, false));
        let want = X10 - 90.0 - 0.0015 * 1.25f64.sqrt() * 1e3 * 10.0;
        assert!((v - want).abs() < 1e-9, "{v} vs {want}");
        // Proteus-P charges the gradient only.
        let mut p = util(Mode::Primary);
        assert!((p.score(&mi(10.0, &rtts, false)) - (X10 - 90.0)).abs() < 1e-9);
    }

    #[test]
    fn noisy_rtts_are_tolerated() {
        // RTT 40, 42, 40, 42 ms at 0, 0.1, 0.2, 0.3 s: slope 4 ms/s = 0.004; the fit
        // 40.4 + 4·t ms leaves residuals −0.4, 1.2, −1.2, 0.4 ms, RMS √0.8 ms, over the
        // mean 41 ms: 0.0218 > 0.004. Noise: neither term counts, u = x^0.9.
        let rtts = [(0.0, 0.040), (0.1, 0.042), (0.2, 0.040), (0.3, 0.042)];
        let st = RttStats::of(&rtts);
        assert!((st.gradient - 0.004).abs() < 1e-12);
        assert!((st.gradient_error - 0.8f64.sqrt() / 41.0).abs() < 1e-12);
        let mut u = util(Mode::Scavenger);
        assert_eq!(u.score(&mi(10.0, &rtts, false)), 10f64.powf(0.9));
    }

    #[test]
    fn starting_ignores_the_deviation_and_sub_millisecond_gradients() {
        let u = util(Mode::Scavenger);
        let st = RttStats {
            gradient: 0.02,
            rtt_dev_us: 3000.0,
            samples: 4,
            ..RttStats::default()
        };
        // Both count after the general test when the error is 0.
        let mut v = u.clone();
        v.tolerance(&st);
        assert_eq!(v.charged(&st, false, 0.04), (0.02, 3000.0));
        // Starting, a 40 ms MI: the bound is 1000 µs / 40 000 µs = 0.025 > 0.02 → 0, and
        // no deviation.
        assert_eq!(v.charged(&st, true, 0.04), (0.0, 0.0));
        let steep = RttStats {
            gradient: 0.03,
            ..st
        };
        v.tolerance(&steep);
        assert_eq!(v.charged(&steep, true, 0.04), (0.03, 0.0));
        // A negative gradient is not rewarded.
        let falling = RttStats {
            gradient: -0.03,
            ..st
        };
        v.tolerance(&falling);
        assert_eq!(v.charged(&falling, false, 0.04), (0.0, 3000.0));
        let _ = u;
    }

    #[test]
    fn trend_rule_flags_an_inflation_outside_two_running_deviations() {
        let mut u = util(Mode::Scavenger);
        // First trend: the statistics start (avg 0, min = dev = |1|, last 1).
        u.inflation(1.0);
        assert_eq!((u.avg_trend, u.min_trend, u.dev_trend), (0.0, 1.0, 1.0));
        // 1.0 lies in [0 − 2·1, 0 + 2·1]: dev = 0.9·1 + 0.1·|1 − 1| = 0.9, avg = 0.1.
        u.inflation_tolerable = true;
        u.dev_tolerable = true;
        u.inflation(1.0);
        assert!((u.dev_trend - 0.9).abs() < 1e-12 && (u.avg_trend - 0.1).abs() < 1e-12);
        assert!(u.inflation_tolerable && u.dev_tolerable);
        // 5.0 > 0.1 + 2·0.9 = 1.9: an inflation; both terms count; the statistics stay.
        u.inflation(5.0);
        assert!(!u.inflation_tolerable && !u.dev_tolerable);
        assert!((u.ratio_inflated - 0.1).abs() < 1e-12);
        assert!((u.avg_trend - 0.1).abs() < 1e-12);
        // −5.0 < 0.1 − 1.8: a falling trend makes the deviation count, not the gradient.
        u.inflation_tolerable = true;
        u.dev_tolerable = true;
        u.inflation(-5.0);
        assert!(u.inflation_tolerable && !u.dev_tolerable);
        // |0.001| < min/100 = 0.01: the statistics restart at this trend.
        u.inflation(0.001);
        assert_eq!((u.avg_trend, u.min_trend, u.dev_trend), (0.0, 0.001, 0.001));
    }

    #[test]
    fn deviation_rule_needs_four_running_deviations_and_one_millisecond() {
        let mut u = util(Mode::Scavenger);
        u.deviation(500.0);
        assert_eq!((u.avg_mi_rtt_dev, u.dev_mi_rtt_dev), (500.0, 250.0));
        // 1400 ≤ 500 + 4·250: noise; dev = 0.9·250 + 0.1·900 = 315, avg = 0.9·500 + 140.
        u.dev_tolerable = true;
        u.deviation(1400.0);
        assert!((u.dev_mi_rtt_dev - 315.0).abs() < 1e-9 && (u.avg_mi_rtt_dev - 590.0).abs() < 1e-9);
        assert!(u.dev_tolerable);
        // 2000 > 590 + 4·315 = 1850 and > 1000 µs: a signal.
        u.deviation(2000.0);
        assert!(!u.dev_tolerable);
        // Below 1 ms a jump never counts.
        let mut w = util(Mode::Scavenger);
        w.deviation(100.0);
        w.deviation(900.0);
        assert!(w.dev_tolerable && w.avg_mi_rtt_dev > 100.0);
        // 29 consecutive signals: 1 − 0.9^29 = 0.953 > 0.95 restarts the statistics (28
        // give 0.948).
        let mut r = util(Mode::Scavenger);
        r.deviation(500.0);
        for _ in 0..28 {
            r.deviation(5000.0);
        }
        assert_eq!(r.avg_mi_rtt_dev, 500.0);
        r.deviation(5000.0);
        assert_eq!((r.avg_mi_rtt_dev, r.ratio_fluctuated), (-1.0, 0.0));
    }

    #[test]
    fn hybrid_switches_utility_at_its_threshold() {
        let rtts = [(0.0, 0.040), (0.1, 0.041), (0.2, 0.042), (0.3, 0.043)];
        let dev = 0.0015 * 1.25f64.sqrt() * 1e3;
        let mut h = util(Mode::Hybrid(10.0));
        // 5 Mbit/s < 10: primary.
        let lo = h.score(&mi(5.0, &rtts, false));
        assert!((lo - (5f64.powf(0.9) - 900.0 * 0.01 * 5.0)).abs() < 1e-9);
        // 10 Mbit/s ≥ 10: scavenger.
        let hi = h.score(&mi(10.0, &rtts, false));
        assert!((hi - (X10 - 90.0 - dev * 10.0)).abs() < 1e-9);
    }

    #[test]
    fn decision_rules_of_scavenger_primary_and_hybrid() {
        let s = util(Mode::Scavenger);
        // Two pairs: only agreement moves.
        assert!(s.decides(0, 2) && s.decides(2, 2) && !s.decides(1, 2));
        let p = util(Mode::Primary);
        // Three pairs: up on a majority, down only when all three say so.
        assert!(p.decides(2, 3) && p.decides(3, 3) && p.decides(0, 3) && !p.decides(1, 3));
        // A scavenger's rule with three pairs leans the other way.
        assert!(s.decides(1, 3) && !s.decides(2, 3));
        assert_eq!((s.probe_pairs(5.0), p.probe_pairs(5.0)), (2, 3));
        let h = util(Mode::Hybrid(10.0));
        assert_eq!((h.probe_pairs(9.0), h.probe_pairs(9.6)), (3, 2));
    }

    #[test]
    fn registered_senders_carry_their_names() {
        for (info, name) in [
            (&SCAVENGER, "proteus-s"),
            (&PRIMARY, "proteus-p"),
            (&HYBRID, "proteus-h"),
        ] {
            let p = info.resolve(std::iter::empty()).unwrap();
            let cc = info.instantiate(
                &p,
                CcInit {
                    now: Time(0),
                    mss: 1000,
                    initial_cwnd: 10_000,
                    rng: Rng::new(1),
                },
            );
            assert_eq!(cc.name(), name);
            assert_eq!(cc.cwnd(), 10_000);
        }
    }
}
