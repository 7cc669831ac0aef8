//! LEDBAT++ (draft-irtf-iccrg-ledbat-plus-plus, Balasubramanian, Ertugay, Havey,
//! Bagnulo; facts in /work/shared/notes/prior-art-lbe.md §2.3–2.5): LEDBAT (RFC 6817)
//! with
//! - round-trip time instead of one-way delay: queueing delay = MIN(last CURRENT_FILTER
//!   RTTs) − MIN(BASE_HISTORY one-minute RTT minima) (draft §3 "Use of RTT");
//! - a reduced, dynamic GAIN = 1/min(16, ⌈2·TARGET/base⌉) (draft "Reduced GAIN");
//! - slow start that grows by GAIN per acknowledged segment and ends when the queueing
//!   delay exceeds 3/4 of TARGET (draft "Modified slow start");
//! - multiplicative decrease above target, W += max(GAIN − C·W·(delay/TARGET − 1), −W/2)
//!   per window of ACKs, i.e. at most W/2 per RTT (draft "Multiplicative decrease");
//! - periodic slowdowns against the latecomer advantage: 2 RTTs after the initial slow
//!   start exit, cwnd drops to 2 packets and is frozen for 2 RTTs, then slow-starts back
//!   to the previous cwnd (kept as ssthresh); the next slowdown comes 9 × the slowdown's
//!   duration later, bounding the utilisation loss to about 10 % (draft "Periodic
//!   slowdown");
//! - TARGET = 60 ms.
//!
//! Unchanged RFC 6817 rules: cwnd ≤ flightsize + ALLOWED_INCREASE, cwnd ≥ MIN_CWND = 2,
//! halving on loss (at most once per RTT, the datapath's episode), 1 packet on timeout.
//! Every draft constant is a parameter. The window is kept in fractional packets and
//! reported in whole packets. Choices the draft leaves open are listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/ledbat-plus-plus.md):
//! - the multiplicative decrease is applied per ACK:
//!   docs/deviations/ledbat-plus-plus.md#ledbatpp-md-per-ack
//! - slow start grows by GAIN per segment and exits at 3/4·TARGET, at ssthresh or on loss:
//!   docs/deviations/ledbat-plus-plus.md#ledbatpp-slow-start
//! - slowdown timing uses the filtered RTT:
//!   docs/deviations/ledbat-plus-plus.md#ledbatpp-slowdown-timing
//! - RTT samples, base delay and GAIN: docs/deviations/ledbat-plus-plus.md#ledbatpp-rtt-base-gain
//! - the flight-size cap and the window floor:
//!   docs/deviations/ledbat-plus-plus.md#ledbatpp-cap-floor

use super::fractional_window;
use crate::api::*;
use crate::estimators::base_delay::{LedbatDelayEstimator, Rollover};
use crate::params::{ParamError, ParamKind, ParamReader, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ledbat-plus-plus",
    aliases: &["ledbat++", "ledbatpp"],
    summary: "LEDBAT++: RTT-based LEDBAT with dynamic gain, multiplicative decrease, modified slow start and periodic slowdowns",
    source: "draft-irtf-iccrg-ledbat-plus-plus (-01..-06); notes/prior-art-lbe.md",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "target",
        kind: ParamKind::Duration { min: Dur::from_millis(1), max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::from_millis(60)),
        unit: "ms",
        doc: "TARGET queueing delay",
        source: "draft-irtf-iccrg-ledbat-plus-plus (TARGET = 60 ms)",
    },
    ParamSpec {
        name: "max_gain_divisor",
        kind: ParamKind::Int { min: 1, max: 1024 },
        default: ParamValue::Int(16),
        unit: "",
        doc: "GAIN = 1/min(max_gain_divisor, ceil(gain_target_factor·TARGET/base_delay))",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Reduced GAIN\" (16)",
    },
    ParamSpec {
        name: "gain_target_factor",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(2.0),
        unit: "",
        doc: "The 2 in ceil(2·TARGET/base_delay)",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Reduced GAIN\"",
    },
    ParamSpec {
        name: "decrease_constant",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(1.0),
        unit: "",
        doc: "C in W += max(GAIN − C·W·(delay/TARGET − 1), −W·md_cap) per window of ACKs",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Multiplicative decrease\" (Constant = 1); tinalee77 module C = 1",
    },
    ParamSpec {
        name: "md_cap",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.5),
        unit: "of cwnd per RTT",
        doc: "Largest decrease per RTT as a fraction of cwnd (−W/2)",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Multiplicative decrease\" (capped at W/2)",
    },
    ParamSpec {
        name: "ss_exit",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.75),
        unit: "of target",
        doc: "Slow start ends when the queueing delay exceeds this fraction of TARGET",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Modified slow start\" (3/4 of TARGET)",
    },
    ParamSpec {
        name: "slowdown",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Periodic slowdowns",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Periodic slowdown\"",
    },
    ParamSpec {
        name: "slowdown_cwnd",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "Window during a slowdown",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Periodic slowdown\" (2 packets)",
    },
    ParamSpec {
        name: "slowdown_rtts",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(2.0),
        unit: "RTTs",
        doc: "How long cwnd stays frozen at slowdown_cwnd",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Periodic slowdown\" (2 RTTs)",
    },
    ParamSpec {
        name: "slowdown_interval",
        kind: ParamKind::Float { min: 0.0, max: 1000.0 },
        default: ParamValue::Float(9.0),
        unit: "× duration",
        doc: "The next slowdown starts this many slowdown durations after a slowdown ends",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Periodic slowdown\" (9 times, ≤ 10 % utilisation drop)",
    },
    ParamSpec {
        name: "initial_slowdown_rtts",
        kind: ParamKind::Float { min: 0.0, max: 1000.0 },
        default: ParamValue::Float(2.0),
        unit: "RTTs",
        doc: "The first slowdown starts this many RTTs after the initial slow start ends",
        source: "draft-irtf-iccrg-ledbat-plus-plus \"Periodic slowdown\" (2 RTTs after slow start exit)",
    },
    ParamSpec {
        name: "base_history",
        kind: ParamKind::Int { min: 1, max: 60 },
        default: ParamValue::Int(10),
        unit: "minutes",
        doc: "BASE_HISTORY one-minute RTT minima",
        source: "RFC 6817 §2.5 (10), kept by the draft; tinalee77 BASE_HISTORY_LEN 10",
    },
    ParamSpec {
        name: "current_filter",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(4),
        unit: "samples",
        doc: "CURRENT_FILTER: current RTT = minimum of this many latest RTT samples",
        source: "RFC 6817 §2.4.2 (≥ 4 samples per RTT); tinalee77 DELAY_FILTER_LEN 4",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "MIN_CWND",
        source: "RFC 6817 §2.5 (SHOULD be 2); tinalee77 MIN_CWND 2",
    },
    ParamSpec {
        name: "allowed_increase",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(1),
        unit: "packets",
        doc: "ALLOWED_INCREASE: cwnd ≤ flightsize + this",
        source: "RFC 6817 §2.4.2, §2.5 (SHOULD be 1), not changed by the draft",
    },
];

/// LEDBAT++'s parameters. Defaults: draft-irtf-iccrg-ledbat-plus-plus (its sections
/// named in quotes), RFC 6817 §2.5 where the draft keeps RFC 6817's values, and the
/// tinalee77 module where the draft gives no number.
#[derive(Clone, Debug, PartialEq)]
pub struct LedbatPlusPlusConfig {
    /// TARGET, the reduced GAIN and the slowdown schedule (shared with rLEDBAT).
    pub clock: PlusPlusClockParams,
    /// C in W += max(GAIN − C·W·(delay/TARGET − 1), −W·md_cap): 1 (draft
    /// "Multiplicative decrease", Constant = 1; tinalee77 module C = 1).
    pub decrease_constant: f64,
    /// Largest decrease per RTT as a fraction of cwnd: 1/2 (draft "Multiplicative
    /// decrease", capped at W/2).
    pub md_cap: f64,
    /// Slow start ends above this fraction of TARGET: 3/4 (draft "Modified slow start").
    pub ss_exit: f64,
    /// Window during a slowdown, packets: 2 (draft "Periodic slowdown").
    pub slowdown_cwnd: u64,
    /// BASE_HISTORY one-minute RTT minima: 10 (RFC 6817 §2.5, kept by the draft;
    /// tinalee77 BASE_HISTORY_LEN 10).
    pub base_history: usize,
    /// CURRENT_FILTER, RTT samples: 4 (RFC 6817 §2.4.2; tinalee77 DELAY_FILTER_LEN 4).
    pub current_filter: usize,
    /// MIN_CWND, packets: 2 (RFC 6817 §2.5; tinalee77 MIN_CWND 2).
    pub min_cwnd: u64,
    /// ALLOWED_INCREASE, packets: 1 (RFC 6817 §2.4.2, §2.5; not changed by the draft).
    pub allowed_increase: u64,
}

impl Default for LedbatPlusPlusConfig {
    fn default() -> Self {
        LedbatPlusPlusConfig {
            clock: PlusPlusClockParams::default(),
            decrease_constant: 1.0,
            md_cap: 0.5,
            ss_exit: 0.75,
            slowdown_cwnd: 2,
            base_history: 10,
            current_filter: 4,
            min_cwnd: 2,
            allowed_increase: 1,
        }
    }
}

/// The only place LEDBAT++'s parameter names are looked up.
impl TryFrom<&ParamSet> for LedbatPlusPlusConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("ledbat-plus-plus");
        Ok(LedbatPlusPlusConfig {
            clock: PlusPlusClockParams::read(&r)?,
            decrease_constant: r.f64("decrease_constant")?,
            md_cap: r.f64("md_cap")?,
            ss_exit: r.f64("ss_exit")?,
            slowdown_cwnd: r.u64("slowdown_cwnd")?,
            base_history: r.usize("base_history")?,
            current_filter: r.usize("current_filter")?,
            min_cwnd: r.u64("min_cwnd")?,
            allowed_increase: r.u64("allowed_increase")?,
        })
    }
}

/// The registry's entry point. `p` was resolved against `PARAMS`, so the conversion
/// cannot fail unless the spec table and the config disagree, which
/// `config_defaults_match_spec_table` rules out.
fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = LedbatPlusPlusConfig::try_from(p)
        .expect("ledbat-plus-plus: spec table and LedbatPlusPlusConfig agree");
    Box::new(LedbatPlusPlus::new(&cfg, &init))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// Slow start; `initial` for the one at connection start (its exit schedules the
    /// first slowdown).
    SlowStart {
        initial: bool,
    },
    CongestionAvoidance,
    /// Slowdown: cwnd held at `slowdown_cwnd` until `until`.
    Frozen {
        until: Time,
    },
    /// Slowdown: slow start back to ssthresh (the cwnd before the slowdown).
    RampUp,
}

/// The parameters of [`PlusPlusClock`]: the `clock` of both `LedbatPlusPlusConfig` (the
/// sender) and `RledbatConfig` (the receiver), under the same names in both spec tables.
/// Defaults: draft-irtf-iccrg-ledbat-plus-plus, which RFC 9840 (rLEDBAT) adopts; the
/// receiver's implementations (Apple, UC3M) use the same values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlusPlusClockParams {
    /// TARGET queueing delay: 60 ms (draft TARGET = 60 ms; UC3M TARGET 60 ms).
    pub target: Dur,
    /// GAIN = 1/min(max_gain_divisor, ⌈gain_target_factor·TARGET/base⌉): 16 (draft
    /// "Reduced GAIN"; Apple GAIN_CONSTANT 16).
    pub max_gain_divisor: u64,
    /// The 2 in ⌈2·TARGET/base⌉ (draft "Reduced GAIN"; Apple rledbat_gain()).
    pub gain_target_factor: f64,
    /// Periodic slowdowns: on (draft "Periodic slowdown"; Apple, UC3M).
    pub slowdown: bool,
    /// RTTs the window stays frozen during a slowdown: 2 (draft "Periodic slowdown";
    /// Apple 2·rcv_srtt).
    pub slowdown_rtts: f64,
    /// The next slowdown starts this many slowdown durations after one ends: 9 (draft
    /// "Periodic slowdown", ≤ 10 % utilisation drop; Apple, UC3M).
    pub slowdown_interval: f64,
    /// The first slowdown starts this many RTTs after the initial slow start: 2 (draft
    /// "Periodic slowdown"; Apple, UC3M).
    pub initial_slowdown_rtts: f64,
}

impl Default for PlusPlusClockParams {
    fn default() -> Self {
        PlusPlusClockParams {
            target: Dur::from_millis(60),
            max_gain_divisor: 16,
            gain_target_factor: 2.0,
            slowdown: true,
            slowdown_rtts: 2.0,
            slowdown_interval: 9.0,
            initial_slowdown_rtts: 2.0,
        }
    }
}

impl PlusPlusClockParams {
    /// The only place these names are looked up, for the sender's and the receiver's
    /// config alike.
    pub fn read(r: &ParamReader<'_>) -> Result<Self, ParamError> {
        Ok(PlusPlusClockParams {
            target: r.dur("target")?,
            max_gain_divisor: r.u64("max_gain_divisor")?,
            gain_target_factor: r.f64("gain_target_factor")?,
            slowdown: r.bool("slowdown")?,
            slowdown_rtts: r.f64("slowdown_rtts")?,
            slowdown_interval: r.f64("slowdown_interval")?,
            initial_slowdown_rtts: r.f64("initial_slowdown_rtts")?,
        })
    }
}

/// The window constants of LEDBAT++'s rules besides the clock's, under the sender's and
/// the receiver's names alike.
#[derive(Clone, Copy, Debug)]
pub struct PlusPlusWindowRules {
    /// C in W += max(GAIN − C·W·(delay/TARGET − 1), −W·md_cap) (draft "Multiplicative
    /// decrease").
    pub c: f64,
    /// Largest decrease per RTT as a fraction of the window (draft "Multiplicative
    /// decrease", W/2).
    pub md_cap: f64,
    /// Slow start ends above this fraction of TARGET (draft "Modified slow start", 3/4).
    pub ss_exit: f64,
    /// The window during a slowdown, packets (draft "Periodic slowdown", 2).
    pub slowdown_window: f64,
}

/// What one ACK or received segment tells [`PlusPlusClock::step_window`].
#[derive(Clone, Copy, Debug)]
pub struct PlusPlusSignals {
    /// Queueing delay, ns.
    pub q: f64,
    /// Segments acknowledged (sender) or newly received (rLEDBAT).
    pub acked: f64,
    /// GAIN of [`PlusPlusClock::gain`].
    pub gain: f64,
    /// The RTT that times slowdowns: the filtered current RTT ([`filtered_rtt`]).
    pub rtt: Dur,
    /// Whether the window may grow: the sender grows only when cwnd-limited; the
    /// receiver always may (the flow-control window caps it).
    pub may_grow: bool,
}

/// What [`PlusPlusClock::step_window`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowStep {
    /// The rules ran; the caller applies its caps and floor.
    Continued,
    /// A periodic slowdown began: the window is at the slowdown window, no cap or floor.
    SlowdownStarted,
}

/// The RTT that times LEDBAT++'s slowdowns (and rLEDBAT's loss hold-off): the filtered
/// current RTT, MIN of the last CURRENT_FILTER samples (RFC 6817 §2.4.2 FILTER on RTTs,
/// draft §3 "Use of RTT"); 0 before any sample.
pub fn filtered_rtt(est: &LedbatDelayEstimator) -> Dur {
    Dur(est.current.current().unwrap_or(0).max(0) as u64)
}

/// Queueing delay = FILTER(current) − MIN(base) (RFC 6817 §2.4.2), ns, 0 before any
/// sample and never negative.
pub fn queuing_delay_ns(est: &LedbatDelayEstimator) -> f64 {
    est.queuing_delay().unwrap_or(0).max(0) as f64
}

impl Phase {
    /// The phase as a number for traces: slow start 0, congestion avoidance 1, frozen 2,
    /// ramp-up 3.
    pub fn trace_code(self) -> f64 {
        match self {
            Phase::SlowStart { .. } => 0.0,
            Phase::CongestionAvoidance => 1.0,
            Phase::Frozen { .. } => 2.0,
            Phase::RampUp => 3.0,
        }
    }
}

/// LEDBAT++'s reduced gain and periodic-slowdown schedule, shared by the sender
/// (`ledbat-plus-plus`) and the receiver (`rledbat`).
#[derive(Clone, Debug)]
pub struct PlusPlusClock {
    /// TARGET in ns.
    pub target: f64,
    max_div: f64,
    gain_factor: f64,
    pub slowdown: bool,
    pub slowdown_rtts: f64,
    slowdown_interval: f64,
    initial_slowdown_rtts: f64,
    pub phase: Phase,
    pub next_slowdown: Option<Time>,
    pub slowdown_start: Option<Time>,
    pub slowdowns: u64,
}

impl PlusPlusClock {
    pub fn new(c: &PlusPlusClockParams) -> PlusPlusClock {
        PlusPlusClock {
            target: c.target.nanos() as f64,
            max_div: c.max_gain_divisor as f64,
            gain_factor: c.gain_target_factor,
            slowdown: c.slowdown,
            slowdown_rtts: c.slowdown_rtts,
            slowdown_interval: c.slowdown_interval,
            initial_slowdown_rtts: c.initial_slowdown_rtts,
            phase: Phase::SlowStart { initial: true },
            next_slowdown: None,
            slowdown_start: None,
            slowdowns: 0,
        }
    }

    /// GAIN = 1 / min(16, ⌈2·TARGET/base⌉) (draft "Reduced GAIN"); the largest divisor
    /// before any base delay is known or when it is zero.
    pub fn gain(&self, base: Option<i64>) -> f64 {
        let div = match base {
            Some(b) if b > 0 => (self.gain_factor * self.target / b as f64)
                .ceil()
                .clamp(1.0, self.max_div),
            _ => self.max_div,
        };
        1.0 / div
    }

    fn schedule_after(&mut self, now: Time, d: Dur) {
        if self.slowdown {
            self.next_slowdown = Some(now + d);
        }
    }

    /// A slow start (initial, or the ramp of a slowdown) ends at `now`; `rtt` is the
    /// current filtered RTT.
    pub fn end_slow_start(&mut self, now: Time, rtt: Dur) {
        match self.phase {
            Phase::SlowStart { initial: true } => {
                // The first slowdown 2 RTTs after the initial slow start exit.
                self.schedule_after(now, rtt.mul_f64(self.initial_slowdown_rtts));
            }
            Phase::RampUp => {
                // Next slowdown 9 × this slowdown's duration (from its start to now) later.
                let dur = now.since(self.slowdown_start.unwrap_or(now));
                self.schedule_after(now, dur.mul_f64(self.slowdown_interval));
                self.slowdown_start = None;
            }
            _ => {}
        }
        self.phase = Phase::CongestionAvoidance;
    }

    /// LEDBAT++'s window rules for one ACK (the sender, on cwnd) or one received segment
    /// (rLEDBAT, on RLWND), in every phase but a freeze, which the caller handles first.
    /// `w` and `ssthresh` are in fractional packets. Returns
    /// [`WindowStep::SlowdownStarted`] when a periodic slowdown begins: the window is
    /// then at the slowdown window and the caller applies no cap or floor.
    pub fn step_window(
        &mut self,
        now: Time,
        rules: &PlusPlusWindowRules,
        w: &mut f64,
        ssthresh: &mut f64,
        s: &PlusPlusSignals,
    ) -> WindowStep {
        match self.phase {
            Phase::SlowStart { .. } | Phase::RampUp => {
                if s.q > rules.ss_exit * self.target {
                    // draft "Modified slow start": exit when the queueing delay exceeds
                    // 3/4 TARGET.
                    if matches!(self.phase, Phase::SlowStart { .. }) {
                        *ssthresh = *w;
                    }
                    self.end_slow_start(now, s.rtt);
                } else if s.may_grow {
                    // draft "Modified slow start": grow by GAIN per acknowledged segment.
                    *w += s.gain * s.acked;
                    if *w >= *ssthresh {
                        *w = *ssthresh;
                        self.end_slow_start(now, s.rtt);
                    }
                }
            }
            Phase::CongestionAvoidance => {
                if self.next_slowdown.is_some_and(|t| now >= t) {
                    // draft "Periodic slowdown": remember the window as ssthresh, window
                    // = 2 packets, frozen for 2 RTTs.
                    *ssthresh = *w;
                    *w = rules.slowdown_window;
                    self.slowdown_start = Some(now);
                    self.next_slowdown = None;
                    self.slowdowns += 1;
                    self.phase = Phase::Frozen {
                        until: now + s.rtt.mul_f64(self.slowdown_rtts),
                    };
                    return WindowStep::SlowdownStarted;
                }
                let win = *w;
                if s.q < self.target {
                    // RFC 6817 §2.4.2 additive increase with the reduced GAIN:
                    // GAIN·acked/W per ACK.
                    if s.may_grow {
                        *w += s.gain * s.acked / win;
                    }
                } else {
                    // draft "Multiplicative decrease": W += max(GAIN − C·W·(delay/TARGET
                    // − 1), −W/2) per RTT, acked/W of it per ACK.
                    let per_rtt = (s.gain - rules.c * win * (s.q / self.target - 1.0))
                        .max(-rules.md_cap * win);
                    *w += per_rtt * s.acked / win;
                }
            }
            Phase::Frozen { .. } => {}
        }
        WindowStep::Continued
    }
}

#[derive(Clone, Debug)]
pub struct LedbatPlusPlus {
    est: LedbatDelayEstimator,
    clock: PlusPlusClock,
    rules: PlusPlusWindowRules,
    min_cwnd: f64,
    allowed_increase: f64,
    /// Packets (fractional).
    cwnd: f64,
    ssthresh: f64,
    mss: u64,
    queuing_delay: f64,
}

impl LedbatPlusPlus {
    pub fn new(cfg: &LedbatPlusPlusConfig, init: &CcInit) -> LedbatPlusPlus {
        let mss = init.mss.max(1);
        LedbatPlusPlus {
            est: LedbatDelayEstimator::new(
                cfg.base_history,
                cfg.current_filter,
                Rollover::MinuteBoundary,
            ),
            clock: PlusPlusClock::new(&cfg.clock),
            rules: PlusPlusWindowRules {
                c: cfg.decrease_constant,
                md_cap: cfg.md_cap,
                ss_exit: cfg.ss_exit,
                slowdown_window: cfg.slowdown_cwnd as f64,
            },
            min_cwnd: cfg.min_cwnd as f64,
            allowed_increase: cfg.allowed_increase as f64,
            cwnd: (init.initial_cwnd / mss).max(1) as f64,
            ssthresh: f64::INFINITY,
            mss,
            queuing_delay: 0.0,
        }
    }

    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }
    pub fn phase(&self) -> Phase {
        self.clock.phase
    }
    pub fn next_slowdown(&self) -> Option<Time> {
        self.clock.next_slowdown
    }
    pub fn slowdowns(&self) -> u64 {
        self.clock.slowdowns
    }

    /// GAIN = 1 / min(16, ⌈2·TARGET/base⌉) (draft "Reduced GAIN"); the largest divisor
    /// before any base delay is known or when it is zero.
    pub fn gain(&self) -> f64 {
        self.clock.gain(self.est.base.base())
    }

    /// A slow start (initial, or the ramp of a slowdown) ends.
    fn end_slow_start(&mut self, now: Time) {
        self.clock.end_slow_start(now, filtered_rtt(&self.est));
    }
}

impl CongestionControl for LedbatPlusPlus {
    fn name(&self) -> &'static str {
        "ledbat-plus-plus"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if ack.in_recovery {
            return;
        }
        self.mss = ack.mss.max(1);
        // draft: delay samples are RTTs; queuing_delay = FILTER(current) − MIN(base).
        if let Some(rtt) = ack.rtt {
            self.est.update(now, rtt.nanos() as i64);
        }
        let q = queuing_delay_ns(&self.est);
        self.queuing_delay = q;
        let signals = PlusPlusSignals {
            q,
            acked: ack.bytes_acked as f64 / self.mss as f64,
            gain: self.gain(),
            rtt: filtered_rtt(&self.est),
            may_grow: ack.cwnd_limited,
        };
        let before = self.cwnd;

        if let Phase::Frozen { until } = self.clock.phase {
            if now < until {
                return; // cwnd held at slowdown_cwnd
            }
            self.clock.phase = Phase::RampUp;
        }
        let step = self.clock.step_window(
            now,
            &self.rules,
            &mut self.cwnd,
            &mut self.ssthresh,
            &signals,
        );
        if step == WindowStep::SlowdownStarted {
            return;
        }
        // RFC 6817 §2.4.2: cwnd ≤ flightsize + ALLOWED_INCREASE (only limits growth here);
        // cwnd ≥ MIN_CWND.
        let flight = ack
            .prior_in_flight
            .max(ack.bytes_in_flight + ack.bytes_acked) as f64
            / self.mss as f64;
        if self.cwnd > before {
            self.cwnd = self.cwnd.min((flight + self.allowed_increase).max(before));
        }
        self.cwnd = self.cwnd.max(self.min_cwnd);
    }

    fn on_congestion(&mut self, now: Time, _ev: &CongestionEvent) {
        // RFC 6817 §2.4.2: cwnd = min(cwnd, max(cwnd/2, MIN_CWND)).
        self.cwnd = (self.cwnd / 2.0).max(self.min_cwnd).min(self.cwnd);
        match self.clock.phase {
            Phase::SlowStart { .. } | Phase::RampUp => {
                self.ssthresh = self.cwnd;
                self.end_slow_start(now);
            }
            Phase::Frozen { .. } => {}
            Phase::CongestionAvoidance => self.ssthresh = self.cwnd,
        }
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        // RFC 6817 §2.4.2: cwnd = 1 MSS; then (modified) slow start back to half the
        // window, as TCP.
        self.ssthresh = (self.cwnd / 2.0).max(self.min_cwnd);
        self.cwnd = 1.0;
        let initial = matches!(self.clock.phase, Phase::SlowStart { initial: true });
        if matches!(self.clock.phase, Phase::Frozen { .. } | Phase::RampUp) {
            self.clock.slowdown_start = None;
        }
        self.clock.phase = Phase::SlowStart { initial };
    }

    fn cwnd(&self) -> u64 {
        fractional_window::cwnd_bytes(self.cwnd, self.mss)
    }

    fn ssthresh(&self) -> u64 {
        fractional_window::ssthresh_bytes(self.ssthresh, self.mss)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cwnd_pkts", self.cwnd));
        out.push(("queuing_delay_ms", self.queuing_delay / 1e6));
        if let Some(b) = self.est.base.base() {
            out.push(("base_rtt_ms", b as f64 / 1e6));
        }
        out.push(("gain", self.gain()));
        out.push(("phase", self.clock.phase.trace_code()));
        out.push(("slowdowns", self.clock.slowdowns as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            LedbatPlusPlusConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            LedbatPlusPlusConfig::default()
        );
    }

    fn make(cfg: LedbatPlusPlusConfig) -> LedbatPlusPlus {
        LedbatPlusPlus::new(
            &cfg,
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    /// An ACK of `segs` segments with an RTT sample, plenty of data in flight.
    fn ack(segs: u64, rtt_ms: u64) -> AckSample {
        AckSample {
            bytes_acked: segs * MSS,
            rtt: Some(Dur(rtt_ms * MS)),
            prior_in_flight: 1000 * MSS,
            bytes_in_flight: 999 * MSS,
            ..AckSample::empty(MSS)
        }
    }

    fn at(ms: u64) -> Time {
        Time(ms * MS)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn dynamic_gain() {
        let mut l = make(LedbatPlusPlusConfig::default());
        assert_eq!(l.gain(), 1.0 / 16.0); // no base yet
                                          // base 100 ms: ⌈2·60/100⌉ = ⌈1.2⌉ = 2 → 1/2.
        l.on_ack(at(0), &ack(0, 100));
        assert_eq!(l.gain(), 0.5);
        // base 10 ms: ⌈120/10⌉ = 12 → 1/12; base 2 ms: ⌈60⌉ → min(16, 60) = 16.
        l.on_ack(at(0), &ack(0, 10));
        assert_eq!(l.gain(), 1.0 / 12.0);
        l.on_ack(at(0), &ack(0, 2));
        assert_eq!(l.gain(), 1.0 / 16.0);
        // base 200 ms: ⌈0.6⌉ = 1 → GAIN 1.
        let mut l = make(LedbatPlusPlusConfig::default());
        l.on_ack(at(0), &ack(0, 200));
        assert_eq!(l.gain(), 1.0);
    }

    #[test]
    fn slow_start_with_gain_and_exit_at_three_quarters_of_target() {
        let mut l = make(LedbatPlusPlusConfig::default());
        // base 20 ms → GAIN = 1/⌈120/20⌉ = 1/6. Six segments acknowledged add one packet.
        l.on_ack(at(0), &ack(6, 20));
        assert!(close(l.cwnd_pkts(), 11.0));
        // Queueing delay 45 ms = exactly 3/4 of 60: not above, still slow start (+1/6·6).
        for _ in 0..4 {
            l.on_ack(at(10), &ack(6, 65));
        }
        assert!(close(l.cwnd_pkts(), 15.0));
        assert_eq!(l.phase(), Phase::SlowStart { initial: true });
        // RTT samples of 66 ms (no data acknowledged): q stays 45 while a 65 is in the
        // filter; with four 66s q = 46 ms > 45: exit with ssthresh = cwnd = 15 and the
        // first slowdown 2 RTTs later, RTT = the filtered 66 ms: at 20 + 132 ms.
        for _ in 0..3 {
            l.on_ack(at(20), &ack(0, 66));
            assert_eq!(l.phase(), Phase::SlowStart { initial: true });
        }
        l.on_ack(at(20), &ack(0, 66));
        assert_eq!(l.phase(), Phase::CongestionAvoidance);
        assert_eq!((l.cwnd(), l.ssthresh()), (15 * MSS, 15 * MSS));
        assert_eq!(l.next_slowdown(), Some(at(20 + 2 * 66)));
    }

    fn in_ca(cwnd: f64) -> LedbatPlusPlus {
        let mut l = make(LedbatPlusPlusConfig {
            clock: PlusPlusClockParams {
                slowdown: false,
                ..Default::default()
            },
            ..Default::default()
        });
        l.on_ack(at(0), &ack(0, 20)); // base 20 ms → GAIN 1/6
        l.clock.phase = Phase::CongestionAvoidance;
        l.cwnd = cwnd;
        l
    }

    #[test]
    fn additive_increase_below_target() {
        let mut l = in_ca(20.0);
        // q = 0: cwnd += GAIN·acked/W = (1/6)·2/20 = 1/60.
        l.on_ack(at(1), &ack(2, 20));
        assert!(close(l.cwnd_pkts(), 20.0 + 1.0 / 60.0));
    }

    #[test]
    fn multiplicative_decrease_and_its_cap() {
        let mut l = in_ca(20.0);
        // q = 90 − 20 = 70 ms (all four samples 90 → filter min 90): first three ACKs
        // still see the 20 in the filter. Use acked = 0 for those.
        for _ in 0..4 {
            l.on_ack(at(1), &ack(0, 90));
        }
        assert_eq!(l.cwnd_pkts(), 20.0);
        // 70/60 − 1 = 1/6: GAIN − C·W·(q/T − 1) = 1/6 − 20/6 = −19/6 > −W/2 = −10;
        // one segment acked: cwnd += (−19/6)/20 = −19/120.
        l.on_ack(at(1), &ack(1, 90));
        assert!(
            close(l.cwnd_pkts(), 20.0 - 19.0 / 120.0),
            "{}",
            l.cwnd_pkts()
        );
        // q = 200 − 20 = 180 ms: 1/6 − W·2 ≪ −W/2 → capped at −W/2 per RTT: one segment
        // acked of a window W removes (W/2)/W = 0.5 packet.
        let mut l = in_ca(20.0);
        for _ in 0..4 {
            l.on_ack(at(1), &ack(0, 200));
        }
        l.on_ack(at(1), &ack(1, 200));
        assert!(close(l.cwnd_pkts(), 19.5));
        // Every capped ACK removes acked/2 whatever W is: 20 segments acknowledged (one
        // window at the start) remove 10 packets, W/2.
        for _ in 0..19 {
            l.on_ack(at(1), &ack(1, 200));
        }
        assert!(close(l.cwnd_pkts(), 10.0), "{}", l.cwnd_pkts());
        // Never below MIN_CWND = 2.
        for _ in 0..500 {
            l.on_ack(at(1), &ack(1, 200));
        }
        assert_eq!(l.cwnd_pkts(), 2.0);
    }

    #[test]
    fn periodic_slowdown_cycle() {
        let mut l = make(LedbatPlusPlusConfig::default());
        // Base 100 ms → GAIN 1/2. Exit slow start on loss at t = 1 s with cwnd 40 → 20.
        l.on_ack(at(0), &ack(0, 100));
        l.cwnd = 40.0;
        l.on_congestion(
            at(1000),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 0,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!(
            (l.cwnd_pkts(), l.phase()),
            (20.0, Phase::CongestionAvoidance)
        );
        // First slowdown 2 RTTs (2·100 ms) after the exit.
        assert_eq!(l.next_slowdown(), Some(at(1200)));
        l.on_ack(at(1199), &ack(0, 100));
        assert_eq!(l.cwnd_pkts(), 20.0);
        // At 1.2 s: ssthresh = 20, cwnd = 2, frozen for 2 RTTs (until 1.4 s).
        l.on_ack(at(1200), &ack(1, 100));
        assert_eq!(
            (l.cwnd(), l.ssthresh(), l.phase()),
            (2 * MSS, 20 * MSS, Phase::Frozen { until: at(1400) })
        );
        l.on_ack(at(1399), &ack(4, 100));
        assert_eq!(l.cwnd_pkts(), 2.0);
        // From 1.4 s: slow start with GAIN 1/2 per segment: 4 segments → +2.
        l.on_ack(at(1400), &ack(4, 100));
        assert_eq!((l.cwnd_pkts(), l.phase()), (4.0, Phase::RampUp));
        // Up to ssthresh = 20: +16 needs 32 segments; at 1.6 s the ramp ends. Duration
        // 1.2 → 1.6 s = 400 ms; next slowdown 9·400 = 3600 ms later, at 5.2 s.
        for _ in 0..7 {
            l.on_ack(at(1500), &ack(4, 100));
        }
        assert_eq!(l.cwnd_pkts(), 18.0);
        l.on_ack(at(1600), &ack(4, 100));
        assert_eq!(
            (l.cwnd_pkts(), l.phase()),
            (20.0, Phase::CongestionAvoidance)
        );
        assert_eq!(l.next_slowdown(), Some(at(5200)));
        assert_eq!(l.slowdowns(), 1);
    }

    #[test]
    fn loss_halves_and_timeout_restarts_slow_start() {
        let mut l = in_ca(30.0);
        l.on_congestion(
            at(1),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 0,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!((l.cwnd(), l.ssthresh()), (15 * MSS, 15 * MSS));
        l.cwnd = 3.0;
        l.on_congestion(
            at(1),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 0,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!(l.cwnd_pkts(), 2.0); // max(1.5, MIN_CWND 2)
        l.cwnd = 12.0;
        l.on_rto(
            at(2),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!(
            (l.cwnd(), l.ssthresh(), l.phase()),
            (MSS, 6 * MSS, Phase::SlowStart { initial: false })
        );
        // The next ACK applies the MIN_CWND floor of RFC 6817.
        l.on_ack(at(3), &ack(0, 20));
        assert_eq!(l.cwnd_pkts(), 2.0);
    }

    #[test]
    fn growth_is_capped_by_flight_size_plus_allowed_increase() {
        let mut l = make(LedbatPlusPlusConfig::default());
        l.on_ack(at(0), &ack(0, 200)); // GAIN 1
        let mut a = ack(4, 200);
        a.prior_in_flight = 10 * MSS;
        a.bytes_in_flight = 6 * MSS;
        l.on_ack(at(1), &a); // 10 + 4 = 14 > 10 + 1 → 11
        assert_eq!(l.cwnd_pkts(), 11.0);
    }
}
