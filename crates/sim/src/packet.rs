//! The simulator's packet: a fixed-size, payload-free value copied through queues, so
//! the steady state allocates nothing per packet.

use scavenger_net::WirePacket;

/// Header bytes counted on every data packet and ACK: IPv4 (20) + TCP (20) + the
/// timestamp option padded to 12.
pub const DEFAULT_HEADER_BYTES: u32 = 52;

/// Up to three SACK blocks fit next to the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Data,
    Ack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    pub flow: u32,
    pub kind: Kind,
    pub wire: u32,
    // Data fields.
    /// Segment index (sequence number in units of segments).
    pub seg: u32,
    /// Payload bytes.
    pub len: u32,
    /// Sender's timestamp (TSval) in ns of the sender's clock.
    pub tsval: u64,
    pub retrans: bool,
    // ACK fields.
    /// Next expected segment (cumulative ACK).
    pub ack: u32,
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
    pub nsack: u8,
    /// Echoed sender timestamp (TSecr) and whether the echoed segment was a retransmission.
    pub ts_ecr: u64,
    pub ecr_retrans: bool,
    /// Receiver's clock when it sent the ACK (its TSval), ns, including the clock offset.
    pub rx_tsval: i64,
}

impl WirePacket for Packet {
    #[inline]
    fn wire_bytes(&self) -> u32 {
        self.wire
    }
}

impl Packet {
    pub fn data(flow: u32, seg: u32, len: u32, header: u32, tsval: u64, retrans: bool) -> Packet {
        Packet { flow, kind: Kind::Data, wire: len + header, seg, len, tsval, retrans, ack: 0, sack: [(0, 0); MAX_SACK_BLOCKS], nsack: 0, ts_ecr: 0, ecr_retrans: false, rx_tsval: 0 }
    }

    /// ACK size: headers plus the SACK option (2 bytes + 8 per block, padded with two NOPs).
    pub fn ack_wire_bytes(header: u32, nsack: usize) -> u32 {
        if nsack == 0 {
            header
        } else {
            header + 4 + 8 * nsack as u32
        }
    }
}
