//! Benchmarks of the QUIC datapath (issue 19's performance targets; results in
//! docs/performance.md). Not a test: it asserts nothing and prints one line per case.
//!
//! ```sh
//! cargo bench -p scavenger-quic --bench adapter              # both cases
//! cargo bench -p scavenger-quic --bench adapter -- ack 2000000
//! cargo bench -p scavenger-quic --bench adapter -- bulk 200000000 5
//! ```
//!
//! - `ack [N]`: the adapter's cost per ACK frame, N iterations of scripted quinn calls
//!   (one transmit of two datagrams, one frame acknowledging both, `window()`), our
//!   CUBIC inside; quinn's own Cubic on the same calls for scale. Wall time is noisy on
//!   a shared machine; the stable measure is instructions, from callgrind at two N
//!   (docs/performance.md gives the commands): (I(N2) − I(N1)) / (N2 − N1).
//! - `bulk [BYTES] [ROUNDS]`: loopback bulk throughput, our CUBIC through the adapter
//!   against quinn's Cubic, alternating within each round so that both see the same load;
//!   the median of each and their ratio.

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn_proto::congestion::{Controller, ControllerFactory, CubicConfig};
use scavenger_quic::ScavengerFactory;

fn ack(n: u64) {
    let f = ScavengerFactory::new("cubic", [], 1).expect("cubic is registered");
    let t0 = Instant::now();
    let mut c = f.controller(t0, 1200);
    let start = Instant::now();
    for i in 0..n {
        let sent = t0 + Duration::from_micros(i * 10);
        let now = sent + Duration::from_millis(1);
        c.on_sent(sent, 2400, 2 * i + 1);
        c.on_packet_acked(now, sent, 1200);
        c.on_packet_acked(now, sent, 1200);
        c.on_end_acks(now, 24_000, false, Some(2 * i + 1));
        std::hint::black_box(c.window());
    }
    let per = start.elapsed().as_nanos() as f64 / n as f64;
    println!("ack: adapter + our cubic: {per:.0} ns per (transmit of 2 datagrams + 2-packet ACK frame), n = {n}");
    // quinn's Cubic without on_ack, whose RttEstimator argument is private to quinn-proto.
    let mut qc: Box<dyn Controller> = Arc::new(CubicConfig::default()).build(t0, 1200);
    let start = Instant::now();
    for i in 0..n {
        let sent = t0 + Duration::from_micros(i * 10);
        let now = sent + Duration::from_millis(1);
        qc.on_sent(sent, 2400, 2 * i + 1);
        qc.on_end_acks(now, 24_000, false, Some(2 * i + 1));
        std::hint::black_box(qc.window());
    }
    let per_q = start.elapsed().as_nanos() as f64 / n as f64;
    println!("ack: quinn cubic (no on_ack): {per_q:.0} ns per the same calls");
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

async fn bulk(total: u64, rounds: usize) {
    let mbps = |d: Duration| total as f64 * 8.0 / d.as_secs_f64() / 1e6;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let ours: Arc<dyn ControllerFactory + Send + Sync> =
            Arc::new(ScavengerFactory::new("cubic", [], 7).expect("cubic is registered"));
        let quinns: Arc<dyn ControllerFactory + Send + Sync> = Arc::new(CubicConfig::default());
        // Alternate which goes first, so a load change favours neither.
        let (x, y) = if round % 2 == 0 {
            let x = common::transfer(ours, false, total).await.1;
            (x, common::transfer(quinns, false, total).await.1)
        } else {
            let y = common::transfer(quinns, false, total).await.1;
            (common::transfer(ours, false, total).await.1, y)
        };
        println!(
            "bulk round {round}: ours {:.0} Mbit/s, quinn cubic {:.0} Mbit/s",
            mbps(x),
            mbps(y)
        );
        a.push(mbps(x));
        b.push(mbps(y));
    }
    let (ma, mb) = (median(&mut a), median(&mut b));
    println!(
        "bulk: {total} B x {rounds}: median ours {ma:.0} Mbit/s, quinn cubic {mb:.0} Mbit/s, ratio {:.3}",
        ma / mb
    );
}

fn main() {
    // `cargo bench` passes `--bench`; skip flags.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let num = |i: usize, default: u64| -> u64 {
        args.get(i).map_or(default, |s| {
            s.parse().unwrap_or_else(|_| {
                eprintln!("argument {i} = {s:?}; allowed: a non-negative integer");
                std::process::exit(2)
            })
        })
    };
    let rt = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime")
    };
    match args.first().map(String::as_str) {
        None => {
            ack(2_000_000);
            rt().block_on(bulk(200_000_000, 3));
        }
        Some("ack") => ack(num(1, 2_000_000)),
        Some("bulk") => rt().block_on(bulk(num(1, 200_000_000), num(2, 3).max(1) as usize)),
        Some(other) => {
            eprintln!("case = {other:?}; allowed: ack [N], bulk [BYTES] [ROUNDS]");
            std::process::exit(2);
        }
    }
}
