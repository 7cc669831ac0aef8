//! The four starvation cases of issue 18, each with default parameters and every TCP flow
//! on the Linux 6.x receiver model (`ack_model = "linux"`, docs/receiver.md), as the
//! scorecard runs them. Each test asserts the throughput that was lost. Measured values
//! (2026-11-27, seed 1) are in the comments; docs/ebb.md#issue-18-cases has the table.

use scavenger_lab::{parse, run_scenario, RunRecord};

/// Goodput ceiling of a link of `mbps`: 1448-byte payloads in 1500-byte packets.
fn cap_bps(mbps: f64) -> f64 {
    mbps * 1e6 * 1448.0 / 1500.0
}

fn run(name: &str, text: &str) -> RunRecord {
    run_scenario(&parse(name, text).unwrap(), 1)
}

fn bg(r: &RunRecord) -> &scavenger_sim::result::FlowResult {
    r.metrics.flows.iter().find(|f| f.name == "bg").unwrap()
}

/// 8/1 Mbit/s, 50 ms RTT: the asymmetric link of cases 1, 2 and 4.
fn asym(buffer: &str, duration_s: u64, flows: &str) -> String {
    format!(
        "duration = \"{duration_s}s\"\n[link]\nrate = \"8Mbit\"\nreverse_rate = \"1Mbit\"\n\
         delay = \"25ms\"\n{buffer}\n{flows}"
    )
}

/// Case 1: `deadline` over CUBIC with a goal far in the future (LBE mode throughout), on
/// 8/1 Mbit/s, 50 ms, 2·BDP drop-tail; a NewReno foreground of 2469 KiB from 20 s (it
/// ends at 22.8 s). The delay knob read single RTT samples, which the receiver's
/// delayed-ACK timer inflates at a 2-3 segment window: the flow sat at 2-3 segments and
/// 0.45 Mbit/s to the end of the run (kernel: 1.59 Mbit/s). It now judges the round's
/// minimum RTT (crates/cc/src/dalbe/wrapper.rs).
#[test]
fn case1_deadline_over_cubic_takes_back_the_link_after_the_foreground() {
    let flows = "[[flow]]\nname = \"bg\"\nalgorithm = \"cubic\"\nack_model = \"linux\"\n\
        size = \"1000MB\"\ndeadline = \"3600s\"\ndalbe = { controller = \"deadline\" }\n\
        [[flow]]\nname = \"fg\"\nalgorithm = \"newreno\"\nack_model = \"linux\"\n\
        start = \"20s\"\nsize = \"2469KiB\"\n";
    let at = |d| run("case1.toml", &asym("buffer = \"2BDP\"", d, flows));
    let (at30, at60) = (at(30), at(60));
    let fg = at60.metrics.flows.iter().find(|f| f.name == "fg").unwrap();
    assert!(
        fg.completion_time_s.is_some_and(|t| t < 10.0),
        "the foreground finishes: {:?}",
        fg.completion_time_s
    );
    // From 30 s to 60 s: was 0.48 Mbit/s (6 % of the link); now 7.57 Mbit/s.
    let bytes = bg(&at60).delivered_bytes - bg(&at30).delivered_bytes;
    let bps = bytes as f64 * 8.0 / 30.0;
    assert!(
        bps >= 0.75 * cap_bps(8.0),
        "deadline/cubic after the foreground: {bps} bit/s"
    );
}

/// Case 2: Yield alone on 8/1 Mbit/s, 50 ms, ½·BDP drop-tail got 16 % of the link on the
/// legacy receiver (a fixed 40 ms delayed-ACK timer at a 1-3 segment window read as
/// 33-35 ms of queueing delay). The Linux receiver model does not starve it (testbed,
/// kernel TCP: 4.75 Mbit/s; simulator now 7.6 Mbit/s).
#[test]
fn case2_yield_alone_on_a_half_bdp_buffer_uses_the_link() {
    let flows = "[[flow]]\nname = \"bg\"\nalgorithm = \"yield\"\nack_model = \"linux\"\n";
    let r = run("case2.toml", &asym("buffer = \"0.5BDP\"", 60, flows));
    let g = bg(&r).goodput_bps;
    assert!(g >= 0.75 * cap_bps(8.0), "yield alone: {g} bit/s");
}

/// Case 3: rLEDBAT (a CUBIC sender, the rLEDBAT receiver) alone on 100/100 Mbit/s,
/// 50 ms, 2·BDP got 0.40 of the link: the ramp after its first periodic slowdown ended at
/// once: the 2-RTT freeze was timed from the slowdown's start, while the sender still
/// filled the window advertised before it, so the queue of the initial slow start was
/// still there; LEDBAT++'s additive increase at GAIN 1/3 then takes ⅓ segment per RTT.
/// Now 88.0 Mbit/s (crates/cc/src/receivers/rledbat.rs,
/// docs/deviations/rledbat.md#rledbat-ramp-filter).
#[test]
fn case3_rledbat_alone_at_100_mbit_ramps_back_after_its_first_slowdown() {
    let text = "duration = \"60s\"\n[link]\nrate = \"100Mbit\"\nreverse_rate = \"100Mbit\"\n\
        delay = \"25ms\"\nbuffer = \"2BDP\"\n[[flow]]\nname = \"bg\"\nalgorithm = \"cubic\"\n\
        ack_model = \"linux\"\nreceiver = { controller = \"rledbat\" }\n";
    let g = bg(&run("case3.toml", text)).goodput_bps;
    assert!(g >= 0.8 * cap_bps(100.0), "rledbat alone: {g} bit/s");
}

/// Case 4: TCP-LP alone on 8/1 Mbit/s, 50 ms, CoDel got 1.5 Mbit/s with its window
/// repeatedly at one segment. The testbed's 6.49 Mbit/s once cited against this was the
/// shim agent's echo-RTT bug (issue 17: TCP-LP took no sample and ran as Reno); with the
/// fix the kernel's TCP-LP gets 2.15-5.29 Mbit/s over ten runs (median about 3;
/// docs/validation.md#tcp-lp-issue-17, #psh-small-window): it backs off to a window of one
/// segment too, and there the kernel's receiver waits for its delayed-ACK timer, as ours
/// does under the kernel's PSH rule (`SkbTail`, the default since
/// docs/validation.md#psh-flip). Per run it is chaotic on both datapaths: seeds 1-10 give
/// 0.95-4.91 Mbit/s (median 2.08; 0.95-5.74, median 2.5, before the first DRS measure moved
/// to the handshake, docs/receiver.md#drs-phase), so the test judges the median over seeds
/// 1-10, as the studies do. The bound is a quarter of the link, below the kernel's worst
/// run (2.15) and well above the 1.5 Mbit/s starvation the issue reported.
#[test]
fn case4_tcp_lp_alone_under_codel_does_not_starve() {
    let flows = "[[flow]]\nname = \"bg\"\nalgorithm = \"tcp-lp\"\nack_model = \"linux\"\n";
    let scenario = parse(
        "case4.toml",
        &asym("qdisc = { kind = \"codel\" }", 60, flows),
    )
    .unwrap();
    let mut g: Vec<f64> = (1..=10)
        .map(|seed| bg(&run_scenario(&scenario, seed)).goodput_bps)
        .collect();
    g.sort_by(f64::total_cmp);
    let median = (g[4] + g[5]) / 2.0;
    assert!(
        median >= 0.25 * cap_bps(8.0),
        "tcp-lp alone under CoDel, median over seeds 1-10: {median} bit/s ({g:?})"
    );
}
