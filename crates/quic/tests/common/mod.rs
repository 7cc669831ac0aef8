//! Two quinn 0.11 endpoints on 127.0.0.1 moving one bulk stream: shared by the loopback
//! tests and the adapter benchmark (`benches/adapter.rs`, included with `#[path]`).
#![allow(dead_code)]

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn::crypto::rustls::QuicClientConfig;
use quinn_proto::congestion::ControllerFactory;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use scavenger_quic::ack_frequency;

pub const CHUNK: usize = 64 * 1024;

/// Sends `total` bytes from a client whose congestion controller `factory` builds to a
/// server that counts them and answers with the count. Returns the count and the time
/// from the first write to the answer.
pub async fn transfer(
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
