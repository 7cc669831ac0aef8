//! The event queue: integer-nanosecond times, ties broken by insertion order so that a
//! run is a pure function of its scenario and seed.

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

#[derive(Debug)]
struct Entry {
    time: Time,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: invert so the earliest (then first inserted) pops first.
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Time, ev: Event) {
        self.seq += 1;
        self.heap.push(Entry {
            time,
            seq: self.seq,
            ev,
        });
    }
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| (e.time, e.ev))
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
