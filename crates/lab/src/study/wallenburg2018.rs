//! Wallenburg 2018 ("Libdalbe", MSc thesis, Oslo): deadline-aware LBE
//! (DA-LBE) over CUBIC and Vegas, on the emulated testbed of §4.1 (100 Mbit/s, 30 ms RTT,
//! a 250-packet tail-drop FIFO, 10 Mbit/s of Poisson UDP noise). Two scenarios, each with
//! the thesis's two model-based metacontrollers and our `deadline` controller:
//!
//! - short term (§5.1, Table 5.1): a 1625 MB DA-LBE flow from 400 s, due 1300 s later,
//!   among six best-effort CUBIC flows that come and go (an idle gap at 1000–1010 s);
//! - long term (§5.3, Table 5.2): a 1625 MB DA-LBE flow from 10 s, due 600 s later, against
//!   one best-effort CUBIC flow over 0–720 s; 50 runs per configuration.
//!
//! Published numbers from Wallenburg 2018 notes §9 (Tables 5.3 and 5.4, testbed rows; the
//! Internet "Cork" runs cross an unknown path and are not modelled).

use super::*;
use crate::builder::{Buffer, FlowBuilder, LinkBuilder, ScenarioBuilder};
use scavenger_cc::{Dur, Rate};

/// §4.1 / Wallenburg 2018 notes §8.1: "100 Mbit/s", "RTT 30 ms (15 ms one-way)", "1 BDP = 250 packets".
pub const RATE_MBPS: u64 = 100;
pub const ONE_WAY_MS: u64 = 15;
pub const BUFFER_PKTS: u64 = 250;
/// §5.1 (Table 5.1 set-up): UDP noise, MTU-sized packets, "mean 833 pkt/s (≈ 10 Mbit/s),
/// exponential inter-departure times".
pub const NOISE_MBPS: u64 = 10;
/// Tables 5.1 and 5.2: the DA-LBE flow sends 1625 MB.
pub const SIZE_MB: u64 = 1625;
/// Table 5.2: the DA-LBE flow starts at 10 s with a 600 s deadline; the BE CUBIC flow runs
/// 0–720 s and the run is killed at about 720 s.
pub const LONG_START_S: u64 = 10;
pub const LONG_DEADLINE_S: u32 = 600;
pub const LONG_RUN_S: u64 = 720;
/// Table 5.1: the DA-LBE flow starts at 400 s with a 1300 s deadline (due at 1700 s).
pub const SHORT_START_S: u64 = 400;
pub const SHORT_DEADLINE_S: u32 = 1300;
pub const SHORT_RUN_S: u64 = 2000;
/// Table 5.1: the best-effort CUBIC flows' (start, end) in s; flow 5 runs to the end.
pub const SHORT_BE: [(u64, u64); 6] = [
    (0, 600),
    (200, 1000),
    (800, 1000),
    (1010, 1600),
    (1200, 2000),
    (1400, 1800),
];

/// The controllers: the thesis's two (§3.5.2) and ours (docs/dalbe.md §4).
pub const CONTROLLERS: &[&str] = &["cubic-mbc", "vegas-mbc", "deadline"];

/// §5.3: Jain's index "over the DA-LBE flow's active period" with two flows; for an
/// on-time flow that leaves BE the rest of the 90 Mbit/s: (1625+5125)²/(2(1625²+5125²)).
pub fn predicted_jain() -> f64 {
    let total = (RATE_MBPS - NOISE_MBPS) as f64 * 1e6 / 8.0 * LONG_DEADLINE_S as f64 / 1e6;
    let (x, y) = (SIZE_MB as f64, total - SIZE_MB as f64);
    (x + y).powi(2) / (2.0 * (x * x + y * y))
}

/// The DA-LBE flow of `controller`: the base algorithm it controls, with its parameters.
fn dalbe_flow(controller: &str, start: u64, deadline: u32) -> FlowBuilder {
    let flow = match controller {
        // §5.1.2: "The α and β parameters are both set to 16".
        "vegas-mbc" => FlowBuilder::tcp("dalbe", "vegas")
            .param("alpha", 16)
            .param("beta", 16),
        _ => FlowBuilder::tcp("dalbe", "cubic"),
    };
    flow.start(secs(start))
        .size_bytes(SIZE_MB * 1_000_000)
        .deadline(secs(deadline.into()), controller)
}

fn secs(s: u64) -> Dur {
    Dur::from_secs(s)
}

/// §4.1's testbed: the link and the Poisson UDP noise.
fn testbed(name: &str, run_s: u64) -> ScenarioBuilder {
    ScenarioBuilder::new(name, secs(run_s))
        .link(
            LinkBuilder::new(Rate::from_mbps(RATE_MBPS), Dur::from_millis(ONE_WAY_MS))
                .buffer(Buffer::Packets(BUFFER_PKTS as u32)),
        )
        .flow(FlowBuilder::cbr(
            "noise",
            Rate::from_mbps(NOISE_MBPS),
            1472,
            true,
        ))
}

pub fn long_id(controller: &str) -> String {
    format!("long/{controller}")
}

pub fn short_id(controller: &str) -> String {
    format!("short/{controller}")
}

fn build(id: &str, group: &str, controller: &str, scenario: ScenarioBuilder) -> Experiment {
    let scenario = scenario
        .build()
        .unwrap_or_else(|e| panic!("study scenario {id} is invalid: {e}"));
    Experiment {
        id: id.to_string(),
        group: group.to_string(),
        mechanism: controller.to_string(),
        scenario,
    }
}

/// Table 5.2. Jain group 0: the two TCP flows over the DA-LBE flow's active period, taken
/// as its start to its deadline (10–610 s; a run-specific window is not possible).
fn long_term(controller: &str) -> Experiment {
    let id = long_id(controller);
    let sc = testbed(&id, LONG_RUN_S)
        .flow(FlowBuilder::tcp("be", "cubic"))
        .flow(dalbe_flow(controller, LONG_START_S, LONG_DEADLINE_S))
        .jain(
            "active",
            &["be", "dalbe"],
            secs(LONG_START_S),
            secs(LONG_START_S + LONG_DEADLINE_S as u64),
        );
    build(
        &id,
        "long term: one BE CUBIC flow, 1625 MB due in 600 s",
        controller,
        sc,
    )
}

/// §5.1's points of interest as Jain groups of the DA-LBE flow alone (its goodput per
/// window): 0 = the idle gap 1000–1010 s, 1 = the 10 s before it, 2 = the 10 s after BE 1
/// leaves at 600 s, 3 = the 10 s before that.
pub const GAP: usize = 0;
pub const BEFORE_GAP: usize = 1;
pub const AFTER_600: usize = 2;
pub const BEFORE_600: usize = 3;

fn short_term(controller: &str) -> Experiment {
    let id = short_id(controller);
    let mut sc = testbed(&id, SHORT_RUN_S);
    for (i, (start, end)) in SHORT_BE.iter().enumerate() {
        let mut be = FlowBuilder::tcp(&format!("be.{}", i + 1), "cubic").start(secs(*start));
        if *end < SHORT_RUN_S {
            be = be.stop(secs(*end));
        }
        sc = sc.flow(be);
    }
    sc = sc.flow(dalbe_flow(controller, SHORT_START_S, SHORT_DEADLINE_S));
    for (name, from) in [
        ("idle gap", 1000),
        ("before the gap", 990),
        ("after 600 s", 600),
        ("before 600 s", 590),
    ] {
        sc = sc.jain(name, &["dalbe"], secs(from), secs(from + 10));
    }
    build(
        &id,
        "short term: six BE CUBIC flows come and go, 1625 MB due in 1300 s",
        controller,
        sc,
    )
}

fn margin(deadline: u32) -> Metric {
    Metric::DeadlineMargin("dalbe", deadline)
}

pub fn long_margin() -> Metric {
    margin(LONG_DEADLINE_S)
}

pub fn short_margin() -> Metric {
    margin(SHORT_DEADLINE_S)
}

fn published() -> Vec<Published> {
    let p = |source: &'static str, c: &str, metric: Metric, value: f64| {
        Published::new(source, long_id(c), metric, None, value)
    };
    vec![
        // Table 5.4, testbed rows: median completion minus deadline (s). Vegas: the runs
        // were killed (+119 s); ours stop at 720 s, i.e. +110 s for an unfinished flow.
        p("Table 5.4", "cubic-mbc", long_margin(), -6.0),
        p("Table 5.4", "vegas-mbc", long_margin(), 119.0),
        // Table 5.3, testbed rows: median Jain's index.
        p("Table 5.3", "cubic-mbc", Metric::JainAt(0), 0.773),
        p("Table 5.3", "vegas-mbc", Metric::JainAt(0), 0.684),
    ]
}

fn not_run(what: &str) -> ClaimOutcome {
    ClaimOutcome {
        holds: None,
        evidence: format!("not run: needs {what}"),
    }
}

fn med(r: &Results, exp: &str, m: Metric) -> Result<f64, ClaimOutcome> {
    r.median(exp, m).ok_or_else(|| not_run(exp))
}

fn values(r: &Results, exp: &str, m: Metric) -> Result<Vec<f64>, ClaimOutcome> {
    let v = r.values(exp, m);
    if v.is_empty() {
        Err(not_run(exp))
    } else {
        Ok(v)
    }
}

fn sample_stdev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

fn lateness_summary(v: &[f64]) -> String {
    let late = v.iter().filter(|&&x| x > 0.0).count();
    let worst = v.iter().copied().fold(f64::MIN, f64::max);
    format!(
        "median {:+.1} s, worst {worst:+.1} s, {late} of {} late",
        median(v).expect("non-empty"),
        v.len()
    )
}

fn claims() -> Vec<Claim> {
    vec![
        Claim::fallible("Table 5.4, §5.3", "Long term: DA-LBE CUBIC usually meets the deadline; the few late runs miss it by seconds (testbed: median −6.0 s, 6 of 50 late, at most +6.7 s). Checked: at most a quarter of the runs late, none by more than 15 s", |r| {
            let v = values(r, &long_id("cubic-mbc"), long_margin())?;
            let late = v.iter().filter(|&&x| x > 0.0).count();
            let worst = v.iter().copied().fold(f64::MIN, f64::max);
            Ok(ClaimOutcome { holds: Some(late as f64 <= 0.25 * v.len() as f64 && worst <= 15.0), evidence: lateness_summary(&v) })
        }),
        Claim::fallible("Table 5.3, §5.3", "Long term: DA-LBE CUBIC's Jain's index is almost exactly the 0.788 an on-time LBE flow gives (testbed 0.773, stdev 0.002). Checked: median within 0.03 of 0.788, stdev below 0.02", |r| {
            let v = values(r, &long_id("cubic-mbc"), Metric::JainAt(0))?;
            let (m, sd, want) = (median(&v).expect("non-empty"), sample_stdev(&v), predicted_jain());
            Ok(ClaimOutcome { holds: Some((m - want).abs() <= 0.03 && sd < 0.02), evidence: format!("median {m:.3} (predicted {want:.3}), stdev {sd:.3} over {} runs", v.len()) })
        }),
        Claim::fallible("Table 5.4, §5.3", "Long term: DA-LBE Vegas is late in every run on the testbed (it cannot compete with CUBIC's standing queue)", |r| {
            let v = values(r, &long_id("vegas-mbc"), long_margin())?;
            Ok(ClaimOutcome { holds: Some(v.iter().all(|&x| x > 0.0)), evidence: lateness_summary(&v) })
        }),
        Claim::fallible("Table 5.3, §6", "Long term: DA-LBE Vegas stays LBE (Jain's index below DA-LBE CUBIC's and below the 0.788 of an on-time flow)", |r| {
            let (v, c) = (med(r, &long_id("vegas-mbc"), Metric::JainAt(0))?, med(r, &long_id("cubic-mbc"), Metric::JainAt(0))?);
            Ok(ClaimOutcome { holds: Some(v < c && v < predicted_jain()), evidence: format!("median Jain: Vegas {v:.3}, CUBIC {c:.3}") })
        }),
        Claim::fallible("§5.1.1", "Short term: DA-LBE CUBIC sends slightly above its target and finishes before the deadline (ahead of schedule)", |r| {
            let v = values(r, &short_id("cubic-mbc"), short_margin())?;
            Ok(ClaimOutcome { holds: Some(v.iter().all(|&x| x < 0.0)), evidence: lateness_summary(&v) })
        }),
        Claim::fallible("§5.1.1, §5.1.3", "Short term: DA-LBE CUBIC does not exploit the idle gap at 1000–1010 s (its goodput there at most 25 % above the 10 s before)", |r| {
            let e = short_id("cubic-mbc");
            let (g, b) = (med(r, &e, Metric::WinUtil(GAP, "dalbe"))?, med(r, &e, Metric::WinUtil(BEFORE_GAP, "dalbe"))?);
            Ok(ClaimOutcome { holds: Some(g <= 1.25 * b), evidence: format!("DA-LBE goodput 990–1000 s {b:.1} %, 1000–1010 s {g:.1} % of capacity") })
        }),
        Claim::fallible("§5.1.2", "Short term: DA-LBE Vegas sends faster in the lulls at 600 s and 1000 s (goodput over the 10 s after each at least 25 % above the 10 s before)", |r| {
            let e = short_id("vegas-mbc");
            let w = |i| med(r, &e, Metric::WinUtil(i, "dalbe"));
            let (g, b, a6, b6) = (w(GAP)?, w(BEFORE_GAP)?, w(AFTER_600)?, w(BEFORE_600)?);
            Ok(ClaimOutcome { holds: Some(g >= 1.25 * b && a6 >= 1.25 * b6), evidence: format!("590–600 s {b6:.1} %, 600–610 s {a6:.1} %; 990–1000 s {b:.1} %, 1000–1010 s {g:.1} % of capacity") })
        }),
        Claim::fallible("§5.1.2.3, §5.1.3", "Short term: DA-LBE Vegas never consistently reaches its target and misses the deadline", |r| {
            let v = values(r, &short_id("vegas-mbc"), short_margin())?;
            Ok(ClaimOutcome { holds: Some(v.iter().all(|&x| x > 0.0)), evidence: lateness_summary(&v) })
        }),
        Claim::fallible("docs/dalbe.md §4 (ours)", "Our `deadline` controller meets every deadline, short and long term, while staying LBE in the long term (Jain's index at most the 0.788 of an on-time flow plus 0.03)", |r| {
            let l = values(r, &long_id("deadline"), long_margin())?;
            let s = values(r, &short_id("deadline"), short_margin())?;
            let j = med(r, &long_id("deadline"), Metric::JainAt(0))?;
            let ok = l.iter().chain(&s).all(|&x| x <= 0.0) && j <= predicted_jain() + 0.03;
            Ok(ClaimOutcome { holds: Some(ok), evidence: format!("long: {}; short: {}; long-term Jain {j:.3}", lateness_summary(&l), lateness_summary(&s)) })
        }),
    ]
}

pub fn study(quick: bool) -> StudyDef {
    let mut ex: Vec<Experiment> = CONTROLLERS.iter().map(|c| long_term(c)).collect();
    // Quick: the long-term scenario for every controller and the short-term one for the
    // thesis's CUBIC controller (a 2000 s run each).
    for c in CONTROLLERS.iter().filter(|c| !quick || **c == "cubic-mbc") {
        ex.push(short_term(c));
    }
    StudyDef {
        name: "wallenburg2018",
        title: "Wallenburg 2018: deadline-aware LBE (DA-LBE CUBIC, DA-LBE Vegas and ours) on the emulated testbed, short and long term",
        quick,
        experiments: ex,
        // §5.3: "50 runs" per configuration; the short-term scenario ran once (§5.1).
        seeds: if quick { (1..=3).collect() } else { (1..=50).collect() },
        published: published(),
        claims: claims(),
        notes: vec![
            "Testbed of §4.1: 100 Mbit/s, 15 ms each way, 250-packet tail-drop FIFO, plus 10 Mbit/s of Poisson UDP noise (1500-byte packets) through the whole run. The Internet (Cork) runs are not modelled.",
            "The thesis's controllers with the defaults of docs/dalbe.md (cubic-mbc over CUBIC; vegas-mbc over Vegas with α = β = 16); `deadline` is ours, over CUBIC.",
            "Deadline margin: completion minus deadline (negative = early). An unfinished flow counts as finishing at the end of the run (720 s long term: +110 s; the thesis's killed runs read +119 s).",
            "Long-term Jain's index over 10–610 s (the DA-LBE flow's start to its deadline), with the two TCP flows; the thesis used each run's active period.",
            "Short-term windows (DA-LBE goodput as % of capacity): 0 = 1000–1010 s (idle gap), 1 = 990–1000 s, 2 = 600–610 s, 3 = 590–600 s. The thesis ran the short-term scenario once; we run it with every seed.",
        ],
        table: vec![long_margin(), short_margin(), Metric::JainAt(0), Metric::Goodput("dalbe"), Metric::Goodput("be"), Metric::RttMean("dalbe"), Metric::QdelayMean, Metric::LinkUtil],
        cv: vec![Metric::JainAt(0)],
        plots: vec![
            Plot::Scatter { heading: "DA-LBE goodput against the goodput of a best-effort flow", x: Metric::Goodput("dalbe"), y: Metric::Goodput("be"), pantheon: false },
            Plot::Cdf { heading: "Distribution over runs of the completion time minus 600 s (the long-term deadline)", metric: long_margin() },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicted_jain_is_the_thesis_value() {
        // §5.3: J = (1625 + 5125)² / (2(1625² + 5125²)) ≈ 0.788.
        assert!(
            (predicted_jain() - 0.788).abs() < 0.001,
            "{}",
            predicted_jain()
        );
    }

    #[test]
    fn the_long_term_target_rate_is_21_67_mbit() {
        // Table 5.2: 1625 MB in 600 s needs 21.67 Mbit/s.
        let rate = SIZE_MB as f64 * 8.0 / LONG_DEADLINE_S as f64;
        assert!((rate - 21.67).abs() < 0.01);
    }
}
