//! RFC 9002's recovery period, kept by the adapter because quinn leaves it to each
//! controller (its NewReno and Cubic compare a loss's send time with their own
//! `recovery_start_time`) and our algorithms expect the datapath to own recovery, as
//! Linux does.
//!
//! RFC 9002 §7.3.2: "The recovery period aims to limit congestion window reduction to
//! once per round trip. Therefore, during a recovery period, the congestion window does
//! not change in response to new losses or increases in the ECN-CE count. A recovery
//! period ends and the sender enters congestion avoidance when a packet sent during the
//! recovery period is acknowledged." Appendix B.6 `InCongestionRecovery(sent_time)` is
//! `sent_time <= congestion_recovery_start_time`.

use scavenger_cc::Time;

/// What the adapter does with one `on_congestion_event` from quinn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Response {
    /// A loss or CE mark of a packet sent before the current recovery period started
    /// (RFC 9002 §7.3.2, B.6): no second reduction.
    Ignore,
    /// The first loss or CE mark of a new episode: the algorithm's `on_congestion`.
    Reduce,
    /// Persistent congestion (RFC 9002 §7.6.2): the algorithm's `on_rto`.
    Collapse,
}

/// Where an ACK frame leaves the recovery period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AckState {
    /// This frame acknowledged a packet sent after the period started: it ended, and
    /// the algorithm's `on_recovery_exit` is due before its `on_ack`.
    pub exit: bool,
    /// The frame's sample is taken in recovery (`AckSample::in_recovery`).
    pub in_recovery: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct RecoveryPeriod {
    /// `congestion_recovery_start_time` (RFC 9002 B.2). Kept after the period ends:
    /// B.6 compares every later loss's send time with it.
    start: Option<Time>,
    /// Between the start and the first ACK of a packet sent after it.
    active: bool,
    /// The period was opened by persistent congestion. Its ACKs are not "in recovery"
    /// for the algorithm, as after a TCP timeout (Linux CA_Loss lets the window
    /// slow-start while the lost flight is resent; the simulator does the same).
    collapsed: bool,
}

impl RecoveryPeriod {
    /// quinn's `on_congestion_event(now, sent, is_persistent_congestion, _)`; `sent` is
    /// the send time of the newest lost packet (or of the newest acknowledged one for ECN).
    pub fn on_congestion_event(&mut self, now: Time, sent: Time, persistent: bool) -> Response {
        if persistent {
            // RFC 9002 §7.6.2: "the sender's congestion window MUST be reduced to the
            // minimum congestion window" whatever the recovery state (B.8 tests
            // persistent congestion after OnCongestionEvent, outside its early return).
            // B.8 then clears the recovery start; we restart the period at `now` instead,
            // so that the rest of the same lost flight, declared in later batches, does
            // not reduce ssthresh again below the collapsed window (docs/quic.md).
            self.start = Some(now);
            self.active = true;
            self.collapsed = true;
            return Response::Collapse;
        }
        if self.start.is_some_and(|s| sent <= s) {
            return Response::Ignore;
        }
        // RFC 9002 B.6 OnCongestionEvent: congestion_recovery_start_time = now.
        self.start = Some(now);
        self.active = true;
        self.collapsed = false;
        Response::Reduce
    }

    /// One ACK frame whose newest newly acknowledged packet was sent at `newest_sent`.
    pub fn on_ack(&mut self, newest_sent: Time) -> AckState {
        let exit = self.active && self.start.is_some_and(|s| newest_sent > s);
        if exit {
            self.active = false;
            self.collapsed = false;
        }
        AckState {
            exit,
            in_recovery: self.active && !self.collapsed,
        }
    }

    #[cfg(test)]
    pub fn active(&self) -> bool {
        self.active
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn one_reduction_per_period_and_exit_on_a_packet_sent_after_its_start() {
        let mut r = RecoveryPeriod::default();
        // Loss at 100 ms of a packet sent at 40 ms: a new period starts at 100 ms.
        assert_eq!(
            r.on_congestion_event(Time(100 * MS), Time(40 * MS), false),
            Response::Reduce
        );
        // A second batch, a packet sent at 90 ms (before 100 ms): same episode.
        assert_eq!(
            r.on_congestion_event(Time(110 * MS), Time(90 * MS), false),
            Response::Ignore
        );
        // ACK of a packet sent at 95 ms: still in recovery.
        assert_eq!(
            r.on_ack(Time(95 * MS)),
            AckState {
                exit: false,
                in_recovery: true
            }
        );
        // ACK of a packet sent at 100 ms exactly: B.6 uses `<=`, still in recovery.
        assert_eq!(
            r.on_ack(Time(100 * MS)),
            AckState {
                exit: false,
                in_recovery: true
            }
        );
        // ACK of a packet sent at 101 ms ends the period.
        assert_eq!(
            r.on_ack(Time(101 * MS)),
            AckState {
                exit: true,
                in_recovery: false
            }
        );
        // A late loss of an old packet (sent at 99 ms) is still part of that episode.
        assert_eq!(
            r.on_congestion_event(Time(130 * MS), Time(99 * MS), false),
            Response::Ignore
        );
        // A loss of a packet sent after the start is a new episode.
        assert_eq!(
            r.on_congestion_event(Time(140 * MS), Time(120 * MS), false),
            Response::Reduce
        );
    }

    #[test]
    fn persistent_congestion_collapses_even_inside_a_period() {
        let mut r = RecoveryPeriod::default();
        assert_eq!(
            r.on_congestion_event(Time(100 * MS), Time(40 * MS), false),
            Response::Reduce
        );
        assert_eq!(
            r.on_congestion_event(Time(900 * MS), Time(90 * MS), true),
            Response::Collapse
        );
        // ACKs after the collapse let the window grow (not in recovery) ...
        assert_eq!(
            r.on_ack(Time(800 * MS)),
            AckState {
                exit: false,
                in_recovery: false
            }
        );
        // ... and losses of the collapsed flight are not a second reduction.
        assert_eq!(
            r.on_congestion_event(Time(950 * MS), Time(850 * MS), false),
            Response::Ignore
        );
        assert_eq!(
            r.on_ack(Time(901 * MS)),
            AckState {
                exit: true,
                in_recovery: false
            }
        );
        assert!(!r.active());
    }
}
