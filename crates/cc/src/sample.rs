//! The one place where Linux-like sender state becomes an `AckSample`, shared by every
//! datapath: the simulator's sender (crates/sim/src/sender.rs), the kernel agent's
//! translation of a shim record (crates/kernel/src/agent/translate.rs) and the QUIC
//! adapter (crates/quic/src/sample.rs). Each datapath states its state after processing an
//! ACK in Linux's terms (`SenderAck`); the meaning of every sample field that depends on
//! recovery state is decided here, once, by Linux 6.x (net/ipv4/tcp_input.c). The
//! conformance script in `conformance` is the test all three pass.

pub mod conformance;

use crate::api::{AckSample, RateSample};
use crate::units::{Dur, Time};

/// Linux `enum tcp_ca_state` (include/net/tcp.h), the sender's congestion state after
/// `tcp_fastretrans_alert` ran for this ACK (it runs before `tcp_cong_control` in
/// `tcp_ack`, so the ACK that ends recovery already sees `Open`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open = 0,
    /// SACKs or duplicate ACKs seen, no loss inferred yet.
    Disorder = 1,
    /// Window reduction after an ECN echo (`tcp_enter_cwr`), until SND.UNA passes the
    /// high_seq of the reduction.
    Cwr = 2,
    /// Fast recovery (`tcp_enter_recovery`).
    Recovery = 3,
    /// RTO recovery (`tcp_enter_loss`).
    Loss = 4,
}

impl CaState {
    /// The state from Linux's numeric `icsk_ca_state`; `None` for an unknown value.
    pub fn from_linux(v: u8) -> Option<CaState> {
        Some(match v {
            0 => CaState::Open,
            1 => CaState::Disorder,
            2 => CaState::Cwr,
            3 => CaState::Recovery,
            4 => CaState::Loss,
            _ => return None,
        })
    }
}

/// Linux `tcp_in_cwnd_reduction` || !`tcp_may_raise_cwnd`, restricted to recovery state:
/// whether `tcp_cong_control` holds `cong_avoid` back on this ACK because of the sender's
/// congestion state.
/// - CWR and Recovery: `tcp_in_cwnd_reduction` is true, the stack runs
///   `tcp_cwnd_reduction` (PRR) instead of `cong_avoid`.
/// - Loss: `cong_avoid` runs when `tcp_may_raise_cwnd` holds, i.e. the ACK has
///   `FLAG_DATA_ACKED` (it advanced SND.UNA over new data), so the window slow-starts while
///   the lost flight is retransmitted (RFC 5681 §3.1); an ACK that only SACKs does not.
/// - Open and Disorder: never held for state (an ACK without `FLAG_DATA_ACKED` also skips
///   `cong_avoid` on Linux, but that is carried by `bytes_acked`, not by this flag).
pub fn holds_growth(state: CaState, data_acked: bool) -> bool {
    match state {
        CaState::Open | CaState::Disorder => false,
        CaState::Cwr | CaState::Recovery => true,
        CaState::Loss => !data_acked,
    }
}

/// Linux `ca_rtt_us` (`tcp_clean_rtx_queue`): now minus the send time of the newest
/// segment this ACK newly SACKs, else of the newest it newly acknowledges cumulatively.
/// The caller passes `newest_cum = None` when the cumulative part covers a retransmission
/// (Karn's rule, `FLAG_RETRANS_DATA_ACKED`) or nothing.
pub fn ca_rtt(now: Time, newest_sacked: Option<Time>, newest_cum: Option<Time>) -> Option<Dur> {
    newest_sacked.or(newest_cum).map(|t| now.since(t))
}

/// The sender's view of one ACK after processing it, in bytes, as Linux has it when it
/// calls `cong_control` / `cong_avoid`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderAck {
    /// Bytes newly acknowledged, cumulatively or by SACK (Linux `acked_sacked` · mss).
    pub bytes_acked: u64,
    /// `ca_rtt_us` from send times (see `ca_rtt`); `ack_sample` falls back to
    /// `ts_echo_rtt` as Linux does.
    pub rtt: Option<Dur>,
    /// TSval − TSecr (see `AckSample::owd`).
    pub owd: Option<i64>,
    /// Now minus TSecr (see `AckSample::ts_echo_rtt`).
    pub ts_echo_rtt: Option<Dur>,
    /// Bytes delivered since the connection started (`tp->delivered` · mss).
    pub delivered: u64,
    pub rate: Option<RateSample>,
    pub prior_in_flight: u64,
    pub bytes_in_flight: u64,
    pub app_limited: bool,
    pub cwnd_limited: bool,
    /// The ACK carried ECE and the connection negotiated ECN (Linux `FLAG_ECE`).
    pub ece: bool,
    /// Congestion state after this ACK's state processing.
    pub ca_state: CaState,
    /// The ACK advanced SND.UNA over new data (Linux `FLAG_DATA_ACKED`).
    pub data_acked: bool,
    /// The algorithm sets the window on every ACK itself (`CongestionControl::cong_control`,
    /// a Linux `tcp_congestion_ops` with `cong_control`, BBR): `tcp_cong_control` hands
    /// it every ACK, whatever `tcp_may_raise_cwnd` says.
    pub cong_control: bool,
    /// Reordering was seen on the connection (Linux `tp->reordering` above
    /// `net.ipv4.tcp_reordering`, 3): then an ACK that only SACKs may raise the window
    /// too (`tcp_may_raise_cwnd`: `FLAG_FORWARD_PROGRESS`).
    pub reordering: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub mss: u64,
}

/// Linux `tcp_may_raise_cwnd` outside CWR, Recovery and Loss (which `holds_growth`
/// covers): `tcp_cong_control` calls `cong_avoid` in Open and Disorder only for an ACK that
/// advanced SND.UNA over data (`FLAG_DATA_ACKED`), or, once reordering was seen, for any
/// forward progress. An ACK that only SACKs gives the window nothing, and the segments it
/// delivered are not counted for growth later (`acked_sacked` counts each segment once),
/// so the sample carries no acknowledged bytes; a `cong_control` algorithm sees them all.
/// At a slow-start overshoot this is the window at the loss: the SACK-only ACKs between
/// the first hole and DupThresh add nothing
/// (docs/deviations/ack-sample.md#ack-sample-may-raise).
pub fn raises_cwnd(s: &SenderAck) -> bool {
    !matches!(s.ca_state, CaState::Open | CaState::Disorder)
        || s.cong_control
        || s.data_acked
        || s.reordering
}

/// The algorithm's sample for one ACK.
pub fn ack_sample(s: &SenderAck) -> AckSample {
    AckSample {
        bytes_acked: if raises_cwnd(s) { s.bytes_acked } else { 0 },
        // Linux tcp_ack_update_rtt: when neither the cumulative part (Karn) nor a SACK gives
        // a send-time sample and the ACK advanced SND.UNA (FLAG_ACKED), the timestamp RTT
        // (tcp_rtt_tsopt_us) becomes ca_rtt_us and with it rs->rtt_us.
        rtt: s.rtt.or(if s.data_acked { s.ts_echo_rtt } else { None }),
        owd: s.owd,
        ts_echo_rtt: s.ts_echo_rtt,
        delivered: s.delivered,
        rate: s.rate,
        prior_in_flight: s.prior_in_flight,
        bytes_in_flight: s.bytes_in_flight,
        app_limited: s.app_limited,
        cwnd_limited: s.cwnd_limited,
        // Every ACK with FLAG_ECE, whether or not it started a reduction (a kernel module
        // sees the flag on each one in `in_ack_event`).
        ecn_ce: s.ece,
        in_recovery: holds_growth(s.ca_state, s.data_acked),
        snd_una: s.snd_una,
        snd_nxt: s.snd_nxt,
        mss: s.mss,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_is_held_in_cwr_and_recovery_and_in_loss_without_cumulative_progress() {
        use CaState::*;
        let held: Vec<(CaState, bool, bool)> = [Open, Disorder, Cwr, Recovery, Loss]
            .iter()
            .flat_map(|&s| [(s, false), (s, true)])
            .map(|(s, d)| (s, d, holds_growth(s, d)))
            .collect();
        assert_eq!(
            held,
            vec![
                (Open, false, false),
                (Open, true, false),
                (Disorder, false, false),
                (Disorder, true, false),
                (Cwr, false, true),
                (Cwr, true, true),
                (Recovery, false, true),
                (Recovery, true, true),
                (Loss, false, true),
                (Loss, true, false),
            ]
        );
    }

    #[test]
    fn linux_states_map_by_number() {
        assert_eq!(CaState::from_linux(2), Some(CaState::Cwr));
        assert_eq!(CaState::from_linux(4), Some(CaState::Loss));
        assert_eq!(CaState::from_linux(5), None);
        assert!(CaState::Cwr < CaState::Recovery);
    }

    #[test]
    fn ca_rtt_prefers_the_newest_sacked_segment() {
        let ms = |m: u64| Time(m * 1_000_000);
        assert_eq!(
            ca_rtt(ms(100), Some(ms(40)), Some(ms(10))),
            Some(Dur::from_millis(60))
        );
        assert_eq!(
            ca_rtt(ms(100), None, Some(ms(10))),
            Some(Dur::from_millis(90))
        );
        assert_eq!(ca_rtt(ms(100), None, None), None);
    }

    #[test]
    fn an_ack_that_only_sacks_in_open_or_disorder_gives_the_window_nothing() {
        // The script's first SACK-only ACK: segment 3 SACKed above the hole at 2, Disorder,
        // one segment delivered, no FLAG_DATA_ACKED.
        let sack_only = conformance::SCRIPT
            .iter()
            .find_map(|s| match s {
                conformance::Step::Ack(a) if a.ca_state == CaState::Disorder && !a.data_acked => {
                    Some(a.sender_ack())
                }
                _ => None,
            })
            .unwrap();
        assert_eq!(sack_only.bytes_acked, 1000);
        // tcp_may_raise_cwnd: no cong_avoid, so no bytes for the window.
        assert_eq!(ack_sample(&sack_only).bytes_acked, 0);
        // The same ACK in Open (a duplicate ACK before any SACK) too.
        let open = SenderAck {
            ca_state: CaState::Open,
            ..sack_only
        };
        assert_eq!(ack_sample(&open).bytes_acked, 0);
        // FLAG_DATA_ACKED, reordering seen (FLAG_FORWARD_PROGRESS) or a cong_control
        // algorithm: the bytes count.
        for s in [
            SenderAck {
                data_acked: true,
                ..sack_only
            },
            SenderAck {
                reordering: true,
                ..sack_only
            },
            SenderAck {
                cong_control: true,
                ..sack_only
            },
        ] {
            assert_eq!(ack_sample(&s).bytes_acked, 1000, "{s:?}");
        }
        // In Recovery the bytes stay (PRR and cong_control algorithms count them; growth
        // is held by `in_recovery`).
        let rec = SenderAck {
            ca_state: CaState::Recovery,
            ..sack_only
        };
        assert_eq!(ack_sample(&rec).bytes_acked, 1000);
        assert!(ack_sample(&rec).in_recovery);
    }

    #[test]
    fn a_karn_withheld_rtt_falls_back_to_the_timestamp_echo_on_cumulative_progress() {
        let base = conformance::SCRIPT
            .iter()
            .find_map(|s| match s {
                conformance::Step::Ack(a) => Some(a.sender_ack()),
                _ => None,
            })
            .unwrap();
        let echo = Some(Dur::from_millis(80));
        let s = SenderAck {
            rtt: None,
            ts_echo_rtt: echo,
            ..base
        };
        assert_eq!(ack_sample(&s).rtt, echo, "FLAG_ACKED: tcp_rtt_tsopt_us");
        let s = SenderAck {
            data_acked: false,
            ..s
        };
        assert_eq!(ack_sample(&s).rtt, None, "SACK-only or duplicate ACK: none");
        let s = SenderAck {
            rtt: Some(Dur::from_millis(50)),
            ..s
        };
        assert_eq!(ack_sample(&s).rtt, Some(Dur::from_millis(50)));
    }
}
