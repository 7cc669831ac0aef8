//! TCP Nice (Venkataramani, Kokku, Dahlin 2002) as implemented and evaluated in Ong 2020
//! (Ong 2020 §2.2.2, §3.6.1, App. A.2): Linux 4.4 Vegas plus Nice's early congestion
//! detection. Every RTT sample above `((100 - threshold)·baseRTT + threshold·maxRTT)/100`
//! is a congestion event; when more than `cwnd / (100/fraction)` events occur in one
//! round, the window is halved. Below the two-packet floor the window becomes fractional
//! (`fractional_cwnd` = 2·denominator): we report one segment and pace the fraction.
//!
//! Differences from the source (the reasoning is in docs/deviations/nice.md):
//! - congestion threshold baseRTT + t·(maxRTT − baseRTT), maxRTT starting at 2·baseRTT:
//!   docs/deviations/nice.md#nice-threshold
//! - maxRTT initialised as the author's repository fixes it, not as the listing's typo:
//!   docs/deviations/nice.md#nice-maxrtt-init
//! - fractional windows are reported as one segment plus a pacing rate:
//!   docs/deviations/nice.md#nice-fractional-window
//! - Reno fallback while fractional (`tcp_reno_fractional_ca`):
//!   docs/deviations/nice.md#nice-reno-fallback
//! - the numCong counter keeps the listing's width: docs/deviations/nice.md#nice-numcong-width

use super::vegas::{DiffDenominator, PktWindow, VegasCore, VegasHooks, RTT_UNSET_US};
use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Rate, Time, NANOS_PER_SEC};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "nice",
    aliases: &[],
    summary:
        "TCP Nice: Vegas + halving when too many RTTs exceed a delay threshold, fractional windows",
    source: "Ong 2020 §2.2.2, §3.6.1, App. A.2 (tcp_nice.c on Linux 4.4 tcp_vegas)",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Int { min: 0, max: 10_000 },
        default: ParamValue::Int(1),
        unit: "packets",
        doc: "Vegas lower bound of extra packets in the network",
        source: "Ong 2020 App. A.2 / lbetcp tcp_nice.c module_param alpha = 1",
    },
    ParamSpec {
        name: "beta",
        kind: ParamKind::Int { min: 0, max: 10_000 },
        default: ParamValue::Int(3),
        unit: "packets",
        doc: "Vegas upper bound of extra packets in the network",
        source: "Ong 2020 App. A.2 / lbetcp tcp_nice.c module_param beta = 3",
    },
    ParamSpec {
        name: "gamma",
        kind: ParamKind::Int { min: 0, max: 10_000 },
        default: ParamValue::Int(1),
        unit: "packets",
        doc: "slow-start exit limit (Vegas)",
        source: "Ong 2020 App. A.2 / lbetcp tcp_nice.c module_param gamma = 1",
    },
    ParamSpec {
        name: "fraction",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(50),
        unit: "%",
        doc: "share of cwnd that must see congestion events in one RTT before halving (fraction_divisor = 100/fraction)",
        source: "Ong 2020 §2.2.2 (\"set to 50% by default\"); tcp_nice.c fraction = 50",
    },
    ParamSpec {
        name: "threshold",
        kind: ParamKind::Int { min: 0, max: 100 },
        default: ParamValue::Int(20),
        unit: "%",
        doc: "position between baseRTT and maxRTT above which an RTT sample is a congestion event",
        source: "Ong 2020 §2.2.2 (\"default value of 0.2\"), App. A.2 tcp_nice_pkts_acked",
    },
    ParamSpec {
        name: "max_fwnd",
        kind: ParamKind::Int { min: 2, max: 1_000_000 },
        default: ParamValue::Int(96),
        unit: "",
        doc: "largest fractional_cwnd (2 x denominator); the smallest window is 4/max_fwnd packets per RTT",
        source: "Ong 2020 App. A.2 / tcp_nice.c max_fwnd = 96",
    },
    ParamSpec {
        name: "numcong_u8_wrap",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "count congestion events in a u8 that wraps at 256, as the evaluated module did (tcp_nice.c `u8 numCong`)",
        source: "lbetcp tcp_nice.c struct nice (as evaluated; Ong 2020 §3.6.1)",
    },
];

/// Nice's parameters. Defaults: Ong 2020 App. A.2 and the evaluated module (lbetcp
/// `tcp_nice.c`).
#[derive(Clone, Debug, PartialEq)]
pub struct NiceConfig {
    /// `alpha`, packets: Vegas lower bound of extra packets in the network. Ong 2020
    /// App. A.2 / tcp_nice.c module_param alpha = 1.
    pub alpha: u64,
    /// `beta`, packets: Vegas upper bound. tcp_nice.c module_param beta = 3.
    pub beta: u64,
    /// `gamma`, packets: Vegas slow-start exit limit. tcp_nice.c module_param gamma = 1.
    pub gamma: u64,
    /// `fraction`, % (1..=100): share of cwnd that must see congestion events in one RTT
    /// before halving (fraction_divisor = 100/fraction). Ong 2020 §2.2.2 ("set to 50 %
    /// by default"); tcp_nice.c fraction = 50.
    pub fraction: u64,
    /// `threshold`, % (0..=100): position between baseRTT and maxRTT above which an RTT
    /// sample is a congestion event. Ong 2020 §2.2.2 ("default value of 0.2"), App. A.2.
    pub threshold: u64,
    /// `max_fwnd`: largest fractional_cwnd (2 × denominator); the smallest window is
    /// 4/max_fwnd packets per RTT. Ong 2020 App. A.2 / tcp_nice.c max_fwnd = 96.
    pub max_fwnd: u64,
    /// `numcong_u8_wrap`: count congestion events in a u8 that wraps at 256, as the
    /// evaluated module did (tcp_nice.c `u8 numCong`; Ong 2020 §3.6.1). Off by default.
    pub numcong_u8_wrap: bool,
}

impl Default for NiceConfig {
    fn default() -> NiceConfig {
        NiceConfig {
            alpha: 1,
            beta: 3,
            gamma: 1,
            fraction: 50,
            threshold: 20,
            max_fwnd: 96,
            numcong_u8_wrap: false,
        }
    }
}

impl TryFrom<&ParamSet> for NiceConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<NiceConfig, ParamError> {
        let r = p.reader("nice");
        Ok(NiceConfig {
            alpha: r.u64("alpha")?,
            beta: r.u64("beta")?,
            gamma: r.u64("gamma")?,
            fraction: r.u64("fraction")?,
            threshold: r.u64("threshold")?,
            max_fwnd: r.u64("max_fwnd")?,
            numcong_u8_wrap: r.bool("numcong_u8_wrap")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = NiceConfig::try_from(p).expect("nice: parameters resolved against PARAMS");
    Box::new(Nice::new(&cfg, &init))
}

/// `fractional_cwnd` value meaning "no fraction" (tcp_nice_init).
const NO_FRACTION: u64 = 2;

#[derive(Clone, Debug)]
pub struct Nice {
    cfg: NiceConfig,
    fraction_divisor: u64,
    mss: u64,
    w: PktWindow,
    /// Vegas's per-RTT measurement (baseRTT, minRTT, cntRTT, round boundary).
    core: VegasCore,
    /// Per-round maximum RTT, µs (`vrtt`).
    max_rtt: u64,
    last_rtt: u64,
    num_cong: u64,
    /// 2 = integer window (`w.cwnd` packets, at least 2); above 2 the window is
    /// 4/fractional_cwnd packets per RTT (see docs/deviations/nice.md#nice-fractional-window).
    fractional_cwnd: u64,
    last_diff: Option<u64>,
}

impl Nice {
    pub fn new(cfg: &NiceConfig, init: &CcInit) -> Nice {
        Nice {
            cfg: cfg.clone(),
            // tcp_nice_init: fraction_divisor = 100 / fraction (integer); a hand-built
            // config with fraction 0 (outside the table's 1..=100) counts as 1.
            fraction_divisor: 100 / cfg.fraction.max(1),
            mss: init.mss,
            w: PktWindow::new(init.initial_cwnd, init.mss),
            // tcp_nice_init: Vegas's init, and no fraction.
            core: VegasCore::new(),
            max_rtt: 0,
            last_rtt: RTT_UNSET_US,
            num_cong: 0,
            fractional_cwnd: NO_FRACTION,
            last_diff: None,
        }
    }

    fn fractional(&self) -> bool {
        self.fractional_cwnd > NO_FRACTION
    }

    /// Effective window in packets per RTT.
    pub fn window_pkts(&self) -> f64 {
        if self.fractional() {
            4.0 / self.fractional_cwnd as f64
        } else {
            self.w.cwnd as f64
        }
    }

    /// Converts window growth made by the Reno helpers while the window is fractional
    /// into steps of the denominator (tcp_reno_fractional_ca: Δ packets -> fractional_cwnd
    /// -= 2Δ), keeping the nominal two-packet window while still fractional.
    fn grow(&mut self, f: impl FnOnce(&mut PktWindow)) {
        let old = self.w.cwnd;
        f(&mut self.w);
        if !self.fractional() {
            return;
        }
        let delta = self.w.cwnd.saturating_sub(old);
        let steps_to_integer = (self.fractional_cwnd - NO_FRACTION) / 2;
        if delta < steps_to_integer {
            self.fractional_cwnd -= 2 * delta;
            self.w.cwnd = 2;
        } else {
            // Reached 4/2 = 2 packets; what is left over grows the integer window.
            self.fractional_cwnd = NO_FRACTION;
            self.w.cwnd = 2 + (delta - steps_to_integer);
        }
    }
}

impl VegasHooks for Nice {
    fn core(&mut self) -> &mut VegasCore {
        &mut self.core
    }

    fn window(&mut self) -> &mut PktWindow {
        &mut self.w
    }

    /// The rest of tcp_nice_pkts_acked (Ong 2020 App. A.2.1) after Vegas's bookkeeping,
    /// with maxRTT initialised to 2·baseRTT at the round's first sample (lbetcp fix of
    /// the listing's `baseRTT = baseRTT * 2`).
    fn on_rtt_sample(&mut self, vrtt: u64) {
        let base = self.core.base_rtt;
        if self.core.cnt_rtt == 1 {
            self.max_rtt = base * 2;
        }
        self.max_rtt = self.max_rtt.max(vrtt);
        self.last_rtt = vrtt;
        // Congestion event: vrtt > ((100 - t)·baseRTT + t·maxRTT) / 100, i.e.
        // baseRTT + t·(maxRTT - baseRTT) (Ong 2020 App. A.2.1; §3.6.1 uses baseRTT).
        let t = self.cfg.threshold;
        if vrtt > ((100 - t) * base + t * self.max_rtt) / 100 {
            self.num_cong += 1;
            if self.cfg.numcong_u8_wrap {
                self.num_cong &= 0xff;
            }
        }
    }

    /// The Reno fallback (cntRTT <= 2 or Nice disabled): tcp_reno_fractional_ca when
    /// cwnd <= 2, else tcp_reno_cong_avoid; both are `grow(reno)` here.
    fn reno(&mut self, acked: u64, cwnd_limited: bool) {
        self.grow(|w| w.reno_cong_avoid(acked, cwnd_limited));
    }

    fn slow_start(&mut self, acked: u64) {
        self.grow(|w| {
            w.slow_start(acked);
        });
    }

    /// The Vegas + Nice once-per-RTT decision (Ong 2020 App. A.2.2).
    fn per_rtt(&mut self, acked: u64, cwnd_limited: bool) {
        let cwnd = self.w.cwnd;
        // target_cwnd = cwnd·baseRTT/rtt; diff = cwnd·(rtt - baseRTT)/baseRTT.
        let (target_cwnd, diff) = self.core.target_and_diff(cwnd, DiffDenominator::BaseRtt);
        self.last_diff = Some(diff);
        let frac = self.fractional();
        let max_fwnd = self.cfg.max_fwnd;
        if diff > self.cfg.gamma && self.w.in_slow_start() {
            self.w.cwnd = cwnd.min(target_cwnd + 1);
            // tcp_nice_ssthresh: min(ssthresh, cwnd - 1), as tcp_vegas_ssthresh.
            self.w.ssthresh = self.w.vegas_ssthresh();
            self.num_cong = 0;
        } else if self.w.in_slow_start() {
            if cwnd_limited {
                self.slow_start(acked);
            }
        } else if self.num_cong > cwnd / self.fraction_divisor {
            // Nice multiplicative decrease: halve, or divide a fractional window by 4.
            if cwnd > 2 && !frac {
                self.w.cwnd = cwnd / 2;
            } else if self.fractional_cwnd <= max_fwnd {
                self.fractional_cwnd = (self.fractional_cwnd * 4).min(max_fwnd);
            }
            self.num_cong = 0;
        } else if diff > self.cfg.beta {
            if cwnd > 2 && !frac {
                self.w.cwnd -= 1;
            } else if self.fractional_cwnd <= max_fwnd {
                self.fractional_cwnd = (self.fractional_cwnd + 2).min(max_fwnd);
            }
            self.w.ssthresh = self.w.vegas_ssthresh();
        } else if diff < self.cfg.alpha && cwnd_limited {
            if cwnd >= 2 && !frac {
                self.w.cwnd += 1;
            } else if self.fractional_cwnd <= max_fwnd {
                self.fractional_cwnd = self.fractional_cwnd.saturating_sub(2).max(NO_FRACTION);
            }
        }
        if self.fractional() {
            // The nominal packet window while fractional (the module's timer sets 2).
            self.w.cwnd = 2;
        } else if self.w.cwnd < 2 {
            self.w.cwnd = 2;
        }
        self.w.ssthresh = self.w.current_ssthresh();
    }

    fn end_round(&mut self) {
        self.max_rtt = 0;
        self.num_cong = 0;
    }
}

impl CongestionControl for Nice {
    fn name(&self) -> &'static str {
        "nice"
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        self.mss = ack.mss;
        self.vegas_on_ack(ack);
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        self.mss = ev.mss;
        self.vegas_on_congestion();
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.mss = ev.mss;
        self.vegas_on_rto();
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.core.enable();
    }

    fn on_sent(&mut self, _now: Time, sent: &SentInfo) {
        // CA_EVENT_TX_START re-initialises Nice (tcp_nice_init), except while a
        // fractional window is being paced (every paced packet starts from an empty pipe).
        if VegasCore::is_tx_start(sent) && !self.fractional() {
            self.core.tx_start(sent);
            self.fractional_cwnd = NO_FRACTION;
        }
        self.core.sent(sent);
    }

    fn cwnd(&self) -> u64 {
        if self.fractional() {
            self.mss
        } else {
            self.w.cwnd * self.mss
        }
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh_bytes(self.mss)
    }

    /// A window w = 4/fractional_cwnd below one packet: w·MSS per RTT, i.e. one packet
    /// every 1/w RTTs (Ong 2020 §2.2.2: "release new segments only every n RTTs").
    fn pacing_rate(&self) -> Option<Rate> {
        if self.fractional_cwnd <= 4 {
            return None;
        }
        let rtt_us = if self.last_rtt != RTT_UNSET_US {
            self.last_rtt
        } else {
            self.core.base_rtt
        };
        if rtt_us == RTT_UNSET_US {
            return None;
        }
        let rtt_ns = rtt_us as u128 * 1000;
        let bits = 4 * self.mss as u128 * 8 * NANOS_PER_SEC as u128;
        Some(Rate(
            (bits / (self.fractional_cwnd as u128 * rtt_ns)) as u64,
        ))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.core.trace_rtts(out);
        out.push(("max_rtt_ms", self.max_rtt as f64 / 1000.0));
        out.push(("num_cong", self.num_cong as f64));
        out.push(("fractional_cwnd", self.fractional_cwnd as f64));
        out.push(("window_pkts", self.window_pkts()));
        out.push(("diff_pkts", self.last_diff.map_or(f64::NAN, |d| d as f64)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::units::Dur;

    const MSS: u64 = 1000;

    fn nice() -> Nice {
        let init = CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(1),
        };
        Nice::new(&NiceConfig::default(), &init)
    }

    /// CA state with baseRTT 100_000 µs; the per-RTT decision falls on ACK number `n`.
    fn primed(cwnd: u64, ssthresh: u64, n: u64) -> Nice {
        let mut v = nice();
        v.w.cwnd = cwnd;
        v.w.ssthresh = ssthresh;
        v.core.base_rtt = 100_000;
        v.core.beg_snd_nxt = (n - 1) * MSS;
        v
    }

    /// ACKs one packet each with wire RTT `rtt_us` (vrtt = rtt_us + 1).
    fn acks(v: &mut Nice, una: &mut u64, rtts_us: &[u64]) {
        for &r in rtts_us {
            *una += MSS;
            let a = AckSample {
                bytes_acked: MSS,
                rtt: Some(Dur::from_micros(r)),
                snd_una: *una,
                snd_nxt: *una + 100 * MSS,
                ..AckSample::empty(MSS)
            };
            v.on_ack(Time(0), &a);
        }
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            NiceConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            NiceConfig::default()
        );
    }

    #[test]
    fn congestion_event_threshold_uses_base_and_max_rtt() {
        let mut v = primed(20, 10, 100);
        let mut una = 0;
        // First sample of the round: maxRTT = 2·baseRTT = 200_000, then max(., 300_000)
        // = 300_000; threshold = (80·100_000 + 20·300_000)/100 = 140_000 -> 300_000 is an event.
        acks(&mut v, &mut una, &[299_999]);
        assert_eq!((v.max_rtt, v.num_cong), (300_000, 1));
        // 139_999 + 1 = 140_000 is not above 140_000; 140_001 is.
        acks(&mut v, &mut una, &[139_999, 140_000]);
        assert_eq!(v.num_cong, 2);
    }

    #[test]
    fn halves_when_more_than_half_the_window_sees_congestion() {
        // cwnd 20: fraction_divisor = 100/50 = 2, halve when numCong > 20/2 = 10.
        // vrtt 150_000 each; maxRTT = 200_000, threshold = (8e6 + 4e6)/100 = 120_000 ->
        // every sample is an event. 11 samples -> numCong 11 > 10 -> cwnd 20/2 = 10;
        // ssthresh = current_ssthresh = max(10, 5 + 2) = 10.
        let mut v = primed(20, 10, 11);
        let mut una = 0;
        acks(&mut v, &mut una, &[149_999; 11]);
        assert_eq!((v.cwnd(), v.ssthresh()), (10 * MSS, 10 * MSS));
        assert_eq!((v.num_cong, v.core.cnt_rtt, v.max_rtt), (0, 0, 0));
        // 10 samples -> numCong 10, not > 10 -> Vegas: diff = 20·50_000/100_000 = 10 >
        // beta 3 -> cwnd 19; ssthresh = min(10, 18) = 10 -> max(10, 9 + 4) = 13.
        let mut v = primed(20, 10, 10);
        let mut una = 0;
        acks(&mut v, &mut una, &[149_999; 10]);
        assert_eq!(v.last_diff, Some(10));
        assert_eq!((v.cwnd(), v.ssthresh()), (19 * MSS, 13 * MSS));
    }

    #[test]
    fn vegas_rules_below_the_threshold() {
        // vrtt 101_000 (< 120_000: no events). diff = 20·1_000/100_000 = 0 < alpha 1 -> 21.
        let mut v = primed(20, 10, 3);
        let mut una = 0;
        acks(&mut v, &mut una, &[100_999; 3]);
        assert_eq!((v.last_diff, v.cwnd()), (Some(0), 21 * MSS));
        // vrtt 115_000: diff = 20·15_000/100_000 = 3, not > beta 3 -> hold.
        let mut v = primed(20, 10, 3);
        let mut una = 0;
        acks(&mut v, &mut una, &[114_999; 3]);
        assert_eq!((v.last_diff, v.cwnd()), (Some(3), 20 * MSS));
    }

    #[test]
    fn fractional_window_is_paced() {
        // cwnd 2 (the floor): 3 samples at vrtt 150_000 are all events, 3 > 2/2 = 1, but
        // cwnd is not > 2 -> fractional_cwnd = 2·4 = 8: window 4/8 = 0.5 packet per RTT.
        let mut v = primed(2, 1, 3);
        let mut una = 0;
        acks(&mut v, &mut una, &[149_999; 3]);
        assert_eq!(v.fractional_cwnd, 8);
        assert_eq!(v.window_pkts(), 0.5);
        assert_eq!(v.cwnd(), MSS);
        // pacing = 0.5·1000 B per 150 ms = 4·1000·8 bit·1e9 / (8·150e6 ns) = 26_666.6 bit/s.
        assert_eq!(v.pacing_rate(), Some(Rate(26_666)));
        // Next round, vrtt 300_000: maxRTT = max(2·baseRTT, 300_000) = 300_000, threshold
        // = (80·100_000 + 20·300_000)/100 = 140_000 -> 3 events > 2/2 = 1 -> multiplicative
        // decrease of the fractional window: 8·4 = 32, i.e. 4/32 = 1/8 packet per RTT.
        // pacing = 4·1000·8·1e9 / (32·300e6) = 3_333.3 bit/s.
        let mut v2 = v.clone();
        v2.core.beg_snd_nxt = una + 2 * MSS;
        acks(&mut v2, &mut una.clone(), &[299_999; 3]);
        assert_eq!(v2.fractional_cwnd, 32);
        assert_eq!(v2.pacing_rate(), Some(Rate(3_333)));
    }

    #[test]
    fn fractional_window_grows_by_denominator_steps_under_reno() {
        // Fractional 8 (0.5 pkt/RTT), CA with nominal cwnd 2, ssthresh 1. One ACK per round
        // (cntRTT = 1 -> Reno fallback): Reno on cwnd 2 adds one packet per 2 acked, and
        // each packet Reno adds is one denominator step: fractional_cwnd -= 2.
        let mut v = primed(2, 1, 1);
        v.fractional_cwnd = 8;
        let mut una = 0;
        fn one_round(v: &mut Nice, una: &mut u64) {
            v.core.beg_snd_nxt = *una;
            acks(v, una, &[149_999]);
        }
        one_round(&mut v, &mut una);
        assert_eq!((v.fractional_cwnd, v.w.cnt), (8, 1));
        one_round(&mut v, &mut una);
        assert_eq!((v.fractional_cwnd, v.w.cwnd), (6, 2));
        // 4/6 packet per RTT: 4·1000·8e9 / (6·150e6) = 35_555.5 bit/s.
        assert_eq!(v.pacing_rate(), Some(Rate(35_555)));
        one_round(&mut v, &mut una);
        one_round(&mut v, &mut una);
        // fractional 4: a window of exactly one packet, no pacing needed.
        assert_eq!(
            (v.fractional_cwnd, v.cwnd(), v.pacing_rate()),
            (4, MSS, None)
        );
        one_round(&mut v, &mut una);
        one_round(&mut v, &mut una);
        // Back to the integer window of 2 packets.
        assert_eq!((v.fractional_cwnd, v.cwnd()), (2, 2 * MSS));
    }

    #[test]
    fn fractional_window_is_capped_at_max_fwnd() {
        let mut v = primed(2, 1, 3);
        v.fractional_cwnd = 32;
        let mut una = 0;
        acks(&mut v, &mut una, &[149_999; 3]);
        // 32·4 = 128 > 96 -> 96: 4/96 = 1/24 packet per RTT.
        assert_eq!(v.fractional_cwnd, 96);
    }

    #[test]
    fn u8_counter_wraps_only_when_asked() {
        let cfg = NiceConfig {
            numcong_u8_wrap: true,
            ..NiceConfig::default()
        };
        let init = CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(1),
        };
        let mut v = Nice::new(&cfg, &init);
        v.core.base_rtt = 100_000;
        v.core.beg_snd_nxt = u64::MAX;
        let mut una = 0;
        acks(&mut v, &mut una, &[149_999; 257]);
        assert_eq!(v.num_cong, 1);
        let mut v = primed(20, 10, 1000);
        let mut una = 0;
        acks(&mut v, &mut una, &[149_999; 257]);
        assert_eq!(v.num_cong, 257);
    }
}
