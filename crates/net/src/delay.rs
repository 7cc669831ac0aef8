//! A constant propagation delay. Packets leave in the order they entered, so the line
//! needs one pending wake-up (its head), not one per packet.

use scavenger_cc::{Dur, Time};
use std::collections::VecDeque;

#[derive(Debug)]
pub struct DelayLine<T> {
    delay: Dur,
    items: VecDeque<(Time, T)>,
}

impl<T> DelayLine<T> {
    pub fn new(delay: Dur) -> Self {
        DelayLine { delay, items: VecDeque::new() }
    }
    pub fn delay(&self) -> Dur {
        self.delay
    }
    /// Enters the line at `now`; leaves at `now + delay`.
    pub fn push(&mut self, now: Time, pkt: T) {
        self.items.push_back((now + self.delay, pkt));
    }
    pub fn next_wakeup(&self) -> Option<Time> {
        self.items.front().map(|(t, _)| *t)
    }
    /// The next packet due at or before `now`, with its exit time.
    pub fn poll(&mut self, now: Time) -> Option<(Time, T)> {
        if self.items.front().is_some_and(|(t, _)| *t <= now) {
            self.items.pop_front()
        } else {
            None
        }
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().map(|(_, p)| p)
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
}
