//! Root tests of the emulated testbed. Each skips, saying why, where network namespaces
//! cannot be created (not root, no CONFIG_NET_NS). They run one at a time (a lock), so
//! that their timing does not depend on each other.

mod common;

use common::{can_run, link, say};
use scavenger_testbed::emulator::EmulatorConfig;
use scavenger_testbed::{netns, run_scenario, RunOptions, Testbed};
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// The namespaces of testbed `id` (its names are `ID-role`).
fn namespaces_of(id: &str) -> Vec<String> {
    netns::list(&format!("{id}-"))
}

/// File descriptors of this process open on /dev/net/tun (each one is a live TUN device).
fn open_tun_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            std::fs::read_link(e.path()).is_ok_and(|p| p == std::path::Path::new("/dev/net/tun"))
        })
        .count()
}

fn scenario(text: &str) -> scavenger_lab::Scenario {
    scavenger_lab::parse("test.toml", text).expect("valid scenario")
}

#[test]
fn cubic_fills_a_10mbit_one_bdp_link() {
    let _g = serial();
    if !can_run("cubic_fills_a_10mbit_one_bdp_link") {
        return;
    }
    let sc = scenario("duration = \"8s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"bulk\"\nalgorithm = \"cubic\"\n");
    let r = run_scenario(&sc, &RunOptions::default()).expect("run");
    let f = &r.record.metrics.flows[0];
    println!(
        "cubic 10 Mbit/s 1 BDP: goodput {:.3} Mbit/s, rtt {:?}, retransmits {}, lateness {}",
        f.goodput_bps / 1e6,
        f.rtt_ms,
        f.retransmits,
        r.record.testbed.as_ref().unwrap()["emulator"]["lateness_ms"]
    );
    // One BDP of buffer is enough for CUBIC (β = 0.7) to keep the link busy; the ceiling
    // is 10 Mbit/s × 1448/1500 payload per IP packet = 9.65 Mbit/s.
    assert!(
        f.goodput_bps >= 9e6,
        "goodput {:.3} Mbit/s",
        f.goodput_bps / 1e6
    );
    assert!(
        f.goodput_bps <= 9.66e6,
        "goodput above the link's capacity: {:.3} Mbit/s",
        f.goodput_bps / 1e6
    );
    assert_eq!(r.record.datapath, "testbed");
    let tb = r.record.testbed.as_ref().expect("testbed block");
    assert_eq!(tb["flows"][0]["cc_in_use"], "cubic");
    assert!(!tb["kernel"].as_str().unwrap().is_empty());
    // Conservation on the data direction, and the RTT floor of 2 × 10 ms.
    assert!(f.conservation.holds(), "{:?}", f.conservation);
    assert!(f.rtt_ms.p50.unwrap() >= 20.0, "{:?}", f.rtt_ms);
}

#[test]
fn codel_holds_cubic_sojourn_near_its_target() {
    let _g = serial();
    if !can_run("codel_holds_cubic_sojourn_near_its_target") {
        return;
    }
    // A 1000-packet buffer (1.2 s at 10 Mbit/s) that drop-tail would let CUBIC fill;
    // CoDel (RFC 8289, target 5 ms, interval 100 ms) keeps the standing queue near 5 ms.
    let sc = scenario("duration = \"8s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"20ms\"\nbuffer = \"1000 packets\"\nqdisc = \"codel\"\n[[flow]]\nname = \"bulk\"\nalgorithm = \"cubic\"\n");
    let r = run_scenario(&sc, &RunOptions::default()).expect("run");
    let l = &r.record.metrics.links[0];
    let (p50, mean) = (l.qdelay_ms.p50.unwrap(), l.qdelay_ms.mean.unwrap());
    println!(
        "codel: sojourn {:?}, aqm drops {}, goodput {:.3} Mbit/s",
        l.qdelay_ms,
        l.aqm_drops,
        r.record.metrics.flows[0].goodput_bps / 1e6
    );
    assert!(l.aqm_drops > 0, "CoDel never dropped");
    assert!(
        p50 <= 10.0 && mean <= 15.0,
        "sojourn p50 {p50:.2} ms, mean {mean:.2} ms: not held near 5 ms"
    );
    // And the link stays busy: CoDel is not starving the flow.
    assert!(
        r.record.metrics.flows[0].goodput_bps >= 8e6,
        "goodput {:.3}",
        r.record.metrics.flows[0].goodput_bps / 1e6
    );
}

#[test]
fn codel_marks_ecn_capable_kernel_tcp_instead_of_dropping() {
    let _g = serial();
    if !can_run("codel_marks_ecn_capable_kernel_tcp_instead_of_dropping") {
        return;
    }
    // RFC 3168 ECN end to end: CoDel with `ecn` sets CE in the IPv4 header; the kernel at
    // the receiver accepts the packets (so the updated header checksum is right) and
    // echoes ECE; the sender reduces its window (TCP_CA_CWR) instead of retransmitting.
    let sc = scenario("duration = \"5s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"20ms\"\nbuffer = \"1000 packets\"\nqdisc = { kind = \"codel\", ecn = true }\n[[flow]]\nname = \"bulk\"\nalgorithm = \"cubic\"\necn = true\n");
    let r = run_scenario(&sc, &RunOptions::default()).expect("run");
    let (l, f) = (&r.record.metrics.links[0], &r.record.metrics.flows[0]);
    println!(
        "ecn: marks {}, drops {}, cwr entries seen {}, retransmits {}, goodput {:.3}",
        l.ecn_marks,
        l.queue_drops,
        f.ecn_responses,
        f.retransmits,
        f.goodput_bps / 1e6
    );
    assert!(l.ecn_marks > 0, "CoDel never marked");
    assert_eq!(
        l.queue_drops, 0,
        "ECT packets are marked, not dropped, below the hard limit"
    );
    assert!(f.ecn_responses > 0, "the sender never entered CWR");
    assert!(
        f.goodput_bps >= 8e6,
        "goodput {:.3} Mbit/s: marked packets lost at the receiver?",
        f.goodput_bps / 1e6
    );
}

#[test]
fn two_testbeds_coexist() {
    let _g = serial();
    if !can_run("two_testbeds_coexist") {
        return;
    }
    // Same addresses and device names, different namespaces: each ping sees its own delay.
    let a = Testbed::dumbbell(EmulatorConfig {
        forward: link(100, 5, 100),
        reverse: link(100, 5, 100),
        seed: 1,
        flows: vec![],
        log_limit: 0,
    })
    .expect("first");
    let b = Testbed::dumbbell(EmulatorConfig {
        forward: link(100, 15, 100),
        reverse: link(100, 15, 100),
        seed: 1,
        flows: vec![],
        log_limit: 0,
    })
    .expect("second");
    assert_ne!(a.topo.id, b.topo.id);
    let ra = scavenger_testbed::icmp::ping(&a.host("server").ns, a.host("client").addr, 5, 5)
        .expect("ping a");
    let rb = scavenger_testbed::icmp::ping(&b.host("server").ns, b.host("client").addr, 5, 5)
        .expect("ping b");
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    assert!((10.0..12.0).contains(&min(&ra)), "{ra:?}");
    assert!((30.0..32.0).contains(&min(&rb)), "{rb:?}");
    let (ida, idb) = (a.topo.id.clone(), b.topo.id.clone());
    drop(a);
    assert!(namespaces_of(&ida).is_empty());
    assert_eq!(
        namespaces_of(&idb).len(),
        4,
        "dropping one testbed leaves the other alone"
    );
    drop(b);
    assert!(namespaces_of(&idb).is_empty());
}

#[test]
fn nothing_is_left_after_a_panic_inside_the_guard() {
    let _g = serial();
    if !can_run("nothing_is_left_after_a_panic_inside_the_guard") {
        return;
    }
    let before = open_tun_fds();
    let id = std::sync::Arc::new(Mutex::new(String::new()));
    let id2 = id.clone();
    let r = std::panic::catch_unwind(move || {
        let tb = Testbed::dumbbell(EmulatorConfig {
            forward: link(10, 5, 100),
            reverse: link(10, 5, 100),
            seed: 1,
            flows: vec![],
            log_limit: 0,
        })
        .expect("testbed");
        *id2.lock().unwrap() = tb.topo.id.clone();
        assert_eq!(
            namespaces_of(&tb.topo.id).len(),
            4,
            "two routers and two hosts exist while the guard lives"
        );
        panic!("failing on purpose inside the guard's scope");
    });
    assert!(r.is_err());
    let id = id.lock().unwrap().clone();
    assert!(!id.is_empty());
    assert_eq!(
        namespaces_of(&id),
        Vec::<String>::new(),
        "namespaces left behind"
    );
    let listed = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip netns list");
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        !listed.lines().any(|l| l.starts_with(&format!("{id}-"))),
        "`ip netns list` still shows {id}: {listed}"
    );
    assert_eq!(open_tun_fds(), before, "TUN devices left open");
}

/// Not run directly: the child half of the signal test.
#[test]
#[ignore]
fn child_holds_a_testbed_until_signalled() {
    if std::env::var("SCVTB_CHILD").is_err() {
        return;
    }
    netns::install_signal_handlers();
    let tb = Testbed::dumbbell(EmulatorConfig {
        forward: link(10, 5, 100),
        reverse: link(10, 5, 100),
        seed: 1,
        flows: vec![],
        log_limit: 0,
    })
    .expect("testbed");
    println!("TESTBED {}", tb.topo.id);
    let t0 = std::time::Instant::now();
    while !netns::stop_requested() && t0.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    drop(tb);
}

#[test]
fn ctrl_c_tears_the_testbed_down() {
    let _g = serial();
    if !can_run("ctrl_c_tears_the_testbed_down") {
        return;
    }
    use std::io::BufRead;
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe)
        .args([
            "--exact",
            "child_holds_a_testbed_until_signalled",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SCVTB_CHILD", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut id = None;
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        // The harness prints "test NAME ... " on the same line first.
        if let Some(i) = line.find("TESTBED ") {
            id = Some(line[i + 8..].trim().to_string());
            break;
        }
    }
    let id = id.expect("the child reported its testbed");
    assert_eq!(namespaces_of(&id).len(), 4);
    // SAFETY: sends SIGINT to our own child by pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    // Keep reading so the child can finish writing its report.
    lines.for_each(drop);
    let st = child.wait().unwrap();
    assert!(st.success(), "child exited with {st}");
    assert_eq!(
        namespaces_of(&id),
        Vec::<String>::new(),
        "namespaces left behind after SIGINT"
    );
}

/// `can_run`, and the BPF objects of crates/kernel are usable here; says why not.
fn can_run_with_kernel(test: &str) -> bool {
    if !can_run(test) {
        return false;
    }
    if let Some(why) = scavenger_kernel::unavailable_reason() {
        say(&format!("SKIP {test}: {why}"));
        return false;
    }
    true
}

/// The congestion control a testbed flow of our algorithm `alg` runs as, and how: our
/// native BPF version, else the kernel's own, else our code in the scv_shim agent.
fn kernel_datapath(alg: &str) -> (String, &'static str) {
    use scavenger_testbed::run::{kernel_cc_for, kernel_ccs, native_for};
    if let Some(a) = native_for(alg) {
        (a.name.to_string(), "native")
    } else if let Ok(k) = kernel_cc_for(alg, &kernel_ccs()) {
        (k, "kernel")
    } else {
        ("scv_shim".to_string(), "scv_shim + agent")
    }
}

/// The first flow's share of the two flows' goodput.
fn share(a: f64, b: f64) -> f64 {
    a / (a + b)
}

/// Issue 10 acceptance on the testbed: Ong 2020's 8/1 Mbit/s access link, 50 ms RTT,
/// 70-packet buffers; a long-lived CUBIC foreground joins a background download at 3 s.
/// Returns (background goodput, foreground goodput) over the run (bit/s) and the same
/// pair from the simulator for the same scenario.
fn adsl_pair(bg: &str, params: &str) -> ((f64, f64), (f64, f64)) {
    let sc = scenario(&format!(
        "duration = \"25s\"\n[link]\nrate = \"8Mbit\"\nreverse_rate = \"1Mbit\"\ndelay = \"25ms\"\nbuffer = \"70 packets\"\n[[flow]]\nname = \"bg\"\nalgorithm = \"{bg}\"\n{params}\n[[flow]]\nname = \"fg\"\nalgorithm = \"cubic\"\nstart = \"3s\"\n"
    ));
    let r = run_scenario(&sc, &RunOptions::default()).expect("run");
    let tb = r.record.testbed.as_ref().unwrap();
    assert_eq!(
        tb["flows"][0]["cc_in_use"],
        kernel_datapath(bg).0.as_str(),
        "{tb}"
    );
    let m = &r.record.metrics;
    let sim = scavenger_lab::run_scenario(&sc, 1).metrics;
    (
        (m.flows[0].goodput_bps, m.flows[1].goodput_bps),
        (sim.flows[0].goodput_bps, sim.flows[1].goodput_bps),
    )
}

/// What every native LBE algorithm must show beside CUBIC on the ADSL link: the CUBIC
/// foreground gets more than against a CUBIC background; the simulator agrees within 20 %
/// on the foreground's goodput (the quantity the LBE protects); and nothing of ours stays
/// registered or pinned after the run.
fn foreground_better_off_and_as_simulated(lbe: &str, fg: f64, fg_vs_cubic: f64, sim_fg: f64) {
    assert!(
        fg > fg_vs_cubic,
        "CUBIC gets {:.2} Mbit/s against {lbe}, not more than {:.2} against CUBIC",
        fg / 1e6,
        fg_vs_cubic / 1e6
    );
    assert!(
        (fg / sim_fg - 1.0).abs() <= 0.2,
        "foreground goodput: testbed {:.2}, simulator {:.2} Mbit/s",
        fg / 1e6,
        sim_fg / 1e6
    );
    let left = scavenger_kernel::manage::own_leftovers();
    assert!(left.is_empty(), "left registered or pinned: {left:?}");
}

#[test]
fn native_ledbat_on_kernel_tcp_yields_to_cubic_on_the_adsl_link() {
    let _g = serial();
    if !can_run_with_kernel("native_ledbat_on_kernel_tcp_yields_to_cubic_on_the_adsl_link") {
        return;
    }
    // LEDBAT with a 25 ms target: with RFC 6817's 100 ms the target is the whole
    // 70-packet (105 ms) buffer, and LEDBAT competes like Reno on this link, as Ong 2020
    // found (§4.7: LEDBAT "regular TCP-like"). The target also exercises the scenario's
    // `params` reaching the BPF object's parameter map.
    let ((lbe, fg), (sim_lbe, sim_fg)) = adsl_pair("ledbat", "params = { target = \"25ms\" }");
    let ((cubic_bg, fg_vs_cubic), (sim_cubic_bg, sim_fg_vs_cubic)) = adsl_pair("cubic", "");
    say(&format!(
        "adsl 8/1 50 ms, goodput Mbit/s: testbed scv_ledbat {:.2} / cubic fg {:.2} (share {:.2}); cubic bg {:.2} / cubic fg {:.2}; simulator ledbat {:.2} / {:.2} (share {:.2}); cubic {:.2} / {:.2}",
        lbe / 1e6,
        fg / 1e6,
        share(lbe, fg),
        cubic_bg / 1e6,
        fg_vs_cubic / 1e6,
        sim_lbe / 1e6,
        sim_fg / 1e6,
        share(sim_lbe, sim_fg),
        sim_cubic_bg / 1e6,
        sim_fg_vs_cubic / 1e6
    ));
    assert!(
        share(lbe, fg) < 0.5,
        "LEDBAT's share {:.2} is not below half",
        share(lbe, fg)
    );
    foreground_better_off_and_as_simulated("LEDBAT", fg, fg_vs_cubic, sim_fg);
}

/// The native Ebb (scv_ebb) against CUBIC on the same link as LEDBAT above: Ebb yields
/// (its share below a fifth; 0.11 on the testbed and 0.12 in the simulator on
/// 2026-11-28, the share of its 3 s alone included), CUBIC is better off than
/// against CUBIC, and the foreground agrees with the simulator within 20 %
/// (docs/ebb.md#testbed-acceptance has issue 18's full acceptance runs).
#[test]
fn native_ebb_on_kernel_tcp_yields_to_cubic_on_the_adsl_link() {
    let _g = serial();
    if !can_run_with_kernel("native_ebb_on_kernel_tcp_yields_to_cubic_on_the_adsl_link") {
        return;
    }
    let ((lbe, fg), (sim_lbe, sim_fg)) = adsl_pair("ebb", "");
    let ((_, fg_vs_cubic), _) = adsl_pair("cubic", "");
    say(&format!(
        "adsl 8/1 50 ms, goodput Mbit/s: testbed scv_ebb {:.2} / cubic fg {:.2} (share {:.2}); cubic fg against cubic {:.2}; simulator ebb {:.2} / {:.2} (share {:.2})",
        lbe / 1e6,
        fg / 1e6,
        share(lbe, fg),
        fg_vs_cubic / 1e6,
        sim_lbe / 1e6,
        sim_fg / 1e6,
        share(sim_lbe, sim_fg),
    ));
    assert!(share(lbe, fg) < 0.2, "Ebb's share {:.2}", share(lbe, fg));
    foreground_better_off_and_as_simulated("Ebb", fg, fg_vs_cubic, sim_fg);
}

/// Wallenburg 2018's long-term DA-LBE scenario at reduced scale on kernel sockets: the DA-LBE
/// flow runs our CUBIC + CUBIC model-based controller in the scv_shim agent (crates/kernel)
/// against a kernel CUBIC flow. The thesis (§5.3, Table 5.2): 100 Mbit/s, 30 ms RTT, 1-BDP
/// buffer, 1625 MB due 600 s after the start (21.67 Mbit/s, 24 % of the 90 Mbit/s left by
/// its UDP noise), T_w = 10 s, T_φ = 60 s. Reduced: rate / 5, time / 20, same RTT and
/// 1-BDP buffer, no noise (the testbed has no CBR flows): 18 MB due in 30 s (4.8 Mbit/s,
/// 24 % of 20 Mbit/s), T_w = 0.5 s, T_φ = 3 s, so the controller acts 60 times before the
/// deadline as in the thesis.
#[test]
fn dalbe_long_term_reduced_runs_on_kernel_sockets_through_the_shim() {
    let _g = serial();
    if !can_run_with_kernel("dalbe_long_term_reduced_runs_on_kernel_sockets_through_the_shim") {
        return;
    }
    let sc = scenario("duration = \"45s\"\n[link]\nrate = \"20Mbit\"\ndelay = \"15ms\"\nbuffer = \"50 packets\"\n[[flow]]\nname = \"be\"\nalgorithm = \"cubic\"\n[[flow]]\nname = \"dalbe\"\nalgorithm = \"cubic\"\nstart = \"2s\"\nsize = \"18MB\"\ndeadline = \"30s\"\ndalbe = { controller = \"cubic-mbc\", interval = \"0.5s\", price_interval = \"3s\" }\n");
    let r = run_scenario(&sc, &RunOptions::default()).expect("run");
    let tb = r.record.testbed.as_ref().unwrap();
    assert_eq!(tb["flows"][1]["cc_in_use"], "scv_shim", "{tb}");
    assert_eq!(tb["flows"][0]["cc_in_use"], "cubic", "{tb}");
    let d = &r.record.metrics.flows[1];
    let sim = scavenger_lab::run_scenario(&sc, 1).metrics;
    say(&format!("DA-LBE reduced long term: testbed completion {:?} s (deadline 30 s), be {:.2} Mbit/s; simulator {:?} s, be {:.2}", d.completion_time_s, r.record.metrics.flows[0].goodput_bps / 1e6, sim.flows[1].completion_time_s, sim.flows[0].goodput_bps / 1e6));
    let done = d.completion_time_s.unwrap_or_else(|| {
        panic!(
            "the DA-LBE flow did not finish in 43 s: {} of 18 MB delivered",
            d.delivered_bytes
        )
    });
    // Meets its deadline: 0.6–4.3 s early in six runs, the simulator 7.2 s early. The
    // thesis's controller steers to the deadline itself (ζ = remaining / time left) and
    // missed it in 6 of its 50 testbed runs (by at most 6.7 s of 600), so the check
    // allows 5 % (1.5 s) rather than fail CI on a run the thesis would call typical.
    assert!(
        done <= 31.5,
        "the DA-LBE flow finished {done:.2} s after its start: deadline 30 s (+5 %)"
    );
    // ... and was less than best effort on the way: alone against this CUBIC, a kernel
    // CUBIC started 2 s later averages 7–9.5 Mbit/s and would move 18 MB in about 17 s.
    assert!(
        done >= 20.0,
        "the DA-LBE flow finished in {done:.2} s, as fast as a best-effort flow"
    );
    assert!(d.conservation.holds(), "{:?}", d.conservation);
    let left = scavenger_kernel::manage::own_leftovers();
    assert!(left.is_empty(), "left registered or pinned: {left:?}");
}

/// Algorithms the kernel lacks run through scv_shim with our crates/cc code in the agent:
/// Vegas (delay-based, α = 2, β = 4 packets) on the 8/1 Mbit/s link against a CUBIC
/// download yields as in the simulator, which runs the same algorithm code.
#[test]
fn vegas_through_the_shim_yields_to_cubic_on_the_adsl_link_as_in_the_simulator() {
    let _g = serial();
    let name = "vegas_through_the_shim_yields_to_cubic_on_the_adsl_link_as_in_the_simulator";
    if !can_run_with_kernel(name) {
        return;
    }
    let ((lbe, fg), (sim_lbe, sim_fg)) = adsl_pair("vegas", "");
    say(&format!(
        "adsl 8/1 50 ms, goodput Mbit/s: testbed vegas (shim) {:.2} / cubic fg {:.2} (share {:.2}); simulator {:.2} / {:.2} (share {:.2})",
        lbe / 1e6,
        fg / 1e6,
        share(lbe, fg),
        sim_lbe / 1e6,
        sim_fg / 1e6,
        share(sim_lbe, sim_fg)
    ));
    assert!(
        share(lbe, fg) < 0.5,
        "Vegas's share {:.2} is not below half",
        share(lbe, fg)
    );
    assert!(
        (fg / sim_fg - 1.0).abs() <= 0.2,
        "foreground goodput: testbed {:.2}, simulator {:.2} Mbit/s",
        fg / 1e6,
        sim_fg / 1e6
    );
    assert!(
        (share(lbe, fg) - share(sim_lbe, sim_fg)).abs() <= 0.1,
        "Vegas's share: testbed {:.2}, simulator {:.2}",
        share(lbe, fg),
        share(sim_lbe, sim_fg)
    );
    let left = scavenger_kernel::manage::own_leftovers();
    assert!(left.is_empty(), "left registered or pinned: {left:?}");
}

/// The table of docs/validation.md "Our algorithms on kernel TCP": every LBE algorithm of
/// Ong 2020 on the 8/1 Mbit/s link against a CUBIC download, testbed vs simulator. About
/// 30 s per algorithm; run by hand:
///
///     cargo test --release -p scavenger-testbed --test testbed adsl_table -- --ignored --nocapture
#[test]
#[ignore = "a measurement for docs/validation.md, several minutes"]
fn adsl_table_of_lbe_algorithms_on_kernel_tcp_and_in_the_simulator() {
    let _g = serial();
    if !can_run_with_kernel("adsl_table") {
        return;
    }
    println!("| algorithm | datapath | testbed: LBE / CUBIC Mbit/s (share) | simulator: LBE / CUBIC Mbit/s (share) |");
    println!("|---|---|---|---|");
    for alg in [
        "cubic",
        "ledbat",
        "yield",
        "ledbat-plus-plus",
        "vegas",
        "nice",
        "tcp-lp",
        "westwood-lp",
        "cdg",
        "apple-ledbat",
    ] {
        let ((l, f), (sl, sf)) = adsl_pair(alg, "");
        let dp = match kernel_datapath(alg) {
            (_, how @ "scv_shim + agent") => how.to_string(),
            (cc, how) => format!("{how} {cc}"),
        };
        println!(
            "| {alg} | {dp} | {:.2} / {:.2} ({:.2}) | {:.2} / {:.2} ({:.2}) |",
            l / 1e6,
            f / 1e6,
            share(l, f),
            sl / 1e6,
            sf / 1e6,
            share(sl, sf)
        );
    }
}

/// Not run directly: the child half of the SIGKILL test. Holds a testbed and a BPF
/// registration until killed.
#[test]
#[ignore]
fn child_holds_a_testbed_and_a_registration_until_killed() {
    if std::env::var("SCVTB_KILL_CHILD").is_err() {
        return;
    }
    let tb = Testbed::dumbbell(EmulatorConfig {
        forward: link(10, 5, 100),
        reverse: link(10, 5, 100),
        seed: 1,
        flows: vec![],
        log_limit: 0,
    })
    .expect("testbed");
    let g = scavenger_kernel::manage::LoadGuard::new(
        scavenger_kernel::manage::find("scv_yield").unwrap(),
        &[],
    )
    .expect("registration");
    println!("HELD {} {}", tb.topo.id, g.name());
    std::thread::sleep(std::time::Duration::from_secs(30));
    drop((g, tb));
}

/// Issue 23 item 10: after `kill -9` of a process holding a testbed and a BPF
/// registration, `doctor` lists its namespaces and registration, and `clean` removes
/// them (namespaces, registration, pins) but not the registration this live process
/// holds. Before, clean removed only namespaces and doctor reported only those.
#[test]
fn clean_removes_what_a_killed_run_left_and_nothing_a_live_process_holds() {
    let _g = serial();
    if !can_run_with_kernel("clean_removes_what_a_killed_run_left_and_nothing_a_live_process_holds")
    {
        return;
    }
    use scavenger_kernel::manage::{self, LoadGuard};
    use scavenger_testbed::doctor;
    use std::io::BufRead;
    let mine = LoadGuard::new(manage::find("scv_ledbat").unwrap(), &[]).unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_holds_a_testbed_and_a_registration_until_killed",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SCVTB_KILL_CHILD", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let held = std::io::BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .find_map(|l| {
            // The harness prints "test NAME ... " on the same line first.
            let mut w = l[l.find("HELD ")? + 5..].split(' ');
            Some((w.next()?.to_string(), w.next()?.to_string()))
        });
    // SAFETY: SIGKILL to our own child by pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    let r = std::panic::catch_unwind(|| {
        let (id, cc) = held
            .clone()
            .expect("the child reported its testbed and registration");
        assert_eq!(namespaces_of(&id).len(), 4);
        assert!(manage::is_registered(&cc), "SIGKILL leaves {cc} registered");
        let before = doctor::Leftovers::find();
        assert!(
            before.stale_namespaces.iter().any(|n| n.starts_with(&id))
                && before.dead_registrations.iter().any(|r| r.contains(&cc)),
            "doctor lists the dead run's namespaces and registration: {before:?}"
        );
        assert!(
            before
                .live_registrations
                .iter()
                .any(|r| r.contains(mine.name())),
            "doctor lists the live registration as in use: {before:?}"
        );
        let c = doctor::clean().unwrap();
        assert!(c.namespaces.iter().any(|n| n.starts_with(&id)), "{c:?}");
        assert!(c.kernel.removed.iter().any(|r| r.contains(&cc)), "{c:?}");
        assert!(
            c.kernel.kept.iter().any(|r| r.contains(mine.name())),
            "{c:?}"
        );
        assert!(c.kernel.errors.is_empty(), "{c:?}");
        assert_eq!(namespaces_of(&id), Vec::<String>::new());
        assert!(!manage::is_registered(&cc), "{cc} still registered");
        let child_pins = manage::private_root(child.id());
        assert!(!child_pins.exists(), "{} left", child_pins.display());
        assert!(
            mine.target.is_registered(),
            "clean removed a live registration"
        );
        assert!(mine.target.pin_dir.join("ops").exists());
    });
    // Whatever failed above: nothing of the child's stays.
    let _ = doctor::clean();
    drop(mine);
    assert!(r.is_ok(), "see the panic above");
    let left = manage::own_leftovers();
    assert!(left.is_empty(), "left registered or pinned: {left:?}");
}
