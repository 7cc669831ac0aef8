//! EvaRate ("EnVironment-Aware Rate-based"), Wang 2018 chapter 4 (Wang Zixiao, NUS PhD
//! thesis 2018), and EvaRate++ (the same with α = 1.5 in hostile mode, §5.4.1).
//!
//! A rate-based sender whose control variable is the estimated bottleneck-buffer
//! occupancy. Once per RTT (a "signal packet", §4.4.1) it measures the receive rate ρ̂
//! from receiver timestamps, smooths it into ρ̄ (Eq. 4.12), tracks the capacity C as the
//! max ρ̂ over 10 RTTs (§4.4.3; by default at least over the B' detection window,
//! deviation §20), RTT_min over the connection (§4.4.2), its own occupancy
//! B = P_if − ρ̂·RTT_min (Eq. 4.4) and the competitors' B' = t_buff·C − B (Eq. 4.9,
//! 4.10). The sending rate follows S = α·ρ̄·(1 − k(B − B_target)/B_target) (Eq. 4.5,
//! hostile mode) or S = ρ̄·(1 − k(B + B' − B_target)/B_target) (Eq. 4.11, benevolent),
//! where B_target decays with a half-life of 2 RTT (Eq. 4.7, kernel piecewise form of
//! §4.4.5) and is re-armed (Eq. 4.8) when the occupancy falls below 10 packets. The
//! environment is hostile when the standard deviation of B' exceeds 50 packets
//! (§4.4.6). In-flight is capped at ρ̄·RTT_min + B_target (§4.4.7). Slow start sends a
//! 10-packet burst then grows the rate 1.5× per RTT (chapter 4 intro).
//!
//! Every ambiguity Wang 2018 leaves is resolved in docs/deviations/evarate.md; the main ones below.
//!
//! Differences from the source (the reasoning is in docs/deviations/evarate.md):
//! - receive rate from the interface's one-way-delay sample, not a raw TSval:
//!   docs/deviations/evarate.md#evarate-receive-rate
//! - Eq. 4.12 with TCP-style weights by default; as printed with `rho_ewma_alpha = 0.125`:
//!   docs/deviations/evarate.md#evarate-eq412-default
//! - the kernel's piecewise decay, with the thesis's typo fixed:
//!   docs/deviations/evarate.md#evarate-decay
//! - mode-detection window kind and length are parameters:
//!   docs/deviations/evarate.md#evarate-mode-window
//! - C over the detection window by default: docs/deviations/evarate.md#evarate-c-detection
//! - slow start: 10-packet burst, then ×1.5 per RTT, with exit rules:
//!   docs/deviations/evarate.md#evarate-slow-start

use std::collections::VecDeque;

use crate::api::*;
use crate::estimators::receive_rate::{LostBytes, ReceiveRateSampler};
use crate::estimators::windowed_minmax::WindowedMax;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue, RawParam};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "evarate",
    aliases: &[],
    summary: "EvaRate: rate control on estimated bottleneck-buffer occupancy with hostile/benevolent modes",
    source: "Wang 2018 (Wang Zixiao, NUS PhD thesis 2018) ch. 4",
    params: &PARAMS,
    build,
};

pub static INFO_PLUS: AlgorithmInfo = AlgorithmInfo {
    name: "evarate++",
    aliases: &["evarate-pp"],
    summary: "EvaRate++: EvaRate with aggression alpha = 1.5 in hostile mode",
    source: "Wang 2018 §5.4.1",
    params: &PARAMS_PLUS,
    build: build_plus,
};

const fn float(min: f64, max: f64) -> ParamKind {
    ParamKind::Float { min, max }
}

const N_PARAMS: usize = 24;

const fn params(alpha: f64, alpha_source: &'static str) -> [ParamSpec; N_PARAMS] {
    [
        ParamSpec::new("l_max", ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(100) }, ParamValue::Dur(Dur::from_millis(100)), "", "application's maximum tolerable RTT L_max; sets B_target_initial = ρ̄(L_max − RTT_min) (Eq. 4.6)", "Wang 2018 §4.1, §5.1 (100 ms in experiments)"),
        ParamSpec::new("alpha", float(0.1, 10.0), ParamValue::Float(alpha), "", "aggression factor α of the hostile-mode loop (Eq. 4.5)", alpha_source),
        ParamSpec::new("k", float(0.01, 10.0), ParamValue::Float(0.5), "", "convergence gain k of the control loop (Eq. 4.5, 4.11)", "Wang 2018 §4.4.4"),
        ParamSpec::new("rho_ewma_alpha", float(0.0, 1.0), ParamValue::Float(0.875), "", "weight of the old value in ρ̄ = a·ρ̄ + (1 − a)·ρ̂; 7/8 (TCP-style smoothing) by default, 1/8 is Eq. 4.12 as printed", "Wang 2018 §4.4.1 Eq. 4.12 (\"α is set to 1/8\"), weights read as swapped: docs/deviations/evarate.md §3, §21"),
        ParamSpec::new("reset_threshold", float(0.0, 10_000.0), ParamValue::Float(10.0), "packets", "re-arm B_target when the occupancy (B, or B + B' in benevolent mode) falls below this", "Wang 2018 §4.4.5"),
        ParamSpec::new("bt_fallback", float(1.0, 10_000.0), ParamValue::Float(10.0), "packets", "B_target_initial when L_max < RTT_min (the slow-start burst size)", "Wang 2018 §4.4.5"),
        ParamSpec::new("rearm_floor", ParamKind::Bool, ParamValue::Bool(true), "", "never re-arm B_target_initial below reset_threshold (the thesis states no floor)", "ours, Wang 2018 notes §2.4 item 3"),
        ParamSpec::new("c_window_rtts", ParamKind::Int { min: 1, max: 1000 }, ParamValue::Int(10), "RTTs", "C is the max ρ̂ over this many smoothed RTTs", "Wang 2018 §4.4.3"),
        ParamSpec::new("c_window", ParamKind::Choice(&["detection", "rtts"]), ParamValue::Choice("detection"), "", "rtts: C is the max ρ̂ over c_window_rtts smoothed RTTs (§4.4.3 as printed); detection: over the longer of that and the span of the B' window of the hostile detector, so that one window's B' samples share one C", "ours, docs/deviations/evarate.md §20; Wang 2018 §4.4.3, §4.4.6, §5.2"),
        ParamSpec::new("hostile_std", float(0.0, 100_000.0), ParamValue::Float(50.0), "packets", "hostile when the standard deviation of B' exceeds this", "Wang 2018 §4.4.6"),
        ParamSpec::new("hostile_window", ParamKind::Duration { min: Dur::from_millis(1), max: Dur::from_secs(100_000) }, ParamValue::Dur(Dur::from_secs(100)), "", "time window over which the standard deviation of B' is computed", "Wang 2018 §4.4.6"),
        ParamSpec::new("hostile_window_kind", ParamKind::Choice(&["tumbling", "sliding", "samples"]), ParamValue::Choice("tumbling"), "", "tumbling: decide at the end of each window (the literal reading); sliding: decide every RTT over the last hostile_window; samples: decide every RTT over the last hostile_window_samples samples (50 reproduces §5.5's delays)", "ours, Wang 2018 notes §2.6 [AMBIG]"),
        ParamSpec::new("hostile_window_samples", ParamKind::Int { min: 2, max: 1_000_000 }, ParamValue::Int(100), "samples", "with hostile_window_kind = samples: the standard deviation is over the last this many B' samples (one per RTT)", "ours, Wang 2018 notes §2.6 [AMBIG] (\"100\" read as samples)"),
        ParamSpec::new("hostile_min_samples", ParamKind::Int { min: 2, max: 100_000 }, ParamValue::Int(10), "samples", "B' samples (one per RTT) needed before a sliding window decides", "ours, Wang 2018 notes §2.6 [AMBIG]"),
        ParamSpec::new("initial_mode", ParamKind::Choice(&["hostile", "benevolent"]), ParamValue::Choice("hostile"), "", "mode before the first decision", "ours, Wang 2018 notes §2.6 [AMBIG] (A1 measures a detection delay)"),
        ParamSpec::new("decay", ParamKind::Choice(&["piecewise", "exact"]), ParamValue::Choice("piecewise"), "", "B_target decay: the kernel's piecewise-linear approximation (typo fixed, floor 1/8) or exp(−t·ln2/(2·RTT))", "Wang 2018 §4.4.5 / Eq. 4.7"),
        ParamSpec::new("initial_burst", ParamKind::Int { min: 1, max: 1000 }, ParamValue::Int(10), "packets", "packets sent before the first receive-rate sample (and after an RTO)", "Wang 2018 ch. 4 intro, §4.4.5"),
        ParamSpec::new("ss_gain", float(1.0, 4.0), ParamValue::Float(1.5), "", "slow-start rate growth per RTT", "Wang 2018 ch. 4 intro, §5.1"),
        ParamSpec::new("ss_exit_margin", float(0.0, 10.0), ParamValue::Float(0.1), "", "leave slow start when the rate we sent exceeds (1 + margin) · ρ̂", "ours, Wang 2018 notes §2.10 [AMBIG]"),
        ParamSpec::new("ss_min_growth", float(1.0, 4.0), ParamValue::Float(1.25), "", "leave slow start when ρ̂ grew by less than this factor in a paced round", "ours, Wang 2018 notes §2.10 [AMBIG]"),
        ParamSpec::new("ss_loss_exit", ParamKind::Int { min: 0, max: 1000 }, ParamValue::Int(1), "packets", "leave slow start when more than this many packets were lost", "Wang 2018 §4.4.7"),
        ParamSpec::new("tbuff_gain", float(0.0, 1.0), ParamValue::Float(0.125), "", "EWMA gain of t_buff = RTT − RTT_min (the thesis gives none)", "ours, Wang 2018 notes §2.5 [AMBIG]"),
        ParamSpec::new("ts_granularity", ParamKind::Duration { min: Dur::ZERO, max: Dur::from_millis(100) }, ParamValue::Dur(Dur::ZERO), "", "receiver timestamp granularity (0: the datapath's resolution; the thesis assumes 4 ms receivers)", "Wang 2018 §4.4.1"),
        ParamSpec::new("min_rate_packets", float(0.0, 1000.0), ParamValue::Float(4.0), "packets/RTT_min", "floor on the sending rate (Eq. 4.5 goes to zero at B = 3·B_target)", "ours, Wang 2018 notes §2.3 [AMBIG]"),
    ]
}

static PARAMS: [ParamSpec; N_PARAMS] = params(1.0, "Wang 2018 §4.1 Eq. 4.5 (α = 1 default)");
static PARAMS_PLUS: [ParamSpec; N_PARAMS] =
    params(1.5, "Wang 2018 §5.4.1 (EvaRate++: α = 1.5 in hostile mode)");

// `INFO.resolve` checked every value against the spec table, so the conversion cannot fail.
fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = EvaRateConfig::try_from(p).expect("evarate: parameters resolved against PARAMS");
    Box::new(EvaRate::new(&cfg, &init, "evarate"))
}

fn build_plus(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = EvaRateConfig::try_from(p).expect("evarate++: parameters resolved against PARAMS");
    Box::new(EvaRate::new(&cfg, &init, "evarate++"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    CongestionAvoidance,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Env {
    Hostile,
    Benevolent,
}

/// B_target decay factor after `x` RTTs since the last (re)arm.
pub fn decay_factor(x: f64, piecewise: bool) -> f64 {
    if !piecewise {
        // Eq. 4.7: exp(−t·ln2/(2·RTT)) = 2^(−x/2).
        return (-x / 2.0).exp2();
    }
    // §4.4.5, second branch with the missing t restored (continuous at 2 and 4 RTT).
    if x <= 2.0 {
        1.0 - x / 4.0
    } else if x <= 4.0 {
        7.0 / 8.0 - 3.0 * x / 16.0
    } else {
        1.0 / 8.0
    }
}

/// Over what the capacity C is the maximum receive rate (`c_window`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CWindow {
    /// At least the span of the hostile detector's B' window (ours, docs/deviations/evarate.md
    ///  §20).
    Detection,
    /// `c_window_rtts` smoothed RTTs (Wang 2018 §4.4.3 as printed).
    Rtts,
}

/// How the hostile detector windows its B' samples (`hostile_window_kind`, ours, Wang 2018
/// notes §2.6 [AMBIG]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostileWindowKind {
    /// Decide at the end of each `hostile_window` (the literal reading).
    Tumbling,
    /// Decide every RTT over the last `hostile_window`.
    Sliding,
    /// Decide every RTT over the last `hostile_window_samples` samples.
    Samples,
}

/// The B_target decay law (`decay`, Wang 2018 §4.4.5 / Eq. 4.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decay {
    /// The kernel's piecewise-linear approximation (typo fixed, floor 1/8).
    Piecewise,
    /// exp(−t·ln2/(2·RTT)).
    Exact,
}

/// EvaRate's parameters. Defaults: Wang 2018 ch. 4 unless noted (`ours`: a reading of an
/// ambiguity, docs/deviations/evarate.md); the same values as the `PARAMS` table.
/// EvaRate++ is [`EvaRateConfig::plus`].
#[derive(Clone, Debug, PartialEq)]
pub struct EvaRateConfig {
    /// Application's maximum tolerable RTT L_max; sets B_target_initial = ρ̄(L_max −
    /// RTT_min) (Eq. 4.6): 100 ms (Wang 2018 §4.1, §5.1).
    pub l_max: Dur,
    /// Aggression factor α of the hostile-mode loop (Eq. 4.5): 1 (Wang 2018 §4.1);
    /// EvaRate++ 1.5 (§5.4.1).
    pub alpha: f64,
    /// Convergence gain k of the control loop (Eq. 4.5, 4.11): 0.5 (Wang 2018 §4.4.4).
    pub k: f64,
    /// Weight of the old value in ρ̄ = a·ρ̄ + (1 − a)·ρ̂: 7/8 (TCP-style smoothing); 1/8 is
    /// Eq. 4.12 as printed (Wang 2018 §4.4.1; docs/deviations/evarate.md §3, §21).
    pub rho_ewma_alpha: f64,
    /// Re-arm B_target when the occupancy falls below this many packets: 10 (Wang 2018
    /// §4.4.5).
    pub reset_threshold: f64,
    /// B_target_initial in packets when L_max < RTT_min: 10 (Wang 2018 §4.4.5).
    pub bt_fallback: f64,
    /// Never re-arm B_target_initial below `reset_threshold`: true (ours, Wang 2018 notes
    /// §2.4 item 3; the thesis states no floor).
    pub rearm_floor: bool,
    /// C is the max ρ̂ over this many smoothed RTTs: 10 (Wang 2018 §4.4.3).
    pub c_window_rtts: u64,
    /// Detection (ours, docs/deviations/evarate.md §20; Wang 2018 §4.4.3, §4.4.6, §5.2).
    pub c_window: CWindow,
    /// Hostile when the standard deviation of B' exceeds this many packets: 50 (Wang 2018
    /// §4.4.6).
    pub hostile_std: f64,
    /// Time window of the standard deviation of B': 100 s (Wang 2018 §4.4.6).
    pub hostile_window: Dur,
    /// Tumbling (ours, Wang 2018 notes §2.6 [AMBIG]).
    pub hostile_window_kind: HostileWindowKind,
    /// With `HostileWindowKind::Samples`: the window in B' samples, one per RTT: 100 (ours,
    /// Wang 2018 notes §2.6 [AMBIG], "100" read as samples; 50 reproduces §5.5's delays).
    pub hostile_window_samples: usize,
    /// B' samples needed before a sliding window decides: 10 (ours, Wang 2018 notes §2.6).
    pub hostile_min_samples: usize,
    /// Mode before the first decision: hostile (ours, Wang 2018 notes §2.6 [AMBIG]: A1
    /// measures a detection delay).
    pub initial_mode: Env,
    /// Piecewise (Wang 2018 §4.4.5 / Eq. 4.7).
    pub decay: Decay,
    /// Packets sent before the first receive-rate sample (and after an RTO): 10 (Wang 2018
    /// ch. 4 intro, §4.4.5).
    pub initial_burst: u64,
    /// Slow-start rate growth per RTT: 1.5 (Wang 2018 ch. 4 intro, §5.1).
    pub ss_gain: f64,
    /// Leave slow start when the rate sent exceeds (1 + margin)·ρ̂: 0.1 (ours, Wang 2018
    /// notes §2.10 [AMBIG]).
    pub ss_exit_margin: f64,
    /// Leave slow start when ρ̂ grew by less than this factor in a paced round: 1.25
    /// (ours, Wang 2018 notes §2.10 [AMBIG]).
    pub ss_min_growth: f64,
    /// Leave slow start when more than this many packets were lost: 1 (Wang 2018 §4.4.7).
    pub ss_loss_exit: u64,
    /// EWMA gain of t_buff = RTT − RTT_min: 1/8 (ours, Wang 2018 notes §2.5 [AMBIG]).
    pub tbuff_gain: f64,
    /// Receiver timestamp granularity; 0 = the datapath's resolution (Wang 2018 §4.4.1
    /// assumes 4 ms receivers).
    pub ts_granularity: Dur,
    /// Floor on the sending rate in packets per RTT_min: 4 (ours, Wang 2018 notes §2.3
    /// [AMBIG]; Eq. 4.5 goes to zero at B = 3·B_target).
    pub min_rate_packets: f64,
}

impl Default for EvaRateConfig {
    fn default() -> EvaRateConfig {
        EvaRateConfig {
            l_max: Dur::from_millis(100),
            alpha: 1.0,
            k: 0.5,
            rho_ewma_alpha: 0.875,
            reset_threshold: 10.0,
            bt_fallback: 10.0,
            rearm_floor: true,
            c_window_rtts: 10,
            c_window: CWindow::Detection,
            hostile_std: 50.0,
            hostile_window: Dur::from_secs(100),
            hostile_window_kind: HostileWindowKind::Tumbling,
            hostile_window_samples: 100,
            hostile_min_samples: 10,
            initial_mode: Env::Hostile,
            decay: Decay::Piecewise,
            initial_burst: 10,
            ss_gain: 1.5,
            ss_exit_margin: 0.1,
            ss_min_growth: 1.25,
            ss_loss_exit: 1,
            tbuff_gain: 0.125,
            ts_granularity: Dur::ZERO,
            min_rate_packets: 4.0,
        }
    }
}

impl EvaRateConfig {
    /// EvaRate++: α = 1.5 in hostile mode (Wang 2018 §5.4.1).
    pub fn plus() -> EvaRateConfig {
        EvaRateConfig {
            alpha: 1.5,
            ..EvaRateConfig::default()
        }
    }

    /// Every parameter by name with this configuration's value, the inverse of
    /// `TryFrom<&ParamSet>`: for scenario text and records that name parameters.
    pub fn to_params(&self) -> Vec<(&'static str, RawParam)> {
        let text = |s: &str| RawParam::Text(s.into());
        vec![
            ("l_max", text(&self.l_max.to_string())),
            ("alpha", RawParam::Float(self.alpha)),
            ("k", RawParam::Float(self.k)),
            ("rho_ewma_alpha", RawParam::Float(self.rho_ewma_alpha)),
            ("reset_threshold", RawParam::Float(self.reset_threshold)),
            ("bt_fallback", RawParam::Float(self.bt_fallback)),
            ("rearm_floor", RawParam::Bool(self.rearm_floor)),
            ("c_window_rtts", RawParam::Int(self.c_window_rtts as i64)),
            (
                "c_window",
                text(match self.c_window {
                    CWindow::Detection => "detection",
                    CWindow::Rtts => "rtts",
                }),
            ),
            ("hostile_std", RawParam::Float(self.hostile_std)),
            ("hostile_window", text(&self.hostile_window.to_string())),
            (
                "hostile_window_kind",
                text(match self.hostile_window_kind {
                    HostileWindowKind::Tumbling => "tumbling",
                    HostileWindowKind::Sliding => "sliding",
                    HostileWindowKind::Samples => "samples",
                }),
            ),
            (
                "hostile_window_samples",
                RawParam::Int(self.hostile_window_samples as i64),
            ),
            (
                "hostile_min_samples",
                RawParam::Int(self.hostile_min_samples as i64),
            ),
            (
                "initial_mode",
                text(match self.initial_mode {
                    Env::Hostile => "hostile",
                    Env::Benevolent => "benevolent",
                }),
            ),
            (
                "decay",
                text(match self.decay {
                    Decay::Piecewise => "piecewise",
                    Decay::Exact => "exact",
                }),
            ),
            ("initial_burst", RawParam::Int(self.initial_burst as i64)),
            ("ss_gain", RawParam::Float(self.ss_gain)),
            ("ss_exit_margin", RawParam::Float(self.ss_exit_margin)),
            ("ss_min_growth", RawParam::Float(self.ss_min_growth)),
            ("ss_loss_exit", RawParam::Int(self.ss_loss_exit as i64)),
            ("tbuff_gain", RawParam::Float(self.tbuff_gain)),
            ("ts_granularity", text(&self.ts_granularity.to_string())),
            ("min_rate_packets", RawParam::Float(self.min_rate_packets)),
        ]
    }

    /// The window of B' samples, when the detector counts samples.
    fn by_samples(&self) -> Option<usize> {
        (self.hostile_window_kind == HostileWindowKind::Samples)
            .then_some(self.hostile_window_samples)
    }

    fn sliding(&self) -> bool {
        self.hostile_window_kind != HostileWindowKind::Tumbling
    }
}

impl TryFrom<&ParamSet> for EvaRateConfig {
    type Error = ParamError;
    /// The only place EvaRate's (and EvaRate++'s) parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<EvaRateConfig, ParamError> {
        let r = p.reader("evarate");
        Ok(EvaRateConfig {
            l_max: r.dur("l_max")?,
            alpha: r.f64("alpha")?,
            k: r.f64("k")?,
            rho_ewma_alpha: r.f64("rho_ewma_alpha")?,
            reset_threshold: r.f64("reset_threshold")?,
            bt_fallback: r.f64("bt_fallback")?,
            rearm_floor: r.bool("rearm_floor")?,
            c_window_rtts: r.u64("c_window_rtts")?,
            c_window: match r.choice("c_window")? {
                "rtts" => CWindow::Rtts,
                _ => CWindow::Detection,
            },
            hostile_std: r.f64("hostile_std")?,
            hostile_window: r.dur("hostile_window")?,
            hostile_window_kind: match r.choice("hostile_window_kind")? {
                "sliding" => HostileWindowKind::Sliding,
                "samples" => HostileWindowKind::Samples,
                _ => HostileWindowKind::Tumbling,
            },
            hostile_window_samples: r.usize("hostile_window_samples")?,
            hostile_min_samples: r.usize("hostile_min_samples")?,
            initial_mode: match r.choice("initial_mode")? {
                "benevolent" => Env::Benevolent,
                _ => Env::Hostile,
            },
            decay: match r.choice("decay")? {
                "exact" => Decay::Exact,
                _ => Decay::Piecewise,
            },
            initial_burst: r.u64("initial_burst")?,
            ss_gain: r.f64("ss_gain")?,
            ss_exit_margin: r.f64("ss_exit_margin")?,
            ss_min_growth: r.f64("ss_min_growth")?,
            ss_loss_exit: r.u64("ss_loss_exit")?,
            tbuff_gain: r.f64("tbuff_gain")?,
            ts_granularity: r.dur("ts_granularity")?,
            min_rate_packets: r.f64("min_rate_packets")?,
        })
    }
}

#[derive(Clone, Debug)]
pub struct EvaRate {
    name: &'static str,
    c: EvaRateConfig,
    mss: u64,
    phase: Phase,
    env: Env,
    rr: ReceiveRateSampler,
    lost: LostBytes,
    /// Lost bytes when slow start began (`None`: take the next ACK's count).
    lost_at_ss: Option<u64>,
    rtt_min: Option<Dur>,
    rtt_max: Dur,
    srtt: Option<Dur>,
    /// ρ̂, ρ̄ in bytes/s.
    rho_hat: Option<f64>,
    rho_bar: Option<f64>,
    c_filter: WindowedMax,
    /// t_buff EWMA, seconds.
    tbuff: Option<f64>,
    /// Sending rate S (bytes/s) and the one in force during the round being measured.
    rate: Option<f64>,
    rate_measured: Option<f64>,
    prev_rho_hat: Option<f64>,
    bt_init: f64,
    bt_arm: Time,
    bt_rtt: Dur,
    cwnd: u64,
    bp_samples: VecDeque<(Time, f64)>,
    window_start: Time,
    // Last values, for traces.
    b: f64,
    bp: f64,
    bp_std: f64,
}

impl EvaRate {
    pub fn new(cfg: &EvaRateConfig, init: &CcInit, name: &'static str) -> EvaRate {
        let c = cfg.clone();
        let mss = init.mss.max(1);
        EvaRate {
            name,
            mss,
            phase: Phase::SlowStart,
            env: c.initial_mode,
            rr: ReceiveRateSampler::new(c.ts_granularity),
            lost: LostBytes::default(),
            lost_at_ss: Some(0),
            rtt_min: None,
            rtt_max: Dur::ZERO,
            srtt: None,
            rho_hat: None,
            rho_bar: None,
            c_filter: WindowedMax::new(),
            tbuff: None,
            rate: None,
            rate_measured: None,
            prev_rho_hat: None,
            bt_init: c.bt_fallback,
            bt_arm: init.now,
            bt_rtt: Dur::from_millis(100),
            cwnd: c.initial_burst * mss,
            bp_samples: VecDeque::new(),
            window_start: init.now,
            b: 0.0,
            bp: 0.0,
            bp_std: 0.0,
            c,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn env(&self) -> Env {
        self.env
    }

    /// B_target(t) in packets (Eq. 4.7 / §4.4.5).
    pub fn b_target(&self, now: Time) -> f64 {
        let x = now.since(self.bt_arm).secs_f64() / self.bt_rtt.secs_f64().max(1e-9);
        self.bt_init * decay_factor(x, self.c.decay == Decay::Piecewise)
    }

    fn srtt_or(&self, d: Dur) -> Dur {
        self.srtt.unwrap_or(d)
    }

    /// Eq. 4.6: B_target_initial = ρ̄(L_max − RTT_min), 10 packets if negative.
    fn enter_ca(&mut self, now: Time) {
        self.phase = Phase::CongestionAvoidance;
        let rho = self.rho_bar.unwrap_or(0.0);
        let rtt_min = self.rtt_min.unwrap_or(Dur::ZERO);
        let bt = if self.c.l_max > rtt_min {
            rho * (self.c.l_max - rtt_min).secs_f64() / self.mss as f64
        } else {
            0.0
        };
        self.bt_init = if bt > 0.0 { bt } else { self.c.bt_fallback };
        self.bt_arm = now;
        self.bt_rtt = self.srtt_or(rtt_min);
        self.window_start = now;
    }

    /// The time the hostile detector's B' window covers: its length, or for a window of
    /// samples the age of the oldest sample kept.
    fn detection_span(&self, now: Time) -> Dur {
        match self.c.by_samples() {
            Some(_) => self
                .bp_samples
                .front()
                .map_or(Dur::ZERO, |(t, _)| now.since(*t)),
            None => self.c.hostile_window,
        }
    }

    fn push_bp(&mut self, now: Time, bp: f64) {
        self.bp_samples.push_back((now, bp));
        let w = self.c.hostile_window;
        let decide = if let Some(n) = self.c.by_samples() {
            while self.bp_samples.len() > n {
                self.bp_samples.pop_front();
            }
            self.bp_samples.len() >= self.c.hostile_min_samples
        } else if self.c.sliding() {
            while self
                .bp_samples
                .front()
                .is_some_and(|(t, _)| now.since(*t) > w)
            {
                self.bp_samples.pop_front();
            }
            self.bp_samples.len() >= self.c.hostile_min_samples
        } else {
            now.since(self.window_start) >= w && self.bp_samples.len() >= 2
        };
        if decide {
            self.bp_std = stdev(self.bp_samples.iter().map(|x| x.1));
            // §4.4.6: hostile iff std(B') > 50 packets.
            self.env = if self.bp_std > self.c.hostile_std {
                Env::Hostile
            } else {
                Env::Benevolent
            };
            if !self.c.sliding() {
                self.bp_samples.clear();
                self.window_start = now;
            }
        }
    }

    /// The congestion-avoidance update, once per RTT (§4.4.1).
    fn control(&mut self, now: Time, ack: &AckSample) {
        let mss = self.mss as f64;
        let (Some(rho_hat), Some(rho_bar), Some(rtt_min)) =
            (self.rho_hat, self.rho_bar, self.rtt_min)
        else {
            return;
        };
        // Eq. 4.4 with the instantaneous ρ̂: B = P_if − ρ̂·RTT_min (packets).
        let p_if = ack.bytes_in_flight as f64 / mss;
        let b = p_if - rho_hat * rtt_min.secs_f64() / mss;
        // Eq. 4.9/4.10: B' = t_buff·C − B.
        let cap = self.c_filter.get().unwrap_or(0) as f64;
        let bp = self.tbuff.unwrap_or(0.0) * cap / mss - b;
        self.b = b;
        self.bp = bp;
        self.push_bp(now, bp);
        let b_ctl = b.max(0.0);
        let occupancy = match self.env {
            Env::Hostile => b_ctl,
            Env::Benevolent => (b + bp).max(0.0),
        };
        let mut bt = self.b_target(now);
        if occupancy < self.c.reset_threshold {
            // Eq. 4.8: B_target_initial ← min(ρ̄(RTT_max − RTT_min)/2, 2·B_target(t)).
            let half_range = rho_bar * (self.rtt_max - rtt_min).secs_f64() / 2.0 / mss;
            let mut init = half_range.min(2.0 * bt);
            if self.c.rearm_floor {
                init = init.max(self.c.reset_threshold);
            }
            self.bt_init = init.max(1e-3);
            self.bt_arm = now;
            self.bt_rtt = self.srtt_or(rtt_min);
            bt = self.bt_init;
        }
        let s = match self.env {
            // Eq. 4.5.
            Env::Hostile => self.c.alpha * rho_bar * (1.0 - self.c.k * (b_ctl - bt) / bt),
            // Eq. 4.11 (printed without α).
            Env::Benevolent => rho_bar * (1.0 - self.c.k * (occupancy - bt) / bt),
        };
        let floor = self.c.min_rate_packets * mss / rtt_min.secs_f64().max(1e-6);
        self.rate = Some(s.max(floor));
    }

    /// §4.4.7: in flight ≤ ρ̄·RTT_min + B_target (congestion avoidance).
    fn update_cwnd(&mut self, now: Time) {
        let mss = self.mss as f64;
        self.cwnd = match (self.phase, self.rho_bar, self.rtt_min, self.rate) {
            (Phase::CongestionAvoidance, Some(rho), Some(rtt_min), _) => {
                let w = rho * rtt_min.secs_f64() + self.b_target(now) * mss;
                (w.ceil() as u64).max(4 * self.mss)
            }
            (Phase::SlowStart, _, _, Some(s)) => {
                let rtt = self.srtt.or(self.rtt_min).unwrap_or(Dur::from_millis(100));
                ((2.0 * s * rtt.secs_f64()).ceil() as u64).max(self.c.initial_burst * self.mss)
            }
            _ => self.c.initial_burst * self.mss,
        };
    }

    fn on_sample(&mut self, now: Time, ack: &AckSample, rho_hat: f64) {
        self.rho_hat = Some(rho_hat);
        // Eq. 4.12 as printed: ρ̄ = α·ρ̄ + (1 − α)·ρ̂.
        self.rho_bar = Some(match self.rho_bar {
            None => rho_hat,
            Some(old) => self.c.rho_ewma_alpha * old + (1.0 - self.c.rho_ewma_alpha) * rho_hat,
        });
        let rtt = self.srtt_or(Dur::from_millis(100));
        // §4.4.3: C = the largest ρ̂ within the last 10 RTT — by default stretched to the
        // span of the B' window (docs/deviations/evarate.md#evarate-c-detection).
        let mut window = Dur(rtt.nanos() * self.c.c_window_rtts);
        if self.c.c_window == CWindow::Detection {
            window = window.max(self.detection_span(now));
        }
        self.c_filter.update_at(now, rho_hat.round() as u64, window);
        if self.phase == Phase::SlowStart {
            let lost_pkts = self
                .lost
                .lost(ack)
                .saturating_sub(self.lost_at_ss.unwrap_or(0))
                / self.mss;
            let exit = match (self.rate, self.rate_measured, self.prev_rho_hat) {
                (None, _, _) => false,
                (Some(_), Some(sent), Some(prev)) => {
                    sent > (1.0 + self.c.ss_exit_margin) * rho_hat
                        || rho_hat < self.c.ss_min_growth * prev
                }
                _ => false,
            } || lost_pkts > self.c.ss_loss_exit;
            if !exit {
                // The rate grows 1.5× per RTT; the first one is 1.5·ρ̂ of the burst.
                self.rate_measured = self.rate;
                self.rate = Some(self.c.ss_gain * self.rate.unwrap_or(rho_hat));
                self.prev_rho_hat = Some(rho_hat);
                return;
            }
            self.enter_ca(now);
        }
        self.control(now, ack);
    }
}

fn stdev(xs: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = xs.clone().count() as f64;
    if n < 1.0 {
        return 0.0;
    }
    let mean = xs.clone().sum::<f64>() / n;
    (xs.map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt()
}

impl CongestionControl for EvaRate {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
            self.rtt_max = self.rtt_max.max(rtt);
            self.srtt = Some(match self.srtt {
                None => rtt,
                Some(s) => Dur((7 * s.nanos() + rtt.nanos()) / 8),
            });
            let q = (rtt - self.rtt_min.unwrap_or(rtt)).secs_f64();
            self.tbuff = Some(match self.tbuff {
                None => q,
                Some(t) => (1.0 - self.c.tbuff_gain) * t + self.c.tbuff_gain * q,
            });
        }
        if self.lost_at_ss.is_none() {
            self.lost_at_ss = Some(self.lost.lost(ack));
        }
        if let Some(s) = self.rr.on_ack(now, ack) {
            self.on_sample(now, ack, s.bytes_per_sec);
        }
        self.update_cwnd(now);
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        // §4.4.7: no rate reduction on loss; losses only end slow start (counted from
        // the in-flight accounting on the next ACK) and SACK recovery retransmits.
    }

    fn on_rto(&mut self, now: Time, _ev: &RtoEvent) {
        // Chapter 4 intro: an RTO discards the network measurements and re-probes with a
        // burst from slow start. RTT_min stays (it is "since the beginning of the
        // connection", §4.4.2).
        self.phase = Phase::SlowStart;
        self.rho_hat = None;
        self.rho_bar = None;
        self.prev_rho_hat = None;
        self.rate = None;
        self.rate_measured = None;
        self.c_filter.clear();
        self.tbuff = None;
        self.bp_samples.clear();
        self.rr.reset();
        // The RTO's own losses do not count against the new slow start.
        self.lost_at_ss = None;
        self.window_start = now;
        self.cwnd = self.c.initial_burst * self.mss;
    }

    fn on_sent(&mut self, _now: Time, sent: &SentInfo) {
        self.lost.on_sent(sent.bytes);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn pacing_rate(&self) -> Option<Rate> {
        self.rate.map(|s| Rate((s * 8.0).round() as u64))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        let mbps = |x: Option<f64>| x.map_or(0.0, |v| v * 8.0 / 1e6);
        out.push(("rate_mbps", mbps(self.rate)));
        out.push(("rho_hat_mbps", mbps(self.rho_hat)));
        out.push(("rho_bar_mbps", mbps(self.rho_bar)));
        out.push(("c_mbps", mbps(self.c_filter.get().map(|c| c as f64))));
        out.push(("b_pkts", self.b));
        out.push(("b_comp_pkts", self.bp));
        out.push(("b_target_init_pkts", self.bt_init));
        out.push(("b_comp_std_pkts", self.bp_std));
        // 1 = hostile (buffer fillers present), 0 = benevolent (§4.4.6).
        out.push(("mode", if self.env == Env::Hostile { 1.0 } else { 0.0 }));
        out.push((
            "slow_start",
            if self.phase == Phase::SlowStart {
                1.0
            } else {
                0.0
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;

    fn init() -> CcInit {
        CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(1),
        }
    }

    fn eva_with(cfg: EvaRateConfig) -> EvaRate {
        EvaRate::new(&cfg, &init(), "evarate")
    }

    fn eva() -> EvaRate {
        eva_with(EvaRateConfig::default())
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            EvaRateConfig::try_from(&ParamSet::defaults(&PARAMS)).unwrap(),
            EvaRateConfig::default()
        );
        assert_eq!(
            EvaRateConfig::try_from(&ParamSet::defaults(&PARAMS_PLUS)).unwrap(),
            EvaRateConfig::plus()
        );
        // Every choice word maps to its enum value.
        use crate::params::RawParam;
        let t = |s: &str| RawParam::Text(s.into());
        let (a, b, c, d) = (t("rtts"), t("samples"), t("benevolent"), t("exact"));
        let p = INFO
            .resolve([
                ("c_window", &a),
                ("hostile_window_kind", &b),
                ("initial_mode", &c),
                ("decay", &d),
            ])
            .unwrap();
        let cfg = EvaRateConfig::try_from(&p).unwrap();
        assert_eq!(
            (
                cfg.c_window,
                cfg.hostile_window_kind,
                cfg.initial_mode,
                cfg.decay
            ),
            (
                CWindow::Rtts,
                HostileWindowKind::Samples,
                Env::Benevolent,
                Decay::Exact
            )
        );
        // Every configuration survives the round trip through its parameter names.
        let odd = EvaRateConfig {
            l_max: Dur::from_millis(30),
            hostile_window: Dur::from_secs(1),
            ts_granularity: Dur::from_millis(4),
            hostile_window_kind: HostileWindowKind::Sliding,
            decay: Decay::Exact,
            ..EvaRateConfig::plus()
        };
        for c in [EvaRateConfig::default(), EvaRateConfig::plus(), odd, cfg] {
            let raw = c.to_params();
            let p = INFO.resolve(raw.iter().map(|(n, v)| (*n, v))).unwrap();
            assert_eq!(EvaRateConfig::try_from(&p).unwrap(), c);
        }
        let s = t("sliding");
        let p = INFO.resolve([("hostile_window_kind", &s)]).unwrap();
        assert_eq!(
            EvaRateConfig::try_from(&p).unwrap().hostile_window_kind,
            HostileWindowKind::Sliding
        );
    }

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    /// 16 Mbit/s = 2e6 bytes/s, RTT_min 40 ms (BDP 80 packets of 1000 B), RTT_max 100 ms,
    /// congestion avoidance, B_target_initial 40 packets armed at 1 s with a 40 ms RTT.
    fn steady(e: &mut EvaRate) {
        e.phase = Phase::CongestionAvoidance;
        e.rho_hat = Some(2e6);
        e.rho_bar = Some(2e6);
        e.rtt_min = Some(Dur::from_millis(40));
        e.rtt_max = Dur::from_millis(100);
        e.srtt = Some(Dur::from_millis(40));
        e.tbuff = Some(0.015);
        e.c_filter.reset_at(ms(1000), 2_000_000);
        e.bt_init = 40.0;
        e.bt_arm = ms(1000);
        e.bt_rtt = Dur::from_millis(40);
    }

    fn in_flight(pkts: u64) -> AckSample {
        AckSample {
            bytes_in_flight: pkts * MSS,
            ..AckSample::empty(MSS)
        }
    }

    #[test]
    fn decay_piecewise_with_the_typo_fixed_and_exact() {
        // §4.4.5: 1 − x/4 up to 2 RTT; 7/8 − 3x/16 up to 4 RTT; then 1/8.
        assert_eq!(decay_factor(0.0, true), 1.0);
        assert_eq!(decay_factor(1.0, true), 0.75);
        assert_eq!(decay_factor(2.0, true), 0.5);
        assert_eq!(decay_factor(3.0, true), 0.3125); // 14/16 − 9/16
        assert_eq!(decay_factor(4.0, true), 0.125); // 14/16 − 12/16
        assert_eq!(decay_factor(6.0, true), 0.125);
        // Eq. 4.7: 2^(−x/2): half at 2 RTT, quarter at 4 RTT.
        assert_eq!(decay_factor(2.0, false), 0.5);
        assert_eq!(decay_factor(4.0, false), 0.25);
        let mut e = eva();
        steady(&mut e);
        // 60 ms after arming with a 40 ms RTT: x = 1.5 → 40 · (1 − 0.375) = 25 packets.
        assert!((e.b_target(ms(1060)) - 25.0).abs() < 1e-9);
    }

    #[test]
    fn hostile_rate_law_and_in_flight_cap() {
        let mut e = eva();
        steady(&mut e);
        // P_if = 100 → B = 100 − 2e6·0.04/1000 = 20 packets; B_target = 40 (x = 0).
        // Eq. 4.5: S = 1 · 2e6 · (1 − 0.5·(20 − 40)/40) = 2e6 · 1.25 = 2.5e6 bytes/s.
        e.control(ms(1000), &in_flight(100));
        assert!((e.b - 20.0).abs() < 1e-9);
        assert_eq!(e.rate, Some(2.5e6));
        assert_eq!(e.pacing_rate(), Some(Rate(20_000_000)));
        // B' = t_buff·C − B = 0.015 · 2e6 / 1000 − 20 = 10 packets (Eq. 4.9).
        assert!((e.bp - 10.0).abs() < 1e-9);
        // §4.4.7 cap: ρ̄·RTT_min + B_target = 80,000 + 40 · 1000 = 120,000 bytes.
        e.update_cwnd(ms(1000));
        assert_eq!(e.cwnd(), 120_000);
        // At B = 3·B_target = 120 the law gives 0: the floor of 4 packets per RTT_min
        // (4000 / 0.04 = 100,000 bytes/s) applies.
        e.control(ms(1000), &in_flight(200));
        assert_eq!(e.rate, Some(100_000.0));
    }

    #[test]
    fn evarate_plus_plus_is_alpha_one_and_a_half_in_hostile_mode_only() {
        let mut e = EvaRate::new(&EvaRateConfig::plus(), &init(), "evarate++");
        assert_eq!(e.name(), "evarate++");
        steady(&mut e);
        // 1.5 · 2e6 · 1.25 = 3.75e6.
        e.control(ms(1000), &in_flight(100));
        assert_eq!(e.rate, Some(3.75e6));
        // Benevolent (Eq. 4.11, no α): total B + B' = 30 → 2e6 · (1 − 0.5·(30 − 40)/40)
        // = 2e6 · 1.125 = 2.25e6.
        e.env = Env::Benevolent;
        e.control(ms(1000), &in_flight(100));
        assert_eq!(e.rate, Some(2.25e6));
    }

    #[test]
    fn rearm_takes_the_smaller_of_half_range_and_twice_the_decayed_target() {
        let mut e = eva();
        steady(&mut e);
        // 120 ms after arming: x = 3 → B_target = 40 · 0.3125 = 12.5. P_if = 85 → B = 5
        // < 10: re-arm to min(2e6 · (0.1 − 0.04)/2 / 1000 = 60, 2 · 12.5 = 25) = 25.
        e.control(ms(1120), &in_flight(85));
        assert_eq!((e.bt_init, e.bt_arm), (25.0, ms(1120)));
        // S = 2e6 · (1 − 0.5·(5 − 25)/25) = 2e6 · 1.4 = 2.8e6.
        assert!((e.rate.unwrap() - 2.8e6).abs() < 1e-6);
        // Late re-arm: x ≥ 4 → B_target = 25/8 = 3.125 → 2·3.125 = 6.25, floored at 10.
        e.control(ms(1120 + 200), &in_flight(85));
        assert_eq!(e.bt_init, 10.0);
        // Without the floor: 2 · 10/8 = 2.5.
        let mut e = eva_with(EvaRateConfig {
            rearm_floor: false,
            ..Default::default()
        });
        steady(&mut e);
        e.bt_init = 10.0;
        e.control(ms(1000 + 200), &in_flight(85));
        assert_eq!(e.bt_init, 2.5);
    }

    #[test]
    fn initial_target_from_l_max_with_fallback() {
        let mut e = eva();
        steady(&mut e);
        // Eq. 4.6: 2e6 · (0.1 − 0.04) / 1000 = 120 packets.
        e.enter_ca(ms(500));
        assert!((e.bt_init - 120.0).abs() < 1e-9);
        assert_eq!((e.bt_arm, e.bt_rtt), (ms(500), Dur::from_millis(40)));
        // L_max 30 ms < RTT_min 40 ms: 10 packets.
        let mut e = eva_with(EvaRateConfig {
            l_max: Dur::from_millis(30),
            ..Default::default()
        });
        steady(&mut e);
        e.enter_ca(ms(500));
        assert_eq!(e.bt_init, 10.0);
    }

    #[test]
    fn receive_rate_ewma_tcp_style_by_default_and_as_printed_on_request() {
        let mut e = eva();
        e.phase = Phase::CongestionAvoidance;
        e.rtt_min = Some(Dur::from_millis(40));
        e.on_sample(ms(100), &in_flight(10), 1e6);
        assert_eq!(e.rho_bar, Some(1e6));
        // Default (weights of Eq. 4.12 swapped): ρ̄ = 7/8 · 1e6 + 1/8 · 2e6 = 1.125e6.
        e.on_sample(ms(140), &in_flight(10), 2e6);
        assert_eq!(e.rho_bar, Some(1.125e6));
        // C = max ρ̂ over 10 RTTs.
        assert_eq!(e.c_filter.get(), Some(2_000_000));
        // Eq. 4.12 as printed (α = 1/8 on the old value): 1/8 · 1e6 + 7/8 · 2e6 = 1.875e6.
        let mut e = eva_with(EvaRateConfig {
            rho_ewma_alpha: 0.125,
            ..Default::default()
        });
        e.phase = Phase::CongestionAvoidance;
        e.rtt_min = Some(Dur::from_millis(40));
        e.on_sample(ms(100), &in_flight(10), 1e6);
        e.on_sample(ms(140), &in_flight(10), 2e6);
        assert_eq!(e.rho_bar, Some(1.875e6));
    }

    #[test]
    fn capacity_window_spans_the_detection_window() {
        // SRTT 100 ms: 10 RTT = 1 s. With the literal window (c_window = rtts) a 2e6
        // sample at 0 s is gone once a 1e6 sample arrives 1.5 s later.
        let mut e = eva_with(EvaRateConfig {
            c_window: CWindow::Rtts,
            ..Default::default()
        });
        e.srtt = Some(Dur::from_millis(100));
        e.on_sample(ms(0), &in_flight(10), 2e6);
        e.on_sample(ms(1500), &in_flight(10), 1e6);
        assert_eq!(e.c_filter.get(), Some(1_000_000));
        // Default: the window is at least the detector's (tumbling 100 s): C stays 2e6.
        let mut e = eva();
        e.srtt = Some(Dur::from_millis(100));
        e.on_sample(ms(0), &in_flight(10), 2e6);
        e.on_sample(ms(1500), &in_flight(10), 1e6);
        assert_eq!(e.c_filter.get(), Some(2_000_000));
        // A window of B' samples spans from its oldest sample: B' samples at 0 and 4 s,
        // so at 5 s the C window is 5 s; at 12 s (oldest kept sample 4 s) it is 8 s.
        let mut e = eva_with(EvaRateConfig {
            hostile_window_kind: HostileWindowKind::Samples,
            hostile_window_samples: 2,
            ..Default::default()
        });
        e.push_bp(ms(0), 0.0);
        e.push_bp(ms(4000), 0.0);
        assert_eq!(e.detection_span(ms(5000)), Dur::from_secs(5));
        e.push_bp(ms(10_000), 0.0);
        assert_eq!(e.detection_span(ms(12_000)), Dur::from_secs(8));
    }

    #[test]
    fn window_of_samples_keeps_the_last_n() {
        // N = 3, decide from 2 samples: {0, 100} → std 50, not > 50: benevolent; {0, 100,
        // 200} → std 81.6: hostile; then {100, 200, 200} → std 47.1: benevolent.
        let mut e = eva_with(EvaRateConfig {
            hostile_window_kind: HostileWindowKind::Samples,
            hostile_window_samples: 3,
            hostile_min_samples: 2,
            ..Default::default()
        });
        e.push_bp(ms(0), 0.0);
        assert_eq!(e.env(), Env::Hostile); // initial mode, one sample
        e.push_bp(ms(100), 100.0);
        assert_eq!((e.env(), e.bp_std), (Env::Benevolent, 50.0));
        e.push_bp(ms(200), 200.0);
        assert_eq!(e.env(), Env::Hostile);
        assert!((e.bp_std - (20_000.0f64 / 3.0).sqrt()).abs() < 1e-9);
        e.push_bp(ms(300), 200.0);
        assert_eq!(e.env(), Env::Benevolent);
        assert!((e.bp_std - (20_000.0f64 / 9.0).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn hostile_iff_std_of_competitor_occupancy_exceeds_50_packets() {
        let mut e = eva_with(EvaRateConfig {
            hostile_window: Dur::from_secs(1),
            initial_mode: Env::Benevolent,
            ..Default::default()
        });
        // Tumbling 1 s window: samples 0, 100 → std 50 (not > 50) at the window end.
        e.push_bp(ms(100), 0.0);
        e.push_bp(ms(1000), 100.0);
        assert_eq!((e.env(), e.bp_std), (Env::Benevolent, 50.0));
        assert!(e.bp_samples.is_empty());
        // Next window: 0, 102 → std 51 → hostile.
        e.push_bp(ms(1500), 0.0);
        e.push_bp(ms(2000), 102.0);
        assert_eq!((e.env(), e.bp_std), (Env::Hostile, 51.0));
        // Sliding window with 2 samples minimum: decides on every sample.
        let mut e = eva_with(EvaRateConfig {
            hostile_window: Dur::from_secs(1),
            hostile_window_kind: HostileWindowKind::Sliding,
            hostile_min_samples: 2,
            ..Default::default()
        });
        e.push_bp(ms(0), 0.0);
        assert_eq!(e.env(), Env::Hostile);
        e.push_bp(ms(100), 10.0);
        assert_eq!((e.env(), e.bp_std), (Env::Benevolent, 5.0));
        // The 0-packet sample leaves the window at 1.1 s: {10, 200, 0}? no: {10, 200}.
        e.push_bp(ms(1100), 200.0);
        assert_eq!((e.env(), e.bp_std), (Env::Hostile, 95.0));
    }

    #[test]
    fn slow_start_grows_one_and_a_half_per_round_and_exits_when_sending_above_receive_rate() {
        // Eq. 4.12 as printed, for the arithmetic below.
        let mut e = eva_with(EvaRateConfig {
            rho_ewma_alpha: 0.125,
            ..Default::default()
        });
        e.rtt_min = Some(Dur::from_millis(40));
        e.srtt = Some(Dur::from_millis(40));
        e.rtt_max = Dur::from_millis(40);
        // Burst sample 1e6 B/s: S = 1.5e6 (nothing paced was measured yet).
        e.on_sample(ms(40), &in_flight(10), 1e6);
        assert_eq!(
            (e.phase(), e.rate, e.rate_measured),
            (Phase::SlowStart, Some(1.5e6), None)
        );
        // Round measured while unpaced: no exit test; S = 2.25e6.
        e.on_sample(ms(80), &in_flight(40), 1.4e6);
        assert_eq!((e.rate, e.rate_measured), (Some(2.25e6), Some(1.5e6)));
        // The 1.5e6 round arrives at 1.5e6 (grew 1.5e6/1.4e6 = 1.07 < 1.25): exit by the
        // growth rule → CA with B_target_initial = ρ̄(L_max − RTT_min), where
        // ρ̄ = 1/8·(1/8·1e6 + 7/8·1.4e6 = 1.35e6) + 7/8·1.5e6 = 0.16875e6 + 1.3125e6
        // = 1.48125e6 → 1.48125e6 · 0.06 / 1000 = 88.875 packets.
        e.on_sample(ms(120), &in_flight(60), 1.5e6);
        assert_eq!(e.phase(), Phase::CongestionAvoidance);
        assert!((e.rho_bar.unwrap() - 1.48125e6).abs() < 1e-6);
        assert!((e.b_target(ms(120)) - 10.0).abs() < 1e-9);
        // The CA law ran on the same sample: B = 60 − 1.5e6·0.04/1000 = 0 < 10 → re-arm
        // to min(ρ̄·(40 − 40 ms)/2 = 0, 2 · 88.875) = 0, floored at 10;
        // S = 1.48125e6 · (1 − 0.5·(0 − 10)/10) = 2.221875e6.
        assert_eq!(e.bt_init, 10.0);
        assert!((e.rate.unwrap() - 2.221875e6).abs() < 1e-6);
    }

    #[test]
    fn rto_discards_estimates_and_returns_to_a_burst() {
        let mut e = eva();
        steady(&mut e);
        e.rate = Some(2e6);
        e.on_rto(
            ms(2000),
            &RtoEvent {
                bytes_in_flight: 50 * MSS,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!(
            (e.phase(), e.rate, e.rho_bar, e.cwnd()),
            (Phase::SlowStart, None, None, 10 * MSS)
        );
        assert_eq!(e.pacing_rate(), None);
        assert_eq!(e.rtt_min, Some(Dur::from_millis(40)));
    }
}
