//! Apple LEDBAT as Ong 2020 implemented and evaluated it (thesis §2.2.7 "Apple LEDBAT",
//! §3.6.3, listing App. A.4.2 `tcp_apledbat_cong_avoid`; Ong 2020 notes §2.10).
//!
//! Apple's XNU LEDBAT replaces RFC 6817's proportional controller with AIMD: additive
//! increase while the queuing delay is within the target, and a cut of cwnd/8 when it
//! is over (Ong 2020 §2.2.7). The thesis built its Linux version on the RFC 6817 module
//! (`ledbat`), so it "uses OWD rather than RTT to estimate delay" (§3.6.3) and keeps that
//! module's delay estimator, slow start, flight-size cap, MIN_CWND floor and ssthresh
//! bookkeeping; only the congestion-avoidance rule differs (App. A.4.2):
//!
//! ```text
//! off_target = target − queuing_delay
//! if off_target >= 0: tcp_reno_cong_avoid(acked)     # +1 segment per cwnd of ACKs
//! else:               cwnd −= cwnd >> 3              # on every ACK while over target
//! cwnd = max(MIN_CWND, min(cwnd, packets_out + acked + ALLOWED_INCREASE))
//! if cwnd <= ssthresh: ssthresh = cwnd − 1
//! ```
//!
//! `delay_signal = "rtt"` feeds RTT samples instead of OWD, as XNU itself does (base RTT
//! and current RTT); the default is the thesis's OWD.
//!
//! Differences from the source (the reasoning is in docs/deviations/apple-ledbat.md):
//! - one-way delay (the thesis port), not RTT (XNU):
//!   docs/deviations/apple-ledbat.md#apple-ledbat-owd
//! - ALLOWED_INCREASE 1 (the listing), not 8 (the text):
//!   docs/deviations/apple-ledbat.md#apple-ledbat-allowed-increase
//! - increase by `tcp_reno_cong_avoid` (the listing), not `cwnd++`:
//!   docs/deviations/apple-ledbat.md#apple-ledbat-reno-increase
//! - the 1/8 cut runs on every ACK while over target:
//!   docs/deviations/apple-ledbat.md#apple-ledbat-cut-per-ack
//! - XNU features the thesis port lacks are not modelled:
//!   docs/deviations/apple-ledbat.md#apple-ledbat-xnu-missing

use crate::algorithms::ledbat::{
    DelaySignal, SegmentWindow, WindowRules, P_ALLOWED_INCREASE, P_BASE_HISTORY, P_CLAMP_TO_FIRST,
    P_CURRENT_FILTER, P_MIN_CWND, P_ROLLOVER, P_SLOW_START, P_TARGET, ROLLOVER_WORDS,
};
use crate::api::*;
use crate::estimators::base_delay::Rollover;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "apple-ledbat",
    aliases: &["apledbat"],
    summary: "Apple LEDBAT: AIMD against a delay target (+1 per RTT under, −cwnd/8 per ACK over), Linux port of Ong 2020",
    source: "Ong 2020 §2.2.7, §3.6.3, App. A.4",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    P_TARGET,
    ParamSpec {
        name: "decrease_shift",
        kind: ParamKind::Int { min: 0, max: 16 },
        default: ParamValue::Int(3),
        unit: "",
        doc: "Over target, cwnd -= cwnd >> decrease_shift (3 = the 1/8 cut)",
        source: "Ong 2020 §2.2.7 (\"applies a 1/8 reduction\"), App. A.4.2 (decr = snd_cwnd >> 3)",
    },
    P_ALLOWED_INCREASE,
    P_MIN_CWND,
    P_CURRENT_FILTER,
    P_BASE_HISTORY,
    P_ROLLOVER,
    P_SLOW_START,
    P_CLAMP_TO_FIRST,
    ParamSpec {
        name: "delay_signal",
        kind: ParamKind::Choice(&["owd", "rtt"]),
        default: ParamValue::Choice("owd"),
        unit: "",
        doc: "Delay samples: \"owd\" (the thesis port) or \"rtt\" (Apple XNU, base RTT vs current RTT)",
        source: "Ong 2020 §3.6.3 (\"it uses OWD rather than RTT\"); XNU tcp_ledbat.c (Ong 2020 notes §2.10)",
    },
];

/// Where Apple LEDBAT's delay samples come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelaySource {
    /// One-way delay, as the thesis port (Ong 2020 §3.6.3).
    Owd,
    /// Round-trip time, as Apple XNU (base RTT vs current RTT; Ong 2020 notes §2.10).
    Rtt,
}

/// Apple LEDBAT's parameters. Defaults: the thesis port (Ong 2020 §2.2.7, §3.6.3,
/// App. A.4), which shares the RFC 6817 module's values (see [`LedbatConfig`]).
///
/// [`LedbatConfig`]: crate::algorithms::ledbat::LedbatConfig
#[derive(Clone, Debug, PartialEq)]
pub struct AppleLedbatConfig {
    /// Delay target: 100 ms (RFC 6817 §2.5; Ong 2020 §2.2.7; module param target = 100).
    pub target: Dur,
    /// Over target, cwnd −= cwnd >> decrease_shift: 3, the 1/8 cut (Ong 2020 §2.2.7,
    /// App. A.4.2 `decr = snd_cwnd >> 3`).
    pub decrease_shift: u32,
    /// ALLOWED_INCREASE, segments: 1 (RFC 6817 §2.5; module #define ALLOWED_INCREASE 1).
    pub allowed_increase: u64,
    /// MIN_CWND, segments: 2 (RFC 6817 §2.5; module #define MIN_CWND 2U).
    pub min_cwnd: u64,
    /// CURRENT_FILTER, samples: 2 (module param current_filter = 2; Ong 2020 notes §2.9).
    pub current_filter: usize,
    /// BASE_HISTORY, one-minute minima: 2 (module param base_history = 2).
    pub base_history: usize,
    /// Base-delay buckets 60 s after the previous one (module); RFC 6817 §2.4.2 minutes.
    pub rollover: Rollover,
    /// Reno slow start while cwnd ≤ ssthresh: on (module `tcp_ledbat_cong_avoid`).
    pub slow_start: bool,
    /// OWD relative to the first sample, lower samples 0: on (module; Ong 2020 notes §2.0).
    pub clamp_to_first_owd: bool,
    /// Delay samples: OWD, as the thesis port (Ong 2020 §3.6.3).
    pub delay_signal: DelaySource,
}

impl Default for AppleLedbatConfig {
    fn default() -> Self {
        AppleLedbatConfig {
            target: Dur::from_millis(100),
            decrease_shift: 3,
            allowed_increase: 1,
            min_cwnd: 2,
            current_filter: 2,
            base_history: 2,
            rollover: Rollover::Elapsed,
            slow_start: true,
            clamp_to_first_owd: true,
            delay_signal: DelaySource::Owd,
        }
    }
}

/// The only place Apple LEDBAT's parameter names are looked up.
impl TryFrom<&ParamSet> for AppleLedbatConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("apple-ledbat");
        Ok(AppleLedbatConfig {
            target: r.dur("target")?,
            decrease_shift: r.u64("decrease_shift")? as u32,
            allowed_increase: r.u64("allowed_increase")?,
            min_cwnd: r.u64("min_cwnd")?,
            current_filter: r.usize("current_filter")?,
            base_history: r.usize("base_history")?,
            rollover: r.choice_of("rollover", ROLLOVER_WORDS)?,
            slow_start: r.bool("slow_start")?,
            clamp_to_first_owd: r.bool("clamp_to_first_owd")?,
            delay_signal: r.choice_of(
                "delay_signal",
                &[("owd", DelaySource::Owd), ("rtt", DelaySource::Rtt)],
            )?,
        })
    }
}

/// The registry's entry point. `p` was resolved against `PARAMS`, so the conversion
/// cannot fail unless the spec table and the config disagree, which
/// `config_defaults_match_spec_table` rules out.
fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = AppleLedbatConfig::try_from(p)
        .expect("apple-ledbat: spec table and AppleLedbatConfig agree");
    Box::new(AppleLedbat::new(&cfg, &init))
}

#[derive(Clone, Debug)]
pub struct AppleLedbat {
    delay: DelaySignal,
    win: SegmentWindow,
    target_ns: i64,
    decrease_shift: u32,
    use_rtt: bool,
    queuing_delay: i64,
}

impl AppleLedbat {
    pub fn new(cfg: &AppleLedbatConfig, init: &CcInit) -> AppleLedbat {
        let rules = WindowRules {
            slow_start: cfg.slow_start,
            min_cwnd: cfg.min_cwnd,
            allowed_increase: cfg.allowed_increase,
        };
        AppleLedbat {
            delay: DelaySignal::new(
                cfg.base_history,
                cfg.current_filter,
                cfg.rollover,
                cfg.clamp_to_first_owd,
            ),
            win: SegmentWindow::with_rules(rules, init),
            target_ns: cfg.target.nanos() as i64,
            decrease_shift: cfg.decrease_shift,
            use_rtt: cfg.delay_signal == DelaySource::Rtt,
            queuing_delay: 0,
        }
    }

    /// Queuing delay (ns) the last update used.
    pub fn queuing_delay(&self) -> i64 {
        self.queuing_delay
    }
}

impl CongestionControl for AppleLedbat {
    fn name(&self) -> &'static str {
        "apple-ledbat"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        // Linux 4.4 does not call cong_avoid in Recovery/CWR; the module's whole per-ACK
        // work lives there (App. A.4.1: no per-ACK hook of its own).
        if ack.in_recovery {
            return;
        }
        // App. A.4.2: update base/current delay lists (RFC 6817 §2.4.2).
        if self.use_rtt {
            if let Some(rtt) = ack.rtt {
                self.delay
                    .on_raw(now, rtt.nanos().min(i64::MAX as u64) as i64);
            }
        } else if let Some(owd) = ack.owd {
            self.delay.on_owd(now, owd);
        }
        // queuing_delay = min(current_delays) − min(base_delays).
        let q = self.delay.queuing_delay();
        self.queuing_delay = q;
        // "don't change cwnd if not cwnd-limited"; "In safe area, increase
        // exponentially": slow start while cwnd <= ssthresh.
        let Some(acked) = self.win.segments_for_delay_rule(ack) else {
            return;
        };

        // App. A.4.2: off_target = target − queuing_delay.
        let off_target = self.target_ns - q;
        if off_target >= 0 {
            // "under delay target, apply additive increase": tcp_reno_cong_avoid. After
            // the slow-start step above cwnd >= ssthresh, so this is tcp_cong_avoid_ai(
            // cwnd, acked): one segment per cwnd of acknowledged segments.
            let w = self.win.w.cwnd;
            self.win.w.cong_avoid_ai(w, acked, 1);
        } else {
            // "over delay target, apply 1/8th cwnd reduction": decr = snd_cwnd >> 3.
            let decr = self.win.w.cwnd >> self.decrease_shift.min(63);
            self.win.w.cwnd -= decr;
        }
        // max_allowed_cwnd = packets_out + acked + ALLOWED_INCREASE; floor MIN_CWND;
        // ssthresh = cwnd − 1 if cwnd <= ssthresh.
        let c = self.win.w.cwnd as i64;
        self.win.finish(c, ack, acked);
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        // tcp_reno_ssthresh (the module's .ssthresh), cwnd = ssthresh after recovery.
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
            "over_target",
            if self.queuing_delay > self.target_ns {
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
    const MS: i64 = 1_000_000;

    fn make_cwnd(cfg: AppleLedbatConfig, iw: u64) -> AppleLedbat {
        AppleLedbat::new(
            &cfg,
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: iw * MSS,
                rng: Rng::new(1),
            },
        )
    }

    fn no_ss() -> AppleLedbatConfig {
        AppleLedbatConfig {
            slow_start: false,
            current_filter: 1,
            ..Default::default()
        }
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            AppleLedbatConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            AppleLedbatConfig::default()
        );
        let v = crate::params::RawParam::Text("rtt".into());
        let p = INFO.resolve([("delay_signal", &v)]).unwrap();
        assert_eq!(
            AppleLedbatConfig::try_from(&p).unwrap().delay_signal,
            DelaySource::Rtt
        );
    }

    fn ack(segs: u64, owd_ms: i64) -> AckSample {
        AckSample {
            bytes_acked: segs * MSS,
            owd: Some(owd_ms * MS),
            bytes_in_flight: 200 * MSS,
            ..AckSample::empty(MSS)
        }
    }

    #[test]
    fn additive_increase_at_or_under_target_and_eighth_cut_per_ack_over_it() {
        let mut a = make_cwnd(no_ss(), 10);
        let t = Time(0);
        // q = 0 (owd 5 ms is the origin): Reno AI, +1 segment after 10 ACKs at cwnd 10.
        for _ in 0..9 {
            a.on_ack(t, &ack(1, 5));
        }
        assert_eq!(a.cwnd(), 10 * MSS);
        a.on_ack(t, &ack(1, 5));
        assert_eq!(a.cwnd(), 11 * MSS);
        // First ACK: cwnd 10 <= ssthresh (inf) → ssthresh 9.
        assert_eq!(a.ssthresh(), 9 * MSS);
        // Exactly at target (q = 100 ms): off_target = 0 >= 0 → still increase; 11 ACKs → 12.
        for _ in 0..11 {
            a.on_ack(t, &ack(1, 105));
        }
        assert_eq!(a.cwnd(), 12 * MSS);
        // Over target by 1 µs: every ACK cuts cwnd >> 3:
        // 12−1=11, 11−1=10, 10−1=9, 9−1=8, 8−1=7, then 7>>3 = 0 so 7 stays.
        let mut seen = Vec::new();
        for _ in 0..6 {
            a.on_ack(
                t,
                &AckSample {
                    owd: Some(105 * MS + 1_000),
                    ..ack(1, 0)
                },
            );
            seen.push(a.cwnd() / MSS);
        }
        assert_eq!(seen, vec![11, 10, 9, 8, 7, 7]);
        // ssthresh follows: 9 → 8 (cwnd 9), 7 (cwnd 8), 6 (cwnd 7).
        assert_eq!(a.ssthresh(), 6 * MSS);
        // Back under target: AI resumes at cwnd 7 (the AI counter was empty): 7 ACKs → 8.
        for _ in 0..6 {
            a.on_ack(t, &ack(1, 5));
        }
        assert_eq!(a.cwnd(), 7 * MSS);
        a.on_ack(t, &ack(1, 5));
        assert_eq!(a.cwnd(), 8 * MSS);
    }

    #[test]
    fn large_windows_lose_an_eighth_per_ack() {
        let mut a = make_cwnd(no_ss(), 80);
        a.on_ack(Time(0), &ack(1, 5)); // origin, AI counter 1/80
        a.on_ack(Time(0), &ack(1, 205)); // q = 200 ms: 80 − 10 = 70
        assert_eq!(a.cwnd(), 70 * MSS);
        a.on_ack(Time(0), &ack(1, 205)); // 70 − 8 = 62
        assert_eq!(a.cwnd(), 62 * MSS);
        // decrease_shift = 1: halving per ACK, 62 → 31.
        let p = AppleLedbatConfig {
            decrease_shift: 1,
            ..no_ss()
        };
        let mut h = make_cwnd(p, 62);
        h.on_ack(Time(0), &ack(1, 5));
        h.on_ack(Time(0), &ack(1, 205));
        assert_eq!(h.cwnd(), 31 * MSS);
    }

    #[test]
    fn flight_cap_allowed_increase_and_min_cwnd_floor() {
        let mut a = make_cwnd(no_ss(), 10);
        // 3 segments in flight after the ACK: cap = 3 + 1 + 1 = 5; ssthresh = 4.
        a.on_ack(
            Time(0),
            &AckSample {
                bytes_in_flight: 3 * MSS,
                ..ack(1, 5)
            },
        );
        assert_eq!((a.cwnd(), a.ssthresh()), (5 * MSS, 4 * MSS));
        // A window-update ACK (nothing acked, nothing in flight): cap = 0 + 0 + 1 = 1, and
        // the MIN_CWND floor lifts it to 2.
        a.on_ack(
            Time(0),
            &AckSample {
                bytes_acked: 0,
                bytes_in_flight: 0,
                ..ack(0, 5)
            },
        );
        assert_eq!((a.cwnd(), a.ssthresh()), (2 * MSS, MSS));
        // Apple's ALLOWED = 8 (Ong 2020 §2.2.7 text): cap = 3 + 1 + 8 = 12.
        let p = AppleLedbatConfig {
            allowed_increase: 8,
            ..no_ss()
        };
        let mut b = make_cwnd(p, 20);
        b.on_ack(
            Time(0),
            &AckSample {
                bytes_in_flight: 3 * MSS,
                ..ack(1, 5)
            },
        );
        assert_eq!(b.cwnd(), 12 * MSS);
    }

    #[test]
    fn slow_start_then_loss_then_avoidance_and_timeout() {
        let mut a = make_cwnd(AppleLedbatConfig::default(), 10);
        let t = Time(0);
        // Slow start ignores the delay: +1 per segment even 300 ms over the origin.
        a.on_ack(t, &ack(1, 5));
        a.on_ack(t, &ack(1, 305));
        assert_eq!((a.cwnd(), a.ssthresh()), (12 * MSS, u64::MAX));
        // Loss: ssthresh = cwnd = 6.
        let ev = CongestionEvent {
            kind: CongestionKind::Loss,
            bytes_in_flight: 12 * MSS,
            bytes_lost: MSS,
            mss: MSS,
        };
        a.on_congestion(t, &ev);
        assert_eq!((a.cwnd(), a.ssthresh()), (6 * MSS, 6 * MSS));
        // cwnd 6 <= ssthresh 6, no room: leftover 1 → over target (filter [300, 300] ms):
        // 6 − 0 = 6 (6 >> 3 = 0); 6 <= 6 → ssthresh 5.
        a.on_ack(t, &ack(1, 305));
        assert_eq!((a.cwnd(), a.ssthresh()), (6 * MSS, 5 * MSS));
        // ECN behaves the same: ssthresh = max(6/2, 2) = 3.
        a.on_congestion(
            t,
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_lost: 0,
                ..ev
            },
        );
        assert_eq!((a.cwnd(), a.ssthresh()), (3 * MSS, 3 * MSS));
        a.on_rto(
            t,
            &RtoEvent {
                bytes_in_flight: 3 * MSS,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((a.cwnd(), a.ssthresh()), (MSS, 2 * MSS));
    }

    #[test]
    fn rtt_signal_uses_base_rtt() {
        let p = AppleLedbatConfig {
            delay_signal: DelaySource::Rtt,
            ..no_ss()
        };
        let mut a = make_cwnd(p, 16);
        let rtt = |ms: u64| AckSample {
            rtt: Some(Dur::from_millis(ms)),
            owd: Some(0),
            ..ack(1, 0)
        };
        a.on_ack(Time(0), &rtt(50)); // base 50 ms, q = 0 → AI (counter 1/16)
        assert_eq!((a.cwnd(), a.queuing_delay()), (16 * MSS, 0));
        a.on_ack(Time(0), &rtt(150)); // q = 100 ms = target → AI (2/16)
        assert_eq!(a.cwnd(), 16 * MSS);
        a.on_ack(Time(0), &rtt(151)); // q = 101 ms > target → 16 − 2 = 14
        assert_eq!((a.cwnd(), a.queuing_delay()), (14 * MSS, 101 * MS));
        // An ACK without an RTT sample (Karn) keeps the old estimate: 14 − 1 = 13.
        a.on_ack(
            Time(0),
            &AckSample {
                rtt: None,
                ..rtt(0)
            },
        );
        assert_eq!(a.cwnd(), 13 * MSS);
    }
}
