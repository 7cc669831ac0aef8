//! TCP/IPv4 segments as the census receiver reads and writes them on its TUN device
//! (RFC 791 §3.1 IPv4 header, RFC 9293 §3.1 TCP header, §3.2 options). Pure: bytes in,
//! bytes out.

use crate::packet::{header_checksum, PROTO_TCP};

pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;

/// A parsed TCP segment (IPv4 only; the census receiver offers no IPv6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// The MSS option (RFC 9293 §3.7.1), if present.
    pub mss: Option<u16>,
    /// The window scale option (RFC 7323 §2), if present.
    pub wscale: Option<u8>,
    pub payload: &'a [u8],
}

impl Segment<'_> {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// Parses an IPv4 packet carrying TCP; `None` for anything else or anything malformed
/// (lengths that do not fit the buffer). Checksums are not verified: the TUN device
/// hands us what the local kernel forwarded, which it already checked.
pub fn parse(buf: &[u8]) -> Option<Segment<'_>> {
    if buf.len() < 40 || buf[0] >> 4 != 4 || buf[9] != PROTO_TCP {
        return None;
    }
    let ihl = (buf[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([buf[2], buf[3]]) as usize;
    if ihl < 20 || total > buf.len() || total < ihl + 20 {
        return None;
    }
    // Later fragments carry no TCP header.
    if u16::from_be_bytes([buf[6], buf[7]]) & 0x1fff != 0 {
        return None;
    }
    let t = &buf[ihl..total];
    let doff = (t[12] >> 4) as usize * 4;
    if doff < 20 || doff > t.len() {
        return None;
    }
    let (mut mss, mut wscale) = (None, None);
    let mut o = &t[20..doff];
    while let Some(&kind) = o.first() {
        match kind {
            0 => break,
            1 => o = &o[1..],
            _ => {
                let len = *o.get(1)? as usize;
                if len < 2 || len > o.len() {
                    return None;
                }
                match (kind, len) {
                    (2, 4) => mss = Some(u16::from_be_bytes([o[2], o[3]])),
                    (3, 3) => wscale = Some(o[2]),
                    _ => {}
                }
                o = &o[len..];
            }
        }
    }
    Some(Segment {
        src: [buf[12], buf[13], buf[14], buf[15]],
        dst: [buf[16], buf[17], buf[18], buf[19]],
        sport: u16::from_be_bytes([t[0], t[1]]),
        dport: u16::from_be_bytes([t[2], t[3]]),
        seq: u32::from_be_bytes([t[4], t[5], t[6], t[7]]),
        ack: u32::from_be_bytes([t[8], t[9], t[10], t[11]]),
        flags: t[13],
        window: u16::from_be_bytes([t[14], t[15]]),
        mss,
        wscale,
        payload: &t[doff..],
    })
}

/// What to put in an outgoing segment.
#[derive(Clone, Debug)]
pub struct Out<'a> {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// SYN options: MSS and window scale.
    pub syn_options: Option<(u16, u8)>,
    pub payload: &'a [u8],
}

/// One's complement sum of 16-bit big-endian words (RFC 1071), unfolded.
fn sum16(data: &[u8]) -> u32 {
    data.chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)])))
        .sum()
}

/// Builds the IPv4 packet of `o` with both checksums (the TCP checksum covers the
/// pseudo-header of RFC 9293 §3.1).
pub fn build(o: &Out) -> Vec<u8> {
    let opts: Vec<u8> = match o.syn_options {
        // MSS (kind 2, len 4), NOP, window scale (kind 3, len 3): 8 bytes, 32-bit aligned.
        Some((mss, ws)) => {
            let m = mss.to_be_bytes();
            vec![2, 4, m[0], m[1], 1, 3, 3, ws]
        }
        None => Vec::new(),
    };
    let tcp_len = 20 + opts.len() + o.payload.len();
    let total = 20 + tcp_len;
    let mut p = Vec::with_capacity(total);
    p.extend_from_slice(&[0x45, 0]);
    p.extend_from_slice(&(total as u16).to_be_bytes());
    // Identification 0 with DF set (RFC 6864 §4.1: atomic datagrams need no unique id).
    p.extend_from_slice(&[0, 0, 0x40, 0, 64, PROTO_TCP, 0, 0]);
    p.extend_from_slice(&o.src);
    p.extend_from_slice(&o.dst);
    let c = header_checksum(&p[..20]);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    p.extend_from_slice(&o.sport.to_be_bytes());
    p.extend_from_slice(&o.dport.to_be_bytes());
    p.extend_from_slice(&o.seq.to_be_bytes());
    p.extend_from_slice(&o.ack.to_be_bytes());
    p.push((((20 + opts.len()) / 4) as u8) << 4);
    p.push(o.flags);
    p.extend_from_slice(&o.window.to_be_bytes());
    p.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    p.extend_from_slice(&opts);
    p.extend_from_slice(o.payload);
    let mut pseudo = Vec::with_capacity(12);
    pseudo.extend_from_slice(&o.src);
    pseudo.extend_from_slice(&o.dst);
    pseudo.extend_from_slice(&[0, PROTO_TCP]);
    pseudo.extend_from_slice(&(tcp_len as u16).to_be_bytes());
    let mut sum = sum16(&pseudo) + sum16(&p[20..]);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    p[36..38].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    p
}

/// Whether the TCP checksum of an IPv4 packet is right (for tests).
pub fn tcp_checksum_ok(p: &[u8]) -> bool {
    let tcp = &p[20..];
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&p[12..20]);
    pseudo.extend_from_slice(&[0, PROTO_TCP]);
    pseudo.extend_from_slice(&(tcp.len() as u16).to_be_bytes());
    let mut sum = sum16(&pseudo) + sum16(tcp);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum == 0xffff
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(payload: &[u8], syn: Option<(u16, u8)>) -> Vec<u8> {
        build(&Out {
            src: [10, 2, 200, 2],
            dst: [10, 1, 0, 2],
            sport: 40000,
            dport: 80,
            seq: 0xdead_beef,
            ack: 7,
            flags: ACK | PSH,
            window: 4096,
            syn_options: syn,
            payload,
        })
    }

    #[test]
    fn built_segments_parse_back_with_valid_checksums() {
        let p = out(b"GET / HTTP/1.1\r\n\r\n", Some((200, 7)));
        assert_eq!(header_checksum(&p[..20]), 0, "IPv4 header checksum");
        assert!(tcp_checksum_ok(&p));
        let s = parse(&p).expect("parses");
        assert_eq!(
            (s.sport, s.dport, s.seq, s.ack),
            (40000, 80, 0xdead_beef, 7)
        );
        assert_eq!((s.mss, s.wscale), (Some(200), Some(7)));
        assert_eq!(s.payload, b"GET / HTTP/1.1\r\n\r\n");
        assert!(s.has(ACK) && s.has(PSH) && !s.has(SYN));
        // Odd payload length: the checksum pads with a zero byte (RFC 1071).
        assert!(tcp_checksum_ok(&out(b"abc", None)));
    }

    #[test]
    fn a_flipped_bit_breaks_the_checksum() {
        let mut p = out(b"hello", None);
        p[44] ^= 1;
        assert!(!tcp_checksum_ok(&p));
    }

    #[test]
    fn rejects_truncated_and_non_tcp_packets() {
        let p = out(b"hello", None);
        assert!(parse(&p[..30]).is_none());
        let mut udp = p.clone();
        udp[9] = 17;
        assert!(parse(&udp).is_none());
        let mut bad_off = p.clone();
        bad_off[32] = 0xf0; // data offset 60 bytes > segment
        assert!(parse(&bad_off).is_none());
        // Trailing bytes past the IP total length (padding) are not payload.
        let mut padded = p.clone();
        padded.extend_from_slice(&[0; 6]);
        assert_eq!(parse(&padded).unwrap().payload, b"hello");
    }
}
