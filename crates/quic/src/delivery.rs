//! Per-send delivery state for delivery-rate samples (draft-cheng-iccrg-delivery-rate-
//! estimation, Linux tcp_rate.c), which quinn does not keep.
//!
//! quinn's `on_sent(now, bytes, last_packet_number)` reports a whole transmit (one or
//! more datagrams, GSO) once, and its `on_ack(now, sent, ..)` names a packet only by its
//! send time. Every packet of one transmit carries that transmit's `now` as its send time
//! (`packet_builder.rs` `finish_and_track`), so the snapshot is kept per send instant and
//! found again by the acknowledged packet's send time.

use std::collections::VecDeque;

use scavenger_cc::estimators::delivery_rate::{DeliveryRateEstimator, TxSnapshot};
use scavenger_cc::{Dur, RateSample, Time};

/// Backstop on remembered transmits (about 3 MB). Pruning by loss and by the RFC 9002
/// time threshold normally keeps far fewer.
const MAX_SENDS: usize = 1 << 16;

#[derive(Clone, Debug)]
pub(crate) struct DeliveryState {
    est: DeliveryRateEstimator,
    /// Send instants in increasing order with the state they recorded.
    sends: VecDeque<(Time, TxSnapshot)>,
    /// Acknowledged packets whose transmit had been forgotten (a send path that does not
    /// call `on_sent`, or pruned); reported in the adapter's statistics.
    pub missing: u64,
}

impl DeliveryState {
    pub fn new(now: Time) -> Self {
        DeliveryState {
            est: DeliveryRateEstimator::new(now),
            sends: VecDeque::new(),
            missing: 0,
        }
    }

    pub fn delivered(&self) -> u64 {
        self.est.delivered()
    }

    /// A transmit at `now` with `prior_in_flight` bytes outstanding before it. Two
    /// transmits at one instant share the first one's snapshot: their packets cannot be
    /// told apart on acknowledgement.
    pub fn on_sent(&mut self, now: Time, prior_in_flight: u64) {
        if self.sends.back().is_some_and(|&(t, _)| t >= now) {
            return;
        }
        let snap = self.est.on_send(now, prior_in_flight);
        self.sends.push_back((now, snap));
        if self.sends.len() > MAX_SENDS {
            self.sends.pop_front();
        }
    }

    /// One newly acknowledged packet of `bytes`, sent at `sent`.
    pub fn on_acked(&mut self, now: Time, sent: Time, bytes: u64) {
        let idx = self.sends.partition_point(|&(t, _)| t <= sent);
        let snap = match idx.checked_sub(1).map(|i| self.sends[i]) {
            Some((t, s)) if t == sent => s,
            other => {
                // Not recorded: take the nearest older transmit's state (a slight
                // overestimate of the interval, so of the rate never), else the start.
                self.missing += 1;
                let mut s = other.map_or(
                    TxSnapshot {
                        delivered: 0,
                        delivered_time: Time::ZERO,
                        first_sent_time: Time::ZERO,
                        sent_time: sent,
                        app_limited: false,
                    },
                    |(_, s)| s,
                );
                s.sent_time = sent;
                s
            }
        };
        self.est.on_packet_delivered(now, &snap, bytes);
    }

    /// The sender had nothing to send with `in_flight` bytes outstanding.
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.est.on_app_limited(in_flight);
    }

    /// End of one ACK frame: the frame's rate sample, if valid.
    pub fn finish_ack(&mut self, min_rtt: Option<Dur>) -> Option<RateSample> {
        self.est.finish_ack(min_rtt)
    }

    /// Forgets transmits that can no longer be acknowledged: those sent before
    /// `horizon`. Callers pass the send time of the newest lost packet (RFC 9002 §6.1
    /// declares older unacknowledged packets lost in the same or an earlier batch), or
    /// the newest acknowledged send time minus twice the RFC 9002 §6.1.2 time threshold.
    pub fn forget_before(&mut self, horizon: Time) {
        while self.sends.front().is_some_and(|&(t, _)| t < horizon) {
            self.sends.pop_front();
        }
    }

    /// Nothing in flight: no packet recorded so far can still be acknowledged.
    pub fn forget_all(&mut self) {
        self.sends.clear();
    }

    #[cfg(test)]
    pub fn remembered(&self) -> usize {
        self.sends.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scavenger_cc::Rate;

    const MS: u64 = 1_000_000;

    #[test]
    fn rate_from_transmits_found_by_send_time() {
        // One 1200-byte transmit per ms, each acknowledged 10 ms later: 9.6 Mbit/s.
        let mut d = DeliveryState::new(Time(0));
        let mut last = None;
        for i in 0..40u64 {
            let inflight = i.min(10) * 1200;
            d.on_sent(Time(i * MS), inflight);
            if i >= 10 {
                d.on_acked(Time(i * MS), Time((i - 10) * MS), 1200);
                last = d.finish_ack(None);
            }
        }
        assert_eq!(last.unwrap().rate, Rate(9_600_000));
        assert_eq!(d.delivered(), 30 * 1200);
        assert_eq!(d.missing, 0);
        d.forget_before(Time(35 * MS));
        assert_eq!(d.remembered(), 5);
    }

    #[test]
    fn a_forgotten_transmit_falls_back_to_an_older_one() {
        let mut d = DeliveryState::new(Time(0));
        d.on_sent(Time(0), 0);
        d.on_sent(Time(MS), 1200);
        d.on_acked(Time(10 * MS), Time(MS / 2), 1200);
        assert_eq!(d.missing, 1);
        assert_eq!(d.delivered(), 1200);
    }
}
