//! Real endpoints: kernel TCP sockets on threads that entered the hosts' namespaces.
//! The receiver listens on the flow's port and counts what arrives; the sender sets the
//! congestion control with TCP_CONGESTION before its SYN, writes (bulk, or `size`
//! bytes), and polls TCP_INFO every `SAMPLE_EVERY`.

use crate::clock::Clock;
use crate::error::TestbedError;
use crate::netns;
use crate::sys::{self, TcpInfo};
use scavenger_cc::{Dur, Time};
use scavenger_net::Histogram;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Why a flow's sender or receiver failed; each names the flow.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    #[error("flow {flow}: cannot listen on port {port}: {source}")]
    Listen {
        flow: String,
        port: u16,
        source: std::io::Error,
    },
    #[error("flow {flow}: accept: {source}")]
    Accept {
        flow: String,
        source: std::io::Error,
    },
    #[error("flow {flow}: read: {source}")]
    Read {
        flow: String,
        source: std::io::Error,
    },
    #[error("flow {flow}: connect to {addr}:{port}: {source}")]
    Connect {
        flow: String,
        addr: Ipv4Addr,
        port: u16,
        source: std::io::Error,
    },
    /// The kernel gave the socket another congestion control than the one asked for.
    #[error("flow {flow}: asked the kernel for {asked} but the socket uses {used:?}")]
    WrongCc {
        flow: String,
        asked: String,
        used: String,
    },
    #[error("flow {flow}: write: {source}")]
    Write {
        flow: String,
        source: std::io::Error,
    },
    /// A socket option (non-blocking mode, a timeout) could not be set.
    #[error("{0}")]
    Socket(#[source] std::io::Error),
    #[error("receiver thread panicked")]
    ReceiverPanicked,
    /// A QUIC flow's end (crate::quic) failed: binding, connecting or the connection.
    #[error("flow {flow}: QUIC: {message}")]
    Quic { flow: String, message: String },
    /// The thread could not start or enter the host's namespace.
    #[error(transparent)]
    Testbed(#[from] TestbedError),
}

/// TCP_INFO polling period.
pub const SAMPLE_EVERY: Dur = Dur::from_millis(10);
/// Receiver progress is kept in bins of this width (goodput windows, Jain, series).
pub const BIN: Dur = Dur::from_millis(1);

#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub name: String,
    /// The kernel's name of the congestion control.
    pub kernel_cc: String,
    pub sender_ns: String,
    pub receiver_ns: String,
    pub receiver_addr: Ipv4Addr,
    pub port: u16,
    pub start: Time,
    /// When the sender stops (the run's end at the latest).
    pub end: Time,
    pub size: Option<u64>,
}

#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub t: Time,
    pub info: TcpInfo,
    /// BBR's model (TCP_CC_INFO) for a BBR sender, in place of the simulator's algorithm
    /// trace; `None` for every other congestion control.
    pub bbr: Option<sys::BbrInfo>,
}

#[derive(Debug, Default)]
pub struct SenderReport {
    pub samples: Vec<Sample>,
    /// Smoothed RTT at each sample, ns, weighted by the segments delivered since the
    /// previous sample (TCP; QUIC flows weigh each sample once).
    pub rtt: Histogram,
    /// Entries into TCP_CA_Recovery / TCP_CA_CWR seen between samples (lower bounds).
    pub recoveries_seen: u64,
    pub cwr_seen: u64,
    pub bytes_written: u64,
    pub cc_in_use: String,
    pub connected_at: Option<Time>,
}

#[derive(Debug, Default)]
pub struct ReceiverReport {
    pub bytes: u64,
    pub first_byte: Option<Time>,
    pub last_byte: Option<Time>,
    pub completed_at: Option<Time>,
    /// Bytes received in each `BIN` since the run started.
    pub bins: Vec<u64>,
}

/// Aborts instead of closing gracefully: an orphaned socket still sending would keep
/// its namespace alive long after `ip netns del` (notes §1 "lingering object").
fn abort(s: &TcpStream) {
    let l = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    let _ = nix::sys::socket::setsockopt(s, nix::sys::socket::sockopt::Linger, &l);
}

/// Starts the receiver of `plan`: it is listening when this returns.
pub fn start_receiver(
    plan: &FlowPlan,
    clock: Clock,
    run_end: Time,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
) -> Result<JoinHandle<Result<ReceiverReport, FlowError>>, FlowError> {
    let (p, q) = (plan.clone(), plan.clone());
    netns::spawn_listening(
        &plan.receiver_ns,
        &format!("rcv-{}", plan.name),
        move || {
            TcpListener::bind(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, q.port)).map_err(|source| {
                FlowError::Listen {
                    flow: q.name.clone(),
                    port: q.port,
                    source,
                }
            })
        },
        move |l| receive(&p, l, clock, run_end, &stop, &done),
        || FlowError::ReceiverPanicked,
    )
}

fn receive(
    p: &FlowPlan,
    l: TcpListener,
    clock: Clock,
    run_end: Time,
    stop: &AtomicBool,
    done: &AtomicBool,
) -> Result<ReceiverReport, FlowError> {
    let mut rep = ReceiverReport {
        bins: vec![0; (run_end.nanos() / BIN.nanos() + 1) as usize],
        ..Default::default()
    };
    l.set_nonblocking(true).map_err(FlowError::Socket)?;
    let mut s = loop {
        if stop.load(Ordering::Relaxed) || clock.now() >= run_end {
            return Ok(rep);
        }
        match l.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            Err(source) => {
                return Err(FlowError::Accept {
                    flow: p.name.clone(),
                    source,
                })
            }
        }
    };
    drop(l);
    s.set_nonblocking(false).map_err(FlowError::Socket)?;
    s.set_read_timeout(Some(std::time::Duration::from_millis(20)))
        .map_err(FlowError::Socket)?;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let t = clock.now();
                if t >= run_end {
                    break;
                }
                rep.first_byte.get_or_insert(t);
                rep.last_byte = Some(t);
                rep.bytes += n as u64;
                rep.bins[(t.nanos() / BIN.nanos()) as usize] += n as u64;
                if p.size.is_some_and(|sz| rep.bytes >= sz) {
                    rep.completed_at = Some(t);
                    done.store(true, Ordering::SeqCst);
                    break;
                }
            }
            Err(e) if crate::sys::retry_later(&e) => {
                if clock.now() >= run_end {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(source) => {
                return Err(FlowError::Read {
                    flow: p.name.clone(),
                    source,
                })
            }
        }
    }
    abort(&s);
    Ok(rep)
}

/// Starts the sender of `plan`; it connects at `plan.start`.
pub fn start_sender(
    plan: &FlowPlan,
    clock: Clock,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
) -> Result<JoinHandle<Result<SenderReport, FlowError>>, FlowError> {
    let p = plan.clone();
    Ok(netns::spawn_in(
        &plan.sender_ns,
        &format!("snd-{}", plan.name),
        move || send(&p, clock, &stop, &done),
    )?)
}

fn sample(s: &TcpStream, t: Time, rep: &mut SenderReport) {
    if let Ok(info) = sys::tcp_info(s) {
        let prev = rep.samples.last().map(|x| x.info.ca_state);
        // The simulator's mean RTT is a mean over RTT samples, one per ACK, so a period
        // at a high rate weighs more than one at a low rate. A poll every 10 ms weighs
        // every period alike: beside a foreground, the background's queue-heavy seconds
        // at half its rate counted double, and its mean RTT read 6–7 % above the
        // per-ACK mean (docs/deviations/testbed.md#testbed-rtt-tcp-info). So each poll's
        // srtt stands for the segments delivered since the previous poll
        // (`tcpi_delivered`, Linux ≥ 4.18).
        let delivered = info
            .delivered
            .wrapping_sub(rep.samples.last().map_or(0, |x| x.info.delivered));
        // TCP_CA_CWR = 2, TCP_CA_Recovery = 3 (include/net/tcp.h enum tcp_ca_state).
        if info.ca_state == 3 && prev != Some(3) {
            rep.recoveries_seen += 1;
        }
        if info.ca_state == 2 && prev != Some(2) {
            rep.cwr_seen += 1;
        }
        if info.rtt_us > 0 {
            rep.rtt
                .record_n(info.rtt_us as u64 * 1000, delivered as u64);
        }
        let bbr = if rep.cc_in_use == "bbr" {
            sys::bbr_info(s).ok().flatten()
        } else {
            None
        };
        rep.samples.push(Sample { t, info, bbr });
    }
}

fn send(
    p: &FlowPlan,
    clock: Clock,
    stop: &AtomicBool,
    done: &AtomicBool,
) -> Result<SenderReport, FlowError> {
    let mut rep = SenderReport::default();
    while clock.now() < p.start {
        if stop.load(Ordering::Relaxed) {
            return Ok(rep);
        }
        let left = p.start.since(clock.now()).nanos().min(5_000_000);
        std::thread::sleep(std::time::Duration::from_nanos(left));
    }
    let mut s = sys::tcp_connect(p.receiver_addr, p.port, &p.kernel_cc).map_err(|source| {
        FlowError::Connect {
            flow: p.name.clone(),
            addr: p.receiver_addr,
            port: p.port,
            source,
        }
    })?;
    rep.connected_at = Some(clock.now());
    rep.cc_in_use = sys::tcp_congestion(&s).unwrap_or_default();
    if rep.cc_in_use != p.kernel_cc {
        abort(&s);
        return Err(FlowError::WrongCc {
            flow: p.name.clone(),
            asked: p.kernel_cc.clone(),
            used: rep.cc_in_use.clone(),
        });
    }
    s.set_write_timeout(Some(std::time::Duration::from_millis(2)))
        .map_err(FlowError::Socket)?;
    let buf = vec![0x5au8; 64 * 1024];
    let mut next_sample = clock.now();
    let mut shut = false;
    loop {
        let now = clock.now();
        if now >= next_sample {
            sample(&s, now, &mut rep);
            next_sample += SAMPLE_EVERY;
        }
        if now >= p.end || stop.load(Ordering::Relaxed) || done.load(Ordering::Relaxed) {
            break;
        }
        let want = p.size.map_or(buf.len() as u64, |sz| {
            (sz - rep.bytes_written).min(buf.len() as u64)
        }) as usize;
        if want == 0 {
            if !shut {
                let _ = s.shutdown(Shutdown::Write);
                shut = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            continue;
        }
        match s.write(&buf[..want]) {
            Ok(n) => rep.bytes_written += n as u64,
            Err(e) if crate::sys::retry_later(&e) => {}
            Err(e) if closed_at_the_end(e.kind(), clock.now(), p.end, done) => break,
            Err(e) => {
                abort(&s);
                return Err(FlowError::Write {
                    flow: p.name.clone(),
                    source: e,
                });
            }
        }
    }
    let _ = s.flush();
    // The flow stops here: whatever the kernel still buffers is discarded (RST).
    abort(&s);
    Ok(rep)
}

/// Whether a write error only means that the receiver has already closed because the run
/// (or the sized flow) is over. The receiver stops reading at the run's end and drops its
/// socket, which resets the connection; a sender thread that checked the clock just before
/// the end and writes just after it (a loaded machine delays it by milliseconds) then
/// gets ECONNRESET or EPIPE. Before the end, a reset is a real failure of the flow.
fn closed_at_the_end(kind: std::io::ErrorKind, now: Time, end: Time, done: &AtomicBool) -> bool {
    matches!(
        kind,
        std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
    ) && (now >= end || done.load(Ordering::SeqCst))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_after_the_flow_ends_is_the_receiver_closing_and_before_it_an_error() {
        use std::io::ErrorKind::{BrokenPipe, ConnectionReset, PermissionDenied};
        let end = Time(20_000_000_000);
        let not_done = AtomicBool::new(false);
        let done = AtomicBool::new(true);
        let after = Time(20_003_000_000);
        let before = Time(19_000_000_000);
        assert!(closed_at_the_end(ConnectionReset, after, end, &not_done));
        assert!(closed_at_the_end(BrokenPipe, end, end, &not_done));
        assert!(closed_at_the_end(ConnectionReset, before, end, &done));
        assert!(!closed_at_the_end(ConnectionReset, before, end, &not_done));
        assert!(!closed_at_the_end(PermissionDenied, after, end, &not_done));
    }

    #[test]
    fn flow_errors_name_the_flow_and_the_step() {
        let e = FlowError::WrongCc {
            flow: "lbe".into(),
            asked: "scv_lb_1_0".into(),
            used: "cubic".into(),
        };
        assert_eq!(
            e.to_string(),
            "flow lbe: asked the kernel for scv_lb_1_0 but the socket uses \"cubic\""
        );
        let e = FlowError::Connect {
            flow: "a".into(),
            addr: Ipv4Addr::new(10, 0, 0, 2),
            port: 5001,
            source: std::io::Error::from_raw_os_error(libc::ECONNREFUSED),
        };
        assert!(
            e.to_string()
                .starts_with("flow a: connect to 10.0.0.2:5001: Connection refused"),
            "{e}"
        );
        // The run joins its flows' errors with "; " (crate::run::RunError::Several).
        let several =
            crate::run::RunError::Several(vec![e.into(), crate::run::RunError::ReceiverPanicked]);
        assert!(
            several
                .to_string()
                .ends_with("(os error 111); a receiver thread panicked"),
            "{several}"
        );
    }
}
