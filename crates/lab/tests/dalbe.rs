//! Deadline-aware LBE in the simulator: Wallenburg 2018's long-term experiment (§9.2, Table 5.2):
//! a DA-LBE flow of 1625 MB due 600 s after it starts (at 10 s) against one CUBIC flow
//! on 100 Mbit/s, 30 ms RTT, a 250-packet FIFO. The thesis's testbed (Tables 5.3/5.4):
//! CUBIC-based controller median −6.0 s, worst +6.7 s, 6/50 late, Jain 0.773; the
//! Vegas-based controller late in 50/50 runs.

use scavenger_lab::exec::{Executor, LocalExecutor};
use scavenger_lab::work::WorkItem;
use scavenger_lab::{load, Scenario};
use std::path::Path;

const DUE_S: f64 = 610.0;

fn example(c: &str) -> Scenario {
    load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../examples/dalbe/long-term-{c}.toml")),
    )
    .unwrap()
}

struct Outcome {
    /// Completion minus deadline per seed (s); unfinished runs count as the end of the run.
    lateness: Vec<f64>,
    jain: Vec<f64>,
    goodput_bps: Vec<f64>,
}

fn run(sc: &Scenario, seeds: std::ops::RangeInclusive<u64>) -> Outcome {
    let items: Vec<WorkItem> = seeds
        .map(|s| WorkItem::new("dalbe", sc.clone(), s))
        .collect();
    let mut o = Outcome {
        lateness: vec![],
        jain: vec![],
        goodput_bps: vec![],
    };
    LocalExecutor {
        threads: 2,
        progress: false,
        ..LocalExecutor::new(false)
    }
    .execute(items, &mut |_, rec| {
        let f = rec
            .metrics
            .flows
            .iter()
            .find(|f| f.name == "dalbe")
            .expect("dalbe flow");
        o.lateness
            .push(f.completed_at_s.unwrap_or(sc.duration.secs_f64()) - DUE_S);
        o.jain.push(rec.metrics.jain[0].index);
        o.goodput_bps.push(f.goodput_bps);
        Ok(())
    })
    .unwrap()
    .unwrap();
    o
}

fn median(xs: &[f64]) -> f64 {
    scavenger_lab::study::median(xs).unwrap()
}

#[test]
fn cubic_model_based_controller_meets_the_deadline_like_the_testbed() {
    let o = run(&example("cubic-mbc"), 1..=20);
    let m = median(&o.lateness);
    assert!(
        m.abs() <= 30.0,
        "median completion minus deadline {m:.1} s: {:?}",
        o.lateness
    );
    let j = median(&o.jain);
    assert!(j <= 0.85, "median Jain {j:.3}");
}

#[test]
fn vegas_model_based_controller_misses_the_deadline_as_on_the_testbed() {
    // Wallenburg 2018 §9.2: late in all 50 testbed runs against CUBIC on a tail-drop FIFO.
    let o = run(&example("vegas-mbc"), 1..=3);
    assert!(o.lateness.iter().all(|&l| l > 30.0), "{:?}", o.lateness);
}

#[test]
fn our_deadline_controller_is_never_late_and_never_above_best_effort() {
    let sc = example("deadline");
    let o = run(&sc, 1..=20);
    let worst = o.lateness.iter().cloned().fold(f64::MIN, f64::max);
    assert!(
        worst <= 10.0,
        "worst lateness {worst:.1} s: {:?}",
        o.lateness
    );
    // The same flow as plain CUBIC, in its place.
    let mut plain = sc.clone();
    for f in &mut plain.flows {
        f.dalbe = None;
        f.deadline = None;
    }
    let p = run(&plain, 1..=1);
    let best_effort = p.goodput_bps[0];
    for g in &o.goodput_bps {
        assert!(
            *g <= best_effort * 1.01,
            "DA-LBE goodput {g} above plain CUBIC's {best_effort}"
        );
    }
}

#[test]
fn a_user_metacontroller_from_a_scenario_yields_in_working_hours_only() {
    // examples/dalbe/working-hours.toml: the run starts at 17:58; LBE until 18:00.
    let sc = load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dalbe/working-hours.toml"),
    )
    .unwrap();
    let rec = scavenger_lab::run_scenario(&sc, 1);
    let s = rec.metrics.series.unwrap();
    let backup = &s.flow_goodput_bps[1];
    // Bins of 10 s: 20-110 s inside working hours, 150-240 s outside.
    let inside: f64 = backup[2..11].iter().sum::<f64>() / 9.0;
    let outside: f64 = backup[15..24].iter().sum::<f64>() / 9.0;
    assert!(
        outside > 2.0 * inside,
        "backup {inside:.0} bit/s in hours, {outside:.0} after"
    );
}

#[test]
fn dalbe_settings_are_checked() {
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dalbe/long-term-deadline.toml"),
    )
    .unwrap();
    let e = scavenger_lab::parse(
        "x.toml",
        &base.replace("controller = \"deadline\"", "controller = \"oracle\""),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("flow[1].dalbe.controller") && e.contains("oracle") && e.contains("cubic-mbc"),
        "{e}"
    );
    let e = scavenger_lab::parse("x.toml", &base.replace("deadline = \"600s\"\n", ""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("flow[1].dalbe") && e.contains("deadline"), "{e}");
    let e = scavenger_lab::parse("x.toml", &base.replace("size = \"1625MB\"\n", ""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("flow[1].deadline") && e.contains("size"), "{e}");
}

#[test]
fn short_term_scenario_uses_the_idle_gap_and_meets_the_deadline() {
    // Wallenburg 2018 §9.1: six CUBIC flows come and go over Poisson UDP noise; none runs at
    // 1000-1010 s. The flow (1625 MB, due at 1700 s) should speed up in that gap. How much
    // it does depends on the seed: phantom ECN is suppressed only once the time since the
    // last real congestion event passes v times its average interval, so the gap's first
    // seconds are chaotic. Gap goodput over the 800-1000 s mean, seeds 1-6: 2.02, 0.91,
    // 4.59, 2.27, 1.31, 1.89 before the sender found original transmissions lost by RACK's
    // time order and ran PRR as Linux 6.x, 1.67, 1.84, 1.48, 1.55, 1.25, 2.86 since
    // (docs/validation.md#rack-originals).
    // One seed is a coin toss, so the median of three is held.
    let sc = load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/dalbe/short-term-cubic-mbc.toml"),
    )
    .unwrap();
    let runs: Vec<(Option<f64>, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..=3u64)
            .map(|seed| {
                let sc = &sc;
                scope.spawn(move || {
                    let rec = scavenger_lab::run_scenario(sc, seed);
                    let i = rec
                        .metrics
                        .flows
                        .iter()
                        .position(|f| f.name == "dalbe")
                        .unwrap();
                    let s = rec.metrics.series.as_ref().unwrap();
                    let bin = |t: f64| s.time_s.iter().position(|&x| (x - t).abs() < 1e-9).unwrap();
                    let gap = s.flow_goodput_bps[i][bin(1010.0)];
                    let before: f64 = s.flow_goodput_bps[i][bin(810.0)..=bin(1000.0)]
                        .iter()
                        .sum::<f64>()
                        / 20.0;
                    (rec.metrics.flows[i].completed_at_s, gap / before)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (seed, (done, _)) in runs.iter().enumerate() {
        assert!(
            done.is_some_and(|t| t <= 1700.0),
            "seed {}: completed at {done:?}",
            seed + 1
        );
    }
    let mut ratios: Vec<f64> = runs.iter().map(|r| r.1).collect();
    ratios.sort_by(f64::total_cmp);
    assert!(
        ratios[1] > 1.25,
        "gap goodput over the 800-1000 s mean, seeds 1-3 (sorted): {ratios:.2?}"
    );
}
