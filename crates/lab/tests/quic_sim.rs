//! QUIC in the simulator (`transport = "quic"`): two quinn-proto endpoints with our
//! controller inside quinn, their datagrams over the simulator's links in virtual time
//! (docs/quic.md, "QUIC in the simulator").

use scavenger_lab::{parse, RunRecord, Simulator};
use scavenger_sim::result::FlowResult;

/// Ong 2020's baseline: 8/1 Mbit/s, 50 ms base RTT, drop-tail with the study's buffer of
/// 2 × BDP of the downlink rounded up to 5 packets (70), for 30 s. Background `bg` over
/// `bg_transport` from 0 s; a TCP CUBIC foreground of 2469 KiB (the study's short
/// foreground, one connection) from 10 s.
fn ong_baseline(bg: &str, bg_transport: &str) -> String {
    format!(
        r#"
name = "quic-vs-tcp"
duration = "30s"
[measure]
series_bin = "100ms"
[link]
rate = "8Mbit"
reverse_rate = "1Mbit"
delay = "25ms"
buffer = "70 packets"
[[flow]]
name = "bg"
algorithm = "{bg}"
transport = "{bg_transport}"
[[flow]]
name = "fg"
algorithm = "cubic"
start = "10s"
size = "2528256B"
"#
    )
}

fn run(text: &str, seed: u64) -> RunRecord {
    let sc = parse("quic.toml", text).unwrap_or_else(|e| panic!("{e}"));
    Simulator.record(&sc, seed)
}

fn flow<'a>(r: &'a RunRecord, name: &str) -> &'a FlowResult {
    r.metrics.flows.iter().find(|f| f.name == name).unwrap()
}

/// The background's share of the goodput while the foreground is active (from its start
/// to its last byte), from the 100 ms series.
fn bg_share(r: &RunRecord) -> f64 {
    let s = r.metrics.series.as_ref().expect("series");
    let fg = flow(r, "fg");
    let (from, to) = (fg.start_s, fg.completed_at_s.expect("foreground completes"));
    let (mut bg_b, mut fg_b) = (0.0, 0.0);
    for (i, t) in s.time_s.iter().enumerate() {
        // Bin i covers (t - bin, t].
        if *t > from + 1e-9 && *t <= to + s.bin_s - 1e-9 {
            bg_b += s.flow_goodput_bps[0][i];
            fg_b += s.flow_goodput_bps[1][i];
        }
    }
    bg_b / (bg_b + fg_b)
}

#[test]
fn quic_ledbat_plus_plus_yields_to_tcp_cubic_as_tcp_ledbat_plus_plus_does() {
    let tcp = run(&ong_baseline("ledbat-plus-plus", "tcp"), 1);
    let quic = run(&ong_baseline("ledbat-plus-plus", "quic"), 1);
    for (name, r) in [("tcp", &tcp), ("quic", &quic)] {
        let (bg, fg) = (flow(r, "bg"), flow(r, "fg"));
        eprintln!(
            "{name}: bg goodput {:.2} Mbit/s rtt p50 {:?} ms cwnd {} retrans {} | fg ftt {:?} s | bg share during fg {:.3}",
            bg.goodput_bps / 1e6,
            bg.rtt_ms.p50,
            bg.final_cwnd_bytes,
            bg.retransmits,
            fg.completion_time_s,
            bg_share(r)
        );
    }
    // The QUIC background did move data and its controller was driven.
    assert!(flow(&quic, "bg").goodput_bps > 1e6);
    assert!(flow(&quic, "bg").rtt_ms.samples > 100);
    let (s_tcp, s_quic) = (bg_share(&tcp), bg_share(&quic));
    let ftt = |r: &RunRecord| flow(r, "fg").completion_time_s.expect("fg completes");
    let (f_tcp, f_quic) = (ftt(&tcp), ftt(&quic));
    assert!(
        (s_quic - s_tcp).abs() <= 0.2 * s_tcp,
        "background share during the foreground: quic {s_quic:.3}, tcp {s_tcp:.3}"
    );
    assert!(
        (f_quic - f_tcp).abs() <= 0.2 * f_tcp,
        "foreground completion time: with a quic background {f_quic:.3} s, tcp {f_tcp:.3} s"
    );
}

#[test]
fn same_scenario_and_seed_give_byte_identical_quic_records() {
    let text = ong_baseline("ledbat-plus-plus", "quic");
    let mut a = run(&text, 7);
    let mut b = run(&text, 7);
    a.wall_time_s = 0.0;
    b.wall_time_s = 0.0;
    assert_eq!(a.to_json(), b.to_json());
    // The record says which transport ran.
    let json = a.to_json();
    assert!(json.contains(r#""transport""#) && json.contains(r#""quic""#));
    let bg = flow(&a, "bg");
    assert!(bg.conservation.holds(), "{:?}", bg.conservation);
}

/// 1 % random loss each way: quinn's loss recovery (RFC 9002) and our controller's
/// window reductions, through the adapter; every byte of a 2 MB transfer arrives.
#[test]
fn a_quic_transfer_completes_over_a_lossy_link() {
    let text = r#"
duration = "60s"
[link]
rate = "8Mbit"
reverse_rate = "1Mbit"
delay = "25ms"
buffer = "70 packets"
loss = 0.01
reverse_loss = 0.01
[[flow]]
name = "q"
algorithm = "cubic"
transport = "quic"
size = "2MB"
"#;
    let r = run(text, 3);
    let q = flow(&r, "q");
    eprintln!("{q:#?}");
    assert_eq!(q.delivered_bytes, 2_000_000);
    assert!(q.completion_time_s.is_some(), "{q:?}");
    assert!(
        q.retransmits > 0 && q.fast_recoveries > 0,
        "losses were seen: {q:?}"
    );
    assert!(r.metrics.links[0].wire_losses > 0);
    assert!(q.conservation.holds(), "{:?}", q.conservation);
}

#[test]
fn a_bad_transport_is_an_error_naming_the_field_and_the_choices() {
    let bad = ong_baseline("ledbat-plus-plus", "sctp");
    let e = parse("bad.toml", &bad).unwrap_err().to_string();
    for part in ["bad.toml", "transport", "\"sctp\"", "\"tcp\"", "\"quic\""] {
        assert!(e.contains(part), "{e:?} lacks {part:?}");
    }
    // A TCP-model knob on a QUIC flow is refused, not ignored.
    let knob = ong_baseline("ledbat-plus-plus", "quic").replace(
        "transport = \"quic\"",
        "transport = \"quic\"\npacing = true",
    );
    let e = parse("knob.toml", &knob).unwrap_err().to_string();
    assert!(e.contains("pacing") && e.contains("quic"), "{e:?}");
}
