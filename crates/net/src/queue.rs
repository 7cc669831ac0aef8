//! Queue disciplines. The first is drop-tail with a limit in packets or bytes.

use crate::WirePacket;
use scavenger_cc::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// A FIFO that drops arrivals when full. Each entry remembers when it was queued so the
/// link can measure sojourn time.
#[derive(Debug)]
pub struct DropTail<T> {
    limit: QueueLimit,
    items: VecDeque<(Time, T)>,
    bytes: u64,
}

impl<T: WirePacket> DropTail<T> {
    pub fn new(limit: QueueLimit) -> Self {
        let cap = match limit {
            QueueLimit::Packets(n) => (n as usize).min(1 << 16),
            QueueLimit::Bytes(b) => ((b / 1500) as usize).min(1 << 16),
        };
        DropTail { limit, items: VecDeque::with_capacity(cap + 1), bytes: 0 }
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// Queues `pkt`, or gives it back if the queue is full.
    pub fn enqueue(&mut self, now: Time, pkt: T) -> Result<(), T> {
        let size = pkt.wire_bytes() as u64;
        let fits = match self.limit {
            QueueLimit::Packets(n) => self.items.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + size <= b,
        };
        if !fits {
            return Err(pkt);
        }
        self.bytes += size;
        self.items.push_back((now, pkt));
        Ok(())
    }

    /// The oldest packet and the time it was queued.
    pub fn dequeue(&mut self) -> Option<(Time, T)> {
        let (t, p) = self.items.pop_front()?;
        self.bytes -= p.wire_bytes() as u64;
        Some((t, p))
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().map(|(_, p)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct P(u32);
    impl WirePacket for P {
        fn wire_bytes(&self) -> u32 {
            self.0
        }
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(Time(0), P(100)).is_ok());
        assert!(q.enqueue(Time(1), P(200)).is_ok());
        assert_eq!(q.enqueue(Time(2), P(300)), Err(P(300)));
        assert_eq!(q.bytes(), 300);
        assert_eq!(q.dequeue(), Some((Time(0), P(100))));
        assert_eq!(q.bytes(), 200);
    }

    #[test]
    fn byte_limit_counts_wire_bytes() {
        let mut q = DropTail::new(QueueLimit::Bytes(3000));
        assert!(q.enqueue(Time(0), P(1500)).is_ok());
        assert!(q.enqueue(Time(0), P(1500)).is_ok());
        assert!(q.enqueue(Time(0), P(1)).is_err());
        q.dequeue();
        assert!(q.enqueue(Time(0), P(1000)).is_ok());
        assert_eq!(q.len(), 2);
    }
}
