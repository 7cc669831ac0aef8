//! The event queue: integer-nanosecond times, ties broken by insertion order so that a
//! run is a pure function of its scenario and seed.
//!
//! A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990, "Faster algorithms for the
//! shortest path problem", §3) in place of a binary heap: a simulator never schedules
//! an event before the last one it popped, so an entry is filed by the highest bit in
//! which its time differs from that last time. A push is a vector append; a pop takes
//! the next entry of bucket 0 (times equal to the last one) or, when that is empty,
//! empties the lowest non-empty bucket into the lower ones; an entry moves down at most
//! 64 times in all and, in a packet simulator, two or three times. Each bucket stays in
//! insertion order (entries are appended, and a bucket is emptied only into buckets
//! that are empty), so entries with equal times pop in the order they were pushed: the
//! pop order is exactly the (time, insertion) order of the binary heap it replaced,
//! which the tests check on random schedules. An entry earlier than the last pop
//! (which the simulator does not schedule today) goes to a small binary heap that pops
//! first, so the order stays exact for any input.

use scavenger_cc::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A bottleneck direction (0 forward, 1 reverse) has work due.
    Link(u8),
    /// A flow's access delay line has packets due: (flow, 0 towards the bottleneck / 1 back).
    Access(u32, u8),
    FlowStart(u32),
    FlowStop(u32),
    /// The next datagram of a constant-bit-rate flow.
    CbrSend(u32),
    /// Pacing timer.
    Send(u32),
    Rto(u32),
    DelAck(u32),
    /// Measurement probe (index into the probe table).
    Probe(u32),
    SeriesTick,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    ev: Event,
}

/// An entry scheduled before the last pop, ordered by (time, insertion).
#[derive(Debug)]
struct Early {
    time: u64,
    seq: u64,
    ev: Event,
}

impl PartialEq for Early {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Early {}
impl PartialOrd for Early {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Early {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: invert so the earliest (then first inserted) pops first.
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// Buckets 1..=64: bucket i holds entries whose time differs from `last` first in bit
/// i − 1.
const BUCKETS: usize = 65;

pub struct EventQueue {
    /// The time of the last entry taken into bucket 0; every bucketed entry is at or
    /// after it.
    last: u64,
    /// Entries at exactly `last`, in insertion order; `head` is the next to pop.
    now: Vec<Entry>,
    head: usize,
    /// `buckets[0]` is unused (bucket 0 is `now`).
    buckets: [Vec<Entry>; BUCKETS],
    /// Bit i − 1 set when bucket i is non-empty.
    occupied: u64,
    /// Entries earlier than `last`, and their insertion counter.
    early: BinaryHeap<Early>,
    early_seq: u64,
    len: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            last: 0,
            now: Vec::new(),
            head: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            occupied: 0,
            early: BinaryHeap::new(),
            early_seq: 0,
            len: 0,
        }
    }
}

impl EventQueue {
    #[inline]
    pub fn push(&mut self, time: Time, ev: Event) {
        let t = time.nanos();
        self.len += 1;
        if t == self.last {
            self.now.push(Entry { time: t, ev });
        } else if t > self.last {
            let b = bucket(self.last, t);
            self.buckets[b].push(Entry { time: t, ev });
            self.occupied |= 1 << (b - 1);
        } else {
            self.early_seq += 1;
            self.early.push(Early {
                time: t,
                seq: self.early_seq,
                ev,
            });
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if !self.early.is_empty() {
            return self.pop_early();
        }
        if self.head == self.now.len() && !self.refill() {
            return None;
        }
        let e = self.now[self.head];
        self.head += 1;
        self.len -= 1;
        Some((Time(e.time), e.ev))
    }

    /// The time of the next entry. Takes `&mut self`: finding it may move entries
    /// between buckets (never changing the pop order).
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        if let Some(e) = self.early.peek() {
            return Some(Time(e.time));
        }
        if self.head == self.now.len() && !self.refill() {
            return None;
        }
        Some(Time(self.last))
    }

    /// The next entry if it is due no later than `end`; otherwise it stays.
    #[inline]
    pub fn pop_until(&mut self, end: Time) -> Option<(Time, Event)> {
        if self.peek_time()? > end {
            return None;
        }
        self.pop()
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cold]
    fn pop_early(&mut self) -> Option<(Time, Event)> {
        let e = self.early.pop()?;
        self.len -= 1;
        Some((Time(e.time), e.ev))
    }

    /// Bucket 0 is used up: empties the lowest non-empty bucket into the lower ones,
    /// its earliest entries into bucket 0. False when nothing is left.
    fn refill(&mut self) -> bool {
        self.now.clear();
        self.head = 0;
        if self.occupied == 0 {
            return false;
        }
        let i = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= !(1 << (i - 1));
        let from = &mut self.buckets[i];
        if from.len() == 1 {
            // The common case in a packet simulator: the next event is alone in its
            // bucket.
            let e = from[0];
            from.clear();
            self.last = e.time;
            self.now.push(e);
            return true;
        }
        let min = from.iter().map(|e| e.time).min().expect("occupied");
        self.last = min;
        // Moved out so that entries can go to other buckets; the allocation comes back.
        let mut from = std::mem::take(from);
        for &e in &from {
            if e.time == min {
                self.now.push(e);
            } else {
                // Below i: `min` agrees with the old `last` above bit i − 1.
                let b = bucket(min, e.time);
                self.buckets[b].push(e);
                self.occupied |= 1 << (b - 1);
            }
        }
        from.clear();
        self.buckets[i] = from;
        true
    }
}

/// The bucket of `t` > `last`: one more than the index of the highest differing bit.
#[inline]
fn bucket(last: u64, t: u64) -> usize {
    (64 - (last ^ t).leading_zeros()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use scavenger_cc::Rng;
    use std::cmp::Reverse;

    #[test]
    fn earliest_first_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Time(5), Event::Send(1));
        q.push(Time(3), Event::Send(2));
        q.push(Time(5), Event::Send(3));
        q.push(Time(3), Event::Send(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(3), Event::Send(2)),
                (Time(3), Event::Send(4)),
                (Time(5), Event::Send(1)),
                (Time(5), Event::Send(3))
            ]
        );
    }

    #[test]
    fn pop_until_leaves_later_entries() {
        let mut q = EventQueue::default();
        q.push(Time(10), Event::Rto(1));
        q.push(Time(20), Event::Rto(2));
        assert_eq!(q.pop_until(Time(15)), Some((Time(10), Event::Rto(1))));
        assert_eq!(q.pop_until(Time(15)), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop_until(Time(20)), Some((Time(20), Event::Rto(2))));
        assert!(q.is_empty());
    }

    #[test]
    fn an_entry_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
    }

    /// The binary heap the radix queue replaced: (time, insertion) order.
    #[derive(Default)]
    struct Reference {
        heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
        seq: u64,
    }
    impl Reference {
        fn push(&mut self, t: u64, id: u32) {
            self.seq += 1;
            self.heap.push(Reverse((t, self.seq, id)));
        }
        fn pop(&mut self) -> Option<(Time, Event)> {
            self.heap
                .pop()
                .map(|Reverse((t, _, id))| (Time(t), Event::Send(id)))
        }
    }

    /// Drives both queues with the same random schedule: `delay` draws how far after
    /// the current time (the last pop) an entry goes; it may return a time before it.
    fn same_order(seed: u64, ops: usize, mut delay: impl FnMut(&mut Rng, u64) -> u64) {
        let mut rng = Rng::new(seed);
        let (mut q, mut r) = (EventQueue::default(), Reference::default());
        let (mut now, mut id) = (0u64, 0u32);
        for _ in 0..ops {
            // Pushes slightly outnumber pops, so the queue grows to a few hundred.
            if rng.below(100) < 52 {
                let t = delay(&mut rng, now);
                id += 1;
                q.push(Time(t), Event::Send(id));
                r.push(t, id);
            } else {
                assert_eq!(q.peek_time(), r.heap.peek().map(|e| Time(e.0 .0)));
                let got = q.pop();
                assert_eq!(got, r.pop(), "seed {seed}");
                if let Some((t, _)) = got {
                    now = t.nanos();
                }
            }
            assert_eq!(q.len(), r.heap.len());
        }
        while let Some(e) = r.pop() {
            assert_eq!(q.pop(), Some(e));
        }
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }

    #[test]
    fn pops_in_binary_heap_order_on_simulator_like_schedules() {
        for seed in 1..=20 {
            // Ties at the current time, transmission times, propagation delays, timers.
            same_order(seed, 200_000, |rng, now| {
                now + match rng.below(10) {
                    0..=1 => 0,
                    2..=4 => 12_000 + rng.below(3),
                    5..=7 => 20_000_000 + rng.below(1000),
                    8 => rng.below(1 << 20),
                    _ => 200_000_000 + rng.below(1 << 30),
                }
            });
        }
    }

    #[test]
    fn pops_in_binary_heap_order_with_few_distinct_times() {
        for seed in 1..=20 {
            same_order(seed, 100_000, |rng, now| now + rng.below(4));
        }
    }

    #[test]
    fn pops_in_binary_heap_order_when_entries_come_before_the_last_pop() {
        for seed in 1..=20 {
            same_order(seed, 100_000, |rng, now| {
                if rng.below(8) == 0 {
                    now.saturating_sub(rng.below(1000))
                } else {
                    now + rng.below(5000)
                }
            });
            // Any time at all, including the extremes of the range.
            same_order(seed, 20_000, |rng, _| match rng.below(10) {
                0 => 0,
                1 => u64::MAX,
                _ => rng.next_u64() >> rng.below(64),
            });
        }
    }
}
