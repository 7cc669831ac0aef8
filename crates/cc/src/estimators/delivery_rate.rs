//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation; Linux
//! net/ipv4/tcp_rate.c). The sender snapshots the connection's delivery state in each
//! transmitted packet; when the packet is acknowledged, the bytes delivered since that
//! snapshot over the longer of the send and ACK intervals gives a rate sample that never
//! overestimates the bottleneck because of ACK compression.

use crate::api::RateSample;
use crate::units::{Dur, Rate, Time};

/// State recorded in each transmitted packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSnapshot {
    pub delivered: u64,
    pub delivered_time: Time,
    pub first_sent_time: Time,
    pub sent_time: Time,
    pub app_limited: bool,
}

#[derive(Clone, Debug, Default)]
pub struct DeliveryRateEstimator {
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// Non-zero while app-limited: the `delivered` count after which samples are no
    /// longer app-limited (draft §3.4, C.app_limited).
    app_limited_until: u64,
    // The sample being built from the ACK in progress (draft §3.3, "rs").
    rs_prior_delivered: u64,
    rs_prior_time: Option<Time>,
    rs_send_elapsed: Dur,
    rs_ack_elapsed: Dur,
    rs_app_limited: bool,
}

impl DeliveryRateEstimator {
    pub fn new(now: Time) -> Self {
        DeliveryRateEstimator {
            delivered_time: now,
            first_sent_time: now,
            ..Default::default()
        }
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Call before sending a packet; `in_flight` is the bytes in flight before it.
    pub fn on_send(&mut self, now: Time, in_flight: u64) -> TxSnapshot {
        if in_flight == 0 {
            // Restarting from idle: the send interval starts now (draft §3.2).
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// The sender ran out of data with `in_flight` bytes outstanding: mark samples as
    /// app-limited until that data is delivered.
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// Call for each packet newly delivered (cumulatively or by SACK) by an ACK.
    pub fn on_packet_delivered(&mut self, now: Time, snap: &TxSnapshot, bytes: u64) {
        self.delivered += bytes;
        self.delivered_time = now;
        // Use the most recently sent packet's snapshot (draft §3.3, UpdateRateSample).
        if self.rs_prior_time.is_none()
            || snap.delivered > self.rs_prior_delivered
            || (snap.delivered == self.rs_prior_delivered && snap.sent_time >= self.first_sent_time)
        {
            self.rs_prior_delivered = snap.delivered;
            self.rs_prior_time = Some(snap.delivered_time);
            self.rs_app_limited = snap.app_limited;
            self.rs_send_elapsed = snap.sent_time.since(snap.first_sent_time);
            self.rs_ack_elapsed = self.delivered_time.since(snap.delivered_time);
            self.first_sent_time = snap.sent_time;
        }
    }

    /// Call once per ACK after all its packets; returns the sample, if one is valid.
    /// Samples over an interval shorter than `min_rtt` are discarded (Linux tcp_rate.c),
    /// since they reflect ACK bunching more than the path.
    pub fn finish_ack(&mut self, min_rtt: Option<Dur>) -> Option<RateSample> {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let _prior_time = self.rs_prior_time.take()?;
        let interval = self.rs_send_elapsed.max(self.rs_ack_elapsed);
        let delivered = self.delivered - self.rs_prior_delivered;
        if interval == Dur::ZERO || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            rate: Rate::from_bytes_over(delivered, interval),
            interval,
            delivered,
            app_limited: self.rs_app_limited,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_stream_measures_the_ack_rate() {
        // One 1000-byte packet every 1 ms, each acknowledged 10 ms later: 8 Mbit/s.
        let mut e = DeliveryRateEstimator::new(Time(0));
        let ms = |x: u64| Time(x * 1_000_000);
        let mut snaps = Vec::new();
        for i in 0..30u64 {
            let inflight = if i < 10 { i * 1000 } else { 10_000 };
            snaps.push(e.on_send(ms(i), inflight));
            if i >= 10 {
                let j = (i - 10) as usize;
                e.on_packet_delivered(ms(i), &snaps[j], 1000);
                let s = e.finish_ack(None);
                // Packets sent before the first delivery measure from the connection
                // start and so underestimate; once deliveries flow, the rate is exact.
                let s = s.expect("sample");
                assert!(s.rate <= Rate(8_000_000), "packet {j}: {s:?}");
                if j >= 11 {
                    assert_eq!(s.rate, Rate(8_000_000), "packet {j}: {s:?}");
                }
            }
        }
    }

    #[test]
    fn app_limited_flag_clears_after_the_marked_data_is_delivered() {
        let mut e = DeliveryRateEstimator::new(Time(0));
        let a = e.on_send(Time(0), 0);
        e.on_app_limited(1000);
        let b = e.on_send(Time(1_000_000), 1000);
        assert!(!a.app_limited && b.app_limited);
        e.on_packet_delivered(Time(10_000_000), &a, 1000);
        let s = e.finish_ack(None).unwrap();
        assert!(!s.app_limited);
        e.on_packet_delivered(Time(11_000_000), &b, 1000);
        let s = e.finish_ack(None).unwrap();
        assert!(s.app_limited);
        let c = e.on_send(Time(12_000_000), 0);
        assert!(!c.app_limited);
    }

    #[test]
    fn short_intervals_are_discarded_against_min_rtt() {
        let mut e = DeliveryRateEstimator::new(Time(0));
        let a = e.on_send(Time(0), 0);
        e.on_packet_delivered(Time(1_000_000), &a, 1000);
        assert!(e.finish_ack(Some(Dur::from_millis(5))).is_none());
    }
}
