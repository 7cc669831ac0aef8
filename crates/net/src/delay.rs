//! Propagation delay, fixed or with jitter. A fixed delay (or jitter that preserves
//! order) keeps packets in a FIFO, so the line needs one pending wake-up (its head), not
//! one per packet; jitter that may reorder uses a heap ordered by exit time, ties broken
//! by arrival order.

use scavenger_cc::{Dur, Rng, Time};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Random variation of the propagation delay, per packet.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Jitter {
    #[default]
    None,
    /// delay + U(−amount, +amount), clamped at zero (netem's `delay D J`).
    Uniform { amount: Dur, preserve_order: bool },
    /// delay + N(0, stdev²), clamped at zero (netem's `distribution normal`).
    Normal { stdev: Dur, preserve_order: bool },
}

impl Jitter {
    pub fn preserves_order(&self) -> bool {
        match *self {
            Jitter::None => true,
            Jitter::Uniform { preserve_order, .. } | Jitter::Normal { preserve_order, .. } => {
                preserve_order
            }
        }
    }

    /// One packet's delay.
    pub fn sample(&self, delay: Dur, rng: &mut Rng) -> Dur {
        let d = delay.nanos() as f64;
        let x = match *self {
            Jitter::None => return delay,
            Jitter::Uniform { amount, .. } => {
                d + (2.0 * rng.uniform() - 1.0) * amount.nanos() as f64
            }
            Jitter::Normal { stdev, .. } => d + standard_normal(rng) * stdev.nanos() as f64,
        };
        Dur(x.max(0.0).round() as u64)
    }
}

/// A standard normal variate (Box–Muller, one of the pair).
pub fn standard_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.uniform(); // (0, 1]
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[derive(Debug)]
struct HeapItem<T> {
    exit: Time,
    seq: u64,
    pkt: T,
}
impl<T> PartialEq for HeapItem<T> {
    fn eq(&self, o: &Self) -> bool {
        self.exit == o.exit && self.seq == o.seq
    }
}
impl<T> Eq for HeapItem<T> {}
impl<T> PartialOrd for HeapItem<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for HeapItem<T> {
    fn cmp(&self, o: &Self) -> Ordering {
        // Max-heap: invert so the earliest exit (then the earliest arrival) is on top.
        o.exit.cmp(&self.exit).then(o.seq.cmp(&self.seq))
    }
}

#[derive(Debug)]
pub struct DelayLine<T> {
    delay: Dur,
    items: VecDeque<(Time, T)>,
    /// Packets whose exit may precede earlier arrivals (reordering jitter only).
    heap: BinaryHeap<HeapItem<T>>,
    seq: u64,
}

impl<T> DelayLine<T> {
    pub fn new(delay: Dur) -> Self {
        DelayLine {
            delay,
            items: VecDeque::new(),
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }
    pub fn delay(&self) -> Dur {
        self.delay
    }
    /// Enters the line at `now`; leaves at `now + delay`.
    #[inline]
    pub fn push(&mut self, now: Time, pkt: T) {
        self.items.push_back((now + self.delay, pkt));
    }
    /// Leaves at `exit`, or, with `preserve_order`, no earlier than the packet ahead.
    pub fn push_at(&mut self, exit: Time, pkt: T, preserve_order: bool) {
        if preserve_order {
            let exit = self.items.back().map_or(exit, |(t, _)| exit.max(*t));
            self.items.push_back((exit, pkt));
        } else {
            self.seq += 1;
            self.heap.push(HeapItem {
                exit,
                seq: self.seq,
                pkt,
            });
        }
    }
    #[inline]
    pub fn next_wakeup(&self) -> Option<Time> {
        let a = self.items.front().map(|(t, _)| *t);
        if self.heap.is_empty() {
            return a;
        }
        match (a, self.heap.peek().map(|h| h.exit)) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
    /// The next packet due at or before `now`, with its exit time. Always inlined: it
    /// runs for every packet that leaves a link, and as a call it costs a frame and a
    /// copy of the 88-byte result (docs/performance.md, session 9).
    #[inline(always)]
    pub fn poll(&mut self, now: Time) -> Option<(Time, T)> {
        if self.heap.is_empty() {
            // Fixed delay or order-preserving jitter: the FIFO alone.
            return if self.items.front().is_some_and(|(t, _)| *t <= now) {
                self.items.pop_front()
            } else {
                None
            };
        }
        let fifo = self.items.front().map(|(t, _)| *t).filter(|t| *t <= now);
        let heap = self.heap.peek().map(|h| h.exit).filter(|t| *t <= now);
        match (fifo, heap) {
            (Some(a), Some(b)) if b < a => self.heap.pop().map(|h| (h.exit, h.pkt)),
            (Some(_), _) => self.items.pop_front(),
            (None, Some(_)) => self.heap.pop().map(|h| (h.exit, h.pkt)),
            (None, None) => None,
        }
    }
    pub fn len(&self) -> usize {
        self.items.len() + self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items
            .iter()
            .map(|(_, p)| p)
            .chain(self.heap.iter().map(|h| &h.pkt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_leave_after_the_delay_in_order() {
        let mut d = DelayLine::new(Dur(10));
        d.push(Time(0), 'a');
        d.push(Time(3), 'b');
        assert_eq!(d.next_wakeup(), Some(Time(10)));
        assert_eq!(d.poll(Time(9)), None);
        assert_eq!(d.poll(Time(13)), Some((Time(10), 'a')));
        assert_eq!(d.poll(Time(13)), Some((Time(13), 'b')));
        assert!(d.is_empty());
    }

    #[test]
    fn order_preserving_jitter_never_overtakes() {
        let mut d = DelayLine::new(Dur(0));
        d.push_at(Time(50), 'a', true);
        d.push_at(Time(20), 'b', true); // would overtake 'a': held until 50
        assert_eq!(d.poll(Time(100)), Some((Time(50), 'a')));
        assert_eq!(d.poll(Time(100)), Some((Time(50), 'b')));
    }

    #[test]
    fn reordering_jitter_releases_by_exit_time() {
        let mut d = DelayLine::new(Dur(0));
        d.push_at(Time(50), 'a', false);
        d.push_at(Time(20), 'b', false);
        d.push_at(Time(20), 'c', false);
        assert_eq!(d.next_wakeup(), Some(Time(20)));
        let out: Vec<_> = std::iter::from_fn(|| d.poll(Time(100))).collect();
        assert_eq!(out, vec![(Time(20), 'b'), (Time(20), 'c'), (Time(50), 'a')]);
    }

    #[test]
    fn jitter_samples_have_the_stated_spread() {
        let mut rng = Rng::new(5);
        let u = Jitter::Uniform {
            amount: Dur(1000),
            preserve_order: true,
        };
        let xs: Vec<f64> = (0..100_000)
            .map(|_| u.sample(Dur(5000), &mut rng).nanos() as f64)
            .collect();
        assert!(xs.iter().all(|&x| (4000.0..=6000.0).contains(&x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 5000.0).abs() < 10.0, "{mean}");
        let n = Jitter::Normal {
            stdev: Dur(1000),
            preserve_order: false,
        };
        let xs: Vec<f64> = (0..100_000)
            .map(|_| n.sample(Dur(10_000), &mut rng).nanos() as f64)
            .collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        assert!(
            (mean - 10_000.0).abs() < 15.0 && (sd - 1000.0).abs() < 15.0,
            "{mean} {sd}"
        );
        // Clamped at zero.
        assert!(
            Jitter::Uniform {
                amount: Dur(100),
                preserve_order: true
            }
            .sample(Dur(0), &mut Rng::new(1))
            .nanos()
                <= 100
        );
    }
}
