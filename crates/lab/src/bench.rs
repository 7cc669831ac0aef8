//! The simulator speed benchmark of the foundation issue: fixed dumbbell cases, one line
//! of numbers each.

use scavenger_cc::{find, Dur, Rate, Time};
use scavenger_net::{CodelParams, FqCodelParams, LinkConfig, QdiscConfig, QueueLimit};
use scavenger_sim::{FlowConfig, MeasureConfig, SimConfig};

pub struct BenchCase {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn() -> SimConfig,
}

fn dumbbell(rate: Rate, rtt: Dur, buffer: u32, secs: u64, flows: Vec<FlowConfig>) -> SimConfig {
    let link = LinkConfig::new(rate, Dur(rtt.nanos() / 2), QueueLimit::Packets(buffer));
    SimConfig {
        duration: Dur::from_secs(secs),
        seed: 1,
        forward: link.clone(),
        reverse: link,
        flows,
        measure: MeasureConfig::default(),
    }
}

fn case_a() -> SimConfig {
    let flows = (0..10)
        .map(|i| {
            FlowConfig::bulk(
                &format!("c{i}"),
                find("cubic").or(find("newreno")).expect("registered"),
            )
        })
        .collect();
    dumbbell(Rate::from_mbps(100), Dur::from_millis(50), 1670, 30, flows)
}

fn case_b() -> SimConfig {
    let flows = (0..100)
        .map(|i| {
            let mut f = FlowConfig::bulk(&format!("r{i}"), find("newreno").expect("registered"));
            f.start = Time(i * 100_000); // all within the first 10 ms
            f
        })
        .collect();
    dumbbell(Rate::from_mbps(1000), Dur::from_millis(40), 1000, 10, flows)
}

/// Case (b) with an AQM on both directions of the bottleneck.
fn case_b_with(qdisc: QdiscConfig) -> SimConfig {
    let mut c = case_b();
    c.forward.qdisc = qdisc.clone();
    c.reverse.qdisc = qdisc;
    c
}

fn case_c() -> SimConfig {
    case_b_with(QdiscConfig::Codel(CodelParams::default()))
}

fn case_d() -> SimConfig {
    case_b_with(QdiscConfig::FqCodel(FqCodelParams::default()))
}

pub static CASES: &[BenchCase] = &[
    BenchCase {
        name: "a",
        about: "10 CUBIC flows, 100 Mbit/s, 50 ms RTT, 1670-packet buffer, 30 s",
        build: case_a,
    },
    BenchCase {
        name: "b",
        about:
            "100 NewReno flows, 1 Gbit/s, 40 ms RTT, 1000-packet buffer, 10 s, starts within 10 ms",
        build: case_b,
    },
    BenchCase {
        name: "c",
        about: "case b with CoDel (RFC 8289 defaults) on both directions",
        build: case_c,
    },
    BenchCase {
        name: "d",
        about: "case b with FQ-CoDel (RFC 8290 defaults) on both directions",
        build: case_d,
    },
];

/// Peak resident set of this process in MiB (Linux), if known.
pub fn peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Runs one case in this process and formats its result line.
pub fn run_case(case: &BenchCase) -> String {
    let cfg = (case.build)();
    let sim_s = cfg.duration.secs_f64();
    let t0 = std::time::Instant::now();
    let r = scavenger_sim::run(cfg);
    let wall = t0.elapsed().as_secs_f64();
    // The forward link carries only data: its deliveries are the packets receivers got.
    let data_pkts = r.links[0].delivered_pkts;
    format!(
        "case={} wall_s={:.3} sim_s={} events={} events_per_s={:.0} packets_per_s={:.0} peak_rss_mib={:.1}",
        case.name,
        wall,
        sim_s,
        r.events,
        r.events as f64 / wall,
        data_pkts as f64 / wall,
        peak_rss_mib().unwrap_or(f64::NAN)
    )
}
