//! Trang 2015's LEDBAT pathologies and FLOWER's answer to them, on Trang 2015's dumbbell:
//! 10 Mbit/s, 50 ms one-way delay (100 ms base RTT), 1500-byte packets (1448 B payload +
//! 52 B headers), drop-tail buffers; BDP = 83.3 packets (Trang 2015 notes §4.2–4.3).
//! Numbers and the thesis's figures side by side: docs/deviations/flower.md#flower-sim-results,
//! docs/deviations/ledbat-presets.md#ledbat-presets-sim-results and
//! docs/deviations/ledbat-plus-plus.md#ledbatpp-sim-results.

mod common;
use common::*;
use scavenger_cc::Time;
use scavenger_sim::{run, JainSpec};

const S: u64 = 1_000_000_000;

/// Goodput (bit/s) of two flows of `alg` over [from, to) s: Trang 2015 E5.3, buffer 2 × BDP =
/// 167 packets, target 100 ms (every algorithm's default or preset), flow 1 from 0 s,
/// flow 2 from 20 s. Each flow lasts 150 s in the thesis; flows have no stop time here,
/// so the run ends at 150 s, when flow 1 would stop, and both run over 20–150 s.
fn latecomer(alg: &str, from: u64, to: u64) -> (Vec<f64>, f64) {
    let mut c = dumbbell(10, 100, 167, 150);
    c.flows.push(flow("first", alg));
    let mut late = flow("latecomer", alg);
    late.start = Time(20 * S);
    c.flows.push(late);
    c.measure.jain.push(JainSpec {
        name: "w".into(),
        flows: vec![0, 1],
        from: Time(from * S),
        to: Time(to * S),
    });
    let j = run(c).jain.remove(0);
    (j.goodput_bps, j.index)
}

#[test]
fn rfc_ledbat_starves_the_first_flow_after_a_latecomer() {
    // Trang 2015 §5.2.2: the first LEDBAT flow reaches its minimum rate by about t = 131 s.
    let (g, _) = latecomer("ledbat-rfc", 130, 150);
    let share = g[0] / (g[0] + g[1]);
    assert!(
        share < 0.20,
        "first RFC LEDBAT flow keeps {:.1} % over 130-150 s ({:?})",
        100.0 * share,
        g
    );
}

#[test]
fn two_flower_flows_share_the_link_after_a_latecomer() {
    // Trang 2015 §5.2.2: the two FLOWER flows "share fairly the link capacity".
    let (g, jain) = latecomer("flower", 100, 150);
    assert!(
        jain >= 0.9,
        "FLOWER Jain index over 100-150 s is {jain:.3} ({g:?})"
    );
    assert!(g[0] + g[1] > 8e6, "FLOWER pair under-uses the link: {g:?}");
}

#[test]
fn ledbat_plus_plus_slowdowns_undo_the_latecomer_advantage() {
    // draft-irtf-iccrg-ledbat-plus-plus: periodic slowdowns let every flow measure the
    // true base delay.
    let (g, jain) = latecomer("ledbat-plus-plus", 100, 150);
    assert!(
        jain >= 0.9,
        "LEDBAT++ Jain index over 100-150 s is {jain:.3} ({g:?})"
    );
}

/// Goodput (bit/s) of NewReno alone, and of (NewReno, `lbe`) started together, over
/// 50–200 s of a 200 s run (Trang 2015 §3.2: "the last 150 s"), buffer `buffer` packets.
/// Receivers ACK every segment, as Trang 2015's ns-2 sinks (with delayed ACKs a LEDBAT flow
/// at its minimum window counts the receiver's 40 ms ACK wait as queueing delay).
fn against_newreno(lbe: &str, buffer: u32) -> (f64, f64, f64) {
    let ns2 = |name: &str, alg: &str| {
        let mut f = flow(name, alg);
        f.ack_every = 1;
        f
    };
    let mut c = dumbbell(10, 100, buffer, 200);
    c.flows.push(ns2("tcp", "newreno"));
    c.measure.jain.push(JainSpec {
        name: "w".into(),
        flows: vec![0],
        from: Time(50 * S),
        to: Time(200 * S),
    });
    let solo = run(c).jain[0].goodput_bps[0];
    let mut c = dumbbell(10, 100, buffer, 200);
    c.flows.push(ns2("tcp", "newreno"));
    c.flows.push(ns2("lbe", lbe));
    c.measure.jain.push(JainSpec {
        name: "w".into(),
        flows: vec![0, 1],
        from: Time(50 * S),
        to: Time(200 * S),
    });
    let g = run(c).jain.remove(0).goodput_bps;
    (solo, g[0], g[1])
}

#[test]
fn rfc_ledbat_is_hostile_when_the_buffer_is_below_one_and_a_half_targets() {
    // Trang 2015 §3.2: B = 92 packets, B:τ ≈ 1.1 with τ = 100 ms (83.3 packets): LEDBAT ends up
    // with more capacity than NewReno; with B ≥ ~1.5·τ it is LBE (here B = 167, B:τ = 2).
    let (_, tcp, ledbat) = against_newreno("ledbat-rfc", 92);
    assert!(
        ledbat > tcp,
        "B = 92: LEDBAT {:.2} Mbit/s does not exceed NewReno {:.2}",
        ledbat / 1e6,
        tcp / 1e6
    );
    let (_, tcp, ledbat) = against_newreno("ledbat-rfc", 167);
    assert!(
        tcp > 2.0 * ledbat,
        "B = 167: NewReno {:.2} Mbit/s is not well above LEDBAT {:.2}",
        tcp / 1e6,
        ledbat / 1e6
    );
}

#[test]
fn tuned_ledbat_leaves_newreno_its_solo_throughput_at_one_bdp() {
    // Trang 2015 Table 3.1: (5 ms; 10) at B = BDP = 84 costs NewReno 0.86 %.
    let (solo, tcp, ledbat) = against_newreno("ledbat-tuned", 84);
    assert!(
        tcp >= 0.98 * solo,
        "NewReno keeps {:.2} % of its solo {:.2} Mbit/s (LEDBAT {:.2})",
        100.0 * tcp / solo,
        solo / 1e6,
        ledbat / 1e6
    );
    // The RFC defaults at the same buffer are hostile by comparison.
    let (_, tcp_rfc, _) = against_newreno("ledbat-rfc", 84);
    assert!(
        tcp_rfc < tcp,
        "NewReno gets {:.2} against the RFC preset, not less than {:.2}",
        tcp_rfc / 1e6,
        tcp / 1e6
    );
}
