//! Metacontrollers by name, so scenarios (and later the kernel and QUIC datapaths) can
//! choose one: `controlled(...)` wraps any algorithm instance in DA-LBE under a
//! controller, ready to be driven as a plain `CongestionControl`.

use super::examples::{LinearPhantom, WorkingHours};
use super::{
    ControlledFlow, CubicMbc, CubicMbcConfig, DaLbe, DeadlineConfig, DeadlineSwitch, FlowGoal,
    Knobs, MetaController, VegasMbc, VegasMbcConfig, CUBIC_MBC_PARAMS, DEADLINE_PARAMS,
    VEGAS_MBC_PARAMS,
};
use crate::api::{CcInit, CongestionControl};
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
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

impl TryFrom<&ParamSet> for WorkingHours {
    type Error = ParamError;
    /// The only place the example's parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<WorkingHours, ParamError> {
        let r = p.reader("working-hours");
        Ok(WorkingHours {
            interval: r.dur("interval")?,
            offset: r.dur("offset")?,
            day_start: r.dur("day_start")?,
            day_end: r.dur("day_end")?,
            lbe: Knobs {
                phantom_ecn_prob: r.f64("phantom_ecn_prob")?,
                ..Knobs::default()
            },
        })
    }
}

impl TryFrom<&ParamSet> for LinearPhantom {
    type Error = ParamError;
    /// The only place the listing's parameter name is looked up.
    fn try_from(p: &ParamSet) -> Result<LinearPhantom, ParamError> {
        Ok(LinearPhantom {
            interval: p.reader("linear-phantom").dur("interval")?,
        })
    }
}

// The builders take a set resolved against the controller's own table (`params`), so the
// conversions cannot fail; a failure is a table/config mismatch, which the
// `config_defaults_match_spec_table` tests catch.
const RESOLVED: &str = "controller parameters resolved against its table";

fn cubic_mbc(p: &ParamSet) -> Box<dyn MetaController> {
    Box::new(CubicMbc::new(&CubicMbcConfig::try_from(p).expect(RESOLVED)))
}

fn vegas_mbc(p: &ParamSet) -> Box<dyn MetaController> {
    Box::new(VegasMbc::new(&VegasMbcConfig::try_from(p).expect(RESOLVED)))
}

fn deadline(p: &ParamSet) -> Box<dyn MetaController> {
    Box::new(DeadlineSwitch::new(
        &DeadlineConfig::try_from(p).expect(RESOLVED),
    ))
}

fn linear_phantom(p: &ParamSet) -> Box<dyn MetaController> {
    Box::new(LinearPhantom::try_from(p).expect(RESOLVED))
}

fn working_hours(p: &ParamSet) -> Box<dyn MetaController> {
    Box::new(WorkingHours::try_from(p).expect(RESOLVED))
}

pub static CONTROLLERS: &[ControllerInfo] = &[
    ControllerInfo { name: "cubic-mbc", needs_deadline: true, summary: "Wallenburg 2018 §3.5.2.1: model-based phantom-ECN controller for CUBIC", params: CUBIC_MBC_PARAMS, build: cubic_mbc },
    ControllerInfo { name: "vegas-mbc", needs_deadline: true, summary: "Wallenburg 2018 §3.5.2.2: model-based queueing-delay controller for Vegas", params: VEGAS_MBC_PARAMS, build: vegas_mbc },
    ControllerInfo { name: "deadline", needs_deadline: true, summary: "ours: LBE while ahead of schedule, the plain base algorithm when behind (docs/dalbe.md)", params: DEADLINE_PARAMS, build: deadline },
    ControllerInfo { name: "linear-phantom", needs_deadline: true, summary: "Wallenburg 2018 Listing 3.3: phantom-ECN probability falling linearly to the deadline", params: LINEAR_PHANTOM_PARAMS, build: linear_phantom },
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

    #[test]
    fn config_defaults_match_spec_table() {
        let d = |name: &str| ParamSet::defaults(find_controller(name).unwrap().params);
        assert_eq!(
            CubicMbcConfig::try_from(&d("cubic-mbc")).unwrap(),
            CubicMbcConfig::default()
        );
        assert_eq!(
            VegasMbcConfig::try_from(&d("vegas-mbc")).unwrap(),
            VegasMbcConfig::default()
        );
        assert_eq!(
            DeadlineConfig::try_from(&d("deadline")).unwrap(),
            DeadlineConfig::default()
        );
        let wh = WorkingHours::try_from(&d("working-hours")).unwrap();
        assert_eq!(
            (wh.interval, wh.offset, wh.day_start, wh.day_end),
            (
                Dur::from_secs(1),
                Dur::from_secs(9 * 3600),
                Dur::from_secs(8 * 3600),
                Dur::from_secs(18 * 3600)
            )
        );
        assert_eq!(wh.lbe.phantom_ecn_prob, 0.01);
        let lp = LinearPhantom::try_from(&d("linear-phantom")).unwrap();
        assert_eq!(lp.interval, Dur::from_secs(1));
        // Every choice word maps to its enum value.
        use super::super::mbc::{PriceScaling, RttMean};
        use crate::params::RawParam;
        for (word, want) in [
            ("beta", PriceScaling::Beta),
            ("none", PriceScaling::None),
            ("one_minus_beta", PriceScaling::OneMinusBeta),
        ] {
            let v = RawParam::Text(word.into());
            let p =
                ParamSet::resolve("cubic-mbc", CUBIC_MBC_PARAMS, [("price_scaling", &v)]).unwrap();
            assert_eq!(CubicMbcConfig::try_from(&p).unwrap().price_scaling, want);
        }
        let v = RawParam::Text("srtt".into());
        let p = ParamSet::resolve("vegas-mbc", VEGAS_MBC_PARAMS, [("rtt_mean", &v)]).unwrap();
        assert_eq!(
            VegasMbcConfig::try_from(&p).unwrap().rtt_mean,
            RttMean::Srtt
        );
    }
}
