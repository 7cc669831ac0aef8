//! The trang2015 study (Trang 2015): experiment ids, the set-ups the thesis states, its
//! published numbers, and two behavioural claims on short runs of the study's own
//! scenarios.

use scavenger_lab::study::trang2015::{
    aqm_id, buffer_pkts, late_id, load_id, vs_id, Lbe, Order, AQMS, AQM_BUFFER,
};
use scavenger_lab::study::{study, Metric, Results};
use std::collections::{BTreeMap, HashSet};

#[test]
fn ids_are_unique_and_every_published_number_names_an_experiment() {
    for quick in [true, false] {
        let s = study("trang2015", quick).unwrap();
        let ids: HashSet<&str> = s.experiments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids.len(),
            s.experiments.len(),
            "quick = {quick}: experiment ids are unique"
        );
        for p in &s.published {
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
    }
}

#[test]
fn quick_is_a_subset_of_full_with_the_same_scenarios() {
    let full = study("trang2015", false).unwrap();
    let quick = study("trang2015", true).unwrap();
    assert!(
        quick.experiments.len() < 60,
        "quick has {} experiments",
        quick.experiments.len()
    );
    for e in &quick.experiments {
        let f = full
            .experiment(&e.id)
            .unwrap_or_else(|| panic!("{} not in the full study", e.id));
        assert_eq!(
            scavenger_lab::work::item_key(&f.scenario, 1),
            scavenger_lab::work::item_key(&e.scenario, 1),
            "{}",
            e.id
        );
    }
    // §3.3: 5 capacities × 6 delays, ten ratios minus duplicates, × 10 (τ, γ) settings;
    // §5.2.1: 2 TCP × 6 delays × 5 ratios × 2 LBE × 10 runs; §5.3: 4 queues × 2 × 10.
    let count = |prefix: &str| {
        full.experiments
            .iter()
            .filter(|e| e.id.starts_with(prefix))
            .count()
    };
    assert_eq!(count("grid/"), 2 * 6 * 5 * 2 * 10);
    assert_eq!(count("aqm/"), 4 * 2 * 10);
    assert_eq!(count("load/"), 7 * 4);
    assert_eq!(count("sweep/") % 10, 0);
    assert!(
        count("sweep/") > 2000 && count("sweep/") <= 3000,
        "{}",
        count("sweep/")
    );
}

#[test]
fn published_numbers_cover_tables_3_1_and_3_2_and_the_100_flow_test() {
    let s = study("trang2015", false).unwrap();
    let count = |src: &str| s.published.iter().filter(|p| p.source == src).count();
    // Table 3.1: two NewReno-alone rows + 6 rows × (η NewReno, its change, η LEDBAT, η total,
    // its change).
    assert_eq!(count("Table 3.1"), 2 + 6 * 5);
    // Table 3.2: its (5 ms; 10) NewReno row repeats Table 3.1's and is listed once.
    assert_eq!(count("Table 3.2"), 2 * 6 - 2);
    let p = s
        .published
        .iter()
        .find(|p| p.source.starts_with("§3.5"))
        .unwrap();
    assert_eq!(p.value, -47.0);
    assert_eq!(
        p.experiment,
        load_id(
            100,
            Some(Lbe::Ledbat(scavenger_lab::study::trang2015::Ledbat {
                target_ms: 5,
                gain_dec: 10
            }))
        )
    );
    // The gain/loss rows of Table 3.2 are the ratios of its η rows (the thesis's numbers);
    // NewReno's LEDBAT row prints +778.37 % where 7.64 / 0.86 gives +788.37 % (a typo we
    // keep as printed, docs/deviations/studies-trang2015.md#trang2015-table32), so it is not
    // checked.
    let v = |e: &str, m: Metric, rel: bool| {
        s.published
            .iter()
            .find(|p| p.experiment == e && p.metric == m && p.relative_to.is_some() == rel)
            .unwrap()
            .value
    };
    let ld = |t, g| {
        Some(scavenger_lab::study::trang2015::Ledbat {
            target_ms: t,
            gain_dec: g,
        })
    };
    let (tcp, lbe) = (Metric::WinUtil(0, "tcp"), Metric::WinUtil(0, "lbe"));
    let change = |now: f64, before: f64| (now / before - 1.0) * 100.0;
    let (g, l) = (
        vs_id("newreno", 84, ld(5, 10), Order::A),
        vs_id("newreno", 84, ld(65, 1), Order::A),
    );
    assert!((change(v(&l, tcp, false), v(&g, tcp, false)) - v(&l, tcp, true)).abs() < 0.01);
    let (g, l) = (
        vs_id("cubic", 84, ld(5, 10), Order::A),
        vs_id("cubic", 84, ld(80, 1), Order::A),
    );
    assert!((change(v(&l, tcp, false), v(&g, tcp, false)) - v(&l, tcp, true)).abs() < 0.01);
    assert!((change(v(&l, lbe, false), v(&g, lbe, false)) - v(&l, lbe, true)).abs() < 0.01);
    // Table 3.1's changes are against NewReno alone at the same buffer.
    let alone = vs_id("newreno", 42, None, Order::A);
    let opt = vs_id("newreno", 42, ld(5, 10), Order::A);
    assert!((change(v(&opt, tcp, false), v(&alone, tcp, false)) - v(&opt, tcp, true)).abs() < 0.01);
}

#[test]
fn scenarios_use_the_set_ups_the_thesis_states() {
    let s = study("trang2015", false).unwrap();
    let exp = |id: &str| &s.experiment(id).unwrap_or_else(|| panic!("{id}")).scenario;
    // §3.2: 10 Mb/s, 50 ms one way, B = 84 (= ceil BDP), 200 s, η over the last 150 s.
    let sc = exp(&vs_id("newreno", 84, None, Order::A));
    assert_eq!(sc.link.rate.bps(), 10_000_000);
    assert_eq!(sc.link.delay.0, 50_000_000);
    assert_eq!(sc.duration.0, 200_000_000_000);
    assert_eq!(
        (sc.jain[0].from.0, sc.jain[0].to.0),
        (50_000_000_000, 200_000_000_000)
    );
    assert_eq!(buffer_pkts(10, 10, 50), 84);
    // Scenario B of §3.2: TCP starts at 20 s.
    let sc = exp(&vs_id(
        "newreno",
        92,
        Some(scavenger_lab::study::trang2015::Ledbat {
            target_ms: 100,
            gain_dec: 1,
        }),
        Order::B,
    ));
    assert_eq!(
        sc.flows.iter().find(|f| f.name == "tcp").unwrap().start.0,
        20_000_000_000
    );
    // E5.3: B = 2 × BDP = 167, second flow at 20 s, 150 s.
    let sc = exp(&late_id(Lbe::Flower));
    assert_eq!(sc.duration.0, 150_000_000_000);
    assert_eq!(sc.flows[1].start.0, 20_000_000_000);
    // §3.5: N TCP flows in U(0, 200) s, N LBE flows in U(300, 500) s, 1200 s, last 600 s.
    let sc = exp(&load_id(
        100,
        Some(Lbe::Ledbat(scavenger_lab::study::trang2015::Ledbat {
            target_ms: 5,
            gain_dec: 10,
        })),
    ));
    assert_eq!(sc.flows.len(), 200);
    let secs = |f: &scavenger_lab::scenario::FlowSpec| f.start.0 as f64 / 1e9;
    assert!(sc
        .flows
        .iter()
        .filter(|f| f.name.starts_with("tcp."))
        .all(|f| secs(f) < 200.0));
    assert!(sc
        .flows
        .iter()
        .filter(|f| f.name.starts_with("lbe."))
        .all(|f| (300.0..500.0).contains(&secs(f))));
    assert_eq!(sc.jain[0].from.0, 600_000_000_000);
    // §5.3: B = 250 packets, 60 s, five NewReno and five LBE flows, four queues.
    assert_eq!(AQMS.len(), 4);
    for (q, _) in AQMS {
        let sc = exp(&aqm_id(q, Lbe::Flower, 3));
        assert_eq!(sc.duration.0, 60_000_000_000);
        assert_eq!(sc.flows.len(), 10);
        let _ = AQM_BUFFER;
    }
}

/// Runs some of the study's experiments (one seed) and collects them as the report does.
fn run(ids: &[String]) -> Results {
    let s = study("trang2015", true).unwrap();
    let mut runs = BTreeMap::new();
    for id in ids {
        let e = s
            .experiment(id)
            .unwrap_or_else(|| panic!("{id} not in the quick study"));
        let rec = scavenger_lab::work::WorkItem::new(e.id.clone(), e.scenario.clone(), 1).run();
        runs.insert(id.clone(), vec![(1, rec.metrics)]);
    }
    Results::new(runs)
}

fn claim_holds(r: &Results, source: &str) -> (Option<bool>, String) {
    let s = study("trang2015", true).unwrap();
    let c = s
        .claims
        .iter()
        .find(|c| c.source == source)
        .unwrap_or_else(|| panic!("no claim {source}"));
    let o = (c.check)(r);
    (o.holds, o.evidence)
}

#[test]
fn flower_shares_after_a_latecomer_and_rfc_ledbat_starves_the_first_flow() {
    // §5.2.2 (Fig 5.3): thesis behaviour, checked by the study's own claims.
    let r = run(&[
        late_id(Lbe::Flower),
        late_id(Lbe::Ledbat(scavenger_lab::study::trang2015::Ledbat {
            target_ms: 100,
            gain_dec: 1,
        })),
    ]);
    let (h, ev) = claim_holds(&r, "§5.2.2, Fig 5.3b");
    assert_eq!(h, Some(true), "{ev}");
    let (h, ev) = claim_holds(&r, "§5.2.2, Fig 5.3a");
    assert_eq!(h, Some(true), "{ev}");
}

#[test]
fn ledbat_is_hostile_at_b92_and_lbe_at_b167() {
    // §3.2 (Figs 3.2, 3.3): B:τ ≈ 1.1 is hostile, B ≈ 2 τ is LBE.
    let rfc = scavenger_lab::study::trang2015::Ledbat {
        target_ms: 100,
        gain_dec: 1,
    };
    let r = run(&[
        vs_id("newreno", 92, Some(rfc), Order::A),
        vs_id("newreno", 167, Some(rfc), Order::A),
    ]);
    let (h, ev) = claim_holds(&r, "§3.2, Fig 3.2");
    assert_eq!(h, Some(true), "{ev}");
    let (h, ev) = claim_holds(&r, "§3.2, Fig 3.3");
    assert_eq!(h, Some(true), "{ev}");
}
