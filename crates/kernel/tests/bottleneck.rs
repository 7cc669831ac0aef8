//! The native delay-based algorithms behind a real bottleneck (root only): three network
//! namespaces `scvk_snd — scvk_rtr — scvk_rcv` joined by veth pairs, a 20 Mbit/s tbf with a
//! 300 kB buffer (120 ms of queue) on the router's egress towards the receiver (never in
//! the sender's namespace: TCP Small Queues, notes/kernel-and-testbed.md §2), offloads off.
//! A lone cubic flow fills that buffer; LEDBAT with TARGET 25 ms (RFC 6817 §2.4.2) must
//! stay below its target, and reach it when its window is free to grow; Yield (seed 000
//! §5.3.2: target 15 % of the delay range) must queue less than cubic.

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

struct Run {
    cc: String,
    mbit: f64,
    /// Median smoothed RTT (ms) over the second half.
    rtt_ms: f64,
}

fn run(cc: &str, secs: f64) -> Run {
    let cc = cc.to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    let sink = std::thread::spawn(move || {
        enter("scvk_rcv");
        let l = TcpListener::bind("10.77.2.2:5301").unwrap();
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
        enter("scvk_snd");
        let mut s = TcpStream::connect("10.77.2.2:5301").unwrap();
        tcp::set_congestion(&s, &cc).unwrap();
        let got = tcp::congestion(&s).unwrap();
        s.set_write_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let buf = vec![3u8; 16384];
        let start = Instant::now();
        let mut rtts = Vec::new();
        let mut cwnds = Vec::new();
        let mut last = Duration::ZERO;
        while start.elapsed().as_secs_f64() < secs {
            let _ = s.write(&buf);
            let el = start.elapsed();
            if el >= last + Duration::from_millis(10) {
                last = el;
                if el.as_secs_f64() > secs / 2.0 {
                    let i = tcp::tcp_info(&s).unwrap();
                    rtts.push(i.rtt_us as f64 / 1000.0);
                    cwnds.push(i.snd_cwnd);
                }
            }
        }
        // Goodput from what the receiver acknowledged while we were sending (the send
        // buffer still drains after close).
        let acked = tcp::tcp_info(&s).unwrap().bytes_acked;
        (got, rtts, start.elapsed(), acked, cwnds)
    });
    let (got, mut rtts, el, bytes, cwnds) = sender.join().unwrap();
    sink.join().unwrap();
    eprintln!("{got}: cwnd samples (second half) {:?}", &cwnds[..cwnds.len().min(12)]);
    rtts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Run {
        cc: got,
        mbit: bytes as f64 * 8.0 / el.as_secs_f64() / 1e6,
        rtt_ms: rtts[rtts.len() / 2],
    }
}

#[test]
fn ledbat_and_yield_keep_the_bottleneck_queue_short_where_cubic_fills_it() {
    let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(why) = scavenger_kernel::unavailable_reason() {
        eprintln!("SKIPPED (kernel test): {why}");
        return;
    }
    let net = match Net::up() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("SKIPPED (kernel test): cannot build the namespaces: {e}");
            return;
        }
    };
    {
        let _l = LoadGuard::new(
            manage::find("scv_ledbat").unwrap(),
            &[("target".into(), "25ms".into())],
        )
        .unwrap();
        let _y = LoadGuard::new(manage::find("scv_yield").unwrap(), &[]).unwrap();
        let cubic = run("cubic", 4.0);
        let ledbat = run("scv_ledbat", 4.0);
        let st = manage::stats(manage::find("scv_ledbat").unwrap()).unwrap();
        eprintln!("scv_ledbat counters: {st:?}");
        // Live: no slow start and a loose flight-size cap, so the window is free to grow
        // until the queueing delay reaches TARGET.
        let la = manage::find("scv_ledbat").unwrap();
        manage::set_param(la, "slow_start", "false", None).unwrap();
        manage::set_param(la, "allowed_increase", "64", None).unwrap();
        let ledbat_free = run("scv_ledbat", 4.0);
        let yld = run("scv_yield", 4.0);
        for r in [&cubic, &ledbat, &ledbat_free, &yld] {
            eprintln!(
                "{:<11} {:5.1} Mbit/s, median RTT {:6.1} ms (second half)",
                r.cc, r.mbit, r.rtt_ms
            );
        }
        assert_eq!(
            (ledbat.cc.as_str(), yld.cc.as_str()),
            ("scv_ledbat", "scv_yield")
        );
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
    }
    drop(net);
    assert!(!manage::available().iter().any(|n| n.starts_with("scv_")));
}
