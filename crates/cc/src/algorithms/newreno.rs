//! NewReno (RFC 5681 window rules, RFC 6582 recovery in the datapath), as Linux `reno`:
//! slow start and one segment per RTT of additive increase, ssthresh = max(cwnd/2, 2 MSS)
//! on loss or ECN, cwnd = 1 MSS after a timeout.

use crate::api::*;
use crate::params::{ParamSet, ParamSpec};
use crate::registry::AlgorithmInfo;
use crate::reno::RenoWindow;
use crate::units::Time;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "newreno",
    aliases: &["reno"],
    summary: "NewReno: slow start, AIMD with beta 1/2 (as Linux reno)",
    source: "RFC 5681 §3.1, RFC 6582; Linux net/ipv4/tcp_cong.c",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[];

fn build(_p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    Box::new(NewReno::new(init.initial_cwnd))
}

#[derive(Clone, Debug)]
pub struct NewReno {
    w: RenoWindow,
}

impl NewReno {
    pub fn new(initial_cwnd: u64) -> NewReno {
        NewReno {
            w: RenoWindow::new(initial_cwnd),
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        // Linux calls cong_avoid only in the Open/Disorder states and when cwnd-limited.
        if ack.in_recovery || !ack.cwnd_limited {
            return;
        }
        self.w.reno_on_ack(ack.bytes_acked, ack.mss);
    }
    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        // RFC 5681 eq. (4) with Linux's choice of cwnd instead of FlightSize.
        self.w.multiplicative_decrease(0.5, ev.mss);
    }
    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.w.on_timeout(ev.mss);
    }
    fn cwnd(&self) -> u64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64) -> AckSample {
        AckSample {
            bytes_acked: bytes,
            ..AckSample::empty(1448)
        }
    }

    #[test]
    fn doubles_per_round_in_slow_start_then_halves_on_loss() {
        let mut r = NewReno::new(10 * 1448);
        // One round trip: ten segments acknowledged, one ACK each.
        for _ in 0..10 {
            r.on_ack(Time(0), &ack(1448));
        }
        assert_eq!(r.cwnd(), 20 * 1448);
        r.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 20 * 1448,
                bytes_lost: 1448,
                mss: 1448,
            },
        );
        assert_eq!((r.cwnd(), r.ssthresh()), (10 * 1448, 10 * 1448));
        // No growth while in recovery.
        r.on_ack(
            Time(0),
            &AckSample {
                in_recovery: true,
                ..ack(1448)
            },
        );
        assert_eq!(r.cwnd(), 10 * 1448);
        // Congestion avoidance: +1 segment after a full window of ACKs.
        for _ in 0..10 {
            r.on_ack(Time(0), &ack(1448));
        }
        assert_eq!(r.cwnd(), 11 * 1448);
        r.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: 1448,
            },
        );
        assert_eq!((r.cwnd(), r.ssthresh()), (1448, 5 * 1448 + 724));
    }
}
