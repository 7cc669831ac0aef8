//! Eclipse (Adhari, Dreibholz, Werner, Rathgeb, NBiS 2015) as Ong 2020 describes it
//! (§2.2.9, Ong 2020 notes §2.12; the original paper was not available): LEDBAT with an
//! adaptive target instead of the fixed one.
//!
//! - s_min and s_max are moving averages of the minimum and maximum delay, "which can be
//!   overwritten by values lower and higher than the averages, respectively"; they are
//!   averaged once per *adaptation interval*, whose length is "the time difference
//!   between the observation of the minimum and maximum delay values" of the interval.
//!   They "replace the concepts of base delay and current delay used by LEDBAT".
//! - target = β·(s_max − s_min) + s_min (Ong 2020 eq. 2.8), β = 15 % (Ong 2020 §5.4.2).
//! - cwnd = cwnd + off_target·newly_acked·MSS/cwnd (Ong 2020 eq. 2.9), with LEDBAT's
//!   normalised off_target = (target − delay)/(target − s_min), i.e. relative to the
//!   queueing-delay target β·(s_max − s_min).
//! - Everything else as the LEDBAT module Eclipse extends (`ledbat`: slow start until the
//!   first loss, cwnd ≤ flightsize + ALLOWED_INCREASE, MIN_CWND, halving on loss).
//!
//! Delays are one-way delays with the clock offset included; the offset cancels because
//! target, s_min and the current delay carry the same offset. The choices the
//! description leaves open are listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/eclipse.md):
//! - what the averages s_min and s_max average: docs/deviations/eclipse.md#eclipse-averages
//! - the adaptation interval and its floor: docs/deviations/eclipse.md#eclipse-interval
//! - off_target of eq. 2.9: docs/deviations/eclipse.md#eclipse-off-target
//! - everything else is the LEDBAT module: docs/deviations/eclipse.md#eclipse-ledbat-rest

use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};

use super::ledbat::{drain_cwnd_cnt, SegmentWindow, P_ALLOWED_INCREASE, P_MIN_CWND, P_SLOW_START};
use crate::estimators::base_delay::CurrentDelayFilter;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "eclipse",
    aliases: &[],
    summary: "Eclipse: LEDBAT with an adaptive target β·(s_max − s_min) + s_min from per-interval delay extremes",
    source: "Ong 2020 §2.2.9 (eq. 2.8, 2.9), §5.4.2; Adhari et al. NBiS 2015",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.15),
        unit: "",
        doc: "β, the early congestion indication threshold: the target is this fraction of the way from s_min to s_max",
        source: "Ong 2020 §2.2.9 eq. 2.8; §5.4.2 (\"Consistent with the setting used by Eclipse ... 15%\")",
    },
    ParamSpec {
        name: "gain",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(1.0),
        unit: "",
        doc: "Factor on off_target (eq. 2.9 has none, i.e. 1)",
        source: "Ong 2020 §2.2.9 eq. 2.9 (no gain); RFC 6817 GAIN ≤ 1",
    },
    ParamSpec {
        name: "avg_weight",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.125),
        unit: "",
        doc: "EWMA weight of the interval minimum/maximum in s_min/s_max (not given by Ong 2020)",
        source: "assumption (docs/deviations/eclipse.md): 1/8, the usual TCP EWMA weight",
    },
    ParamSpec {
        name: "initial_interval",
        kind: ParamKind::Duration { min: Dur::from_millis(1), max: Dur::from_secs(600) },
        default: ParamValue::Dur(Dur::from_secs(1)),
        unit: "s",
        doc: "Length of the first adaptation interval (before any min/max pair was observed)",
        source: "assumption (docs/deviations/eclipse.md)",
    },
    ParamSpec {
        name: "min_interval",
        kind: ParamKind::Duration { min: Dur::from_millis(1), max: Dur::from_secs(600) },
        default: ParamValue::Dur(Dur::from_millis(100)),
        unit: "ms",
        doc: "Floor of the adaptation interval (|t_max − t_min| may be tiny or zero)",
        source: "assumption (docs/deviations/eclipse.md)",
    },
    ParamSpec {
        name: "min_target",
        kind: ParamKind::Duration { min: Dur::from_micros(1), max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::from_millis(1)),
        unit: "ms",
        doc: "Floor of the queueing-delay target β·(s_max − s_min), e.g. before any queue was seen",
        source: "assumption (docs/deviations/eclipse.md)",
    },
    ParamSpec {
        name: "current_filter",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(1),
        unit: "samples",
        doc: "The delay compared with the target is the minimum of this many latest samples (1 = the sample itself)",
        source: "Ong 2020 §2.2.9 (the averages replace LEDBAT's current delay); RFC 6817 §2.4.2 FILTER",
    },
    P_ALLOWED_INCREASE,
    P_MIN_CWND,
    P_SLOW_START,
];

/// Eclipse's parameters. Ong 2020 §2.2.9 gives β; the rest are LEDBAT's (RFC 6817) or
/// our assumptions, argued in docs/deviations/eclipse.md.
#[derive(Clone, Debug, PartialEq)]
pub struct EclipseConfig {
    /// `beta`: β, the early congestion indication threshold; the target is this fraction
    /// of the way from s_min to s_max. Ong 2020 §2.2.9 eq. 2.8, §5.4.2 (15 %).
    pub beta: f64,
    /// `gain`: factor on off_target. Ong 2020 eq. 2.9 has none, i.e. 1 (RFC 6817 GAIN ≤ 1).
    pub gain: f64,
    /// `avg_weight`: EWMA weight of the interval minimum/maximum in s_min/s_max;
    /// assumption 1/8, the usual TCP EWMA weight.
    pub avg_weight: f64,
    /// `initial_interval`: length of the first adaptation interval; assumption 1 s.
    pub initial_interval: Dur,
    /// `min_interval`: floor of the adaptation interval; assumption 100 ms.
    pub min_interval: Dur,
    /// `min_target`: floor of the queueing-delay target; assumption 1 ms.
    pub min_target: Dur,
    /// `current_filter`, samples: the delay compared with the target is the minimum of
    /// this many latest samples. Ong 2020 §2.2.9; RFC 6817 §2.4.2 FILTER; 1.
    pub current_filter: usize,
    /// `allowed_increase`, segments: RFC 6817 §2.4.2, §2.5 (SHOULD be 1).
    pub allowed_increase: u64,
    /// `min_cwnd`, segments: RFC 6817 §2.5 (SHOULD be 2).
    pub min_cwnd: u64,
    /// `slow_start`: the LEDBAT module's slow start below ssthresh (Ong 2020 notes §2.9).
    pub slow_start: bool,
}

impl Default for EclipseConfig {
    fn default() -> EclipseConfig {
        EclipseConfig {
            beta: 0.15,
            gain: 1.0,
            avg_weight: 0.125,
            initial_interval: Dur::from_secs(1),
            min_interval: Dur::from_millis(100),
            min_target: Dur::from_millis(1),
            current_filter: 1,
            allowed_increase: 1,
            min_cwnd: 2,
            slow_start: true,
        }
    }
}

impl TryFrom<&ParamSet> for EclipseConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<EclipseConfig, ParamError> {
        let r = p.reader("eclipse");
        Ok(EclipseConfig {
            beta: r.f64("beta")?,
            gain: r.f64("gain")?,
            avg_weight: r.f64("avg_weight")?,
            initial_interval: r.dur("initial_interval")?,
            min_interval: r.dur("min_interval")?,
            min_target: r.dur("min_target")?,
            current_filter: r.usize("current_filter")?,
            allowed_increase: r.u64("allowed_increase")?,
            min_cwnd: r.u64("min_cwnd")?,
            slow_start: r.bool("slow_start")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = EclipseConfig::try_from(p).expect("eclipse: parameters resolved against PARAMS");
    Box::new(Eclipse::new(&cfg, &init))
}

/// s_min / s_max with their adaptation intervals (Ong 2020 §2.2.9).
#[derive(Clone, Debug)]
pub struct AdaptiveTarget {
    beta: f64,
    weight: f64,
    min_interval: Dur,
    /// Averages in ns of delay; `None` before the first sample.
    pub s_min: Option<f64>,
    pub s_max: Option<f64>,
    interval_start: Time,
    pub interval: Dur,
    /// This interval's minimum and maximum with the times they were observed.
    imin: Option<(f64, Time)>,
    imax: Option<(f64, Time)>,
}

impl AdaptiveTarget {
    pub fn new(beta: f64, weight: f64, initial_interval: Dur, min_interval: Dur) -> Self {
        AdaptiveTarget {
            beta,
            weight,
            min_interval,
            s_min: None,
            s_max: None,
            interval_start: Time::ZERO,
            interval: initial_interval,
            imin: None,
            imax: None,
        }
    }

    pub fn update(&mut self, now: Time, d: f64) {
        if self.s_min.is_none() {
            self.interval_start = now;
        }
        // "overwritten by values lower and higher than the averages".
        self.s_min = Some(self.s_min.map_or(d, |m| m.min(d)));
        self.s_max = Some(self.s_max.map_or(d, |m| m.max(d)));
        if self.imin.is_none_or(|(m, _)| d < m) {
            self.imin = Some((d, now));
        }
        if self.imax.is_none_or(|(m, _)| d > m) {
            self.imax = Some((d, now));
        }
        if now.since(self.interval_start) >= self.interval {
            // End of the adaptation interval: average the extremes in, and the next
            // interval lasts |t(max) − t(min)| of this one.
            let ((lo, tlo), (hi, thi)) = (self.imin.unwrap(), self.imax.unwrap());
            let w = self.weight;
            self.s_min = self.s_min.map(|m| (1.0 - w) * m + w * lo);
            self.s_max = self.s_max.map(|m| (1.0 - w) * m + w * hi);
            let span = if thi >= tlo {
                thi.since(tlo)
            } else {
                tlo.since(thi)
            };
            self.interval = span.max(self.min_interval);
            self.interval_start = now;
            self.imin = None;
            self.imax = None;
        }
    }

    /// target = β·(s_max − s_min) + s_min (Ong 2020 eq. 2.8), in delay units.
    pub fn target(&self) -> Option<f64> {
        Some(self.beta * (self.s_max? - self.s_min?) + self.s_min?)
    }
}

#[derive(Clone, Debug)]
pub struct Eclipse {
    target: AdaptiveTarget,
    current: CurrentDelayFilter,
    win: SegmentWindow,
    gain: f64,
    min_target: f64,
    /// Σ gain·off_target·acked, in segments (the module-style fractional counter).
    cwnd_cnt: f64,
    last_off_target: f64,
}

impl Eclipse {
    pub fn new(cfg: &EclipseConfig, init: &CcInit) -> Eclipse {
        // SegmentWindow (ledbat.rs) still reads its three values from a ParamSet; give
        // it the table's defaults and set the typed values over them.
        let mut win = SegmentWindow::new(&ParamSet::defaults(PARAMS), init);
        win.slow_start = cfg.slow_start;
        win.min_cwnd = cfg.min_cwnd;
        win.allowed_increase = cfg.allowed_increase;
        Eclipse {
            target: AdaptiveTarget::new(
                cfg.beta,
                cfg.avg_weight,
                cfg.initial_interval,
                cfg.min_interval,
            ),
            current: CurrentDelayFilter::new(cfg.current_filter),
            win,
            gain: cfg.gain,
            min_target: cfg.min_target.nanos() as f64,
            cwnd_cnt: 0.0,
            last_off_target: 0.0,
        }
    }

    pub fn adaptive_target(&self) -> &AdaptiveTarget {
        &self.target
    }

    /// off_target = (target − delay)/(target − s_min), with the queueing-delay target
    /// β·(s_max − s_min) floored at `min_target`.
    pub fn off_target(&self) -> Option<f64> {
        let s_min = self.target.s_min?;
        let tq = (self.target.target()? - s_min).max(self.min_target);
        let q = (self.current.current()? as f64 - s_min).max(0.0);
        Some((tq - q) / tq)
    }
}

impl CongestionControl for Eclipse {
    fn name(&self) -> &'static str {
        "eclipse"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if ack.in_recovery {
            return;
        }
        if let Some(owd) = ack.owd {
            self.target.update(now, owd as f64);
            self.current.update(owd);
        }
        let Some(acked) = self.win.segments_for_delay_rule(ack) else {
            return;
        };
        let Some(off) = self.off_target() else { return };
        self.last_off_target = off;
        // Ong 2020 eq. 2.9: cwnd += off_target·newly_acked·MSS/cwnd, in segments through
        // a counter: cnt += gain·off_target·acked; whole segments once |cnt| ≥ cwnd.
        self.cwnd_cnt += self.gain * off * acked as f64;
        let new_cwnd = drain_cwnd_cnt(&mut self.cwnd_cnt, self.win.w.cwnd, 1.0);
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
        if let (Some(lo), Some(hi), Some(t)) =
            (self.target.s_min, self.target.s_max, self.target.target())
        {
            out.push(("target_qdelay_ms", (t - lo) / 1e6));
            out.push(("range_ms", (hi - lo) / 1e6));
        }
        if let (Some(c), Some(lo)) = (self.current.current(), self.target.s_min) {
            out.push(("queuing_delay_ms", (c as f64 - lo).max(0.0) / 1e6));
        }
        out.push(("off_target", self.last_off_target));
        out.push(("interval_ms", self.target.interval.nanos() as f64 / 1e6));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn at(ms: u64) -> Time {
        Time(ms * MS)
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            EclipseConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            EclipseConfig::default()
        );
    }

    fn make(cfg: EclipseConfig) -> Eclipse {
        Eclipse::new(
            &cfg,
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    fn ack(owd_ms: f64) -> AckSample {
        AckSample {
            bytes_acked: MSS,
            owd: Some((owd_ms * 1e6) as i64),
            bytes_in_flight: 10 * MSS,
            ..AckSample::empty(MSS)
        }
    }

    #[test]
    fn target_from_overwritten_and_averaged_extremes() {
        let mut a = AdaptiveTarget::new(0.15, 0.125, Dur::from_secs(1), Dur::from_millis(100));
        let ms = |x: f64| x * 1e6;
        a.update(at(0), ms(10.0));
        assert_eq!(a.target(), Some(ms(10.0))); // s_min = s_max = 10
        a.update(at(100), ms(110.0)); // overwrites s_max
                                      // target = 0.15·(110 − 10) + 10 = 25 ms.
        assert_eq!(a.target(), Some(ms(25.0)));
        // At 1 s the first interval (1 s) ends: min 10 @ 0, max 110 @ 100 ms;
        // s_min = 7/8·10 + 1/8·10 = 10, s_max = 110; next interval |100 − 0| = 100 ms.
        a.update(at(1000), ms(50.0));
        assert_eq!(
            (a.s_min, a.s_max, a.interval),
            (Some(ms(10.0)), Some(ms(110.0)), Dur::from_millis(100))
        );
        // Interval 2: 30 @ 1050, 40 @ 1100 (ends, 100 ms): s_min = 8.75 + 3.75 = 12.5 ms,
        // s_max = 96.25 + 5 = 101.25 ms; span 50 ms → floored to 100 ms.
        a.update(at(1050), ms(30.0));
        a.update(at(1100), ms(40.0));
        assert_eq!(
            (a.s_min, a.s_max, a.interval),
            (Some(ms(12.5)), Some(ms(101.25)), Dur::from_millis(100))
        );
        // target = 0.15·(101.25 − 12.5) + 12.5 = 13.3125 + 12.5 = 25.8125 ms.
        assert!((a.target().unwrap() - ms(25.8125)).abs() < 1e-6);
        // A lower sample overwrites s_min at once.
        a.update(at(1120), ms(5.0));
        assert_eq!(a.s_min, Some(ms(5.0)));
    }

    #[test]
    fn window_follows_eq_2_9() {
        let mut e = make(EclipseConfig {
            slow_start: false,
            ..EclipseConfig::default()
        });
        let t = at(0);
        // s_min = 10, s_max = 110 → queueing target 15 ms.
        e.on_ack(
            t,
            &AckSample {
                bytes_acked: 0,
                ..ack(10.0)
            },
        );
        e.on_ack(
            t,
            &AckSample {
                bytes_acked: 0,
                ..ack(110.0)
            },
        );
        // Current delay 110: q = 100 ms, off_target = (15 − 100)/15 = −17/3.
        assert!((e.off_target().unwrap() + 17.0 / 3.0).abs() < 1e-12);
        // Delay 10 ms (empty queue): off_target = 1; +1 segment per 10 acked at cwnd 10.
        for _ in 0..9 {
            e.on_ack(t, &ack(10.0));
        }
        assert_eq!(e.cwnd(), 10 * MSS);
        e.on_ack(t, &ack(10.0));
        assert_eq!(e.cwnd(), 11 * MSS);
        // Delay 40 ms: q = 30 = 2·target → off_target = −1: one ACK −1 < 11 → no change;
        // q = 100: −17/3 per ACK: cnt = −1 − 17/3 = −6.67, then −12.33 ≥ 11 → −1 segment.
        e.on_ack(t, &ack(40.0));
        assert_eq!(e.cwnd(), 11 * MSS);
        e.on_ack(t, &ack(110.0));
        assert_eq!(e.cwnd(), 11 * MSS);
        e.on_ack(t, &ack(110.0));
        assert_eq!(e.cwnd(), 10 * MSS);
    }

    #[test]
    fn loss_and_floor() {
        let mut e = make(EclipseConfig::default());
        e.on_congestion(
            at(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 10 * MSS,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!((e.cwnd(), e.ssthresh()), (5 * MSS, 5 * MSS));
        e.on_rto(
            at(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!(e.cwnd(), MSS);
        // Before a queueing delay exists the target floors at min_target = 1 ms; with
        // q = 0 off_target = 1.
        let mut f = make(EclipseConfig {
            slow_start: false,
            ..EclipseConfig::default()
        });
        f.on_ack(at(0), &ack(20.0));
        assert_eq!(f.off_target(), Some(1.0));
    }
}
