//! A scenario's `transport = "quic"` flows on the testbed: real quinn 0.11 endpoints over
//! UDP (`scavenger_quic::udp`) on threads that entered the hosts' namespaces, with the
//! flow's algorithm inside quinn through crates/quic's adapter (the same
//! `ScavengerFactory` as `scavenger send`). The emulator tells the flow apart by its
//! receiver's UDP port, as it does a TCP flow's by the TCP port.
//!
//! Threads, not `ip netns exec` processes: each end is one thread with its own
//! current-thread tokio runtime, started, stopped and joined exactly like a kernel TCP
//! flow's sender and receiver (`endpoints`), so the run's guard tears it down on every
//! exit path before the namespaces go, and a SIGKILLed run leaves no child process
//! behind. A UDP socket holds no kernel state after close, so there is nothing like TCP's
//! orphaned socket to abort.
//!
//! The reports are the TCP flows' (`SenderReport`, `ReceiverReport`), so the record is
//! built by the same code. A QUIC sender's samples carry quinn's and the adapter's
//! figures in `TcpInfo`'s fields (docs/quic.md, "QUIC on the testbed"): `rtt_us` quinn's
//! smoothed RTT, `snd_cwnd` the algorithm's window in bytes with `snd_mss` = 1 (so that
//! `snd_cwnd × snd_mss` is the window, as for TCP), `total_retrans` quinn's lost packets,
//! `total_rto` persistent-congestion events, `bytes_sent` quinn's UDP payload bytes;
//! recoveries and ECN responses are the adapter's counts (exact, not polled).

use crate::clock::Clock;
use crate::endpoints::{
    FlowError, FlowPlan, ReceiverReport, Sample, SenderReport, BIN, SAMPLE_EVERY,
};
use crate::netns;
use crate::sys::TcpInfo;
use scavenger_cc::Time;
use scavenger_quic::udp::{run_sender, UdpFlow, UdpReceiver, UdpSample};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// What a testbed record says a QUIC flow's sender used, in place of a kernel congestion
/// control's name.
pub const QUIC_CC: &str = "quic";

fn every() -> Duration {
    Duration::from_nanos(SAMPLE_EVERY.nanos())
}

fn quic_error(p: &FlowPlan, e: scavenger_quic::udp::UdpFlowError) -> FlowError {
    FlowError::Quic {
        flow: p.name.clone(),
        message: e.to_string(),
    }
}

/// Starts the receiver of QUIC flow `plan`: it listens on UDP port `plan.port` when this
/// returns.
pub fn start_receiver(
    plan: &FlowPlan,
    flow: &UdpFlow,
    clock: Clock,
    run_end: Time,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
) -> Result<JoinHandle<Result<ReceiverReport, FlowError>>, FlowError> {
    let (p, q, f) = (plan.clone(), plan.clone(), flow.clone());
    netns::spawn_listening(
        &plan.receiver_ns,
        &format!("qrcv-{}", plan.name),
        move || {
            let addr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, q.port));
            UdpReceiver::bind(&f, addr).map_err(|e| quic_error(&q, e))
        },
        move |r| {
            let mut rep = ReceiverReport {
                bins: vec![0; (run_end.nanos() / BIN.nanos() + 1) as usize],
                ..Default::default()
            };
            let keep_going = || !stop.load(Ordering::Relaxed) && clock.now() < run_end;
            r.run(every(), &keep_going, &mut |n| {
                let t = clock.now();
                if t >= run_end {
                    return true;
                }
                rep.first_byte.get_or_insert(t);
                rep.last_byte = Some(t);
                rep.bytes += n;
                rep.bins[(t.nanos() / BIN.nanos()) as usize] += n;
                let complete = p.size.is_some_and(|sz| rep.bytes >= sz);
                if complete {
                    rep.completed_at = Some(t);
                    done.store(true, Ordering::SeqCst);
                }
                complete
            })
            .map_err(|e| quic_error(&p, e))?;
            Ok(rep)
        },
        || FlowError::ReceiverPanicked,
    )
}

/// The sender's sample as the TCP flows' record reads it (module comment).
fn as_tcp_info(s: &UdpSample) -> TcpInfo {
    TcpInfo {
        snd_mss: 1,
        snd_cwnd: s.window_bytes.min(u32::MAX as u64) as u32,
        rtt_us: s.srtt.as_micros().min(u32::MAX as u128) as u32,
        total_retrans: s.lost_packets.min(u32::MAX as u64) as u32,
        total_rto: Some(s.rtos.min(u16::MAX as u64) as u16),
        bytes_sent: s.sent_udp_bytes,
        ..Default::default()
    }
}

/// Starts the sender of QUIC flow `plan`; it connects at `plan.start`.
pub fn start_sender(
    plan: &FlowPlan,
    flow: &UdpFlow,
    clock: Clock,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
) -> Result<JoinHandle<Result<SenderReport, FlowError>>, FlowError> {
    let (p, f) = (plan.clone(), flow.clone());
    Ok(netns::spawn_in(
        &plan.sender_ns,
        &format!("qsnd-{}", plan.name),
        move || {
            let mut rep = SenderReport {
                cc_in_use: format!("{QUIC_CC}:{}", f.algorithm.name),
                ..Default::default()
            };
            while clock.now() < p.start {
                if stop.load(Ordering::Relaxed) {
                    return Ok(rep);
                }
                let left = p.start.since(clock.now()).nanos().min(5_000_000);
                std::thread::sleep(Duration::from_nanos(left));
            }
            rep.connected_at = Some(clock.now());
            let keep_going = || {
                !stop.load(Ordering::Relaxed)
                    && !done.load(Ordering::Relaxed)
                    && clock.now() < p.end
            };
            let to = SocketAddr::V4(SocketAddrV4::new(p.receiver_addr, p.port));
            let written = run_sender(&f, to, p.size, every(), &keep_going, &mut |s| {
                let info = as_tcp_info(s);
                if info.rtt_us > 0 {
                    rep.rtt.record(info.rtt_us as u64 * 1000);
                }
                rep.recoveries_seen = s.loss_reductions;
                rep.cwr_seen = s.ecn_reductions;
                rep.samples.push(Sample {
                    t: clock.now(),
                    info,
                    bbr: None,
                });
            })
            .map_err(|e| quic_error(&p, e))?;
            rep.bytes_written = written;
            Ok(rep)
        },
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quic_sample_reads_as_tcp_info_with_the_window_in_bytes() {
        let s = UdpSample {
            srtt: Duration::from_micros(61_250),
            window_bytes: 14_720,
            lost_packets: 3,
            loss_reductions: 1,
            ecn_reductions: 0,
            rtos: 2,
            sent_udp_bytes: 1_000_000,
        };
        let i = as_tcp_info(&s);
        // The record's final_cwnd_bytes is snd_cwnd × snd_mss.
        assert_eq!(i.snd_cwnd as u64 * i.snd_mss as u64, 14_720);
        assert_eq!(i.rtt_us, 61_250);
        assert_eq!((i.total_retrans, i.total_rto), (3, Some(2)));
        assert_eq!(i.ca_state, 0);
    }
}
