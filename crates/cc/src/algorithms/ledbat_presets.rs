//! Named LEDBAT presets from Trang 2015's analysis (Trang 2015, ch. 3; Trang 2015 notes §2), as
//! separate registry entries that run the `ledbat` implementation with other defaults.
//! Every parameter of `ledbat` remains and can be overridden.
//!
//! - `ledbat-rfc`: RFC 6817 as Trang 2015 ran it (the Valenti et al. ns-2/Linux module on
//!   TCP-Linux, Trang 2015 notes §2.2–2.3): TARGET 100 ms, GAIN 1 for increase and decrease,
//!   BASE_HISTORY 10 one-minute buckets rolled at clock minutes, CURRENT_FILTER 4
//!   (`noise_filter_len`), raw one-way delays, no slow start (Trang 2015 notes §2.3 [A]: do_ss =
//!   0; the RFC pseudo-code has none), ALLOWED_INCREASE 1, MIN_CWND 2 (RFC 6817 §2.5).
//! - `ledbat-tuned`: the same with Trang 2015's globally optimal pair (§3.3–3.4, Table 3.1):
//!   τ = 5 ms and decrease gain γ_dcr = 10 (γ_icr stays 1).
//!
//! Differences from the source (the reasoning is in docs/deviations/ledbat-presets.md):
//! - the presets run our `ledbat`, not the Valenti module Trang 2015 ran:
//!   docs/deviations/ledbat-presets.md#ledbat-presets-module
//! - no slow start: docs/deviations/ledbat-presets.md#ledbat-presets-no-slow-start

use crate::api::*;
use crate::estimators::base_delay::Rollover;
use crate::params::{ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Rate, Time};

use super::ledbat::{
    Ledbat, LedbatConfig, P_ALLOWED_INCREASE, P_BASE_HISTORY, P_CLAMP_TO_FIRST, P_CURRENT_FILTER,
    P_MIN_CWND, P_ROLLOVER, P_SLOW_START, P_TARGET,
};

impl LedbatConfig {
    /// `ledbat-rfc`: RFC 6817 as Trang 2015 ran it (the Valenti et al. module, Trang 2015
    /// notes §2.2–2.3). Each value is the default of `RFC_PARAMS`, with its source there.
    pub fn rfc6817() -> LedbatConfig {
        LedbatConfig {
            // RFC 6817 §2.5; Trang 2015 §3.2 (τ = 100 ms).
            target: Dur::from_millis(100),
            // RFC 6817 §2.5; Trang 2015 §2.1 (γ_icr = γ_dcr = 1).
            gain: 1.0,
            gain_dec: 1.0,
            // RFC 6817 §2.5 (ALLOWED_INCREASE SHOULD be 1, MIN_CWND SHOULD be 2).
            allowed_increase: 1,
            min_cwnd: 2,
            // Valenti module noise_filter_len = 4 (Trang 2015 notes §2.3).
            current_filter: 4,
            // RFC 6817 §2.5 (SHOULD be 10); Valenti base_histo_len = 10.
            base_history: 10,
            // RFC 6817 §2.4.2 round_to_minute.
            rollover: Rollover::MinuteBoundary,
            // RFC 6817 §2.4.2 pseudo-code; Trang 2015 notes §2.3 [A: do_ss = 0].
            slow_start: false,
            // RFC 6817 §2.4.2: raw samples (the offset cancels in current − base).
            clamp_to_first_owd: false,
        }
    }

    /// `ledbat-tuned`: [`LedbatConfig::rfc6817`] with Trang 2015's globally optimal pair
    /// (§3.3–3.4, Table 3.1): τ = 5 ms, γ_dcr = 10.
    pub fn trang2015_tuned() -> LedbatConfig {
        LedbatConfig {
            target: Dur::from_millis(5),
            gain_dec: 10.0,
            ..LedbatConfig::rfc6817()
        }
    }
}

pub static RFC: AlgorithmInfo = AlgorithmInfo {
    name: "ledbat-rfc",
    aliases: &[],
    summary: "LEDBAT preset: RFC 6817 defaults as Trang 2015 ran them (100 ms, gain 1, history 10, filter 4, no slow start)",
    source: "RFC 6817 §2.4–2.5; Trang 2015 §2.1, §3.2 (Valenti module)",
    params: RFC_PARAMS,
    build: build_rfc,
};

pub static TUNED: AlgorithmInfo = AlgorithmInfo {
    name: "ledbat-tuned",
    aliases: &[],
    summary:
        "LEDBAT preset: Trang 2015's recommended target 5 ms and decrease gain 10 on the RFC defaults",
    source: "Trang 2015 §3.3–3.4 (globally optimal (τ; γ_dcr) = (5 ms; 10)), Table 3.1",
    params: TUNED_PARAMS,
    build: build_tuned,
};

const GAIN: ParamSpec = ParamSpec {
    name: "gain",
    kind: ParamKind::Float { min: 0.0, max: 1.0 },
    default: ParamValue::Float(1.0),
    unit: "",
    doc: "GAIN used while under target (increase, γ_icr); RFC 6817: GAIN MUST be 1 or less",
    source: "RFC 6817 §2.5; Trang 2015 §2.1 (γ_icr = 1 throughout)",
};
const GAIN_DEC: ParamSpec = ParamSpec {
    name: "gain_dec",
    kind: ParamKind::Float {
        min: 0.0,
        max: 1000.0,
    },
    default: ParamValue::Float(1.0),
    unit: "",
    doc: "GAIN used while over target (decrease, γ_dcr)",
    source: "RFC 6817 §2.4.2 (one GAIN); Trang 2015 §2.1, §3.2 (γ_dcr ∈ {1, 10})",
};

const RFC_TARGET: ParamSpec = ParamSpec {
    source: "RFC 6817 §2.5; Trang 2015 §3.2 (τ = 100 ms RFC default)",
    ..P_TARGET
};
const RFC_FILTER: ParamSpec = ParamSpec {
    default: ParamValue::Int(4),
    source: "Trang 2015's Valenti module noise_filter_len = 4 (Trang 2015 notes §2.3)",
    ..P_CURRENT_FILTER
};
const RFC_HISTORY: ParamSpec = ParamSpec { default: ParamValue::Int(10), source: "RFC 6817 §2.5 (SHOULD be 10); Trang 2015 §2.5 (\"size of sliding window is 10\"); Valenti base_histo_len = 10", ..P_BASE_HISTORY };
const RFC_ROLLOVER: ParamSpec = ParamSpec {
    default: ParamValue::Choice("minute"),
    source: "RFC 6817 §2.4.2 round_to_minute; Valenti module 60·HZ minute buckets",
    ..P_ROLLOVER
};
const RFC_SLOW_START: ParamSpec = ParamSpec {
    default: ParamValue::Bool(false),
    source: "RFC 6817 §2.4.2 pseudo-code (no slow start); Trang 2015 notes §2.3 [A: do_ss = 0]",
    ..P_SLOW_START
};
const RFC_CLAMP: ParamSpec = ParamSpec {
    default: ParamValue::Bool(false),
    source: "RFC 6817 §2.4.2 (raw delay samples; the offset cancels in current − base)",
    ..P_CLAMP_TO_FIRST
};

static RFC_PARAMS: &[ParamSpec] = &[
    RFC_TARGET,
    GAIN,
    GAIN_DEC,
    P_ALLOWED_INCREASE,
    P_MIN_CWND,
    RFC_FILTER,
    RFC_HISTORY,
    RFC_ROLLOVER,
    RFC_SLOW_START,
    RFC_CLAMP,
];

static TUNED_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        default: ParamValue::Dur(Dur::from_millis(5)),
        source: "Trang 2015 §3.3 (global optimum τ = 5 ms), Table 3.1",
        ..P_TARGET
    },
    GAIN,
    ParamSpec {
        default: ParamValue::Float(10.0),
        source: "Trang 2015 §3.3 (global optimum γ_dcr = 10), Table 3.1",
        ..GAIN_DEC
    },
    P_ALLOWED_INCREASE,
    P_MIN_CWND,
    RFC_FILTER,
    RFC_HISTORY,
    RFC_ROLLOVER,
    RFC_SLOW_START,
    RFC_CLAMP,
];

/// `p` was resolved against `RFC_PARAMS`, which has `ledbat`'s names and kinds
/// (`presets_have_every_ledbat_parameter`), so the conversion cannot fail.
fn build_rfc(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = LedbatConfig::try_from(p).expect("ledbat-rfc: spec table and LedbatConfig agree");
    Box::new(Preset {
        name: "ledbat-rfc",
        inner: Ledbat::new(&cfg, &init),
    })
}

/// As `build_rfc`, for `TUNED_PARAMS`.
fn build_tuned(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = LedbatConfig::try_from(p).expect("ledbat-tuned: spec table and LedbatConfig agree");
    Box::new(Preset {
        name: "ledbat-tuned",
        inner: Ledbat::new(&cfg, &init),
    })
}

/// `ledbat` under the preset's name.
#[derive(Clone, Debug)]
pub struct Preset {
    name: &'static str,
    inner: Ledbat,
}

impl CongestionControl for Preset {
    fn name(&self) -> &'static str {
        self.name
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.inner.on_ack(now, ack)
    }
    fn on_congestion(&mut self, now: Time, ev: &CongestionEvent) {
        self.inner.on_congestion(now, ev)
    }
    fn on_rto(&mut self, now: Time, ev: &RtoEvent) {
        self.inner.on_rto(now, ev)
    }
    fn on_recovery_exit(&mut self, now: Time) {
        self.inner.on_recovery_exit(now)
    }
    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.inner.on_sent(now, sent)
    }
    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn pacing_rate(&self) -> Option<Rate> {
        self.inner.pacing_rate()
    }
    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::ledbat;
    use crate::params::RawParam;
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

    /// The preset as the registry builds it, with its defaults.
    fn make(info: &AlgorithmInfo) -> Box<dyn CongestionControl> {
        info.instantiate(&ParamSet::defaults(info.params), init())
    }

    fn ack(owd_ms: i64) -> AckSample {
        AckSample {
            bytes_acked: MSS,
            owd: Some(owd_ms * MS),
            bytes_in_flight: 10 * MSS,
            ..AckSample::empty(MSS)
        }
    }

    #[test]
    fn presets_have_every_ledbat_parameter() {
        for info in [&RFC, &TUNED] {
            let names: Vec<_> = info
                .params
                .iter()
                .map(|p| (p.name, std::mem::discriminant(&p.kind)))
                .collect();
            let base: Vec<_> = ledbat::INFO
                .params
                .iter()
                .map(|p| (p.name, std::mem::discriminant(&p.kind)))
                .collect();
            assert_eq!(names, base, "{}", info.name);
        }
        // Overrides still work.
        let v = RawParam::Text("25ms".into());
        let p = TUNED.resolve([("target", &v)]).unwrap();
        assert_eq!(
            LedbatConfig::try_from(&p).unwrap(),
            LedbatConfig {
                target: Dur::from_millis(25),
                ..LedbatConfig::trang2015_tuned()
            }
        );
    }

    #[test]
    fn config_defaults_match_spec_table() {
        let rfc = LedbatConfig::try_from(&ParamSet::defaults(RFC_PARAMS)).unwrap();
        assert_eq!(rfc, LedbatConfig::rfc6817());
        let tuned = LedbatConfig::try_from(&ParamSet::defaults(TUNED_PARAMS)).unwrap();
        assert_eq!(tuned, LedbatConfig::trang2015_tuned());
        // The values themselves (RFC 6817 §2.5; Trang 2015 Table 3.1).
        assert_eq!(
            (rfc.target, rfc.gain, rfc.gain_dec),
            (Dur::from_millis(100), 1.0, 1.0)
        );
        assert_eq!(
            (rfc.base_history, rfc.current_filter, rfc.rollover),
            (10, 4, Rollover::MinuteBoundary)
        );
        assert!(!rfc.slow_start && !rfc.clamp_to_first_owd);
        assert_eq!(
            (tuned.target, tuned.gain, tuned.gain_dec),
            (Dur::from_millis(5), 1.0, 10.0)
        );
    }

    #[test]
    fn rfc_preset_runs_ledbat_without_slow_start() {
        let mut l = make(&RFC);
        assert_eq!(l.name(), "ledbat-rfc");
        // Base 10 ms; q = 0: off_target = 1. No slow start: cnt = 1·100 ms·1 segment per
        // ACK; the window grows by one when cnt ≥ cwnd·target = 10·100 ms, i.e. after 10 ACKs.
        for _ in 0..9 {
            l.on_ack(Time(0), &ack(10));
        }
        assert_eq!(l.cwnd(), 10 * MSS);
        l.on_ack(Time(0), &ack(10));
        assert_eq!(l.cwnd(), 11 * MSS);
    }

    #[test]
    fn tuned_preset_decreases_ten_times_faster() {
        let mut l = make(&TUNED);
        assert_eq!(l.name(), "ledbat-tuned");
        // Filter of 4: feed 4 samples at base 10 ms (cnt = 4·5 ms = 20 ms·seg), then
        // 4 at 20 ms: q stays 0 while a 10 ms sample is in the filter (3 more ACKs:
        // cnt = 35 ms·seg < 10·5), then q = 10 ms: off_target = 5 − 10 = −5 ms, gain_dec 10:
        // cnt += −50 → −15 ms·seg; |cnt| < 50 → no change yet; the next ACK: −65 →
        // |−65| ≥ 50: inc = trunc(−65/5/10) = −1 → cwnd 9, cnt = −65 + 50 = −15.
        for _ in 0..4 {
            l.on_ack(Time(0), &ack(10));
        }
        for _ in 0..3 {
            l.on_ack(Time(0), &ack(20));
        }
        assert_eq!(l.cwnd(), 10 * MSS);
        l.on_ack(Time(0), &ack(20));
        assert_eq!(l.cwnd(), 10 * MSS);
        l.on_ack(Time(0), &ack(20));
        assert_eq!(l.cwnd(), 9 * MSS);
        // With gain_dec = 1 the same sequence does not decrease yet (−5 per ACK).
        let mut g = Ledbat::new(
            &LedbatConfig {
                gain_dec: 1.0,
                ..LedbatConfig::trang2015_tuned()
            },
            &init(),
        );
        for d in [10, 10, 10, 10, 20, 20, 20, 20, 20] {
            g.on_ack(Time(0), &ack(d));
        }
        assert_eq!(g.cwnd(), 10 * MSS);
    }
}
