//! FLOWER, the fuzzy lower-than-best-effort transport of Trang 2015 (Trang, ISAE 2015,
//! ch. 4; engineering notes in /work/shared/specs/001-flower.md §3).
//!
//! - Queueing delay: the RFC 6817 estimator LEDBAT uses (Trang 2015 §4.2.1, "FLOWER uses
//!   the same LEDBAT queuing delay estimator"): per ACK, q = MIN(last CURRENT_FILTER
//!   one-way delays) − MIN(BASE_HISTORY one-minute minima).
//! - Once per RTT (Trang 2015 §4.2: "after each RTT, FLOWER filters out the minimum queuing
//!   delay observed during the RTT as the current queuing delay") the controller takes
//!   q(k) = the minimum q of that round, e(k) = τ − q(k), Δe(k) = q(k−1) − q(k), normalises
//!   e (§4.5.1), fuzzifies both inputs with triangular membership functions, infers with
//!   min/min (§4.6.2) and defuzzifies with the centre average (§4.6.3) into Δcwnd ∈
//!   [−1, +1] packet, added to cwnd (§4.3.2 `cwnd(k) = cwnd(k−1) + Δcwnd(k)`).
//! - Loss-detection zone (§4.4.3 zone 6, §4.5.2): when Δe > sde₊ a rule with the NVVL
//!   (−∞) consequent fires and cwnd is reset to its minimum, one packet.
//! - Peak-valley detector (§4.2.2, Fig 4.2) supplies q_max for the normalisation of e and
//!   the outer Δe breakpoints; sde₊/sde₋ are EWMAs of the positive/negative Δe (§4.5.2).
//! - Slow start at connection start until the first loss, as a synchronisation signal
//!   for latecomers (§4.2.3); on its own losses FLOWER resets cwnd to one packet (§5.2.1).
//!   Latecomer resynchronisation is the combination of both: the newcomer's slow-start
//!   spike either makes the others lose (they reset) or, when it ends in the newcomer's
//!   own reset, the sharp queue fall fires their loss-detection zone (§4.2.3).
//!
//! The membership functions and the rule base are data ([`FuzzyTable`]); the default is
//! the constant table in `flower/table.rs` ([`E_SETS`], [`DE_SETS`], [`OUT_SETS`],
//! [`RULES`]), and another table can be given with [`Flower::with_table`]. Assumptions the
//! thesis leaves open are listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/flower.md):
//! - rule base and membership functions reconstructed, kept as a replaceable constant table:
//!   docs/deviations/flower.md#flower-rule-base
//! - the sign of the normalised error above the target: docs/deviations/flower.md#flower-error-sign
//! - Δe breakpoints: initial values, EWMA weight, monotonicity:
//!   docs/deviations/flower.md#flower-de-breakpoints
//! - one controller step per round; rounds also end after one RTT of time:
//!   docs/deviations/flower.md#flower-timing
//! - growth during loss recovery (`grow_in_recovery = true`):
//!   docs/deviations/flower.md#flower-recovery-growth

use super::fractional_window;
use crate::api::*;
use crate::estimators::base_delay::{LedbatDelayEstimator, Rollover};
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};
use std::collections::VecDeque;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "flower",
    aliases: &[],
    summary: "FLOWER: fuzzy LBE controller on LEDBAT's queueing-delay estimate, one update per RTT, loss-detection zone (Trang 2015 ch. 4)",
    source: "Trang 2015 ch. 4 (Trang 2015); /work/shared/specs/001-flower.md §3",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "target",
        kind: ParamKind::Duration { min: Dur::from_millis(1), max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::from_millis(100)),
        unit: "ms",
        doc: "Target queueing delay τ",
        source: "Trang 2015 §5.1.2 and ch. 6 (τ = 100 ms in every FLOWER experiment)",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(1),
        unit: "packets",
        doc: "Minimum (and reset) window; the loss-detection zone and losses reset cwnd to it",
        source: "Trang 2015 §5.2.1 (\"its initial value which equals to one packet in our implementation\")",
    },
    ParamSpec {
        name: "base_history",
        kind: ParamKind::Int { min: 1, max: 60 },
        default: ParamValue::Int(10),
        unit: "minutes",
        doc: "BASE_HISTORY of the RFC 6817 queueing-delay estimator",
        source: "Trang 2015 §4.2.1 (the RFC 6817 estimator) and §2.5 (\"size of sliding window is 10\"); Valenti module base_histo_len = 10",
    },
    ParamSpec {
        name: "current_filter",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(4),
        unit: "samples",
        doc: "CURRENT_FILTER: per-ACK current delay = minimum of this many latest samples",
        source: "RFC 6817 §2.4.2; Valenti module noise_filter_len = 4 (Trang 2015 notes §2.3)",
    },
    ParamSpec {
        name: "rollover",
        kind: ParamKind::Choice(&["minute", "elapsed"]),
        default: ParamValue::Choice("minute"),
        unit: "",
        doc: "Base-delay bucket roll-over: \"minute\" at each clock minute (RFC 6817), \"elapsed\" 60 s after the last one",
        source: "RFC 6817 §2.4.2 round_to_minute",
    },
    ParamSpec {
        name: "peak_window",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(5),
        unit: "RTTs",
        doc: "n of the peak-valley detector: q(k−n) is a peak/valley if above/below all of its n right neighbours",
        source: "Trang 2015 §4.2.2 (n = 5)",
    },
    ParamSpec {
        name: "peak_alpha",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.125),
        unit: "",
        doc: "EWMA weight of the peak threshold S",
        source: "Trang 2015 §4.2.2 (α = 1/8)",
    },
    ParamSpec {
        name: "peak_threshold_init",
        kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::ZERO),
        unit: "ms",
        doc: "Initial value of the peak threshold S (not given by the thesis)",
        source: "assumption, Trang 2015 notes §3.8 [A: S = 0]",
    },
    ParamSpec {
        name: "de_qmax_init",
        kind: ParamKind::Duration { min: Dur::from_micros(10), max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::from_millis(5)),
        unit: "ms",
        doc: "Initial (and minimum) outer Δe breakpoint q_max",
        source: "Trang 2015 §4.5.2 ({−q_max, sde₋, sde₊, q_max} initialised to {−5, −4, 4, 5})",
    },
    ParamSpec {
        name: "sde_init",
        kind: ParamKind::Duration { min: Dur::from_micros(10), max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::from_millis(4)),
        unit: "ms",
        doc: "Initial (and minimum magnitude) of the adaptive Δe breakpoints sde₊ / −sde₋",
        source: "Trang 2015 §4.5.2 ({−q_max, sde₋, sde₊, q_max} initialised to {−5, −4, 4, 5})",
    },
    ParamSpec {
        name: "sde_alpha",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.125),
        unit: "",
        doc: "EWMA weight of sde₊ / sde₋ (not given by the thesis)",
        source: "assumption, Trang 2015 notes §3.5 [A: 1/8, as the peak detector]",
    },
    ParamSpec {
        name: "slow_start",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Slow start at connection start until the first loss (the latecomer synchronisation signal)",
        source: "Trang 2015 §4.2.3, §5.2.1",
    },
    ParamSpec {
        name: "grow_in_recovery",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Let the controller grow the (reset) window during loss recovery; false freezes it until recovery ends, as a Reno-style datapath would",
        source: "assumption (docs/deviations/flower.md): the thesis shows FLOWER regrowing right after its reset (Trang 2015 §5.2.1, Fig 5.1a)",
    },
    ParamSpec {
        name: "restart_slow_start",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "Slow start again after a loss or timeout reset (the thesis implies not: FLOWER regrows under the controller)",
        source: "assumption, Trang 2015 notes §3.9 [A: slow start only at connection start]",
    },
];

/// FLOWER's parameters. Defaults: Trang 2015 where it gives a value, RFC 6817 for the
/// delay estimator, and our assumptions (marked) where the thesis is silent.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowerConfig {
    /// `target`: target queueing delay τ. Trang 2015 §5.1.2 and ch. 6 (τ = 100 ms in
    /// every FLOWER experiment).
    pub target: Dur,
    /// `min_cwnd`, packets: minimum (and reset) window. Trang 2015 §5.2.1 ("its initial
    /// value which equals to one packet in our implementation").
    pub min_cwnd: u64,
    /// `base_history`, minutes: BASE_HISTORY of the RFC 6817 estimator. Trang 2015
    /// §4.2.1, §2.5 ("size of sliding window is 10").
    pub base_history: usize,
    /// `current_filter`, samples: CURRENT_FILTER. RFC 6817 §2.4.2; Valenti module
    /// noise_filter_len = 4 (Trang 2015 notes §2.3).
    pub current_filter: usize,
    /// `rollover`: base-delay buckets roll over at each clock minute (RFC 6817 §2.4.2
    /// round_to_minute), or 60 s after the last one.
    pub rollover: Rollover,
    /// `peak_window`, RTTs: n of the peak-valley detector. Trang 2015 §4.2.2 (n = 5).
    pub peak_window: usize,
    /// `peak_alpha`: EWMA weight of the peak threshold S. Trang 2015 §4.2.2 (α = 1/8).
    pub peak_alpha: f64,
    /// `peak_threshold_init`: initial S; assumption 0 (Trang 2015 notes §3.8).
    pub peak_threshold_init: Dur,
    /// `de_qmax_init`: initial (and minimum) outer Δe breakpoint q_max. Trang 2015
    /// §4.5.2 ({−q_max, sde₋, sde₊, q_max} initialised to {−5, −4, 4, 5} ms).
    pub de_qmax_init: Dur,
    /// `sde_init`: initial (and minimum magnitude) sde₊ / −sde₋. Trang 2015 §4.5.2.
    pub sde_init: Dur,
    /// `sde_alpha`: EWMA weight of sde₊ / sde₋; assumption 1/8 (Trang 2015 notes §3.5).
    pub sde_alpha: f64,
    /// `slow_start`: slow start at connection start until the first loss. Trang 2015
    /// §4.2.3, §5.2.1.
    pub slow_start: bool,
    /// `grow_in_recovery`: let the controller grow the reset window during recovery;
    /// assumption (docs/deviations/flower.md): the thesis shows FLOWER regrowing right
    /// after its reset (Trang 2015 §5.2.1, Fig 5.1a).
    pub grow_in_recovery: bool,
    /// `restart_slow_start`: slow start again after a loss or timeout reset; assumption
    /// off (Trang 2015 notes §3.9).
    pub restart_slow_start: bool,
}

impl Default for FlowerConfig {
    fn default() -> FlowerConfig {
        FlowerConfig {
            target: Dur::from_millis(100),
            min_cwnd: 1,
            base_history: 10,
            current_filter: 4,
            rollover: Rollover::MinuteBoundary,
            peak_window: 5,
            peak_alpha: 0.125,
            peak_threshold_init: Dur::ZERO,
            de_qmax_init: Dur::from_millis(5),
            sde_init: Dur::from_millis(4),
            sde_alpha: 0.125,
            slow_start: true,
            grow_in_recovery: true,
            restart_slow_start: false,
        }
    }
}

impl TryFrom<&ParamSet> for FlowerConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<FlowerConfig, ParamError> {
        let r = p.reader("flower");
        Ok(FlowerConfig {
            target: r.dur("target")?,
            min_cwnd: r.u64("min_cwnd")?,
            base_history: r.usize("base_history")?,
            current_filter: r.usize("current_filter")?,
            rollover: match r.choice("rollover")? {
                "elapsed" => Rollover::Elapsed,
                _ => Rollover::MinuteBoundary,
            },
            peak_window: r.usize("peak_window")?,
            peak_alpha: r.f64("peak_alpha")?,
            peak_threshold_init: r.dur("peak_threshold_init")?,
            de_qmax_init: r.dur("de_qmax_init")?,
            sde_init: r.dur("sde_init")?,
            sde_alpha: r.f64("sde_alpha")?,
            slow_start: r.bool("slow_start")?,
            grow_in_recovery: r.bool("grow_in_recovery")?,
            restart_slow_start: r.bool("restart_slow_start")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = FlowerConfig::try_from(p).expect("flower: parameters resolved against PARAMS");
    Box::new(Flower::new(&cfg, &init))
}

mod table;
pub use table::{
    fuzzify, Breakpoints, DeCentre, FuzzyTable, Inference, TableError, DE_SETS, E_SETS, OUT_SETS,
    RULES,
};

// ------------------------------------------------------------------------------------
// Peak-valley detector (Trang 2015 §4.2.2, Fig 4.2).
// ------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub struct PeakValley {
    n: usize,
    alpha: f64,
    window: VecDeque<f64>,
    finding_peak: bool,
    /// The EWMA threshold S of peaks.
    pub s: f64,
    /// The last accepted peak, `None` before the first.
    pub q_max: Option<f64>,
}

impl PeakValley {
    pub fn new(n: usize, alpha: f64, s_init: f64) -> PeakValley {
        PeakValley {
            n: n.max(1),
            alpha,
            window: VecDeque::with_capacity(n + 2),
            finding_peak: true,
            s: s_init,
            q_max: None,
        }
    }

    /// "After the RTT k", with q_k the per-RTT queueing delay. Returns true when a new
    /// q_max was accepted.
    pub fn update(&mut self, q: f64) -> bool {
        self.window.push_back(q);
        if self.window.len() > self.n + 1 {
            self.window.pop_front();
        }
        if self.window.len() < self.n + 1 {
            return false; // "if we have enough (n+1) samples"
        }
        let current = self.window[0]; // q_{k−n}
        let right = self.window.iter().skip(1);
        if self.finding_peak {
            let right_max = right.fold(f64::NEG_INFINITY, |m, &x| m.max(x));
            if current > right_max {
                // A peak: S ← (1 − α)·S + α·currentValue; a new q_max if currentValue > S.
                self.finding_peak = false;
                self.s = (1.0 - self.alpha) * self.s + self.alpha * current;
                if current > self.s {
                    self.q_max = Some(current); // "FLOWER discards the old value"
                    return true;
                }
            }
        } else {
            let right_min = right.fold(f64::INFINITY, |m, &x| m.min(x));
            if current < right_min {
                self.finding_peak = true; // a valley
            }
        }
        false
    }
}

// ------------------------------------------------------------------------------------
// The congestion controller.
// ------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub struct Flower {
    table: FuzzyTable,
    est: LedbatDelayEstimator,
    detector: PeakValley,
    target_ms: f64,
    min_cwnd: f64,
    /// Window in packets (fractional; the datapath gets whole packets).
    cwnd: f64,
    mss: u64,
    in_slow_start: bool,
    restart_slow_start: bool,
    sde_alpha: f64,
    sde_init: f64,
    de_qmax_init: f64,
    /// EWMAs of positive and negative Δe (ms), initialised to ±sde_init.
    sde_pos_avg: f64,
    sde_neg_avg: f64,
    /// Largest per-RTT q seen, the q_max fallback before the detector's first peak.
    max_q_seen: f64,
    round_end: Option<u64>,
    round_start: Time,
    last_rtt: Option<Dur>,
    grow_in_recovery: bool,
    round_min_q: Option<f64>,
    prev_q: Option<f64>,
    /// Last controller step, for traces: (q, e_n, Δe, Δcwnd or −∞).
    last: Option<(f64, f64, f64, f64)>,
    resets: u64,
}

impl Flower {
    pub fn new(cfg: &FlowerConfig, init: &CcInit) -> Flower {
        Flower::build(cfg, init, FuzzyTable::default_table())
    }

    /// FLOWER with another fuzzy table; an error names what is wrong with its shape
    /// (see [`FuzzyTable::check`]).
    pub fn with_table(
        cfg: &FlowerConfig,
        init: &CcInit,
        table: FuzzyTable,
    ) -> Result<Flower, TableError> {
        table.check()?;
        Ok(Flower::build(cfg, init, table))
    }

    fn build(cfg: &FlowerConfig, init: &CcInit, table: FuzzyTable) -> Flower {
        let ms = |d: Dur| d.nanos() as f64 / 1e6;
        let mss = init.mss.max(1);
        let sde_init = ms(cfg.sde_init);
        Flower {
            table,
            est: LedbatDelayEstimator::new(cfg.base_history, cfg.current_filter, cfg.rollover),
            detector: PeakValley::new(cfg.peak_window, cfg.peak_alpha, ms(cfg.peak_threshold_init)),
            target_ms: ms(cfg.target),
            min_cwnd: cfg.min_cwnd as f64,
            cwnd: (init.initial_cwnd / mss).max(1) as f64,
            mss,
            in_slow_start: cfg.slow_start,
            restart_slow_start: cfg.restart_slow_start,
            sde_alpha: cfg.sde_alpha,
            sde_init,
            de_qmax_init: ms(cfg.de_qmax_init),
            sde_pos_avg: sde_init,
            sde_neg_avg: -sde_init,
            max_q_seen: 0.0,
            round_end: None,
            round_start: init.now,
            last_rtt: None,
            grow_in_recovery: cfg.grow_in_recovery,
            round_min_q: None,
            prev_q: None,
            last: None,
            resets: 0,
        }
    }

    /// The window in (fractional) packets.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }

    pub fn in_slow_start(&self) -> bool {
        self.in_slow_start
    }

    /// Resets by the loss-detection zone so far.
    pub fn zone_resets(&self) -> u64 {
        self.resets
    }

    /// The q_max used to normalise e: the detector's, `None` before its first peak.
    pub fn q_max(&self) -> Option<f64> {
        self.detector.q_max
    }

    /// The current Δe breakpoints (Trang 2015 §4.5.2: updated only when larger in magnitude
    /// than the initial values).
    pub fn breakpoints(&self) -> Breakpoints {
        let q = self.detector.q_max.unwrap_or(self.max_q_seen);
        Breakpoints {
            qmax: q.max(self.de_qmax_init),
            sde_pos: self.sde_pos_avg.max(self.sde_init),
            sde_neg: self.sde_neg_avg.min(-self.sde_init),
        }
    }

    /// Normalised error e_n in percent (Trang 2015 §4.5.1, with the sign of the q > τ branch
    /// corrected: e_n = −100·(q − τ)/(q_max − τ), clamped; −100 without a usable q_max).
    pub fn normalised_error(&self, q_ms: f64) -> f64 {
        let tau = self.target_ms;
        if q_ms <= tau {
            // e(k)/τ × 100 with e = τ − q.
            (tau - q_ms) / tau * 100.0
        } else {
            match self.detector.q_max {
                Some(qmax) if qmax > tau => (-100.0 * (q_ms - tau) / (qmax - tau)).max(-100.0),
                _ => -100.0,
            }
        }
    }

    /// One controller step for the per-RTT queueing delay `q_ms`. Returns the inference.
    /// `may_grow` is false when the window must not increase (recovery, not cwnd-limited).
    pub fn control_step(&mut self, q_ms: f64, may_grow: bool) -> Inference {
        // Δe(k) = e(k) − e(k−1) = q(k−1) − q(k); zero for the first sample.
        let de = self.prev_q.map_or(0.0, |p| p - q_ms);
        let e_n = self.normalised_error(q_ms);
        let bp = self.breakpoints();
        let inf = self.table.infer(e_n, de, &bp);
        if !self.in_slow_start {
            match inf.dcwnd {
                None => {
                    self.cwnd = self.min_cwnd;
                    self.resets += 1;
                }
                // cwnd(k) = cwnd(k−1) + Δcwnd(k) (Trang 2015 §4.3.2), floored at the minimum.
                Some(d) if d > 0.0 && !may_grow => {}
                Some(d) => self.cwnd = (self.cwnd + d).max(self.min_cwnd),
            }
        }
        self.last = Some((q_ms, e_n, de, inf.dcwnd.unwrap_or(f64::NEG_INFINITY)));
        // State updates after the decision: sde EWMAs, q_max fallback, peak detector.
        if de > 0.0 {
            self.sde_pos_avg = (1.0 - self.sde_alpha) * self.sde_pos_avg + self.sde_alpha * de;
        } else if de < 0.0 {
            self.sde_neg_avg = (1.0 - self.sde_alpha) * self.sde_neg_avg + self.sde_alpha * de;
        }
        self.max_q_seen = self.max_q_seen.max(q_ms);
        self.detector.update(q_ms);
        self.prev_q = Some(q_ms);
        inf
    }

    fn reset_on_loss(&mut self) {
        // Trang 2015 §5.2.1: "Unlike TCP, FLOWER reduces its congestion window to its initial
        // value", after slow start and later.
        self.cwnd = self.min_cwnd;
        self.in_slow_start = self.restart_slow_start;
    }
}

impl CongestionControl for Flower {
    fn name(&self) -> &'static str {
        "flower"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.mss = ack.mss.max(1);
        // Queueing-delay sample (RFC 6817 §2.4.2); the RTT stands in when the datapath has
        // no timestamps (only differences matter).
        let sample = ack.owd.or(ack.rtt.map(|r| r.nanos() as i64));
        if let Some(d) = sample {
            self.est.update(now, d);
            if let Some(q) = self.est.queuing_delay() {
                let q = q.max(0) as f64 / 1e6;
                self.round_min_q = Some(self.round_min_q.map_or(q, |m: f64| m.min(q)));
            }
        }
        // Slow start at connection start (Reno, one packet per packet acknowledged); the
        // first loss ends it.
        if self.in_slow_start && !ack.in_recovery && ack.cwnd_limited {
            self.cwnd += ack.bytes_acked as f64 / self.mss as f64;
        }
        if let Some(r) = ack.rtt {
            self.last_rtt = Some(r);
        }
        // Rounds: a round ends when the cumulative ACK passes the snd_nxt recorded when it
        // began (Vegas style, Trang 2015 notes §3.9 [A]) or, during a long loss recovery in which
        // snd_una creeps through the holes, once the last RTT sample has elapsed.
        match self.round_end {
            None => {
                self.round_end = Some(ack.snd_nxt);
                self.round_start = now;
            }
            Some(end)
                if ack.snd_una >= end
                    || self.last_rtt.is_some_and(|r| now >= self.round_start + r) =>
            {
                self.round_end = Some(ack.snd_nxt);
                self.round_start = now;
                if let Some(q) = self.round_min_q.take() {
                    let may_grow = ack.cwnd_limited && (!ack.in_recovery || self.grow_in_recovery);
                    self.control_step(q, may_grow);
                }
            }
            Some(_) => {}
        }
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        self.reset_on_loss();
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.reset_on_loss();
    }

    fn cwnd(&self) -> u64 {
        fractional_window::cwnd_bytes(self.cwnd, self.mss)
    }

    fn ssthresh(&self) -> u64 {
        if self.in_slow_start {
            u64::MAX
        } else {
            (self.min_cwnd as u64) * self.mss
        }
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cwnd_pkts", self.cwnd));
        if let Some((q, e, de, d)) = self.last {
            out.push(("queuing_delay_ms", q));
            out.push(("e_pct", e));
            out.push(("de_ms", de));
            out.push(("dcwnd", if d.is_finite() { d } else { -99.0 }));
        }
        let bp = self.breakpoints();
        out.push(("q_max_ms", bp.qmax));
        out.push(("sde_pos_ms", bp.sde_pos));
        out.push(("sde_neg_ms", bp.sde_neg));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: i64 = 1_000_000;

    fn init_bp() -> Breakpoints {
        // Trang 2015 §4.5.2: {−q_max, sde₋, sde₊, q_max} initialised to {−5, −4, 4, 5} ms.
        Breakpoints {
            qmax: 5.0,
            sde_pos: 4.0,
            sde_neg: -4.0,
        }
    }

    fn make(cfg: FlowerConfig) -> Flower {
        Flower::new(
            &cfg,
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    fn ack(una: u64, nxt: u64, owd_ms: i64) -> AckSample {
        AckSample {
            bytes_acked: MSS,
            owd: Some(owd_ms * MS),
            snd_una: una,
            snd_nxt: nxt,
            ..AckSample::empty(MSS)
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            FlowerConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            FlowerConfig::default()
        );
    }

    #[test]
    fn choice_words_map_to_their_variants() {
        use crate::params::RawParam;
        let v = RawParam::Text("elapsed".into());
        let p = INFO.resolve([("rollover", &v)]).unwrap();
        assert_eq!(
            FlowerConfig::try_from(&p).unwrap(),
            FlowerConfig {
                rollover: Rollover::Elapsed,
                ..FlowerConfig::default()
            }
        );
    }

    #[test]
    fn default_table_is_the_reconstructed_diagonal_table() {
        let t = FuzzyTable::default_table();
        assert_eq!(
            (t.e_labels.len(), t.de_labels.len(), t.out_labels.len()),
            (11, 11, 12)
        );
        // Trang 2015 notes §3.6: out = −6 (NVVL) if j = +5, else clamp(i + j, −5, 5); label k of
        // [out] has index k − 6, e/Δe label k has index k − 5.
        for i in 0..11 {
            for j in 0..11 {
                let (ie, jd) = (i as i64 - 5, j as i64 - 5);
                let want = if jd == 5 { -6 } else { (ie + jd).clamp(-5, 5) };
                assert_eq!(t.rules[i][j] as i64 - 6, want, "rule e={ie} Δe={jd}");
            }
        }
        // Output centres every 0.2 packet; NVVL = −∞.
        assert_eq!(t.out_centres[0], f64::NEG_INFINITY);
        assert!(close(t.out_centres[8], 0.4) && close(t.out_centres[9], 0.6));
        // The thesis's anchor rules (§4.4.2, §4.6.4).
        let idx = |v: &[String], s: &str| v.iter().position(|x| x == s).unwrap();
        let rule = |e: &str, de: &str| {
            t.out_labels[t.rules[idx(&t.e_labels, e)][idx(&t.de_labels, de)]].clone()
        };
        assert_eq!(rule("PVL", "Z"), "PVL");
        assert_eq!(rule("NVS", "NVS"), "NS");
        assert_eq!(rule("PVS", "PVS"), "PS");
        assert_eq!(rule("PS", "PVS"), "PM");
    }

    #[test]
    fn thesis_worked_example_gives_055_packet() {
        // Trang 2015 §4.6.4: e = 35 %, Δe = 1 ms. μ_PVS(35) = (40 − 35)/20 = 0.25,
        // μ_PS(35) = (35 − 20)/20 = 0.75, μ_PVS(Δe = 1) = 1. R1 (PVS, PVS) → PS (0.4) with
        // min(0.25, 1) = 0.25; R2 (PS, PVS) → PM (0.6) with 0.75.
        // Δcwnd = (0.4·0.25 + 0.6·0.75)/(0.25 + 0.75) = (0.1 + 0.45)/1 = 0.55.
        let t = FuzzyTable::default_table();
        let inf = t.infer(35.0, 1.0, &init_bp());
        // Indices: e PVS = 6, PS = 7; Δe PVS = 6; out PS = 8, PM = 9.
        assert_eq!(inf.fired, vec![(6, 6, 0.25, 8), (7, 6, 0.75, 9)]);
        assert!(close(inf.dcwnd.unwrap(), 0.55), "{:?}", inf.dcwnd);
    }

    #[test]
    fn spec_test_vectors() {
        // Trang 2015 notes §3.7 table, initial breakpoints (q_max 5, sde± ±4).
        let t = FuzzyTable::default_table();
        let d = |e: f64, de: f64| t.infer(e, de, &init_bp()).dcwnd;
        assert_eq!(d(0.0, 0.0), Some(0.0)); // (Z, Z) → Z
        assert_eq!(d(100.0, 0.0), Some(1.0)); // (PVL, Z) → PVL = +1
        assert_eq!(d(-100.0, 0.0), Some(-1.0)); // (NVL, Z) → NVL = −1
        assert!(close(d(-20.0, -1.0).unwrap(), -0.4)); // (NVS, NVS) → NS = −0.4
                                                       // e = 10: μ_Z = μ_PVS = 0.5; Δe = −2.5: μ_NM = μ_NS = 0.5. Rules (0,−3) → −3,
                                                       // (0,−2) → −2, (1,−3) → −2, (1,−2) → −1: (−0.6 − 0.4 − 0.4 − 0.2)·0.5/2 = −0.4.
        let inf = t.infer(10.0, -2.5, &init_bp());
        assert_eq!(inf.fired.len(), 4);
        assert!(inf.fired.iter().all(|f| f.2 == 0.5));
        assert!(close(inf.dcwnd.unwrap(), -0.4));
        assert!(close(d(80.0, -3.0).unwrap(), 0.2)); // (PL, NM) → 4 − 3 = PVS
                                                     // Loss zone: Δe = 4.5 > sde₊ = 4: μ_PVL = (4.5 − 4)/(5 − 4) = 0.5 > 0 → reset.
        assert_eq!(d(50.0, 4.5), None);
        // Exactly at sde₊ the PVL set has degree 0: no reset. e = 50 → PS/PM 0.5 each,
        // Δe = 4 → PL: (PS, PL) → clamp(2 + 4) = PVL, (PM, PL) → PVL: +1.
        assert_eq!(d(50.0, 4.0), Some(1.0));
        // Beyond q_max the input is clamped: still the loss zone.
        assert_eq!(d(-100.0, 40.0), None);
        // Far below −q_max: clamped to −q_max, the NVL column. e = 0 → (Z, NVL) → NVL.
        assert_eq!(d(0.0, -40.0), Some(-1.0));
    }

    #[test]
    fn error_normalisation_with_the_corrected_sign() {
        let mut f = make(FlowerConfig::default());
        // q ≤ τ: e_n = (τ − q)/τ·100 = (100 − 65)/100·100 = 35.
        assert!(close(f.normalised_error(65.0), 35.0));
        assert_eq!(f.normalised_error(0.0), 100.0);
        assert_eq!(f.normalised_error(100.0), 0.0);
        // q > τ without q_max: −100 (Trang 2015 notes §3.3 [A]).
        assert_eq!(f.normalised_error(120.0), -100.0);
        // With q_max = 200: −100·(120 − 100)/(200 − 100) = −20; beyond q_max: −100.
        f.detector.q_max = Some(200.0);
        assert_eq!(f.normalised_error(120.0), -20.0);
        assert_eq!(f.normalised_error(250.0), -100.0);
        // A q_max not above τ cannot normalise: −100.
        f.detector.q_max = Some(80.0);
        assert_eq!(f.normalised_error(120.0), -100.0);
    }

    #[test]
    fn peak_valley_detector_lags_and_replaces_q_max() {
        let mut d = PeakValley::new(5, 0.125, 0.0);
        let mut found = Vec::new();
        let series = [
            0.0, 1.0, 2.0, 3.0, 10.0, 3.0, 2.0, 1.0, 0.0, 0.0, 5.0, 6.0, 7.0, 8.0, 6.0, 2.0, 1.0,
            1.0, 1.0,
        ];
        for (k, &q) in series.iter().enumerate() {
            if d.update(q) {
                found.push((k, d.q_max.unwrap(), d.s));
            }
        }
        // Peak 10 at k = 4 is confirmed at k = 9 (window {10, 3, 2, 1, 0, 0}):
        // S = 7/8·0 + 1/8·10 = 1.25 < 10 → q_max = 10. The valley at k = 9 (0 < min{5, 6,
        // 7, 8, 6}) is found at k = 14. Peak 8 at k = 13, confirmed at k = 18: S = 7/8·1.25
        // + 1/8·8 = 1.09375 + 1 = 2.09375 < 8 → q_max = 8, replacing the larger 10.
        assert_eq!(found, vec![(9, 10.0, 1.25), (18, 8.0, 2.09375)]);
        // A peak below the threshold is not accepted: S0 = 100 → S = 87.5 + 1.25 = 88.75.
        let mut d = PeakValley::new(5, 0.125, 100.0);
        for &q in &series[..10] {
            assert!(!d.update(q));
        }
        assert_eq!((d.q_max, d.s), (None, 88.75));
    }

    #[test]
    fn breakpoints_stay_monotone() {
        let t = FuzzyTable::default_table();
        let c = t.de_centres_ms(&Breakpoints {
            qmax: 5.0,
            sde_pos: 9.0,
            sde_neg: -4.0,
        });
        // sde₊ = 9 ≥ q_max = 5 is clamped just below q_max.
        assert_eq!(
            c,
            vec![
                -5.0,
                -4.0,
                -3.0,
                -2.0,
                -1.0,
                0.0,
                1.0,
                2.0,
                3.0,
                5.0 - 1e-3,
                5.0
            ]
        );
        assert!(c.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn one_update_per_round_slow_start_loss_and_zone_reset() {
        let mut f = make(FlowerConfig {
            current_filter: 1,
            ..FlowerConfig::default()
        });
        let t = Time(0);
        // Slow start: ACK of one segment grows 10 → 11. Base OWD 10 ms → q = 0. The first
        // ACK starts the first round (ends when snd_una ≥ 10000).
        f.on_ack(t, &ack(1000, 10_000, 10));
        assert_eq!((f.cwnd(), f.ssthresh()), (11 * MSS, u64::MAX));
        // Loss: cwnd to one packet, slow start over (Trang 2015 §5.2.1).
        f.on_congestion(
            t,
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 11 * MSS,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!((f.cwnd(), f.cwnd_pkts()), (MSS, 1.0));
        // Round 1 ends: round minimum q = min(0, 66) = 0, Δe = 0 (first): e = 100 %
        // → (PVL, Z) → +1: cwnd 2.
        f.on_ack(t, &ack(10_000, 11_000, 76));
        assert_eq!(f.cwnd_pkts(), 2.0);
        // Round 2: q = 66, Δe = 0 − 66 → clamped to −q_max = −5 (NVL); e = 34 %:
        // μ_PVS = (40 − 34)/20 = 0.3, μ_PS = 0.7; (PVS, NVL) → 1 − 5 = NL = −0.8,
        // (PS, NVL) → 2 − 5 = NM = −0.6: Δcwnd = −0.24 − 0.42 = −0.66 → cwnd 1.34.
        f.on_ack(t, &ack(11_000, 12_000, 76));
        assert!(close(f.cwnd_pkts(), 1.34), "{}", f.cwnd_pkts());
        assert_eq!(f.cwnd(), MSS);
        // Round 3: q = 65 after 66: Δe = +1 ms, e = 35 % — the thesis example: +0.55.
        f.on_ack(t, &ack(12_000, 13_000, 75));
        assert!(close(f.cwnd_pkts(), 1.89), "{}", f.cwnd_pkts());
        // Positive Δcwnd is not applied when the window was not the limit.
        let mut idle = ack(13_000, 14_000, 75); // Δe = 0, e = 35 % → +0.5·… > 0
        idle.cwnd_limited = false;
        f.on_ack(t, &idle);
        assert!(close(f.cwnd_pkts(), 1.89));
        // Round 5: the queue falls from 65 to 5 ms: Δe = 60 > sde₊ → loss zone → 1 packet.
        f.on_ack(t, &ack(14_000, 15_000, 15));
        assert_eq!((f.cwnd_pkts(), f.zone_resets()), (1.0, 1));
        // The Δe EWMAs moved: sde₋ = 7/8·(−4) + 1/8·(−66) = −11.75; sde₊ = 7/8·4 + 1/8·1 =
        // 3.625 after round 3, then 7/8·3.625 + 1/8·60 = 10.671875 (floored at 4 only
        // when smaller); q_max fallback = largest q = 66 ms.
        let bp = f.breakpoints();
        assert_eq!((bp.sde_neg, bp.sde_pos, bp.qmax), (-11.75, 10.671875, 66.0));
        // A timeout also resets to one packet.
        f.cwnd = 7.5;
        f.on_rto(
            t,
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!(f.cwnd_pkts(), 1.0);
        assert!(!f.in_slow_start());
    }

    #[test]
    fn a_round_also_ends_after_one_rtt_of_time_in_recovery() {
        let mut f = make(FlowerConfig {
            current_filter: 1,
            ..FlowerConfig::default()
        });
        f.in_slow_start = false;
        f.cwnd = 1.0;
        let rtt = |a: AckSample, ms: u64| AckSample {
            rtt: Some(Dur::from_millis(ms)),
            ..a
        };
        // Round starts at t = 0 (ends at snd_una ≥ 50 000); RTT sample 100 ms.
        f.on_ack(Time(0), &rtt(ack(1000, 50_000, 10), 100));
        // In recovery snd_una creeps: at 99 ms nothing; at 100 ms one RTT has passed:
        // q = 0 → e = 100 %, Δe = 0 → +1 (growth allowed in recovery by default).
        let rec = |a: AckSample| AckSample {
            in_recovery: true,
            ..a
        };
        f.on_ack(Time(99_000_000), &rec(ack(2000, 50_000, 10)));
        assert_eq!(f.cwnd_pkts(), 1.0);
        f.on_ack(Time(100_000_000), &rec(ack(3000, 50_000, 10)));
        assert_eq!(f.cwnd_pkts(), 2.0);
        // With grow_in_recovery = false the same round does not grow the window.
        let mut g = make(FlowerConfig {
            current_filter: 1,
            grow_in_recovery: false,
            ..FlowerConfig::default()
        });
        g.in_slow_start = false;
        g.cwnd = 1.0;
        g.on_ack(Time(0), &rtt(ack(1000, 50_000, 10), 100));
        g.on_ack(Time(100_000_000), &rec(ack(3000, 50_000, 10)));
        assert_eq!(g.cwnd_pkts(), 1.0);
    }

    #[test]
    fn restart_slow_start_flag() {
        let mut f = make(FlowerConfig {
            restart_slow_start: true,
            ..FlowerConfig::default()
        });
        f.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 0,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert!(f.in_slow_start());
        f.on_ack(Time(0), &ack(1000, 5000, 10));
        assert_eq!(f.cwnd_pkts(), 2.0);
    }

    /// A 3 × 3 table: e and Δe sets N, Z, P; outputs R (reset), D (−1), S (0), U (+1).
    fn tiny() -> FuzzyTable {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        FuzzyTable {
            e_labels: s(&["N", "Z", "P"]),
            e_centres: vec![-100.0, 0.0, 100.0],
            de_labels: s(&["N", "Z", "P"]),
            de_centres: vec![DeCentre::NegQmax, DeCentre::Ms(0.0), DeCentre::Qmax],
            out_labels: s(&["R", "D", "S", "U"]),
            out_centres: vec![f64::NEG_INFINITY, -1.0, 0.0, 1.0],
            rules: vec![vec![1, 1, 2], vec![1, 2, 3], vec![2, 3, 0]],
        }
    }

    #[test]
    fn user_tables_replace_the_default() {
        let t = tiny();
        // e = 50: μ_Z = μ_P = 0.5; Δe = 0: Z. (Z, Z) → S = 0, (P, Z) → U = 1: 0.5.
        assert_eq!(t.infer(50.0, 0.0, &init_bp()).dcwnd, Some(0.5));
        // Δe = 2.5 of q_max 5: μ_Z = μ_P = 0.5; (P, P) → R fires: reset.
        assert_eq!(t.infer(50.0, 2.5, &init_bp()).dcwnd, None);
        let init = CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 4 * MSS,
            rng: Rng::new(1),
        };
        let mut f = Flower::with_table(&FlowerConfig::default(), &init, t).unwrap();
        f.in_slow_start = false;
        f.control_step(50.0, true); // e = 50 %, Δe = 0 → +0.5
        assert_eq!(f.cwnd_pkts(), 4.5);
        // A table of the wrong shape is refused with the reason.
        let mut bad = tiny();
        bad.rules[2].pop();
        let e = Flower::with_table(&FlowerConfig::default(), &init, bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("row `P` has 2 entries for 3 Δe sets"), "{e}");
    }

    #[test]
    fn table_errors_name_the_problem() {
        let bad = |f: &dyn Fn(&mut FuzzyTable)| {
            let mut t = tiny();
            f(&mut t);
            t.check().unwrap_err().to_string()
        };
        assert_eq!(tiny().check(), Ok(()));
        assert!(bad(&|t| t.rules[1][2] = 4).contains("consequent 4 is not an output set"));
        assert!(bad(&|t| t.e_centres = vec![-100.0, 100.0, 0.0]).contains("strictly increasing"));
        assert!(bad(&|t| {
            t.rules.pop();
        })
        .contains("2 rows for 3 e sets"));
        assert!(bad(&|t| t.e_centres[1] = f64::NAN).contains("strictly increasing"));
        assert!(bad(&|t| {
            t.e_centres.pop();
        })
        .contains("2 centres for 3 labels"));
        assert!(bad(&|t| t.out_labels[3] = "D".into()).contains("label `D` appears twice"));
    }

    #[test]
    fn trace_names_are_reported() {
        let mut f = make(FlowerConfig::default());
        f.in_slow_start = false;
        f.control_step(65.0, true);
        let mut out = Vec::new();
        f.trace(&mut out);
        let get = |n: &str| out.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        assert_eq!(get("e_pct"), Some(35.0));
        assert_eq!(get("de_ms"), Some(0.0));
        assert_eq!(get("q_max_ms"), Some(65.0));
    }
}
