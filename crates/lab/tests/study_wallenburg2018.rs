//! The wallenburg2018 study (Wallenburg 2018, Libdalbe): its experiments are the
//! thesis's testbed scenarios (§4.1, Tables 5.1 and 5.2), its published numbers name
//! experiments it runs, and its long-term claims can be evaluated on a short run.

use scavenger_cc::algorithms::vegas::VegasConfig;
use scavenger_cc::units::Dur;
use scavenger_lab::scenario::{Buffer, FlowKind};
use scavenger_lab::study::wallenburg2018::{long_id, long_margin, short_id, CONTROLLERS, SHORT_BE};
use scavenger_lab::study::{study, Metric, Results, StudyDef};
use std::collections::{BTreeMap, HashSet};

fn full() -> StudyDef {
    study("wallenburg2018", false).unwrap()
}

fn exp<'a>(d: &'a StudyDef, id: &str) -> &'a scavenger_lab::Scenario {
    &d.experiment(id)
        .unwrap_or_else(|| panic!("no experiment {id}"))
        .scenario
}

#[test]
fn ids_unique_published_numbers_named_quick_subset_of_full() {
    let f = full();
    let ids: HashSet<&str> = f.experiments.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), f.experiments.len());
    assert_eq!(f.experiments.len(), 2 * CONTROLLERS.len());
    // §5.3: "50 runs" per configuration.
    assert_eq!(f.seeds.len(), 50);
    for p in &f.published {
        assert!(
            ids.contains(p.experiment.as_str()),
            "{} names {}",
            p.source,
            p.experiment
        );
    }
    let q = study("wallenburg2018", true).unwrap();
    let qids: HashSet<&str> = q.experiments.iter().map(|e| e.id.as_str()).collect();
    assert!(q.experiments.len() < f.experiments.len());
    for e in &q.experiments {
        let g = f
            .experiments
            .iter()
            .find(|g| g.id == e.id)
            .unwrap_or_else(|| panic!("{} not in the full study", e.id));
        assert_eq!(
            scavenger_lab::work::item_key(&g.scenario, 1),
            scavenger_lab::work::item_key(&e.scenario, 1)
        );
    }
    assert!(
        q.published
            .iter()
            .all(|p| qids.contains(p.experiment.as_str())),
        "quick runs every published number's experiment"
    );
}

#[test]
fn scenarios_are_the_thesis_testbed() {
    let f = full();
    for e in &f.experiments {
        let l = &e.scenario.link;
        // §4.1: 100 Mbit/s, 30 ms RTT, a 1-BDP (250-packet) FIFO.
        assert_eq!(l.rate.bps(), 100_000_000, "{}", e.id);
        assert_eq!(l.delay + l.delay, Dur::from_millis(30), "{}", e.id);
        assert_eq!(l.buffer, Buffer::Packets(250), "{}", e.id);
        // 100e6 b/s × 30 ms / (1500 B × 8) = 250 packets.
        assert_eq!(100_000_000u64 * 30 / 1000 / (1500 * 8), 250);
        // §5.1: UDP noise of about 10 Mbit/s with exponential inter-departure times.
        let noise = e
            .scenario
            .flows
            .iter()
            .find(|fl| fl.name == "noise")
            .expect("noise");
        match noise.kind {
            FlowKind::Cbr {
                rate,
                poisson,
                packet_size,
            } => {
                assert_eq!(rate.bps(), 10_000_000);
                assert!(poisson);
                assert_eq!(packet_size, 1472, "MTU-sized datagrams");
            }
            _ => panic!("noise is not a datagram flow"),
        }
        let d = e
            .scenario
            .flows
            .iter()
            .find(|fl| fl.name == "dalbe")
            .expect("DA-LBE flow");
        // Tables 5.1/5.2: 1625 MB (21.67 Mbit/s over 600 s, so 10^6-byte MB).
        assert_eq!(d.size_bytes, Some(1_625_000_000), "{}", e.id);
        let ctrl = &d.dalbe.as_ref().expect("controlled").controller;
        assert_eq!(
            d.algorithm,
            if ctrl == "vegas-mbc" {
                "vegas"
            } else {
                "cubic"
            },
            "{}",
            e.id
        );
        if ctrl == "vegas-mbc" {
            // §5.1.2: α = β = 16.
            let vegas = VegasConfig::try_from(&d.params).unwrap();
            assert_eq!((vegas.alpha, vegas.beta), (16, 16));
        }
    }
    for c in CONTROLLERS {
        // Table 5.2: BE CUBIC 0–720 s; DA-LBE from 10 s, due 600 s later.
        let l = exp(&f, &long_id(c));
        assert_eq!(l.duration, Dur::from_secs(720));
        let d = l.flows.iter().find(|fl| fl.name == "dalbe").unwrap();
        assert_eq!(
            (d.start, d.deadline),
            (Dur::from_secs(10), Some(Dur::from_secs(600)))
        );
        let be = l.flows.iter().find(|fl| fl.name == "be").unwrap();
        assert_eq!(
            (be.algorithm.as_str(), be.start, be.stop),
            ("cubic", Dur::ZERO, None)
        );
        assert_eq!(
            (l.jain[0].from, l.jain[0].to),
            (Dur::from_secs(10), Dur::from_secs(610))
        );
        // Table 5.1: DA-LBE from 400 s with a 1300 s deadline; six BE CUBIC flows.
        let s = exp(&f, &short_id(c));
        let d = s.flows.iter().find(|fl| fl.name == "dalbe").unwrap();
        assert_eq!(
            (d.start, d.deadline),
            (Dur::from_secs(400), Some(Dur::from_secs(1300)))
        );
        let be: Vec<(u64, u64)> = s
            .flows
            .iter()
            .filter(|fl| fl.name.starts_with("be."))
            .map(|fl| {
                (
                    fl.start.secs_f64() as u64,
                    fl.stop
                        .map_or(s.duration.secs_f64() as u64, |x| x.secs_f64() as u64),
                )
            })
            .collect();
        assert_eq!(be, SHORT_BE.to_vec());
        assert_eq!(
            SHORT_BE,
            [
                (0, 600),
                (200, 1000),
                (800, 1000),
                (1010, 1600),
                (1200, 2000),
                (1400, 1800)
            ]
        );
    }
}

#[test]
fn long_term_claims_on_one_run() {
    // One run of each thesis controller in the long-term scenario.
    let f = full();
    let mut runs = BTreeMap::new();
    for c in ["cubic-mbc", "vegas-mbc"] {
        let id = long_id(c);
        runs.insert(
            id.clone(),
            vec![(1, scavenger_lab::run_scenario(exp(&f, &id), 1).metrics)],
        );
    }
    let r = Results::new(runs);
    let cubic = r.median(&long_id("cubic-mbc"), long_margin()).unwrap();
    assert!(
        cubic.abs() <= 30.0,
        "DA-LBE CUBIC completion minus deadline {cubic:.1} s"
    );
    let vegas = r.median(&long_id("vegas-mbc"), long_margin()).unwrap();
    assert!(
        vegas > 30.0,
        "DA-LBE Vegas completion minus deadline {vegas:.1} s"
    );
    let check = |prefix: &str| {
        let c = f
            .claims
            .iter()
            .find(|c| c.text.starts_with(prefix))
            .unwrap_or_else(|| panic!("no claim {prefix}"));
        let o = (c.check)(&r);
        (o.holds, o.evidence)
    };
    let (h, ev) = check("Long term: DA-LBE Vegas is late in every run");
    assert_eq!(h, Some(true), "{ev}");
    let (h, ev) = check("Long term: DA-LBE Vegas stays LBE");
    assert_eq!(h, Some(true), "{ev}");
    // The short-term claims need runs this test does not make.
    let (h, _) = check("Short term: DA-LBE CUBIC sends slightly above");
    assert_eq!(h, None);
    // The margin of an unfinished flow is the end of the run minus its due time (720 − 610).
    let vegas_flow = r.runs[&long_id("vegas-mbc")][0]
        .1
        .flows
        .iter()
        .find(|fl| fl.name == "dalbe")
        .unwrap()
        .clone();
    if vegas_flow.completed_at_s.is_none() {
        assert!((vegas - 110.0).abs() < 1e-9, "{vegas}");
    }
    let jain = r.median(&long_id("vegas-mbc"), Metric::JainAt(0)).unwrap();
    assert!(jain < 0.788, "{jain}");
}
