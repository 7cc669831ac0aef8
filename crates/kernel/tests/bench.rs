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
use scavenger_kernel::manage::{self, LoadGuard, Target};
use scavenger_kernel::tcp;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

const SECS: f64 = 1.0;
const ROUNDS: usize = 12;

/// One bulk transfer: bytes/s, and the median cwnd (packets) and smoothed RTT (µs) of
/// TCP_INFO samples taken every ~10 ms.
struct Bulk {
    rate: f64,
    cwnd: f64,
    rtt_us: f64,
}

/// One bulk transfer with congestion control `cc`.
fn bulk(cc: &str) -> Bulk {
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
    let (mut cwnds, mut rtts) = (Vec::new(), Vec::new());
    let mut last = Duration::ZERO;
    while start.elapsed() < Duration::from_secs_f64(SECS) {
        s.write_all(&buf).unwrap();
        let el = start.elapsed();
        if el >= last + Duration::from_millis(10) {
            last = el;
            let i = tcp::tcp_info(&s).unwrap();
            cwnds.push(i.snd_cwnd as f64);
            rtts.push(i.rtt_us as f64);
        }
    }
    drop(s);
    let n = sink.join().unwrap();
    Bulk {
        rate: n as f64 / start.elapsed().as_secs_f64(),
        cwnd: quartiles(cwnds).0,
        rtt_us: quartiles(rtts).0,
    }
}

/// One row of the table: a congestion control the kernel has (its own or ours in BPF),
/// or scv_shim with the agent running a crates/cc algorithm with a wake-up interval.
struct Case {
    label: String,
    cc: &'static str,
    /// (algorithm, wake-up interval in µs)
    agent: Option<(&'static str, u64)>,
    /// A native algorithm's global parameter set for this case and reset after it:
    /// (name, value, default).
    param: Option<(&'static str, &'static str, &'static str)>,
}

impl Case {
    fn kernel(cc: &'static str) -> Case {
        Case {
            label: cc.to_string(),
            cc,
            agent: None,
            param: None,
        }
    }

    /// A native algorithm with one parameter changed, to separate what the algorithm
    /// does on loopback from what the datapath costs.
    fn kernel_with(cc: &'static str, param: (&'static str, &'static str, &'static str)) -> Case {
        Case {
            label: format!("{cc} ({}={})", param.0, param.1),
            cc,
            agent: None,
            param: Some(param),
        }
    }

    fn agent(alg: &'static str, wake_us: u64) -> Case {
        Case {
            label: format!("scv_shim + agent {alg} (wake ≥ {wake_us} µs)"),
            cc: "scv_shim",
            agent: Some((alg, wake_us)),
            param: None,
        }
    }
}

/// (median, lower quartile, upper quartile).
fn quartiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
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
    // The benchmark's cases name the algorithms: it registers their shared names (held by
    // this process, so nobody else's `unload` removes them meanwhile).
    let natives = ["scv_ledbat", "scv_yield", "scv_ledbatpp"];
    let shared = |n: &str| LoadGuard::with_target(Target::shared(manage::find(n).unwrap()), &[]);
    let guards: Vec<LoadGuard> = natives.iter().map(|n| shared(n).unwrap()).collect();
    let shim = shared("scv_shim").unwrap();
    // Cases; each round runs cubic right before every other case and records the ratio
    // to that cubic run, so that slow changes of the machine's load cancel. Kernel reno
    // is the control: its ratio shows how much of a difference is noise.
    let mut cases: Vec<Case> = vec![Case::kernel("reno")];
    cases.extend(natives.iter().map(|n| Case::kernel(n)));
    // LEDBAT++'s periodic slowdowns (window 2 for two RTTs, every ninth interval) are
    // frequent at loopback's 50 µs RTT: without them its ratio is the datapath's.
    cases.push(Case::kernel_with(
        "scv_ledbatpp",
        ("slowdown", "false", "true"),
    ));
    cases.extend(
        [
            ("ledbat", 100),
            ("newreno", 100),
            ("ledbat", 1000),
            ("newreno", 1000),
        ]
        .map(|(a, w)| Case::agent(a, w)),
    );
    // Per case: its runs and their ratio to the cubic run before; and cubic's runs.
    let mut runs: Vec<Vec<(Bulk, f64)>> = cases.iter().map(|_| Vec::new()).collect();
    let mut cubic: Vec<Bulk> = Vec::new();
    let mut agent_cost: Vec<Vec<[f64; 4]>> = cases.iter().map(|_| Vec::new()).collect();
    for round in 0..ROUNDS {
        for k in 0..cases.len() {
            let i = (k + round) % cases.len();
            let c = bulk("cubic");
            let x = match cases[i].agent {
                Some((alg, wake_us)) => {
                    let mut cfg = AgentConfig::new(alg);
                    cfg.wake = scavenger_cc::units::Dur::from_micros(wake_us);
                    let h = AgentHandle::spawn(cfg).unwrap();
                    let r = bulk("scv_shim");
                    let st = h.stop().unwrap();
                    agent_cost[i].push([
                        st.cpu_ns_per_ack(),
                        st.cpu_ns as f64 / st.wall_ns as f64,
                        st.handle_ns_per_ack(),
                        st.write_ns as f64 / st.commands.max(1) as f64,
                    ]);
                    r
                }
                None => match cases[i].param {
                    Some((name, value, default)) => {
                        let alg = Target::shared(manage::find(cases[i].cc).unwrap());
                        manage::set_param(&alg, name, value, None).unwrap();
                        let r = bulk(cases[i].cc);
                        manage::set_param(&alg, name, default, None).unwrap();
                        r
                    }
                    None => bulk(cases[i].cc),
                },
            };
            let ratio = x.rate / c.rate;
            runs[i].push((x, ratio));
            cubic.push(c);
        }
    }
    let median = |v: Vec<f64>| quartiles(v).0;
    let (cm, cl, ch) = quartiles(cubic.iter().map(|b| b.rate).collect());
    println!(
        "cubic: median {:.2} Gbit/s (quartiles {:.2}–{:.2}) over {} runs, cwnd {:.0}, srtt {:.0} µs",
        cm * 8e-9,
        cl * 8e-9,
        ch * 8e-9,
        cubic.len(),
        median(cubic.iter().map(|b| b.cwnd).collect()),
        median(cubic.iter().map(|b| b.rtt_us).collect())
    );
    println!(
        "| congestion control | Gbit/s median | ÷ cubic of the same round: median (quartiles) | cwnd (packets) | srtt (µs) |"
    );
    println!("|---|---|---|---|---|");
    for (case, r) in cases.iter().zip(&runs) {
        let (m, l, h) = quartiles(r.iter().map(|x| x.1).collect());
        println!(
            "| {} | {:.2} | {:.0} % ({:.0}–{:.0} %) | {:.0} | {:.0} |",
            case.label,
            median(r.iter().map(|x| x.0.rate).collect()) * 8e-9,
            100.0 * m,
            100.0 * l,
            100.0 * h,
            median(r.iter().map(|x| x.0.cwnd).collect()),
            median(r.iter().map(|x| x.0.rtt_us).collect())
        );
    }
    for (case, costs) in cases
        .iter()
        .zip(&agent_cost)
        .filter(|(c, _)| c.agent.is_some())
    {
        let col = |k: usize| median(costs.iter().map(|x| x[k]).collect());
        println!(
            "{}: {:.0} ns thread CPU per ACK ({:.1} % of one core); {:.0} ns per ACK decoding + algorithm; {:.0} ns per batch of decisions written",
            case.label,
            col(0),
            100.0 * col(1),
            col(2),
            col(3)
        );
    }
    // Cost of the BPF programs themselves, per call, from the kernel's BPF run-time
    // statistics (kernel.bpf_stats_enabled), in one extra run of each, after the
    // throughput rounds so that the statistics' own overhead does not bias them.
    match bpf_costs(&natives) {
        Ok(rows) => {
            println!("| BPF program | calls | ns per call |");
            println!("|---|---|---|");
            for (name, cnt, ns) in rows {
                println!("| {name} | {cnt} | {:.0} |", ns as f64 / cnt.max(1) as f64);
            }
        }
        Err(e) => println!("BPF run-time statistics unavailable: {e}"),
    }
    drop(shim);
    drop(guards);
}

/// (program, run count, run time ns) of our struct_ops programs after one bulk run of
/// each native algorithm and of the shim with an agent running newreno.
fn bpf_costs(natives: &[&str]) -> Result<Vec<(String, u64, u64)>, String> {
    const KNOB: &str = "/proc/sys/kernel/bpf_stats_enabled";
    let old = std::fs::read_to_string(KNOB).map_err(|e| format!("{KNOB}: {e}"))?;
    std::fs::write(KNOB, "1").map_err(|e| format!("{KNOB}: {e}"))?;
    let before = prog_stats();
    for n in natives {
        bulk(n);
    }
    let h = AgentHandle::spawn(AgentConfig::new("newreno")).unwrap();
    bulk("scv_shim");
    h.stop().unwrap();
    let after = prog_stats();
    let _ = std::fs::write(KNOB, old.trim());
    let (before, after) = (before?, after?);
    Ok(after
        .into_iter()
        .filter_map(|(name, cnt, ns)| {
            let (c0, n0) = before
                .iter()
                .find(|b| b.0 == name)
                .map_or((0, 0), |b| (b.1, b.2));
            (cnt > c0 + 100).then(|| (name, cnt - c0, ns - n0))
        })
        .collect())
}

/// Every loaded BPF program named bpf_* (ours): (name, run_cnt, run_time_ns), via bpftool.
fn prog_stats() -> Result<Vec<(String, u64, u64)>, String> {
    let out = std::process::Command::new("bpftool")
        .args(["prog", "show", "--json"])
        .output()
        .map_err(|e| format!("bpftool: {e}"))?;
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("bpftool output: {e}"))?;
    Ok(v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let name = p["name"].as_str()?;
            name.starts_with("bpf_").then(|| {
                (
                    name.to_string(),
                    p["run_cnt"].as_u64().unwrap_or(0),
                    p["run_time_ns"].as_u64().unwrap_or(0),
                )
            })
        })
        .collect())
}
