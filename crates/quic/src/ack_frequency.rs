//! Asking the peer for prompt ACKs (draft-ietf-quic-ack-frequency, which quinn 0.11
//! implements: `TransportConfig::ack_frequency_config`).
//!
//! By default a QUIC receiver acknowledges every second ack-eliciting packet and may hold
//! an ACK up to its `max_ack_delay` (25 ms by default, RFC 9000 §18.2). The adapter's RTT
//! sample is taken from the newest packet an ACK covers, so it includes that hold time
//! whenever an odd packet ends a flight or the ACK timer fires first; against a LEDBAT
//! target of 60-100 ms, 25 ms of noise is a large part of the signal.
//!
//! With this request the sender's quinn sends an ACK_FREQUENCY frame once the handshake
//! confirms that the peer supports the extension (a quinn peer always does and advertises
//! `min_ack_delay` = 1 ms). The peer then acknowledges after every `threshold + 1`
//! ack-eliciting packets and holds an ACK at most `max_ack_delay` (clamped by quinn to at
//! least the peer's `min_ack_delay` and at most max(RTT, 25 ms)). To a peer that does not
//! advertise the extension the request is not sent, and its default ACK policy applies.

use std::time::Duration;

use quinn_proto::{AckFrequencyConfig, VarInt};

/// ACK every second ack-eliciting packet at once, hold an odd one at most 1 ms, and
/// acknowledge reordering after 2 packets (quinn's `packet_threshold` 3 minus one, as its
/// documentation recommends).
///
/// Threshold 1 rather than 0 halves the ACKs where the flow's packets arrive less than
/// 1 ms apart: the newest packet of each pair is acknowledged on arrival and the RTT
/// sample carries no hold time. Where they arrive further apart (a full 1500-byte
/// datagram below 12 Mbit/s, or a flow with a small share of a faster link) the 1 ms
/// timer fires first: every packet is acknowledged 1 ms after it arrives, twice the ACKs
/// of TCP with delayed ACKs, and every sample carries the same 1 ms (which the base delay
/// carries too, so the queueing delay does not). On 8/1 Mbit/s that is one ACK of about
/// 62 bytes per packet, 27 % of the reverse link beside TCP's 11.5 % (docs/quic.md, "Why
/// the foreground overshoots less often beside QUIC"). A longer hold would restore
/// TCP's ACK rate there but put up to that hold into the sample of any packet that ends
/// a flight.
pub fn prompt_acks() -> AckFrequencyConfig {
    let mut c = AckFrequencyConfig::default();
    c.ack_eliciting_threshold(VarInt::from_u32(1))
        .max_ack_delay(Some(Duration::from_millis(1)))
        .reordering_threshold(VarInt::from_u32(2));
    c
}
