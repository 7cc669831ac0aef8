//! Test helpers shared by the variants' unit tests.

use super::*;

pub const MSS: u64 = 1000;

pub fn cfg_with(f: impl FnOnce(&mut CdgConfig)) -> CdgConfig {
    let mut c = CdgConfig::paper();
    f(&mut c);
    c
}

pub fn new_cdg(cfg: CdgConfig, iw_segments: u64, seed: u64) -> Cdg {
    Cdg::new(
        &cfg,
        CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: iw_segments * MSS,
            rng: Rng::new(seed),
        },
    )
}

/// Drives RTT intervals: every sample is one ACK; the last ACK of a call passes
/// `rtt_seq` and closes the interval, the others do not.
pub struct Harness {
    pub boundary: u64,
    pub now: u64,
}

impl Harness {
    pub fn new() -> Harness {
        Harness {
            boundary: 0,
            now: 0,
        }
    }
    pub fn interval_with(
        &mut self,
        c: &mut Cdg,
        samples_ms: &[u64],
        bytes_acked: u64,
        in_recovery: bool,
    ) {
        for (i, &ms) in samples_ms.iter().enumerate() {
            let last = i + 1 == samples_ms.len();
            let (una, nxt) = if last {
                (self.boundary + MSS, self.boundary + 20 * MSS)
            } else {
                (self.boundary, self.boundary)
            };
            self.now += 1_000_000;
            let ack = AckSample {
                bytes_acked,
                rtt: Some(Dur::from_millis(ms)),
                in_recovery,
                snd_una: una,
                snd_nxt: nxt,
                ..AckSample::empty(MSS)
            };
            c.on_ack(Time(self.now), &ack);
            if last {
                self.boundary = nxt;
            }
        }
    }
    pub fn interval(&mut self, c: &mut Cdg, samples_ms: &[u64]) {
        self.interval_with(c, samples_ms, MSS, false);
    }
    /// ACKs inside the current interval only (none closes it).
    pub fn open_acks(&mut self, c: &mut Cdg, samples_ms: &[u64]) {
        for &ms in samples_ms {
            self.now += 1_000_000;
            let ack = AckSample {
                bytes_acked: MSS,
                rtt: Some(Dur::from_millis(ms)),
                snd_una: self.boundary,
                snd_nxt: self.boundary,
                ..AckSample::empty(MSS)
            };
            c.on_ack(Time(self.now), &ack);
        }
    }
}

pub fn loss() -> CongestionEvent {
    CongestionEvent {
        kind: CongestionKind::Loss,
        bytes_in_flight: 0,
        bytes_lost: MSS,
        mss: MSS,
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}
