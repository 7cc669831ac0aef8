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
    // The foreground runs from 5 s to 20 s. Two runs with the same seed are identical
    // up to the shorter one's end, so differences of delivered bytes give windows.
    let at20 = run(20, CUBIC_5_TO_20);
    let at5 = run(5, CUBIC_5_TO_20);
    let at22 = run(22, CUBIC_5_TO_20);
    let fg = flow(&at20, "fg");
    // CUBIC alone would carry CAP_BPS; beside Ebb it keeps at least 95 % of that.
    assert!(
        fg.goodput_bps >= 0.95 * CAP_BPS,
        "fg goodput {}",
        fg.goodput_bps
    );
    let bg_during = flow(&at20, "bg").delivered_bytes - flow(&at5, "bg").delivered_bytes;
    assert!(
        (bg_during as f64 * 8.0 / 15.0) < 0.05 * CAP_BPS,
        "ebb took {bg_during} bytes beside CUBIC"
    );
    // From 20.5 s (10 RTTs after the foreground stops) Ebb runs at ≥ 90 % of the link:
    // the average over 20–22 s, including the refill, is above 80 %.
    let bg_after = flow(&at22, "bg").delivered_bytes - flow(&at20, "bg").delivered_bytes;
    let rate = bg_after as f64 * 8.0 / 2.0;
    assert!(
        rate >= 0.8 * CAP_BPS,
        "ebb after the foreground: {rate} bit/s"
    );
}
