//! QUIC in the simulator: two quinn-proto endpoints, a client that sends one stream and a
//! server that reads it, behind `scavenger_sim::endpoint::PacketEndpoints`. The
//! simulator carries their datagrams over its links in virtual time; the client's
//! congestion controller is ours, through the same `ScavengerFactory` that `send` uses
//! (docs/quic.md, "QUIC in the simulator").
//!
//! Determinism (same scenario and seed, same record):
//! - time: quinn-proto takes `std::time::Instant`; `clock` maps the simulator's integer
//!   nanoseconds onto a fixed base instant and back, exactly. quinn-proto reads no clock
//!   of its own; rustls and quinn's token code get a fixed wall time (`FixedTime`).
//! - randomness: both endpoints' RNGs (connection IDs, packet-number skips, transport
//!   parameter grease) are seeded from the run's seed and the flow's index.
//! - sizes: the TLS 1.3 handshake uses Ed25519 (a fixed key and certificate) and X25519
//!   only, whose signature and key shares have one length, without session tickets or
//!   resumption; the bytes rustls draws from the system RNG (randoms, key shares) change
//!   packet contents, never their lengths (docs/deviations/quic.md#sim-handshake-crypto).

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::BytesMut;
use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn_proto::{
    ClientConfig, ConnectionHandle, DatagramEvent, Dir, Endpoint, EndpointConfig, ServerConfig,
    StreamId, TransportConfig, VarInt,
};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::time_provider::TimeProvider;
use rustls::SignatureScheme;
use scavenger_cc::{Dur, Rng, Time};
use scavenger_sim::endpoint::{
    End, EndpointFactory, EndpointInit, EndpointStatus, PacketEndpoints,
};

use crate::stats::AdapterStats;
use crate::transfer::tls::AnyCertProvenKey;
use crate::{ack_frequency, ScavengerFactory};

/// Virtual time as quinn-proto's `Instant`.
pub mod clock {
    use super::*;
    use std::time::Instant;

    /// The instant that stands for simulated time zero. Read once per process and used
    /// only as an origin: every value quinn sees is this plus a simulated offset, and
    /// every value we read back is a difference from it, so no result depends on it.
    fn base() -> Instant {
        static BASE: OnceLock<Instant> = OnceLock::new();
        *BASE.get_or_init(Instant::now)
    }

    pub fn to_instant(t: Time) -> Instant {
        base() + Duration::from_nanos(t.nanos())
    }

    /// An instant before the origin (quinn never makes one from ours) maps to zero.
    pub fn to_time(i: Instant) -> Time {
        Time(i.saturating_duration_since(base()).as_nanos() as u64)
    }
}

/// What the QUIC endpoints of every flow of a scenario share.
#[derive(Clone)]
pub struct QuicSimConfig {
    /// Algorithm name as the registry knows it and its resolved parameters.
    pub algorithm: &'static scavenger_cc::registry::AlgorithmInfo,
    pub params: scavenger_cc::ParamSet,
    /// UDP payload bytes of a full datagram: the path MTU minus IPv4 and UDP headers
    /// (1472 for a 1500-byte MTU). quinn's MTU discovery is off; this is the MTU.
    pub max_udp_payload: u16,
    /// Flow-control window of the server (the scenario's `rwnd`), bytes.
    pub receive_window: u64,
}

impl QuicSimConfig {
    /// The factory the simulator calls when a flow with `transport = "quic"` starts.
    pub fn factory(self) -> EndpointFactory {
        Arc::new(move |init: &EndpointInit| {
            Box::new(QuicPair::new(&self, init)) as Box<dyn PacketEndpoints>
        })
    }
}

/// A fixed wall time for rustls (certificate validity) and quinn (token lifetimes), so
/// that nothing in a simulated run reads the system clock.
#[derive(Debug)]
struct FixedTime;

/// 2026-01-01T00:00:00Z.
const FIXED_UNIX_SECS: u64 = 1_767_225_600;

impl TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        Some(UnixTime::since_unix_epoch(Duration::from_secs(
            FIXED_UNIX_SECS,
        )))
    }
}

impl quinn_proto::TimeSource for FixedTime {
    fn now(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH + Duration::from_secs(FIXED_UNIX_SECS)
    }
}

/// ring with X25519 as the only key exchange: one key-share length in every run.
fn provider() -> Arc<CryptoProvider> {
    let mut p = rustls::crypto::ring::default_provider();
    p.kx_groups = vec![rustls::crypto::ring::kx_group::X25519];
    Arc::new(p)
}

pub(crate) const SERVER_NAME: &str = "scavenger-sim-server";

/// The simulated server's Ed25519 key (PKCS#8, `openssl genpkey -algorithm ed25519`).
/// A key of the simulator's own, never used outside it: fixed so that the certificate is
/// the same bytes in every process (Ed25519 signatures are deterministic), not only the
/// same length.
const SIM_SERVER_KEY: [u8; 48] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    0xb3, 0x2a, 0x77, 0x9c, 0xae, 0x66, 0x61, 0xba, 0x98, 0xcc, 0x66, 0x4e, 0x52, 0xb4, 0xcc, 0x43,
    0x62, 0x99, 0xc3, 0xb4, 0x3e, 0x03, 0x4e, 0xb3, 0x53, 0x21, 0x72, 0x70, 0x09, 0x2d, 0x9b, 0x7f,
];

/// The server's self-signed certificate, made once per process from `SIM_SERVER_KEY`
/// with a fixed serial number and rcgen's fixed default validity.
fn identity() -> &'static CertificateDer<'static> {
    static ID: OnceLock<CertificateDer<'static>> = OnceLock::new();
    ID.get_or_init(sim_certificate)
}

fn sim_certificate() -> CertificateDer<'static> {
    {
        let key = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(
            &PrivatePkcs8KeyDer::from(&SIM_SERVER_KEY[..]),
            &rcgen::PKCS_ED25519,
        )
        .expect("a valid Ed25519 PKCS#8 key");
        let mut params =
            rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()]).expect("a valid DNS name");
        params.serial_number = Some(rcgen::SerialNumber::from(1u64));
        params
            .self_signed(&key)
            .expect("self-signing with Ed25519")
            .der()
            .clone()
    }
}

pub(crate) fn tls_client() -> QuicClientConfig {
    let p = provider();
    let mut tls = rustls::ClientConfig::builder_with_details(p.clone(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .dangerous()
        // Trusts the simulated server's certificate as it is (no one can impersonate it)
        // and checks the handshake signature, as a real client would compute it.
        .with_custom_certificate_verifier(Arc::new(AnyCertProvenKey::offering(p, &[SignatureScheme::ED25519])))
        .with_no_client_auth();
    // Every connection is a first one: no session resumption across flows or runs.
    tls.resumption = rustls::client::Resumption::disabled();
    QuicClientConfig::try_from(tls).expect("TLS 1.3 with an AES-128-GCM suite")
}

pub(crate) fn tls_server() -> QuicServerConfig {
    let cert = identity();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(SIM_SERVER_KEY.to_vec()));
    let mut tls = rustls::ServerConfig::builder_with_details(provider(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key)
        .expect("the Ed25519 certificate and its key");
    tls.send_tls13_tickets = 0;
    QuicServerConfig::try_from(tls).expect("TLS 1.3 with an AES-128-GCM suite")
}

/// 32 seed bytes for quinn's `StdRng` from our generator.
fn seed_bytes(rng: &mut Rng) -> [u8; 32] {
    let mut s = [0u8; 32];
    for c in s.chunks_mut(8) {
        c.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    s
}

/// Transport settings both ends share: the MTU fixed at the path's, no idle timeout (a
/// flow that waits out a long outage is not closed), the scenario's receive window.
/// The testbed's endpoints (`udp`) use the same.
pub(crate) fn transport(max_udp_payload: u16, receive_window: u64) -> TransportConfig {
    let mut t = TransportConfig::default();
    t.initial_mtu(max_udp_payload)
        .min_mtu(max_udp_payload)
        .mtu_discovery_config(None)
        .max_idle_timeout(None)
        .enable_segmentation_offload(false)
        .ack_frequency_config(Some(ack_frequency::prompt_acks()));
    let rwnd = VarInt::from_u64(receive_window).unwrap_or(VarInt::MAX);
    t.stream_receive_window(rwnd).receive_window(rwnd);
    t
}

const CLIENT_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 50_000);
const SERVER_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::new(10, 0, 1, 1)), 443);

/// A static block of stream data (its content does not matter).
static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];

struct Side {
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, quinn_proto::Connection)>,
}

/// One flow's client and server.
pub struct QuicPair {
    client: Side,
    server: Side,
    server_config: Arc<ServerConfig>,
    stats: Arc<AdapterStats>,
    /// The client's stream and how many bytes it has written.
    stream: Option<StreamId>,
    written: u64,
    size: Option<u64>,
    finished_writing: bool,
    stopped: bool,
    /// The server's stream, the bytes it has read, and whether it read the end.
    rx_stream: Option<StreamId>,
    delivered: u64,
    finished: bool,
    samples_seen: u64,
    /// Datagrams built by `poll_transmit`, in order.
    out: std::collections::VecDeque<(End, Vec<u8>)>,
    buf: Vec<u8>,
}

impl QuicPair {
    pub fn new(cfg: &QuicSimConfig, init: &EndpointInit) -> QuicPair {
        let now = clock::to_instant(init.now);
        let flow = init.flow as u64;
        let factory = Arc::new(ScavengerFactory::from_params(
            cfg.algorithm,
            cfg.params.clone(),
            Rng::derive(init.seed, 0x5155_0000 + flow).next_u64(),
        ));
        let stats = factory.stats();
        let mut client_transport = transport(cfg.max_udp_payload, cfg.receive_window);
        client_transport.congestion_controller_factory(factory);
        let mut client_cfg = ClientConfig::new(Arc::new(tls_client()));
        client_cfg.transport_config(Arc::new(client_transport));

        let mut server_cfg = ServerConfig::with_crypto(Arc::new(tls_server()));
        server_cfg
            .transport_config(Arc::new(transport(cfg.max_udp_payload, cfg.receive_window)))
            .time_source(Arc::new(FixedTime));
        let server_config = Arc::new(server_cfg);

        let ep_cfg = |stream: u64| {
            let mut c = EndpointConfig::default();
            c.rng_seed(Some(seed_bytes(&mut Rng::derive(
                init.seed,
                0x5155_0000 + (stream << 32) + flow,
            ))));
            Arc::new(c)
        };
        let mut client_ep = Endpoint::new(ep_cfg(1), None, false, None);
        let server_ep = Endpoint::new(ep_cfg(2), Some(server_config.clone()), false, None);
        let conn = client_ep
            .connect(now, client_cfg, SERVER_ADDR, SERVER_NAME)
            .expect("a valid client configuration");
        let mut pair = QuicPair {
            client: Side {
                endpoint: client_ep,
                conn: Some(conn),
            },
            server: Side {
                endpoint: server_ep,
                conn: None,
            },
            server_config,
            stats,
            stream: None,
            written: 0,
            size: init.size,
            finished_writing: false,
            stopped: false,
            rx_stream: None,
            delivered: 0,
            finished: false,
            samples_seen: 0,
            out: Default::default(),
            buf: Vec::new(),
        };
        pair.client_app();
        pair
    }

    fn side(&mut self, end: End) -> &mut Side {
        match end {
            End::Client => &mut self.client,
            End::Server => &mut self.server,
        }
    }

    /// Passes a connection's endpoint events to its endpoint and back.
    fn endpoint_events(&mut self, end: End) {
        let side = self.side(end);
        let Some((ch, conn)) = side.conn.as_mut() else {
            return;
        };
        while let Some(ev) = conn.poll_endpoint_events() {
            if let Some(cev) = side.endpoint.handle_event(*ch, ev) {
                conn.handle_event(cev);
            }
        }
    }

    /// The client application: open the stream once connected and keep it full.
    fn client_app(&mut self) {
        let Some((_, conn)) = self.client.conn.as_mut() else {
            return;
        };
        while conn.poll().is_some() {}
        if self.stopped || self.finished_writing {
            return;
        }
        if self.stream.is_none() {
            self.stream = conn.streams().open(Dir::Uni);
        }
        let Some(id) = self.stream else { return };
        let mut s = conn.send_stream(id);
        loop {
            let left = self.size.map_or(ZEROS.len() as u64, |n| n - self.written);
            if left == 0 {
                // All written: FIN goes with the last data.
                let _ = s.finish();
                self.finished_writing = true;
                break;
            }
            let n = left.min(ZEROS.len() as u64) as usize;
            match s.write(&ZEROS[..n]) {
                Ok(0) | Err(_) => break,
                Ok(w) => self.written += w as u64,
            }
        }
    }

    /// The server application: accept the stream and read everything that arrived.
    fn server_app(&mut self) {
        let Some((_, conn)) = self.server.conn.as_mut() else {
            return;
        };
        while conn.poll().is_some() {}
        if self.rx_stream.is_none() {
            self.rx_stream = conn.streams().accept(Dir::Uni);
        }
        let Some(id) = self.rx_stream else { return };
        let mut rs = conn.recv_stream(id);
        let Ok(mut chunks) = rs.read(true) else {
            return;
        };
        loop {
            match chunks.next(usize::MAX) {
                Ok(Some(c)) => self.delivered += c.bytes.len() as u64,
                Ok(None) => {
                    self.finished = true;
                    break;
                }
                Err(_) => break,
            }
        }
        // Flow-control credit goes out with the next `poll_transmit`.
        let _ = chunks.finalize();
    }

    /// Collects every datagram either end can send now.
    fn collect(&mut self, now: Time) {
        let at = clock::to_instant(now);
        for end in [End::Client, End::Server] {
            let side = match end {
                End::Client => &mut self.client,
                End::Server => &mut self.server,
            };
            if let Some((_, conn)) = side.conn.as_mut() {
                loop {
                    self.buf.clear();
                    match conn.poll_transmit(at, 1, &mut self.buf) {
                        Some(t) => self.out.push_back((end, self.buf[..t.size].to_vec())),
                        None => break,
                    }
                }
            }
            self.endpoint_events(end);
        }
    }

    /// Both applications act on what their connections did.
    fn apps(&mut self) {
        self.endpoint_events(End::Client);
        self.endpoint_events(End::Server);
        self.client_app();
        self.server_app();
    }
}

impl PacketEndpoints for QuicPair {
    fn deliver(&mut self, now: Time, to: End, payload: &[u8]) {
        let at = clock::to_instant(now);
        let (remote, local) = match to {
            End::Client => (SERVER_ADDR, CLIENT_ADDR),
            End::Server => (CLIENT_ADDR, SERVER_ADDR),
        };
        let mut buf = Vec::new();
        let side = match to {
            End::Client => &mut self.client,
            End::Server => &mut self.server,
        };
        let ev = side.endpoint.handle(
            at,
            remote,
            Some(local.ip()),
            None,
            BytesMut::from(payload),
            &mut buf,
        );
        match ev {
            Some(DatagramEvent::ConnectionEvent(ch, ev)) => {
                if let Some((h, conn)) = side.conn.as_mut() {
                    if *h == ch {
                        conn.handle_event(ev);
                    }
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                if side.conn.is_some() {
                    side.endpoint.ignore(incoming);
                } else {
                    match side.endpoint.accept(
                        incoming,
                        at,
                        &mut buf,
                        Some(self.server_config.clone()),
                    ) {
                        Ok(c) => side.conn = Some(c),
                        Err(e) => {
                            if let Some(t) = e.response {
                                self.out.push_back((to, buf[..t.size].to_vec()));
                            }
                        }
                    }
                }
            }
            Some(DatagramEvent::Response(t)) => self.out.push_back((to, buf[..t.size].to_vec())),
            None => {}
        }
        self.apps();
    }

    fn poll_transmit(&mut self, now: Time) -> Option<(End, Vec<u8>)> {
        if self.out.is_empty() {
            self.apps();
            self.collect(now);
        }
        self.out.pop_front()
    }

    fn handle_timeout(&mut self, now: Time) {
        let at = clock::to_instant(now);
        for side in [&mut self.client, &mut self.server] {
            if let Some((_, conn)) = side.conn.as_mut() {
                if conn.poll_timeout().is_some_and(|t| t <= at) {
                    conn.handle_timeout(at);
                }
            }
        }
        self.apps();
    }

    fn next_timeout(&mut self) -> Option<Time> {
        [&mut self.client, &mut self.server]
            .into_iter()
            .filter_map(|s| s.conn.as_mut().and_then(|(_, c)| c.poll_timeout()))
            .min()
            .map(clock::to_time)
    }

    fn stop(&mut self, _now: Time) {
        self.stopped = true;
    }

    fn status(&self) -> EndpointStatus {
        let lost = self
            .client
            .conn
            .as_ref()
            .map_or(0, |(_, c)| c.stats().path.lost_packets);
        EndpointStatus {
            delivered: self.delivered,
            finished: self.finished,
            cwnd: self.stats.window.load(Relaxed),
            lost_packets: lost,
            loss_reductions: self.stats.loss_reductions.load(Relaxed),
            timeouts: self.stats.rtos.load(Relaxed),
            ecn_reductions: self.stats.ecn_reductions.load(Relaxed),
        }
    }

    fn take_rtt_samples(&mut self, out: &mut Vec<Dur>) {
        // One datagram brings at most one ACK frame to the client, hence one sample.
        let n = self.stats.samples.load(Relaxed);
        if n > self.samples_seen {
            self.samples_seen = n;
            out.push(Dur(self.stats.last_rtt_ns.load(Relaxed)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_time_round_trips_through_instant_exactly() {
        for ns in [
            0,
            1,
            999,
            1_000_000_007,
            3_600_000_000_123,
            u32::MAX as u64 * 1000,
        ] {
            let t = Time(ns);
            assert_eq!(clock::to_time(clock::to_instant(t)), t, "{ns} ns");
        }
        // Differences survive as well: what quinn computes from two of our instants.
        let (a, b) = (Time(5_000_000_001), Time(5_025_000_003));
        assert_eq!(
            clock::to_instant(b) - clock::to_instant(a),
            Duration::from_nanos(25_000_002)
        );
        // quinn never makes an instant before ours; one would read as time zero.
        let before = clock::to_instant(Time(10)) - Duration::from_nanos(20);
        assert_eq!(clock::to_time(before), Time::ZERO);
    }

    #[test]
    fn the_sim_servers_certificate_is_the_same_bytes_every_time() {
        // What makes the handshake's sizes (and contents) independent of the process.
        assert_eq!(sim_certificate(), sim_certificate());
    }

    #[test]
    fn a_pair_connects_and_moves_a_small_transfer_without_a_network_model() {
        // Deliver every datagram at once, 1 ms after it was sent: the handshake completes
        // and 100 kB arrive, driven only by our calls.
        let cfg = QuicSimConfig {
            algorithm: scavenger_cc::registry::find("cubic").unwrap(),
            params: scavenger_cc::ParamSet::defaults(
                scavenger_cc::registry::find("cubic").unwrap().params,
            ),
            max_udp_payload: 1472,
            receive_window: 1 << 20,
        };
        let init = EndpointInit {
            flow: 0,
            now: Time::ZERO,
            seed: 1,
            size: Some(100_000),
        };
        let mut p = QuicPair::new(&cfg, &init);
        let mut now = Time::ZERO;
        let mut sizes = Vec::new();
        for _ in 0..10_000 {
            if p.status().finished {
                break;
            }
            let mut batch = Vec::new();
            while let Some(d) = p.poll_transmit(now) {
                sizes.push(d.1.len());
                batch.push(d);
            }
            now += Dur::from_millis(1);
            for (from, payload) in batch {
                let to = if from == End::Client {
                    End::Server
                } else {
                    End::Client
                };
                p.deliver(now, to, &payload);
            }
            if p.next_timeout().is_some_and(|t| t <= now) {
                p.handle_timeout(now);
            }
        }
        assert!(p.status().finished, "{:?}", p.status());
        assert_eq!(p.status().delivered, 100_000);
        assert!(sizes.iter().all(|&s| s <= 1472), "{sizes:?}");
    }
}
