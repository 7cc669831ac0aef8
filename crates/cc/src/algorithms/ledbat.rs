//! LEDBAT (RFC 6817) as the Linux module that Ong 2020 evaluated: the Kühlewind/Fisches
//! `tcp_ledbat.c` for Linux 4.4 (Ong 2020 §2.2.7 and §3.6, "The implementation of
//! RFC6817 LEDBAT developed by [36] was compiled and used"; Ong 2020 notes §2.9).
//!
//! Per ACK outside loss recovery (the module's `cong_avoid`):
//! - one delay sample from `ack.owd` feeds the base-delay history and the current-delay
//!   filter (RFC 6817 §2.4.2 `update_base_delay` / `update_current_delay`);
//! - queuing_delay = MIN(current_delays) − MIN(base_delays) (RFC 6817 §2.4.2);
//! - slow start while cwnd ≤ ssthresh (Linux `tcp_slow_start`, module behaviour);
//! - off_target = TARGET − queuing_delay; cwnd += GAIN·off_target/TARGET·acked/cwnd in
//!   segments, accumulated in a counter so the window moves in whole segments
//!   (RFC 6817 §2.4.2 `cwnd += GAIN * off_target * bytes_newly_acked * MSS / cwnd`);
//! - cwnd ≤ flightsize + ALLOWED_INCREASE, cwnd ≥ MIN_CWND (RFC 6817 §2.4.2);
//! - ssthresh follows cwnd − 1 segment whenever cwnd ≤ ssthresh (module).
//!
//! Loss and ECN: ssthresh = max(cwnd/2, 2) and cwnd = ssthresh (`tcp_reno_ssthresh`;
//! RFC 6817 §2.4.2 "on data loss: cwnd = min(cwnd, max(cwnd/2, MIN_CWND * MSS))", at
//! most once per RTT, which the datapath guarantees by calling `on_congestion` once per
//! episode). Timeout: cwnd = 1 segment (RFC 6817 §2.4.2, Linux `tcp_enter_loss`).
//!
//! The window is kept in segments inside, as in the Linux module, and reported in bytes.
//! The shared part (delay signal, segment window, cap and floor) is also used by
//! `apple_ledbat`, which the thesis built on this module.
//!
//! Differences from the source (the reasoning is in docs/deviations/ledbat.md):
//! - CURRENT_FILTER and BASE_HISTORY default to 2 and 2 (the module Ong 2020 ran), not 4 and 10:
//!   docs/deviations/ledbat.md#ledbat-filter-history-defaults
//! - slow start is on, as in that module: docs/deviations/ledbat.md#ledbat-slow-start
//! - base-delay roll-over 60 s after the previous one, not at minute boundaries:
//!   docs/deviations/ledbat.md#ledbat-rollover
//! - one-way delay relative to the first sample, clamped at 0:
//!   docs/deviations/ledbat.md#ledbat-owd-clamp
//! - window arithmetic in whole segments through the module's counter:
//!   docs/deviations/ledbat.md#ledbat-segment-counter
//! - a separate decrease gain `gain_dec` (default 1): docs/deviations/ledbat.md#ledbat-gain-dec
//! - no delay sampling and no window change during loss recovery:
//!   docs/deviations/ledbat.md#ledbat-recovery

use crate::api::*;
use crate::estimators::base_delay::{LedbatDelayEstimator, Rollover};
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::reno::RenoWindow;
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ledbat",
    aliases: &["rfc6817"],
    summary: "LEDBAT: one-way-delay target with proportional window control (RFC 6817, Linux module of Ong 2020)",
    source: "RFC 6817 §2.4; Ong 2020 §2.2.7",
    params: PARAMS,
    build,
};

// Parameters shared with apple_ledbat (same names, same defaults: both modules share the
// template's module_params and macros).
pub(crate) const P_TARGET: ParamSpec = ParamSpec {
    name: "target",
    kind: ParamKind::Duration {
        min: Dur::from_millis(1),
        max: Dur::from_secs(10),
    },
    default: ParamValue::Dur(Dur::from_millis(100)),
    unit: "ms",
    doc: "TARGET: the queuing delay LEDBAT aims for (RFC 6817 says it MUST be 100 ms or less)",
    source:
        "RFC 6817 §2.5; Ong 2020 §2.2.7 (\"typically set to 100 ms\"); module param target = 100",
};
pub(crate) const P_CURRENT_FILTER: ParamSpec = ParamSpec {
    name: "current_filter",
    kind: ParamKind::Int { min: 1, max: 100 },
    default: ParamValue::Int(2),
    unit: "samples",
    doc: "CURRENT_FILTER: the current delay is the minimum of this many latest samples",
    source: "RFC 6817 §2.4.2; evaluated module tcp_ledbat.c module param current_filter = 2 (Ong 2020 notes §2.9)",
};
pub(crate) const P_BASE_HISTORY: ParamSpec = ParamSpec {
    name: "base_history",
    kind: ParamKind::Int { min: 2, max: 60 },
    default: ParamValue::Int(2),
    unit: "minutes",
    doc: "BASE_HISTORY: one-minute delay minima kept; the base delay is their minimum (RFC 6817 recommends 10)",
    source: "RFC 6817 §2.4.2, §2.5; evaluated module tcp_ledbat.c module param base_history = 2 (Ong 2020 notes §2.9)",
};
pub(crate) const P_ROLLOVER: ParamSpec = ParamSpec {
    name: "rollover",
    kind: ParamKind::Choice(&["elapsed", "minute"]),
    default: ParamValue::Choice("elapsed"),
    unit: "",
    doc: "When a new base-delay bucket starts: \"elapsed\" = 60 s after the previous one (Linux module), \"minute\" = at each new minute of the clock (RFC 6817 round_to_minute)",
    source: "evaluated module tcp_ledbat_update_base_delay (get_seconds() >= last_rollover + 60); RFC 6817 §2.4.2",
};
pub(crate) const P_ALLOWED_INCREASE: ParamSpec = ParamSpec {
    name: "allowed_increase",
    kind: ParamKind::Int { min: 1, max: 64 },
    default: ParamValue::Int(1),
    unit: "segments",
    doc: "ALLOWED_INCREASE: cwnd may exceed the flight size before the ACK by at most this many segments",
    source: "RFC 6817 §2.4.2, §2.5 (SHOULD be 1); module #define ALLOWED_INCREASE 1",
};
pub(crate) const P_MIN_CWND: ParamSpec = ParamSpec {
    name: "min_cwnd",
    kind: ParamKind::Int { min: 1, max: 64 },
    default: ParamValue::Int(2),
    unit: "segments",
    doc: "MIN_CWND: floor of the window after the LEDBAT update",
    source: "RFC 6817 §2.5 (SHOULD be 2); module #define MIN_CWND 2U",
};
pub(crate) const P_SLOW_START: ParamSpec = ParamSpec {
    name: "slow_start",
    kind: ParamKind::Bool,
    default: ParamValue::Bool(true),
    unit: "",
    doc: "Reno slow start while cwnd <= ssthresh before the LEDBAT rule (the evaluated module always does this; ssthresh starts infinite, so it lasts until the first loss)",
    source: "evaluated module tcp_ledbat_cong_avoid (tcp_slow_start when snd_cwnd <= snd_ssthresh); Ong 2020 notes §2.9",
};
pub(crate) const P_CLAMP_TO_FIRST: ParamSpec = ParamSpec {
    name: "clamp_to_first_owd",
    kind: ParamKind::Bool,
    default: ParamValue::Bool(true),
    unit: "",
    doc: "Measure one-way delay relative to the first sample and treat lower samples as 0, as the Linux module does; false uses the raw samples as RFC 6817 does",
    source: "evaluated module: delay = time - remote_time if time > remote_time, else 0 (Ong 2020 notes §2.0 shared OWD estimator)",
};

static PARAMS: &[ParamSpec] = &[
    P_TARGET,
    ParamSpec {
        name: "gain",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(1.0),
        unit: "",
        doc: "GAIN used while under target (increase); RFC 6817: GAIN MUST be 1 or less",
        source: "RFC 6817 §2.5; Ong 2020 §2.2.7 (GAIN = 1); module #define GAIN 1",
    },
    ParamSpec {
        name: "gain_dec",
        kind: ParamKind::Float { min: 0.0, max: 1000.0 },
        default: ParamValue::Float(1.0),
        unit: "",
        doc: "GAIN used while over target (decrease); 1 is RFC 6817 / the module; Trang 2015 studies 10",
        source: "RFC 6817 §2.4.2 (one GAIN); Trang 2015 §2.1 (gamma_dcr)",
    },
    P_ALLOWED_INCREASE,
    P_MIN_CWND,
    P_CURRENT_FILTER,
    P_BASE_HISTORY,
    P_ROLLOVER,
    P_SLOW_START,
    P_CLAMP_TO_FIRST,
];

/// LEDBAT's parameters. Defaults: the Linux module Ong 2020 evaluated (`tcp_ledbat.c`,
/// Ong 2020 notes §2.9), which keeps RFC 6817 §2.5's values except where noted. The
/// RFC 6817 / Trang 2015 variants are [`LedbatConfig::rfc6817`] and
/// [`LedbatConfig::trang2015_tuned`] (ledbat_presets.rs).
#[derive(Clone, Debug, PartialEq)]
pub struct LedbatConfig {
    /// TARGET, the queuing delay aimed for: 100 ms (RFC 6817 §2.5, MUST be ≤ 100 ms;
    /// Ong 2020 §2.2.7; module param target = 100).
    pub target: Dur,
    /// GAIN while under target (increase): 1 (RFC 6817 §2.5, MUST be ≤ 1; module GAIN 1).
    pub gain: f64,
    /// GAIN while over target (decrease): 1 as RFC 6817 §2.4.2's single GAIN; Trang 2015
    /// §2.1 studies 10 (γ_dcr).
    pub gain_dec: f64,
    /// ALLOWED_INCREASE, segments above the flight size cwnd may reach: 1 (RFC 6817
    /// §2.4.2, §2.5; module #define ALLOWED_INCREASE 1).
    pub allowed_increase: u64,
    /// MIN_CWND, segments: 2 (RFC 6817 §2.5; module #define MIN_CWND 2U).
    pub min_cwnd: u64,
    /// CURRENT_FILTER, samples: 2 (RFC 6817 §2.4.2; module param current_filter = 2).
    pub current_filter: usize,
    /// BASE_HISTORY, one-minute minima: 2 (module param base_history = 2; RFC 6817 §2.5
    /// recommends 10).
    pub base_history: usize,
    /// When a base-delay bucket starts: 60 s after the previous one, as the module
    /// (`tcp_ledbat_update_base_delay`); RFC 6817 §2.4.2 uses minute boundaries.
    pub rollover: Rollover,
    /// Reno slow start while cwnd ≤ ssthresh: on (module `tcp_ledbat_cong_avoid`;
    /// Ong 2020 notes §2.9).
    pub slow_start: bool,
    /// One-way delay relative to the first sample, lower samples taken as 0: on, as the
    /// module (Ong 2020 notes §2.0); off uses raw samples as RFC 6817.
    pub clamp_to_first_owd: bool,
}

impl Default for LedbatConfig {
    fn default() -> Self {
        LedbatConfig {
            target: Dur::from_millis(100),
            gain: 1.0,
            gain_dec: 1.0,
            allowed_increase: 1,
            min_cwnd: 2,
            current_filter: 2,
            base_history: 2,
            rollover: Rollover::Elapsed,
            slow_start: true,
            clamp_to_first_owd: true,
        }
    }
}

/// The words of the `rollover` choice (shared by the LEDBAT family's spec tables).
pub(crate) const ROLLOVER_WORDS: &[(&str, Rollover)] = &[
    ("elapsed", Rollover::Elapsed),
    ("minute", Rollover::MinuteBoundary),
];

/// The only place LEDBAT's parameter names are looked up (also for the `ledbat-rfc` and
/// `ledbat-tuned` presets, whose tables have the same names).
impl TryFrom<&ParamSet> for LedbatConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("ledbat");
        Ok(LedbatConfig {
            target: r.dur("target")?,
            gain: r.f64("gain")?,
            gain_dec: r.f64("gain_dec")?,
            allowed_increase: r.u64("allowed_increase")?,
            min_cwnd: r.u64("min_cwnd")?,
            current_filter: r.usize("current_filter")?,
            base_history: r.usize("base_history")?,
            rollover: r.choice_of("rollover", ROLLOVER_WORDS)?,
            slow_start: r.bool("slow_start")?,
            clamp_to_first_owd: r.bool("clamp_to_first_owd")?,
        })
    }
}

impl LedbatConfig {
    /// The window rules shared with the rest of the LEDBAT family.
    pub(crate) fn window_rules(&self) -> WindowRules {
        WindowRules {
            slow_start: self.slow_start,
            min_cwnd: self.min_cwnd,
            allowed_increase: self.allowed_increase,
        }
    }
}

/// The registry's entry point. `p` was resolved against `PARAMS`, so the conversion
/// cannot fail unless the spec table and `LedbatConfig` disagree, which
/// `config_defaults_match_spec_table` rules out.
fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = LedbatConfig::try_from(p).expect("ledbat: spec table and LedbatConfig agree");
    Box::new(Ledbat::new(&cfg, &init))
}

/// Where delay samples come from and how they are turned into a queuing delay: the
/// module's OWD handling in front of the RFC 6817 estimator.
#[derive(Clone, Debug)]
pub(crate) struct DelaySignal {
    pub est: LedbatDelayEstimator,
    clamp_to_first: bool,
    first: Option<i64>,
}

impl DelaySignal {
    pub fn new(
        base_history: usize,
        current_filter: usize,
        rollover: Rollover,
        clamp_to_first_owd: bool,
    ) -> Self {
        DelaySignal {
            est: LedbatDelayEstimator::new(base_history, current_filter, rollover),
            clamp_to_first: clamp_to_first_owd,
            first: None,
        }
    }

    /// One one-way delay sample (ns, with clock offset).
    pub fn on_owd(&mut self, now: Time, owd: i64) {
        let d = if self.clamp_to_first {
            // Module: remember the first timestamps as the origin; delay = time −
            // remote_time if positive, else 0 (Ong 2020 notes §2.0).
            let first = *self.first.get_or_insert(owd);
            (owd - first).max(0)
        } else {
            owd
        };
        self.est.update(now, d);
    }

    /// A sample used as is (e.g. an RTT).
    pub fn on_raw(&mut self, now: Time, delay: i64) {
        self.est.update(now, delay);
    }

    /// Queuing delay in ns; 0 before any sample (no information: as the module with
    /// zero timestamps), and never negative (see docs/deviations/ledbat.md#ledbat-no-wraparound).
    pub fn queuing_delay(&self) -> i64 {
        self.est.queuing_delay().unwrap_or(0).max(0)
    }

    /// Base, current and queuing delay (ms) for traces; shared by the LEDBAT family.
    pub fn trace(&self, queuing_delay: i64, out: &mut Vec<(&'static str, f64)>) {
        let ms = |ns: i64| ns as f64 / 1e6;
        if let Some(b) = self.est.base.base() {
            out.push(("base_delay_ms", ms(b)));
        }
        if let Some(c) = self.est.current.current() {
            out.push(("current_delay_ms", ms(c)));
        }
        out.push(("queuing_delay_ms", ms(queuing_delay)));
    }
}

/// The window parameters the LEDBAT family shares (`slow_start`, `min_cwnd`,
/// `allowed_increase`: P_SLOW_START, P_MIN_CWND, P_ALLOWED_INCREASE).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WindowRules {
    pub slow_start: bool,
    pub min_cwnd: u64,
    pub allowed_increase: u64,
}

/// For algorithms that still build their window from a `ParamSet` holding the three
/// shared parameters (eclipse, through [`SegmentWindow::new`]).
impl TryFrom<&ParamSet> for WindowRules {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("ledbat-family window");
        Ok(WindowRules {
            slow_start: r.bool("slow_start")?,
            min_cwnd: r.u64("min_cwnd")?,
            allowed_increase: r.u64("allowed_increase")?,
        })
    }
}

/// The segment-counted window with the module's slow start, cap, floor and ssthresh
/// bookkeeping. `w` is a `RenoWindow` in units of segments (mss = 1).
#[derive(Clone, Debug)]
pub(crate) struct SegmentWindow {
    pub w: RenoWindow,
    pub mss: u64,
    acked_rem: u64,
    pub slow_start: bool,
    pub min_cwnd: u64,
    pub allowed_increase: u64,
}

impl SegmentWindow {
    pub fn with_rules(rules: WindowRules, init: &CcInit) -> Self {
        let mss = init.mss.max(1);
        SegmentWindow {
            w: RenoWindow::new((init.initial_cwnd / mss).max(1)),
            mss,
            acked_rem: 0,
            slow_start: rules.slow_start,
            min_cwnd: rules.min_cwnd,
            allowed_increase: rules.allowed_increase,
        }
    }

    /// From a resolved `ParamSet` whose spec table includes P_SLOW_START, P_MIN_CWND and
    /// P_ALLOWED_INCREASE (eclipse's does), so the conversion cannot fail.
    pub fn new(p: &ParamSet, init: &CcInit) -> Self {
        let rules = WindowRules::try_from(p)
            .expect("the spec table includes slow_start, min_cwnd and allowed_increase");
        Self::with_rules(rules, init)
    }

    /// Whole segments acknowledged by this ACK (Linux counts segments); a remainder of a
    /// partial segment is carried to the next ACK.
    pub fn acked_segments(&mut self, ack: &AckSample) -> u64 {
        self.mss = ack.mss.max(1);
        let total = self.acked_rem + ack.bytes_acked;
        self.acked_rem = total % self.mss;
        total / self.mss
    }

    /// The module's gate in front of its delay rule: count the acknowledged segments
    /// (always, so a partial segment carries over), change nothing while the flow is not
    /// cwnd-limited ("don't change cwnd if not cwnd-limited"), then slow start. Returns
    /// the segments left for the delay rule, or `None` when there is nothing to do.
    pub fn segments_for_delay_rule(&mut self, ack: &AckSample) -> Option<u64> {
        let acked = self.acked_segments(ack);
        if !ack.cwnd_limited {
            return None;
        }
        self.slow_start(acked)
    }

    /// Module: `if (snd_cwnd <= snd_ssthresh) { acked = tcp_slow_start(tp, acked); if
    /// (!acked) return; }`. Returns the segments left for congestion avoidance, or
    /// `None` when slow start used them all.
    pub fn slow_start(&mut self, acked: u64) -> Option<u64> {
        if self.slow_start && self.w.cwnd <= self.w.ssthresh {
            let left = self.w.slow_start(acked);
            return (left > 0).then_some(left);
        }
        Some(acked)
    }

    /// The module's tail after the LEDBAT rule proposed `cwnd` (segments, may be
    /// negative): cap at flightsize + ALLOWED_INCREASE (RFC 6817 §2.4.2
    /// `max_allowed_cwnd = flightsize + ALLOWED_INCREASE * MSS`, module
    /// `packets_out + acked + ALLOWED_INCREASE`), floor at MIN_CWND, and keep ssthresh
    /// below cwnd ("also adapt ssthresh if the cwnd is reduced").
    pub fn finish(&mut self, cwnd: i64, ack: &AckSample, acked: u64) {
        let packets_out = ack.bytes_in_flight.div_ceil(self.mss);
        let max_allowed = packets_out + acked + self.allowed_increase;
        let cwnd = (cwnd.max(0) as u64).min(max_allowed).max(self.min_cwnd);
        self.w.cwnd = cwnd;
        if self.w.cwnd <= self.w.ssthresh {
            self.w.ssthresh = self.w.cwnd.saturating_sub(1);
        }
    }

    /// Loss or ECN: `tcp_reno_ssthresh` = max(cwnd/2, 2), and cwnd = ssthresh at the end of
    /// recovery (RFC 6817 §2.4.2 "on data loss").
    pub fn on_congestion(&mut self) {
        self.w.multiplicative_decrease(0.5, 1);
    }

    /// RFC 6817 §2.4.2: "cwnd = 1 * MSS"; ssthresh as Linux `tcp_enter_loss`.
    pub fn on_rto(&mut self) {
        self.w.on_timeout(1);
    }

    pub fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd.saturating_mul(self.mss)
    }

    pub fn ssthresh_bytes(&self) -> u64 {
        if self.w.ssthresh == u64::MAX {
            u64::MAX
        } else {
            self.w.ssthresh.saturating_mul(self.mss)
        }
    }
}

/// The module's fractional-window counter `cwnd_cnt`: once |cwnd_cnt| ≥ cwnd·`scale`,
/// inc = trunc(cwnd_cnt / scale / cwnd) whole segments move into the window and
/// inc·cwnd·scale leave the counter. Returns the proposed window (segments, may be
/// negative) for [`SegmentWindow::finish`]. `scale` is the unit the counter was added up
/// in besides segments: TARGET in ns for LEDBAT (RFC 6817 §2.4.2 off_target is a
/// fraction of TARGET), 1 for Eclipse (Ong 2020 eq. 2.9, off_target already a fraction).
pub(crate) fn drain_cwnd_cnt(cwnd_cnt: &mut f64, cwnd: u64, scale: f64) -> i64 {
    let c = cwnd as f64;
    let mut new_cwnd = cwnd as i64;
    if cwnd_cnt.abs() >= c * scale {
        let inc = (*cwnd_cnt / scale / c).trunc();
        new_cwnd += inc as i64;
        *cwnd_cnt -= inc * c * scale;
    }
    new_cwnd
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    delay: DelaySignal,
    win: SegmentWindow,
    target_ns: i64,
    gain: f64,
    gain_dec: f64,
    /// The module's `cwnd_cnt`: Σ GAIN·off_target·acked, in ns·segments.
    cwnd_cnt: f64,
    /// Last queuing delay used, ns (for traces and tests).
    queuing_delay: i64,
}

impl Ledbat {
    pub fn new(cfg: &LedbatConfig, init: &CcInit) -> Ledbat {
        Ledbat {
            delay: DelaySignal::new(
                cfg.base_history,
                cfg.current_filter,
                cfg.rollover,
                cfg.clamp_to_first_owd,
            ),
            win: SegmentWindow::with_rules(cfg.window_rules(), init),
            target_ns: cfg.target.nanos() as i64,
            gain: cfg.gain,
            gain_dec: cfg.gain_dec,
            cwnd_cnt: 0.0,
            queuing_delay: 0,
        }
    }

    /// Queuing delay (ns) the last update used.
    pub fn queuing_delay(&self) -> i64 {
        self.queuing_delay
    }

    /// The fractional-window counter, ns·segments.
    pub fn cwnd_cnt(&self) -> f64 {
        self.cwnd_cnt
    }
}

impl CongestionControl for Ledbat {
    fn name(&self) -> &'static str {
        "ledbat"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        // Linux 4.4 calls cong_avoid only outside Recovery/CWR (tcp_may_raise_cwnd), so
        // the module neither samples delay nor changes cwnd during recovery.
        if ack.in_recovery {
            return;
        }
        // RFC 6817 §2.4.2: update_base_delay(delay); update_current_delay(delay).
        if let Some(owd) = ack.owd {
            self.delay.on_owd(now, owd);
        }
        // RFC 6817 §2.4.2: queuing_delay = FILTER(current_delays) − MIN(base_delays).
        let q = self.delay.queuing_delay();
        self.queuing_delay = q;
        // Module: "don't change cwnd if not cwnd-limited"; slow start first.
        let Some(acked) = self.win.segments_for_delay_rule(ack) else {
            return;
        };

        // RFC 6817 §2.4.2: off_target = (TARGET − queuing_delay) / TARGET;
        // cwnd += GAIN · off_target · bytes_newly_acked · MSS / cwnd. Module form, in
        // segments: cwnd_cnt += GAIN·(target − q)·acked; once |cwnd_cnt| ≥ cwnd·target,
        // inc = cwnd_cnt / target / cwnd (truncated), cwnd += inc,
        // cwnd_cnt −= inc·cwnd·target. gain_dec replaces GAIN when over target (Trang 2015).
        let off_target = self.target_ns - q;
        let gain = if off_target >= 0 {
            self.gain
        } else {
            self.gain_dec
        };
        self.cwnd_cnt += gain * off_target as f64 * acked as f64;
        let new_cwnd = drain_cwnd_cnt(&mut self.cwnd_cnt, self.win.w.cwnd, self.target_ns as f64);
        // RFC 6817 §2.4.2: cwnd = min(cwnd, max_allowed_cwnd); cwnd = max(cwnd, MIN_CWND·MSS).
        self.win.finish(new_cwnd, ack, acked);
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        self.win.on_congestion();
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.win.on_rto();
    }

    fn cwnd(&self) -> u64 {
        self.win.cwnd_bytes()
    }

    fn ssthresh(&self) -> u64 {
        self.win.ssthresh_bytes()
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.delay.trace(self.queuing_delay, out);
        out.push((
            "off_target",
            (self.target_ns - self.queuing_delay) as f64 / self.target_ns as f64,
        ));
        out.push((
            "cwnd_cnt_segments",
            self.cwnd_cnt / self.target_ns as f64 / (self.win.w.cwnd.max(1) as f64),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: i64 = 1_000_000;

    fn init() -> CcInit {
        CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(1),
        }
    }

    fn make(cfg: LedbatConfig) -> Ledbat {
        Ledbat::new(&cfg, &init())
    }

    /// An ACK of `segs` segments with a one-way delay sample; 100 segments in flight so
    /// that the flight-size cap does not bind unless a test wants it to.
    fn ack(segs: u64, owd_ms: i64) -> AckSample {
        AckSample {
            bytes_acked: segs * MSS,
            owd: Some(owd_ms * MS),
            bytes_in_flight: 100 * MSS,
            ..AckSample::empty(MSS)
        }
    }

    fn no_ss() -> LedbatConfig {
        LedbatConfig {
            slow_start: false,
            current_filter: 1,
            ..Default::default()
        }
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            LedbatConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            LedbatConfig::default()
        );
        // A value set by name reaches its field.
        let v = crate::params::RawParam::Text("minute".into());
        let p = INFO.resolve([("rollover", &v)]).unwrap();
        assert_eq!(
            LedbatConfig::try_from(&p).unwrap().rollover,
            Rollover::MinuteBoundary
        );
    }

    #[test]
    fn exact_windows_below_at_and_above_target() {
        let mut l = make(no_ss());
        let t = Time(0);
        // Below target, q = 0 (owd 5 ms, the first sample is the origin): each ACK adds
        // GAIN·(100 ms − 0)·1 = 1e8 to cwnd_cnt; at cwnd·target = 10·1e8 (10th ACK) the
        // window grows by 1e9/1e8/10 = 1 segment and the counter empties.
        for i in 0..10 {
            assert_eq!(l.cwnd(), 10 * MSS, "ack {i}");
            l.on_ack(t, &ack(1, 5));
        }
        assert_eq!(l.cwnd(), 11 * MSS);
        assert_eq!(l.cwnd_cnt(), 0.0);
        // First CA step: cwnd 10 <= ssthresh (inf) → ssthresh = 9 segments.
        assert_eq!(l.ssthresh(), 9 * MSS);
        // q = 50 ms (owd 55 ms): +5e7 per ACK; 11 segments need 11e8, i.e. 22 ACKs.
        for _ in 0..21 {
            l.on_ack(t, &ack(1, 55));
        }
        assert_eq!(l.queuing_delay(), 50 * MS);
        assert_eq!(l.cwnd(), 11 * MSS);
        l.on_ack(t, &ack(1, 55));
        assert_eq!(l.cwnd(), 12 * MSS);
        // At target (owd 105 ms → q = 100 ms): off_target = 0, no change.
        for _ in 0..5 {
            l.on_ack(t, &ack(1, 105));
        }
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (12 * MSS, 0.0));
        // Above target (owd 405 ms → q = 400 ms): off_target = −300 ms → −3e8 per ACK.
        // cwnd 12: −12e8 after 4 ACKs → inc = −12e8/1e8/12 = −1 → 11, counter 0.
        for _ in 0..3 {
            l.on_ack(t, &ack(1, 405));
        }
        assert_eq!(l.cwnd(), 12 * MSS);
        l.on_ack(t, &ack(1, 405));
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (11 * MSS, 0.0));
        // cwnd 11: after 4 more ACKs −12e8 ≥ 11e8 → inc = trunc(−1.09) = −1 → 10,
        // counter −12e8 + 11e8 = −1e8.
        for _ in 0..4 {
            l.on_ack(t, &ack(1, 405));
        }
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (10 * MSS, -1e8));
        assert_eq!(l.ssthresh(), 9 * MSS);
        // A stretch ACK of 4 segments: −1e8 − 4·3e8 = −13e8; threshold 10e8 →
        // inc = trunc(−1.3) = −1 → 9, counter −13e8 + 10e8 = −3e8; 9 <= 9 → ssthresh 8.
        l.on_ack(t, &ack(4, 405));
        assert_eq!(
            (l.cwnd(), l.cwnd_cnt(), l.ssthresh()),
            (9 * MSS, -3e8, 8 * MSS)
        );
    }

    #[test]
    fn gain_dec_scales_only_the_decrease_and_the_floor_holds() {
        let mut l = make(LedbatConfig {
            gain_dec: 10.0,
            ..no_ss()
        });
        let t = Time(0);
        // Increase unaffected: q = 0 → +1·1e8.
        l.on_ack(t, &ack(1, 5));
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (10 * MSS, 1e8));
        // q = 400 ms: 10·(−3e8) = −3e9; cnt = −29e8; threshold 10e8 → inc = trunc(−2.9) = −2
        // → cwnd 8, cnt = −29e8 + 2·10·1e8 = −9e8.
        l.on_ack(t, &ack(1, 405));
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (8 * MSS, -9e8));
        // cnt = −39e8, threshold 8e8 → inc = trunc(−4.875) = −4 → 4, cnt = −39e8 + 32e8 = −7e8.
        l.on_ack(t, &ack(1, 405));
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (4 * MSS, -7e8));
        // cnt = −37e8, threshold 4e8 → inc = trunc(−9.25) = −9 → 4 − 9 < 0 → floor MIN_CWND = 2;
        // cnt = −37e8 + 9·4·1e8 = −1e8.
        l.on_ack(t, &ack(1, 405));
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (2 * MSS, -1e8));
        assert_eq!(l.ssthresh(), MSS); // cwnd − 1 segment
                                       // Same with gain_dec = 1: −3e8 per ACK only.
        let mut l1 = make(no_ss());
        l1.on_ack(t, &ack(1, 5));
        l1.on_ack(t, &ack(1, 405));
        assert_eq!((l1.cwnd(), l1.cwnd_cnt()), (10 * MSS, -2e8));
    }

    #[test]
    fn flight_size_caps_the_window() {
        let mut l = make(no_ss());
        // 5 segments in flight after the ACK of 1: max_allowed = 5 + 1 + 1 = 7.
        let a = AckSample {
            bytes_in_flight: 5 * MSS,
            ..ack(1, 5)
        };
        l.on_ack(Time(0), &a);
        assert_eq!((l.cwnd(), l.ssthresh()), (7 * MSS, 6 * MSS));
        // allowed_increase = 3 → 5 + 1 + 3 = 9.
        let mut l = make(LedbatConfig {
            allowed_increase: 3,
            ..no_ss()
        });
        l.on_ack(Time(0), &a);
        assert_eq!(l.cwnd(), 9 * MSS);
    }

    #[test]
    fn base_delay_rollover_raises_the_base_and_lowers_queuing_delay() {
        // base_history 2, current_filter 1, elapsed roll-over (module default).
        let mut l = make(no_ss());
        let s = |x: u64| Time(x * 1_000_000_000);
        // t=0: owd 10 ms is the origin (0) → bucket 1 = [0]; q = 0; cnt = 1e8.
        l.on_ack(s(0), &ack(1, 10));
        assert_eq!(l.queuing_delay(), 0);
        // t=1 s: owd 60 ms → 50 ms; q = 50 ms; cnt += 5e7.
        l.on_ack(s(1), &ack(1, 60));
        assert_eq!(l.queuing_delay(), 50 * MS);
        // t=60 s: new bucket [0, 50 ms]; base still 0; q = 50 ms; cnt += 5e7.
        l.on_ack(s(60), &ack(1, 60));
        assert_eq!(l.queuing_delay(), 50 * MS);
        // t=120 s: new bucket evicts the one holding 0 → [50, 50]; q = 0; cnt += 1e8.
        l.on_ack(s(120), &ack(1, 60));
        assert_eq!(l.queuing_delay(), 0);
        assert_eq!(l.cwnd_cnt(), 3e8);
        assert_eq!(l.cwnd(), 10 * MSS);
        // With RFC minute boundaries the bucket at t=60 s starts at 60 s too, but one at
        // t=119 s would not roll: check the difference directly.
        let mut m = make(LedbatConfig {
            rollover: Rollover::MinuteBoundary,
            ..no_ss()
        });
        m.on_ack(s(30), &ack(1, 10)); // origin, bucket of minute 0
        m.on_ack(s(31), &ack(1, 60));
        m.on_ack(s(60), &ack(1, 60)); // minute 1 (elapsed mode would wait until 90 s)
        m.on_ack(s(120), &ack(1, 60)); // minute 2 evicts minute 0
        assert_eq!(m.queuing_delay(), 0);
        let mut e = make(no_ss());
        e.on_ack(s(30), &ack(1, 10));
        e.on_ack(s(31), &ack(1, 60));
        e.on_ack(s(60), &ack(1, 60)); // same bucket as 30 s
        e.on_ack(s(120), &ack(1, 60)); // 2nd bucket: [0, 50]
        assert_eq!(e.queuing_delay(), 50 * MS);
    }

    #[test]
    fn clamp_to_first_owd_versus_raw_samples() {
        // The first sample carried 40 ms of queue: the module's origin hides the lower
        // later samples (delay = 0), raw RFC samples see them.
        let mut l = make(no_ss());
        l.on_ack(Time(0), &ack(1, 50));
        l.on_ack(Time(0), &ack(1, 10)); // 10 − 50 < 0 → 0
        l.on_ack(Time(0), &ack(1, 50)); // 0 → q = 0
        assert_eq!(l.queuing_delay(), 0);
        let p = LedbatConfig {
            clamp_to_first_owd: false,
            ..no_ss()
        };
        let mut r = make(p.clone());
        r.on_ack(Time(0), &ack(1, 50));
        r.on_ack(Time(0), &ack(1, 10));
        r.on_ack(Time(0), &ack(1, 50)); // base 10 ms → q = 40 ms
        assert_eq!(r.queuing_delay(), 40 * MS);
        // Negative raw OWDs (clock offset) are fine.
        let mut n = make(p);
        n.on_ack(Time(0), &ack(1, -300));
        n.on_ack(Time(0), &ack(1, -280));
        assert_eq!(n.queuing_delay(), 20 * MS);
    }

    #[test]
    fn default_slow_start_until_loss_then_ledbat_and_timeout() {
        let mut l = make(LedbatConfig::default());
        let t = Time(0);
        // Defaults: slow start while cwnd <= ssthresh (infinite), regardless of delay.
        l.on_ack(t, &ack(1, 10)); // origin
        for _ in 0..4 {
            l.on_ack(t, &ack(1, 400)); // q = 390 ms, still slow start
        }
        assert_eq!((l.cwnd(), l.ssthresh()), (15 * MSS, u64::MAX));
        assert_eq!(l.cwnd_cnt(), 0.0);
        // Loss: ssthresh = max(15/2, 2) = 7 segments, cwnd = 7.
        let ev = CongestionEvent {
            kind: CongestionKind::Loss,
            bytes_in_flight: 15 * MSS,
            bytes_lost: MSS,
            mss: MSS,
        };
        l.on_congestion(t, &ev);
        assert_eq!((l.cwnd(), l.ssthresh()), (7 * MSS, 7 * MSS));
        // In recovery: neither sampling nor growth.
        l.on_ack(
            t,
            &AckSample {
                in_recovery: true,
                ..ack(1, 10)
            },
        );
        assert_eq!(l.cwnd(), 7 * MSS);
        // Not cwnd-limited: the sample is taken (filter = [390, 0] → q = 0) but no growth.
        l.on_ack(
            t,
            &AckSample {
                cwnd_limited: false,
                ..ack(1, 10)
            },
        );
        assert_eq!((l.cwnd(), l.queuing_delay()), (7 * MSS, 0));
        // cwnd 7 <= ssthresh 7: slow start has no room, leftover 1 → LEDBAT: cnt = 1e8 <
        // 7e8 → cwnd 7; 7 <= 7 → ssthresh 6.
        l.on_ack(t, &ack(1, 10));
        assert_eq!(
            (l.cwnd(), l.ssthresh(), l.cwnd_cnt()),
            (7 * MSS, 6 * MSS, 1e8)
        );
        // Timeout: ssthresh = max(7/2, 2) = 3, cwnd = 1 segment.
        l.on_rto(
            t,
            &RtoEvent {
                bytes_in_flight: 7 * MSS,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((l.cwnd(), l.ssthresh()), (MSS, 3 * MSS));
        l.on_ack(t, &ack(1, 10)); // slow start 1 → 2 (below MIN_CWND is fine here)
        l.on_ack(t, &ack(1, 10)); // 2 → 3 = ssthresh, nothing left
        assert_eq!((l.cwnd(), l.ssthresh()), (3 * MSS, 3 * MSS));
        // 3 <= 3: leftover 1 → cnt 2e8 < 3e8 → cwnd 3, ssthresh 2.
        l.on_ack(t, &ack(1, 10));
        assert_eq!(
            (l.cwnd(), l.ssthresh(), l.cwnd_cnt()),
            (3 * MSS, 2 * MSS, 2e8)
        );
        // Now in congestion avoidance: cnt 3e8 ≥ 3·1e8 → cwnd 4.
        l.on_ack(t, &ack(1, 10));
        assert_eq!((l.cwnd(), l.cwnd_cnt()), (4 * MSS, 0.0));
    }

    #[test]
    fn partial_segments_are_carried() {
        let mut l = make(no_ss());
        // Two ACKs of half a segment each count as one segment in total.
        let half = AckSample {
            bytes_acked: MSS / 2,
            ..ack(0, 5)
        };
        l.on_ack(Time(0), &half);
        assert_eq!(l.cwnd_cnt(), 0.0);
        l.on_ack(Time(0), &half);
        assert_eq!(l.cwnd_cnt(), 1e8);
    }

    #[test]
    fn trace_names_are_reported() {
        let mut l = make(no_ss());
        l.on_ack(Time(0), &ack(1, 5));
        l.on_ack(Time(0), &ack(1, 25));
        let mut out = Vec::new();
        l.trace(&mut out);
        let get = |n: &str| out.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        assert_eq!(get("base_delay_ms"), Some(0.0));
        assert_eq!(get("queuing_delay_ms"), Some(20.0));
        assert_eq!(get("off_target"), Some(0.8));
    }
}
