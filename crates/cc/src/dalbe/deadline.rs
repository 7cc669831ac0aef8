//! `DeadlineSwitch`: our deadline-aware metacontroller for any base algorithm (not from
//! Wallenburg 2018; design and rationale in docs/dalbe.md). It keeps the flow on a straight-line
//! schedule that ends a margin before the soft deadline and, at every tick, chooses
//! between two behaviours of the wrapped algorithm:
//!
//! * LBE: the algorithm yields to standing queues (a phantom ECN whenever the RTT exceeds
//!   the flow's minimum by a threshold, at most one reduction per RTT), optionally with
//!   inflated delay for delay-based bases and a background phantom-ECN probability;
//! * BE: the plain algorithm (neutral knobs).
//!
//! It is never more aggressive than the plain algorithm: it never ignores a loss or an
//! ECN and never hides delay (μ ≤ 1). The thesis found the model-based controllers
//! depend on models of the base and of the competitors (Wallenburg 2018 §5.1.2.3, §5.3: DA-LBE
//! Vegas missed every testbed deadline); a schedule with hysteresis needs neither.

use super::knobs::Knobs;
use super::meta::{FlowView, MetaController};
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::units::{Dur, Time};

pub static DEADLINE_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "interval",
        kind: ParamKind::Duration { min: Dur::from_millis(10), max: Dur::from_secs(600) },
        default: ParamValue::Dur(Dur::from_secs(1)),
        unit: "s",
        doc: "tick period",
        source: "ours (docs/dalbe.md): finer than the thesis's 10 s so that idle gaps and departures are used",
    },
    ParamSpec {
        name: "margin_fraction",
        kind: ParamKind::Float { min: 0.0, max: 0.5 },
        default: ParamValue::Float(0.02),
        unit: "",
        doc: "aim to finish this fraction of the deadline period early",
        source: "ours (docs/dalbe.md)",
    },
    ParamSpec {
        name: "margin_min",
        kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(3600) },
        default: ParamValue::Dur(Dur::from_secs(5)),
        unit: "s",
        doc: "at least this much early",
        source: "ours (docs/dalbe.md)",
    },
    ParamSpec {
        name: "hysteresis",
        kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(3600) },
        default: ParamValue::Dur(Dur::from_secs(5)),
        unit: "s",
        doc: "lead over the schedule (in seconds of the schedule rate) needed to switch from BE back to LBE",
        source: "ours (docs/dalbe.md)",
    },
    ParamSpec {
        name: "delay_threshold_fraction",
        kind: ParamKind::Float { min: 0.0, max: 10.0 },
        default: ParamValue::Float(0.25),
        unit: "",
        doc: "LBE mode: queueing delay (RTT - min RTT) above this fraction of the min RTT triggers a phantom ECN",
        source: "ours (docs/dalbe.md)",
    },
    ParamSpec {
        name: "delay_threshold_min",
        kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::from_millis(2)),
        unit: "ms",
        doc: "LBE mode: lower bound of the queueing-delay threshold",
        source: "ours (docs/dalbe.md)",
    },
    ParamSpec {
        name: "lbe_phantom_prob",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.0),
        unit: "",
        doc: "LBE mode: additional per-ACK phantom-ECN probability (Wallenburg 2018 mechanism, with suppression v = 2); 0 = off",
        source: "ours (docs/dalbe.md)",
    },
    ParamSpec {
        name: "lbe_mu",
        kind: ParamKind::Float { min: 0.001, max: 1.0 },
        default: ParamValue::Float(1.0),
        unit: "",
        doc: "LBE mode: queueing-delay scaling for delay-based bases (< 1 inflates delay); 1 = off",
        source: "ours (docs/dalbe.md); mechanism Wallenburg 2018 Alg 4",
    },
];

/// The deadline switch's parameters. Ours, not from Wallenburg 2018 (docs/dalbe.md); the
/// same defaults as `DEADLINE_PARAMS`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeadlineConfig {
    /// Tick period: 1 s (finer than the thesis's 10 s so that idle gaps and departures
    /// are used).
    pub interval: Dur,
    /// Aim to finish this fraction of the deadline period early: 0.02.
    pub margin_fraction: f64,
    /// … and at least this much early: 5 s.
    pub margin_min: Dur,
    /// Lead over the schedule (in seconds of the schedule rate) needed to switch from BE
    /// back to LBE: 5 s.
    pub hysteresis: Dur,
    /// LBE mode: queueing delay above this fraction of the min RTT triggers a phantom
    /// ECN: 0.25.
    pub delay_threshold_fraction: f64,
    /// LBE mode: lower bound of that threshold: 2 ms.
    pub delay_threshold_min: Dur,
    /// LBE mode: additional per-ACK phantom-ECN probability (0 = off): 0.
    pub lbe_phantom_prob: f64,
    /// LBE mode: queueing-delay scaling for delay-based bases (1 = off; mechanism
    /// Wallenburg 2018 Alg 4): 1.
    pub lbe_mu: f64,
}

impl Default for DeadlineConfig {
    fn default() -> DeadlineConfig {
        DeadlineConfig {
            interval: Dur::from_secs(1),
            margin_fraction: 0.02,
            margin_min: Dur::from_secs(5),
            hysteresis: Dur::from_secs(5),
            delay_threshold_fraction: 0.25,
            delay_threshold_min: Dur::from_millis(2),
            lbe_phantom_prob: 0.0,
            lbe_mu: 1.0,
        }
    }
}

impl TryFrom<&ParamSet> for DeadlineConfig {
    type Error = ParamError;
    /// The only place the deadline switch's parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<DeadlineConfig, ParamError> {
        let r = p.reader("deadline");
        Ok(DeadlineConfig {
            interval: r.dur("interval")?,
            margin_fraction: r.f64("margin_fraction")?,
            margin_min: r.dur("margin_min")?,
            hysteresis: r.dur("hysteresis")?,
            delay_threshold_fraction: r.f64("delay_threshold_fraction")?,
            delay_threshold_min: r.dur("delay_threshold_min")?,
            lbe_phantom_prob: r.f64("lbe_phantom_prob")?,
            lbe_mu: r.f64("lbe_mu")?,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Yield to other traffic.
    Lbe,
    /// The plain base algorithm.
    BestEffort,
}

/// Our deadline-aware switch controller (docs/dalbe.md).
#[derive(Clone, Debug)]
pub struct DeadlineSwitch {
    cfg: DeadlineConfig,
    mode: Mode,
    switches: u64,
    // Diagnostics of the last decision.
    lead_s: f64,
    plan_rate: f64,
    required_rate: f64,
    achieved_rate: f64,
    prev: Option<(Time, u64)>,
}

impl DeadlineSwitch {
    pub fn new(cfg: &DeadlineConfig) -> DeadlineSwitch {
        let cfg = *cfg;
        DeadlineSwitch {
            cfg,
            mode: Mode::BestEffort,
            switches: 0,
            lead_s: f64::NAN,
            plan_rate: f64::NAN,
            required_rate: f64::NAN,
            achieved_rate: f64::NAN,
            prev: None,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// Seconds ahead of the schedule at the last decision (negative: behind).
    pub fn lead(&self) -> f64 {
        self.lead_s
    }

    /// The schedule's end: t_D - max(margin_min, margin_fraction·(t_D - start)), but not
    /// before the start.
    pub fn aim(&self, start: Time, deadline: Time) -> Time {
        let period = deadline.since(start);
        let margin = self
            .cfg
            .margin_min
            .max(period.mul_f64(self.cfg.margin_fraction));
        if margin >= period {
            start
        } else {
            deadline - margin
        }
    }

    /// The knobs of the LBE behaviour for a flow whose minimum RTT is `rtt_min`.
    pub fn lbe_knobs(&self, rtt_min: Option<Dur>) -> Knobs {
        let c = &self.cfg;
        let th = rtt_min.map_or(c.delay_threshold_min, |r| {
            r.mul_f64(c.delay_threshold_fraction)
                .max(c.delay_threshold_min)
        });
        Knobs {
            delay_ecn_threshold: Some(th),
            phantom_ecn_prob: c.lbe_phantom_prob,
            suppression_v: if c.lbe_phantom_prob > 0.0 { 2 } else { 0 },
            delay_based: c.lbe_mu < 1.0,
            base_rtt_based: true,
            mu: c.lbe_mu.min(1.0),
            ..Knobs::default()
        }
    }

    /// The decision (also updates the mode).
    fn decide(&mut self, v: &FlowView) -> Knobs {
        if let Some((t, a)) = self.prev {
            let dt = v.now.since(t).secs_f64();
            if dt > 0.0 {
                self.achieved_rate = v.bytes_acked.saturating_sub(a) as f64 / dt;
            }
        }
        self.prev = Some((v.now, v.bytes_acked));
        let (Some(size), Some(remaining), Some(deadline)) = (v.size, v.bytes_remaining, v.deadline)
        else {
            // No goal: a pure scavenger.
            self.set_mode(Mode::Lbe);
            return self.lbe_knobs(v.info.rtt_min);
        };
        if remaining == 0 {
            self.set_mode(Mode::BestEffort);
            return Knobs::default();
        }
        let aim = self.aim(v.start, deadline);
        let span = aim.since(v.start).secs_f64();
        if v.now >= aim || span <= 0.0 {
            // Past the schedule's end: compete as best effort until done (Wallenburg 2018
            // §2.6.5 soft-deadline semantics).
            self.lead_s = -(v.now.since(aim).secs_f64());
            self.required_rate = f64::INFINITY;
            self.set_mode(Mode::BestEffort);
            return Knobs::default();
        }
        // Schedule rate ζ0 = S / (t_aim - t_start); required rate R / (t_aim - t);
        // lead L = (t_aim - t) - R/ζ0 (seconds ahead of the straight-line schedule).
        let left = aim.since(v.now).secs_f64();
        self.plan_rate = size as f64 / span;
        self.required_rate = remaining as f64 / left;
        self.lead_s = left - remaining as f64 / self.plan_rate;
        if self.lead_s <= 0.0 {
            self.set_mode(Mode::BestEffort);
        } else if self.lead_s >= self.cfg.hysteresis.secs_f64() {
            self.set_mode(Mode::Lbe);
        }
        match self.mode {
            Mode::Lbe => self.lbe_knobs(v.info.rtt_min),
            Mode::BestEffort => Knobs::default(),
        }
    }

    fn set_mode(&mut self, m: Mode) {
        if m != self.mode {
            self.switches += 1;
            self.mode = m;
        }
    }
}

impl MetaController for DeadlineSwitch {
    fn name(&self) -> &'static str {
        "deadline"
    }

    fn interval(&self) -> Dur {
        self.cfg.interval
    }

    fn on_start(&mut self, view: &FlowView) -> Knobs {
        self.decide(view)
    }

    fn on_tick(&mut self, _now: Time, view: &FlowView) -> Knobs {
        self.decide(view)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ds_lbe", if self.mode == Mode::Lbe { 1.0 } else { 0.0 }));
        out.push(("ds_lead_s", self.lead_s));
        out.push(("ds_plan_mbps", self.plan_rate * 8e-6));
        out.push(("ds_required_mbps", self.required_rate * 8e-6));
        out.push(("ds_achieved_mbps", self.achieved_rate * 8e-6));
        out.push(("ds_switches", self.switches as f64));
    }
}
