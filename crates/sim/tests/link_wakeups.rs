//! A link's wake-up moves earlier whenever an idle link starts a transmission that ends
//! before the head of its delay line arrives: every ACK on the idle reverse link of a
//! bulk download. The later wake-up stays queued, and the link used to queue a second
//! one for the same time after the earlier fired, so that about one event per ACK found
//! nothing to do (docs/performance.md#superseded-wakeups). The link now reuses the
//! queued entry; only a wake-up superseded twice before it fires is left as a no-op.

mod common;
use common::*;
use scavenger_cc::Rate;
use scavenger_sim::Simulation;

#[test]
fn acks_on_an_idle_reverse_link_leave_no_noop_wakeups() {
    // The ong2020 access link: 8 Mbit/s down, 1 Mbit/s up, 50 ms, one bulk download.
    let mut cfg = dumbbell(8, 50, 70, 20);
    cfg.reverse.rate = Rate::from_mbps(1);
    cfg.flows.push(flow("bulk", "newreno"));
    let (r, c) = Simulation::new(cfg).run_counted();
    let f = &r.flows[0];
    assert!(f.delivered_bytes > 10_000_000, "{f:?}");
    assert!(c.acks > 5_000, "{c:?}");
    eprintln!("{c:?}, {} events", r.events);
    assert!(
        c.noop_link_events * 100 < c.acks,
        "{} no-op link events for {} ACKs",
        c.noop_link_events,
        c.acks
    );
}
