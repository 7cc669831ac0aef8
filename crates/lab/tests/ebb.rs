//! Ebb's whole-flow behaviour in the simulator (docs/ebb.md), on the scorecard's `base`
//! link (20/20 Mbit/s, 50 ms, 1 BDP drop-tail) with the Linux receiver model: it fills
//! the link alone, yields to a CUBIC foreground, and refills within a few RTTs when the
//! foreground leaves.

use scavenger_lab::{parse, run_scenario, RunRecord};

/// 20 Mbit/s of 1500-byte packets carry 1448-byte payloads: the goodput ceiling.
const CAP_BPS: f64 = 20e6 * 1448.0 / 1500.0;

fn run(duration_s: u64, fg: &str) -> RunRecord {
    let text = format!(
        "duration = \"{duration_s}s\"\n[link]\nrate = \"20Mbit\"\nreverse_rate = \"20Mbit\"\n\
         delay = \"25ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"bg\"\nalgorithm = \"ebb\"\n\
         ack_model = \"linux\"\n{fg}"
    );
    run_scenario(&parse("ebb.toml", &text).unwrap(), 1)
}

fn flow<'a>(r: &'a RunRecord, name: &str) -> &'a scavenger_sim::result::FlowResult {
    r.metrics.flows.iter().find(|f| f.name == name).unwrap()
}

const CUBIC_5_TO_20: &str = "[[flow]]\nname = \"fg\"\nalgorithm = \"cubic\"\n\
    ack_model = \"linux\"\nstart = \"5s\"\nstop = \"20s\"\n";

#[test]
fn ebb_alone_fills_the_link() {
    let r = run(20, "");
    let g = flow(&r, "bg").goodput_bps;
    assert!(g >= 0.9 * CAP_BPS, "goodput {g} of {CAP_BPS}");
}

#[test]
fn ebb_yields_to_cubic_then_refills_within_a_few_rtts() {
    // The foreground runs from 5 s to 20 s. Runs with the same seed are identical up to
    // the shorter one's end, so differences of delivered bytes give windows.
    let at = |d| run(d, CUBIC_5_TO_20);
    let (at6, at20, at21, at23) = (at(6), at(20), at(21), at(23));
    let alone = parse(
        "fg.toml",
        &format!(
            "duration = \"20s\"\n[link]\nrate = \"20Mbit\"\nreverse_rate = \"20Mbit\"\n\
             delay = \"25ms\"\nbuffer = \"1BDP\"\n{CUBIC_5_TO_20}"
        ),
    )
    .unwrap();
    let alone = run_scenario(&alone, 1);
    // CUBIC keeps at least 90 % of its goodput alone (measured 2026-11-27: 18.07 of
    // 19.13 Mbit/s, 0.945; the scorecard's 1.05 slowdown goal fails here, docs/ebb.md).
    let (with, without) = (
        flow(&at20, "fg").goodput_bps,
        flow(&alone, "fg").goodput_bps,
    );
    assert!(
        with >= 0.9 * without,
        "fg goodput {with} beside ebb, {without} alone"
    );
    // Ebb takes less than 5 % of the link from 6 s to 20 s (measured 0.45 Mbit/s; 0.42
    // with variant 16 on fid2's receiver).
    let during = flow(&at20, "bg").delivered_bytes - flow(&at6, "bg").delivered_bytes;
    let during_bps = during as f64 * 8.0 / 14.0;
    assert!(
        during_bps < 0.05 * CAP_BPS,
        "ebb beside CUBIC: {during_bps} bit/s"
    );
    // From 21 s to 23 s (20 RTTs after the foreground stops) Ebb runs at ≥ 85 % of the
    // link (measured 17.3 Mbit/s, 0.90; 17.9 with variant 16 on fid2's receiver); additive
    // increase from its yielded window would need hundreds of RTTs.
    let after = flow(&at23, "bg").delivered_bytes - flow(&at21, "bg").delivered_bytes;
    let after_bps = after as f64 * 8.0 / 2.0;
    assert!(
        after_bps >= 0.85 * CAP_BPS,
        "ebb after the foreground: {after_bps} bit/s"
    );
}

/// Alone on a 150 ms path (the scorecard's rtt150 link), 20 s, whole-run goodput.
fn alone_150ms(params: &str) -> f64 {
    let text = format!(
        "duration = \"20s\"\n[link]\nrate = \"20Mbit\"\nreverse_rate = \"20Mbit\"\n\
         delay = \"75ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"bg\"\nalgorithm = \"ebb\"\n\
         ack_model = \"linux\"\nparams = {{ {params} }}\n"
    );
    let r = run_scenario(&parse("ebb150.toml", &text).unwrap(), 1);
    flow(&r, "bg").goodput_bps / CAP_BPS
}

#[test]
fn ebb_alone_on_a_150ms_path_probes_up_to_the_link() {
    // Slow start ends below the BDP on long paths (its paced bursts exceed the link), and
    // one segment per 150 ms round left Ebb at 0.888 of the link after warm-up on the
    // scorecard's rtt150 cell (variant 17; 0.948 with variant 23). The held, bounded
    // probe-up (docs/ebb.md#probe-hold) closes the gap faster: over this 20 s run, slow
    // start included, 0.858 of the link against 0.828 without it (seed 1, before the SYN
    // handshake). The handshake costs one 150 ms round of the 20 s (0.0075 of the link) and
    // variant 25's lower own-queue target a little more: 0.841 with the probe, 0.815
    // without it. The claim is the probe's gain, so the test asserts the gap.
    //
    // Since variant 29 (docs/ebb.md#ss-ack-rate) slow start leaves C at the link's rate
    // and the probe has nothing to close here (0.921 of the link with and without it):
    // the default is asserted on its own, and the probe's gain with the slow-start exit
    // of variants 1-28 (ss_own and ss_ack_rate off), whose underestimate it closes.
    let default = alone_150ms("");
    assert!(default >= 0.9, "default: {default} of the link");
    const OLD_EXIT: &str = "ss_own = false, ss_ack_rate = false";
    let with = alone_150ms(OLD_EXIT);
    let without = alone_150ms(&format!("{OLD_EXIT}, probe_up = false"));
    assert!(with >= 0.835, "old exit: {with} of the link");
    assert!(
        with - without >= 0.02,
        "probe-up gains {} of the link (with {with}, without {without})",
        with - without
    );
}

/// The scorecard's base:long-newreno cell: a NewReno foreground from 5 s to 15 s beside
/// Ebb with `params` (none: the foreground alone); the foreground's goodput.
fn long_newreno_fg(params: Option<&str>) -> f64 {
    let bg = params.map_or(String::new(), |p| {
        format!("[[flow]]\nname = \"bg\"\nalgorithm = \"ebb\"\nack_model = \"linux\"\nparams = {{ {p} }}\n")
    });
    let text = format!(
        "duration = \"20s\"\n[link]\nrate = \"20Mbit\"\nreverse_rate = \"20Mbit\"\n\
         delay = \"25ms\"\nbuffer = \"84 packets\"\n{bg}[[flow]]\nname = \"fg\"\n\
         algorithm = \"newreno\"\nack_model = \"linux\"\nstart = \"5s\"\nstop = \"15s\"\n"
    );
    let r = run_scenario(&parse("ebb-ln.toml", &text).unwrap(), 1);
    flow(&r, "fg").goodput_bps
}

#[test]
fn a_two_stage_refill_leaves_a_long_newreno_foreground_its_throughput() {
    // The refill loop (docs/ebb.md#refill-stage): after its losses the NewReno
    // foreground sits below the BDP (44-80 of 84 segments), the queue empties, and a
    // refill to the whole BDP put up to 74 packets in the queue every 300 ms, halving
    // the foreground's goodput in those rounds. Measured (release, seed 1): the
    // foreground alone 19.10 Mbit/s; beside Ebb with the two-stage refill 18.84 (0.986),
    // with the jump to the BDP 16.62 (0.870).
    // The loop depends on the state Ebb is in when the foreground starts; since variant
    // 29 (docs/ebb.md#ss-ack-rate) seed 1 no longer meets it with the jump (0.987), so
    // the contrast is measured with the slow-start exit of variants 1-28, on which it
    // was traced.
    let alone = long_newreno_fg(None);
    let staged = long_newreno_fg(Some("refill_stage = 0.5"));
    let old = "ss_own = false, ss_ack_rate = false";
    let staged_old = long_newreno_fg(Some(&format!("{old}, refill_stage = 0.5")));
    let jump = long_newreno_fg(Some(&format!("{old}, refill_stage = 0.0")));
    assert!(
        staged_old >= 0.95 * alone,
        "staged, old exit: fg {staged_old} of {alone}"
    );
    assert!(staged >= 0.95 * alone, "staged: fg {staged} of {alone}");
    assert!(jump < 0.9 * alone, "jump: fg {jump} of {alone}");
}

/// Ebb alone on the scorecard's base link (20/20 Mbit/s, 50 ms, 1 BDP) for 20 s with
/// `params`: the forward queue's mean delay (ms) and Ebb's share of the link.
fn alone_base(params: &str) -> (f64, f64) {
    let text = format!(
        "duration = \"20s\"\n[link]\nrate = \"20Mbit\"\nreverse_rate = \"20Mbit\"\n\
         delay = \"25ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"bg\"\nalgorithm = \"ebb\"\n\
         ack_model = \"linux\"\nparams = {{ {params} }}\n"
    );
    let r = run_scenario(&parse("ebb-q.toml", &text).unwrap(), 1);
    let fwd = &r.metrics.links[0];
    let mean = fwd.qdelay_ms.mean.expect("the forward queue has samples");
    (mean, flow(&r, "bg").goodput_bps / CAP_BPS)
}

#[test]
fn own_target_lowers_the_standing_queue_alone_without_losing_the_link() {
    // docs/ebb.md#own-target (variant 25): a queue Ebb's own window explains is drained
    // from 3 ms instead of from target (4 ms), so the queue a starting foreground meets
    // is smaller. Measured (debug build, seed 1): mean 3.15 ms against 3.63 without,
    // 0.947 and 0.949 of the link. Scorecard: base 3.5 → 3.0 ms, rate2 7.7 → 4.9 ms.
    let (q3, share3) = alone_base("");
    let (q4, share4) = alone_base("own_target = \"0ms\"");
    assert!(
        q3 < q4 - 0.3,
        "mean queue {q3} ms with own_target, {q4} ms without"
    );
    assert!(
        share3 >= 0.9 && share4 >= 0.9,
        "link share {share3}, {share4}"
    );
}

/// Alone on a 600 ms path (the scorecard's rtt600 link: 1000-packet buffer), 30 s,
/// whole-run goodput as a share of the link.
fn alone_600ms(params: &str) -> f64 {
    let text = format!(
        "duration = \"30s\"\n[link]\nrate = \"20Mbit\"\nreverse_rate = \"20Mbit\"\n\
         delay = \"300ms\"\nbuffer = \"1000 packets\"\n[[flow]]\nname = \"bg\"\n\
         algorithm = \"ebb\"\nack_model = \"linux\"\nparams = {{ {params} }}\n"
    );
    let r = run_scenario(&parse("ebb600.toml", &text).unwrap(), 1);
    flow(&r, "bg").goodput_bps / CAP_BPS
}

#[test]
fn ebb_alone_on_a_600ms_path_learns_the_link_at_the_slow_start_exit() {
    // Slow start paces at 2.5·cwnd/base and ends on its own burst's queue at 0.6-0.9 of
    // the BDP, when the delivery-rate samples still average over the round before: C was
    // 9.4, then 14.2 Mbit/s on this 20 Mbit/s link, the foreign test sent Ebb to the
    // floor on its own 130 ms overshoot, and the 4 ms probe steps needed about 120 rounds
    // to the link (0.585 of it over these 30 s, slow start included; seed 1, main
    // a78dcdd). The ACK rate at the exit learns the link (0.769), and draining the
    // overshoot instead of yielding to it keeps the window (0.797)
    // (docs/ebb.md#ss-ack-rate, docs/ebb.md#ss-own).
    let with = alone_600ms("");
    let ack_rate_only = alone_600ms("ss_own = false");
    let without = alone_600ms("ss_own = false, ss_ack_rate = false");
    assert!(with >= 0.78, "default: {with} of the link");
    assert!(without < 0.65, "without both: {without} of the link");
    assert!(
        with > ack_rate_only && ack_rate_only >= without + 0.1,
        "with {with}, ACK rate only {ack_rate_only}, without {without}"
    );
}

/// Ebb alone on the testbed acceptance link at 350 ms (8/1 Mbit/s, 470 packets,
/// examples/testbed/ebb-alone-350ms.toml) for `secs`, with or without Linux's pacing
/// credit: delivered bytes.
fn alone_350ms_delivered(secs: &str, credit: bool) -> u64 {
    let text = format!(
        "duration = \"{secs}\"\n[link]\nrate = \"8Mbit\"\nreverse_rate = \"1Mbit\"\n\
         delay = \"175ms\"\nbuffer = \"470 packets\"\n[[flow]]\nname = \"bg\"\n\
         algorithm = \"ebb\"\npacing_credit = {credit}\n"
    );
    let r = run_scenario(&parse("ebb-350.toml", &text).unwrap(), 1);
    flow(&r, "bg").delivered_bytes
}

#[test]
fn with_linuxs_pacing_credit_ebb_at_350ms_loses_the_restore_after_its_first_slowdown() {
    // Native scv_ebb on the testbed (docs/ebb.md#pacing-credit): after the first slowdown
    // (2.8-3.5 s) the restored window holds for one RTT, then the foreign test reads its
    // own pairs' queue (base + 3 ms: one segment of the pair and one the credit put
    // ahead) and Ebb goes to the floor, refilling and yielding every 3 RTTs until 8.75 s
    // (link utilisation 0.01-0.50 per 350 ms; over 60 s 0.840 of the link). Linux's
    // pacing credit is what puts the extra segment in the queue: the simulator shows the
    // kernel's pattern with it and holds the restore without it.
    let share = |credit| {
        let bytes = alone_350ms_delivered("8500ms", credit) - alone_350ms_delivered("4s", credit);
        bytes as f64 * 8.0 / 4.5 / (8e6 * 1448.0 / 1500.0)
    };
    let (with, without) = (share(true), share(false));
    eprintln!("4-8.5 s share of the link: {with:.3} with the credit, {without:.3} without");
    assert!(
        with < 0.5,
        "with the credit, 4-8.5 s: {with:.3} of the link"
    );
    assert!(
        without > 0.9,
        "without the credit, 4-8.5 s: {without:.3} of the link"
    );
}
