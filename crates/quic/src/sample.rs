//! The one place where a QUIC ACK frame becomes an `AckSample`, through the sample
//! contract shared with the simulator and the kernel agent (scavenger_cc::sample). Every
//! field's meaning on this datapath is stated here, next to how it is computed.

use scavenger_cc::sample::{self, CaState, SenderAck};
use scavenger_cc::{AckSample, Dur, RateSample, Time};

/// What quinn's per-packet `on_ack` calls of one ACK frame add up to, collected until its
/// `on_end_acks`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AckFrame {
    /// Sum of the sizes (UDP payload bytes) of the newly acknowledged ack-eliciting
    /// packets; quinn does not report the others.
    pub bytes: u64,
    /// Send time of the newest of those packets.
    pub newest_sent: Option<Time>,
    pub packets: u32,
}

impl AckFrame {
    pub fn add(&mut self, sent: Time, bytes: u64) {
        self.bytes += bytes;
        self.newest_sent = Some(self.newest_sent.map_or(sent, |n| n.max(sent)));
        self.packets += 1;
    }
}

/// The adapter's state after the frame's packets were taken out of flight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameContext {
    pub now: Time,
    /// quinn's `in_flight` at `on_end_acks`: ack-eliciting (and padded) bytes still
    /// outstanding after this frame, before this frame's loss detection.
    pub in_flight: u64,
    /// quinn's `app_limited` at `on_end_acks`.
    pub app_limited: bool,
    pub in_recovery: bool,
    pub cwnd_limited: bool,
    pub delivered: u64,
    pub rate: Option<RateSample>,
    /// Synthetic byte sequence (QUIC numbers packets, not bytes): see `snd_una`/`snd_nxt`
    /// below.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Current path MTU (quinn's `current_mtu`, UDP payload bytes).
    pub mtu: u64,
}

/// Builds the algorithm's sample for one ACK frame.
pub(crate) fn ack_sample(frame: &AckFrame, cx: &FrameContext) -> AckSample {
    // Linux ca_rtt semantics: now minus the send time of the newest packet this frame
    // newly acknowledges. Raw: it includes the peer's ACK delay (bounded by the
    // max_ack_delay that the ACK-frequency request sets, see `ack_frequency`). QUIC never
    // reuses a packet number, so Karn's rule never withholds a sample.
    let rtt: Option<Dur> = frame.newest_sent.map(|s| cx.now.since(s));
    sample::ack_sample(&SenderAck {
        // Bytes of the ack-eliciting packets this frame newly acknowledges, counted as
        // quinn counts its window: whole UDP payloads (QUIC headers, frames, AEAD tag).
        bytes_acked: frame.bytes,
        rtt,
        // No QUIC stack in Rust carries receive timestamps: the one-way delay is stood in
        // for by the RTT in nanoseconds (docs/quic.md, "Deviations"). Algorithms use only
        // differences and minima of it, so the missing clock offset does not matter; the
        // reverse path's queueing is counted as if it were forward.
        owd: rtt.map(|r| r.nanos() as i64),
        // No echo either; `AckSample::echo_rtt()` falls back to `rtt` (and the shared
        // builder's Karn fallback to the echo never applies: `rtt` is always there).
        ts_echo_rtt: None,
        // Bytes of ack-eliciting packets acknowledged since the connection started.
        delivered: cx.delivered,
        // draft-cheng-iccrg-delivery-rate-estimation over the adapter's per-transmit
        // snapshots (delivery.rs); none when the interval is shorter than min RTT.
        rate: cx.rate,
        // quinn's accounting: outstanding ack-eliciting bytes before and after the frame.
        prior_in_flight: cx.in_flight + frame.bytes,
        bytes_in_flight: cx.in_flight,
        // quinn: "the connection was blocked on outgoing application data prior to
        // receiving these acknowledgements".
        app_limited: cx.app_limited,
        // Inferred (quinn does not report it): a transmit in this round or the last one
        // left less than one MTU of window (controller.rs `CwndRounds`).
        cwnd_limited: cx.cwnd_limited,
        // quinn reports an ECN-CE increase after `on_end_acks`, as
        // `on_congestion_event(.., lost_bytes = 0)`, which the adapter turns into
        // `on_congestion(Ecn)`; the sample itself never carries the mark.
        ece: false,
        // RFC 9002 §7.3.2 recovery period (recovery.rs): the frame's newest packet was
        // sent before the period started. False after persistent congestion, as after a
        // TCP timeout.
        // The shared contract (scavenger_cc::sample::holds_growth) holds growth throughout
        // CA_Recovery, which is what the period is; QUIC has no CA_Loss (persistent
        // congestion collapses the window and ends the period).
        ca_state: if cx.in_recovery {
            CaState::Recovery
        } else {
            CaState::Open
        },
        // No cumulative ACK in QUIC: every frame that newly acknowledges a packet counts
        // as progress (it only matters in CA_Loss, which QUIC does not have).
        data_acked: frame.bytes > 0,
        // Every frame that acknowledges bytes has `data_acked`, so these two never matter.
        cong_control: false,
        reordering: false,
        // Bytes sent and no longer in flight (acknowledged or declared lost), so that
        // "snd_una passed the snd_nxt of a round's start" means that round's data left
        // the network, as with TCP.
        snd_una: cx.snd_una,
        // Bytes handed to quinn's `on_sent` so far (whole transmits).
        snd_nxt: cx.snd_nxt,
        // One full-sized datagram: quinn's windows count UDP payload bytes and grow by
        // one `current_mtu` per step.
        mss: cx.mtu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use scavenger_cc::sample::conformance::{self, Conformed, Step};

    /// The conformance script's ACKs that have a QUIC counterpart (no ECN echo, which
    /// quinn reports apart from the frame; no CA_Loss; nothing newly declared lost, since
    /// QUIC's prior in flight is the frame's bytes plus what is left) give the same
    /// samples as on the other datapaths.
    #[test]
    fn the_adapter_agrees_with_the_conformance_stream_where_the_events_map() {
        let want = conformance::expected();
        let mut compared = 0;
        let acks = conformance::SCRIPT.iter().filter_map(|s| match s {
            Step::Ack(a) => Some(a),
            Step::Rto { .. } => None,
        });
        for (k, a) in acks.enumerate() {
            let maps = !a.ece
                && a.ca_state != CaState::Cwr
                && a.ca_state != CaState::Loss
                && a.prior_in_flight == a.in_flight + a.acked
                && a.rtt_ms.is_some()
                // No cumulative ACK in QUIC: a frame that newly acknowledges packets always
                // counts for the window (RFC 9002 §7.3.3), where TCP's SACK-only ACK in
                // Open or Disorder does not (Linux tcp_may_raise_cwnd).
                && (a.data_acked || a.ca_state == CaState::Recovery);
            if !maps {
                continue;
            }
            let now = Time(a.at_ms * 1_000_000);
            let mss = conformance::MSS;
            let mut frame = AckFrame::default();
            for _ in 0..a.acked {
                frame.add(Time(now.nanos() - a.rtt_ms.unwrap() * 1_000_000), mss);
            }
            let cx = FrameContext {
                now,
                in_flight: a.in_flight * mss,
                app_limited: false,
                in_recovery: a.ca_state == CaState::Recovery,
                cwnd_limited: true,
                delivered: a.delivered * mss,
                rate: None,
                snd_una: a.cum as u64 * mss,
                snd_nxt: a.nxt * mss,
                mtu: mss,
            };
            assert_eq!(
                Conformed::from(&ack_sample(&frame, &cx)),
                want[k],
                "sample {k}"
            );
            compared += 1;
        }
        assert_eq!(
            compared, 6,
            "ACKs at 100, 130, 200, 210, 310 and 1700 ms (not 110 ms: SACK-only in Disorder)"
        );
    }
}
