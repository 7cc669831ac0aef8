//! Raw IPv4 packets as the link emulator sees them on its TUN devices (IFF_NO_PI: the
//! buffer starts with the IP header). The net layer needs a size, a flow key and the ECN
//! field; everything here is parsed once when the packet is read.

use scavenger_cc::Time;
use scavenger_net::WirePacket;

/// The 5-tuple of an IPv4 packet; ports are zero for protocols without them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// The 5-tuple of `buf` if it is a well-formed IPv4 header (RFC 791 §3.1); `None` for
/// anything else (IPv6, truncated). Ports are read only from the first fragment.
pub fn parse_ipv4(buf: &[u8]) -> Option<FiveTuple> {
    if buf.len() < 20 || buf[0] >> 4 != 4 {
        return None;
    }
    let ihl = (buf[0] & 0x0f) as usize * 4;
    if ihl < 20 || buf.len() < ihl {
        return None;
    }
    let proto = buf[9];
    let frag_offset = u16::from_be_bytes([buf[6], buf[7]]) & 0x1fff;
    let (sport, dport) =
        if (proto == PROTO_TCP || proto == PROTO_UDP) && frag_offset == 0 && buf.len() >= ihl + 4 {
            (
                u16::from_be_bytes([buf[ihl], buf[ihl + 1]]),
                u16::from_be_bytes([buf[ihl + 2], buf[ihl + 3]]),
            )
        } else {
            (0, 0)
        };
    Some(FiveTuple {
        src: [buf[12], buf[13], buf[14], buf[15]],
        dst: [buf[16], buf[17], buf[18], buf[19]],
        proto,
        sport,
        dport,
    })
}

/// A 64-bit hash of the 5-tuple for flow-queueing (RFC 8290 §4.1.1 hashes the 5-tuple;
/// FQ-CoDel adds its own perturbation on top). splitmix64 finaliser: cheap, and every
/// input bit affects every output bit.
pub fn flow_hash(t: &FiveTuple) -> u64 {
    let a = u64::from(u32::from_be_bytes(t.src)) << 32 | u64::from(u32::from_be_bytes(t.dst));
    let b = u64::from(t.sport) << 32 | u64::from(t.dport) << 16 | u64::from(t.proto);
    mix(a ^ mix(b.wrapping_add(0x9e37_79b9_7f4a_7c15)))
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The Internet checksum of a header (RFC 1071): the one's complement of the one's
/// complement sum of its 16-bit words (the checksum field included as it is).
pub fn header_checksum(hdr: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for w in hdr.chunks(2) {
        sum += u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Sets the ECN field of an IPv4 header to CE (RFC 3168 §5: both ECN bits set) and
/// updates the header checksum incrementally, HC' = ~(~HC + ~m + m') (RFC 1624 §3,
/// eqn. 3), where m is the 16-bit word holding version/IHL and TOS. Returns false (and
/// changes nothing) if `buf` is not IPv4.
pub fn set_ce_ipv4(buf: &mut [u8]) -> bool {
    if buf.len() < 20 || buf[0] >> 4 != 4 {
        return false;
    }
    let old = u16::from_be_bytes([buf[0], buf[1]]);
    buf[1] |= 0b11;
    let new = u16::from_be_bytes([buf[0], buf[1]]);
    let hc = u16::from_be_bytes([buf[10], buf[11]]);
    let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    buf[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    true
}

/// The ECN field of an IPv4 header (0 = Not-ECT, 1 = ECT(1), 2 = ECT(0), 3 = CE).
pub fn ecn_field(buf: &[u8]) -> u8 {
    if buf.len() < 20 || buf[0] >> 4 != 4 {
        0
    } else {
        buf[1] & 0b11
    }
}

/// Which scenario flow a packet belongs to, and whether it travels towards the flow's
/// receiver (data) or back to its sender (ACKs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowTag {
    pub flow: u32,
    pub to_receiver: bool,
}

/// One packet inside the emulator.
#[derive(Debug)]
pub struct IpPacket {
    pub data: Vec<u8>,
    /// When the emulator read it from its TUN device.
    pub arrived: Time,
    key: u64,
    pub tag: Option<FlowTag>,
}

impl IpPacket {
    /// `tag_of` maps a 5-tuple to a scenario flow (by the receiver's port).
    pub fn new(
        data: Vec<u8>,
        arrived: Time,
        tag_of: impl Fn(&FiveTuple) -> Option<FlowTag>,
    ) -> IpPacket {
        let (key, tag) = match parse_ipv4(&data) {
            Some(t) => (flow_hash(&t), tag_of(&t)),
            None => (0, None),
        };
        IpPacket {
            data,
            arrived,
            key,
            tag,
        }
    }
}

impl WirePacket for IpPacket {
    /// The IP packet's length: what the emulated wire carries (no link-layer framing,
    /// as in mahimahi and in the simulator, whose packets are IP-sized).
    #[inline]
    fn wire_bytes(&self) -> u32 {
        self.data.len() as u32
    }
    #[inline]
    fn flow_key(&self) -> u64 {
        self.key
    }
    #[inline]
    fn ecn_capable(&self) -> bool {
        ecn_field(&self.data) != 0
    }
    #[inline]
    fn set_ce(&mut self) {
        set_ce_ipv4(&mut self.data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20-byte IPv4 header + 8 bytes of TCP ports/sequence, checksum filled in.
    fn tcp_packet(tos: u8, sport: u16, dport: u16) -> Vec<u8> {
        let mut p = vec![
            0x45, tos, 0, 28, 0x12, 0x34, 0x40, 0, 64, PROTO_TCP, 0, 0, 10, 1, 0, 2, 10, 2, 0, 2,
        ];
        p.extend_from_slice(&sport.to_be_bytes());
        p.extend_from_slice(&dport.to_be_bytes());
        p.extend_from_slice(&[0, 0, 0, 1]);
        let c = header_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        p
    }

    #[test]
    fn parses_the_five_tuple() {
        let p = tcp_packet(0, 40000, 5001);
        assert_eq!(
            parse_ipv4(&p),
            Some(FiveTuple {
                src: [10, 1, 0, 2],
                dst: [10, 2, 0, 2],
                proto: PROTO_TCP,
                sport: 40000,
                dport: 5001
            })
        );
        // A header with a valid checksum sums to zero (RFC 1071 §1).
        assert_eq!(header_checksum(&p[..20]), 0);
    }

    #[test]
    fn rejects_non_ipv4_and_truncated_headers() {
        assert_eq!(parse_ipv4(&[0x60; 40]), None);
        assert_eq!(parse_ipv4(&[0x45; 10]), None);
        // IHL of 6 words but only 20 bytes present.
        let mut p = tcp_packet(0, 1, 2);
        p.truncate(20);
        p[0] = 0x46;
        assert_eq!(parse_ipv4(&p), None);
    }

    #[test]
    fn later_fragments_have_no_ports() {
        let mut p = tcp_packet(0, 1, 2);
        p[6] = 0x00;
        p[7] = 0x10; // fragment offset 16 × 8 bytes
        assert_eq!(parse_ipv4(&p).map(|t| (t.sport, t.dport)), Some((0, 0)));
    }

    #[test]
    fn marking_ce_keeps_the_checksum_valid() {
        for tos in [0b01, 0b10, 0xb8 | 0b10, 0xfe] {
            let mut p = tcp_packet(tos, 40000, 5001);
            assert!(set_ce_ipv4(&mut p));
            assert_eq!(ecn_field(&p), 3);
            assert_eq!(p[1] >> 2, tos >> 2, "DSCP unchanged");
            // Incremental update equals a full recomputation (RFC 1624).
            let mut q = p.clone();
            q[10] = 0;
            q[11] = 0;
            let full = header_checksum(&q[..20]);
            assert_eq!(u16::from_be_bytes([p[10], p[11]]), full, "tos {tos:#x}");
        }
    }

    #[test]
    fn packet_reports_ecn_capability_and_marks() {
        let mut p = IpPacket::new(tcp_packet(0b10, 1, 2), Time(0), |_| None);
        assert!(p.ecn_capable());
        p.set_ce();
        assert_eq!(ecn_field(&p.data), 3);
        assert!(!IpPacket::new(tcp_packet(0, 1, 2), Time(0), |_| None).ecn_capable());
    }

    #[test]
    fn flow_hash_separates_flows_and_is_stable() {
        let a = parse_ipv4(&tcp_packet(0, 40000, 5001)).unwrap();
        let b = parse_ipv4(&tcp_packet(0, 40001, 5001)).unwrap();
        let c = FiveTuple {
            src: a.dst,
            dst: a.src,
            sport: a.dport,
            dport: a.sport,
            ..a
        };
        assert_eq!(flow_hash(&a), flow_hash(&a));
        assert_ne!(flow_hash(&a), flow_hash(&b));
        assert_ne!(
            flow_hash(&a),
            flow_hash(&c),
            "the two directions are different flows"
        );
        // Spread: 4096 consecutive source ports over 1024 buckets leave few empty.
        let mut used = [false; 1024];
        for s in 0..4096u16 {
            used[(flow_hash(&FiveTuple {
                sport: 30000 + s,
                ..a
            }) % 1024) as usize] = true;
        }
        let empty = used.iter().filter(|u| !**u).count();
        // A uniform hash leaves about 1024·e^-4 ≈ 19 empty buckets.
        assert!(empty < 40, "{empty} empty buckets");
    }

    #[test]
    fn packet_uses_ip_length_as_wire_size_and_tags_flows() {
        let p = IpPacket::new(tcp_packet(0, 40000, 5001), Time(7), |t| {
            (t.dport == 5001).then_some(FlowTag {
                flow: 3,
                to_receiver: true,
            })
        });
        assert_eq!(p.wire_bytes(), 28);
        assert_eq!(
            p.tag,
            Some(FlowTag {
                flow: 3,
                to_receiver: true
            })
        );
        assert_ne!(p.flow_key(), 0);
    }
}
