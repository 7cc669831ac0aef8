//! Adapter tests without a network: scripted quinn calls, the calls our algorithm gets.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quinn_proto::congestion::{Controller, ControllerFactory};
use scavenger_cc::{
    AckSample, CongestionControl, CongestionEvent, CongestionKind, RawParam, RtoEvent, SentInfo,
    Time,
};

use crate::{AdapterStats, ScavengerController, ScavengerFactory};

#[derive(Clone, Debug, PartialEq)]
enum Call {
    Sent(SentInfo),
    Ack(AckSample),
    Congestion(CongestionEvent),
    Rto(RtoEvent),
    Exit,
}

/// Records every call; its window is whatever the test sets.
struct Recorder {
    calls: Arc<Mutex<Vec<(Time, Call)>>>,
    cwnd: Arc<Mutex<u64>>,
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.calls.lock().unwrap().push((now, Call::Ack(*ack)));
    }
    fn on_congestion(&mut self, now: Time, ev: &CongestionEvent) {
        self.calls
            .lock()
            .unwrap()
            .push((now, Call::Congestion(*ev)));
    }
    fn on_rto(&mut self, now: Time, ev: &RtoEvent) {
        self.calls.lock().unwrap().push((now, Call::Rto(*ev)));
    }
    fn on_recovery_exit(&mut self, now: Time) {
        self.calls.lock().unwrap().push((now, Call::Exit));
    }
    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.calls.lock().unwrap().push((now, Call::Sent(*sent)));
    }
    fn cwnd(&self) -> u64 {
        *self.cwnd.lock().unwrap()
    }
}

const MTU: u16 = 1200;
const M: u64 = MTU as u64;
const MS: u64 = 1_000_000;

struct Rig {
    t0: Instant,
    c: ScavengerController,
    calls: Arc<Mutex<Vec<(Time, Call)>>>,
    cwnd: Arc<Mutex<u64>>,
}

impl Rig {
    fn new() -> Rig {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let cwnd = Arc::new(Mutex::new(10 * M));
        let algo = Recorder {
            calls: Arc::clone(&calls),
            cwnd: Arc::clone(&cwnd),
        };
        let t0 = Instant::now();
        let c = ScavengerController::new(Box::new(algo), t0, MTU, Arc::new(AdapterStats::new()));
        Rig { t0, c, calls, cwnd }
    }
    fn at(&self, ms: u64) -> Instant {
        self.t0 + Duration::from_millis(ms)
    }
    fn sent(&mut self, ms: u64, bytes: u64) {
        let t = self.at(ms);
        self.c.on_sent(t, bytes, 0);
    }
    /// One ACK frame at `ms` newly acknowledging packets `(sent_ms, bytes)`, quinn's
    /// in-flight after it being `in_flight`.
    fn ack(&mut self, ms: u64, pkts: &[(u64, u64)], in_flight: u64) {
        let now = self.at(ms);
        for &(s, b) in pkts {
            let sent = self.at(s);
            self.c.on_packet_acked(now, sent, b);
        }
        self.c.on_end_acks(now, in_flight, false, None);
    }
    fn lost(&mut self, ms: u64, sent_ms: u64, persistent: bool, bytes: u64) {
        let (now, sent) = (self.at(ms), self.at(sent_ms));
        self.c.on_congestion_event(now, sent, persistent, bytes);
    }
    fn take(&self) -> Vec<(Time, Call)> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
    fn acks(&self) -> Vec<AckSample> {
        self.take()
            .into_iter()
            .filter_map(|(_, c)| match c {
                Call::Ack(a) => Some(a),
                _ => None,
            })
            .collect()
    }
}

#[test]
fn one_sample_per_ack_frame_with_newest_packet_rtt_and_quinn_in_flight() {
    let mut r = Rig::new();
    // Transmits at 0, 1, 2, 3 ms: two datagrams (GSO), then three single ones.
    r.sent(0, 2 * M);
    r.sent(1, M);
    r.sent(2, M);
    r.sent(3, M);
    let sends: Vec<_> = r.take();
    assert_eq!(
        sends[0],
        (
            Time(0),
            Call::Sent(SentInfo {
                bytes: 2 * M,
                bytes_in_flight: 2 * M,
                retransmission: false,
                seq: 0,
                app_limited: false
            })
        )
    );
    assert_eq!(
        sends[3].1,
        Call::Sent(SentInfo {
            bytes: M,
            bytes_in_flight: 5 * M,
            retransmission: false,
            seq: 4 * M,
            app_limited: false
        })
    );
    // ACK frame at 40 ms for the two packets sent at 0 ms and the one at 1 ms: one
    // sample, 3 datagrams acked, RTT from the newest (1 ms): 39 ms.
    r.ack(40, &[(0, M), (0, M), (1, M)], 2 * M);
    // ACK frame at 45 ms for the packet sent at 3 ms (2 ms one still out): RTT 42 ms.
    r.ack(45, &[(3, M)], M);
    let a = r.acks();
    assert_eq!(a.len(), 2, "one sample per frame");
    assert_eq!(a[0].bytes_acked, 3 * M);
    assert_eq!(a[0].rtt, Some(scavenger_cc::Dur(39 * MS)));
    assert_eq!(a[0].owd, Some(39 * MS as i64), "RTT stands in for the OWD");
    assert_eq!(a[0].ts_echo_rtt, None);
    assert_eq!((a[0].prior_in_flight, a[0].bytes_in_flight), (5 * M, 2 * M));
    assert_eq!((a[0].snd_una, a[0].snd_nxt), (3 * M, 5 * M));
    assert_eq!(a[0].delivered, 3 * M);
    assert_eq!(a[0].mss, M);
    assert!(!a[0].in_recovery && !a[0].ecn_ce && !a[0].app_limited);
    assert_eq!(a[1].bytes_acked, M);
    assert_eq!(a[1].rtt, Some(scavenger_cc::Dur(42 * MS)));
    assert_eq!((a[1].prior_in_flight, a[1].bytes_in_flight), (2 * M, M));
    assert_eq!((a[1].snd_una, a[1].snd_nxt), (4 * M, 5 * M));
    assert_eq!(a[1].delivered, 4 * M);
    // A frame that acknowledges only ack-only packets gives no sample.
    r.c.on_end_acks(r.at(46), M, false, None);
    assert!(r.acks().is_empty());
}

#[test]
fn delivery_rate_samples_come_from_per_transmit_state() {
    let mut r = Rig::new();
    // A steady stream: one datagram per ms, each acknowledged 20 ms later, 10 in flight
    // after the first 10 ms. Rate 1200 B/ms = 9.6 Mbit/s.
    let mut last = None;
    for i in 0..60u64 {
        r.sent(i, M);
        if i >= 20 {
            r.ack(i, &[(i - 20, M)], 20 * M);
            last = r.acks().pop();
        }
    }
    let rate = last.unwrap().rate.expect("a rate sample");
    assert_eq!(rate.rate, scavenger_cc::Rate(9_600_000));
    // Each transmit's snapshot is taken before the ACK processed at the same instant,
    // so a sample spans 21 deliveries over 21 ms.
    assert_eq!(rate.delivered, 21 * M);
    assert_eq!(rate.interval, scavenger_cc::Dur(21 * MS));
}

#[test]
fn two_losses_in_one_recovery_period_reduce_once() {
    let mut r = Rig::new();
    for i in 0..10 {
        r.sent(i, M);
    }
    r.take();
    // ACK at 50 ms of the packet sent at 3 ms; packets 0..2 declared lost after it.
    r.ack(50, &[(3, M)], 9 * M);
    r.lost(50, 2, false, 3 * M);
    // Second batch at 55 ms: the packet sent at 4 ms (before the 50 ms start): ignored.
    r.ack(55, &[(5, M)], 5 * M);
    r.lost(55, 4, false, M);
    let calls = r.take();
    let cong: Vec<_> = calls
        .iter()
        .filter_map(|(t, c)| match c {
            Call::Congestion(e) => Some((*t, *e)),
            _ => None,
        })
        .collect();
    assert_eq!(
        cong,
        vec![(
            Time(50 * MS),
            CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 9 * M,
                bytes_lost: 3 * M,
                mss: M
            }
        )]
    );
    // The 55 ms sample is in recovery (newest packet sent at 5 ms < 50 ms).
    let ack55 = calls.iter().find(|(t, _)| *t == Time(55 * MS)).unwrap();
    assert!(matches!(ack55.1, Call::Ack(a) if a.in_recovery && a.bytes_in_flight == 5 * M));
    assert_eq!(r.c_stats().ignored_events, 1);
    // A packet sent at 60 ms (after the start) acknowledged: exit, then a sample out of
    // recovery.
    r.sent(60, M);
    r.take();
    r.ack(100, &[(60, M)], 4 * M);
    let calls = r.take();
    assert_eq!(calls[0], (Time(100 * MS), Call::Exit));
    assert!(matches!(calls[1].1, Call::Ack(a) if !a.in_recovery));
    // A later loss of a packet sent at 60 ms is a new episode.
    r.lost(110, 60, false, M);
    assert!(matches!(r.take()[..], [(_, Call::Congestion(_))]));
}

#[test]
fn persistent_congestion_is_the_algorithms_rto() {
    let mut r = Rig::new();
    for i in 0..4 {
        r.sent(i, M);
    }
    r.take();
    // Persistent congestion at 2 s: on_rto, first backoff, in flight before the loss.
    r.lost(2000, 3, true, 4 * M);
    // Another in the same outage: second backoff, even inside the period.
    r.sent(2001, M);
    r.lost(4000, 2001, true, M);
    let calls: Vec<_> = r
        .take()
        .into_iter()
        .filter(|(_, c)| !matches!(c, Call::Sent(_)))
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                Time(2000 * MS),
                Call::Rto(RtoEvent {
                    bytes_in_flight: 4 * M,
                    backoff_count: 1,
                    mss: M
                })
            ),
            (
                Time(4000 * MS),
                Call::Rto(RtoEvent {
                    bytes_in_flight: M,
                    backoff_count: 2,
                    mss: M
                })
            ),
        ]
    );
    // After the collapse, ACKs let the window grow (not in recovery), the loss of an
    // older packet does not reduce again, and an ACK resets the backoff.
    r.sent(4001, M);
    r.sent(4002, M);
    r.ack(4050, &[(4001, M)], M);
    r.lost(4050, 3999, false, M);
    let calls = r.take();
    assert!(calls
        .iter()
        .any(|(_, c)| matches!(c, Call::Ack(a) if !a.in_recovery)));
    assert!(!calls.iter().any(|(_, c)| matches!(c, Call::Congestion(_))));
    r.lost(6000, 4002, true, M);
    assert!(matches!(
        r.take()[..],
        [(
            _,
            Call::Rto(RtoEvent {
                backoff_count: 1,
                ..
            })
        )]
    ));
}

#[test]
fn ecn_ce_is_the_algorithms_ecn_hook_once_per_period() {
    let mut r = Rig::new();
    for i in 0..4 {
        r.sent(i, M);
    }
    r.take();
    // quinn: on_end_acks, then process_ecn → on_congestion_event(now, largest acked
    // sent, false, 0).
    r.ack(40, &[(1, M)], 3 * M);
    r.lost(40, 1, false, 0);
    r.ack(41, &[(2, M)], 2 * M);
    r.lost(41, 2, false, 0);
    let cong: Vec<_> = r
        .take()
        .into_iter()
        .filter_map(|(_, c)| match c {
            Call::Congestion(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(
        cong,
        vec![CongestionEvent {
            kind: CongestionKind::Ecn,
            bytes_in_flight: 3 * M,
            bytes_lost: 0,
            mss: M
        }]
    );
    let s = r.c_stats();
    assert_eq!(
        (s.ecn_reductions, s.loss_reductions, s.ignored_events),
        (1, 0, 1)
    );
}

#[test]
fn window_admits_exactly_cwnd_datagrams_and_at_least_one() {
    let mut r = Rig::new();
    // quinn blocks when in_flight + segment >= window: with cwnd = 10 datagrams the
    // tenth must still pass (9·M + M < window) and an eleventh not.
    assert_eq!(r.c.window(), 10 * M + 1);
    assert!(9 * M + M < r.c.window() && 10 * M + M >= r.c.window());
    *r.cwnd.lock().unwrap() = 100;
    r.sent(0, M);
    assert_eq!(r.c.window(), M + 1, "a sub-datagram window still sends one");
}

#[test]
fn clone_box_shares_the_algorithm_across_a_rebinding() {
    let r = Rig::new();
    let mut copy = r.c.clone_box();
    copy.on_sent(r.at(5), M, 0);
    assert!(
        matches!(r.take()[..], [(_, Call::Sent(_))]),
        "the same algorithm got it"
    );
    *r.cwnd.lock().unwrap() = 20 * M;
    copy.on_sent(r.at(6), M, 1);
    assert_eq!(copy.window(), 20 * M + 1);
}

#[test]
fn factory_finds_algorithms_by_name_and_rejects_bad_input() {
    let f = ScavengerFactory::new("ledbat++", [], 1).unwrap();
    assert_eq!(f.algorithm().name, "ledbat-plus-plus");
    let err = ScavengerFactory::new("no-such", [], 1)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("`no-such`") && err.contains("cubic"), "{err}");
    let bad = RawParam::Float(7.0);
    let err = ScavengerFactory::new("cubic", [("beta", &bad)], 1)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("beta") && err.contains('7'), "{err}");
    // Built through quinn's interface: RFC 9002 §7.2 initial window at MTU 1200 is
    // min(12000, max(2400, 14720)) = 12000, and our window admits 10 datagrams.
    let f = Arc::new(ScavengerFactory::new("cubic", [], 1).unwrap());
    let c = Arc::clone(&f).build(Instant::now(), MTU);
    assert_eq!(c.initial_window(), 12_000 + 1);
    assert_eq!(c.window(), 12_000 + 1);
}

/// A window-limited sender over a fixed-RTT path, in 1 ms steps: packets are acked
/// one RTT after they were sent, one ACK frame per step; then as many datagrams go as
/// quinn's window check lets through, at most 10 per step (a 96 Mbit/s link, so that
/// slow start without a delay signal cannot grow without bound). Returns `to`.
fn drive(c: &mut ScavengerController, t0: Instant, from: u64, to: u64, rtt_ms: u64) -> u64 {
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut out: std::collections::VecDeque<u64> = Default::default();
    let mut in_flight = 0;
    for t in from..to {
        let mut acked = false;
        while out.front().is_some_and(|&s| s + rtt_ms <= t) {
            let s = out.pop_front().unwrap();
            c.on_packet_acked(at(t), at(s), M);
            in_flight -= M;
            acked = true;
        }
        if acked {
            c.on_end_acks(at(t), in_flight, false, None);
        }
        let mut burst = 0;
        while in_flight + M < c.window() && burst < 10 {
            burst += 1;
            c.on_sent(at(t), M, 0);
            in_flight += M;
            out.push_back(t);
        }
    }
    to
}

/// RFC 6817 LEDBAT needs a one-way delay; through the adapter it gets the RTT. Base
/// 10 ms, then the RTT rises by 200 ms (far over the 100 ms target): the window falls.
#[test]
fn one_way_delay_algorithms_see_the_rtt_as_their_delay() {
    // The evaluated module slow-starts until the first loss; without it the window
    // follows the delay rule from the first ACK.
    let no_ss = RawParam::Bool(false);
    let f = ScavengerFactory::new("ledbat", [("slow_start", &no_ss)], 1).unwrap();
    let t0 = Instant::now();
    let mut c = f.controller(t0, MTU);
    let w0 = c.window();
    // 300 ms of 10 ms RTTs: below target, the window grows.
    let t = drive(&mut c, t0, 0, 300, 10);
    let grown = c.window();
    assert!(grown > w0, "{grown} > {w0}");
    // Then 1 s of 210 ms RTTs: 110 ms over target, the window falls.
    drive(&mut c, t0, t, t + 1000, 210);
    assert!(c.window() < grown, "{} < {grown}", c.window());
    let s = c.stats_snapshot();
    assert!(s.samples > 50 && s.window_changes > 10, "{s:?}");
}

impl Rig {
    fn c_stats(&self) -> crate::StatsSnapshot {
        self.c.stats_snapshot()
    }
}
