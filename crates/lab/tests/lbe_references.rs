//! The newer LBE designs' headline results in the simulator (docs/lbe-references.md), on
//! the scorecard's `base` link (20/20 Mbit/s, 50 ms, 1 BDP drop-tail) with the Linux
//! receiver model:
//! - PCC Proteus-S (Meng et al., SIGCOMM 2020: "a much more effective scavenger than
//!   LEDBAT"): yields to a CUBIC primary more than LEDBAT does;
//! - TCP FlexiS (Li, ToN 2023): lower impact on a CUBIC foreground than LEDBAT, and
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
    beside(algorithm, "cubic")
}

fn beside(algorithm: &str, primary: &str) -> (f64, f64) {
    let fg = flow_text("fg", primary, 5, Some(25));
    let both = |d| run(d, &format!("{}{fg}", flow_text("bg", algorithm, 0, None)));
    let (at6, at25) = (both(6), both(25));
    let alone = run(25, &fg);
    let share = goodput(&at25, "fg") / goodput(&alone, "fg");
    let bg = (delivered(&at25, "bg") - delivered(&at6, "bg")) as f64 * 8.0 / 19.0;
    eprintln!(
        "{algorithm} beside {primary}: fg {share:.3} of alone, bg {bg:.0} bit/s while fg runs"
    );
    (share, bg)
}

#[test]
fn proteus_s_yields_to_cubic_far_more_than_ledbat() {
    // Measured 2026-11-27: beside Proteus-S CUBIC keeps 0.666 of its goodput alone and
    // Proteus-S runs at 5.49 Mbit/s; beside LEDBAT (target 100 ms > the 50 ms buffer, so
    // it never sees its target) CUBIC keeps 0.497 and LEDBAT runs at 9.55 Mbit/s. (With
    // Vivace's single probing pair instead of the code's two, CUBIC kept 0.843:
    // docs/lbe-references.md#proteus.)
    let (p_share, p_bg) = beside_cubic("proteus-s");
    let (l_share, l_bg) = beside_cubic("ledbat");
    assert!(p_share >= 0.6, "CUBIC beside proteus-s: {p_share}");
    assert!(
        p_share >= l_share + 0.1,
        "proteus-s {p_share}, ledbat {l_share}"
    );
    assert!(
        p_bg <= 0.7 * l_bg,
        "bg rates: proteus-s {p_bg}, ledbat {l_bg}"
    );
    // Beside a PCC Vivace primary (the paper pairs Proteus-S with PCC primaries): Vivace
    // keeps 0.258 beside Proteus-S (13.95 Mbit/s for Proteus-S) and 0.070 beside LEDBAT
    // (18.18 Mbit/s): Proteus-S yields more than LEDBAT but far from fully.
    // With the Linux receiver and start jitter as the defaults (merge of fid2): Vivace
    // keeps 0.175 beside Proteus-S and 0.065 beside LEDBAT (2.7×).
    let (v_share, _) = beside("proteus-s", "vivace");
    let (lv_share, _) = beside("ledbat", "vivace");
    assert!(v_share >= 0.15, "Vivace beside proteus-s: {v_share}");
    assert!(
        v_share >= 2.0 * lv_share,
        "proteus-s {v_share}, ledbat {lv_share}"
    );
}

#[test]
fn flexis_harms_cubic_less_than_ledbat() {
    // Measured 2026-11-27: CUBIC keeps 0.889 beside FlexiS (FlexiS at 1.82 Mbit/s) and
    // 0.497 beside LEDBAT (9.55 Mbit/s).
    let (f_share, f_bg) = beside_cubic("flexis");
    let (l_share, l_bg) = beside_cubic("ledbat");
    assert!(f_share >= 0.85, "CUBIC beside flexis: {f_share}");
    assert!(
        f_share >= l_share + 0.3,
        "flexis {f_share}, ledbat {l_share}"
    );
    assert!(
        f_bg <= 0.25 * l_bg,
        "bg rates: flexis {f_bg}, ledbat {l_bg}"
    );
}

/// Jain's index of `n` flows of `algorithm` started `gap_s` apart, over the last 20 s of
/// a `len_s` run.
fn jain(algorithm: &str, n: u64, gap_s: u64, len_s: u64) -> f64 {
    let flows: String = (0..n)
        .map(|i| flow_text(&format!("f{i}"), algorithm, gap_s * i, None))
        .collect();
    let (a, b) = (run(len_s - 20, &flows), run(len_s, &flows));
    let x: Vec<f64> = (0..n)
        .map(|i| {
            let name = format!("f{i}");
            (delivered(&b, &name) - delivered(&a, &name)) as f64 * 8.0 / 20.0
        })
        .collect();
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    let j = s * s / (n as f64 * s2);
    eprintln!("{algorithm} ×{n} {gap_s} s apart, {len_s} s: rates {x:?} bit/s, Jain {j:.4}, sum {:.3} of link", s / CAP_BPS);
    j
}

#[test]
fn flexis_flows_share_fairly() {
    // Measured 2026-11-27 (last 20 s of 40 s): two FlexiS flows together 0.9930; three
    // started 5 s apart 0.9896 (6.36, 6.08, 4.98 Mbit/s); three LEDBAT flows 5 s apart
    // 0.9199 (the latecomer effect). The paper's > 0.99 holds for two flows here.
    // With the Linux receiver and start jitter as the defaults (merge of fid2): three
    // FlexiS flows 0.9967, and three LEDBAT flows 0.9925: LEDBAT's latecomer effect no
    // longer shows on this link, so the paper's absolute claim (> 0.99) is what is tested.
    assert!(jain("flexis", 2, 0, 40) > 0.99);
    let three = jain("flexis", 3, 5, 40);
    assert!(three > 0.99, "3 flexis flows: {three}");
}

#[test]
fn proteus_s_and_flexis_alone_use_the_link() {
    // Measured 2026-11-27: Proteus-S 0.873, FlexiS 0.900 of the goodput ceiling over 20 s
    // (both include their start: Vivace's starting phase, FlexiS's first 60 ms without
    // growth and its cubic-in-time ramp).
    for a in ["proteus-s", "flexis"] {
        let r = run(20, &flow_text("bg", a, 0, None));
        let u = goodput(&r, "bg") / CAP_BPS;
        eprintln!("{a} alone: {u:.3} of the link");
        assert!(u >= 0.85, "{a} alone: {u}");
    }
}
