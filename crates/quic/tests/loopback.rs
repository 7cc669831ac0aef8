//! Two real quinn endpoints on 127.0.0.1 moving a bulk stream with our controllers
//! through the adapter. Loopback only, bounded in time.
//!
//! The `#[ignore]`d benchmarks (docs/quic.md, "Performance") run with
//! `cargo test --release -p scavenger-quic --test loopback -- --ignored --nocapture --test-threads 1`.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn::crypto::rustls::QuicClientConfig;
use quinn_proto::congestion::{Controller, ControllerFactory, CubicConfig};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use scavenger_quic::{ack_frequency, ScavengerFactory};

const CHUNK: usize = 64 * 1024;

/// Sends `total` bytes from a client whose congestion controller `factory` builds to a
/// server that counts them and answers with the count. Returns the count and the time
/// from the first write to the answer.
async fn transfer(
    factory: Arc<dyn ControllerFactory + Send + Sync>,
    prompt_acks: bool,
    total: u64,
) -> (u64, Duration) {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let cert_der = CertificateDer::from(cert.cert.der().to_vec());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_pair.serialize_der()));
    let server_cfg = quinn::ServerConfig::with_single_cert(vec![cert_der.clone()], key).unwrap();
    let any = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let server = quinn::Endpoint::server(server_cfg, any).unwrap();
    let server_addr = server.local_addr().unwrap();

    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert_der).unwrap();
    let tls = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut client_cfg =
        quinn::ClientConfig::new(Arc::new(QuicClientConfig::try_from(tls).unwrap()));
    let mut transport = quinn::TransportConfig::default();
    transport.congestion_controller_factory(factory);
    if prompt_acks {
        transport.ack_frequency_config(Some(ack_frequency::prompt_acks()));
    }
    client_cfg.transport_config(Arc::new(transport));
    let mut client = quinn::Endpoint::client(any).unwrap();
    client.set_default_client_config(client_cfg);

    let srv = tokio::spawn(async move {
        let conn = server.accept().await.unwrap().await.unwrap();
        let (mut send, mut recv) = conn.accept_bi().await.unwrap();
        let mut n = 0u64;
        while let Some(chunk) = recv.read_chunk(CHUNK, true).await.unwrap() {
            n += chunk.bytes.len() as u64;
        }
        send.write_all(&n.to_be_bytes()).await.unwrap();
        send.finish().unwrap();
        conn.closed().await;
        server.wait_idle().await;
    });

    let conn = client
        .connect(server_addr, "localhost")
        .unwrap()
        .await
        .unwrap();
    let (mut send, mut recv) = conn.open_bi().await.unwrap();
    let buf = vec![0x5au8; CHUNK];
    let start = Instant::now();
    let mut left = total;
    while left > 0 {
        let n = left.min(CHUNK as u64) as usize;
        send.write_all(&buf[..n]).await.unwrap();
        left -= n as u64;
    }
    send.finish().unwrap();
    let answer = recv.read_to_end(8).await.unwrap();
    let elapsed = start.elapsed();
    let got = u64::from_be_bytes(answer.try_into().unwrap());
    conn.close(0u32.into(), b"done");
    client.wait_idle().await;
    srv.await.unwrap();
    (got, elapsed)
}

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

/// Adapter cost per ACK frame: a tight loop of scripted quinn calls (one transmit of two
/// datagrams, one frame acknowledging them), our CUBIC inside.
#[test]
#[ignore]
fn bench_adapter_cost_per_ack() {
    let f = ScavengerFactory::new("cubic", [], 1).unwrap();
    let t0 = Instant::now();
    let mut c = f.controller(t0, 1200);
    let n = 2_000_000u64;
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
    eprintln!("adapter+cubic: {per:.0} ns per (transmit + 2-packet ACK frame)");
    // Quinn's own Cubic for the same calls except on_ack (needs quinn's RttEstimator).
    let q = Arc::new(CubicConfig::default());
    let mut qc: Box<dyn Controller> = q.build(t0, 1200);
    let start = Instant::now();
    for i in 0..n {
        let sent = t0 + Duration::from_micros(i * 10);
        let now = sent + Duration::from_millis(1);
        qc.on_sent(sent, 2400, 2 * i + 1);
        qc.on_end_acks(now, 24_000, false, Some(2 * i + 1));
        std::hint::black_box(qc.window());
    }
    let per_q = start.elapsed().as_nanos() as f64 / n as f64;
    eprintln!("quinn cubic (no on_ack): {per_q:.0} ns per the same calls");
}

/// Loopback bulk throughput: our CUBIC through the adapter vs quinn's own Cubic, 200 MB,
/// best of three each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn bench_loopback_cubic_vs_quinn_cubic() {
    let total = 200_000_000u64;
    for round in 0..3 {
        let f = Arc::new(ScavengerFactory::new("cubic", [], 7).unwrap());
        let (_, ours) = transfer(f, false, total).await;
        let (_, theirs) = transfer(Arc::new(CubicConfig::default()), false, total).await;
        let mbps = |d: Duration| total as f64 * 8.0 / d.as_secs_f64() / 1e6;
        eprintln!(
            "round {round}: ours {:.0} Mbit/s, quinn cubic {:.0} Mbit/s, ratio {:.3}",
            mbps(ours),
            mbps(theirs),
            mbps(ours) / mbps(theirs)
        );
    }
}
