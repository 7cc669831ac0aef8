//! The receiver-side controller interface: less-than-best-effort control from the
//! receiving end of a TCP-like connection, through the receive window it advertises
//! (RFC 9840, rLEDBAT). Like the sender interface (`api.rs`) it is sans-IO: the datapath
//! calls `on_data` for every data segment that arrives, with `now` and what the segment
//! carried, and reads the window the controller wants with `rwnd()`.
//!
//! The datapath, not the controller, owns what is advertised: it advertises
//! `min(flow-control window, rwnd())` but never moves the right edge of the window
//! (RCV.NXT + RCV.WND) to the left (RFC 9293 §3.8.6.2.2 "shrinking the window", RFC 7323
//! §2.4; RFC 9840 "Avoiding window shrinking"): a smaller desired window takes effect as
//! data drains, see [`non_shrinking_window`].

use crate::registry::{find_in, names_in, Registration};
use crate::units::Time;

/// What one arriving data segment tells the receiver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecvSample {
    /// Sequence number of the segment's first byte (SEG.SEQ).
    pub seq: u64,
    /// Payload bytes (SEG.LEN).
    pub bytes: u64,
    /// The segment carried bytes not received before (in order or not).
    pub new_data: bool,
    /// Next in-order byte expected after this segment was processed (RCV.NXT).
    pub rcv_nxt: u64,
    /// The sender's timestamp (TSval, RFC 7323), in the sender's clock (ns in the
    /// simulator). Only comparisons between TSvals are meaningful.
    pub ts_val: u64,
    /// The timestamp echo (TSecr): one of this receiver's own TSvals, which the sender
    /// took from the latest ACK it had received. `None` before the sender saw any.
    pub ts_ecr: Option<i64>,
    /// This receiver's timestamp clock at the arrival, in the units of `ts_ecr` (ns in
    /// the simulator), so `ts_now - ts_ecr` is a round-trip time (RFC 9840 measures RTT
    /// this way).
    pub ts_now: i64,
    /// Maximum segment size (payload bytes).
    pub mss: u64,
    /// The right edge of the window last advertised (RCV.NXT + RCV.WND of the last ACK
    /// sent, sequence space, bytes): the sender may send up to it. It can lie below the
    /// controller's own window when the flow-control window (Linux's autotuning) is
    /// smaller.
    pub right_edge: u64,
}

/// What a receive-side controller knows when the connection starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecvInit {
    pub now: Time,
    pub mss: u64,
    /// The flow-control window (receive buffer, fc.WND): the advertised window never
    /// exceeds it, so a controller need not grow beyond it.
    pub max_window: u64,
}

/// A receive-window controller (RFC 9840 §4: RLWND).
pub trait ReceiveWindowControl: Send {
    fn name(&self) -> &'static str;
    /// One data segment arrived (every data segment, duplicates included).
    fn on_data(&mut self, now: Time, s: &RecvSample);
    /// The window the controller wants advertised (RLWND), bytes, before the datapath
    /// applies the flow-control window and the no-shrinking rule.
    fn rwnd(&self) -> u64;
    /// Internal variables for time series (name, value).
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// RFC 9840 "Avoiding window shrinking" (Apple XNU `tcp_rledbat_get_rlwin`, written as
/// RLWND.WS = max(RLWND, RLWND.WS − drained bytes)): the window to advertise when the
/// controller wants `desired` bytes, the previous advertisement ended at `last_right_edge`
/// (sequence space, bytes) and the receiver now expects `rcv_nxt`. A larger window is
/// advertised at once; a smaller one only as far as keeps the right edge where it was,
/// i.e. the window closes by exactly the bytes that drained (RCV.NXT's advance).
pub fn non_shrinking_window(desired: u64, last_right_edge: u64, rcv_nxt: u64) -> u64 {
    desired.max(last_right_edge.saturating_sub(rcv_nxt))
}

/// A receive-side controller by name, like [`crate::registry::AlgorithmInfo`].
pub type ReceiverAlgorithmInfo = Registration<dyn ReceiveWindowControl, RecvInit>;

/// All registered receive-side controllers.
pub fn receiver_algorithms() -> &'static [&'static ReceiverAlgorithmInfo] {
    crate::receivers::ALL
}

/// Looks a receive-side controller up by name or alias, case-insensitively.
pub fn find_receiver(name: &str) -> Option<&'static ReceiverAlgorithmInfo> {
    find_in(receiver_algorithms(), name)
}

/// The names a user may choose from, for error messages.
pub fn known_receiver_names() -> String {
    names_in(receiver_algorithms())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamSet;

    #[test]
    fn a_larger_window_is_advertised_at_once_a_smaller_one_as_data_drains() {
        // Last advertisement: RCV.NXT 10 000 + window 20 000 → right edge 30 000.
        // Growth: desired 25 000 at RCV.NXT 12 000 → 25 000 (edge 37 000).
        assert_eq!(non_shrinking_window(25_000, 30_000, 12_000), 25_000);
        // Desired 5 000 at RCV.NXT 12 000: the edge stays at 30 000 → 18 000 (2 000 drained).
        assert_eq!(non_shrinking_window(5_000, 30_000, 12_000), 18_000);
        // Nothing drained (out-of-order data only): the window stays 20 000.
        assert_eq!(non_shrinking_window(5_000, 30_000, 10_000), 20_000);
        // Drained past the desired point: 30 000 − 26 000 = 4 000 < 5 000 → 5 000.
        assert_eq!(non_shrinking_window(5_000, 30_000, 26_000), 5_000);
    }

    #[test]
    fn registry_names_are_unique_and_defaults_fit() {
        let mut seen = std::collections::BTreeSet::new();
        for a in receiver_algorithms() {
            for n in std::iter::once(&a.name).chain(a.aliases.iter()) {
                assert!(
                    seen.insert(n.to_ascii_lowercase()),
                    "duplicate receiver controller name {n}"
                );
            }
            let c = a.instantiate(
                &ParamSet::defaults(a.params),
                RecvInit {
                    now: Time::ZERO,
                    mss: 1000,
                    max_window: 1 << 20,
                },
            );
            assert_eq!(c.name(), a.name);
            assert!(c.rwnd() >= 1000);
            for p in a.params {
                assert!(
                    !p.source.is_empty() && !p.doc.is_empty(),
                    "{}: parameter {} lacks doc or source",
                    a.name,
                    p.name
                );
            }
        }
        assert!(find_receiver("RLEDBAT").is_some_and(|a| a.name == "rledbat"));
        assert!(find_receiver("no-such-controller").is_none());
    }
}
