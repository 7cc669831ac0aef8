//! Issue 21: the sender's work per ACK does not grow with the window. Two runs differ
//! only in a fixed window (50 and 5000 segments, ×100) on a path with 1 % random loss, so
//! both spend much of their time in SACK recovery with retransmissions in flight. The
//! scoreboard counts its steps (segments, SACKed ranges and queue entries visited); a
//! scoreboard that walks the outstanding window on each ACK, as the sender did before,
//! takes about 100 times as many steps per ACK in the larger run.

mod common;
use common::*;
use scavenger_cc::{AckSample, CcInit, CongestionControl, CongestionEvent, RtoEvent, Time};
use scavenger_sim::{SimResult, Simulation, WorkCounts};
use std::sync::Arc;

/// A window of `segs` segments that never changes: the scoreboard, not the algorithm,
/// decides what is sent.
struct Fixed {
    bytes: u64,
}

impl CongestionControl for Fixed {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}
    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {}
    fn cwnd(&self) -> u64 {
        self.bytes
    }
    // PRR (RFC 6937) holds the flight at ssthresh in recovery; the trait's default, no
    // threshold, would let its slow-start bound grow the flight by a segment per ACK.
    fn ssthresh(&self) -> u64 {
        self.bytes
    }
}

fn run_with_window(segs: u64) -> (SimResult, WorkCounts) {
    // 10 Gbit/s, 20 ms: 5000 segments per RTT is 2.9 Gbit/s, so the link never queues
    // much and the window alone sets the flight.
    let mut cfg = dumbbell(10_000, 20, 100_000, 1);
    cfg.forward.loss = bernoulli(0.01);
    let mut f = flow("a", "newreno");
    f.rwnd = 1 << 30;
    // A static window (the legacy receiver): the test needs the sender's window in flight,
    // not the Linux receiver's autotuned one.
    f.ack_model = scavenger_sim::AckModel::Legacy;
    f.wrap = Some(Arc::new(move |_inner, init: &CcInit| {
        Box::new(Fixed {
            bytes: segs * init.mss,
        }) as Box<dyn CongestionControl>
    }));
    cfg.flows.push(f);
    Simulation::new(cfg).run_counted()
}

#[test]
fn scoreboard_steps_per_ack_are_flat_in_the_window() {
    let (small, cs) = run_with_window(50);
    let (large, cl) = run_with_window(5000);
    let (fs, fl) = (&small.flows[0], &large.flows[0]);
    // Both runs recover from losses with SACK, and the larger window really is in flight.
    assert!(
        fs.fast_recoveries > 10 && fl.fast_recoveries > 10,
        "{fs:?} {fl:?}"
    );
    assert!(
        fs.retransmits > 10 && fl.retransmits > 1000,
        "{fs:?} {fl:?}"
    );
    let delivered = fl.delivered_bytes as f64 / fs.delivered_bytes as f64;
    assert!(delivered > 50.0, "delivered ratio {delivered}");
    let per_ack = |c: WorkCounts| c.ops as f64 / c.acks as f64;
    let ratio = per_ack(cl) / per_ack(cs);
    eprintln!(
        "steps per ACK: {:.3} at 50 segments {cs:?}, {:.3} at 5000 {cl:?}",
        per_ack(cs),
        per_ack(cl)
    );
    assert!(
        (0.5..=2.0).contains(&ratio),
        "steps per ACK: {:.2} at 50 segments ({cs:?}), {:.2} at 5000 ({cl:?}): ratio {ratio:.2}",
        per_ack(cs),
        per_ack(cl)
    );
}
