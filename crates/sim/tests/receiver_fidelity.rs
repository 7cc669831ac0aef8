//! The Linux 6.x receiver (docs/receiver.md) against the testbed's kernel TCP on Ong 2020's
//! access link, 8 Mbit/s down, 1 Mbit/s up, 25 ms each way (issue 17, "The receiver";
//! issue 18, failures 2 and 4).

mod common;
use common::*;
use scavenger_cc::Rate;
use scavenger_net::{CodelParams, QdiscConfig};
use scavenger_sim::{run, AckModel, SimConfig};

fn adsl(secs: u64, buffer: u32) -> SimConfig {
    let mut c = dumbbell(8, 50, buffer, secs);
    c.reverse.rate = Rate::from_mbps(1);
    c
}

/// Goodput (Mbit/s) of `alg` alone for 60 s on the access link with `buffer` packets,
/// CoDel when `codel`, and the receiver `model`.
fn alone(alg: &str, buffer: u32, codel: bool, model: AckModel) -> f64 {
    let mut c = adsl(60, buffer);
    if codel {
        c.forward.qdisc = QdiscConfig::Codel(CodelParams::default());
        c.reverse.qdisc = QdiscConfig::Codel(CodelParams::default());
    }
    let mut f = flow("bg", alg);
    f.ack_model = model;
    c.flows.push(f);
    run(c).flows[0].goodput_bps / 1e6
}

/// Issue 18 failure 2: Yield alone, ½·BDP (17-packet) drop-tail buffer. Testbed (native
/// `scv_yield` on Linux 6.18): 4.75 Mbit/s. The legacy receiver held the odd segment of
/// each flight for 40 ms and Yield read the wait as 33–35 ms of queueing delay: 1.50.
/// With Linux's receiver the 16 quick ACKs of the start give Yield a clean minimum and the
/// flow no longer starves; it now overshoots the testbed (7.63, the link is 8): the
/// remaining gap is documented in docs/receiver.md.
#[test]
fn yield_alone_in_half_a_bdp_no_longer_starves() {
    let legacy = alone("yield", 17, false, AckModel::Legacy);
    let linux = alone("yield", 17, false, AckModel::Linux);
    assert!(
        (1.45..1.55).contains(&legacy),
        "legacy receiver: {legacy:.3}"
    );
    assert!(
        (7.4..7.9).contains(&linux),
        "Linux receiver: {linux:.3} Mbit/s (testbed 4.75, legacy {legacy:.3})"
    );
    // Closer to the testbed than before, and not starving (≥ 90 % of the testbed's).
    assert!((linux - 4.75).abs() < (legacy - 4.75).abs() && linux >= 0.9 * 4.75);
}

/// Issue 18 failure 4: TCP-LP alone with CoDel (2·BDP buffer). Testbed (the shim on Linux
/// 6.18): 6.49 Mbit/s. The Linux receiver does NOT fix it: after a delayed-ACK timer fires,
/// ato doubles and a lone segment is held min(ato, srtt) = 50 ms instead of 40, which TCP-LP
/// (Linux 4.4 clock model) reads as congestion, and its window stays at one packet. This
/// test holds the open gap (docs/receiver.md, "TCP-LP"); it fails once the gap closes.
#[test]
fn tcp_lp_alone_with_codel_still_starves_open_gap() {
    let legacy = alone("tcp-lp", 67, true, AckModel::Legacy);
    let linux = alone("tcp-lp", 67, true, AckModel::Linux);
    assert!(
        (1.45..1.55).contains(&legacy),
        "legacy receiver: {legacy:.3}"
    );
    assert!(
        linux < 1.5,
        "Linux receiver: {linux:.3} Mbit/s (testbed 6.49): the gap has closed, update docs/receiver.md"
    );
}

/// The model on the wire: a NewReno bulk flow's receiver sends one ACK per segment for
/// the first 16 segments (quick-ACK mode), then about one per two.
#[test]
fn quick_acks_at_the_start_then_about_one_ack_per_two_segments() {
    let ratio = |model: AckModel, secs: u64| {
        let mut c = adsl(secs, 70);
        let mut f = flow("bulk", "newreno");
        f.ack_model = model;
        f.size = Some(16 * 1448);
        c.flows.push(f);
        let r = run(c);
        let l = &r.links[1];
        (r.flows[0].delivered_bytes, l.tx_bytes)
    };
    // 16 segments, all in quick-ACK mode: 16 ACKs of 52 bytes; the legacy receiver sends
    // 8 (IW10: five pairs, then the last six segments in three pairs).
    let (_, linux_ack_bytes) = ratio(AckModel::Linux, 2);
    let (_, legacy_ack_bytes) = ratio(AckModel::Legacy, 2);
    assert_eq!((linux_ack_bytes, legacy_ack_bytes), (16 * 52, 8 * 52));
}
