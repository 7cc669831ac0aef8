//! rLEDBAT (RFC 9840) in the simulator: the receiver's advertised window holds a plain
//! CUBIC sender to less-than-best-effort. The numbers are recorded in
//! docs/deviations/rledbat.md#rledbat-sim-results.

mod common;
use common::*;
use scavenger_cc::{find_receiver, Dur, ReceiveWindowControl, RecvSample, Time};
use scavenger_sim::config::ReceiverControl;
use scavenger_sim::packet::{Packet, NO_TS_ECHO};
use scavenger_sim::receiver::{AckModel, Receiver, ReceiverConfig};
use scavenger_sim::{run, FlowConfig, JainSpec, SimConfig, SimResult};

/// A download whose sender runs plain CUBIC and whose receiver runs rLEDBAT.
fn rledbat_download(name: &str) -> FlowConfig {
    let mut f = flow(name, "cubic");
    f.receiver = Some(ReceiverControl::new(find_receiver("rledbat").unwrap()));
    f
}

/// The bottleneck: 10 Mbit/s, 50 ms base RTT, 2×BDP drop-tail buffer (82 packets,
/// about 100 ms of queue, above rLEDBAT's 60 ms target).
fn bottleneck(flows: Vec<FlowConfig>, secs: u64) -> SimConfig {
    let mut cfg = dumbbell(10, 50, 2 * bdp_packets(10, 50), secs);
    let n = flows.len();
    cfg.flows = flows;
    cfg.measure.series_bin = Some(Dur::from_secs(1));
    cfg.measure.jain = vec![JainSpec {
        name: "steady".into(),
        flows: (0..n).collect(),
        from: Time(20_000_000_000),
        to: Time(secs * 1_000_000_000),
    }];
    cfg
}

/// Goodput (bit/s) of each flow from 20 s to the end.
fn steady(r: &SimResult) -> Vec<f64> {
    r.jain[0].goodput_bps.clone()
}

/// The last value of a trace variable of flow `i`.
fn last_trace(r: &SimResult, i: usize, name: &str) -> f64 {
    let s = r.series.as_ref().unwrap();
    let col = s
        .trace(i, name)
        .unwrap_or_else(|| panic!("no trace {name}"));
    *col.last().unwrap()
}

/// A controller whose wish follows a script, one step per data segment.
struct Scripted {
    wishes: Vec<u64>,
    step: usize,
}

impl ReceiveWindowControl for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn on_data(&mut self, _now: Time, _s: &RecvSample) {
        self.step += 1;
    }
    fn rwnd(&self) -> u64 {
        self.wishes[self.step.min(self.wishes.len() - 1)]
    }
}

#[test]
fn the_advertised_right_edge_never_moves_left() {
    const MSS: u64 = 1000;
    let mut rx = Receiver::new(ReceiverConfig {
        flow: 0,
        header: 52,
        total_segs: None,
        ack_every: 1,
        delack_timeout: Dur::from_millis(40),
        ack_model: AckModel::Linux,
        path_rtt: Dur::from_millis(50),
        clock_offset: 0,
        mss: MSS as u32,
        rwnd: 50 * MSS,
    });
    // Wishes after segment k (k = 0 before any): 20, 30, 2, 2, 2, 100 (→ fc 50), 1, 1, ...
    let wishes = [20, 30, 2, 2, 2, 100, 1, 1, 1, 1, 1, 1]
        .iter()
        .map(|w| w * MSS)
        .collect();
    rx.set_window_control(Box::new(Scripted { wishes, step: 0 }));
    // The handshake: 20 segments from 0.
    assert_eq!(rx.advertise(), 20 * MSS);
    let seg = |i: u32| {
        let mut p = Packet::data(0, i, MSS as u32, 52, i as u64, false);
        p.rx_tsval = NO_TS_ECHO;
        p
    };
    let edge = |a: &Packet| a.ack as u64 * MSS + a.wnd as u64;
    let mut acks = Vec::new();
    // Segment 0 in order; wish 30: window 30 from 1 (edge 31).
    rx.on_data(Time(1), &seg(0));
    acks.push(rx.make_ack(Time(1)));
    assert_eq!((acks[0].ack, acks[0].wnd as u64), (1, 30 * MSS));
    // Segment 1; wish 2: the edge stays at 31: window 29 from 2 (one segment drained).
    rx.on_data(Time(2), &seg(1));
    acks.push(rx.make_ack(Time(2)));
    assert_eq!((acks[1].ack, acks[1].wnd as u64), (2, 29 * MSS));
    // Segment 3 out of order (2 is missing): RCV.NXT stays 2, nothing drained: the window
    // stays 29, though data arrived.
    rx.on_data(Time(3), &seg(3));
    acks.push(rx.make_ack(Time(3)));
    assert_eq!((acks[2].ack, acks[2].wnd as u64), (2, 29 * MSS));
    // A duplicate of 1: no change either.
    rx.on_data(Time(4), &seg(1));
    acks.push(rx.make_ack(Time(4)));
    assert_eq!((acks[3].ack, acks[3].wnd as u64), (2, 29 * MSS));
    // Segment 2 fills the hole: RCV.NXT 4, wish 100 → capped by fc.WND 50: edge 54.
    rx.on_data(Time(5), &seg(2));
    acks.push(rx.make_ack(Time(5)));
    assert_eq!((acks[4].ack, acks[4].wnd as u64), (4, 50 * MSS));
    // From now on the wish is 1 segment: the window closes one segment per segment drained.
    for i in 4..10 {
        rx.on_data(Time(6 + i as u64), &seg(i));
        acks.push(rx.make_ack(Time(6 + i as u64)));
        let a = acks.last().unwrap();
        assert_eq!((a.ack, a.wnd as u64), (i + 1, (54 - i as u64 - 1) * MSS));
    }
    for w in acks.windows(2) {
        assert!(
            edge(&w[1]) >= edge(&w[0]),
            "right edge moved left: {} → {}",
            edge(&w[0]),
            edge(&w[1])
        );
    }
}

#[test]
fn without_a_controller_the_static_window_is_advertised() {
    // The legacy receiver: the Linux one autotunes its window (crate::rcvbuf).
    let mut rx = Receiver::new(ReceiverConfig {
        flow: 0,
        header: 52,
        total_segs: None,
        ack_every: 1,
        delack_timeout: Dur::from_millis(40),
        ack_model: AckModel::Legacy,
        path_rtt: Dur::from_millis(50),
        clock_offset: 0,
        mss: 1448,
        rwnd: 64 << 20,
    });
    rx.on_data(Time(1), &Packet::data(0, 0, 1448, 52, 1, false));
    assert_eq!(rx.make_ack(Time(1)).wnd as u64, 64 << 20);
}

#[test]
fn rledbat_holds_a_cubic_sender_near_the_target_and_keeps_the_right_edge() {
    let alone = |f: FlowConfig| run(bottleneck(vec![f], 120));
    let cubic = alone(flow("cubic", "cubic"));
    let rl = alone(rledbat_download("rledbat"));
    let (q_cubic, q_rl) = (
        cubic.links[0].qdelay_ms.mean.unwrap(),
        rl.links[0].qdelay_ms.mean.unwrap(),
    );
    let g = steady(&rl)[0];
    println!("alone: CUBIC qdelay {q_cubic:.1} ms; CUBIC+rLEDBAT qdelay {q_rl:.1} ms, goodput {:.2} Mbit/s (20–120 s), slowdowns {}", g / 1e6, last_trace(&rl, 0, "rx_slowdowns"));
    // Plain CUBIC fills the 100 ms buffer; the same sender behind an rLEDBAT receiver
    // keeps the queue at about TARGET = 60 ms and still uses most of the link (the
    // periodic slowdowns cost some).
    assert!(q_cubic > 70.0, "{q_cubic}");
    assert!((40.0..65.0).contains(&q_rl), "{q_rl}");
    assert!(g > 8.0e6, "{g}");
    assert!(last_trace(&rl, 0, "rx_slowdowns") >= 5.0);
    assert_eq!(rl.flows[0].retransmits, 0);
    // The sender saw no ACK whose right edge was left of the previous one.
    assert_eq!(last_trace(&rl, 0, "rwnd_edge_retreats"), 0.0);
}

#[test]
fn rledbat_reacts_to_retransmissions_and_keeps_the_right_edge_under_random_loss() {
    let mut cfg = bottleneck(vec![rledbat_download("rledbat")], 60);
    cfg.forward.loss = bernoulli(0.005);
    let r = run(cfg);
    println!(
        "0.5 % loss: retransmits {}, halvings at the receiver {}, goodput {:.2} Mbit/s",
        r.flows[0].retransmits,
        last_trace(&r, 0, "rx_retx_halvings"),
        r.flows[0].goodput_bps / 1e6
    );
    assert!(r.flows[0].retransmits > 20);
    // Retransmissions are detected at the receiver (SEG.SEQ < RCV.HGH, newer TSval) and
    // halve RLWND at most once per RTT, so fewer halvings than retransmissions.
    let halvings = last_trace(&r, 0, "rx_retx_halvings");
    assert!(
        halvings >= 5.0 && halvings < r.flows[0].retransmits as f64,
        "{halvings}"
    );
    assert_eq!(last_trace(&r, 0, "rwnd_edge_retreats"), 0.0);
    assert!(r.flows[0].conservation.holds());
}

/// Acceptance (issue 5): a receiver-limited rLEDBAT download yields to a competing
/// NewReno download on the same bottleneck while its sender runs plain CUBIC.
#[test]
fn rledbat_download_yields_to_newreno() {
    let solo = steady(&run(bottleneck(vec![flow("newreno", "newreno")], 120)))[0];
    let both = run(bottleneck(
        vec![rledbat_download("rledbat"), flow("newreno", "newreno")],
        120,
    ));
    let g = steady(&both);
    // Control: the same CUBIC sender without the rLEDBAT receiver takes its share.
    let plain = steady(&run(bottleneck(
        vec![flow("cubic", "cubic"), flow("newreno", "newreno")],
        120,
    )));
    let share = |v: &[f64]| v[0] / (v[0] + v[1]);
    println!(
        "20–120 s: NewReno solo {:.2} Mbit/s; with rLEDBAT(CUBIC) {:.2} ({:.1} % of solo), rLEDBAT {:.2} ({:.1} % share); CUBIC without rLEDBAT {:.1} % share",
        solo / 1e6,
        g[1] / 1e6,
        100.0 * g[1] / solo,
        g[0] / 1e6,
        100.0 * share(&g),
        100.0 * share(&plain)
    );
    assert!(share(&g) < 0.15, "rLEDBAT share {}", share(&g));
    assert!(g[1] > 0.9 * solo, "NewReno {} of solo {}", g[1], solo);
    assert!(share(&plain) > 0.35, "plain CUBIC share {}", share(&plain));
    assert_eq!(last_trace(&both, 0, "rwnd_edge_retreats"), 0.0);
}
