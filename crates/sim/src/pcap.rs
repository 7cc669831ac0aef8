//! Simulated packets as pcap records with real Ethernet, IPv4 and TCP (or UDP) headers,
//! so Wireshark, tshark, tcptrace and captcp read a run as they read a testbed capture.
//!
//! The format (libpcap's classic file, nanosecond variant) is a 24-byte file header and,
//! per packet, a 16-byte record header and the packet bytes. Packets carry headers only:
//! each record's captured length stops after the TCP options and its original length is
//! the full frame, as a capture with a small snap length (`tcpdump -s 128`) does.
//!
//! How a simulated packet becomes a TCP segment:
//! - sequence numbers count bytes: segment `k` starts at byte `k · mss` after the initial
//!   sequence number (ISN + 1, since the SYN takes one), an ACK of segment `n` at
//!   `min(n · mss, flow size)`; SACK blocks map the same way. They wrap at 2³², as TCP's do.
//! - TCP timestamps (RFC 7323) tick in microseconds: TSval is the sender's (data) or the
//!   receiver's (ACK) clock in µs, TSecr echoes the other side's; 0 before any echo.
//! - ECN: data of an ECN flow is ECT(0), CE when a queue marked it; ACKs carry ECE, data
//!   carries CWR (RFC 3168).
//! - the advertised window is the receiver's, scaled by the window scale the synthetic
//!   handshake announces.
//! - the simulated handshake's SYN, SYN-ACK and ACK (`crate::handshake`) become real ones,
//!   with the options the flow uses (MSS, SACK permitted, timestamps, window scale) so
//!   tools decode the rest; a flow simulated without a handshake (`handshake = false`)
//!   starts with a synthetic SYN and SYN-ACK at its first packet's time.
//! - header sizes are the real ones (Ethernet 14, IPv4 20, TCP 20 + 12 for timestamps +
//!   4 + 8 per SACK block), which is what the simulator counts with its default `header`
//!   of 52 bytes; with another `header` the capture keeps the real sizes.
//! - datagram (CBR) flows become UDP datagrams with the payload length.

use crate::packet::{Kind, Packet, HS_NONE, HS_SYN, HS_SYNACK, NO_TS_ECHO};
use crate::tap::TapPoint;
use scavenger_cc::Time;
use std::io::{self, Write};

/// libpcap's magic for nanosecond timestamps.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// The file header's snap length: larger than any captured record.
pub const SNAPLEN: u32 = 262_144;
/// Initial sequence numbers of the sender and the receiver.
pub const ISN_SENDER: u32 = 1_000_000;
pub const ISN_RECEIVER: u32 = 2_000_000;
/// The receiver's listening port; the sender's is `SENDER_PORT_BASE` + flow index.
pub const RECEIVER_PORT: u16 = 5001;
pub const SENDER_PORT_BASE: u16 = 40_000;

/// What the encoder needs to know about one flow.
#[derive(Clone, Debug)]
pub struct FlowWire {
    pub flow: u32,
    pub mss: u32,
    /// Bytes to transfer, when sized: an ACK of everything acknowledges exactly this.
    pub size: Option<u64>,
    /// The largest window the receiver advertises (picks the window scale).
    pub max_window: u64,
    /// A datagram flow: UDP, no ACKs.
    pub udp: bool,
}

impl FlowWire {
    /// Sender 10.1.x.y, receiver 10.2.x.y, where x.y is the flow index.
    pub fn sender_ip(&self) -> [u8; 4] {
        [10, 1, (self.flow >> 8) as u8, self.flow as u8]
    }
    pub fn receiver_ip(&self) -> [u8; 4] {
        [10, 2, (self.flow >> 8) as u8, self.flow as u8]
    }
    pub fn sender_port(&self) -> u16 {
        SENDER_PORT_BASE.wrapping_add(self.flow as u16)
    }
    /// The smallest shift (RFC 7323 §2.3, at most 14) that fits the window in 16 bits.
    pub fn wscale(&self) -> u8 {
        let mut s = 0u8;
        while s < 14 && (self.max_window >> s) > 0xffff {
            s += 1;
        }
        s
    }
    /// Byte offset (from the first data byte) where segment `seg` starts, capped at the
    /// flow's size: what an ACK or a SACK edge of `seg` acknowledges.
    pub fn edge(&self, seg: u32) -> u64 {
        let b = seg as u64 * self.mss as u64;
        self.size.map_or(b, |s| b.min(s))
    }
    /// The TCP sequence number of byte offset `b` of the sender's stream.
    pub fn seq(&self, b: u64) -> u32 {
        ISN_SENDER.wrapping_add(1).wrapping_add(b as u32)
    }
}

/// µs of a nanosecond clock, wrapped to 32 bits (TCP timestamps wrap).
fn ts_us(ns: u64) -> u32 {
    (ns / 1000) as u32
}

const ETH_SENDER: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];
const ETH_RECEIVER: [u8; 6] = [0x02, 0, 0, 0, 0, 0x02];
const TCP_FIN: u8 = 0x01;
const TCP_SYN: u8 = 0x02;
const TCP_PSH: u8 = 0x08;
const TCP_ACK: u8 = 0x10;
const TCP_ECE: u8 = 0x40;
const TCP_CWR: u8 = 0x80;

/// One frame: the captured bytes (headers) and the frame's length on the wire.
pub struct Frame {
    pub bytes: Vec<u8>,
    pub orig_len: u32,
}

/// The RFC 1071 checksum of an IPv4 header.
fn ip_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

struct Ip {
    src: [u8; 4],
    dst: [u8; 4],
    proto: u8,
    ecn: u8,
    id: u16,
}

/// Ethernet + IPv4 + `l4` (the transport header), for a frame carrying `payload` more bytes.
fn frame(from_sender: bool, ip: Ip, l4: &[u8], payload: u32) -> Frame {
    let (src_mac, dst_mac) = if from_sender {
        (ETH_SENDER, ETH_RECEIVER)
    } else {
        (ETH_RECEIVER, ETH_SENDER)
    };
    let total = 20 + l4.len() as u32 + payload;
    let mut b = Vec::with_capacity(14 + 20 + l4.len());
    b.extend_from_slice(&dst_mac);
    b.extend_from_slice(&src_mac);
    b.extend_from_slice(&0x0800u16.to_be_bytes());
    let mut h = [0u8; 20];
    h[0] = 0x45;
    h[1] = ip.ecn;
    h[2..4].copy_from_slice(&(total.min(0xffff) as u16).to_be_bytes());
    h[4..6].copy_from_slice(&ip.id.to_be_bytes());
    h[6] = 0x40; // don't fragment
    h[8] = 64;
    h[9] = ip.proto;
    h[12..16].copy_from_slice(&ip.src);
    h[16..20].copy_from_slice(&ip.dst);
    let c = ip_checksum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    b.extend_from_slice(&h);
    b.extend_from_slice(l4);
    Frame {
        bytes: b,
        orig_len: 14 + total,
    }
}

struct Tcp<'a> {
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    options: &'a [u8],
}

fn tcp_header(t: Tcp) -> Vec<u8> {
    debug_assert!(t.options.len().is_multiple_of(4));
    let len = 20 + t.options.len();
    let mut h = vec![0u8; 20];
    h[0..2].copy_from_slice(&t.sport.to_be_bytes());
    h[2..4].copy_from_slice(&t.dport.to_be_bytes());
    h[4..8].copy_from_slice(&t.seq.to_be_bytes());
    h[8..12].copy_from_slice(&t.ack.to_be_bytes());
    h[12] = ((len / 4) as u8) << 4;
    h[13] = t.flags;
    h[14..16].copy_from_slice(&t.window.to_be_bytes());
    // Checksum left 0: there is no payload to sum over (Wireshark does not check by default).
    h.extend_from_slice(t.options);
    h
}

/// NOP, NOP, timestamps (RFC 7323 §3): 12 bytes.
fn ts_option(o: &mut Vec<u8>, tsval: u32, tsecr: u32) {
    o.extend_from_slice(&[1, 1, 8, 10]);
    o.extend_from_slice(&tsval.to_be_bytes());
    o.extend_from_slice(&tsecr.to_be_bytes());
}

/// Turns simulated packets of one flow, seen at one host, into frames. Keeps the IP
/// identification counters, and emits the synthetic handshake before the first packet.
pub struct Encoder {
    pub wire: FlowWire,
    ip_id: [u16; 2],
    started: bool,
}

impl Encoder {
    pub fn new(wire: FlowWire) -> Encoder {
        Encoder {
            wire,
            ip_id: [0, 0],
            started: false,
        }
    }

    fn ip(&mut self, from_sender: bool, proto: u8, ecn: u8) -> Ip {
        let w = &self.wire;
        let (src, dst) = if from_sender {
            (w.sender_ip(), w.receiver_ip())
        } else {
            (w.receiver_ip(), w.sender_ip())
        };
        let slot = &mut self.ip_id[usize::from(!from_sender)];
        let id = *slot;
        *slot = slot.wrapping_add(1);
        Ip {
            src,
            dst,
            proto,
            ecn,
            id,
        }
    }

    /// The frames for one tapped packet: the handshake first if this is the first.
    pub fn encode(&mut self, p: &Packet, out: &mut Vec<Frame>) {
        if p.hs != HS_NONE && !self.wire.udp {
            // The simulated handshake (`crate::handshake`): its own SYN and SYN-ACK, with
            // the options the flow uses; the client's ACK is a segment without payload.
            self.started = true;
            out.push(match p.hs {
                HS_SYN => self.syn_frame(ts_us(p.tsval)),
                HS_SYNACK => self.synack_frame(ts_us(p.rx_tsval.max(0) as u64), ts_us(p.ts_ecr)),
                _ => self.data(p),
            });
            return;
        }
        if !self.started && !self.wire.udp {
            self.started = true;
            self.handshake(p, out);
        }
        out.push(match (p.kind, self.wire.udp) {
            (Kind::Data, true) => self.udp(p),
            (Kind::Data, false) => self.data(p),
            (Kind::Ack, _) => self.ack(p),
        });
    }

    /// A synthetic handshake for a flow simulated without one (`handshake = false`).
    fn handshake(&mut self, p: &Packet, out: &mut Vec<Frame>) {
        // The first packet's clocks stand in for the handshake's.
        let (s_ts, r_ts) = match p.kind {
            Kind::Data => (ts_us(p.tsval), 0),
            Kind::Ack => (ts_us(p.ts_ecr), ts_us(p.rx_tsval.max(0) as u64)),
        };
        let syn = self.syn_frame(s_ts);
        out.push(syn);
        let synack = self.synack_frame(r_ts, s_ts);
        out.push(synack);
    }

    fn syn_opts(&self, ts: u32, ecr: u32) -> Vec<u8> {
        let w = &self.wire;
        let mut o = Vec::with_capacity(20);
        o.extend_from_slice(&[2, 4]);
        o.extend_from_slice(&(w.mss.min(0xffff) as u16).to_be_bytes());
        o.extend_from_slice(&[4, 2]); // SACK permitted
        o.extend_from_slice(&[8, 10]);
        o.extend_from_slice(&ts.to_be_bytes());
        o.extend_from_slice(&ecr.to_be_bytes());
        o.extend_from_slice(&[1, 3, 3, w.wscale()]);
        o
    }

    fn syn_frame(&mut self, s_ts: u32) -> Frame {
        let w = self.wire.clone();
        let ip = self.ip(true, 6, 0);
        let syn = tcp_header(Tcp {
            sport: w.sender_port(),
            dport: RECEIVER_PORT,
            seq: ISN_SENDER,
            ack: 0,
            flags: TCP_SYN,
            window: 0xffff,
            options: &self.syn_opts(s_ts, 0),
        });
        frame(true, ip, &syn, 0)
    }

    fn synack_frame(&mut self, r_ts: u32, s_ts: u32) -> Frame {
        let w = self.wire.clone();
        let ip = self.ip(false, 6, 0);
        let synack = tcp_header(Tcp {
            sport: RECEIVER_PORT,
            dport: w.sender_port(),
            seq: ISN_RECEIVER,
            ack: ISN_SENDER.wrapping_add(1),
            flags: TCP_SYN | TCP_ACK,
            window: 0xffff,
            options: &self.syn_opts(r_ts, s_ts),
        });
        frame(false, ip, &synack, 0)
    }

    fn data(&mut self, p: &Packet) -> Frame {
        let w = &self.wire;
        let mut o = Vec::with_capacity(12);
        let tsecr = if p.rx_tsval == NO_TS_ECHO {
            0
        } else {
            ts_us(p.rx_tsval.max(0) as u64)
        };
        ts_option(&mut o, ts_us(p.tsval), tsecr);
        let seq = w.seq(p.seg as u64 * w.mss as u64);
        // The last byte of a sized flow carries FIN, as a closing sender's would.
        let last = w
            .size
            .is_some_and(|s| p.seg as u64 * w.mss as u64 + p.len as u64 >= s);
        let tcp = tcp_header(Tcp {
            sport: w.sender_port(),
            dport: RECEIVER_PORT,
            seq,
            ack: ISN_RECEIVER.wrapping_add(1),
            flags: TCP_ACK
                | if p.cwr { TCP_CWR } else { 0 }
                | if p.psh { TCP_PSH } else { 0 }
                | if last { TCP_FIN } else { 0 },
            window: 0xffff,
            options: &o,
        });
        let ecn = if p.ce {
            3
        } else if p.ect {
            2
        } else {
            0
        };
        let ip = self.ip(true, 6, ecn);
        frame(true, ip, &tcp, p.len)
    }

    fn ack(&mut self, p: &Packet) -> Frame {
        let w = &self.wire;
        let mut o = Vec::with_capacity(12 + 4 + 8 * p.nsack as usize);
        ts_option(&mut o, ts_us(p.rx_tsval.max(0) as u64), ts_us(p.ts_ecr));
        if p.nsack > 0 {
            o.extend_from_slice(&[1, 1, 5, 2 + 8 * p.nsack]);
            for &(s, e) in &p.sack[..p.nsack as usize] {
                o.extend_from_slice(&w.seq(w.edge(s)).to_be_bytes());
                o.extend_from_slice(&w.seq(w.edge(e)).to_be_bytes());
            }
        }
        // An ACK of the whole sized flow also acknowledges its FIN.
        let mut ack = w.seq(w.edge(p.ack));
        if w.size.is_some_and(|s| w.edge(p.ack) >= s) {
            ack = ack.wrapping_add(1);
        }
        let window = (p.wnd as u64 >> w.wscale()).min(0xffff) as u16;
        let tcp = tcp_header(Tcp {
            sport: RECEIVER_PORT,
            dport: w.sender_port(),
            seq: ISN_RECEIVER.wrapping_add(1),
            ack,
            flags: TCP_ACK | if p.ece { TCP_ECE } else { 0 },
            window,
            options: &o,
        });
        let ip = self.ip(false, 6, 0);
        frame(false, ip, &tcp, 0)
    }

    fn udp(&mut self, p: &Packet) -> Frame {
        let w = &self.wire;
        let mut h = Vec::with_capacity(8);
        h.extend_from_slice(&w.sender_port().to_be_bytes());
        h.extend_from_slice(&RECEIVER_PORT.to_be_bytes());
        h.extend_from_slice(&((8 + p.len).min(0xffff) as u16).to_be_bytes());
        h.extend_from_slice(&[0, 0]); // no checksum (allowed over IPv4)
        let ecn = if p.ce {
            3
        } else if p.ect {
            2
        } else {
            0
        };
        let ip = self.ip(true, 17, ecn);
        frame(true, ip, &h, p.len)
    }
}

/// A pcap file being written to `W`.
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W) -> io::Result<PcapWriter<W>> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out })
    }

    pub fn write(&mut self, at: Time, f: &Frame) -> io::Result<()> {
        let ns = at.nanos();
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(f.bytes.len() as u32).to_le_bytes());
        h[12..16].copy_from_slice(&f.orig_len.to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&f.bytes)
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Which file of a flow a tap point belongs to: the sender's (true) or the receiver's.
pub fn at_sender(at: TapPoint) -> bool {
    matches!(at, TapPoint::SenderOut | TapPoint::SenderIn)
}

/// The wire description of every flow of a configuration.
pub fn flow_wires(cfg: &crate::SimConfig) -> Vec<FlowWire> {
    cfg.flows
        .iter()
        .enumerate()
        .map(|(i, f)| FlowWire {
            flow: i as u32,
            mss: f.mss,
            size: f.size,
            max_window: f.rwnd,
            udp: matches!(f.traffic, crate::Traffic::Cbr { .. }),
        })
        .collect()
}

/// A tap writing two captures per flow: at the sender's interface and at the receiver's.
pub struct PcapTap<W: Write> {
    /// Per flow: (sender side, receiver side).
    files: Vec<[(Encoder, PcapWriter<W>); 2]>,
    frames: Vec<Frame>,
    /// The first write error; later packets are not written.
    error: Option<io::Error>,
}

impl<W: Write> PcapTap<W> {
    /// `open(flow, at_sender)` gives the sink for one capture.
    pub fn new(
        cfg: &crate::SimConfig,
        mut open: impl FnMut(usize, bool) -> io::Result<W>,
    ) -> io::Result<PcapTap<W>> {
        let mut files = Vec::new();
        for (i, w) in flow_wires(cfg).into_iter().enumerate() {
            let s = (Encoder::new(w.clone()), PcapWriter::new(open(i, true)?)?);
            let r = (Encoder::new(w), PcapWriter::new(open(i, false)?)?);
            files.push([s, r]);
        }
        Ok(PcapTap {
            files,
            frames: Vec::new(),
            error: None,
        })
    }

    /// The sinks, per flow (sender side, receiver side), or the first write error.
    pub fn finish(self) -> io::Result<Vec<[W; 2]>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(self
            .files
            .into_iter()
            .map(|[(_, s), (_, r)]| [s.into_inner(), r.into_inner()])
            .collect())
    }
}

impl<W: Write> crate::tap::Tap for PcapTap<W> {
    fn packet(&mut self, now: Time, at: TapPoint, p: &Packet) {
        if self.error.is_some() {
            return;
        }
        let (enc, w) = &mut self.files[p.flow as usize][usize::from(!at_sender(at))];
        self.frames.clear();
        enc.encode(p, &mut self.frames);
        for f in &self.frames {
            if let Err(e) = w.write(now, f) {
                self.error = Some(e);
                return;
            }
        }
    }
}
