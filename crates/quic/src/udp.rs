//! A scenario's QUIC flow over real UDP sockets: the testbed's QUIC endpoints
//! (docs/quic.md, "QUIC on the testbed"). The same two roles as the simulator's
//! `sim::QuicPair` — a client that writes one unidirectional stream (`size` bytes, or
//! until told to stop) and a server that reads it — with the same transport settings,
//! TLS identity and controller factory, but driven by quinn 0.11 and tokio on the real
//! clock instead of by the simulator's events.
//!
//! Each role runs its own current-thread tokio runtime on the calling thread, so that
//! every socket it opens belongs to the network namespace the thread entered (the
//! testbed's `netns::spawn_in`), and nothing outlives the call: when `run_sender` or
//! `UdpReceiver::run` returns, the endpoint, its socket and its tasks are gone.
//!
//! The caller owns time and stopping: both roles check `keep_going` every `every`
//! (the testbed's 10 ms TCP_INFO period) and report what they see through callbacks,
//! which stamp it with the testbed's clock.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use scavenger_cc::registry::AlgorithmInfo;
use scavenger_cc::ParamSet;

use crate::sim::{tls_client, tls_server, transport, SERVER_NAME};
use crate::{AdapterStats, ScavengerFactory};

/// One QUIC flow's settings, shared by its two ends.
#[derive(Clone)]
pub struct UdpFlow {
    /// The sender's algorithm (through `ScavengerFactory`, as `scavenger send` builds it).
    pub algorithm: &'static AlgorithmInfo,
    pub params: ParamSet,
    /// Seeds the algorithm's RNG (quinn's own draws come from the system RNG here).
    pub seed: u64,
    /// UDP payload bytes of a full datagram (1472 on a 1500-byte MTU); MTU discovery off.
    pub max_udp_payload: u16,
    /// Flow-control window the receiver grants (the scenario's `rwnd`), bytes.
    pub receive_window: u64,
}

/// What the sender's connection and controller say at one poll.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpSample {
    /// quinn's smoothed RTT of the path (RFC 9002 §5.3).
    pub srtt: Duration,
    /// The algorithm's congestion window, bytes (not quinn's `window()`, which adds one).
    pub window_bytes: u64,
    /// Packets quinn declared lost.
    pub lost_packets: u64,
    /// Loss reductions (one per recovery period), ECN reductions, persistent congestion.
    pub loss_reductions: u64,
    pub ecn_reductions: u64,
    pub rtos: u64,
    /// UDP payload bytes quinn has sent on the path (headers and frames included).
    pub sent_udp_bytes: u64,
}

/// Why a QUIC flow's end failed; each names the step.
#[derive(Debug, thiserror::Error)]
pub enum UdpFlowError {
    #[error("cannot start the tokio runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot bind a UDP socket to {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot connect to {addr}: {message}")]
    Connect { addr: SocketAddr, message: String },
    #[error("the connection failed while {step}: {message}")]
    Connection { step: &'static str, message: String },
}

fn runtime() -> Result<tokio::runtime::Runtime, UdpFlowError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(UdpFlowError::Runtime)
}

fn transport_of(flow: &UdpFlow) -> quinn_proto::TransportConfig {
    transport(flow.max_udp_payload, flow.receive_window)
}

fn endpoint(
    addr: SocketAddr,
    server: Option<quinn::ServerConfig>,
) -> Result<quinn::Endpoint, UdpFlowError> {
    let socket = UdpSocket::bind(addr).map_err(|source| UdpFlowError::Bind { addr, source })?;
    quinn::Endpoint::new(
        quinn::EndpointConfig::default(),
        server,
        socket,
        Arc::new(quinn::TokioRuntime),
    )
    .map_err(|source| UdpFlowError::Bind { addr, source })
}

/// The sender's stream data (its content does not matter).
static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];

/// Connects to `to`, writes `size` bytes (or until stopped) on one unidirectional
/// stream, and calls `on_sample` every `every` from the connection until `keep_going`
/// says no. Returns the stream bytes quinn accepted. Blocks the calling thread.
pub fn run_sender(
    flow: &UdpFlow,
    to: SocketAddr,
    size: Option<u64>,
    every: Duration,
    keep_going: &dyn Fn() -> bool,
    on_sample: &mut dyn FnMut(&UdpSample),
) -> Result<u64, UdpFlowError> {
    let rt = runtime()?;
    rt.block_on(async {
        let factory = Arc::new(ScavengerFactory::from_params(
            flow.algorithm,
            flow.params.clone(),
            flow.seed,
        ));
        let stats = factory.stats();
        let mut t = transport_of(flow);
        t.congestion_controller_factory(factory);
        let mut cfg = quinn::ClientConfig::new(Arc::new(tls_client()));
        cfg.transport_config(Arc::new(t));
        let ep = endpoint(SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)), None)?;
        let connecting =
            ep.connect_with(cfg, to, SERVER_NAME)
                .map_err(|e| UdpFlowError::Connect {
                    addr: to,
                    message: e.to_string(),
                })?;
        tokio::pin!(connecting);
        let conn = loop {
            tokio::select! {
                c = &mut connecting => break c.map_err(|e| UdpFlowError::Connect { addr: to, message: e.to_string() })?,
                _ = tokio::time::sleep(every) => if !keep_going() { return Ok(0) },
            }
        };
        let written = Arc::new(AtomicU64::new(0));
        let writer = tokio::spawn(write_stream(conn.clone(), size, written.clone()));
        let result = loop {
            on_sample(&sample(&conn, &stats));
            if !keep_going() {
                break Ok(());
            }
            if writer.is_finished() {
                // The stream is written (sized flow) or failed; keep sampling until the
                // caller stops us, unless it failed.
                if let Some(reason) = conn.close_reason() {
                    break Err(UdpFlowError::Connection {
                        step: "sending",
                        message: reason.to_string(),
                    });
                }
            }
            tokio::time::sleep(every).await;
        };
        writer.abort();
        conn.close(0u32.into(), b"flow ends");
        ep.close(0u32.into(), b"flow ends");
        // Let the CONNECTION_CLOSE leave; the peer's ends on its own otherwise.
        let _ = tokio::time::timeout(Duration::from_millis(20), ep.wait_idle()).await;
        result.map(|()| written.load(Relaxed))
    })
}

async fn write_stream(conn: quinn::Connection, size: Option<u64>, written: Arc<AtomicU64>) {
    let Ok(mut s) = conn.open_uni().await else {
        return;
    };
    loop {
        let left = size.map_or(ZEROS.len() as u64, |n| n - written.load(Relaxed));
        if left == 0 {
            let _ = s.finish();
            return;
        }
        let n = left.min(ZEROS.len() as u64) as usize;
        if s.write_chunk(bytes::Bytes::from_static(&ZEROS[..n]))
            .await
            .is_err()
        {
            return;
        }
        written.fetch_add(n as u64, Relaxed);
    }
}

fn sample(conn: &quinn::Connection, stats: &AdapterStats) -> UdpSample {
    let s = conn.stats();
    UdpSample {
        srtt: s.path.rtt,
        window_bytes: stats.window.load(Relaxed),
        lost_packets: s.path.lost_packets,
        loss_reductions: stats.loss_reductions.load(Relaxed),
        ecn_reductions: stats.ecn_reductions.load(Relaxed),
        rtos: stats.rtos.load(Relaxed),
        sent_udp_bytes: s.udp_tx.bytes,
    }
}

/// A flow's receiving end, listening once `bind` returns.
pub struct UdpReceiver {
    rt: tokio::runtime::Runtime,
    ep: quinn::Endpoint,
}

impl UdpReceiver {
    /// Listens on `addr` (UDP) in the calling thread's network namespace.
    pub fn bind(flow: &UdpFlow, addr: SocketAddr) -> Result<UdpReceiver, UdpFlowError> {
        let rt = runtime()?;
        let mut cfg = quinn::ServerConfig::with_crypto(Arc::new(tls_server()));
        cfg.transport_config(Arc::new(transport_of(flow)));
        let ep = {
            let _in_rt = rt.enter();
            endpoint(addr, Some(cfg))?
        };
        Ok(UdpReceiver { rt, ep })
    }

    /// Accepts one connection and reads its stream, calling `on_bytes(n)` for every
    /// chunk read; returns when the stream ends, `on_bytes` returns `true` (complete),
    /// or `keep_going` (checked every `every`) says no.
    pub fn run(
        self,
        every: Duration,
        keep_going: &dyn Fn() -> bool,
        on_bytes: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(), UdpFlowError> {
        let UdpReceiver { rt, ep } = self;
        rt.block_on(async {
            let result = receive(&ep, every, keep_going, on_bytes).await;
            ep.close(0u32.into(), b"flow ends");
            let _ = tokio::time::timeout(Duration::from_millis(20), ep.wait_idle()).await;
            result
        })
    }
}

async fn receive(
    ep: &quinn::Endpoint,
    every: Duration,
    keep_going: &dyn Fn() -> bool,
    on_bytes: &mut dyn FnMut(u64) -> bool,
) -> Result<(), UdpFlowError> {
    let failed = |step, e: &dyn std::fmt::Display| UdpFlowError::Connection {
        step,
        message: e.to_string(),
    };
    let accept = ep.accept();
    tokio::pin!(accept);
    let incoming = loop {
        tokio::select! {
            i = &mut accept => match i {
                Some(i) => break i,
                None => return Ok(()),
            },
            _ = tokio::time::sleep(every) => if !keep_going() { return Ok(()) },
        }
    };
    let conn = incoming
        .await
        .map_err(|e| failed("accepting the connection", &e))?;
    let stream = conn.accept_uni();
    tokio::pin!(stream);
    let mut rs = loop {
        tokio::select! {
            s = &mut stream => break s.map_err(|e| failed("accepting the stream", &e))?,
            _ = tokio::time::sleep(every) => if !keep_going() { return Ok(()) },
        }
    };
    loop {
        if !keep_going() {
            return Ok(());
        }
        // `read_chunk` is cancel-safe: a timed-out read loses nothing.
        match tokio::time::timeout(every, rs.read_chunk(usize::MAX, true)).await {
            Err(_) => {}
            Ok(Ok(Some(chunk))) => {
                if on_bytes(chunk.bytes.len() as u64) {
                    return Ok(());
                }
            }
            Ok(Ok(None)) => return Ok(()),
            // The sender closing its connection at the flow's end is how a bulk flow stops.
            Ok(Err(quinn::ReadError::ConnectionLost(
                quinn::ConnectionError::ApplicationClosed(_),
            ))) => return Ok(()),
            Ok(Err(e)) => return Err(failed("reading the stream", &e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_sized_flow_arrives_over_loopback_and_the_sender_samples_its_window() {
        let info = scavenger_cc::registry::find("ledbat-plus-plus").unwrap();
        let flow = UdpFlow {
            algorithm: info,
            params: ParamSet::defaults(info.params),
            seed: 1,
            max_udp_payload: 1472,
            receive_window: 8 << 20,
        };
        let size = 2_000_000u64;
        let rx = UdpReceiver::bind(&flow, SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).unwrap();
        let addr = rx.ep.local_addr().unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        let every = Duration::from_millis(10);
        let receiver = std::thread::spawn(move || {
            let mut got = 0u64;
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            rx.run(every, &|| std::time::Instant::now() < deadline, &mut |n| {
                got += n;
                if got >= size {
                    d.store(true, Relaxed);
                }
                got >= size
            })
            .map(|()| got)
        });
        let mut samples = Vec::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let written = run_sender(
            &flow,
            addr,
            Some(size),
            every,
            &|| !done.load(Relaxed) && std::time::Instant::now() < deadline,
            &mut |s| samples.push(*s),
        )
        .unwrap();
        assert_eq!(receiver.join().unwrap().unwrap(), size);
        assert_eq!(written, size);
        let last = samples.last().unwrap();
        assert!(last.window_bytes >= 2 * 1472, "{last:?}");
        assert!(last.srtt > Duration::ZERO, "{last:?}");
        assert!(last.sent_udp_bytes > size, "{last:?}");
    }
}
