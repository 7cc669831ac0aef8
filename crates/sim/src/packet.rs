//! The simulator's packet: a fixed-size, payload-free value copied through queues, so
//! the steady state allocates nothing per packet.

use scavenger_net::WirePacket;

/// Header bytes counted on every data packet and ACK: IPv4 (20) + TCP (20) + the
/// timestamp option padded to 12.
pub const DEFAULT_HEADER_BYTES: u32 = 52;

/// `Packet::rx_tsval` of a data packet sent before the sender saw any ACK.
pub const NO_TS_ECHO: i64 = i64::MIN;

/// `Packet::hs`: not a handshake packet.
pub const HS_NONE: u8 = 0;
/// `Packet::hs`: a SYN (a `Kind::Data` packet from the client, no payload).
pub const HS_SYN: u8 = 1;
/// `Packet::hs`: a SYN-ACK (a `Kind::Ack` packet from the server).
pub const HS_SYNACK: u8 = 2;
/// `Packet::hs`: the client's ACK of the SYN-ACK (a `Kind::Data` packet, no payload).
pub const HS_ACK: u8 = 3;

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
    /// Echoed sender timestamp (TSecr).
    pub ts_ecr: u64,
    /// The receiver's timestamp clock (ns, including the clock offset). On an ACK: the
    /// receiver's TSval. On a data packet: the TSecr, i.e. the latest receiver TSval the
    /// sender had seen (RFC 7323 TS.Recent), `NO_TS_ECHO` before any; rLEDBAT (RFC 9840)
    /// measures the round trip from it.
    pub rx_tsval: i64,
    /// ACK: the advertised receive window in bytes from `ack` (window scaling is not
    /// modelled: full byte resolution).
    pub wnd: u32,
    // ECN (RFC 3168).
    /// IP ECN field ECT(0): the data packet's flow negotiated ECN.
    pub ect: bool,
    /// IP ECN field CE: a router marked the packet.
    pub ce: bool,
    /// TCP ECE flag on an ACK: the receiver echoes a CE mark.
    pub ece: bool,
    /// TCP CWR flag on a data packet: the sender reduced its window.
    pub cwr: bool,
    /// TCP PSH flag on a data packet: the last segment of what the application wrote
    /// before it blocked (`crate::sender`, docs/deviations/simulator.md#sim-psh); the Linux
    /// receiver ACKs such a segment at once (`crate::delack`).
    pub psh: bool,
    /// Which packet of the three-way handshake this is (`HS_SYN`, `HS_SYNACK`, `HS_ACK`),
    /// `HS_NONE` for every other (`crate::handshake`).
    pub hs: u8,
}

impl WirePacket for Packet {
    #[inline]
    fn wire_bytes(&self) -> u32 {
        self.wire
    }
    #[inline]
    fn flow_key(&self) -> u64 {
        // Data and ACKs of a flow travel in opposite directions, so the flow index alone
        // identifies a queue's flow (a 5-tuple in a real FQ-CoDel).
        self.flow as u64
    }
    #[inline]
    fn ecn_capable(&self) -> bool {
        self.ect || self.ce
    }
    #[inline]
    fn set_ce(&mut self) {
        self.ce = true;
    }
}

impl Packet {
    pub fn data(flow: u32, seg: u32, len: u32, header: u32, tsval: u64, retrans: bool) -> Packet {
        Packet {
            flow,
            kind: Kind::Data,
            wire: len + header,
            seg,
            len,
            tsval,
            retrans,
            ack: 0,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            nsack: 0,
            ts_ecr: 0,
            rx_tsval: 0,
            wnd: 0,
            ect: false,
            ce: false,
            ece: false,
            cwr: false,
            psh: false,
            hs: HS_NONE,
        }
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
