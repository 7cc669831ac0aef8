//! Receive-rate estimation at the sender from the receiver's TCP timestamps, as PropRate
//! and EvaRate do it (Wang 2018 §4.4.1): once per round trip a "signal packet" is
//! designated; when its ACK arrives, the bytes delivered since the previous signal ACK
//! (`B_curr`, cumulative plus SACKed bytes, so that duplicate ACKs count what they
//! report) divided by the receiver-clock time between the two ACKs (`D_curr`) is the
//! instantaneous receive rate `ρ̂ = B_curr / D_curr`.
//!
//! The interface gives no raw TSval, only the one-way delay sample
//! `owd = TSval − TSecr` (`AckSample::owd`). With an RTT sample from the same ACK,
//! `TSecr = now − rtt` exactly, so the receiver's clock when it sent the ACK is
//! `R = now − rtt + owd`. An ACK without an RTT sample (Karn's rule) reuses the last
//! known ACK-path delay `now − R`. All values carry the unknown clock offset, which
//! cancels in the differences `D_curr` (see docs/deviations/evarate.md#evarate-receive-rate).

use crate::api::AckSample;
use crate::units::{Dur, Time};

/// Reconstructs the receiver's clock at ACK send from `owd`, `rtt` and `now`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverClock {
    /// Last measured `now − R` (ACK path delay plus the clock offset), ns.
    ack_path: Option<i64>,
}

impl ReceiverClock {
    /// The receiver's clock (ns, with its offset) when it sent this ACK; `None` before
    /// the first ACK that carries both a timestamp echo and an RTT sample.
    pub fn on_ack(&mut self, now: Time, ack: &AckSample) -> Option<i64> {
        let owd = ack.owd?;
        let now_ns = now.nanos() as i64;
        // The echo RTT, not `ack.rtt` (Linux's sample of the newest segment): TSecr is
        // the echoed segment's send time, now − echo RTT, and TSval = TSecr + owd.
        if let Some(rtt) = ack.echo_rtt() {
            let r = now_ns - rtt.nanos() as i64 + owd;
            self.ack_path = Some(now_ns - r);
            return Some(r);
        }
        self.ack_path.map(|p| now_ns - p)
    }
}

/// One receive-rate sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReceiveRateSample {
    /// `B_curr`: bytes delivered between the two signal ACKs.
    pub bytes: u64,
    /// `D_curr`: receiver-clock time between them.
    pub interval: Dur,
    /// `ρ̂` in bytes per second.
    pub bytes_per_sec: f64,
}

/// The signal-packet receive-rate sampler of Wang 2018 §4.4.1.
#[derive(Clone, Debug, Default)]
pub struct ReceiveRateSampler {
    /// Receiver timestamp granularity in ns (0: use the datapath's resolution).
    granularity: u64,
    clock: ReceiverClock,
    /// Receiver clock and delivered count at the previous signal ACK.
    mark: Option<(i64, u64)>,
    /// The signal packet: the first byte sent after the previous signal ACK. Its ACK
    /// (cumulative ACK beyond it) ends the round.
    signal_seq: u64,
}

impl ReceiveRateSampler {
    pub fn new(granularity: Dur) -> Self {
        ReceiveRateSampler {
            granularity: granularity.nanos(),
            ..Default::default()
        }
    }

    /// Forgets the current round (after an RTO); the next ACK starts a new one.
    pub fn reset(&mut self) {
        self.mark = None;
    }

    /// Feeds one ACK; returns a sample when it acknowledges the signal packet.
    pub fn on_ack(&mut self, now: Time, ack: &AckSample) -> Option<ReceiveRateSample> {
        let mut r = self.clock.on_ack(now, ack)?;
        if self.granularity > 0 {
            // A receiver clock that ticks every `granularity` ns (Wang 2018: 4 ms).
            r = r.div_euclid(self.granularity as i64) * self.granularity as i64;
        }
        let Some((r0, d0)) = self.mark else {
            self.mark = Some((r, ack.delivered));
            self.signal_seq = ack.snd_nxt;
            return None;
        };
        if ack.snd_una <= self.signal_seq {
            return None;
        }
        self.mark = Some((r, ack.delivered));
        self.signal_seq = ack.snd_nxt;
        let d = r - r0;
        let bytes = ack.delivered.saturating_sub(d0);
        if d <= 0 || bytes == 0 {
            return None;
        }
        let interval = Dur(d as u64);
        Some(ReceiveRateSample {
            bytes,
            interval,
            bytes_per_sec: bytes as f64 / interval.secs_f64(),
        })
    }
}

/// Bytes marked lost so far, inferred from what the interface reports: every byte sent
/// (`on_sent`, retransmissions included) is in flight, delivered (once per segment),
/// or was taken out of flight by loss marking (RFC 6675 / RTO). So
/// `lost = sent − bytes_in_flight − delivered`, which nets out spurious marks whose
/// original later arrives. Linux keeps this count as `tp->lost`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LostBytes {
    sent: u64,
}

impl LostBytes {
    pub fn on_sent(&mut self, bytes: u64) {
        self.sent += bytes;
    }
    pub fn sent(&self) -> u64 {
        self.sent
    }
    /// Total bytes marked lost as of this ACK.
    pub fn lost(&self, ack: &AckSample) -> u64 {
        self.sent
            .saturating_sub(ack.bytes_in_flight + ack.delivered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(
        now_ms: u64,
        rtt_ms: Option<u64>,
        owd_ms: i64,
        delivered: u64,
        una: u64,
        nxt: u64,
    ) -> (Time, AckSample) {
        let a = AckSample {
            rtt: rtt_ms.map(Dur::from_millis),
            owd: Some(owd_ms * 1_000_000 + 7_000_000_000),
            delivered,
            snd_una: una,
            snd_nxt: nxt,
            ..AckSample::empty(1000)
        };
        (Time(now_ms * 1_000_000), a)
    }

    #[test]
    fn receiver_clock_from_owd_and_rtt() {
        let mut c = ReceiverClock::default();
        // now 100 ms, rtt 40 ms, owd 25 ms + 7 s offset: R = 100 − 40 + 25 + 7000 ms.
        let (t, a) = ack(100, Some(40), 25, 0, 0, 0);
        assert_eq!(c.on_ack(t, &a), Some(7_085_000_000));
        // No RTT sample: reuse the ACK path now − R = 100 − 7085 ms → R = 130 − (−6985) ms.
        let (t, a) = ack(130, None, 0, 0, 0, 0);
        assert_eq!(c.on_ack(t, &a), Some(7_115_000_000));
        // No timestamp at all: nothing.
        let a = AckSample::empty(1000);
        assert_eq!(c.on_ack(Time(0), &a), None);
        // The echo, not the newest segment's RTT, dates TSecr: a delayed ACK at 200 ms
        // whose echoed segment left at 150 ms (echo RTT 50 ms) while the newest left at
        // 160 ms (rtt 40 ms): R = 200 − 50 + 25 + 7000 ms.
        let (t, mut a) = ack(200, Some(40), 25, 0, 0, 0);
        a.ts_echo_rtt = Some(Dur::from_millis(50));
        assert_eq!(c.on_ack(t, &a), Some(7_175_000_000));
    }

    #[test]
    fn one_sample_per_signal_packet() {
        let mut s = ReceiveRateSampler::new(Dur::ZERO);
        // First ACK: mark R = 100 − 40 + 20 = 80 ms, delivered 2000, signal = 10000.
        let (t, a) = ack(100, Some(40), 20, 2000, 2000, 10_000);
        assert_eq!(s.on_ack(t, &a), None);
        // Not yet past the signal packet.
        let (t, a) = ack(104, Some(40), 20, 6000, 6000, 14_000);
        assert_eq!(s.on_ack(t, &a), None);
        // una 10001 > 10000: R = 110 − 40 + 20 = 90 ms; B = 12000 − 2000 = 10000 bytes in
        // D = 10 ms → 1e6 bytes/s.
        let (t, a) = ack(110, Some(40), 20, 12_000, 10_001, 20_000);
        let x = s.on_ack(t, &a).unwrap();
        assert_eq!((x.bytes, x.interval), (10_000, Dur::from_millis(10)));
        assert!((x.bytes_per_sec - 1e6).abs() < 1e-6);
        // Next signal is 20000; a 4 ms receiver clock floors R = 150−40+21 = 131 → 128 ms
        // and the previous mark stays 90 ms (set unquantised): D = 38 ms, B = 8000.
        s.granularity = 4_000_000;
        let (t, a) = ack(150, Some(40), 21, 20_000, 20_001, 30_000);
        let x = s.on_ack(t, &a).unwrap();
        assert_eq!((x.bytes, x.interval), (8000, Dur::from_millis(38)));
    }

    #[test]
    fn lost_bytes_are_sent_minus_in_flight_minus_delivered() {
        let mut l = LostBytes::default();
        for _ in 0..10 {
            l.on_sent(1000);
        }
        let a = AckSample {
            bytes_in_flight: 5000,
            delivered: 3000,
            ..AckSample::empty(1000)
        };
        assert_eq!(l.lost(&a), 2000);
        // A retransmission puts one back in flight: still two marked lost.
        l.on_sent(1000);
        let a = AckSample {
            bytes_in_flight: 6000,
            delivered: 3000,
            ..AckSample::empty(1000)
        };
        assert_eq!(l.lost(&a), 2000);
    }
}
