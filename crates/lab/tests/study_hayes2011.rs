//! The hayes2011 study (Hayes & Armitage 2011, CDG): its experiments are the
//! paper's set-up (§4, Fig 3), its published numbers name experiments it runs, and two of
//! its claims hold on a short run.

use scavenger_cc::algorithms::cdg::{CdgConfig, Variant};
use scavenger_cc::units::Dur;
use scavenger_lab::scenario::Buffer;
use scavenger_lab::study::hayes2011::{e1_id, e2_id, e3_id, e4_id, E3_FLOWS};
use scavenger_lab::study::{study, Results, StudyDef};
use scavenger_net::delay::Jitter;
use scavenger_net::loss::LossModel;
use std::collections::{BTreeMap, HashSet};

fn full() -> StudyDef {
    study("hayes2011", false).unwrap()
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
    assert_eq!(ids.len(), f.experiments.len(), "experiment ids are unique");
    // E1: 7 loss rates × (NewReno, Vegas, CDG, CDG with delayed ACKs); E2: 2 kinds × 2
    // losses; E3: 2 losses; E4: 2 kinds × 2 orders.
    assert_eq!(f.experiments.len(), 7 * 4 + 4 + 2 + 4);
    assert_eq!(
        f.seeds.len(),
        10,
        "§4: each experiment is repeated 10 times"
    );
    for p in &f.published {
        assert!(
            ids.contains(p.experiment.as_str()),
            "{} names {}",
            p.source,
            p.experiment
        );
        if let Some(r) = &p.relative_to {
            assert!(ids.contains(r.as_str()), "{} relative to {r}", p.source);
        }
    }
    // The text's numbers: 65 % and 35 % at 1 % loss (+86 %), 24 % (Fig 8a), 30 % × 4 (Fig 9).
    assert_eq!(f.published.len(), 8);
    let q = study("hayes2011", true).unwrap();
    assert!(q.experiments.len() < f.experiments.len());
    for e in &q.experiments {
        let g = f
            .experiments
            .iter()
            .find(|g| g.id == e.id)
            .unwrap_or_else(|| panic!("{} not in the full study", e.id));
        assert_eq!(
            scavenger_lab::work::item_key(&g.scenario, 1),
            scavenger_lab::work::item_key(&e.scenario, 1),
            "{}",
            e.id
        );
    }
    // Quick still runs every published number's experiment.
    let qids: HashSet<&str> = q.experiments.iter().map(|e| e.id.as_str()).collect();
    assert!(q
        .published
        .iter()
        .all(|p| qids.contains(p.experiment.as_str())));
}

#[test]
fn scenarios_are_the_papers_testbed() {
    let f = full();
    for e in &f.experiments {
        let l = &e.scenario.link;
        // §4: 10 Mbit/s, 20 ms each way, an 84-packet queue.
        assert_eq!(l.rate.bps(), 10_000_000, "{}", e.id);
        assert_eq!(l.delay, Dur::from_millis(20), "{}", e.id);
        assert_eq!(l.buffer, Buffer::Packets(84), "{}", e.id);
        // Random loss on the forward (data) path only.
        assert_eq!(l.reverse_loss, LossModel::None, "{}", e.id);
        // Testbed timing noise (our choice): ±0.5 ms each way, order kept.
        assert_eq!(
            l.jitter,
            Jitter::Uniform {
                amount: Dur::from_micros(500),
                preserve_order: true
            },
            "{}",
            e.id
        );
        for fl in e.scenario.flows.iter().filter(|fl| fl.algorithm == "cdg") {
            // §4: a = 8, G = 3, b = 5, b' = 5; §3.5: β = 0.7; the paper's algorithm.
            let p = CdgConfig::try_from(&fl.params).unwrap();
            assert_eq!(p.variant, Variant::Paper, "{}", e.id);
            assert_eq!(
                (p.window, p.use_ineff, p.hold_backoff),
                (8, 5, 5),
                "{}",
                e.id
            );
            assert_eq!(
                (p.exp_backoff_scale, p.backoff_beta),
                (3.0, 0.7),
                "{}",
                e.id
            );
        }
    }
    assert_eq!(
        exp(&f, &e1_id(1.0, "cdg")).link.loss,
        LossModel::Bernoulli { p: 0.01 }
    );
    assert_eq!(
        exp(&f, &e1_id(0.1, "newreno")).link.loss,
        LossModel::Bernoulli { p: 0.001 }
    );
    assert_eq!(exp(&f, &e2_id("cdg", 0.0)).link.loss, LossModel::None);
    assert_eq!(
        exp(&f, &e2_id("newreno", 0.01)).link.loss,
        LossModel::Bernoulli { p: 0.01 }
    );
    // E2: three 60 s flows from 0, 20, 40 s.
    let e2 = exp(&f, &e2_id("newreno", 0.0));
    let times: Vec<(u64, u64)> = e2
        .flows
        .iter()
        .map(|fl| {
            (
                fl.start.secs_f64() as u64,
                fl.stop.unwrap().secs_f64() as u64,
            )
        })
        .collect();
    assert_eq!(times, vec![(0, 60), (20, 80), (40, 100)]);
    // E3: CDG, NewReno, NewReno, CDG, 80 s each, 20 s apart.
    let e3 = exp(&f, &e3_id(0.0));
    let order: Vec<&str> = e3.flows.iter().map(|fl| fl.algorithm.as_str()).collect();
    assert_eq!(order, vec!["cdg", "newreno", "newreno", "cdg"]);
    assert_eq!(
        e3.flows
            .iter()
            .map(|fl| fl.name.as_str())
            .collect::<Vec<_>>(),
        E3_FLOWS.to_vec()
    );
    let times: Vec<(u64, u64)> = e3
        .flows
        .iter()
        .map(|fl| {
            (
                fl.start.secs_f64() as u64,
                fl.stop.unwrap().secs_f64() as u64,
            )
        })
        .collect();
    assert_eq!(times, vec![(0, 80), (20, 100), (40, 120), (60, 140)]);
    // Window 1 (Fig 8a's 24 %) is 20–40 s with the first CDG and first NewReno flows.
    assert_eq!(
        (e3.jain[1].from, e3.jain[1].to),
        (Dur::from_secs(20), Dur::from_secs(40))
    );
    assert_eq!(
        e3.jain[1].flows,
        vec!["cdg.1".to_string(), "newreno.1".to_string()]
    );
    // E4: the 70 ms flow adds 15 ms each way to the 20 ms link; 60 s each, 20 s apart.
    for (alg, long_first) in [("cdg", false), ("newreno", true)] {
        let e = exp(&f, &e4_id(alg, long_first));
        let long = e.flows.iter().find(|fl| fl.name == "long").unwrap();
        let short = e.flows.iter().find(|fl| fl.name == "short").unwrap();
        let one_way = e.link.delay + long.extra_delay;
        assert_eq!(one_way + one_way, Dur::from_millis(70));
        assert_eq!(short.extra_delay, Dur::ZERO);
        let (first, second) = if long_first {
            (long, short)
        } else {
            (short, long)
        };
        assert_eq!((first.start, second.start), (Dur::ZERO, Dur::from_secs(20)));
        assert_eq!(second.stop.unwrap() - second.start, Dur::from_secs(60));
    }
}

/// Runs `ids` of the full study at `seeds` and evaluates the claim whose text starts with
/// `prefix`.
fn claim_on(ids: &[String], seeds: &[u64], prefix: &str) -> (Option<bool>, String) {
    let f = full();
    let mut runs = BTreeMap::new();
    for id in ids {
        let sc = exp(&f, id);
        runs.insert(
            id.clone(),
            seeds
                .iter()
                .map(|&s| (s, scavenger_lab::run_scenario(sc, s).metrics))
                .collect::<Vec<_>>(),
        );
    }
    let r = Results::new(runs);
    let c = f
        .claims
        .iter()
        .find(|c| c.text.starts_with(prefix))
        .unwrap_or_else(|| panic!("no claim {prefix}"));
    let o = (c.check)(&r);
    (o.holds, o.evidence)
}

#[test]
fn cdg_tolerates_random_loss_better_than_newreno_and_vegas() {
    let ids: Vec<String> = ["cdg", "newreno", "vegas"]
        .iter()
        .map(|a| e1_id(1.0, a))
        .collect();
    let (holds, ev) = claim_on(&ids, &[1, 2, 3], "CDG tolerates non-congestion loss");
    assert_eq!(holds, Some(true), "{ev}");
}

#[test]
fn newreno_fills_the_queue_and_cdg_does_not() {
    let ids = vec![e2_id("newreno", 0.0), e2_id("cdg", 0.0)];
    let (holds, ev) = claim_on(&ids, &[1], "NewReno fills the queue");
    assert_eq!(holds, Some(true), "{ev}");
}
