//! `scavenger testbed bench`: forwarding throughput of the emulator with 1500-byte
//! packets and no added delay, and the error of the applied delay at 100 Mbit/s with
//! 50 ms, measured with a UDP blaster of our own between two namespaces.

use crate::emulator::{EmulatorConfig, EmulatorReport};
use crate::error::TestbedError;
use crate::netns;
use crate::testbed::Testbed;
use scavenger_cc::{Dur, Rate};
use scavenger_net::{LinkConfig, QueueLimit};
use std::net::{SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

pub struct BenchResult {
    pub label: String,
    pub offered_bps: f64,
    pub forwarded_bps: f64,
    pub received_bps: f64,
    pub lateness_p50_ms: f64,
    pub lateness_p99_ms: f64,
    pub lateness_max_ms: f64,
    pub realtime: bool,
    /// End to end, sender socket to receiver socket: one-way delay minus the link's
    /// propagation delay and one packet's serialisation (ms), p50 and p99. Includes
    /// queueing in the emulated link when the sender bursts.
    pub e2e_excess_p50_ms: f64,
    pub e2e_excess_p99_ms: f64,
    /// Share of one core the emulator thread used.
    pub emulator_cpu: f64,
}

/// Why `testbed bench` could not measure.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A UDP socket could not be bound or set up.
    #[error("{0}")]
    Socket(#[source] std::io::Error),
    #[error("emulator thread panicked")]
    EmulatorPanicked,
    #[error(transparent)]
    Testbed(#[from] TestbedError),
}

/// Blasts 1472-byte UDP payloads (1500-byte IP packets) from server to client for
/// `secs`, at `pace_bps` (0: as fast as the socket takes them).
pub fn blast(rate: Rate, delay: Dur, pace_bps: u64, secs: f64) -> Result<BenchResult, BenchError> {
    let link = LinkConfig::new(rate, delay, QueueLimit::Packets(10_000));
    let cfg = EmulatorConfig {
        forward: link.clone(),
        reverse: link,
        seed: 1,
        flows: vec![],
        log_limit: 0,
    };
    let mut tb = Testbed::dumbbell(cfg)?;
    let dst = tb.host("client").addr;
    let stop = Arc::new(AtomicBool::new(false));
    let got = Arc::new(AtomicU64::new(0));
    let owd = Arc::new(std::sync::Mutex::new(scavenger_net::Histogram::new()));
    let (s2, g2, o2) = (stop.clone(), got.clone(), owd.clone());
    let rx = netns::spawn_in(&tb.host("client").ns.clone(), "bench-rx", move || {
        let s = UdpSocket::bind("0.0.0.0:9000").map_err(BenchError::Socket)?;
        s.set_read_timeout(Some(std::time::Duration::from_millis(20)))
            .map_err(BenchError::Socket)?;
        let mut b = [0u8; 2048];
        let mut h = scavenger_net::Histogram::new();
        while !s2.load(Ordering::Relaxed) {
            if let Ok(n) = s.recv(&mut b) {
                // One-way delay from the sender's CLOCK_MONOTONIC stamp (same machine).
                let sent = u64::from_ne_bytes(b[..8].try_into().expect("8 bytes"));
                h.record(crate::clock::monotonic_ns().saturating_sub(sent));
                g2.fetch_add(n as u64 + 28, Ordering::Relaxed);
            }
        }
        *o2.lock().expect("not poisoned") = h;
        Ok::<(), BenchError>(())
    })?;
    std::thread::sleep(std::time::Duration::from_millis(50));
    let sent = netns::run_in(&tb.host("server").ns.clone(), move || {
        crate::sys::set_min_timer_slack();
        let s = UdpSocket::bind("0.0.0.0:0").map_err(BenchError::Socket)?;
        let to = SocketAddrV4::new(dst, 9000);
        let mut payload = [0u8; 1472];
        let t0 = std::time::Instant::now();
        let mut sent = 0u64;
        while t0.elapsed().as_secs_f64() < secs {
            if pace_bps > 0 {
                let due = sent as f64 * 8.0 / pace_bps as f64;
                let el = t0.elapsed().as_secs_f64();
                if due > el {
                    std::thread::sleep(std::time::Duration::from_secs_f64((due - el).min(0.001)));
                    continue;
                }
            }
            payload[..8].copy_from_slice(&crate::clock::monotonic_ns().to_ne_bytes());
            // Paced: one datagram at a time; unpaced: batches of 32 per syscall.
            let batch = if pace_bps > 0 { 1 } else { 32 };
            if let Ok(n) = crate::sys::send_udp_batch(&s, &payload, to, batch) {
                sent += 1500 * n as u64;
            }
        }
        Ok::<u64, BenchError>(sent)
    })?;
    std::thread::sleep(std::time::Duration::from_millis(
        200 + delay.nanos() / 1_000_000,
    ));
    stop.store(true, Ordering::SeqCst);
    let _ = rx.join();
    let rep: EmulatorReport = tb.stop_emulator().ok_or(BenchError::EmulatorPanicked)?;
    tb.shutdown()?;
    let l = &rep.lateness_ns[0];
    let ms = |x: Option<u64>| x.map_or(f64::NAN, |v| v as f64 / 1e6);
    let base = delay.nanos() + rate.tx_time(1500).nanos();
    let h = owd.lock().expect("not poisoned").clone();
    let excess = |q: f64| {
        h.quantile(q)
            .map_or(f64::NAN, |v| v.saturating_sub(base) as f64 / 1e6)
    };
    Ok(BenchResult {
        label: format!("rate {rate}, delay {delay}"),
        offered_bps: sent as f64 * 8.0 / secs,
        forwarded_bps: rep.links[0].tx_bytes as f64 * 8.0 / secs,
        received_bps: got.load(Ordering::Relaxed) as f64 * 8.0 / secs,
        lateness_p50_ms: ms(l.quantile(0.5)),
        lateness_p99_ms: ms(l.quantile(0.99)),
        lateness_max_ms: ms(l.max()),
        realtime: rep.realtime.is_ok(),
        e2e_excess_p50_ms: excess(0.5),
        e2e_excess_p99_ms: excess(0.99),
        emulator_cpu: if rep.wall_s > 0.0 {
            rep.cpu_s / rep.wall_s
        } else {
            0.0
        },
    })
}

impl std::fmt::Display for BenchResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: offered {:.1} Mbit/s, forwarded {:.1} Mbit/s, received {:.1} Mbit/s; emulator release error p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; end-to-end excess delay p50 {:.3} ms, p99 {:.3} ms; emulator thread {:.0}% of a core (SCHED_FIFO: {})",
            self.label,
            self.offered_bps / 1e6,
            self.forwarded_bps / 1e6,
            self.received_bps / 1e6,
            self.lateness_p50_ms,
            self.lateness_p99_ms,
            self.lateness_max_ms,
            self.e2e_excess_p50_ms,
            self.e2e_excess_p99_ms,
            self.emulator_cpu * 100.0,
            if self.realtime { "yes" } else { "no" }
        )
    }
}

/// The emulator's core alone (no TUN, no kernel): `n` 1500-byte packets through a
/// zero-delay, unlimited-rate drop-tail link, in packets per second and Gbit/s.
pub fn core_throughput(n: usize) -> (f64, f64) {
    use crate::emulator::{Emulator, FORWARD};
    use scavenger_cc::Time;
    let link = LinkConfig::new(
        Rate::from_mbps(1_000_000),
        Dur::ZERO,
        QueueLimit::Packets(10_000),
    );
    let mut e = Emulator::new(EmulatorConfig {
        forward: link.clone(),
        reverse: link,
        seed: 1,
        flows: vec![],
        log_limit: 0,
    });
    let mut pkt = vec![0u8; 1500];
    pkt[..20].copy_from_slice(&[
        0x45, 0, 0x05, 0xdc, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 1, 0, 2, 10, 2, 0, 2,
    ]);
    let clock = crate::clock::Clock::start();
    let t0 = std::time::Instant::now();
    let mut out = 0usize;
    for i in 0..n {
        let mut b = e.buffer();
        b.extend_from_slice(&pkt);
        let now = clock.now();
        e.arrive(FORWARD, now, b);
        if i % 32 == 31 {
            e.deliver(Time(u64::MAX / 2), &mut |_, b| out += b.len());
        }
    }
    e.deliver(Time(u64::MAX / 2), &mut |_, b| out += b.len());
    let s = t0.elapsed().as_secs_f64();
    assert_eq!(out, n * 1500);
    (n as f64 / s, n as f64 * 1500.0 * 8.0 / s / 1e9)
}
