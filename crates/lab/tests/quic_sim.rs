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

/// Where the foreground starts, as an offset from 10 s: sixteen phases 800 ms apart,
/// 10.0-22.0 s, one whole LEDBAT++ slowdown cycle (about 11-12 s here), each with every
/// seed in `SEEDS` (the seed moves the foreground's start jitter and quinn's draws).
///
/// One start time is not enough, nor one part of the cycle. The foreground's slow start
/// ends either early, HyStart's delay test firing in its second round (about 6 drops; the
/// background keeps 0.2-0.33 while it runs), or with a large overshoot (about 50 drops;
/// 0.16), and which one is decided by a margin of about one packet's time (1.5 ms) in
/// that test: the queue the foreground's first packets meet. Beside the unpaced TCP
/// background, whose delayed ACKs release its packets in pairs, that margin averages
/// +0.3 ms and varies more; beside the paced QUIC background, whose receiver acknowledges
/// every packet on this link, +1.4 ms. So the overshoot came in about 1/3 of the runs
/// beside TCP and 1/8 beside QUIC before the TCP handshake, 31 and 13 of 48 with it; and where LEDBAT++'s slowdown falls relative to the
/// foreground shifts the share as well. Each run is a draw from a bimodal outcome; the
/// comparison is of the two distributions, 48 runs each (docs/quic.md, "Why the
/// foreground overshoots less often beside QUIC").
const PHASES_MS: [u64; 16] = [
    0, 800, 1600, 2400, 3200, 4000, 4800, 5600, 6400, 7200, 8000, 8800, 9600, 10400, 11200, 12000,
];
const SEEDS: [u64; 3] = [1, 2, 3];

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Background share, foreground completion time and foreground retransmissions at each
/// phase, for each seed.
fn phases(bg_transport: &str) -> (Vec<f64>, Vec<f64>, Vec<u64>) {
    phases_with(bg_transport, "")
}

/// `phases` with extra keys for the background flow (`bg_keys`, TOML lines).
fn phases_with(bg_transport: &str, bg_keys: &str) -> (Vec<f64>, Vec<f64>, Vec<u64>) {
    let (mut share, mut ftt, mut drops) = (vec![], vec![], vec![]);
    for (seed, ms) in SEEDS
        .iter()
        .flat_map(|&s| PHASES_MS.iter().map(move |&m| (s, m)))
    {
        let text = ong_baseline("ledbat-plus-plus", bg_transport)
            .replace("start = \"10s\"", &format!("start = \"{}ms\"", 10_000 + ms))
            .replace(
                &format!("transport = \"{bg_transport}\"\n"),
                &format!("transport = \"{bg_transport}\"\n{bg_keys}"),
            );
        let r = run(&text, seed);
        let (bg, fg) = (flow(&r, "bg"), flow(&r, "fg"));
        eprintln!(
            "{bg_transport:4} seed {seed} fg start {:.1} s: bg share {:.3}, fg FTT {:.3} s, fg drops {}, bg {:.2} Mbit/s over the run, bg RTT p50 {:.1} ms",
            fg.start_s,
            bg_share(&r),
            fg.completion_time_s.expect("fg completes"),
            fg.retransmits,
            bg.goodput_bps / 1e6,
            bg.rtt_ms.p50.unwrap_or(f64::NAN),
        );
        assert!(
            bg.goodput_bps > 1e6,
            "{bg_transport}: the background moved data"
        );
        share.push(bg_share(&r));
        ftt.push(fg.completion_time_s.expect("fg completes"));
        drops.push(fg.retransmits);
    }
    (share, ftt, drops)
}

/// The foreground's slow start ends in one of two modes (see `PHASES_MS`): a large
/// overshoot (45-92 retransmissions) or an early HyStart exit (2-7, one run 19). Which one
/// is the foreground's (TCP CUBIC's) lottery, not the background's yielding, and its odds
/// differ with the background's packet pattern: with the handshake the foreground
/// overshoots in 31 of 48 runs beside the TCP background and 13 of 48 beside the QUIC one
/// (17 and 6 without handshakes), which alone moved the pooled share by 20 % (0.216 against
/// 0.260) while the share within each mode agreed (0.188 / 0.188 and 0.267 / 0.287). So the
/// two transports are compared mode by mode (docs/quic.md, "Why the foreground overshoots
/// less often beside QUIC").
const OVERSHOOT_DROPS: u64 = 30;

#[test]
fn quic_ledbat_plus_plus_yields_to_tcp_cubic_as_tcp_ledbat_plus_plus_does() {
    let tcp = phases("tcp");
    let quic = phases("quic");
    let pick = |p: &(Vec<f64>, Vec<f64>, Vec<u64>), overshoot: bool| {
        let keep = |i: &usize| (p.2[*i] >= OVERSHOOT_DROPS) == overshoot;
        let idx: Vec<usize> = (0..p.0.len()).filter(keep).collect();
        (
            idx.iter().map(|&i| p.0[i]).collect::<Vec<f64>>(),
            idx.iter().map(|&i| p.1[i]).collect::<Vec<f64>>(),
        )
    };
    for overshoot in [true, false] {
        let mode = if overshoot { "overshoot" } else { "early exit" };
        let ((s_tcp, f_tcp), (s_quic, f_quic)) = (pick(&tcp, overshoot), pick(&quic, overshoot));
        eprintln!(
            "{mode}: {} runs beside TCP, {} beside QUIC",
            s_tcp.len(),
            s_quic.len()
        );
        // Both modes occur on both sides, each in enough runs to compare.
        assert!(
            s_tcp.len() >= 4 && s_quic.len() >= 4,
            "{mode}: {} TCP runs, {} QUIC runs",
            s_tcp.len(),
            s_quic.len()
        );
        for (what, t, q) in [("bg share", &s_tcp, &s_quic), ("fg FTT", &f_tcp, &f_quic)] {
            for (stat, f) in [("mean", mean as fn(&[f64]) -> f64), ("median", median)] {
                let (t, q) = (f(t), f(q));
                eprintln!(
                    "{mode} {what} {stat}: tcp {t:.3}, quic {q:.3} ({:+.1} %)",
                    (q / t - 1.0) * 100.0
                );
                assert!(
                    (q - t).abs() <= 0.2 * t,
                    "{mode}, {what} ({stat}): quic {q:.3}, tcp {t:.3}"
                );
            }
        }
    }
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

/// An upload (data on the reverse link) from a host with its own access delay, beside a
/// TCP download: the datagrams take the same paths as a TCP flow's segments and ACKs.
/// (CUBIC, not LEDBAT++: the upload's ACKs queue behind the download on the forward
/// link, and an RTT-based LBE upload rightly yields to that, docs/quic.md.)
#[test]
fn a_quic_upload_with_access_delay_completes_and_its_rtt_includes_the_access_delay() {
    let text = r#"
duration = "20s"
[link]
rate = "8Mbit"
reverse_rate = "2Mbit"
delay = "25ms"
buffer = "70 packets"
[[flow]]
name = "up"
algorithm = "cubic"
transport = "quic"
direction = "upload"
extra_delay = "10ms"
size = "1MB"
[[flow]]
name = "down"
algorithm = "cubic"
"#;
    let r = run(text, 5);
    let up = flow(&r, "up");
    assert_eq!(up.delivered_bytes, 1_000_000, "{up:?}");
    assert!(up.completion_time_s.is_some());
    // Base RTT 50 ms + 2 × 10 ms of access delay.
    let p50 = up.rtt_ms.p50.unwrap();
    assert!(p50 >= 70.0, "{p50} ms");
    assert!(up.conservation.holds(), "{:?}", up.conservation);
    // Its data crossed the reverse link.
    assert!(r.metrics.links[1].tx_bytes > 1_000_000);
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

/// Not a check: prints both backgrounds' runs side by side for one foreground phase
/// (`QUIC_TRACE_PHASE_MS`, default 0), 100 ms bins from `QUIC_TRACE_FROM_S` (9) to
/// `QUIC_TRACE_TO_S` (15)
/// (docs/quic.md, "Traced"). Run with `--ignored --nocapture`.
#[test]
#[ignore = "a tracing aid, prints only"]
fn trace_tcp_and_quic_ledbat_plus_plus_beside_cubic() {
    let ms: u64 = std::env::var("QUIC_TRACE_PHASE_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let runs: Vec<RunRecord> = ["tcp", "quic"]
        .iter()
        .map(|t| {
            let text = ong_baseline("ledbat-plus-plus", t)
                .replace("start = \"10s\"", &format!("start = \"{}ms\"", 10_000 + ms));
            run(&text, 1)
        })
        .collect();
    for (t, r) in ["tcp", "quic"].iter().zip(&runs) {
        let (bg, fg) = (flow(r, "bg"), flow(r, "fg"));
        eprintln!(
            "{t}: share {:.3}, fg FTT {:.3} s, fg retrans {}, bg retrans {}, bg loss reductions {}, bg timeouts {}, bg RTT p50 {:?} p95 {:?}",
            bg_share(r),
            fg.completion_time_s.unwrap_or(f64::NAN),
            fg.retransmits,
            bg.retransmits,
            bg.fast_recoveries,
            bg.timeouts,
            bg.rtt_ms.p50,
            bg.rtt_ms.p95
        );
    }
    let s: Vec<_> = runs
        .iter()
        .map(|r| r.metrics.series.as_ref().unwrap())
        .collect();
    let col = |s: &scavenger_sim::result::Series, name: &str, i: usize| {
        s.trace(0, name).map_or(f64::NAN, |v| v[i])
    };
    eprintln!("   t | tcp: bg Mb/s fg Mb/s bg cwnd fg cwnd queue qdelay phase | quic: bg Mb/s fg Mb/s bg cwnd fg cwnd queue");
    for i in 0..s[0].time_s.len() {
        let t = s[0].time_s[i];
        let env = |k: &str, d: f64| {
            std::env::var(k)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(d)
        };
        if !(env("QUIC_TRACE_FROM_S", 9.0)..=env("QUIC_TRACE_TO_S", 15.0)).contains(&t) {
            continue;
        }
        eprintln!(
            "{t:5.1} | {:6.2} {:6.2} {:7} {:7} {:4} {:6.1} {:3.0} | {:6.2} {:6.2} {:7} {:7} {:4}",
            s[0].flow_goodput_bps[0][i] / 1e6,
            s[0].flow_goodput_bps[1][i] / 1e6,
            s[0].flow_cwnd_bytes[0][i],
            s[0].flow_cwnd_bytes[1][i],
            s[0].queue_pkts[i],
            col(s[0], "queuing_delay_ms", i),
            col(s[0], "phase", i),
            s[1].flow_goodput_bps[0][i] / 1e6,
            s[1].flow_goodput_bps[1][i] / 1e6,
            s[1].flow_cwnd_bytes[0][i],
            s[1].flow_cwnd_bytes[1][i],
            s[1].queue_pkts[i],
        );
    }
}

/// Not a check: the acceptance's comparison with LEDBAT++'s periodic slowdowns off in both
/// backgrounds, which takes the slowdown schedule's phase out of the comparison
/// (docs/quic.md, "Traced"). Prints the means.
#[test]
#[ignore = "a tracing aid, prints only"]
fn trace_the_acceptance_without_slowdowns() {
    let keys = "params = { slowdown = false }\n";
    let (s_tcp, f_tcp, _) = phases_with("tcp", keys);
    let (s_quic, f_quic, _) = phases_with("quic", keys);
    eprintln!(
        "slowdown = false: bg share mean tcp {:.3}, quic {:.3} ({:+.1} %); median tcp {:.3}, quic {:.3}; fg FTT mean tcp {:.3}, quic {:.3} ({:+.1} %)",
        mean(&s_tcp),
        mean(&s_quic),
        (mean(&s_quic) / mean(&s_tcp) - 1.0) * 100.0,
        median(&s_tcp),
        median(&s_quic),
        mean(&f_tcp),
        mean(&f_quic),
        (mean(&f_quic) / mean(&f_tcp) - 1.0) * 100.0
    );
}

/// Not a check: the foreground's slow start beside a TCP and a QUIC LEDBAT++ background,
/// 10 ms bins, with every packet at the hosts tapped. For each phase in
/// `QUIC_TRACE_PHASES_MS` (comma-separated offsets from 10 s; default the acceptance's)
/// prints, per transport: the bottleneck queue and the background's window when the
/// foreground arrives, when HyStart ended the foreground's slow start and at what window,
/// its first retransmission, and the reverse link's ACK load (packets, bytes per ACK) of
/// each flow from the foreground's start to its slow-start exit. `QUIC_TRACE_BINS=1` also
/// prints the 10 ms bins from the foreground's start to 1.5 s later; `QUIC_TRACE_SEEDS`
/// (comma-separated, default 1) repeats it for each seed and ends with a tally (docs/quic.md,
/// "Why the foreground overshoots less often beside QUIC").
#[test]
#[ignore = "a tracing aid, prints only"]
fn trace_the_foregrounds_slow_start_beside_tcp_and_quic() {
    use scavenger_sim::packet::Kind;
    use scavenger_sim::tap::{PacketLog, TapPoint};
    use std::cell::RefCell;
    use std::rc::Rc;
    let phases: Vec<u64> = std::env::var("QUIC_TRACE_PHASES_MS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or(PHASES_MS.to_vec());
    let seeds: Vec<u64> = std::env::var("QUIC_TRACE_SEEDS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or(vec![1]);
    let bins = std::env::var("QUIC_TRACE_BINS").is_ok_and(|v| v == "1");
    // Per transport: runs, runs in the overshoot mode (> 20 foreground drops), shares.
    let mut tally: [(u32, u32, Vec<f64>, Vec<f64>); 2] = Default::default();
    for (seed, ms) in seeds
        .iter()
        .flat_map(|&s| phases.iter().map(move |&m| (s, m)))
    {
        for (ti, t) in ["tcp", "quic"].into_iter().enumerate() {
            // `QUIC_TRACE_TCP_BG_KEYS`: extra TOML lines for the TCP background only
            // (e.g. `pacing = true`).
            let keys = match (t, std::env::var("QUIC_TRACE_TCP_BG_KEYS")) {
                ("tcp", Ok(k)) => format!("{}\n", k.replace("\\n", "\n")),
                _ => String::new(),
            };
            let text = ong_baseline("ledbat-plus-plus", t)
                .replace("start = \"10s\"", &format!("start = \"{}ms\"", 10_000 + ms))
                .replace("series_bin = \"100ms\"", "series_bin = \"10ms\"")
                .replace(
                    &format!("transport = \"{t}\"\n"),
                    &format!("transport = \"{t}\"\n{keys}"),
                );
            let sc = parse("quic.toml", &text).unwrap_or_else(|e| panic!("{e}"));
            let log = Rc::new(RefCell::new(PacketLog::default()));
            let mut sim = scavenger_sim::Simulation::new(sc.to_sim(seed));
            sim.set_tap(Box::new(log.clone()));
            let m = sim.run();
            let s = m.series.as_ref().unwrap();
            let fg = m.flows.iter().find(|f| f.name == "fg").unwrap();
            let tr = |name: &str| -> &[f64] { s.trace(1, name).unwrap() };
            let bin_of = |t: f64| ((t / s.bin_s).ceil() as usize).min(s.time_s.len() - 1);
            let i0 = bin_of(fg.start_s);
            let found = tr("hystart_found");
            let i_exit = (i0..s.time_s.len()).find(|&i| found[i] > 0.5);
            let log = log.borrow();
            let first_rtx = log
                .entries
                .iter()
                .find(|(_, at, p)| {
                    *at == TapPoint::SenderOut && p.flow == 1 && p.kind == Kind::Data && p.retrans
                })
                .map(|(t, _, _)| t.secs_f64());
            let peak_fg = s.flow_cwnd_bytes[1][i0..].iter().take(300).max().copied();
            let t_exit = i_exit.map_or(fg.start_s + 1.5, |i| s.time_s[i]);
            // Reverse-link ACK load of each flow while the foreground slow-starts.
            let mut acks = [(0u64, 0u64); 2];
            let mut bg_data = 0u64;
            for (now, at, p) in &log.entries {
                let x = now.secs_f64();
                if x < fg.start_s || x > t_exit {
                    continue;
                }
                if *at == TapPoint::ReceiverOut && p.kind == Kind::Ack {
                    acks[p.flow as usize].0 += 1;
                    acks[p.flow as usize].1 += p.wire as u64;
                }
                if *at == TapPoint::SenderOut && p.flow == 0 && p.kind == Kind::Data {
                    bg_data += 1;
                }
            }
            let dur = t_exit - fg.start_s;
            let share = bg_share(&run(
                &text.replace("series_bin = \"10ms\"", "series_bin = \"100ms\""),
                seed,
            ));
            tally[ti].0 += 1;
            tally[ti].1 += u32::from(fg.retransmits > 20);
            tally[ti].2.push(share);
            tally[ti].3.push(fg.completion_time_s.unwrap_or(f64::NAN));
            // HyStart's delay test in the second round compares the RTT of segment 10
            // (the round's first) with 9/8 of segment 0's (delay_min): each split into
            // the forward path (queue + 25 ms + serialisation) and the ACK's way back
            // (the 1 Mbit/s reverse link, shared with the background's ACKs).
            let when = |at: TapPoint, kind: Kind, key: u32| {
                log.entries
                    .iter()
                    .find(|(_, a, p)| {
                        *a == at
                            && p.flow == 1
                            && p.kind == kind
                            && if kind == Kind::Data {
                                p.seg == key
                            } else {
                                p.ack == key
                            }
                    })
                    .map_or(f64::NAN, |(t, _, _)| t.secs_f64() * 1e3)
            };
            let split = |seg: u32| {
                let out = when(TapPoint::SenderOut, Kind::Data, seg);
                let rin = when(TapPoint::ReceiverIn, Kind::Data, seg);
                let aout = when(TapPoint::ReceiverOut, Kind::Ack, seg + 1);
                let ain = when(TapPoint::SenderIn, Kind::Ack, seg + 1);
                (ain - out, rin - out, aout - rin, ain - aout)
            };
            let (r0, f0, h0, b0) = split(0);
            let (r10, f10, h10, b10) = split(10);
            // The background's datagrams that entered the bottleneck between segment 0's
            // and segment 10's departures (no access delay: leaving the host is entering
            // the queue), and its ACKs that reached its sender then.
            let t0 = when(TapPoint::SenderOut, Kind::Data, 0) / 1e3;
            let t10 = when(TapPoint::SenderOut, Kind::Data, 10) / 1e3;
            let (mut bg_in, mut bg_acks_in) = (0u32, 0u32);
            for (now, at, p) in &log.entries {
                let x = now.secs_f64();
                if p.flow == 0 && x >= t0 && x < t10 {
                    match (at, p.kind) {
                        (TapPoint::SenderOut, Kind::Data) => bg_in += 1,
                        (TapPoint::SenderIn, Kind::Ack) => bg_acks_in += 1,
                        _ => {}
                    }
                }
            }
            eprintln!(
                "{seed} {ms:5} {t:4}: between seg 0 and seg 10 leaving ({:.2} ms): bg datagrams in {bg_in}, bg ACKs back {bg_acks_in}",
                (t10 - t0) * 1e3
            );
            eprintln!(
                "{seed} {ms:5} {t:4}: seg 0 rtt {r0:.2} ms (fwd {f0:.2}, hold {h0:.2}, back {b0:.2}); seg 10 rtt {r10:.2} (fwd {f10:.2}, hold {h10:.2}, back {b10:.2}); margin rtt10 - 9/8 rtt0 = {:+.2} ms",
                r10 - 1.125 * r0
            );
            eprintln!(
                "{seed} {ms:5} {t:4}: fg start {:.3} s, queue {} pkts, bg cwnd {} B | HyStart exit {} at fg cwnd {} B, fg delay_min {:.1} ms, first fg rtx {}, peak fg cwnd {:?} B, fg drops {}, FTT {:.3} s | over {:.3} s: bg data pkts {}, ACKs bg {} ({:.0} B avg, {:.0} kbit/s) fg {} ({:.0} B avg, {:.0} kbit/s) | share {:.3}",
                fg.start_s,
                s.queue_pkts[i0],
                s.flow_cwnd_bytes[0][i0],
                i_exit.map_or("none".into(), |i| format!("{:.2} s", s.time_s[i])),
                i_exit.map_or(0, |i| s.flow_cwnd_bytes[1][i]),
                i_exit.map_or(f64::NAN, |i| tr("delay_min_ms")[i]),
                first_rtx.map_or("none".into(), |x| format!("{x:.3} s")),
                peak_fg,
                fg.retransmits,
                fg.completion_time_s.unwrap_or(f64::NAN),
                dur,
                bg_data,
                acks[0].0,
                acks[0].1 as f64 / acks[0].0.max(1) as f64,
                acks[0].1 as f64 * 8.0 / dur / 1e3,
                acks[1].0,
                acks[1].1 as f64 / acks[1].0.max(1) as f64,
                acks[1].1 as f64 * 8.0 / dur / 1e3,
                share,
            );
            if std::env::var("QUIC_TRACE_FG_ACKS").is_ok_and(|v| v == "1") {
                // Every foreground ACK at its sender until the slow start ends: its RTT
                // (timestamp echo), its spacing from the previous one, and how many ACKs
                // of either flow the reverse link carried in between.
                let mut prev: Option<f64> = None;
                let mut between = [0u32; 2];
                for (now, at, p) in &log.entries {
                    let x = now.secs_f64();
                    if x < fg.start_s || x > t_exit + 0.02 {
                        continue;
                    }
                    if *at == TapPoint::SenderIn {
                        between[p.flow as usize] += 1;
                        if p.flow == 1 {
                            eprintln!(
                                "    ack {x:.4} s: seg {:5}, rtt {:6.1} ms, gap {:5.2} ms, bg ACKs since {}",
                                p.ack,
                                (now.nanos() - p.ts_ecr) as f64 / 1e6,
                                prev.map_or(f64::NAN, |q| (x - q) * 1e3),
                                between[0]
                            );
                            prev = Some(x);
                            between = [0; 2];
                        }
                    }
                }
            }
            if bins {
                eprintln!("      t | queue | bg cwnd  | fg cwnd  found dmin | bg Mb/s fg Mb/s");
                let dmin = tr("delay_min_ms");
                for (i, t) in s
                    .time_s
                    .iter()
                    .enumerate()
                    .take(i0 + 150)
                    .skip(i0.saturating_sub(5))
                {
                    eprintln!(
                        "  {t:6.2} | {:5} | {:8} | {:8} {:3.0} {:5.1} | {:6.2} {:6.2}",
                        s.queue_pkts[i],
                        s.flow_cwnd_bytes[0][i],
                        s.flow_cwnd_bytes[1][i],
                        found[i],
                        dmin[i],
                        s.flow_goodput_bps[0][i] / 1e6,
                        s.flow_goodput_bps[1][i] / 1e6,
                    );
                }
            }
        }
    }
    for (t, (n, over, share, ftt)) in ["tcp", "quic"].iter().zip(&tally) {
        eprintln!(
            "{t:4}: {n} runs, {over} in the overshoot mode; bg share mean {:.3} median {:.3}; fg FTT mean {:.3} median {:.3}",
            mean(share),
            median(share),
            mean(ftt),
            median(ftt)
        );
    }
}

/// `prompt_acks()` asks the receiver to ACK every second packet at once and to hold an odd
/// one at most 1 ms. Where a full datagram takes longer than 1 ms to arrive (8 Mbit/s:
/// 1.5 ms) the timer fires first and every packet is acknowledged; where it takes less
/// (100 Mbit/s: 0.12 ms) every second one is (docs/quic.md, "ACK frequency").
#[test]
fn quic_acks_every_packet_below_12_mbit_s_and_every_second_one_above() {
    use scavenger_sim::packet::Kind;
    use scavenger_sim::tap::{PacketLog, TapPoint};
    use std::cell::RefCell;
    use std::rc::Rc;
    let acks_per_packet = |rate: &str| {
        let text = format!(
            r#"
duration = "3s"
[link]
rate = "{rate}"
reverse_rate = "{rate}"
delay = "25ms"
buffer = "100 packets"
[[flow]]
name = "q"
algorithm = "cubic"
transport = "quic"
"#
        );
        let sc = parse("acks.toml", &text).unwrap_or_else(|e| panic!("{e}"));
        let log = Rc::new(RefCell::new(PacketLog::default()));
        let mut sim = scavenger_sim::Simulation::new(sc.to_sim(1));
        sim.set_tap(Box::new(log.clone()));
        sim.run();
        // After the handshake and the first second, full-sized data only.
        let (mut data, mut acks) = (0u32, 0u32);
        for (t, at, p) in &log.borrow().entries {
            if t.secs_f64() < 1.0 {
                continue;
            }
            match (at, p.kind) {
                (TapPoint::ReceiverIn, Kind::Data) => data += 1,
                (TapPoint::ReceiverOut, Kind::Ack) => acks += 1,
                _ => {}
            }
        }
        assert!(data > 500, "{rate}: {data} datagrams");
        acks as f64 / data as f64
    };
    let slow = acks_per_packet("8Mbit");
    let fast = acks_per_packet("100Mbit");
    eprintln!("ACKs per data datagram: 8 Mbit/s {slow:.3}, 100 Mbit/s {fast:.3}");
    assert!((0.97..=1.05).contains(&slow), "8 Mbit/s: {slow}");
    assert!((0.48..=0.55).contains(&fast), "100 Mbit/s: {fast}");
}
