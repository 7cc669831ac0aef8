//! Two real quinn endpoints on 127.0.0.1 moving a bulk stream with our controllers
//! through the adapter. Loopback only, bounded in time. The benchmarks (adapter cost per
//! ACK, our CUBIC against quinn's) are `cargo bench -p scavenger-quic --bench adapter`.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::transfer;
use scavenger_quic::ScavengerFactory;

async fn ours(name: &str, total: u64) {
    let f = Arc::new(ScavengerFactory::new(name, [], 7).unwrap());
    let stats = f.stats();
    let (got, took) = tokio::time::timeout(Duration::from_secs(120), transfer(f, true, total))
        .await
        .expect("transfer finished in time");
    assert_eq!(got, total, "{name}: all bytes arrived");
    let s = stats.snapshot();
    eprintln!("{name}: {total} B in {took:?}; {s:?}");
    // The controller was driven: a sample per ACK frame, and the window moved.
    assert!(s.samples > 100, "{name}: {s:?}");
    assert!(
        s.window_changes > 10 && s.max_window > s.min_window,
        "{name}: {s:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cubic_moves_20_mb_over_loopback() {
    ours("cubic", 20_000_000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ledbat_plus_plus_moves_20_mb_over_loopback() {
    ours("ledbat++", 20_000_000).await;
}
