//! The FIFO every queue discipline is built on, and the hard limit in packets or bytes.

use crate::WirePacket;
use scavenger_cc::Time;
use std::collections::VecDeque;

/// The physical size of a queue: packets beyond it are dropped whatever the discipline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Whether a queue holding `len` packets and `bytes` bytes can take `size` more bytes.
    #[inline]
    pub fn admits(self, len: usize, bytes: u64, size: u64) -> bool {
        match self {
            QueueLimit::Packets(n) => len < n as usize,
            QueueLimit::Bytes(b) => bytes + size <= b,
        }
    }

    /// A capacity hint for ring buffers (at most 64 Ki entries).
    pub fn capacity_hint(self) -> usize {
        match self {
            QueueLimit::Packets(n) => (n as usize).min(1 << 16),
            QueueLimit::Bytes(b) => ((b / 1500) as usize).min(1 << 16),
        }
    }
}

/// A FIFO of packets with the time each was queued (for sojourn times) and a byte count.
#[derive(Debug)]
pub struct Fifo<T> {
    items: VecDeque<(Time, T)>,
    bytes: u64,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo {
            items: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<T: WirePacket> Fifo<T> {
    pub fn with_capacity(n: usize) -> Self {
        Fifo {
            items: VecDeque::with_capacity(n),
            bytes: 0,
        }
    }
    #[inline]
    pub fn push_back(&mut self, now: Time, pkt: T) {
        self.bytes += pkt.wire_bytes() as u64;
        self.items.push_back((now, pkt));
    }
    #[inline]
    pub fn pop_front(&mut self) -> Option<(Time, T)> {
        let (t, p) = self.items.pop_front()?;
        self.bytes -= p.wire_bytes() as u64;
        Some((t, p))
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    #[inline]
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
    fn limits_in_packets_and_bytes() {
        assert!(QueueLimit::Packets(2).admits(1, 0, 1500));
        assert!(!QueueLimit::Packets(2).admits(2, 0, 1));
        assert!(QueueLimit::Bytes(3000).admits(1, 1500, 1500));
        assert!(!QueueLimit::Bytes(3000).admits(1, 1500, 1501));
    }

    #[test]
    fn fifo_counts_bytes_and_keeps_order() {
        let mut q = Fifo::default();
        q.push_back(Time(0), P(100));
        q.push_back(Time(1), P(200));
        assert_eq!((q.len(), q.bytes()), (2, 300));
        assert_eq!(q.pop_front(), Some((Time(0), P(100))));
        assert_eq!(q.bytes(), 200);
    }
}
