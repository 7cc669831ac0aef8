//! One direction of a link: a queue discipline in front of a transmitter of a given
//! rate, random loss on the wire, and a propagation delay. Sans-IO: the owner calls
//! `enqueue` when a packet arrives, `advance(now)` at `next_wakeup()`, and collects
//! packets that reached the far end with `poll(now)`.
//!
//! Transmissions are exact: the next packet starts the instant the previous one
//! finishes, even if `advance` is called later, so event timing never leaks into link
//! timing.

use crate::delay::DelayLine;
use crate::histogram::Histogram;
use crate::loss::LossModel;
use crate::queue::{DropTail, QueueLimit};
use crate::WirePacket;
use scavenger_cc::{Dur, Rate, Rng, Time};

/// An interval during which the link carries nothing (a blackout). Packets keep
/// arriving at the queue and are dropped when it is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    pub start: Time,
    pub end: Time,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    pub rate: Rate,
    pub delay: Dur,
    pub limit: QueueLimit,
    pub loss: LossModel,
    /// Sorted, non-overlapping.
    pub outages: Vec<Outage>,
}

#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub arrived_pkts: u64,
    pub arrived_bytes: u64,
    /// Dropped by the queue discipline.
    pub dropped_pkts: u64,
    pub dropped_bytes: u64,
    /// Lost on the wire by the loss model (after using capacity).
    pub lost_pkts: u64,
    pub lost_bytes: u64,
    /// Transmitted (including packets the loss model then destroyed).
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// Reached the far end.
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Queueing delay (ns) of every transmitted packet, from arrival to start of service.
    pub qdelay: Histogram,
}

#[derive(Debug)]
struct InTx<T> {
    done: Time,
    pkt: T,
}

/// Why a packet did not make it across.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    QueueFull,
    WireLoss,
}

pub struct Link<T> {
    cfg: LinkConfig,
    queue: DropTail<T>,
    tx: Option<InTx<T>>,
    /// When the queue holds packets but the link is out, the time it comes back.
    resume_at: Option<Time>,
    line: DelayLine<T>,
    outage_idx: usize,
    rng: Rng,
    stats: LinkStats,
}

impl<T: WirePacket> Link<T> {
    pub fn new(cfg: LinkConfig, rng: Rng) -> Self {
        Link { queue: DropTail::new(cfg.limit), line: DelayLine::new(cfg.delay), tx: None, resume_at: None, outage_idx: 0, rng, stats: LinkStats::default(), cfg }
    }

    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.queue.bytes()
    }

    /// Packets anywhere inside the link: queued, being transmitted, propagating.
    pub fn in_transit(&self) -> impl Iterator<Item = &T> {
        self.queue.iter().chain(self.tx.iter().map(|t| &t.pkt)).chain(self.line.iter())
    }

    /// If `t` falls in an outage, the time the outage ends.
    fn blocked_until(&mut self, t: Time) -> Option<Time> {
        let o = &self.cfg.outages;
        while self.outage_idx < o.len() && o[self.outage_idx].end <= t {
            self.outage_idx += 1;
        }
        o.get(self.outage_idx).filter(|x| x.start <= t).map(|x| x.end)
    }

    /// Starts serving the head of the queue at `t` (or when the outage covering `t` ends).
    fn start_next(&mut self, t: Time) {
        debug_assert!(self.tx.is_none());
        if self.queue.is_empty() {
            return;
        }
        if let Some(end) = self.blocked_until(t) {
            self.resume_at = Some(end);
            return;
        }
        self.resume_at = None;
        let (enq, pkt) = self.queue.dequeue().expect("non-empty");
        self.stats.qdelay.record(t.since(enq).nanos());
        let done = t + self.cfg.rate.tx_time(pkt.wire_bytes() as u64);
        self.tx = Some(InTx { done, pkt });
    }

    /// A packet arrives at the link. On a drop the packet is handed back.
    pub fn enqueue(&mut self, now: Time, pkt: T) -> Result<(), (DropReason, T)> {
        let size = pkt.wire_bytes() as u64;
        self.stats.arrived_pkts += 1;
        self.stats.arrived_bytes += size;
        match self.queue.enqueue(now, pkt) {
            Ok(()) => {
                if self.tx.is_none() && self.resume_at.is_none() {
                    self.start_next(now);
                }
                Ok(())
            }
            Err(pkt) => {
                self.stats.dropped_pkts += 1;
                self.stats.dropped_bytes += size;
                Err((DropReason::QueueFull, pkt))
            }
        }
    }

    /// The next instant at which `advance` or `poll` has work.
    pub fn next_wakeup(&self) -> Option<Time> {
        let a = self.tx.as_ref().map(|t| t.done).or(self.resume_at);
        match (a, self.line.next_wakeup()) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }

    /// Completes every transmission due by `now`. Packets the loss model destroys are
    /// pushed to `lost`.
    pub fn advance(&mut self, now: Time, lost: &mut Vec<T>) {
        loop {
            if let Some(r) = self.resume_at {
                if r > now {
                    return;
                }
                self.resume_at = None;
                self.start_next(r);
                continue;
            }
            let Some(tx) = self.tx.as_ref() else { return };
            if tx.done > now {
                return;
            }
            let InTx { done, pkt } = self.tx.take().expect("checked");
            let size = pkt.wire_bytes() as u64;
            self.stats.tx_pkts += 1;
            self.stats.tx_bytes += size;
            if self.cfg.loss.lose(&mut self.rng) {
                self.stats.lost_pkts += 1;
                self.stats.lost_bytes += size;
                lost.push(pkt);
            } else {
                self.line.push(done, pkt);
            }
            self.start_next(done);
        }
    }

    /// The next packet that has reached the far end by `now`, with its arrival time.
    pub fn poll(&mut self, now: Time) -> Option<(Time, T)> {
        let (t, p) = self.line.poll(now)?;
        self.stats.delivered_pkts += 1;
        self.stats.delivered_bytes += p.wire_bytes() as u64;
        Some((t, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct P(u32, u32);
    impl WirePacket for P {
        fn wire_bytes(&self) -> u32 {
            self.0
        }
    }

    fn link(limit: u32, outages: Vec<Outage>, loss: LossModel) -> Link<P> {
        // 1500 bytes at 12 Mbit/s take exactly 1 ms.
        Link::new(LinkConfig { rate: Rate::from_mbps(12), delay: Dur::from_millis(10), limit: QueueLimit::Packets(limit), loss, outages }, Rng::new(1))
    }

    fn drain(l: &mut Link<P>, until: Time) -> Vec<(Time, u32)> {
        let mut out = Vec::new();
        let mut lost = Vec::new();
        while let Some(t) = l.next_wakeup().filter(|t| *t <= until) {
            l.advance(t, &mut lost);
            while let Some((at, p)) = l.poll(t) {
                out.push((at, p.1));
            }
        }
        out
    }

    #[test]
    fn back_to_back_packets_are_serialised_then_delayed() {
        let mut l = link(10, vec![], LossModel::None);
        for i in 0..3 {
            l.enqueue(Time(0), P(1500, i)).unwrap();
        }
        let ms = |x: u64| Time(x * 1_000_000);
        assert_eq!(drain(&mut l, ms(100)), vec![(ms(11), 0), (ms(12), 1), (ms(13), 2)]);
        assert_eq!(l.stats().qdelay.max(), Some(2_000_000));
        assert_eq!(l.stats().tx_bytes, 4500);
    }

    #[test]
    fn late_advance_does_not_shift_transmissions() {
        let mut l = link(10, vec![], LossModel::None);
        l.enqueue(Time(0), P(1500, 0)).unwrap();
        l.enqueue(Time(0), P(1500, 1)).unwrap();
        let mut lost = Vec::new();
        l.advance(Time(50_000_000), &mut lost);
        assert_eq!(l.poll(Time(50_000_000)), Some((Time(11_000_000), P(1500, 0))));
        assert_eq!(l.poll(Time(50_000_000)), Some((Time(12_000_000), P(1500, 1))));
    }

    #[test]
    fn full_queue_drops_and_conserves() {
        let mut l = link(2, vec![], LossModel::None);
        let mut drops = 0;
        for i in 0..5 {
            if l.enqueue(Time(0), P(1500, i)).is_err() {
                drops += 1;
            }
        }
        // One in service, two queued.
        assert_eq!(drops, 2);
        let s = l.stats();
        assert_eq!(s.arrived_pkts, 5);
        assert_eq!(l.in_transit().count(), 3);
        drain(&mut l, Time(1_000_000_000));
        let s = l.stats();
        assert_eq!(s.arrived_pkts, s.delivered_pkts + s.dropped_pkts + s.lost_pkts);
    }

    #[test]
    fn outage_holds_the_queue_until_it_ends() {
        let ms = |x: u64| Time(x * 1_000_000);
        let mut l = link(10, vec![Outage { start: ms(1), end: ms(50) }], LossModel::None);
        l.enqueue(ms(0), P(1500, 0)).unwrap(); // served 0..1 ms, before the outage
        l.enqueue(ms(0), P(1500, 1)).unwrap(); // would start at 1 ms: waits until 50
        l.enqueue(ms(20), P(1500, 2)).unwrap();
        assert_eq!(drain(&mut l, ms(1000)), vec![(ms(11), 0), (ms(61), 1), (ms(62), 2)]);
    }

    #[test]
    fn bernoulli_loss_destroys_about_p_after_transmission() {
        let mut l = link(100_000, vec![], LossModel::Bernoulli { p: 0.1 });
        for i in 0..20_000 {
            l.enqueue(Time(0), P(1500, i)).unwrap();
        }
        let got = drain(&mut l, Time(u64::MAX / 2)).len() as f64;
        let s = l.stats();
        assert_eq!(s.tx_pkts, 20_000);
        assert!((got / 20_000.0 - 0.9).abs() < 0.01, "{got}");
        assert_eq!(s.lost_pkts + s.delivered_pkts, 20_000);
    }
}
