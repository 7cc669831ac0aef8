//! rLEDBAT, receiver-driven LEDBAT for TCP (RFC 9840, Bagnulo, García-Martínez,
//! Montenegro, Balasubramanian, Sept. 2025; was draft-irtf-iccrg-rledbat). The receiver
//! runs the LEDBAT++ window algorithm (draft-irtf-iccrg-ledbat-plus-plus) on its own
//! window RLWND and advertises RCV.WND = min(fc.WND, RLWND), so an unmodified sender
//! (CUBIC, NewReno, ...) is held to an LBE rate:
//! - delay signal: round-trip times measured at the receiver with TCP timestamps, from
//!   the moment it sent a TSval on an ACK to the arrival of the first data segment
//!   echoing it in TSecr (RFC 9840 "Measuring RTT to estimate the queueing delay");
//!   queueing delay = MIN(last CURRENT_FILTER RTTs) − MIN(BASE_HISTORY one-minute RTT
//!   minima), as in LEDBAT++;
//! - loss signal: a retransmitted segment, recognised as SEG.SEQ < RCV.HGH with a TSval
//!   newer than TSV.HGH (the TSval of the segment holding RCV.HGH) (RFC 9840 "Detecting
//!   retransmissions"); RLWND is halved, at most once per RTT;
//! - LEDBAT++ window rules on RLWND: dynamic GAIN = 1/min(16, ⌈2·TARGET/base⌉), slow
//!   start growing GAIN per received segment and ending at 3/4 TARGET, W += max(GAIN −
//!   C·W·(q/TARGET − 1), −W/2) per RTT, periodic slowdowns to 2 packets for 2 RTTs every
//!   9 slowdown durations; TARGET 60 ms; RLWND ≥ 2 packets.
//!
//! The no-shrinking rule (the advertised right edge never moves left, so a reduction
//! takes effect as data drains; RFC 9840 "Avoiding window shrinking") is the datapath's
//! (`receiver_api::non_shrinking_window`). The full RFC text was not available while
//! writing this; where the facts come from and every choice:
//! docs/deviations/rledbat.md.
//!
//! Differences from the source (the reasoning is in docs/deviations/rledbat.md):
//! - RTT from the receiver's own TSval, first echo only:
//!   docs/deviations/rledbat.md#rledbat-delay-signal
//! - LEDBAT++ on RLWND, per received segment: docs/deviations/rledbat.md#rledbat-window
//! - no flight-size cap; the flow-control window caps RLWND instead:
//!   docs/deviations/rledbat.md#rledbat-no-flight-cap
//! - retransmission detection and reaction: docs/deviations/rledbat.md#rledbat-retransmissions
//! - the transport keeps the right edge from moving left:
//!   docs/deviations/rledbat.md#rledbat-no-shrink
//! - window scaling is not modelled: docs/deviations/rledbat.md#rledbat-no-wscale

use crate::algorithms::ledbat_plus_plus::{
    filtered_rtt, queuing_delay_ns, Phase, PlusPlusClock, PlusPlusClockParams, PlusPlusSignals,
    PlusPlusWindowRules, WindowStep,
};
use crate::estimators::base_delay::{LedbatDelayEstimator, Rollover};
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::receiver_api::{ReceiveWindowControl, ReceiverAlgorithmInfo, RecvInit, RecvSample};
use crate::units::{Dur, Time};

pub static INFO: ReceiverAlgorithmInfo = ReceiverAlgorithmInfo {
    name: "rledbat",
    aliases: &["r-ledbat"],
    summary: "rLEDBAT: receiver-driven LEDBAT++ on the advertised receive window, RTT from TCP timestamps",
    source: "RFC 9840 §4 (rLEDBAT mechanisms); window algorithm draft-irtf-iccrg-ledbat-plus-plus; Apple XNU tcp_rledbat.c",
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
        source: "RFC 9840 (LEDBAT++ TARGET = 60 ms); UC3M rledbat_module TARGET 60 ms",
    },
    ParamSpec {
        name: "max_gain_divisor",
        kind: ParamKind::Int { min: 1, max: 1024 },
        default: ParamValue::Int(16),
        unit: "",
        doc: "GAIN = 1/min(max_gain_divisor, ceil(gain_target_factor·TARGET/base RTT))",
        source: "LEDBAT++ \"Reduced GAIN\" (16); Apple tcp_rledbat.c GAIN_CONSTANT 16",
    },
    ParamSpec {
        name: "gain_target_factor",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(2.0),
        unit: "",
        doc: "The 2 in ceil(2·TARGET/base RTT)",
        source: "LEDBAT++ \"Reduced GAIN\"; Apple rledbat_gain()",
    },
    ParamSpec {
        name: "decrease_constant",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(1.0),
        unit: "",
        doc: "C in W += max(GAIN − C·W·(q/TARGET − 1), −W·md_cap) per RTT",
        source: "LEDBAT++ \"Multiplicative decrease\" (Constant = 1); UC3M rledbat_module CONSTANT 1",
    },
    ParamSpec {
        name: "md_cap",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.5),
        unit: "of RLWND per RTT",
        doc: "Largest delay-based decrease per RTT as a fraction of RLWND (−W/2)",
        source: "LEDBAT++ \"Multiplicative decrease\" (capped at W/2); Apple min(q/T − 1, 1/2)",
    },
    ParamSpec {
        name: "ss_exit",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.75),
        unit: "of target",
        doc: "Slow start ends when the queueing delay exceeds this fraction of TARGET",
        source: "LEDBAT++ \"Modified slow start\" (3/4 TARGET); Apple ss_target = 3·target/4",
    },
    ParamSpec {
        name: "slowdown",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Periodic slowdowns (RLWND to slowdown_window for slowdown_rtts)",
        source: "LEDBAT++ \"Periodic slowdown\"; Apple tcp_rledbat.c, UC3M module (periodic reduction)",
    },
    ParamSpec {
        name: "slowdown_window",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "RLWND during a slowdown",
        source: "LEDBAT++ \"Periodic slowdown\" (2 packets); Apple bg_ss_fltsz 2",
    },
    ParamSpec {
        name: "slowdown_rtts",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(2.0),
        unit: "RTTs",
        doc: "How long RLWND stays frozen at slowdown_window",
        source: "LEDBAT++ \"Periodic slowdown\" (2 RTTs); Apple 2·rcv_srtt",
    },
    ParamSpec {
        name: "slowdown_interval",
        kind: ParamKind::Float { min: 0.0, max: 1000.0 },
        default: ParamValue::Float(9.0),
        unit: "× duration",
        doc: "The next slowdown starts this many slowdown durations after a slowdown ends",
        source: "LEDBAT++ \"Periodic slowdown\" (9 times); Apple, UC3M 9 × duration",
    },
    ParamSpec {
        name: "initial_slowdown_rtts",
        kind: ParamKind::Float { min: 0.0, max: 1000.0 },
        default: ParamValue::Float(2.0),
        unit: "RTTs",
        doc: "The first slowdown starts this many RTTs after the initial slow start ends",
        source: "LEDBAT++ \"Periodic slowdown\" (2 RTTs); Apple, UC3M 2·RTT",
    },
    ParamSpec {
        name: "base_history",
        kind: ParamKind::Int { min: 1, max: 60 },
        default: ParamValue::Int(10),
        unit: "minutes",
        doc: "BASE_HISTORY one-minute RTT minima (base RTT = their minimum)",
        source: "RFC 6817 §2.5 (10), kept by LEDBAT++ and rLEDBAT",
    },
    ParamSpec {
        name: "current_filter",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(4),
        unit: "samples",
        doc: "Current RTT = minimum of this many latest RTT samples",
        source: "RFC 6817 §2.4.2 CURRENT_FILTER as used by LEDBAT++ (4); see deviations",
    },
    ParamSpec {
        name: "min_window",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "Smallest RLWND after a decrease",
        source: "LEDBAT++/RFC 6817 MIN_CWND 2; Apple bg_ss_fltsz 2; UC3M MIN_REDUCTION_BYTES 2 MSS",
    },
    ParamSpec {
        name: "initial_window",
        kind: ParamKind::Int { min: 1, max: 1000 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "RLWND when the connection starts (advertised from the handshake on)",
        source: "Apple tcp_rledbat_rwnd_init (bg_ss_fltsz = 2 segments); UC3M module 1 MSS; see deviations",
    },
    ParamSpec {
        name: "loss_holdoff_rtts",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        default: ParamValue::Float(1.0),
        unit: "RTTs",
        doc: "After a retransmission halves RLWND, RLWND is left alone for this many RTTs (one reaction per RTT)",
        source: "RFC 9840 (react once per RTT, as LEDBAT++ on loss); Apple uses 2·rcv_srtt",
    },
];

/// rLEDBAT's parameters. Defaults: RFC 9840 with LEDBAT++'s window algorithm
/// (draft-irtf-iccrg-ledbat-plus-plus, sections named in quotes), Apple XNU
/// `tcp_rledbat.c` and the UC3M `rledbat_module` where the texts give no number.
#[derive(Clone, Debug, PartialEq)]
pub struct RledbatConfig {
    /// TARGET, the reduced GAIN and the slowdown schedule: LEDBAT++'s (RFC 9840 adopts
    /// them), shared with the sender.
    pub clock: PlusPlusClockParams,
    /// C in W += max(GAIN − C·W·(q/TARGET − 1), −W·md_cap): 1 (LEDBAT++
    /// "Multiplicative decrease"; UC3M CONSTANT 1).
    pub decrease_constant: f64,
    /// Largest delay-based decrease per RTT as a fraction of RLWND: 1/2 (LEDBAT++
    /// "Multiplicative decrease"; Apple min(q/T − 1, 1/2)).
    pub md_cap: f64,
    /// Slow start ends above this fraction of TARGET: 3/4 (LEDBAT++ "Modified slow
    /// start"; Apple ss_target = 3·target/4).
    pub ss_exit: f64,
    /// RLWND during a slowdown, packets: 2 (LEDBAT++ "Periodic slowdown"; Apple
    /// bg_ss_fltsz 2).
    pub slowdown_window: u64,
    /// BASE_HISTORY one-minute RTT minima: 10 (RFC 6817 §2.5, kept by LEDBAT++ and
    /// rLEDBAT).
    pub base_history: usize,
    /// CURRENT_FILTER, RTT samples: 4 (RFC 6817 §2.4.2 as LEDBAT++ uses it; see
    /// deviations).
    pub current_filter: usize,
    /// Smallest RLWND after a decrease, packets: 2 (LEDBAT++/RFC 6817 MIN_CWND; Apple
    /// bg_ss_fltsz 2; UC3M MIN_REDUCTION_BYTES 2 MSS).
    pub min_window: u64,
    /// RLWND when the connection starts, packets: 2 (Apple tcp_rledbat_rwnd_init; UC3M
    /// uses 1 MSS; see deviations).
    pub initial_window: u64,
    /// RTTs RLWND is left alone after a retransmission halved it: 1 (RFC 9840, once per
    /// RTT as LEDBAT++ on loss; Apple uses 2·rcv_srtt).
    pub loss_holdoff_rtts: f64,
}

impl Default for RledbatConfig {
    fn default() -> Self {
        RledbatConfig {
            clock: PlusPlusClockParams::default(),
            decrease_constant: 1.0,
            md_cap: 0.5,
            ss_exit: 0.75,
            slowdown_window: 2,
            base_history: 10,
            current_filter: 4,
            min_window: 2,
            initial_window: 2,
            loss_holdoff_rtts: 1.0,
        }
    }
}

/// The only place rLEDBAT's parameter names are looked up.
impl TryFrom<&ParamSet> for RledbatConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("rledbat");
        Ok(RledbatConfig {
            clock: PlusPlusClockParams::read(&r)?,
            decrease_constant: r.f64("decrease_constant")?,
            md_cap: r.f64("md_cap")?,
            ss_exit: r.f64("ss_exit")?,
            slowdown_window: r.u64("slowdown_window")?,
            base_history: r.usize("base_history")?,
            current_filter: r.usize("current_filter")?,
            min_window: r.u64("min_window")?,
            initial_window: r.u64("initial_window")?,
            loss_holdoff_rtts: r.f64("loss_holdoff_rtts")?,
        })
    }
}

/// The registry's entry point. `p` was resolved against `PARAMS`, so the conversion
/// cannot fail unless the spec table and the config disagree, which
/// `config_defaults_match_spec_table` rules out.
fn build(p: &ParamSet, init: RecvInit) -> Box<dyn ReceiveWindowControl> {
    let cfg = RledbatConfig::try_from(p).expect("rledbat: spec table and RledbatConfig agree");
    Box::new(Rledbat::new(&cfg, &init))
}

#[derive(Clone, Debug)]
pub struct Rledbat {
    est: LedbatDelayEstimator,
    clock: PlusPlusClock,
    rules: PlusPlusWindowRules,
    min_window: f64,
    loss_holdoff_rtts: f64,
    /// fc.WND in packets: RLWND never grows beyond what could be advertised.
    max_window: f64,
    /// RLWND in packets (fractional).
    w: f64,
    ssthresh: f64,
    mss: u64,
    queuing_delay: f64,
    /// The newest TSecr already used for an RTT sample.
    last_ecr: Option<i64>,
    last_rtt: Option<i64>,
    /// RCV.HGH (highest sequence number of a received byte) and TSV.HGH (the TSval of
    /// the segment that carried it).
    rcv_hgh: Option<u64>,
    tsv_hgh: u64,
    /// No window change before this time (after a retransmission-triggered halving).
    hold_until: Option<Time>,
    /// The right edge advertised before the current slowdown: the sender may fill it,
    /// so the slowdown's freeze is timed from when data reaches it.
    freeze_edge: Option<u64>,
    retransmissions: u64,
    rtt_samples: u64,
}

impl Rledbat {
    pub fn new(cfg: &RledbatConfig, init: &RecvInit) -> Rledbat {
        let mss = init.mss.max(1);
        let max_window = ((init.max_window / mss) as f64).max(1.0);
        Rledbat {
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
                slowdown_window: cfg.slowdown_window as f64,
            },
            min_window: cfg.min_window as f64,
            loss_holdoff_rtts: cfg.loss_holdoff_rtts,
            max_window,
            w: (cfg.initial_window as f64).min(max_window),
            ssthresh: f64::INFINITY,
            mss,
            queuing_delay: 0.0,
            last_ecr: None,
            last_rtt: None,
            rcv_hgh: None,
            tsv_hgh: 0,
            hold_until: None,
            freeze_edge: None,
            retransmissions: 0,
            rtt_samples: 0,
        }
    }

    /// RLWND in packets.
    pub fn window_pkts(&self) -> f64 {
        self.w
    }
    pub fn ssthresh_pkts(&self) -> f64 {
        self.ssthresh
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
    /// Retransmissions that triggered a halving.
    pub fn retransmissions(&self) -> u64 {
        self.retransmissions
    }
    pub fn rtt_samples(&self) -> u64 {
        self.rtt_samples
    }
    /// The latest raw RTT sample (ns).
    pub fn last_rtt(&self) -> Option<i64> {
        self.last_rtt
    }
    /// Queueing delay (ns) at the latest segment.
    pub fn queuing_delay(&self) -> f64 {
        self.queuing_delay
    }
    pub fn base_rtt(&self) -> Option<i64> {
        self.est.base.base()
    }

    /// GAIN = 1 / min(16, ⌈2·TARGET/base⌉) (LEDBAT++ "Reduced GAIN", Apple
    /// `rledbat_gain`); the largest divisor before any base RTT is known.
    pub fn gain(&self) -> f64 {
        self.clock.gain(self.est.base.base())
    }

    /// The RTT used for timing (slowdowns, the retransmission hold-off): the filtered
    /// current RTT (MIN of the last CURRENT_FILTER samples).
    fn rtt(&self) -> Dur {
        filtered_rtt(&self.est)
    }

    /// A slow start (initial, or the ramp of a slowdown) ends.
    fn end_slow_start(&mut self, now: Time) {
        self.clock.end_slow_start(now, self.rtt());
    }
}

impl ReceiveWindowControl for Rledbat {
    fn name(&self) -> &'static str {
        "rledbat"
    }

    fn on_data(&mut self, now: Time, s: &RecvSample) {
        self.mss = s.mss.max(1);
        // RFC 9840 RTT measurement: the receiver's own TSval comes back in TSecr; RTT =
        // now (receiver TS clock) − TSecr. Only the first segment echoing a (newer) TSval
        // gives a sample: the segments sent after it in the same burst would add their
        // serialisation behind it (UC3M module `tsecr_already_checked`).
        let mut sample = None;
        if let Some(ecr) = s.ts_ecr {
            if self.last_ecr.is_none_or(|l| ecr > l) {
                self.last_ecr = Some(ecr);
                if s.ts_now >= ecr {
                    let rtt = s.ts_now - ecr;
                    sample = Some(rtt);
                    self.est.update(now, rtt);
                    self.last_rtt = Some(rtt);
                    self.rtt_samples += 1;
                }
            }
        }
        // RFC 9840 retransmission detection: SEG.SEQ < RCV.HGH and TSV.SEQ > TSV.HGH (a
        // segment below the highest byte received, sent after the segment that carried
        // it: a retransmission, not a reordered original).
        let retransmission = self.rcv_hgh.is_some_and(|h| s.seq < h) && s.ts_val > self.tsv_hgh;
        if s.bytes > 0 {
            let last = s.seq + s.bytes - 1;
            if self.rcv_hgh.is_none_or(|h| last > h) {
                self.rcv_hgh = Some(last);
                self.tsv_hgh = s.ts_val;
            }
        }
        if let Phase::Frozen { until } = self.clock.phase {
            if let Some(edge) = self.freeze_edge {
                if s.rcv_nxt < edge {
                    // The sender may still fill the window advertised before the
                    // slowdown (the right edge never moves left): the slowdown has not
                    // taken effect yet, so its 2 RTTs have not started
                    // (docs/deviations/rledbat.md#rledbat-ramp-filter).
                    self.clock.phase = Phase::Frozen {
                        until: now + self.rtt().mul_f64(self.clock.slowdown_rtts),
                    };
                    self.queuing_delay = queuing_delay_ns(&self.est);
                    return;
                }
                self.freeze_edge = None;
            }
            if now < until {
                self.queuing_delay = queuing_delay_ns(&self.est);
                return; // LEDBAT++ slowdown: RLWND held at slowdown_window
            }
            self.clock.phase = Phase::RampUp;
            // The ramp judges the queue from samples taken from here on: the
            // current-delay filter still holds samples of segments sent before the
            // slowdown, which measured the queue the slowdown was meant to drain, and
            // ended the ramp at once (issue 18, case 3;
            // docs/deviations/rledbat.md#rledbat-ramp-filter).
            self.est.current.reset();
            if let Some(rtt) = sample {
                self.est.current.update(rtt);
            }
        }
        let q = queuing_delay_ns(&self.est);
        self.queuing_delay = q;

        let holding = self.hold_until.is_some_and(|t| now < t);
        if retransmission && !holding {
            // RFC 9840: a retransmission is a loss signal; LEDBAT++/RFC 6817 halve the
            // window, at most once per RTT.
            self.retransmissions += 1;
            self.w = (self.w / 2.0).max(self.min_window);
            self.ssthresh = self.w;
            self.hold_until = Some(now + self.rtt().mul_f64(self.loss_holdoff_rtts));
            if matches!(self.clock.phase, Phase::SlowStart { .. } | Phase::RampUp) {
                self.end_slow_start(now);
            }
            return;
        }
        if holding {
            return; // like a sender in recovery: no window change
        }

        let signals = PlusPlusSignals {
            q,
            acked: if s.new_data {
                s.bytes as f64 / self.mss as f64
            } else {
                0.0
            },
            gain: self.gain(),
            rtt: self.rtt(),
            // No flight-size cap at the receiver: the flow-control window caps RLWND
            // (docs/deviations/rledbat.md#rledbat-no-flight-cap).
            may_grow: true,
        };
        let step =
            self.clock
                .step_window(now, &self.rules, &mut self.w, &mut self.ssthresh, &signals);
        if step == WindowStep::SlowdownStarted {
            // The edge is the one the datapath advertised last: with a smaller
            // flow-control window (Linux autotuning) it lies below RLWND's, and waiting
            // for data to reach RLWND's edge at 2 packets per RTT froze the flow for tens
            // of seconds (docs/deviations/rledbat.md#rledbat-ramp-filter).
            self.freeze_edge = Some(s.right_edge);
            return;
        }
        self.w = self.w.min(self.max_window).max(self.min_window);
    }

    fn rwnd(&self) -> u64 {
        // Whole segments (Apple tcp_round_to(win, t_maxseg)); the 1e-9 keeps sums of
        // fractions such as 6 × 1/6 from rounding down a whole packet.
        ((self.w + 1e-9).floor().max(1.0) as u64).saturating_mul(self.mss)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("rlwnd_pkts", self.w));
        out.push(("rx_queuing_delay_ms", self.queuing_delay / 1e6));
        if let Some(b) = self.est.base.base() {
            out.push(("rx_base_rtt_ms", b as f64 / 1e6));
        }
        if let Some(r) = self.last_rtt {
            out.push(("rx_rtt_ms", r as f64 / 1e6));
        }
        out.push(("rx_gain", self.gain()));
        out.push(("rx_phase", self.clock.phase.trace_code()));
        out.push(("rx_slowdowns", self.clock.slowdowns as f64));
        out.push(("rx_retx_halvings", self.retransmissions as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            RledbatConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            RledbatConfig::default()
        );
    }

    fn make(cfg: RledbatConfig) -> Rledbat {
        Rledbat::new(
            &cfg,
            &RecvInit {
                now: Time(0),
                mss: MSS,
                max_window: 1000 * MSS,
            },
        )
    }

    fn at(ms: u64) -> Time {
        Time(ms * MS)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// A driver that hands out in-order segments of `MSS` bytes, each sent (TSval) at the
    /// receive time and echoing a receiver TSval `rtt_ms` old.
    struct Feed {
        next_seq: u64,
    }

    impl Feed {
        fn new() -> Feed {
            Feed { next_seq: 0 }
        }
        /// `segs` new segments arriving at `now_ms` with an RTT of `rtt_ms`; the first one
        /// carries a fresh TSecr, so exactly one RTT sample is taken per call.
        fn data(&mut self, r: &mut Rledbat, now_ms: u64, segs: u64, rtt_ms: u64) {
            let now = at(now_ms);
            let ecr = now.nanos() as i64 - (rtt_ms * MS) as i64;
            for _ in 0..segs.max(1) {
                let bytes = if segs == 0 { 0 } else { MSS };
                let s = RecvSample {
                    seq: self.next_seq,
                    bytes,
                    new_data: bytes > 0,
                    rcv_nxt: self.next_seq + bytes,
                    ts_val: now.nanos(),
                    ts_ecr: Some(ecr),
                    ts_now: now.nanos() as i64,
                    mss: MSS,
                    // The datapath advertised RLWND at the previous segment.
                    right_edge: self.next_seq + r.rwnd(),
                };
                self.next_seq += bytes;
                r.on_data(now, &s);
            }
        }
    }

    #[test]
    fn rtt_is_now_minus_the_first_new_tsecr() {
        let mut r = make(RledbatConfig::default());
        // A segment with no echo gives no sample.
        r.on_data(
            at(1),
            &RecvSample {
                seq: 0,
                bytes: MSS,
                new_data: true,
                rcv_nxt: MSS,
                ts_val: 1,
                ts_ecr: None,
                ts_now: 1_000_000,
                mss: MSS,
                right_edge: 0,
            },
        );
        assert_eq!(r.rtt_samples(), 0);
        // TSecr 5 ms (receiver clock, offset included) arriving at receiver clock 55 ms:
        // RTT 50 ms.
        let s = |seq: u64, ecr_ms: i64, now_ms: i64| RecvSample {
            seq: seq * MSS,
            bytes: MSS,
            new_data: true,
            rcv_nxt: (seq + 1) * MSS,
            ts_val: now_ms as u64,
            ts_ecr: Some(ecr_ms * MS as i64),
            ts_now: now_ms * MS as i64,
            mss: MSS,
            right_edge: 0,
        };
        r.on_data(at(55), &s(1, 5, 55));
        assert_eq!((r.rtt_samples(), r.last_rtt()), (1, Some(50 * MS as i64)));
        // The next segment of the same burst echoes the same TSval: no sample (it would
        // read 52 ms).
        r.on_data(at(57), &s(2, 5, 57));
        assert_eq!((r.rtt_samples(), r.last_rtt()), (1, Some(50 * MS as i64)));
        // An older echo (reordered segment) is ignored too; a newer one counts: 70 − 12.
        r.on_data(at(60), &s(3, 4, 60));
        r.on_data(at(70), &s(4, 12, 70));
        assert_eq!((r.rtt_samples(), r.last_rtt()), (2, Some(58 * MS as i64)));
        // Base = min(50, 58) = 50; current = min(50, 58) = 50 → queueing delay 0.
        assert_eq!(r.base_rtt(), Some(50 * MS as i64));
        assert_eq!(r.queuing_delay(), 0.0);
    }

    #[test]
    fn dynamic_gain() {
        let mut r = make(RledbatConfig::default());
        assert_eq!(r.gain(), 1.0 / 16.0); // no base yet
        let mut f = Feed::new();
        // Base 50 ms: ⌈2·60/50⌉ = ⌈2.4⌉ = 3 → 1/3.
        f.data(&mut r, 100, 0, 50);
        assert_eq!(r.gain(), 1.0 / 3.0);
        // Base 10 ms: ⌈12⌉ = 12 → 1/12; base 2 ms: min(16, 60) = 16.
        f.data(&mut r, 101, 0, 10);
        assert_eq!(r.gain(), 1.0 / 12.0);
        f.data(&mut r, 102, 0, 2);
        assert_eq!(r.gain(), 1.0 / 16.0);
        // Base 150 ms: ⌈0.8⌉ = 1 → GAIN 1.
        let mut r = make(RledbatConfig::default());
        Feed::new().data(&mut r, 200, 0, 150);
        assert_eq!(r.gain(), 1.0);
    }

    #[test]
    fn slow_start_grows_gain_per_segment_and_ends_above_three_quarters_of_target() {
        let mut r = make(RledbatConfig::default());
        let mut f = Feed::new();
        assert_eq!(r.rwnd(), 2 * MSS); // initial_window 2
                                       // RTT 20 ms → base 20 → GAIN = 1/⌈120/20⌉ = 1/6. Six segments add one packet: 3.
        f.data(&mut r, 20, 6, 20);
        assert!(close(r.window_pkts(), 3.0), "{}", r.window_pkts());
        assert_eq!(r.rwnd(), 3 * MSS);
        // RTT 65 ms: q = 45 ms (once the filter, min of the last 4 samples, has lost the
        // 20) = exactly 3/4 of 60, not above: still slow start, +1 per call: 7.
        for k in 0..4 {
            f.data(&mut r, 100 + k, 6, 65);
        }
        assert!(close(r.window_pkts(), 7.0), "{}", r.window_pkts());
        assert_eq!(r.phase(), Phase::SlowStart { initial: true });
        // 66 ms: the first three calls still see a 65 in the filter (q = 45) and grow by
        // 1 each: 10; with four 66s q = 46 ms > 45 → exit with ssthresh = RLWND = 10.
        for k in 0..3 {
            f.data(&mut r, 200 + k, 6, 66);
        }
        assert!(close(r.window_pkts(), 10.0), "{}", r.window_pkts());
        f.data(&mut r, 300, 6, 66);
        assert_eq!(r.phase(), Phase::CongestionAvoidance);
        assert!(close(r.ssthresh_pkts(), 10.0));
        // First slowdown 2 RTTs (filtered RTT 66 ms) after the exit at 300 ms: 432 ms.
        assert_eq!(r.next_slowdown(), Some(at(300 + 132)));
    }

    fn in_ca(w: f64) -> (Rledbat, Feed) {
        let mut r = make(RledbatConfig {
            clock: PlusPlusClockParams {
                slowdown: false,
                ..Default::default()
            },
            ..Default::default()
        });
        let mut f = Feed::new();
        f.data(&mut r, 0, 0, 20); // base 20 ms → GAIN 1/6
        r.clock.phase = Phase::CongestionAvoidance;
        r.w = w;
        (r, f)
    }

    #[test]
    fn additive_increase_below_target() {
        let (mut r, mut f) = in_ca(20.0);
        // q = 0: W += GAIN·acked/W per segment: (1/6)·1/20 = 1/120, then (1/6)/W1.
        f.data(&mut r, 1, 2, 20);
        let w1 = 20.0 + 1.0 / 120.0;
        assert!(
            close(r.window_pkts(), w1 + 1.0 / 6.0 / w1),
            "{}",
            r.window_pkts()
        );
    }

    #[test]
    fn multiplicative_decrease_and_its_cap() {
        let (mut r, mut f) = in_ca(20.0);
        // RTT 90 ms: the filter (min of 4) needs four 90-ms samples before q = 70 ms;
        // zero-byte probes give the samples without moving the window.
        // (Echoes must get newer: TSecr = now − RTT, so the times start at 100 ms.)
        for k in 0..4 {
            f.data(&mut r, 100 + k, 0, 90);
        }
        assert_eq!(r.window_pkts(), 20.0);
        // q/T − 1 = 70/60 − 1 = 1/6: GAIN − C·W·(1/6) = 1/6 − 20/6 = −19/6 > −W/2 = −10.
        // One segment: W += (−19/6)·(1/20) = −19/120.
        f.data(&mut r, 120, 1, 90);
        assert!(
            close(r.window_pkts(), 20.0 - 19.0 / 120.0),
            "{}",
            r.window_pkts()
        );
        // RTT 200 ms: q = 180 ms: 1/6 − 20·2 < −10 → capped: each segment removes
        // (W/2)/W = 1/2 packet; 20 segments (one window) remove W/2 = 10.
        let (mut r, mut f) = in_ca(20.0);
        for k in 0..4 {
            f.data(&mut r, 300 + k, 0, 200);
        }
        f.data(&mut r, 320, 20, 200);
        assert!(close(r.window_pkts(), 10.0), "{}", r.window_pkts());
        // Floor: min_window = 2 packets.
        f.data(&mut r, 330, 100, 200);
        assert_eq!(r.window_pkts(), 2.0);
        assert_eq!(r.rwnd(), 2 * MSS);
    }

    #[test]
    fn the_window_never_exceeds_the_flow_control_window() {
        let mut r = Rledbat::new(
            &RledbatConfig::default(),
            &RecvInit {
                now: Time(0),
                mss: MSS,
                max_window: 5 * MSS + 500,
            },
        );
        let mut f = Feed::new();
        // Base 150 ms → GAIN 1: slow start doubles, but fc.WND = 5.5 packets → 5.
        f.data(&mut r, 150, 10, 150);
        assert_eq!(r.window_pkts(), 5.0);
        assert_eq!(r.rwnd(), 5 * MSS);
    }

    #[test]
    fn a_retransmission_halves_the_window_once_per_rtt() {
        let (mut r, _) = in_ca(20.0);
        // Segments 0..10 sent at t = 1..10 ms (TSval = send time), RTT 20 ms; segment 3
        // was lost. RCV.HGH = byte 9999, TSV.HGH = 10 ms.
        let seg = |i: u64, ts_ms: u64, now_ms: u64| RecvSample {
            seq: i * MSS,
            bytes: MSS,
            new_data: true,
            rcv_nxt: 3 * MSS,
            ts_val: ts_ms * MS,
            ts_ecr: None,
            ts_now: (now_ms * MS) as i64,
            mss: MSS,
            right_edge: 0,
        };
        for i in (0..10).filter(|&i| i != 3) {
            r.on_data(at(20 + i), &seg(i, i + 1, 20 + i));
        }
        let w = r.window_pkts();
        // A reordered original (segment 3 sent at 4 ms < TSV.HGH 10 ms) is not a signal.
        let mut w1 = r.clone();
        w1.on_data(at(31), &seg(3, 4, 31));
        assert_eq!(w1.retransmissions(), 0);
        // The retransmission of 3, sent at 12 ms > 10 ms: RLWND halves, ssthresh = RLWND.
        r.on_data(at(32), &seg(3, 12, 32));
        assert_eq!(r.retransmissions(), 1);
        assert!(
            close(r.window_pkts(), w / 2.0) && close(r.ssthresh_pkts(), w / 2.0),
            "{} {}",
            r.window_pkts(),
            w
        );
        // Another retransmission (of 5, spurious, sent at 13 ms) within the RTT (20 ms
        // filtered): ignored, and the window is held.
        r.on_data(at(40), &seg(5, 13, 40));
        assert_eq!(r.retransmissions(), 1);
        assert!(close(r.window_pkts(), w / 2.0));
        // After one RTT (32 + 20 = 52 ms) another one halves again.
        r.on_data(at(52), &seg(6, 14, 52));
        assert_eq!(r.retransmissions(), 2);
        assert!(close(r.window_pkts(), w / 4.0));
    }

    #[test]
    fn the_ramp_after_a_slowdown_ignores_delay_samples_from_before_it() {
        // As periodic_slowdown_cycle, but the queue of the initial slow start is still
        // there when the slowdown begins: the filter holds four 146 ms samples (q = 46 ms
        // > 3/4 TARGET = 45 ms) and none arrives during the freeze.
        let mut r = make(RledbatConfig::default());
        let mut f = Feed::new();
        f.data(&mut r, 100, 36, 100);
        for k in 0..4 {
            f.data(&mut r, 997 + k, 0, 146);
        }
        assert_eq!(r.next_slowdown(), Some(at(1292)));
        f.data(&mut r, 1292, 1, 146);
        // The sender fills the 20 segments advertised before (right edge 56 segments) at
        // 1.3 s: the freeze lasts 2 RTTs (filtered 146 ms) from then, to 1.592 s.
        f.data(&mut r, 1300, 19, 146);
        assert_eq!(r.phase(), Phase::Frozen { until: at(1592) });
        // The segment that ends the freeze echoes an old TSval (no sample). The ramp
        // starts from an empty filter (q = 0) and grows by GAIN = 1/2 (issue 18, case 3);
        // it used to end at once on the stale 46 ms.
        f.data(&mut r, 1592, 1, 1592);
        assert_eq!((r.window_pkts(), r.phase()), (2.5, Phase::RampUp));
        assert_eq!(r.queuing_delay(), 0.0);
    }

    #[test]
    fn periodic_slowdown_cycle() {
        let mut r = make(RledbatConfig::default());
        let mut f = Feed::new();
        // Base 100 ms → GAIN = 1/⌈1.2⌉ = 1/2. Slow start from 2: 36 segments → +18 = 20.
        f.data(&mut r, 100, 36, 100);
        assert!(close(r.window_pkts(), 20.0));
        // q = 46 ms (four 146-ms samples, no data): exit at 1 s, ssthresh 20, first
        // slowdown 2 RTTs later (filtered RTT 146 ms): 1.292 s.
        for k in 0..4 {
            f.data(&mut r, 997 + k, 0, 146);
        }
        assert_eq!(r.phase(), Phase::CongestionAvoidance);
        assert_eq!(r.next_slowdown(), Some(at(1000 + 292)));
        // Back to RTT 100 ms (q = 0) — the filter needs four samples.
        for k in 0..4 {
            f.data(&mut r, 1100 + k, 0, 100);
        }
        // At 1.292 s: ssthresh = 20, RLWND = 2, frozen for 2·100 ms once the sender has
        // used the 20 segments advertised before (right edge 36 + 20 = 56 segments).
        f.data(&mut r, 1292, 1, 100);
        assert_eq!(
            (r.rwnd(), r.phase()),
            (2 * MSS, Phase::Frozen { until: at(1492) })
        );
        assert!(close(r.ssthresh_pkts(), 20.0));
        // The sender fills the old window up to 56 segments at 1.3 s: 2 RTTs from then.
        f.data(&mut r, 1300, 19, 100);
        assert_eq!(r.phase(), Phase::Frozen { until: at(1500) });
        f.data(&mut r, 1499, 10, 100);
        assert_eq!(r.window_pkts(), 2.0);
        // From 1.5 s: slow start with GAIN 1/2: 4 segments → 4 packets.
        f.data(&mut r, 1500, 4, 100);
        assert_eq!((r.window_pkts(), r.phase()), (4.0, Phase::RampUp));
        // Up to ssthresh 20: 32 more segments; the ramp ends at 1.7 s. Duration
        // 1.292 → 1.7 = 408 ms; next slowdown 9·408 ms later: 5.372 s.
        f.data(&mut r, 1600, 28, 100);
        assert_eq!(r.window_pkts(), 18.0);
        f.data(&mut r, 1700, 4, 100);
        assert_eq!(
            (r.window_pkts(), r.phase()),
            (20.0, Phase::CongestionAvoidance)
        );
        assert_eq!(r.next_slowdown(), Some(at(5372)));
        assert_eq!(r.slowdowns(), 1);
    }
}
