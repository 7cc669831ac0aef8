//! The native delay-based algorithms behind a real bottleneck (root only): three network
//! namespaces `scvk_snd — scvk_rtr — scvk_rcv` joined by veth pairs, a 20 Mbit/s tbf with a
//! 300 kB buffer (120 ms of queue) on the router's egress towards the receiver (never in
//! the sender's namespace: TCP Small Queues, notes/kernel-and-testbed.md §2), offloads off.
//! A lone cubic flow fills that buffer; LEDBAT with TARGET 25 ms (RFC 6817 §2.4.2) must
//! stay below its target, and reach it when its window is free to grow; Yield (Ong 2020
//! §5.3.2: target 15 % of the delay range) must queue less than cubic. The same path
//! carries the tests whose windows must grow (live GAIN changes, global and per socket;
//! LEDBAT++'s slow-start divisor; a DA-LBE controller in the shim agent): on loopback the
//! window grows only while the writer keeps the socket cwnd-limited, which a loaded
//! machine does not guarantee, while a 20 Mbit/s bottleneck always does.

use scavenger_kernel::agent::{AgentConfig, AgentHandle, DalbeConfig};
use scavenger_kernel::manage::{self, LoadGuard};
use scavenger_kernel::tcp;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

static SERIAL: Mutex<()> = Mutex::new(());
const NS: [&str; 3] = ["scvk_snd", "scvk_rtr", "scvk_rcv"];

fn sh(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args.join(" ")))?;
    if !out.status.success() {
        return Err(format!(
            "`{}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// The three namespaces; deleted on drop.
struct Net;

impl Net {
    fn up() -> Result<Net, String> {
        Net::down();
        let net = Net;
        for n in NS {
            sh(&["ip", "netns", "add", n])?;
            sh(&["ip", "-n", n, "link", "set", "lo", "up"])?;
        }
        sh(&[
            "ip", "link", "add", "scvk_a", "netns", "scvk_snd", "type", "veth", "peer", "name",
            "scvk_b", "netns", "scvk_rtr",
        ])?;
        sh(&[
            "ip", "link", "add", "scvk_c", "netns", "scvk_rtr", "type", "veth", "peer", "name",
            "scvk_d", "netns", "scvk_rcv",
        ])?;
        for (ns, dev, addr) in [
            ("scvk_snd", "scvk_a", "10.77.1.1/24"),
            ("scvk_rtr", "scvk_b", "10.77.1.2/24"),
            ("scvk_rtr", "scvk_c", "10.77.2.1/24"),
            ("scvk_rcv", "scvk_d", "10.77.2.2/24"),
        ] {
            sh(&["ip", "-n", ns, "addr", "add", addr, "dev", dev])?;
            sh(&["ip", "-n", ns, "link", "set", dev, "up"])?;
            sh(&[
                "ip", "netns", "exec", ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro",
                "off",
            ])?;
        }
        sh(&[
            "ip",
            "-n",
            "scvk_snd",
            "route",
            "add",
            "default",
            "via",
            "10.77.1.2",
        ])?;
        sh(&[
            "ip",
            "-n",
            "scvk_rcv",
            "route",
            "add",
            "default",
            "via",
            "10.77.2.1",
        ])?;
        sh(&[
            "ip",
            "netns",
            "exec",
            "scvk_rtr",
            "sysctl",
            "-qw",
            "net.ipv4.ip_forward=1",
        ])?;
        sh(&[
            "ip",
            "-n",
            "scvk_rtr",
            "link",
            "set",
            "scvk_c",
            "txqueuelen",
            "1000",
        ])?;
        sh(&[
            "tc", "-n", "scvk_rtr", "qdisc", "add", "dev", "scvk_c", "root", "tbf", "rate",
            "20mbit", "burst", "3000", "limit", "300000",
        ])?;
        Ok(net)
    }

    fn down() {
        for n in NS {
            let _ = Command::new("ip").args(["netns", "del", n]).output();
        }
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        Net::down();
    }
}

/// Moves the calling thread into namespace `ns`.
fn enter(ns: &str) {
    let f = std::fs::File::open(format!("/run/netns/{ns}")).unwrap();
    // SAFETY: setns on a valid namespace fd affects only this thread.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    assert_eq!(r, 0, "setns {ns}: {}", std::io::Error::last_os_error());
}

struct Transfer {
    cc: String,
    /// Bytes the receiver acknowledged while we were sending (the send buffer still
    /// drains after close).
    acked: u64,
    elapsed: Duration,
    /// TCP_INFO every ~`every`, with the time since the start.
    samples: Vec<(Duration, tcp::TcpInfo)>,
    sport: u16,
}

impl Transfer {
    /// Goodput over the transfer: what the receiver acknowledged while we sent.
    fn mbit(&self) -> f64 {
        self.acked as f64 * 8.0 / self.elapsed.as_secs_f64() / 1e6
    }

    /// TCP_INFO samples taken after `secs` seconds.
    fn after(&self, secs: f64) -> impl Iterator<Item = &tcp::TcpInfo> {
        self.samples
            .iter()
            .filter(move |(el, _)| el.as_secs_f64() > secs)
            .map(|(_, i)| i)
    }
}

/// Sends for `secs` from scvk_snd to scvk_rcv:`port` through the tbf bottleneck with
/// congestion control `cc`; samples TCP_INFO every `every` and then runs
/// `during(stream, elapsed)` (to change parameters, ...). The writer blocks on the send
/// buffer, so the socket stays cwnd-limited at 20 Mbit/s whatever the machine's load.
fn transfer(
    cc: &str,
    secs: f64,
    port: u16,
    every: Duration,
    during: impl FnMut(&TcpStream, Duration) + Send + 'static,
) -> Transfer {
    transfer_with(cc, secs, port, every, |_| {}, during)
}

/// `transfer`, with `setup(stream)` run after connecting and before the congestion
/// control is selected.
fn transfer_with(
    cc: &str,
    secs: f64,
    port: u16,
    every: Duration,
    setup: impl FnOnce(&TcpStream) + Send + 'static,
    during: impl FnMut(&TcpStream, Duration) + Send + 'static,
) -> Transfer {
    let cc = cc.to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    let sink = std::thread::spawn(move || {
        enter("scvk_rcv");
        let l = TcpListener::bind(("10.77.2.2", port)).unwrap();
        tx.send(()).unwrap();
        let (mut s, _) = l.accept().unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut n = 0u64;
        while let Ok(k) = s.read(&mut buf) {
            if k == 0 {
                break;
            }
            n += k as u64;
        }
        n
    });
    rx.recv().unwrap();
    let sender = std::thread::spawn(move || {
        let mut during = during;
        enter("scvk_snd");
        let mut s = TcpStream::connect(("10.77.2.2", port)).unwrap();
        setup(&s);
        tcp::set_congestion(&s, &cc).unwrap();
        let got = tcp::congestion(&s).unwrap();
        let sport = s.local_addr().unwrap().port();
        s.set_write_timeout(Some(Duration::from_millis(2))).unwrap();
        let buf = vec![3u8; 16384];
        let start = Instant::now();
        let mut samples = Vec::new();
        let mut last = Duration::ZERO;
        while start.elapsed().as_secs_f64() < secs {
            let _ = s.write(&buf);
            let el = start.elapsed();
            if el >= last + every {
                last = el;
                samples.push((el, tcp::tcp_info(&s).unwrap()));
                during(&s, el);
            }
        }
        let acked = tcp::tcp_info(&s).unwrap().bytes_acked;
        Transfer {
            cc: got,
            acked,
            elapsed: start.elapsed(),
            samples,
            sport,
        }
    });
    let t = sender.join().unwrap();
    sink.join().unwrap();
    t
}

struct Run {
    cc: String,
    mbit: f64,
    /// Median smoothed RTT (ms) over the second half.
    rtt_ms: f64,
}

fn run(cc: &str, secs: f64) -> Run {
    let t = transfer(cc, secs, 5301, Duration::from_millis(10), |_, _| {});
    let cwnds: Vec<u32> = t.after(secs / 2.0).map(|i| i.snd_cwnd).take(12).collect();
    eprintln!("{}: cwnd samples (second half) {cwnds:?}", t.cc);
    Run {
        mbit: t.mbit(),
        rtt_ms: median_rtt_ms(t.after(secs / 2.0)),
        cc: t.cc,
    }
}

/// The namespaces, or None (with the reason printed) when this machine cannot run them.
fn net_or_skip() -> Option<Net> {
    if let Some(why) = scavenger_kernel::unavailable_reason() {
        eprintln!("SKIPPED (kernel test): {why}");
        return None;
    }
    match Net::up() {
        Ok(n) => Some(n),
        Err(e) => {
            eprintln!("SKIPPED (kernel test): cannot build the namespaces: {e}");
            None
        }
    }
}

/// Runs `body` with the namespaces up, one test at a time (registrations and the
/// namespace names are global), or skips with the reason printed; afterwards the
/// namespaces are gone and nothing of ours stays registered or pinned (the namespaces
/// also go when `body` panics: `Net` deletes them on drop).
fn with_bottleneck(body: impl FnOnce()) {
    let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(net) = net_or_skip() else {
        return;
    };
    body();
    drop(net);
    assert_clean();
}

/// The median smoothed RTT (ms) of TCP_INFO samples.
fn median_rtt_ms<'a>(samples: impl Iterator<Item = &'a tcp::TcpInfo>) -> f64 {
    let mut rtts: Vec<f64> = samples.map(|i| i.rtt_us as f64 / 1000.0).collect();
    rtts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rtts[rtts.len() / 2]
}

fn assert_clean() {
    let left = manage::own_leftovers();
    assert!(left.is_empty(), "left behind: {left:?}");
}

fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn ledbat_and_yield_keep_the_bottleneck_queue_short_where_cubic_fills_it() {
    with_bottleneck(|| {
        let l = LoadGuard::new(
            manage::find("scv_ledbat").unwrap(),
            &[("target".into(), "25ms".into())],
        )
        .unwrap();
        let y = LoadGuard::new(manage::find("scv_yield").unwrap(), &[]).unwrap();
        let cubic = run("cubic", 4.0);
        let ledbat = run(l.name(), 4.0);
        let st = l.stats().unwrap();
        eprintln!("scv_ledbat counters: {st:?}");
        // Live: no slow start and a loose flight-size cap, so the window is free to grow
        // until the queueing delay reaches TARGET.
        l.set_param("slow_start", "false", None).unwrap();
        l.set_param("allowed_increase", "64", None).unwrap();
        let ledbat_free = run(l.name(), 4.0);
        let yld = run(y.name(), 4.0);
        for r in [&cubic, &ledbat, &ledbat_free, &yld] {
            eprintln!(
                "{:<11} {:5.1} Mbit/s, median RTT {:6.1} ms (second half)",
                r.cc, r.mbit, r.rtt_ms
            );
        }
        assert_eq!((ledbat.cc.as_str(), yld.cc.as_str()), (l.name(), y.name()));
        // A lone cubic flow fills most of the 120 ms buffer.
        assert!(
            cubic.rtt_ms > 60.0,
            "cubic should fill the tbf buffer (RTT {} ms)",
            cubic.rtt_ms
        );
        // LEDBAT never queues more than TARGET (25 ms; base RTT < 1 ms) plus the 1 ms
        // OWD steps and delayed ACKs. With ALLOWED_INCREASE = 1 the flight-size cap
        // (RFC 6817 §2.4.2) keeps it near the path's BDP (about 4 ms of queue here).
        assert!(
            ledbat.rtt_ms < 45.0,
            "scv_ledbat RTT {} ms with TARGET 25 ms",
            ledbat.rtt_ms
        );
        // Uncapped, it grows until the queueing delay is TARGET (RFC 6817 §2.4.2:
        // off_target = 0 at TARGET): RTT ≈ 25 ms.
        assert!(
            ledbat_free.rtt_ms > 15.0 && ledbat_free.rtt_ms < 45.0,
            "scv_ledbat without slow start, ALLOWED_INCREASE 64: RTT {} ms, TARGET 25 ms",
            ledbat_free.rtt_ms
        );
        assert!(
            yld.rtt_ms < cubic.rtt_ms * 0.9,
            "scv_yield RTT {} ms vs cubic {} ms",
            yld.rtt_ms,
            cubic.rtt_ms
        );
        // Alone on the link, the LBE flows still use it.
        assert!(
            ledbat.mbit > 12.0 && ledbat_free.mbit > 12.0 && yld.mbit > 12.0,
            "throughput ledbat {} / {} yield {} Mbit/s of 20",
            ledbat.mbit,
            ledbat_free.mbit,
            yld.mbit
        );
    });
}

/// Live parameters, global and per socket, on scv_ledbat. GAIN = 0 freezes the window in
/// congestion avoidance (RFC 6817 §2.4.2: cwnd grows by GAIN · off_target per RTT);
/// without slow start the first ACK sets ssthresh = cwnd − 1, which no built-in Linux CC
/// does without a loss. ALLOWED_INCREASE 64 so that only GAIN and TARGET bound growth.
#[test]
fn ledbat_native_window_follows_gain_set_live_and_per_socket() {
    with_bottleneck(|| {
        let a = manage::find("scv_ledbat").unwrap();
        let g = LoadGuard::new(
            a,
            &kv(&[
                ("slow_start", "false"),
                ("gain", "0"),
                ("allowed_increase", "64"),
                ("target", "25ms"),
            ]),
        )
        .unwrap();
        let tg = g.target.clone();
        let switch_at = Duration::from_millis(1000);
        let mut switched = false;
        let t = transfer(
            g.name(),
            2.0,
            5302,
            Duration::from_millis(5),
            move |_, el| {
                if el >= switch_at && !switched {
                    switched = true;
                    manage::set_param(&tg, "gain", "1", None).unwrap();
                }
            },
        );
        assert_eq!(t.cc, g.name());
        let before: Vec<&tcp::TcpInfo> = t
            .samples
            .iter()
            .filter(|(el, _)| *el < switch_at)
            .map(|(_, i)| i)
            .collect();
        let after: Vec<&tcp::TcpInfo> = t
            .samples
            .iter()
            .filter(|(el, _)| *el > switch_at + Duration::from_millis(300))
            .map(|(_, i)| i)
            .collect();
        assert!(
            before.len() > 20 && after.len() > 20,
            "too few TCP_INFO samples"
        );
        let max_before = before.iter().map(|i| i.snd_cwnd).max().unwrap();
        let max_after = after.iter().map(|i| i.snd_cwnd).max().unwrap();
        let rtt_after = after.last().unwrap().rtt_us as f64 / 1000.0;
        eprintln!("scv_ledbat: cwnd max {max_before} with gain 0, {max_after} after gain=1 (RTT {rtt_after:.1} ms); ssthresh {}", before[0].snd_ssthresh);
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
        // 10 packets are 6 ms of queue at 20 Mbit/s; TARGET 25 ms is about 43 packets.
        assert!(
            max_after > max_before + 10,
            "after gain=1 the window must grow towards TARGET ({max_before} → {max_after})"
        );
        let st = g.stats().unwrap();
        assert!(st.sockets >= 1 && st.acks > 100, "BPF counters: {st:?}");
        assert!(
            st.owd_samples > 0,
            "timestamps are on by default on Linux: OWD samples expected ({st:?})"
        );

        // Per-socket override: the global GAIN is 1 now; this socket gets GAIN 0 by cookie
        // at its first sample, so its window stays where it was then.
        let mut first = true;
        let tg2 = g.target.clone();
        let t2 = transfer(
            g.name(),
            1.0,
            5303,
            Duration::from_millis(5),
            move |s, _| {
                if first {
                    first = false;
                    let c = tcp::cookie(s).unwrap();
                    manage::set_param(&tg2, "gain", "0", Some(c)).unwrap();
                }
            },
        );
        let early_max = t2
            .samples
            .iter()
            .map(|(_, i)| i.snd_cwnd)
            .take(2)
            .max()
            .unwrap_or(0);
        let late: Vec<u32> = t2
            .samples
            .iter()
            .filter(|(el, _)| *el > Duration::from_millis(100))
            .map(|(_, i)| i.snd_cwnd)
            .collect();
        let st2 = g.stats().unwrap();
        eprintln!("scv_ledbat with a per-socket GAIN 0 override: cwnd {:?}.. (first samples max {early_max})", &late[..late.len().min(5)]);
        assert!(
            st2.override_acks > 0,
            "the override must have been used ({st2:?})"
        );
        let frozen = early_max.max(12);
        assert!(
            late.iter().all(|&c| c <= frozen),
            "override GAIN 0: the window must not grow past {frozen} (saw max {:?}), where the global GAIN 1 reached {max_after}",
            late.iter().max()
        );
        assert_eq!(
            manage::status()
                .iter()
                .find(|s| s.target == g.target)
                .unwrap()
                .overrides
                .len(),
            1
        );
    });
}

/// LEDBAT++'s slow start grows by GAIN per ACKed segment (draft-irtf-iccrg-ledbat-plus-plus
/// §4.2), GAIN = 1/min(ceil(2·TARGET/base), max_gain_divisor): with the divisor at 1024
/// the window hardly leaves the initial 10; with the default 16 it grows one packet per
/// 16 ACKed until the queueing delay reaches 3/4 of TARGET.
#[test]
fn ledbat_plus_plus_native_gain_divisor_limits_slow_start() {
    with_bottleneck(|| {
        let a = manage::find("scv_ledbatpp").unwrap();
        let g = LoadGuard::new(a, &kv(&[("max_gain_divisor", "1024")])).unwrap();
        let slow = transfer(g.name(), 0.8, 5304, Duration::from_millis(5), |_, _| {});
        assert_eq!(slow.cc, g.name());
        let st = g.stats().unwrap();
        let max_slow = slow.samples.iter().map(|(_, i)| i.snd_cwnd).max().unwrap();
        g.set_param("max_gain_divisor", "16", None).unwrap();
        let fast = transfer(g.name(), 0.8, 5305, Duration::from_millis(5), |_, _| {});
        let max_fast = fast.samples.iter().map(|(_, i)| i.snd_cwnd).max().unwrap();
        eprintln!("scv_ledbatpp: max cwnd {max_slow} with GAIN 1/1024, {max_fast} with 1/16; counters {st:?}");
        assert!(st.rtt_samples > 100, "RTT samples from pkts_acked: {st:?}");
        // Upper bound from the rule: +acked/1024 per ACK, acked ≤ 16 segments per ACK.
        assert!(
            (max_slow as u64) <= 10 + st.acks * 16 / 1024 + 1,
            "GAIN 1/1024: cwnd {max_slow} after {} ACKs",
            st.acks
        );
        // 0.8 s at 20 Mbit/s is about 1400 ACKed segments: +80 packets at 1/16 unless the
        // delay exit comes first (3/4 of 60 ms is about 100 packets of queue).
        assert!(
            max_fast > max_slow + 20,
            "GAIN 1/16 must grow faster than 1/1024 ({max_fast} vs {max_slow})"
        );
    });
}

/// A DA-LBE metacontroller in the agent, per socket: "working-hours"
/// (crates/cc/src/dalbe/registry.rs) sends phantom ECNs with probability p per segment
/// during working hours and runs the plain algorithm otherwise; the run's clock starts at
/// `offset` (time of day): 09:00 is inside 08:00–18:00, 20:00 is not.
#[test]
fn shim_agent_runs_a_dalbe_metacontroller_per_socket() {
    with_bottleneck(|| {
        let g = LoadGuard::new(manage::find("scv_shim").unwrap(), &[]).unwrap();
        let run = |offset: &str, port: u16| {
            let mut cfg = AgentConfig::new("newreno");
            cfg.shim = Some(g.target.clone());
            cfg.dalbe = Some(DalbeConfig {
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
            let t = transfer(g.name(), 1.0, port, Duration::from_millis(5), |_, _| {});
            let commanded = agent.recent_cwnds(t.sport, port);
            let st = agent.stop().unwrap();
            assert_eq!(t.cc, g.name());
            // Median window after the first 200 ms (the first phantom ECN may come only
            // after a few RTTs of slow start).
            let mut w: Vec<u32> = t
                .samples
                .iter()
                .filter(|(el, _)| *el > Duration::from_millis(200))
                .map(|(_, i)| i.snd_cwnd)
                .collect();
            w.sort_unstable();
            (w[w.len() / 2], st, commanded)
        };
        let (lbe, st_lbe, cmd_lbe) = run("9h", 5306);
        let (plain, st_plain, _) = run("20h", 5307);
        eprintln!("DA-LBE working-hours over newreno: median cwnd {lbe} in working hours (phantom ECN 5 %), {plain} outside; agent ACKs {} / {}; last commands {cmd_lbe:?}", st_lbe.acks, st_plain.acks);
        assert!(st_lbe.acks > 100 && st_plain.acks > 100);
        assert!(
            !cmd_lbe.is_empty(),
            "the agent must have commanded the socket"
        );
        // Reno under a 5 % per-segment congestion signal averages sqrt(2/p) ≈ 6 segments;
        // the plain run slow-starts into the 300 kB buffer.
        assert!(
            lbe < 20,
            "phantom ECN must hold the window small (median {lbe})"
        );
        assert!(
            plain > 3 * lbe,
            "outside working hours the window grows ({plain} vs {lbe})"
        );
    });
}

/// The shim with the agent running `algorithm` through the bottleneck: the socket runs
/// scv_shim, the agent sees its ACKs, the shim applies the agent's window on ≥ 95 % of
/// them, and outside loss recovery (where the shim's PRR steps towards the agent's window)
/// TCP_INFO's cwnd is one of the agent's recent commands. A sample may lag the agent's
/// newest command by the ACKs still in the ring buffer, hence the last 32 commands.
/// Returns the median RTT (ms) of the second half.
fn shim_follows_agent(
    shim: &LoadGuard,
    algorithm: &str,
    params: &[(&str, &str)],
    port: u16,
) -> f64 {
    let mut cfg = AgentConfig::new(algorithm);
    cfg.params = kv(params);
    cfg.shim = Some(shim.target.clone());
    let agent = std::sync::Arc::new(AgentHandle::spawn(cfg).unwrap());
    // (compared, matching, samples per ca_state)
    let seen = std::sync::Arc::new(Mutex::new((0usize, 0usize, [0usize; 5])));
    let (a2, s2) = (agent.clone(), seen.clone());
    let t = transfer(
        shim.name(),
        2.0,
        port,
        Duration::from_millis(5),
        move |s, _| {
            let i = tcp::tcp_info(s).unwrap();
            let recent = a2.recent_cwnds(s.local_addr().unwrap().port(), port);
            let mut g = s2.lock().unwrap();
            g.2[(i.ca_state as usize).min(4)] += 1;
            // CWR (2) and Recovery (3) run the shim's PRR towards the agent's window.
            if !recent.is_empty() && i.ca_state != 2 && i.ca_state != 3 {
                g.0 += 1;
                g.1 += recent.contains(&i.snd_cwnd) as usize;
            }
        },
    );
    let (compared, matches, states) = *seen.lock().unwrap();
    let cmd = agent.command_for(t.sport, port);
    let stats = std::sync::Arc::try_unwrap(agent)
        .ok()
        .expect("the transfer's closure is gone")
        .stop()
        .unwrap();
    let st = shim.stats().unwrap();
    let rtt = median_rtt_ms(t.after(1.0));
    eprintln!(
        "scv_shim + agent {algorithm}: {:.1} Mbit/s, median RTT {rtt:.1} ms, {matches}/{compared} TCP_INFO samples outside CWR/Recovery equal to a recent command (samples per ca_state {states:?}), last command {cmd:?}, agent {:.0} ns/ACK, shim counters {st:?}",
        t.mbit(),
        stats.cpu_ns_per_ack()
    );
    assert_eq!(t.cc, shim.name());
    assert!(
        stats.acks > 100 && stats.opens >= 1,
        "agent saw the socket: {stats:?}"
    );
    assert!(
        st.agent_applied > 100 && st.agent_applied * 100 >= st.acks * 95,
        "the shim applied the agent's windows on ≥ 95 % of ACKs: {st:?}"
    );
    assert!(compared > 50, "too few comparisons ({compared})");
    assert!(matches * 10 >= compared * 8, "{algorithm}: TCP_INFO cwnd equals one of the agent's commands in {matches}/{compared} samples");
    rtt
}

/// Issue 10's acceptance: the shim running LEDBAT, Yield, CDG and Vegas in the agent
/// carries real transfers over veth, with the agent's windows in effect; and the
/// delay-based ones behave as such behind the bottleneck (a lone cubic queues ≈ 100 ms).
#[test]
fn shim_runs_ledbat_yield_cdg_vegas_in_the_agent() {
    with_bottleneck(|| {
        let g = LoadGuard::new(manage::find("scv_shim").unwrap(), &[]).unwrap();
        let mut rtt = Vec::new();
        // LEDBAT with TARGET 25 ms (RFC 6817's 100 ms is most of this 120 ms buffer, where
        // it cannot be told from cubic) and without slow start (whose overshoot into the
        // buffer takes LEDBAT's one-packet-per-RTT decrease seconds to drain).
        let runs: [(&str, &[(&str, &str)]); 4] = [
            ("ledbat", &[("target", "25ms"), ("slow_start", "false")]),
            ("yield", &[]),
            ("cdg", &[]),
            ("vegas", &[]),
        ];
        for (k, (algo, params)) in runs.iter().enumerate() {
            rtt.push(shim_follows_agent(&g, algo, params, 5310 + k as u16));
        }
        // Vegas keeps α–β = 2–4 packets queued (under 2 ms at 20 Mbit/s); LEDBAT holds
        // about its TARGET of 25 ms (20–23 ms in three runs; the native scv_ledbat with
        // the same flight-size cap keeps about 4 ms, docs/kernel.md).
        assert!(
            rtt[3] < 15.0,
            "Vegas in the agent: median RTT {} ms",
            rtt[3]
        );
        assert!(
            rtt[0] > 10.0 && rtt[0] < 45.0,
            "LEDBAT in the agent: median RTT {} ms (TARGET 25 ms)",
            rtt[0]
        );
    });
}

/// The agent's pacing rate reaches the socket: BBR (crates/cc, which paces) in the agent
/// through the bottleneck; TCP_INFO's pacing rate (sk_pacing_rate, which the shim sets
/// with SK_PACING_NEEDED so that TCP paces internally without fq) is one of the agent's
/// recent commands, and BBR keeps the queue short where cubic fills it.
#[test]
fn shim_applies_the_agents_pacing_rate() {
    with_bottleneck(|| {
        let g = LoadGuard::new(manage::find("scv_shim").unwrap(), &[]).unwrap();
        let mut cfg = AgentConfig::new("bbr");
        cfg.shim = Some(g.target.clone());
        let agent = std::sync::Arc::new(AgentHandle::spawn(cfg).unwrap());
        let seen = std::sync::Arc::new(Mutex::new((0usize, 0usize)));
        let (a2, s2) = (agent.clone(), seen.clone());
        let port = 5320;
        let t = transfer(
            g.name(),
            3.0,
            port,
            Duration::from_millis(5),
            move |s, el| {
                if el < Duration::from_millis(500) {
                    return; // startup
                }
                let i = tcp::tcp_info(s).unwrap();
                let recent = a2.recent_commands(s.local_addr().unwrap().port(), port);
                let mut g = s2.lock().unwrap();
                g.0 += 1;
                g.1 += recent
                    .iter()
                    .any(|c| c.pacing_rate > 0 && c.pacing_rate == i.pacing_rate)
                    as usize;
            },
        );
        let (compared, matches) = *seen.lock().unwrap();
        let last = agent.command_for(t.sport, port);
        std::sync::Arc::try_unwrap(agent)
            .ok()
            .expect("the transfer's closure is gone")
            .stop()
            .unwrap();
        let rtt = median_rtt_ms(t.after(1.5));
        let mbit = t.mbit();
        let pacing_mbit = t.samples.last().unwrap().1.pacing_rate as f64 * 8.0 / 1e6;
        eprintln!(
            "scv_shim + agent bbr: {mbit:.1} Mbit/s, median RTT {rtt:.1} ms, pacing {pacing_mbit:.1} Mbit/s; {matches}/{compared} TCP_INFO pacing rates equal to a recent command; last {last:?}"
        );
        assert!(compared > 50, "too few samples ({compared})");
        assert!(matches * 10 >= compared * 8, "TCP_INFO pacing rate equals one of the agent's commands in {matches}/{compared} samples");
        // BBR paces at about the bottleneck rate (gains 0.75–1.25 in ProbeBW) and fills it.
        assert!(
            pacing_mbit > 10.0 && pacing_mbit < 40.0,
            "pacing rate {pacing_mbit:.1} Mbit/s on a 20 Mbit/s bottleneck"
        );
        assert!(mbit > 15.0, "BBR in the agent moved {mbit:.1} Mbit/s");
        assert!(rtt < 60.0, "BBR's median RTT {rtt} ms (cubic: ≈ 100 ms)");
    });
}

/// Per-socket DA-LBE goals: an agent running CUBIC under our `deadline` controller (LBE
/// while ahead of schedule, plain CUBIC when behind) with a lax default goal (1 GB in an
/// hour), and two sockets through the bottleneck at the same time, one of which
/// registered its own goal by cookie (8 MB due 4 s after its start: behind schedule at
/// 20 Mbit/s shared, so it must not yield). It gets most of the link; the other yields.
#[test]
fn shim_agent_takes_per_socket_dalbe_goals_by_cookie() {
    with_bottleneck(|| {
        let g = LoadGuard::new(manage::find("scv_shim").unwrap(), &[]).unwrap();
        let mut cfg = AgentConfig::new("cubic");
        cfg.shim = Some(g.target.clone());
        let (name, shim) = (g.name().to_string(), g.target.clone());
        let (name2, shim2) = (name.clone(), shim.clone());
        cfg.dalbe = Some(DalbeConfig {
            controller: "deadline".into(),
            params: kv(&[("interval", "100ms")]),
            size: Some(1_000_000_000),
            deadline: Some(scavenger_cc::units::Dur::from_secs(3600)),
        });
        let agent = AgentHandle::spawn(cfg).unwrap();
        let urgent = std::thread::spawn(move || {
            transfer_with(
                &name,
                4.0,
                5330,
                Duration::from_millis(10),
                move |s| {
                    let goal = scavenger_cc::dalbe::FlowGoal {
                        size: Some(8_000_000),
                        deadline: Some(scavenger_cc::units::Dur::from_secs(4)),
                    };
                    scavenger_kernel::agent::set_goal_in(&shim, tcp::cookie(s).unwrap(), goal)
                        .unwrap();
                },
                |_, _| {},
            )
        });
        let relaxed = std::thread::spawn(move || {
            transfer(&name2, 4.0, 5331, Duration::from_millis(10), |_, _| {})
        });
        let (u, r) = (urgent.join().unwrap(), relaxed.join().unwrap());
        let st = agent.stop().unwrap();
        // Goodput over the last 2 s (after slow start and the controllers' first ticks).
        let mbit = |t: &Transfer| {
            let from = t
                .samples
                .iter()
                .find(|(el, _)| el.as_secs_f64() >= 2.0)
                .expect("samples after 2 s");
            let to = t.samples.last().unwrap();
            (to.1.bytes_acked - from.1.bytes_acked) as f64 * 8.0
                / (to.0 - from.0).as_secs_f64()
                / 1e6
        };
        eprintln!("per-socket goals: urgent (own goal) {:.1} Mbit/s, relaxed (agent's goal) {:.1} Mbit/s; sockets with their own goal: {}", mbit(&u), mbit(&r), st.own_goals);
        assert_eq!(
            st.own_goals, 1,
            "exactly the urgent socket had its own goal: {st:?}"
        );
        assert!(
            mbit(&u) > 2.0 * mbit(&r),
            "the socket behind its own schedule must take most of the link ({:.1} vs {:.1} Mbit/s)",
            mbit(&u),
            mbit(&r)
        );
        // Goals can be removed; an unknown cookie is an error naming it.
        let e = scavenger_kernel::agent::clear_goal_in(&shim2, 12345)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("12345"), "{e}");
    });
}
