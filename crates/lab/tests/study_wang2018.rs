//! The wang2018 study (Wang 2018, chapter 5): its experiments are the thesis's set-ups,
//! its published numbers name experiments it runs, and two of its claims evaluated on
//! short simulations.

use scavenger_cc::algorithms::evarate::EvaRateConfig;
use scavenger_cc::Dur;
use scavenger_lab::scenario::{Buffer, Scenario};
use scavenger_lab::study::wang2018::{self, mix_id, Buf};
use scavenger_lab::study::{Results, StudyDef};
use scavenger_net::{LossModel, QdiscConfig};
use std::collections::{BTreeMap, HashSet};

fn exp<'a>(s: &'a StudyDef, id: &str) -> &'a Scenario {
    &s.experiment(id)
        .unwrap_or_else(|| panic!("no experiment {id}"))
        .scenario
}

/// Packets of 1500 B in one bandwidth-delay product.
fn bdp_packets(mbps: f64, rtt_ms: f64) -> f64 {
    mbps * 1e6 * rtt_ms / 1000.0 / (1500.0 * 8.0)
}

#[test]
fn ids_are_unique_published_numbers_name_experiments_and_quick_is_a_subset_of_full() {
    let full = wang2018::study(false);
    let quick = wang2018::study(true);
    for s in [&full, &quick] {
        let ids: HashSet<&str> = s.experiments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids.len(), s.experiments.len(), "experiment ids are unique");
        // Every published number can be compared in the quick study too.
        for p in &s.published {
            assert!(
                ids.contains(p.experiment.as_str()),
                "{} names {}",
                p.source,
                p.experiment
            );
        }
    }
    for e in &quick.experiments {
        let f = full
            .experiment(&e.id)
            .unwrap_or_else(|| panic!("{} is not in the full study", e.id));
        assert_eq!(
            scavenger_lab::work::item_key(&f.scenario, 1),
            scavenger_lab::work::item_key(&e.scenario, 1),
            "{}",
            e.id
        );
    }
    // Full: 4 variants × 3 buffers × 11 mixes + EvaRate++ in 2 buffers × 11; 10
    // algorithms at 16 Mbit/s + EvaRate and EvaRate++ at 4 more rates; 3 pairs; 4 mode
    // runs; 5 fairness runs; 10 cellular and 10 satellite runs.
    assert_eq!(
        full.experiments.len(),
        4 * 3 * 11 + 2 * 11 + 10 + 2 * 4 + 3 + 4 + 5 + 10 + 10
    );
    assert!(quick.experiments.len() < full.experiments.len() / 3);
}

#[test]
fn flow_mix_links_are_the_thesis_set_ups() {
    let s = wang2018::study(false);
    for b in [Buf::Shallow, Buf::Codel, Buf::Deep] {
        for n in [0, 3, 10] {
            let sc = exp(&s, &mix_id(b, "copa", n));
            // §5.3: "10 flows share a common 32 Mbps bottleneck ... The RTT was set at 80 ms".
            assert_eq!(sc.link.rate.bps(), 32_000_000);
            assert_eq!(
                sc.link.trace.as_ref().unwrap().mean_rate.bps(),
                32_000_000,
                "a constant 32 Mbit/s trace"
            );
            assert_eq!(sc.link.delay + sc.link.delay, Dur::from_millis(80));
            assert_eq!(sc.flows.len(), 10);
            assert_eq!(
                sc.flows.iter().filter(|f| f.algorithm == "copa").count(),
                n as usize
            );
            assert_eq!(
                sc.flows.iter().filter(|f| f.algorithm == "cubic").count(),
                10 - n as usize
            );
            match b {
                // "a shallow 210-packet (1 × BDP) buffer": 32 Mbit/s × 80 ms is 213 packets.
                Buf::Shallow => {
                    assert_eq!(sc.link.buffer, Buffer::Packets(210));
                    assert!((210.0 / bdp_packets(32.0, 80.0) - 1.0).abs() < 0.02);
                    assert_eq!(sc.link.qdisc, QdiscConfig::DropTail);
                }
                // §5.3.1: "We set the queuing delay threshold to be 70 ms".
                Buf::Codel => match &sc.link.qdisc {
                    QdiscConfig::Codel(p) => assert_eq!(p.target, Dur::from_millis(70)),
                    q => panic!("CoDel expected, found {q:?}"),
                },
                // §5.4: deep 2000-packet buffer.
                Buf::Deep => assert_eq!(sc.link.buffer, Buffer::Packets(2000)),
            }
        }
    }
    // §5.4.1: EvaRate++ is EvaRate with α = 1.5 (in hostile mode), EvaRate has α = 1.
    let pp = exp(&s, &mix_id(Buf::Deep, "evarate++", 5));
    assert_eq!(
        EvaRateConfig::try_from(&pp.flows[0].params).unwrap(),
        EvaRateConfig::plus()
    );
    let e = exp(&s, &mix_id(Buf::Deep, "evarate", 5));
    assert_eq!(
        EvaRateConfig::try_from(&e.flows[0].params).unwrap(),
        EvaRateConfig::default()
    );
}

#[test]
fn fairness_satellite_and_mode_detection_follow_the_thesis() {
    let s = wang2018::study(false);
    // §5.6: 100 Mbps, 333 packets (1 × BDP), 40 ms; 10 flows 1 s apart, 10 s each.
    let f = exp(&s, "fair/evarate");
    assert_eq!(f.link.rate.bps(), 100_000_000);
    assert_eq!(
        f.link.buffer,
        Buffer::Packets(bdp_packets(100.0, 40.0).floor() as u32)
    );
    assert_eq!(f.link.delay + f.link.delay, Dur::from_millis(40));
    for (i, fl) in f.flows.iter().enumerate() {
        assert_eq!(fl.start, Dur::from_secs(i as u64));
        assert_eq!(fl.stop, Some(Dur::from_secs(i as u64 + 10)));
    }
    // 100 ms windows: every Jain group (after the first) spans 100 ms and lists only
    // flows active throughout it.
    for j in &f.jain[1..] {
        assert_eq!(j.to - j.from, Dur::from_millis(100));
        assert!(j.flows.len() >= 2);
        for name in &j.flows {
            let fl = f.flows.iter().find(|x| &x.name == name).unwrap();
            assert!(
                fl.start <= j.from && fl.stop.unwrap() >= j.to,
                "{name} in {}",
                j.name
            );
        }
    }
    // §5.7: WINDS: 42 Mbps, 800 ms RTT, 1 × BDP, 0.74 % stochastic loss, 60 s.
    let sat = exp(&s, "sat/evarate");
    assert_eq!(sat.link.rate.bps(), 42_000_000);
    assert_eq!(sat.link.delay + sat.link.delay, Dur::from_millis(800));
    assert_eq!(
        sat.link.buffer,
        Buffer::Packets(bdp_packets(42.0, 800.0).round() as u32)
    );
    assert_eq!(sat.link.loss, LossModel::Bernoulli { p: 0.0074 });
    assert_eq!(sat.duration, Dur::from_secs(60));
    // §5.5 (Fig 5.21): A: test flow from 0 s, CUBIC 20–40 s; B: CUBIC 0–40 s, test from 20 s.
    let a = exp(&s, "mode/A/copa");
    assert_eq!(
        (
            a.flows[0].name.as_str(),
            a.flows[0].start,
            a.flows[1].start,
            a.flows[1].stop
        ),
        (
            "test",
            Dur::ZERO,
            Dur::from_secs(20),
            Some(Dur::from_secs(40))
        )
    );
    let b = exp(&s, "mode/B/evarate");
    assert_eq!(
        (
            b.flows[0].name.as_str(),
            b.flows[0].start,
            b.flows[1].start,
            b.flows[1].stop
        ),
        (
            "test",
            Dur::from_secs(20),
            Dur::ZERO,
            Some(Dur::from_secs(40))
        )
    );
    assert!(
        b.series_bin.is_some(),
        "mode detection needs the flow's mode trace"
    );
}

/// Runs the named experiments of the full study at `seeds` and evaluates the claim whose
/// source and text start as given (on the medians over the seeds, as the study does).
fn claim_on(
    ids: &[String],
    seeds: std::ops::RangeInclusive<u64>,
    source: &str,
    text_start: &str,
) -> (Option<bool>, String) {
    let s = wang2018::study(false);
    let mut runs = BTreeMap::new();
    for id in ids {
        let per_seed = seeds
            .clone()
            .map(|seed| (seed, scavenger_sim::run(exp(&s, id).to_sim(seed))))
            .collect();
        runs.insert(id.clone(), per_seed);
    }
    let c = s
        .claims
        .iter()
        .find(|c| c.source == source && c.text.starts_with(text_start))
        .unwrap_or_else(|| panic!("no claim {source}: {text_start}"));
    let o = (c.check)(&Results::new(runs));
    eprintln!("{source}: {} — {}", c.text, o.evidence);
    (o.holds, o.evidence)
}

#[test]
fn one_bbr_flow_overwhelms_nine_cubic_flows_in_the_shallow_buffer() {
    let (holds, ev) = claim_on(
        &[mix_id(Buf::Shallow, "bbr", 1)],
        1..=1,
        "§5.3, Fig 5.7",
        "Shallow buffer: one BBR",
    );
    assert_eq!(holds, Some(true), "{ev}");
}

#[test]
fn all_evarate_loses_less_than_mixes_with_cubic_in_the_shallow_buffer() {
    let ids: Vec<String> = [1, 5, 10]
        .iter()
        .map(|&n| mix_id(Buf::Shallow, "evarate", n))
        .collect();
    // Over the full study's five seeds, as the study judges it (medians): the all-EvaRate
    // mix loses only in its start-up, when the last flows' slow starts overflow the
    // 210-packet buffer, so one start phase can lose more than the mixes with CUBIC, which
    // keep losing after it. With the handshake seed 1 is such a phase (link drops 0.114 %
    // against 0.000-0.029 % at seeds 2-7; n=9: 0.018-0.051 %; docs/deviations/simulator.md
    // #sim-handshake-trace-phase).
    let (holds, ev) = claim_on(&ids, 1..=5, "§5.3, Fig 5.10", "Shallow buffer: 100 %");
    assert_eq!(holds, Some(true), "{ev}");
}

#[test]
fn claims_without_their_experiments_are_not_judged() {
    let s = wang2018::study(true);
    let empty = Results::new(BTreeMap::new());
    for c in &s.claims {
        assert_eq!((c.check)(&empty).holds, None, "{}: {}", c.source, c.text);
    }
}
