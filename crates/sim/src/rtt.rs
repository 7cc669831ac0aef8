//! Retransmission timer (RFC 6298) with Linux's 200 ms floor.

use scavenger_cc::Dur;

pub const MIN_RTO: Dur = Dur::from_millis(200);
pub const MAX_RTO: Dur = Dur::from_secs(120);
pub const INITIAL_RTO: Dur = Dur::from_secs(1);
/// Clock granularity G of RFC 6298 §2.
const GRANULARITY: Dur = Dur::from_millis(1);

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    min_rtt: Option<Dur>,
    backoff: u32,
}

impl Default for RttEstimator {
    fn default() -> Self {
        RttEstimator { srtt: None, rttvar: Dur::ZERO, min_rtt: None, backoff: 0 }
    }
}

impl RttEstimator {
    /// RFC 6298 §2.2–2.3.
    pub fn on_sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(s) => {
                let diff = s.0.abs_diff(r.0);
                // RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT <- 7/8 SRTT + 1/8 R'
                self.rttvar = Dur((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Dur((7 * s.0 + r.0) / 8));
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.backoff = 0;
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// RTO = max(MIN_RTO, SRTT + max(G, 4·RTTVAR)), doubled per backoff, capped.
    pub fn rto(&self) -> Dur {
        let base = match self.srtt {
            None => INITIAL_RTO,
            Some(s) => (s + GRANULARITY.max(Dur(4 * self.rttvar.0))).max(MIN_RTO),
        };
        Dur(base.0.saturating_mul(1u64 << self.backoff.min(20))).min(MAX_RTO)
    }

    /// RFC 6298 §5.5: back off the timer.
    pub fn on_timeout(&mut self) {
        self.backoff += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_updates_floor_and_backoff() {
        let mut e = RttEstimator::default();
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.on_sample(Dur::from_millis(100));
        // SRTT 100, RTTVAR 50 -> 100 + 200 = 300 ms.
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.on_sample(Dur::from_millis(100));
        // RTTVAR 37.5 -> 100 + 150 = 250 ms.
        assert_eq!(e.rto(), Dur::from_millis(250));
        for _ in 0..20 {
            e.on_sample(Dur::from_millis(10));
        }
        assert_eq!(e.rto(), MIN_RTO);
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), Dur::from_millis(800));
        for _ in 0..30 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), MAX_RTO);
    }
}
