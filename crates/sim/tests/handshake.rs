//! The SYN/SYN-ACK handshake at the trace level (issue 17, "Connections";
//! `scavenger_sim::handshake`, docs/deviations/simulator.md#sim-handshake): when the first
//! data segment leaves, what a lost SYN costs, the initial window after SYN
//! retransmissions, completion time from the connection's open, and determinism.

mod common;

use common::*;
use scavenger_cc::{Dur, Time};
use scavenger_net::LossModel;
use scavenger_sim::packet::{Kind, Packet, HS_ACK, HS_NONE, HS_SYN, HS_SYNACK};
use scavenger_sim::tap::{PacketLog, TapPoint};
use scavenger_sim::{SimConfig, SimResult, Simulation};
use std::cell::RefCell;
use std::rc::Rc;

const START: Time = Time(100_000_000);
/// One 52-byte header-only packet at 10 Mbit/s: 416 bits / 10⁷ bit/s.
const SER52: Dur = Dur(41_600);
const ONE_WAY: Dur = Dur::from_millis(25);

/// One NewReno flow from 100 ms on 10 Mbit/s, 25 ms each way, no start jitter.
fn scenario(secs: u64, size: Option<u64>, handshake: bool) -> SimConfig {
    let mut c = dumbbell(10, 50, 100, secs);
    let mut f = flow("f", "newreno");
    f.start = START;
    f.start_jitter = Dur::ZERO;
    f.size = size;
    f.handshake = handshake;
    c.flows.push(f);
    c
}

fn run_logged(c: SimConfig) -> (SimResult, Vec<(Time, TapPoint, Packet)>) {
    let log = Rc::new(RefCell::new(PacketLog::default()));
    let mut sim = Simulation::new(c);
    sim.set_tap(Box::new(log.clone()));
    let r = sim.run();
    let entries = std::mem::take(&mut log.borrow_mut().entries);
    (r, entries)
}

fn sent(log: &[(Time, TapPoint, Packet)]) -> impl Iterator<Item = &(Time, TapPoint, Packet)> {
    log.iter().filter(|(_, at, _)| *at == TapPoint::SenderOut)
}

/// When the first data segment left and how many left at that instant (the initial
/// window: nothing paces them).
fn first_flight(log: &[(Time, TapPoint, Packet)]) -> (Time, usize) {
    let data = |p: &Packet| p.kind == Kind::Data && p.hs == HS_NONE;
    let t = sent(log)
        .find(|(_, _, p)| data(p))
        .expect("data was sent")
        .0;
    let n = sent(log).filter(|(at, _, p)| *at == t && data(p)).count();
    (t, n)
}

/// Forward packets lost and delivered in turn, starting with a loss: a Gilbert chain
/// that changes state on every packet and loses every packet in its bad state.
fn alternate() -> LossModel {
    LossModel::GilbertElliott {
        p: 1.0,
        r: 1.0,
        loss_good: 0.0,
        loss_bad: 1.0,
    }
}

#[test]
fn the_first_data_segment_leaves_one_rtt_after_the_start() {
    let (_, log) = run_logged(scenario(2, None, true));
    let syn = sent(&log).next().unwrap();
    assert_eq!(
        (syn.0, syn.2.hs, syn.2.wire, syn.2.len),
        (START, HS_SYN, 52, 0)
    );
    // The SYN-ACK leaves the receiver when the SYN has crossed: 25 ms + its serialisation.
    let synack = log
        .iter()
        .find(|(_, at, p)| *at == TapPoint::ReceiverOut && p.hs == HS_SYNACK)
        .unwrap();
    assert_eq!(synack.0, START + ONE_WAY + SER52);
    assert_eq!(
        synack.2.wnd, 65160,
        "the SYN-ACK's window (tcp_select_initial_window)"
    );
    // One RTT (50 ms) and two serialisations after the start: the ACK, then the data.
    let rtt = START + ONE_WAY + SER52 + ONE_WAY + SER52;
    let ack = sent(&log).find(|(_, _, p)| p.hs == HS_ACK).unwrap();
    assert_eq!(ack.0, rtt);
    assert_eq!(first_flight(&log), (rtt, 10), "IW10 at start + 1 RTT");
    // The first data segments echo the SYN-ACK's TSval (TS.Recent).
    let d0 = sent(&log).find(|(_, _, p)| p.hs == HS_NONE).unwrap();
    assert_eq!(d0.2.rx_tsval, synack.2.rx_tsval);
    // Exactly one SYN, SYN-ACK and ACK.
    let count = |hs| {
        log.iter()
            .filter(|(_, at, p)| {
                p.hs == hs && matches!(at, TapPoint::SenderOut | TapPoint::ReceiverOut)
            })
            .count()
    };
    assert_eq!((count(HS_SYN), count(HS_SYNACK), count(HS_ACK)), (1, 1, 1));
}

#[test]
fn without_a_handshake_data_leaves_at_the_start() {
    let (_, log) = run_logged(scenario(1, None, false));
    assert_eq!(first_flight(&log), (START, 10));
    assert!(log.iter().all(|(_, _, p)| p.hs == HS_NONE));
}

#[test]
fn a_dropped_syn_delays_data_by_one_second_and_one_rtt() {
    let mut c = scenario(3, None, true);
    c.forward.loss = alternate();
    let (r, log) = run_logged(c);
    let syns: Vec<Time> = sent(&log)
        .filter(|(_, _, p)| p.hs == HS_SYN)
        .map(|e| e.0)
        .collect();
    // TCP_TIMEOUT_INIT: the SYN goes again 1 s after the first.
    assert_eq!(syns, vec![START, START + Dur::from_secs(1)]);
    let rtt = Dur::from_millis(50) + SER52 + SER52;
    // One SYN retransmission keeps the initial window: Linux's tcp_init_transfer cuts it
    // to 1 only when more than one SYN was retransmitted (total_retrans > 1).
    assert_eq!(first_flight(&log), (START + Dur::from_secs(1) + rtt, 10));
    // Handshake packets are not the flow's data: the conservation of data bytes holds.
    let f = &r.flows[0];
    let c = &f.conservation;
    assert_eq!(
        c.sent_bytes,
        c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes
    );
}

#[test]
fn more_than_one_syn_retransmission_starts_at_one_segment() {
    // Both directions lose every other packet: SYN 1 lost; SYN 2 (1 s) arrives and its
    // SYN-ACK is lost; SYN 3 (3 s) lost; SYN 4 (7 s) arrives and its SYN-ACK arrives.
    let mut c = scenario(9, None, true);
    c.forward.loss = alternate();
    c.reverse.loss = alternate();
    let (_, log) = run_logged(c);
    let syns: Vec<Dur> = sent(&log)
        .filter(|(_, _, p)| p.hs == HS_SYN)
        .map(|e| e.0.since(START))
        .collect();
    assert_eq!(
        syns,
        [0, 1, 3, 7].map(Dur::from_secs).to_vec(),
        "1 s, doubled per retry"
    );
    let synacks = log
        .iter()
        .filter(|(_, at, p)| *at == TapPoint::ReceiverOut && p.hs == HS_SYNACK)
        .collect::<Vec<_>>();
    assert_eq!(synacks.len(), 2);
    // Both echo the first SYN the server saw (SYN 2), so the retransmissions were not
    // spurious and the window starts at one segment (tcp_init_transfer).
    let syn2 = sent(&log)
        .filter(|(_, _, p)| p.hs == HS_SYN)
        .nth(1)
        .unwrap();
    assert!(synacks.iter().all(|e| e.2.ts_ecr == syn2.2.tsval));
    let rtt = Dur::from_millis(50) + SER52 + SER52;
    assert_eq!(first_flight(&log), (START + Dur::from_secs(7) + rtt, 1));
}

#[test]
fn completion_time_runs_from_the_connections_open() {
    // Ten segments, all in the initial window: the handshake adds its round trip.
    let size = Some(10 * 1448);
    let (with, _) = run_logged(scenario(2, size, true));
    let (without, _) = run_logged(scenario(2, size, false));
    let (w, wo) = (&with.flows[0], &without.flows[0]);
    for f in [w, wo] {
        let done = f.completed_at_s.unwrap();
        assert!((f.completion_time_s.unwrap() - (done - f.start_s)).abs() < 1e-12);
    }
    let extra = w.completion_time_s.unwrap() - wo.completion_time_s.unwrap();
    // The round trip with the SYN's and SYN-ACK's serialisation, and the client's ACK,
    // which leaves just before the data and delays it by its own serialisation.
    let rtt = (Dur::from_millis(50) + SER52 + SER52 + SER52).secs_f64();
    assert!((extra - rtt).abs() < 1e-9, "{extra} s, expected {rtt} s");
}

#[test]
fn runs_with_a_handshake_are_byte_identical_per_seed() {
    let make = |seed: u64| {
        let mut c = dumbbell(10, 50, 30, 5);
        c.seed = seed;
        c.forward.loss = bernoulli(0.2);
        c.reverse.loss = bernoulli(0.2);
        for i in 0..4 {
            let mut f = flow(&format!("f{i}"), "newreno");
            f.start = Time(i * 10_000_000);
            c.flows.push(f);
        }
        c
    };
    let (r1, l1) = run_logged(make(7));
    let (r2, l2) = run_logged(make(7));
    assert_eq!(l1, l2);
    assert_eq!(format!("{r1:?}"), format!("{r2:?}"));
    // 20 % loss each way loses some handshake packets: the check covers retransmitted SYNs.
    assert!(
        l1.iter()
            .filter(|(_, at, p)| *at == TapPoint::SenderOut && p.hs == HS_SYN)
            .count()
            > 4
    );
    let (r3, _) = run_logged(make(8));
    assert_ne!(format!("{:?}", r1.flows), format!("{:?}", r3.flows));
}
