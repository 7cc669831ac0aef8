//! Loopback bulk-throughput benchmark of the kernel algorithms against the kernel's cubic
//! (docs/performance.md "Kernel TCP"). Not part of the normal suite:
//!
//!     cargo test -p scavenger-kernel --release --test bench -- --ignored --nocapture
//!
//! Each case sends for `SECS` seconds over 127.0.0.1 from this process to a sink thread,
//! right after a cubic run of the same length; the ratio to that cubic run is the
//! result, median and quartiles over `ROUNDS` rounds (the machine is shared and loaded,
//! so absolute loopback throughput moves a lot between runs).

use scavenger_kernel::agent::{AgentConfig, AgentHandle};
use scavenger_kernel::manage::{self, LoadGuard};
use scavenger_kernel::tcp;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

const SECS: f64 = 1.0;
const ROUNDS: usize = 8;

/// Bytes/s of one bulk transfer with congestion control `cc`.
fn bulk(cc: &str) -> f64 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let sink = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut buf = vec![0u8; 1 << 18];
        let mut n = 0u64;
        while let Ok(k) = s.read(&mut buf) {
            if k == 0 {
                break;
            }
            n += k as u64;
        }
        n
    });
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp::set_congestion(&s, cc).unwrap();
    assert_eq!(tcp::congestion(&s).unwrap(), cc);
    let buf = vec![1u8; 1 << 18];
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs_f64(SECS) {
        s.write_all(&buf).unwrap();
    }
    drop(s);
    let n = sink.join().unwrap();
    n as f64 / start.elapsed().as_secs_f64()
}

/// (median, lower quartile, upper quartile).
fn quartiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
    (q(0.5), q(0.25), q(0.75))
}

#[test]
#[ignore]
fn loopback_throughput_native_and_shim_vs_cubic() {
    if let Some(why) = scavenger_kernel::unavailable_reason() {
        eprintln!("SKIPPED (kernel benchmark): {why}");
        return;
    }
    let natives = ["scv_ledbat", "scv_yield", "scv_ledbatpp"];
    let guards: Vec<LoadGuard> = natives
        .iter()
        .map(|n| LoadGuard::new(manage::find(n).unwrap(), &[]).unwrap())
        .collect();
    let shim = LoadGuard::new(manage::find("scv_shim").unwrap(), &[]).unwrap();
    let agent_algs = ["ledbat", "newreno"];
    // Cases; each round runs cubic right before every other case and records the ratio
    // to that cubic run, so that slow changes of the machine's load cancel. Kernel reno
    // is the control: its ratio shows how much of a difference is noise.
    let mut cases: Vec<String> = vec!["reno".into()];
    cases.extend(natives.iter().map(|s| s.to_string()));
    cases.extend(agent_algs.iter().map(|a| format!("scv_shim + agent {a}")));
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut abs: Vec<Vec<f64>> = vec![Vec::new(); cases.len() + 1];
    let mut agent_cost: Vec<(String, f64, f64, f64, f64)> = Vec::new();
    for round in 0..ROUNDS {
        for k in 0..cases.len() {
            let i = (k + round) % cases.len();
            let c = bulk("cubic");
            abs[cases.len()].push(c);
            let x = match cases[i].strip_prefix("scv_shim + agent ") {
                Some(a) => {
                    let h = AgentHandle::spawn(AgentConfig::new(a)).unwrap();
                    let r = bulk("scv_shim");
                    let st = h.stop().unwrap();
                    let per_cmd = st.write_ns as f64 / st.commands.max(1) as f64;
                    agent_cost.push((
                        a.to_string(),
                        st.cpu_ns_per_ack(),
                        st.cpu_ns as f64 / st.wall_ns as f64,
                        st.handle_ns_per_ack(),
                        per_cmd,
                    ));
                    r
                }
                None => bulk(&cases[i]),
            };
            abs[i].push(x);
            ratios[i].push(x / c);
        }
    }
    let (cm, cl, ch) = quartiles(abs[cases.len()].clone());
    println!(
        "cubic: median {:.2} Gbit/s (quartiles {:.2}–{:.2}) over {} runs",
        cm * 8e-9,
        cl * 8e-9,
        ch * 8e-9,
        abs[cases.len()].len()
    );
    println!(
        "| congestion control | Gbit/s median | ÷ cubic of the same round: median (quartiles) |"
    );
    println!("|---|---|---|");
    for (i, n) in cases.iter().enumerate() {
        let (m, l, h) = quartiles(ratios[i].clone());
        println!(
            "| {n} | {:.2} | {:.0} % ({:.0}–{:.0} %) |",
            quartiles(abs[i].clone()).0 * 8e-9,
            100.0 * m,
            100.0 * l,
            100.0 * h
        );
    }
    for a in agent_algs {
        let col = |k: usize| {
            quartiles(
                agent_cost
                    .iter()
                    .filter(|x| x.0 == a)
                    .map(|x| [x.1, x.2, x.3, x.4][k])
                    .collect(),
            )
            .0
        };
        println!(
            "agent {a}: {:.0} ns thread CPU per ACK ({:.1} % of one core); {:.0} ns per ACK decoding + algorithm; {:.0} ns per batch of decisions written",
            col(0),
            100.0 * col(1),
            col(2),
            col(3)
        );
    }
    drop(shim);
    drop(guards);
}
