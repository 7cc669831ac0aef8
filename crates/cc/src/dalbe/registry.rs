//! Metacontrollers by name, so scenarios (and later the kernel and QUIC datapaths) can
//! choose one: `controlled(...)` wraps any algorithm instance in DA-LBE under a
//! controller, ready to be driven as a plain `CongestionControl`.

use super::examples::{LinearPhantom, WorkingHours};
use super::{
    ControlledFlow, CubicMbc, DaLbe, DeadlineSwitch, FlowGoal, Knobs, MetaController,
    CUBIC_MBC_PARAMS, DEADLINE_PARAMS, VEGAS_MBC_PARAMS,
};
use crate::api::{CcInit, CongestionControl};
use crate::params::{ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::units::{Dur, Time};

pub struct ControllerInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    /// The controller steers towards a deadline, so the flow must have one (and a size).
    pub needs_deadline: bool,
    pub build: fn(&ParamSet) -> Box<dyn MetaController>,
}

static WORKING_HOURS_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "interval",
        kind: ParamKind::Duration {
            min: Dur::from_millis(10),
            max: Dur::from_secs(3600),
        },
        default: ParamValue::Dur(Dur::from_secs(1)),
        unit: "",
        doc: "how often the controller looks at the clock",
        source: "ours (example metacontroller)",
    },
    ParamSpec {
        name: "offset",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(86_400),
        },
        default: ParamValue::Dur(Dur::from_secs(9 * 3600)),
        unit: "",
        doc: "time of day at the start of the run",
        source: "ours (example metacontroller)",
    },
    ParamSpec {
        name: "day_start",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(86_400),
        },
        default: ParamValue::Dur(Dur::from_secs(8 * 3600)),
        unit: "",
        doc: "start of working hours (time of day)",
        source: "ours (example metacontroller)",
    },
    ParamSpec {
        name: "day_end",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(86_400),
        },
        default: ParamValue::Dur(Dur::from_secs(18 * 3600)),
        unit: "",
        doc: "end of working hours (time of day)",
        source: "ours (example metacontroller)",
    },
    ParamSpec {
        name: "phantom_ecn_prob",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.01),
        unit: "per segment",
        doc: "phantom ECN probability during working hours (LBE)",
        source: "ours (example metacontroller)",
    },
];

static LINEAR_PHANTOM_PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "interval",
    kind: ParamKind::Duration {
        min: Dur::from_millis(10),
        max: Dur::from_secs(3600),
    },
    default: ParamValue::Dur(Dur::from_secs(1)),
    unit: "",
    doc: "how often the phantom probability is updated",
    source: "Wallenburg 2018 Listing 3.3",
}];

fn working_hours(p: &ParamSet) -> Box<dyn MetaController> {
    Box::new(WorkingHours {
        interval: p.dur("interval"),
        offset: p.dur("offset"),
        day_start: p.dur("day_start"),
        day_end: p.dur("day_end"),
        lbe: Knobs {
            phantom_ecn_prob: p.f64("phantom_ecn_prob"),
            ..Knobs::default()
        },
    })
}

pub static CONTROLLERS: &[ControllerInfo] = &[
    ControllerInfo { name: "cubic-mbc", needs_deadline: true, summary: "Wallenburg 2018 §3.5.2.1: model-based phantom-ECN controller for CUBIC", params: CUBIC_MBC_PARAMS, build: |p| Box::new(CubicMbc::from_params(p)) },
    ControllerInfo { name: "vegas-mbc", needs_deadline: true, summary: "Wallenburg 2018 §3.5.2.2: model-based queueing-delay controller for Vegas", params: VEGAS_MBC_PARAMS, build: |p| Box::new(super::VegasMbc::from_params(p)) },
    ControllerInfo { name: "deadline", needs_deadline: true, summary: "ours: LBE while ahead of schedule, the plain base algorithm when behind (docs/dalbe.md)", params: DEADLINE_PARAMS, build: |p| Box::new(DeadlineSwitch::from_params(p)) },
    ControllerInfo { name: "linear-phantom", needs_deadline: true, summary: "Wallenburg 2018 Listing 3.3: phantom-ECN probability falling linearly to the deadline", params: LINEAR_PHANTOM_PARAMS, build: |p| Box::new(LinearPhantom { interval: p.dur("interval") }) },
    ControllerInfo { name: "working-hours", needs_deadline: false, summary: "example: LBE during working hours, plain otherwise", params: WORKING_HOURS_PARAMS, build: working_hours },
];

pub fn find_controller(name: &str) -> Option<&'static ControllerInfo> {
    CONTROLLERS
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(name))
}

pub fn controller_names() -> String {
    CONTROLLERS
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Wraps `inner` in DA-LBE (neutral knobs to start) driven by `ctrl`.
pub fn controlled(
    inner: Box<dyn CongestionControl>,
    ctrl: Box<dyn MetaController>,
    goal: FlowGoal,
    init: &CcInit,
) -> Box<dyn CongestionControl> {
    let start: Time = init.now;
    let dalbe = DaLbe::new(inner, Knobs::default(), DaLbe::derive_rng(init));
    Box::new(ControlledFlow::new(dalbe, ctrl, goal, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_controller_builds_from_its_defaults() {
        for c in CONTROLLERS {
            let ctrl = (c.build)(&ParamSet::defaults(c.params));
            assert_eq!(ctrl.name(), c.name);
            assert!(ctrl.interval() > Dur::ZERO);
        }
        assert!(find_controller("DEADLINE").is_some() && find_controller("nope").is_none());
    }
}
