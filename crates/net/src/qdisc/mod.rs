//! Queue disciplines. One enum, so the link's hot path has no dynamic dispatch:
//! drop-tail and drop-head FIFOs, RED, CoDel, PIE and FQ-CoDel. Every discipline has a
//! hard limit (the link's buffer, in packets or bytes) above which it drops whatever
//! the packet's ECN field says; below it the AQMs mark ECN-capable packets instead of
//! dropping them when their `ecn` option is on.
//!
//! Sans-IO: `enqueue(now, pkt)` and `dequeue(now)` take the time from the caller and
//! hand dropped packets back through a vector; randomness comes from the caller's `Rng`.

pub mod codel;
pub mod fq_codel;
pub mod pie;
pub mod red;

pub use codel::{Codel, CodelParams};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use pie::{Pie, PieEstimator, PieParams};
pub use red::{Red, RedParams, RedResolved};

use crate::queue::{Fifo, QueueLimit};
use crate::WirePacket;
use scavenger_cc::{Dur, Rate, Rng, Time};

/// Which discipline, with its parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum QdiscConfig {
    /// FIFO; an arrival that does not fit is dropped.
    #[default]
    DropTail,
    /// FIFO; to make room for an arrival, packets are dropped from the head.
    DropHead,
    Red(RedParams),
    Codel(CodelParams),
    Pie(PieParams),
    FqCodel(FqCodelParams),
}

impl QdiscConfig {
    pub fn name(&self) -> &'static str {
        match self {
            QdiscConfig::DropTail => "drop-tail",
            QdiscConfig::DropHead => "drop-head",
            QdiscConfig::Red(_) => "red",
            QdiscConfig::Codel(_) => "codel",
            QdiscConfig::Pie(_) => "pie",
            QdiscConfig::FqCodel(_) => "fq-codel",
        }
    }
}

/// Counters in packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QdiscStats {
    /// Dropped because the hard limit was reached.
    pub overflow_drops: u64,
    /// Dropped by the AQM's own decision (early or CoDel drops).
    pub aqm_drops: u64,
    /// ECN-CE marks set.
    pub marks: u64,
}

/// What an enqueue or dequeue borrows from its caller.
pub(crate) struct Ctx<'a, T> {
    pub limit: QueueLimit,
    pub rng: &'a mut Rng,
    pub drops: &'a mut Vec<T>,
    pub stats: &'a mut QdiscStats,
}

#[derive(Debug)]
enum Kind<T> {
    Fifo { q: Fifo<T>, head_drop: bool },
    Red(Red<T>),
    Codel(Codel<T>),
    Pie(Pie<T>),
    FqCodel(FqCodel<T>),
}

/// A queue discipline instance.
#[derive(Debug)]
pub struct Qdisc<T> {
    limit: QueueLimit,
    kind: Kind<T>,
    stats: QdiscStats,
}

impl<T: WirePacket> Qdisc<T> {
    /// `rate` and `delay` are the link's (RED derives its automatic parameters from
    /// them); `rng` seeds FQ-CoDel's hash perturbation.
    pub fn new(
        cfg: &QdiscConfig,
        limit: QueueLimit,
        rate: Rate,
        delay: Dur,
        rng: &mut Rng,
    ) -> Self {
        let cap = limit.capacity_hint() + 1;
        let kind = match cfg {
            QdiscConfig::DropTail => Kind::Fifo {
                q: Fifo::with_capacity(cap),
                head_drop: false,
            },
            QdiscConfig::DropHead => Kind::Fifo {
                q: Fifo::with_capacity(cap),
                head_drop: true,
            },
            QdiscConfig::Red(p) => Kind::Red(Red::new(p.clone(), rate, delay, cap)),
            QdiscConfig::Codel(p) => Kind::Codel(Codel::new(p.clone(), cap)),
            QdiscConfig::Pie(p) => Kind::Pie(Pie::new(p.clone(), cap)),
            QdiscConfig::FqCodel(p) => Kind::FqCodel(FqCodel::new(p.clone(), rng)),
        };
        Qdisc {
            limit,
            kind,
            stats: QdiscStats::default(),
        }
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }
    pub fn stats(&self) -> &QdiscStats {
        &self.stats
    }

    /// Offers `pkt` to the queue at `now`. Packets the discipline drops (the arrival or,
    /// for drop-head and FQ-CoDel, queued ones) are pushed to `drops`.
    #[inline]
    pub fn enqueue(&mut self, now: Time, pkt: T, rng: &mut Rng, drops: &mut Vec<T>) {
        // Drop-tail, the common case, stays inline.
        if let Kind::Fifo {
            q,
            head_drop: false,
        } = &mut self.kind
        {
            if self
                .limit
                .admits(q.len(), q.bytes(), pkt.wire_bytes() as u64)
            {
                q.push_back(now, pkt);
            } else {
                self.stats.overflow_drops += 1;
                drops.push(pkt);
            }
            return;
        }
        self.enqueue_other(now, pkt, rng, drops);
    }

    #[inline(never)]
    fn enqueue_other(&mut self, now: Time, pkt: T, rng: &mut Rng, drops: &mut Vec<T>) {
        let mut cx = Ctx {
            limit: self.limit,
            rng,
            drops,
            stats: &mut self.stats,
        };
        match &mut self.kind {
            Kind::Fifo { q, .. } => {
                // Drop-head. A packet that would not fit even an empty queue costs no
                // queued packet.
                let size = pkt.wire_bytes() as u64;
                if cx.limit.admits(0, 0, size) {
                    while !q.is_empty() && !cx.limit.admits(q.len(), q.bytes(), size) {
                        let (_, old) = q.pop_front().expect("non-empty");
                        cx.stats.overflow_drops += 1;
                        cx.drops.push(old);
                    }
                }
                if cx.limit.admits(q.len(), q.bytes(), size) {
                    q.push_back(now, pkt);
                } else {
                    cx.stats.overflow_drops += 1;
                    cx.drops.push(pkt);
                }
            }
            Kind::Red(r) => r.enqueue(now, pkt, &mut cx),
            Kind::Codel(c) => c.enqueue(now, pkt, &mut cx),
            Kind::Pie(p) => p.enqueue(now, pkt, &mut cx),
            Kind::FqCodel(f) => f.enqueue(now, pkt, &mut cx),
        }
    }

    /// The packet to transmit at `now`, with the time it was queued. Called whenever
    /// the transmitter is free, also on an empty queue (CoDel and RED track that).
    /// Packets the AQM drops on the way are pushed to `drops`.
    #[inline]
    pub fn dequeue(&mut self, now: Time, rng: &mut Rng, drops: &mut Vec<T>) -> Option<(Time, T)> {
        if let Kind::Fifo { q, .. } = &mut self.kind {
            return q.pop_front();
        }
        self.dequeue_other(now, rng, drops)
    }

    #[inline(never)]
    fn dequeue_other(&mut self, now: Time, rng: &mut Rng, drops: &mut Vec<T>) -> Option<(Time, T)> {
        match &mut self.kind {
            Kind::Fifo { q, .. } => q.pop_front(),
            Kind::Red(r) => r.dequeue(now),
            Kind::Codel(c) => {
                let mut cx = Ctx {
                    limit: self.limit,
                    rng,
                    drops,
                    stats: &mut self.stats,
                };
                c.dequeue(now, &mut cx)
            }
            Kind::Pie(p) => p.dequeue(now),
            Kind::FqCodel(f) => {
                let mut cx = Ctx {
                    limit: self.limit,
                    rng,
                    drops,
                    stats: &mut self.stats,
                };
                f.dequeue(now, &mut cx)
            }
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Fifo { q, .. } => q.len(),
            Kind::Red(r) => r.q.len(),
            Kind::Codel(c) => c.q.len(),
            Kind::Pie(p) => p.q.len(),
            Kind::FqCodel(f) => f.len(),
        }
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn bytes(&self) -> u64 {
        match &self.kind {
            Kind::Fifo { q, .. } => q.bytes(),
            Kind::Red(r) => r.q.bytes(),
            Kind::Codel(c) => c.q.bytes(),
            Kind::Pie(p) => p.q.bytes(),
            Kind::FqCodel(f) => f.bytes(),
        }
    }
    pub fn iter(&self) -> Box<dyn Iterator<Item = &T> + '_> {
        match &self.kind {
            Kind::Fifo { q, .. } => Box::new(q.iter()),
            Kind::Red(r) => Box::new(r.q.iter()),
            Kind::Codel(c) => Box::new(c.q.iter()),
            Kind::Pie(p) => Box::new(p.q.iter()),
            Kind::FqCodel(f) => Box::new(f.iter()),
        }
    }

    /// RED's resolved automatic parameters, if this is RED.
    pub fn red_resolved(&self) -> Option<RedResolved> {
        match &self.kind {
            Kind::Red(r) => Some(r.resolved()),
            _ => None,
        }
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

    fn q(cfg: QdiscConfig, limit: QueueLimit) -> Qdisc<P> {
        Qdisc::new(
            &cfg,
            limit,
            Rate::from_mbps(10),
            Dur::from_millis(10),
            &mut Rng::new(1),
        )
    }

    #[test]
    fn drop_tail_drops_the_arrival() {
        let mut d = q(QdiscConfig::DropTail, QueueLimit::Packets(2));
        let (mut rng, mut drops) = (Rng::new(1), Vec::new());
        for i in 0..3 {
            d.enqueue(Time(i as u64), P(100, i), &mut rng, &mut drops);
        }
        assert_eq!(drops, vec![P(100, 2)]);
        assert_eq!(d.bytes(), 200);
        assert_eq!(
            d.dequeue(Time(5), &mut rng, &mut drops),
            Some((Time(0), P(100, 0)))
        );
        assert_eq!(d.stats().overflow_drops, 1);
    }

    #[test]
    fn drop_head_drops_the_oldest_to_make_room() {
        let mut d = q(QdiscConfig::DropHead, QueueLimit::Bytes(3000));
        let (mut rng, mut drops) = (Rng::new(1), Vec::new());
        d.enqueue(Time(0), P(1500, 0), &mut rng, &mut drops);
        d.enqueue(Time(1), P(1500, 1), &mut rng, &mut drops);
        // 2000 bytes need both old packets gone.
        d.enqueue(Time(2), P(2000, 2), &mut rng, &mut drops);
        assert_eq!(drops, vec![P(1500, 0), P(1500, 1)]);
        assert_eq!(d.len(), 1);
        // A packet larger than the whole buffer is itself dropped.
        d.enqueue(Time(3), P(4000, 3), &mut rng, &mut drops);
        assert_eq!(drops.last(), Some(&P(4000, 3)));
        assert_eq!(
            d.dequeue(Time(4), &mut rng, &mut drops),
            Some((Time(2), P(2000, 2)))
        );
    }

    #[test]
    fn red_drops_early_once_the_average_passes_min_th() {
        // Packet mode, fixed thresholds 5/15, w_q = 0.5 so the average follows the queue
        // quickly. A queue that only grows: no drop until avg ≥ 5, then early drops.
        let p = RedParams {
            min_th: Some(5.0),
            max_th: Some(15.0),
            w_q: Some(0.5),
            bytes: false,
            wait: false,
            ..RedParams::default()
        };
        let mut r = q(QdiscConfig::Red(p), QueueLimit::Packets(1000));
        let (mut rng, mut drops) = (Rng::new(3), Vec::new());
        for i in 0..200 {
            r.enqueue(Time(i as u64), P(1500, i), &mut rng, &mut drops);
            if i < 6 {
                assert!(
                    drops.is_empty(),
                    "no early drop while avg < min_th (i = {i})"
                );
            }
        }
        // With the queue growing past 2 · max_th (gentle), the probability reaches 1: the
        // queue settles below 2 · max_th = 30 packets.
        assert!(r.len() <= 31, "{}", r.len());
        assert_eq!(r.stats().aqm_drops as usize, drops.len());
        assert_eq!(r.stats().overflow_drops, 0);
    }
}
