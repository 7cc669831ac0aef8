//! Small user-written metacontrollers showing the API (Wallenburg 2018 §3.5.1 Listings 3.3 and
//! 3.4 are the thesis's own examples; "LBE only during working hours" is Wallenburg 2018 §2.6's
//! example of a metacontroller that is not DA-LBE).

use super::knobs::Knobs;
use super::meta::{FlowView, MetaController};
use crate::units::{Dur, Time};

/// Wallenburg 2018 Listing 3.3: P(phantom ECN) = time remaining / deadline period, so the flow
/// starts very LBE and becomes plain as the deadline nears. The listing's integer
/// division (always 0, Wallenburg 2018 notes §11.10) is done in floating point here.
#[derive(Clone, Debug)]
pub struct LinearPhantom {
    pub interval: Dur,
}

impl MetaController for LinearPhantom {
    fn name(&self) -> &'static str {
        "linear-phantom"
    }
    fn interval(&self) -> Dur {
        self.interval
    }
    fn on_tick(&mut self, _now: Time, v: &FlowView) -> Knobs {
        let (Some(left), Some(d)) = (v.time_to_deadline(), v.deadline) else {
            return v.knobs;
        };
        let period = d.since(v.start).secs_f64();
        let p = if period > 0.0 {
            left.secs_f64() / period
        } else {
            0.0
        };
        Knobs {
            phantom_ecn_prob: p,
            ..v.knobs
        }
    }
}

/// LBE during working hours, plain otherwise. Time of day is `(now + offset) mod 24 h`
/// on the datapath's clock; `lbe` is the knob setting used inside [day_start, day_end).
#[derive(Clone, Debug)]
pub struct WorkingHours {
    pub interval: Dur,
    /// Time of day at `Time::ZERO`.
    pub offset: Dur,
    pub day_start: Dur,
    pub day_end: Dur,
    pub lbe: Knobs,
}

impl WorkingHours {
    pub fn in_hours(&self, now: Time) -> bool {
        let tod = (now.nanos() + self.offset.nanos()) % Dur::from_secs(86_400).nanos();
        (self.day_start.nanos()..self.day_end.nanos()).contains(&tod)
    }
}

impl MetaController for WorkingHours {
    fn name(&self) -> &'static str {
        "working-hours"
    }
    fn interval(&self) -> Dur {
        self.interval
    }
    fn on_start(&mut self, v: &FlowView) -> Knobs {
        self.on_tick(v.now, v)
    }
    fn on_tick(&mut self, now: Time, _v: &FlowView) -> Knobs {
        if self.in_hours(now) {
            self.lbe
        } else {
            Knobs::default()
        }
    }
}
