//! The simulator speed benchmark of the foundation issue: fixed dumbbell cases, one line
//! of numbers each.

use scavenger_cc::{find, Dur, Rate, Time};
use scavenger_net::{CodelParams, FqCodelParams, LinkConfig, QdiscConfig, QueueLimit};
use scavenger_sim::{FlowConfig, MeasureConfig, SimConfig};

pub struct BenchCase {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn() -> SimConfig,
    /// Part of a plain `scavenger bench`; the large cases run only when named.
    pub default: bool,
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

/// Case (b) on the transport of before issue 17's fidelity work: no handshake and the
/// legacy receiver (every second segment or 40 ms, a fixed window), for the cost of the
/// Linux receiver and the handshake (docs/performance.md).
fn case_b_legacy() -> SimConfig {
    let mut c = case_b();
    for f in &mut c.flows {
        f.handshake = false;
        f.ack_model = scavenger_sim::AckModel::Legacy;
    }
    c
}

/// Case (b) without the handshake (the Linux receiver kept).
fn case_b_no_handshake() -> SimConfig {
    let mut c = case_b();
    for f in &mut c.flows {
        f.handshake = false;
    }
    c
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

/// Bandwidth-delay product in 1500-byte packets.
fn bdp_packets(rate: Rate, rtt: Dur) -> u32 {
    (rate.0 as u128 * rtt.nanos() as u128 / 8 / 1_000_000_000 / 1500) as u32
}

/// A bulk flow with a 1 GiB receive window, so that the congestion window, not the
/// receiver, limits it on the long fat paths of issue 21. The legacy receiver keeps that
/// window fixed: the default Linux receiver autotunes up to `tcp_rmem[2]` = 32 MiB, as a
/// host with default sysctls does, which holds two flows on 50 ms to about 10.7 Gbit/s,
/// so case (f) would no longer fill its 100 Gbit/s path (18 M events instead of 270 M
/// on main 53744f9). A host meant for such paths raises that sysctl; the fixed window
/// stands in for it.
fn long_fat(name: &str, algorithm: &str) -> FlowConfig {
    let mut f = FlowConfig::bulk(name, find(algorithm).expect("registered"));
    f.rwnd = 1 << 30;
    f.ack_model = scavenger_sim::AckModel::Legacy;
    f
}

fn case_e() -> SimConfig {
    let (rate, rtt) = (Rate::from_mbps(10_000), Dur::from_millis(100));
    let flows = (0..8)
        .map(|i| long_fat(&format!("c{i}"), "cubic"))
        .collect();
    dumbbell(rate, rtt, 2 * bdp_packets(rate, rtt), 60, flows)
}

fn case_f() -> SimConfig {
    let (rate, rtt) = (Rate::from_mbps(100_000), Dur::from_millis(50));
    let flows = vec![long_fat("lbe", "ledbat-plus-plus"), long_fat("c", "cubic")];
    dumbbell(rate, rtt, bdp_packets(rate, rtt), 10, flows)
}

/// Web-like load as the lab's `kind = "web"` draws it: Poisson arrivals of CUBIC
/// transfers with Pareto sizes (shape 1.5), here 10 000 of them at 10 000/30 per second
/// (the few drawn after 30 s never start) with a mean of 1 MB, about 27 % of 10 Gbit/s.
fn case_g() -> SimConfig {
    let (rate, rtt, secs) = (Rate::from_mbps(10_000), Dur::from_millis(20), 30);
    let (n, mean, shape) = (10_000u32, 1_000_000.0f64, 1.5f64);
    let per_s = n as f64 / secs as f64;
    let mut rng = scavenger_cc::Rng::new(21);
    let mut t = 0.0f64;
    let flows = (0..n)
        .map(|i| {
            t += -(1.0 - rng.uniform()).ln() / per_s;
            // Scale x_m = mean (a − 1)/a gives the mean; inversion x = x_m / (1 − u)^(1/a).
            let size = mean * (shape - 1.0) / shape / (1.0 - rng.uniform()).powf(1.0 / shape);
            let mut f = FlowConfig::bulk(&format!("w{i}"), find("cubic").expect("registered"));
            f.start = Time((t * 1e9) as u64);
            f.size = Some((size.round() as u64).max(1));
            f
        })
        .collect();
    dumbbell(rate, rtt, bdp_packets(rate, rtt), secs, flows)
}

pub static CASES: &[BenchCase] = &[
    BenchCase {
        name: "a",
        about: "10 CUBIC flows, 100 Mbit/s, 50 ms RTT, 1670-packet buffer, 30 s",
        build: case_a,
        default: true,
    },
    BenchCase {
        name: "b",
        about:
            "100 NewReno flows, 1 Gbit/s, 40 ms RTT, 1000-packet buffer, 10 s, starts within 10 ms",
        build: case_b,
        default: true,
    },
    BenchCase {
        name: "b-legacy",
        about: "case b without the handshake and with the legacy receiver (ack_model = \"legacy\")",
        build: case_b_legacy,
        default: false,
    },
    BenchCase {
        name: "b-nohs",
        about: "case b without the handshake (handshake = false)",
        build: case_b_no_handshake,
        default: false,
    },
    BenchCase {
        name: "c",
        about: "case b with CoDel (RFC 8289 defaults) on both directions",
        build: case_c,
        default: true,
    },
    BenchCase {
        name: "d",
        about: "case b with FQ-CoDel (RFC 8290 defaults) on both directions",
        build: case_d,
        default: true,
    },
    BenchCase {
        name: "e",
        about: "8 CUBIC flows, 10 Gbit/s, 100 ms RTT, 2 BDP buffer (166 666 packets), 60 s",
        build: case_e,
        default: false,
    },
    BenchCase {
        name: "f",
        about: "1 LEDBAT++ and 1 CUBIC flow, 100 Gbit/s, 50 ms RTT, 1 BDP buffer, 10 s",
        build: case_f,
        default: false,
    },
    BenchCase {
        name: "g",
        about: "10 000 web-like CUBIC transfers, 10 Gbit/s, 20 ms RTT, 1 BDP buffer, 30 s",
        build: case_g,
        default: false,
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
        "case={} wall_s={:.3} sim_s={} events={} delivered_pkts={} events_per_s={:.0} packets_per_s={:.0} peak_rss_mib={:.1}",
        case.name,
        wall,
        sim_s,
        r.events,
        data_pkts,
        r.events as f64 / wall,
        data_pkts as f64 / wall,
        peak_rss_mib().unwrap_or(f64::NAN)
    )
}
