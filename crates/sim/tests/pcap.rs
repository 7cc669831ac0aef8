//! `--pcap`: a capture read back packet by packet matches the simulator's packet log.

mod common;
use common::*;
use scavenger_sim::packet::{Kind, Packet, HS_NONE, HS_SYN, HS_SYNACK, NO_TS_ECHO};
use scavenger_sim::pcap::{flow_wires, FlowWire, PcapTap, ISN_RECEIVER, MAGIC_NS};
use scavenger_sim::tap::{PacketLog, TapPoint};
use scavenger_sim::{SimConfig, Simulation};
use std::cell::RefCell;
use std::rc::Rc;

/// One record of a pcap file, decoded with no help from the encoder.
#[derive(Debug)]
struct Rec {
    ns: u64,
    orig_len: u32,
    src: [u8; 4],
    ecn: u8,
    ip_len: u16,
    proto: u8,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    payload: u32,
    tsval: Option<u32>,
    tsecr: Option<u32>,
    sack: Vec<(u32, u32)>,
}

fn read_pcap(b: &[u8]) -> Vec<Rec> {
    let u32le = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(u32le(0), MAGIC_NS, "nanosecond pcap magic");
    assert_eq!(u32le(20), 1, "LINKTYPE_ETHERNET");
    let mut out = vec![];
    let mut o = 24;
    while o < b.len() {
        let ns = u32le(o) as u64 * 1_000_000_000 + u32le(o + 4) as u64;
        let cap = u32le(o + 8) as usize;
        let orig_len = u32le(o + 12);
        let f = &b[o + 16..o + 16 + cap];
        o += 16 + cap;
        assert_eq!(&f[12..14], &[0x08, 0x00], "IPv4 ethertype");
        let ip = &f[14..];
        assert_eq!(ip[0], 0x45);
        // A valid IPv4 header sums to 0xffff.
        let mut sum: u32 = ip[..20]
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
            .sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff, "IPv4 header checksum");
        let ip_len = u16::from_be_bytes([ip[2], ip[3]]);
        assert_eq!(orig_len, 14 + ip_len as u32);
        let proto = ip[9];
        let l4 = &ip[20..];
        let be32 = |s: &[u8], o: usize| u32::from_be_bytes(s[o..o + 4].try_into().unwrap());
        let mut r = Rec {
            ns,
            orig_len,
            src: ip[12..16].try_into().unwrap(),
            ecn: ip[1] & 3,
            ip_len,
            proto,
            seq: 0,
            ack: 0,
            flags: 0,
            window: 0,
            payload: 0,
            tsval: None,
            tsecr: None,
            sack: vec![],
        };
        if proto == 17 {
            r.payload = u16::from_be_bytes([l4[4], l4[5]]) as u32 - 8;
            out.push(r);
            continue;
        }
        assert_eq!(proto, 6);
        let hl = (l4[12] >> 4) as usize * 4;
        assert_eq!(cap, 14 + 20 + hl, "headers only are captured");
        r.seq = be32(l4, 4);
        r.ack = be32(l4, 8);
        r.flags = l4[13];
        r.window = u16::from_be_bytes([l4[14], l4[15]]);
        r.payload = ip_len as u32 - 20 - hl as u32;
        let mut i = 20;
        while i < hl {
            match l4[i] {
                0 => break,
                1 => i += 1,
                k => {
                    let len = l4[i + 1] as usize;
                    let body = &l4[i + 2..i + len];
                    if k == 8 {
                        r.tsval = Some(be32(body, 0));
                        r.tsecr = Some(be32(body, 4));
                    } else if k == 5 {
                        r.sack = body.chunks(8).map(|c| (be32(c, 0), be32(c, 4))).collect();
                    }
                    i += len;
                }
            }
        }
        out.push(r);
    }
    out
}

/// Runs `cfg` with a packet log and a pcap tap; returns the log and the captures.
#[allow(clippy::type_complexity)] // a test helper's tuple, read once by its callers
fn capture(
    cfg: SimConfig,
) -> (
    Vec<(scavenger_cc::Time, TapPoint, Packet)>,
    Vec<[Vec<u8>; 2]>,
) {
    let log = Rc::new(RefCell::new(PacketLog::default()));
    let tap = Rc::new(RefCell::new(
        PcapTap::new(&cfg, |_, _| Ok(Vec::<u8>::new())).unwrap(),
    ));
    struct Both(Rc<RefCell<PacketLog>>, Rc<RefCell<PcapTap<Vec<u8>>>>);
    impl scavenger_sim::tap::Tap for Both {
        fn packet(&mut self, now: scavenger_cc::Time, at: TapPoint, p: &Packet) {
            self.0.packet(now, at, p);
            self.1.packet(now, at, p);
        }
    }
    let mut sim = Simulation::new(cfg);
    sim.set_tap(Box::new(Both(log.clone(), tap.clone())));
    sim.run();
    let files = Rc::try_unwrap(tap)
        .ok()
        .unwrap()
        .into_inner()
        .finish()
        .unwrap();
    let entries = std::mem::take(&mut log.borrow_mut().entries);
    (entries, files)
}

fn us(ns: u64) -> u32 {
    (ns / 1000) as u32
}

/// Checks one decoded record against the logged packet it came from.
fn check(w: &FlowWire, r: &Rec, at: scavenger_cc::Time, p: &Packet) {
    assert_eq!(r.ns, at.nanos(), "capture time");
    let ecn = if p.ce {
        3
    } else if p.ect {
        2
    } else {
        0
    };
    assert_eq!(r.ecn, ecn, "IP ECN bits of {p:?}");
    if w.udp {
        assert_eq!((r.proto, r.payload, r.src), (17, p.len, w.sender_ip()));
        return;
    }
    // With the default 52-byte header the capture's IP length is the simulated size.
    assert_eq!(r.ip_len as u32, p.wire, "IP length of {p:?}");
    assert_eq!(r.orig_len, 14 + p.wire);
    match p.kind {
        Kind::Data => {
            assert_eq!(r.src, w.sender_ip());
            assert_eq!(r.seq, w.seq(p.seg as u64 * w.mss as u64), "seq of {p:?}");
            assert_eq!(r.payload, p.len);
            assert_eq!(r.flags & 0x80 != 0, p.cwr, "CWR");
            assert_eq!(r.tsval, Some(us(p.tsval)));
            let ecr = if p.rx_tsval == NO_TS_ECHO {
                0
            } else {
                us(p.rx_tsval as u64)
            };
            assert_eq!(r.tsecr, Some(ecr));
        }
        Kind::Ack => {
            assert_eq!(r.src, w.receiver_ip());
            assert_eq!(r.seq, ISN_RECEIVER + 1);
            let fin = w.size.is_some_and(|s| w.edge(p.ack) >= s) as u32;
            assert_eq!(r.ack, w.seq(w.edge(p.ack)) + fin, "ack of {p:?}");
            assert_eq!(r.payload, 0);
            assert_eq!(r.flags & 0x40 != 0, p.ece, "ECE");
            assert_eq!(r.window as u64, (p.wnd as u64 >> w.wscale()).min(0xffff));
            assert_eq!(r.tsval, Some(us(p.rx_tsval as u64)));
            assert_eq!(r.tsecr, Some(us(p.ts_ecr)));
            let sack: Vec<_> = p.sack[..p.nsack as usize]
                .iter()
                .map(|&(s, e)| (w.seq(w.edge(s)), w.seq(w.edge(e))))
                .collect();
            assert_eq!(r.sack, sack, "SACK blocks of {p:?}");
        }
    }
}

/// Every flow's two captures hold exactly the logged packets at that host, in order.
fn check_all(cfg: SimConfig) -> (usize, usize, usize) {
    let wires = flow_wires(&cfg);
    let (log, files) = capture(cfg);
    let (mut sacks, mut ce, mut n) = (0, 0, 0);
    for (i, w) in wires.iter().enumerate() {
        for (side, bytes) in files[i].iter().enumerate() {
            let recs = read_pcap(bytes);
            let want: Vec<_> = log
                .iter()
                .filter(|(_, at, p)| {
                    p.flow as usize == i
                        && matches!(at, TapPoint::SenderOut | TapPoint::SenderIn) == (side == 0)
                })
                .collect();
            // A flow with a handshake captures its own SYN, SYN-ACK and ACK; one without
            // gets a synthetic SYN and SYN-ACK before its first packet.
            let simulated = want.first().is_some_and(|(_, _, p)| p.hs != HS_NONE);
            let skip = if w.udp || want.is_empty() || simulated {
                0
            } else {
                2
            };
            if skip == 2 || simulated {
                assert_eq!(recs[0].flags, 0x02, "SYN first");
            }
            if skip == 2 {
                assert_eq!(recs[1].flags, 0x12, "SYN-ACK second");
            }
            assert_eq!(recs.len(), want.len() + skip, "flow {i} side {side}");
            for (r, (at, _, p)) in recs[skip..].iter().zip(&want) {
                match p.hs {
                    HS_SYN => assert_eq!(r.flags, 0x02, "SYN"),
                    HS_SYNACK => assert_eq!(r.flags, 0x12, "SYN-ACK"),
                    _ => check(w, r, *at, p),
                }
                sacks += usize::from(!r.sack.is_empty());
                ce += usize::from(r.ecn == 3);
                n += 1;
            }
        }
    }
    (n, sacks, ce)
}

#[test]
fn capture_matches_the_log_with_losses_and_sack() {
    let mut cfg = dumbbell(10, 40, 30, 5);
    cfg.forward.loss = bernoulli(0.01);
    cfg.flows.push(flow("a", "newreno"));
    let mut sized = flow("b", "ledbat");
    sized.size = Some(400_000 + 123);
    cfg.flows.push(sized);
    let (n, sacks, _) = check_all(cfg);
    // 4978 packets since flows start with the default 10 ms jitter (the loss draws fall
    // on other packets); the bound only asks for a busy capture.
    assert!(n > 4500, "{n} packets");
    assert!(sacks > 10, "SACK blocks appear ({sacks} ACKs with SACK)");
}

#[test]
fn capture_matches_the_log_with_ecn_marks() {
    let sc = scavenger_lab::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/network/codel-ecn.toml"
    )))
    .unwrap();
    let mut cfg = sc.to_sim(1);
    cfg.duration = scavenger_cc::Dur::from_secs(10);
    let (_, _, ce) = check_all(cfg);
    assert!(ce > 10, "CE marks appear ({ce})");
}

#[test]
fn tap_leaves_the_result_unchanged() {
    let mut cfg = dumbbell(10, 40, 30, 3);
    cfg.forward.loss = bernoulli(0.01);
    cfg.flows.push(flow("a", "cubic"));
    let plain = scavenger_sim::run(cfg.clone());
    let mut sim = Simulation::new(cfg);
    sim.set_tap(Box::new(PacketLog::default()));
    let tapped = sim.run();
    assert_eq!(format!("{plain:?}"), format!("{tapped:?}"));
}
