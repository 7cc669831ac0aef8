//! Retransmission timer: RFC 6298's SRTT and RTTVAR, with Linux's use of the 200 ms
//! minimum (a floor on the variance term, not on the whole RTO).

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
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            min_rtt: None,
            backoff: 0,
        }
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

    /// RTO = SRTT + max(4·RTTVAR, 200 ms), doubled per backoff, capped. Linux
    /// (tcp_rtt_estimator / __tcp_set_rto: rto = srtt + rttvar with rttvar ≥ tcp_rto_min)
    /// keeps 200 ms of headroom above SRTT; RFC 6298's max(1 s or floor, SRTT + 4·RTTVAR)
    /// let a steady sawtooth whose RTT had grown to the floor time out at every peak.
    pub fn rto(&self) -> Dur {
        let base = match self.srtt {
            None => INITIAL_RTO,
            Some(s) => s + GRANULARITY.max(Dur(4 * self.rttvar.0)).max(MIN_RTO),
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
        // RTTVAR 37.5 -> 4·RTTVAR = 150 < 200 -> 100 + 200 = 300 ms.
        assert_eq!(e.rto(), Dur::from_millis(300));
        for _ in 0..40 {
            e.on_sample(Dur::from_millis(201));
        }
        // A steady 201 ms RTT (trang2015's NewReno peak): SRTT ≈ 201 ms, RTTVAR ≈ 0, so
        // the RTO stays 200 ms above it instead of equalling it.
        let rto = e.rto();
        assert!(
            rto >= Dur::from_millis(400) && rto <= Dur::from_millis(402),
            "{rto:?}"
        );
        for _ in 0..200 {
            e.on_sample(Dur::from_millis(10));
        }
        // SRTT → 10 ms (integer ns arithmetic leaves a few ns), 4·RTTVAR → 0: 210 ms.
        let rto = e.rto();
        assert!(
            rto >= Dur::from_millis(210) && rto < Dur::from_micros(210_001),
            "{rto:?}"
        );
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), Dur(rto.0 * 4));
        for _ in 0..30 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), MAX_RTO);
    }
}
