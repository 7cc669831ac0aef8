//! Tests of the DA-LBE wrapper's knobs, the MBC equations at sample points, our
//! controller's switching and the metacontroller driver. Expected values are computed
//! by hand from the equations (arithmetic in the comments).

use super::examples::{LinearPhantom, WorkingHours};
use super::mbc::*;
use super::*;
use crate::algorithms::newreno::NewReno;
use crate::algorithms::vegas;
use crate::api::*;
use crate::params::ParamSet;
use crate::rng::Rng;
use crate::units::{Dur, Time};
use std::sync::{Arc, Mutex};

const MSS: u64 = 1448;

fn secs(s: f64) -> Time {
    Time(Dur::from_secs_f64(s).nanos())
}

fn loss(mss: u64) -> CongestionEvent {
    CongestionEvent {
        kind: CongestionKind::Loss,
        bytes_in_flight: 20 * mss,
        bytes_lost: mss,
        mss,
    }
}

fn ecn(mss: u64) -> CongestionEvent {
    CongestionEvent {
        kind: CongestionKind::Ecn,
        bytes_in_flight: 20 * mss,
        bytes_lost: 0,
        mss,
    }
}

/// An ACK of `n` segments that moves snd_una to `una` with `nxt` sent.
fn ack_at(una: u64, nxt: u64, n: u64, mss: u64) -> AckSample {
    AckSample {
        bytes_acked: n * mss,
        snd_una: una,
        snd_nxt: nxt,
        ..AckSample::empty(mss)
    }
}

/// What a wrapped algorithm was told.
#[derive(Default)]
struct Log {
    congestions: Vec<CongestionKind>,
    exits: u32,
    rtos: u32,
    acks: Vec<AckSample>,
}

/// A wrapped algorithm that records its calls; halves a fixed window on congestion.
struct Probe {
    cwnd: u64,
    log: Arc<Mutex<Log>>,
}

impl CongestionControl for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }
    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        self.log.lock().unwrap().acks.push(*ack);
    }
    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        self.cwnd = (self.cwnd / 2).max(1);
        self.log.lock().unwrap().congestions.push(ev.kind);
    }
    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.log.lock().unwrap().rtos += 1;
    }
    fn on_recovery_exit(&mut self, _now: Time) {
        self.log.lock().unwrap().exits += 1;
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
}

fn probe(knobs: Knobs) -> (DaLbe, Arc<Mutex<Log>>) {
    let log = Arc::new(Mutex::new(Log::default()));
    let p = Probe {
        cwnd: 64 * MSS,
        log: log.clone(),
    };
    (DaLbe::new(Box::new(p), knobs, Rng::new(7)), log)
}

fn newreno(knobs: Knobs, seed: u64) -> DaLbe {
    DaLbe::new(Box::new(NewReno::new(20 * MSS)), knobs, Rng::new(seed))
}

// ---------------------------------------------------------------------------------
// Knobs on a wrapped NewReno.

#[test]
fn neutral_knobs_are_transparent() {
    // Default knobs: NewReno halves on loss (20 -> 10 segments) exactly as unwrapped.
    let mut w = newreno(Knobs::default(), 1);
    w.on_congestion(Time(0), &loss(MSS));
    assert_eq!(w.cwnd(), 10 * MSS);
    let i = w.info();
    assert_eq!((i.loss_events, i.ignored_losses, i.reductions), (1, 0, 1));
    assert!((i.reduction_ratio_sum - 0.5).abs() < 1e-12);
    assert!(Knobs::default().at_most_best_effort());
}

#[test]
fn ignore_loss_probability_one_never_reduces() {
    let mut w = newreno(
        Knobs {
            loss_ignore_prob: 1.0,
            ..Knobs::default()
        },
        1,
    );
    for k in 0..50 {
        w.on_congestion(secs(k as f64), &loss(MSS));
        assert_eq!((w.cwnd(), w.ssthresh()), (20 * MSS, u64::MAX));
    }
    let i = w.info();
    assert_eq!(
        (
            i.loss_events,
            i.ignored_losses,
            i.reductions,
            i.congestion_events
        ),
        (50, 50, 0, 50)
    );
    // Timeouts are never ignored (the kernel component leaves tcp_enter_loss alone):
    // NewReno's RTO gives cwnd 1 MSS, ssthresh = max(20/2, 2) = 10 MSS.
    w.on_rto(
        secs(60.0),
        &RtoEvent {
            bytes_in_flight: 0,
            backoff_count: 1,
            mss: MSS,
        },
    );
    assert_eq!((w.cwnd(), w.ssthresh()), (MSS, 10 * MSS));
    // Changing the knob while the flow runs: P = 0 halves again (1 -> max(0.5, 2) = 2).
    w.set_knobs(Knobs::default());
    w.on_congestion(secs(61.0), &loss(MSS));
    assert_eq!(w.cwnd(), 2 * MSS);
}

#[test]
fn ignore_ecn_probability_one_never_reduces_but_loss_still_does() {
    let mut w = newreno(
        Knobs {
            ecn_ignore_prob: 1.0,
            ..Knobs::default()
        },
        1,
    );
    w.on_congestion(secs(1.0), &ecn(MSS));
    assert_eq!(w.cwnd(), 20 * MSS);
    w.on_congestion(secs(2.0), &loss(MSS));
    assert_eq!(w.cwnd(), 10 * MSS);
    let i = w.info();
    assert_eq!(
        (
            i.ecn_events,
            i.ignored_ecns,
            i.loss_events,
            i.ignored_losses
        ),
        (1, 1, 1, 0)
    );
}

#[test]
fn ignore_loss_probability_half_ignores_about_half() {
    // Binomial(4000, 0.5): mean 2000, sd sqrt(4000/4) = 31.6; 4 sd = 126.
    let mut w = newreno(
        Knobs {
            loss_ignore_prob: 0.5,
            ..Knobs::default()
        },
        3,
    );
    for k in 0..4000 {
        w.on_congestion(secs(k as f64), &loss(MSS));
    }
    let ignored = w.info().ignored_losses as i64;
    assert!((ignored - 2000).abs() <= 126, "{ignored}");
}

/// Runs `n` ACKs of `segs` segments each through a NewReno wrapped with phantom
/// probability `p`; snd_nxt = snd_una, so each phantom reduction's CWR ends with the
/// next ACK and every phantom ECN reduces.
fn phantom_run(p: f64, n: u64, segs: u64, seed: u64) -> DaLbeInfo {
    let mut w = newreno(
        Knobs {
            phantom_ecn_prob: p,
            ..Knobs::default()
        },
        seed,
    );
    let mut una = 0;
    for k in 0..n {
        una += segs * MSS;
        w.on_ack(Time(k * 1_000_000), &ack_at(una, una, segs, MSS));
    }
    w.info()
}

#[test]
fn phantom_ecn_rate_matches_probability() {
    // p = 0.01 on 100 000 single-segment ACKs: Binomial(1e5, 0.01), mean 1000,
    // sd sqrt(1e5 · 0.01 · 0.99) = 31.5; accept ±4 sd = ±126.
    let i = phantom_run(0.01, 100_000, 1, 11);
    assert!(
        (i.phantom_ecn as i64 - 1000).abs() <= 126,
        "{}",
        i.phantom_ecn
    );
    assert_eq!(i.phantom_reductions, i.phantom_ecn);
    // Every phantom reduction halved NewReno (ratio recorded unless cwnd was at 2 MSS).
    assert!(i.reductions <= i.phantom_reductions && i.reductions * 10 >= i.phantom_reductions * 9);
    assert_eq!(
        (i.loss_events, i.ecn_events, i.congestion_events),
        (0, 0, 0)
    );
    // Two segments per ACK doubles the per-ACK chance (Wallenburg 2018 §3.6.1): mean 2000,
    // sd sqrt(1e5 · 0.02 · 0.98) = 44.3; ±4 sd = ±177.
    let i = phantom_run(0.01, 100_000, 2, 12);
    assert!(
        (i.phantom_ecn as i64 - 2000).abs() <= 177,
        "{}",
        i.phantom_ecn
    );
    // Zero-segment ACKs (dupACKs) count as one segment, not zero (Wallenburg 2018 §3.6.1 fix).
    let mut w = newreno(
        Knobs {
            phantom_ecn_prob: 1.0,
            ..Knobs::default()
        },
        1,
    );
    w.on_ack(Time(0), &ack_at(0, 0, 0, MSS));
    assert_eq!(w.info().phantom_ecn, 1);
    assert_eq!(w.cwnd(), 10 * MSS);
}

#[test]
fn phantom_reductions_at_most_once_per_rtt_and_absorb_real_events() {
    let (mut w, log) = probe(Knobs {
        phantom_ecn_prob: 1.0,
        ..Knobs::default()
    });
    // First ACK: phantom ECN -> one reduction, CWR until snd_una passes 100 segments.
    w.on_ack(Time(0), &ack_at(MSS, 100 * MSS, 1, MSS));
    assert_eq!(w.cwnd(), 32 * MSS);
    for k in 2..=100 {
        w.on_ack(Time(k), &ack_at(k * MSS, 100 * MSS, 1, MSS));
    }
    // 100 phantom ECNs triggered, one reduction; the algorithm saw every ACK as "in
    // recovery" (no growth during a cwnd reduction).
    let i = w.info();
    assert_eq!(
        (i.phantom_ecn, i.phantom_reductions, w.cwnd()),
        (100, 1, 32 * MSS)
    );
    assert!(i.in_cwr);
    assert!(log.lock().unwrap().acks.iter().all(|a| a.in_recovery));
    // A real ECN during the phantom CWR is absorbed (Linux: no second reduction).
    w.on_congestion(Time(101), &ecn(MSS));
    assert_eq!(
        (w.cwnd(), w.info().absorbed_events, w.info().ecn_events),
        (32 * MSS, 1, 1)
    );
    // snd_una passes 100 segments: CWR ends (the algorithm is told, as Linux's
    // set_state(Open)), then this ACK's phantom ECN reduces again.
    w.on_ack(Time(102), &ack_at(101 * MSS, 200 * MSS, 1, MSS));
    assert_eq!(log.lock().unwrap().exits, 1);
    assert_eq!((w.cwnd(), w.info().phantom_reductions), (16 * MSS, 2));
    // A loss during CWR is absorbed too and turns it into the datapath's recovery.
    w.on_congestion(Time(103), &loss(MSS));
    assert_eq!(
        (w.cwnd(), w.info().absorbed_events, w.info().in_cwr),
        (16 * MSS, 2, false)
    );
    // In the datapath's recovery phantom ECNs are absorbed as well.
    w.on_ack(
        Time(104),
        &AckSample {
            in_recovery: true,
            ..ack_at(102 * MSS, 200 * MSS, 1, MSS)
        },
    );
    assert_eq!((w.cwnd(), w.info().phantom_reductions), (16 * MSS, 2));
    // Real ECN-echo ACKs are never turned into phantom ECNs.
    let before = w.info().phantom_ecn;
    w.on_ack(
        Time(105),
        &AckSample {
            ecn_ce: true,
            ..ack_at(103 * MSS, 200 * MSS, 1, MSS)
        },
    );
    assert_eq!(w.info().phantom_ecn, before);
    let l = log.lock().unwrap();
    assert_eq!(
        l.congestions,
        vec![CongestionKind::Ecn, CongestionKind::Ecn]
    );
}

#[test]
fn phantom_suppression_uses_the_corrected_condition_and_kernel_ewma() {
    let k = Knobs {
        phantom_ecn_prob: 1.0,
        suppression_v: 2,
        ..Knobs::default()
    };
    let (mut w, _log) = probe(k);
    let mut una = 0;
    let mut ack = |w: &mut DaLbe, t: f64| {
        una += MSS;
        w.on_ack(secs(t), &ack_at(una, una, 1, MSS));
    };
    w.on_sent(
        secs(0.0),
        &SentInfo {
            bytes: MSS,
            bytes_in_flight: MSS,
            retransmission: false,
            seq: 0,
            app_limited: false,
        },
    );
    // Events at 1 s and 2 s: first interval 1 s (from the start) -> τ = 1 s; second
    // interval 1 s -> τ = 1 + 32·(1 - 1)/128 = 1 s.
    w.on_congestion(secs(1.0), &loss(MSS));
    w.on_congestion(secs(2.0), &ecn(MSS));
    assert_eq!(w.info().avg_congestion_interval, Some(Dur::from_secs(1)));
    // t_cong = 0.5 s < v·τ = 2 s: phantom ECN allowed (Alg 2 as printed, "t_cong > v τ",
    // would suppress it).
    ack(&mut w, 2.5);
    assert_eq!((w.info().phantom_ecn, w.info().phantom_suppressed), (1, 0));
    // t_cong = 2.0 s ≥ 2 s: suppressed.
    ack(&mut w, 4.0);
    assert_eq!((w.info().phantom_ecn, w.info().phantom_suppressed), (1, 1));
    // Event at 4 s, interval 2 s: τ = 1 + (128 - 96)·(2 - 1)/128 = 1.25 s.
    w.on_congestion(secs(4.0), &loss(MSS));
    assert_eq!(
        w.info().avg_congestion_interval,
        Some(Dur::from_millis(1250))
    );
    ack(&mut w, 6.4); // 2.4 s < 2.5 s: fires
    ack(&mut w, 6.5); // 2.5 s ≥ 2.5 s: suppressed
    assert_eq!((w.info().phantom_ecn, w.info().phantom_suppressed), (2, 2));
    // Weight 0 freezes the average (Wallenburg 2018 §3.6.2 fix 3).
    w.set_knobs(Knobs {
        ewma_weight: 0,
        ..k
    });
    w.on_congestion(secs(20.0), &loss(MSS));
    assert_eq!(
        w.info().avg_congestion_interval,
        Some(Dur::from_millis(1250))
    );
    assert_eq!(w.info().congestion_events, 4);
}

#[test]
fn disabled_mode_passes_everything_through() {
    let mut w = newreno(
        Knobs {
            enabled: false,
            loss_ignore_prob: 1.0,
            phantom_ecn_prob: 1.0,
            ..Knobs::default()
        },
        1,
    );
    w.on_ack(Time(0), &ack_at(MSS, MSS, 1, MSS));
    w.on_congestion(Time(1), &loss(MSS));
    // Slow start 20 -> 21, then halved: max(21/2, 2) = 10.5 segments.
    assert_eq!(w.cwnd(), 21 * MSS / 2);
    assert_eq!(
        (
            w.info().phantom_ecn,
            w.info().ignored_losses,
            w.info().loss_events
        ),
        (0, 0, 1)
    );
}

#[test]
fn delay_threshold_extension_fires_on_standing_queues_only() {
    let k = Knobs {
        delay_ecn_threshold: Some(Dur::from_millis(5)),
        ..Knobs::default()
    };
    let mut w = newreno(k, 1);
    // Each ACK covers one segment; a round ends when snd_una reaches the snd_nxt
    // (una + 10 segments) of the ACK that ended the round before.
    let a = |una: u64, rtt_ms: u64| AckSample {
        rtt: Some(Dur::from_millis(rtt_ms)),
        ..ack_at(una, una + 10 * MSS, 1, MSS)
    };
    // The first ACK ends the empty round 0 (min RTT 30 ms); the next round ends at 11.
    w.on_ack(Time(1), &a(MSS, 30));
    // Round 1: every other sample held 50 ms by a delayed-ACK timer. The round's
    // minimum is 30 ms, not above 30 + 5: no phantom ECN, NewReno slow-starts 20 -> 31.
    for i in 2..=11 {
        w.on_ack(Time(i), &a(i * MSS, if i % 2 == 0 { 80 } else { 30 }));
    }
    assert_eq!((w.cwnd(), w.info().delay_phantom_ecn), (31 * MSS, 0));
    // Round 2 (ends at 21): every sample 36 ms, a standing queue of 6 ms > 5 ms; the
    // round's last ACK fires the phantom ECN and NewReno halves 40 -> 20 segments.
    for i in 12..=20 {
        w.on_ack(Time(i), &a(i * MSS, 36));
    }
    assert_eq!((w.cwnd(), w.info().delay_phantom_ecn), (40 * MSS, 0));
    w.on_ack(Time(21), &a(21 * MSS, 36));
    assert_eq!(
        (
            w.cwnd(),
            w.info().delay_phantom_ecn,
            w.info().phantom_reductions
        ),
        (20 * MSS, 1, 1)
    );
}

// ---------------------------------------------------------------------------------
// Queueing-delay scaling μ.

fn vegas_wrapped(mu: f64) -> DaLbe {
    let init = CcInit {
        now: Time(0),
        mss: 1000,
        initial_cwnd: 10_000,
        rng: Rng::new(1),
    };
    let inner = (vegas::INFO.build)(&ParamSet::defaults(vegas::INFO.params), init);
    DaLbe::new(
        inner,
        Knobs {
            delay_based: true,
            base_rtt_based: true,
            mu,
            ..Knobs::default()
        },
        Rng::new(2),
    )
}

/// Linux Vegas (alpha 2, beta 4, gamma 1), MSS 1000, initial cwnd 10. ACK 1 (RTT
/// 100 ms) sets baseRTT = 100_001 µs and, with one sample, Reno slow start: cwnd 11,
/// beg_snd_nxt = 10 segments. ACKs 2..10 (RTT `rtt_ms`) slow-start to 20. ACK 11 passes
/// beg_snd_nxt: the Vegas decision with minRTT = the perceived `rtt_ms`.
/// Returns (cwnd, ssthresh) in segments.
fn vegas_round(mu: f64, rtt_ms: u64) -> (u64, u64) {
    let mut w = vegas_wrapped(mu);
    let a = |una: u64, nxt: u64, rtt: u64| AckSample {
        rtt: Some(Dur::from_millis(rtt)),
        ..ack_at(una * 1000, nxt * 1000, 1, 1000)
    };
    w.on_ack(Time(0), &a(1, 10, 100));
    for k in 2..=11 {
        w.on_ack(Time(k), &a(k, 20, rtt_ms));
    }
    let ss = w.ssthresh();
    (
        w.cwnd() / 1000,
        if ss == u64::MAX { u64::MAX } else { ss / 1000 },
    )
}

#[test]
fn mu_scaling_changes_vegas_decisions() {
    // μ = 1, RTT 130 ms: diff = 20·(130_001 - 100_001)/100_001 = 5 > gamma 1 in slow
    // start -> exit: target = 20·100_001/130_001 = 15, cwnd = min(20, 15 + 1) = 16,
    // ssthresh = min(inf, 16 - 1) = 15, then max(15, 16/2 + 16/4 = 12) = 15.
    assert_eq!(vegas_round(1.0, 130), (16, 15));
    // μ = 10: perceived RTT = 100 + 30/10 = 103 ms: diff = 20·3000/100_001 = 0 ≤ gamma:
    // slow start continues, 20 -> 21, ssthresh unset.
    assert_eq!(vegas_round(10.0, 130), (21, u64::MAX));
    // μ = 1, RTT 110 ms: diff = 20·10_000/100_001 = 1, not > gamma: continues to 21.
    assert_eq!(vegas_round(1.0, 110), (21, u64::MAX));
    // μ = 0.5 inflates it: 100 + 10/0.5 = 120 ms, diff = 20·20_000/100_001 = 3 > 1:
    // target = 20·100_001/120_001 = 16, cwnd = 17, ssthresh = max(16, 8 + 4) = 16.
    assert_eq!(vegas_round(0.5, 110), (17, 16));
}

#[test]
fn mu_scales_rtt_above_min_whole_rtt_and_owd() {
    let (mut w, log) = probe(Knobs {
        delay_based: true,
        base_rtt_based: true,
        mu: 2.0,
        ..Knobs::default()
    });
    // The echo RTT is the send-time RTT plus 4 ms of delayed-ACK hold.
    let a = |rtt_ms: u64, owd: i64| AckSample {
        rtt: Some(Dur::from_millis(rtt_ms)),
        ts_echo_rtt: Some(Dur::from_millis(rtt_ms + 4)),
        owd: Some(owd),
        ..ack_at(MSS, MSS, 1, MSS)
    };
    w.on_ack(Time(0), &a(40, -5_000_000));
    w.on_ack(Time(1), &a(60, 15_000_000));
    // RTT' = 40 + (60 - 40)/2 = 50 ms; OWD' = -5 ms + (15 - -5)/2 ms = 5 ms; the echo
    // scales about the same base: 40 + (64 - 40)/2 = 52 ms.
    let seen = log.lock().unwrap().acks[1];
    assert_eq!(
        (seen.rtt, seen.owd),
        (Some(Dur::from_millis(50)), Some(5_000_000))
    );
    assert_eq!(seen.ts_echo_rtt, Some(Dur::from_millis(52)));
    // The statistics keep raw samples.
    assert_eq!(
        (w.info().rtt_min, w.info().rtt_latest),
        (Some(Dur::from_millis(40)), Some(Dur::from_millis(60)))
    );
    // srtt = 40 + (60 - 40)/8 = 42.5 ms; flow mean (40 + 60)/2 = 50 ms.
    assert_eq!(w.info().srtt, Some(Dur::from_micros(42_500)));
    assert_eq!(w.info().rtt_mean(), Some(Dur::from_millis(50)));
    // Whole-RTT mode: RTT' = 60/2 = 30 ms.
    w.set_knobs(Knobs {
        base_rtt_based: false,
        ..w.knobs()
    });
    w.on_ack(Time(2), &a(60, 15_000_000));
    assert_eq!(log.lock().unwrap().acks[2].rtt, Some(Dur::from_millis(30)));
    // Delay-based mode off: untouched.
    w.set_knobs(Knobs::default());
    w.on_ack(Time(3), &a(60, 15_000_000));
    assert_eq!(log.lock().unwrap().acks[3].rtt, Some(Dur::from_millis(60)));
    assert_eq!(w.info().bytes_acked, MSS);
}

#[test]
fn vegas_delay_decrements_are_recorded() {
    // μ = 1, RTT 130 ms: the Vegas slow-start exit takes cwnd 20 -> 16 inside on_ack:
    // one delay reduction with ratio 16/20 = 0.8 (Wallenburg 2018 notes §11.6).
    let mut w = vegas_wrapped(1.0);
    let a = |una: u64, nxt: u64, rtt: u64| AckSample {
        rtt: Some(Dur::from_millis(rtt)),
        ..ack_at(una * 1000, nxt * 1000, 1, 1000)
    };
    w.on_ack(Time(0), &a(1, 10, 100));
    for k in 2..=11 {
        w.on_ack(Time(k), &a(k, 20, 130));
    }
    let i = w.info();
    assert_eq!((i.delay_reductions, i.reductions), (1, 0));
    assert!((i.delay_reduction_ratio_sum - 0.8).abs() < 1e-12);
    assert_eq!(i.packets_acked, 11);
}

// ---------------------------------------------------------------------------------
// MBC equations at sample points.

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

#[test]
fn common_equations() {
    // (2.2) 1.6e9 B left, 590 s to go: 2 711 864.4 B/s; capped; ζ_max after deadline.
    assert!(close(
        target_rate(1_600_000_000, Dur::from_secs(590), 1e12),
        1.6e9 / 590.0,
        1e-12
    ));
    assert_eq!(target_rate(1_600_000_000, Dur::from_secs(590), 1e6), 1e6);
    assert_eq!(target_rate(5, Dur::ZERO, 123.0), 123.0);
    // (2.3) 1 + ε = ζ_prev / x̄.
    assert_eq!(one_plus_error(3.0e6, 2.0e6), 1.5);
    assert_eq!(one_plus_error(3.0e6, 0.0), f64::INFINITY);
    assert_eq!(one_plus_error(0.0, 0.0), 1.0);
    // (2.5) prev 0.4, new 0.8: 0.4 > 0.05·0.8 -> 0.4 + 0.04 = 0.44; new 0.41: 0.01 ≤
    // 0.0205 -> 0.41; drops are free.
    assert!(close(growth_limit(0.4, 0.8, 0.05), 0.44, 1e-12));
    assert_eq!(growth_limit(0.4, 0.41, 0.05), 0.41);
    assert_eq!(growth_limit(0.4, 0.1, 0.05), 0.1);
    assert_eq!(clamp_w(f64::NAN, 0.0001, 1.0), 0.0001);
    assert_eq!(clamp_w(f64::INFINITY, 0.0001, 1.0), 1.0);
}

#[test]
fn cubic_model_price_matches_spec_values() {
    // q̂ = (C(3+β)/(4(1-β)))^{1/3}·RTT_min/ĉwnd^{4/3} = 1.0724·RTT_min/ĉwnd^{4/3}
    // (0.4·3.7/1.2 = 1.2333, cube root 1.07241). Wallenburg 2018 notes §6.3 sanity numbers,
    // 1500 B packets, RTT-bar 40 ms, RTT_min 30 ms:
    // 21.67 Mbit/s = 1805.8 pkt/s -> ĉwnd 72.23 -> q̂ ≈ 1.07e-4;
    // 10 Mbit/s = 833.3 pkt/s -> ĉwnd 33.33 -> q̂ ≈ 3.0e-4.
    let q1 = cubic_model_price(0.03, 21.67e6 / 8.0 / 1500.0 * 0.04, 0.7, 0.4);
    assert!(close(q1, 1.0695e-4, 1e-3), "{q1}");
    let q2 = cubic_model_price(0.03, 10e6 / 8.0 / 1500.0 * 0.04, 0.7, 0.4);
    assert!(close(q2, 2.9990e-4, 1e-3), "{q2}");
    // P(phantom) = q(1/ŵ - 1): q 1e-4, ŵ 0.5 -> 1e-4; ŵ 1 -> 0; saturates at 1.
    assert!(close(cubic_phantom_prob(1e-4, 0.5), 1e-4, 1e-12));
    assert_eq!(cubic_phantom_prob(1e-4, 1.0), 0.0);
    assert_eq!(cubic_phantom_prob(0.3, 0.0001), 1.0);
}

#[test]
fn vegas_equations_and_thesis_check_values() {
    // (2.7): P(loss) = 4e-5, W(delay) = 0.02, P(delay) = 5e-4:
    // q = (0.5·4e-5 + 0.02·5e-4)/(0.3·4e-5) = 3e-5/1.2e-5 = 2.5.
    assert!(close(
        vegas_price(0.5, 4e-5, 0.02, 5e-4, 0.3).unwrap(),
        2.5,
        1e-12
    ));
    // Wallenburg 2018 notes §6.4 magnitudes: P(loss) 5e-5, W(delay) 0.025, P(delay) 2e-3 -> 5.0.
    assert!(close(
        vegas_price(0.5, 5e-5, 0.025, 2e-3, 0.3).unwrap(),
        5.0,
        1e-12
    ));
    assert_eq!(vegas_price(0.5, 0.0, 0.02, 5e-4, 0.3), None);
    // w_base = (d/d̂)^(-q): d = 20 ms, d̂ = 10 ms, q = 2.5 -> 2^-2.5 = 0.1767767.
    assert!(close(
        vegas_w_base(0.020, 0.010, 2.5),
        0.176_776_695_3,
        1e-9
    ));
    assert_eq!(vegas_w_base(0.0, 0.010, 2.5), f64::INFINITY);
    // Wallenburg 2018 §5.1.2.3: at ŵ = 1, μ = 2.5 gives B = 1 - 1/2.5 = 0.6.
    assert!(close(vegas_ignore_backoff(2.5, 1.0, 1.0), 0.6, 1e-12));
    assert_eq!(vegas_ignore_backoff(2.5, 0.99, 1.0), 0.0);
    assert_eq!(vegas_ignore_backoff(0.8, 1.0, 1.0), 0.0);
    // Worked d̂ (Wallenburg 2018 notes §6.4): α = 16, 1500 B: 10 Mbit/s = 833.3 pkt/s -> 19.2 ms.
    assert!(close(16.0 / (10e6 / 8.0 / 1500.0), 0.0192, 1e-12));
}

/// A view at `t` seconds of a flow started at 0 with the given goal and counters.
#[allow(clippy::too_many_arguments)]
fn view(
    t: f64,
    size: u64,
    deadline_s: u64,
    acked: u64,
    pkts: u64,
    losses: u64,
    srtt_ms: u64,
    min_ms: u64,
    knobs: Knobs,
) -> FlowView {
    let info = DaLbeInfo {
        mss: 1000,
        bytes_acked: acked,
        packets_acked: pkts,
        loss_events: losses,
        srtt: Some(Dur::from_millis(srtt_ms)),
        rtt_min: Some(Dur::from_millis(min_ms)),
        ..DaLbeInfo::default()
    };
    FlowView::new(
        secs(t),
        Time::ZERO,
        FlowGoal {
            size: Some(size),
            deadline: Some(Dur::from_secs(deadline_s)),
        },
        info,
        knobs,
    )
}

#[test]
fn cubic_mbc_ticks_follow_alg1() {
    // S = 1.625e9 B, deadline 600 s, MSS 1000, srtt 40 ms, min RTT 30 ms.
    const S: u64 = 1_625_000_000;
    let mut c = CubicMbc::new(&CubicMbcConfig::default());
    let k0 = c.on_start(&view(0.0, S, 600, 0, 0, 0, 40, 30, Knobs::default()));
    assert_eq!(
        (k0.phantom_ecn_prob, k0.suppression_v, k0.ewma_weight),
        (0.0, 2, 96)
    );
    assert_eq!(c.interval(), Dur::from_secs(10));
    // t = 10 s: A = 25e6 B, N = 25 000, I = 2 (provisional price from the start):
    // q = 0.3·2/25 000 = 2.4e-5.
    // ζ(t1) = 1.6e9/590 = 2 711 864.4 B/s = 2711.86 pkt/s; ĉwnd = ×0.04 = 108.475;
    // q̂ = 0.03/(108.475^{4/3}·0.93248) = 6.21886e-5.
    // 1 + ε = ζ(t0)/x̄ = (1.625e9/600)/2.5e6 = 1.083333.
    // w1 = 2.4e-5/6.21886e-5·1.083333 = 0.418083 (a drop from w0 = 1: not limited).
    // P = 2.4e-5·(1/0.418083 - 1) = 3.34049e-5.
    let k1 = c.on_tick(
        secs(10.0),
        &view(10.0, S, 600, 25_000_000, 25_000, 2, 40, 30, k0),
    );
    let (q, q_hat, w) = c.state();
    assert!(close(q, 2.4e-5, 1e-12));
    assert!(close(q_hat, 6.218_860e-5, 1e-6), "{q_hat}");
    assert!(close(w, 0.418_083_04, 1e-6), "{w}");
    assert!(
        close(k1.phantom_ecn_prob, 3.340_486e-5, 1e-5),
        "{}",
        k1.phantom_ecn_prob
    );
    // t = 20 s: A = 35e6, N = 35 000, I = 2: q = 0.3·2/35 000 = 1.714286e-5;
    // ζ(t2) = 1.59e9/580 = 2 741 379.3 -> ĉwnd 109.655 -> q̂ = 6.129747e-5;
    // x̄ = 1e6 B/s, 1 + ε = 2 711 864.4/1e6 = 2.711864; w2 = 0.758418;
    // growth 0.758418 - 0.418083 > 0.05·0.758418 -> ŵ2 = 0.418083 + 0.037921 = 0.456004;
    // P = 1.714286e-5·(1/0.456004 - 1) = 2.04508e-5.
    let k2 = c.on_tick(
        secs(20.0),
        &view(20.0, S, 600, 35_000_000, 35_000, 2, 40, 30, k1),
    );
    let (_, _, w) = c.state();
    assert!(close(w, 0.456_003_94, 1e-6), "{w}");
    assert!(
        close(k2.phantom_ecn_prob, 2.045_080e-5, 1e-5),
        "{}",
        k2.phantom_ecn_prob
    );
    // After the deadline: ŵ may only grow by l_w per tick (0.456 + 0.05·1), and with
    // no congestion in the price window q stays as measured.
    let k3 = c.on_tick(
        secs(601.0),
        &view(601.0, S, 600, 1_600_000_000, 1_600_000, 2, 40, 30, k2),
    );
    let (_, _, w) = c.state();
    assert!(close(w, 0.506_003_94, 1e-6), "{w}");
    assert!(k3.phantom_ecn_prob < k2.phantom_ecn_prob);
}

#[test]
fn mbc_price_is_measured_every_price_interval() {
    const S: u64 = 10_000_000_000;
    let mut c = CubicMbc::new(&CubicMbcConfig::default());
    let mut k = c.on_start(&view(0.0, S, 6000, 0, 0, 0, 40, 30, Knobs::default()));
    // Provisional at 10..50 s; at 60 s the first full window [0, 60]: I = 8, N = 100 000
    // -> q = 0.3·8/1e5 = 2.4e-5.
    for t in [10.0, 20.0, 30.0, 40.0, 50.0, 60.0] {
        let n = (t as u64) * 1000;
        let i = if t < 60.0 { 1 } else { 8 };
        let n = if t < 60.0 { n } else { 100_000 };
        k = c.on_tick(secs(t), &view(t, S, 6000, n * 1000, n, i, 40, 30, k));
    }
    assert!(close(c.state().0, 2.4e-5, 1e-12));
    // 70 s: no new price even though the counters moved.
    k = c.on_tick(
        secs(70.0),
        &view(70.0, S, 6000, 110_000_000, 110_000, 50, 40, 30, k),
    );
    assert!(close(c.state().0, 2.4e-5, 1e-12));
    for t in [80.0, 90.0, 100.0, 110.0] {
        k = c.on_tick(
            secs(t),
            &view(t, S, 6000, 120_000_000, 120_000, 50, 40, 30, k),
        );
    }
    // 120.3 s (a late tick still counts): window [60, 120.3]: I = 58 - 8 = 50,
    // N = 200 000 - 100 000 -> q = 0.3·50/1e5 = 1.5e-4.
    c.on_tick(
        secs(120.3),
        &view(120.3, S, 6000, 200_000_000, 200_000, 58, 40, 30, k),
    );
    assert!(close(c.state().0, 1.5e-4, 1e-12));
}

#[allow(clippy::too_many_arguments)]
fn vegas_view(
    t: f64,
    size: u64,
    deadline_s: u64,
    acked: u64,
    pkts: u64,
    losses: u64,
    delay_red: u64,
    ratio_sum: f64,
) -> FlowView {
    let info = DaLbeInfo {
        mss: 1000,
        bytes_acked: acked,
        packets_acked: pkts,
        loss_events: losses,
        delay_reductions: delay_red,
        delay_reduction_ratio_sum: ratio_sum,
        // Flow mean RTT 40 ms (100 samples), base 20 ms: d = 20 ms.
        rtt_sum_secs: 4.0,
        rtt_samples: 100,
        srtt: Some(Dur::from_millis(30)),
        rtt_min: Some(Dur::from_millis(20)),
        ..DaLbeInfo::default()
    };
    FlowView::new(
        secs(t),
        Time::ZERO,
        FlowGoal {
            size: Some(size),
            deadline: Some(Dur::from_secs(deadline_s)),
        },
        info,
        Knobs::default(),
    )
}

#[test]
fn vegas_mbc_ticks_follow_alg3() {
    // S = 1.7e9 B, deadline 1010 s. t = 10 s: A = 1e8 B, N = 100 000, 4 losses, 50
    // delay reductions with mean ratio 0.98: q = (0.5·4e-5 + 0.02·5e-4)/(0.3·4e-5) = 2.5.
    // ζ(t1) = 1.6e9/1000 = 1.6e6 B/s = 1600 pkt/s -> d̂ = 16/1600 = 10 ms; d = 40 - 20 =
    // 20 ms -> w_base = 2^-2.5 = 0.176777. 1 + ε = (1.7e9/1010)/1e7 = 0.168317;
    // w = 0.029754 (drop from 1) -> μ = 2.5·0.029754 = 0.074386, B = 0.
    let mut v = VegasMbc::new(&VegasMbcConfig::default());
    let k0 = v.on_start(&vegas_view(0.0, 1_700_000_000, 1010, 0, 0, 0, 0, 0.0));
    assert!(k0.delay_based && k0.base_rtt_based && k0.mu == 1.0 && k0.loss_ignore_prob == 0.0);
    let k1 = v.on_tick(
        secs(10.0),
        &vegas_view(10.0, 1_700_000_000, 1010, 100_000_000, 100_000, 4, 50, 49.0),
    );
    let (phi, w, mu, b) = v.state();
    assert!(close(phi, 2.5, 1e-12));
    assert!(close(w, 0.029_754_493, 1e-6), "{w}");
    assert!(
        close(mu, 0.074_386_233, 1e-6) && close(k1.mu, mu, 1e-12),
        "{mu}"
    );
    assert_eq!((b, k1.loss_ignore_prob), (0.0, 0.0));
    assert!(k1.delay_based && k1.base_rtt_based);
}

#[test]
fn vegas_mbc_full_aggressiveness_gives_mu_2_5_and_b_0_6() {
    // Same price (q = 2.5, counters scaled to N = 1000), but the flow sent only 1e6 B in
    // the first 10 s: 1 + ε = (1.601e9/1010)/1e5 = 15.85, w = 0.176777·15.85 = 2.80 ->
    // clamped to 1, no growth from w0 = 1: ŵ = 1, μ = 2.5·1 = 2.5, B = 1 - 1/2.5 = 0.6
    // (Wallenburg 2018 §5.1.2.3).
    let mut v = VegasMbc::new(&VegasMbcConfig::default());
    v.on_start(&vegas_view(0.0, 1_601_000_000, 1010, 0, 0, 0, 0, 0.0));
    let k = v.on_tick(
        secs(10.0),
        &vegas_view(10.0, 1_601_000_000, 1010, 1_000_000, 1000, 4, 50, 49.0),
    );
    assert!(close(k.mu, 2.5, 1e-12), "{}", k.mu);
    assert!(
        close(k.loss_ignore_prob, 0.6, 1e-12),
        "{}",
        k.loss_ignore_prob
    );
    // The price φ then grows by at most l_φ = 1 % of the new value per T_φ: at 60 s the
    // full window [0, 60] gives q = (0.5·4 + 0.04·100)/(0.3·4) = 5.0 ->
    // φ = 2.5 + 0.01·5 = 2.55. (Ticks 20..50 s re-measure q = 2.5 provisionally.)
    for t in [20.0, 30.0, 40.0, 50.0] {
        v.on_tick(
            secs(t),
            &vegas_view(t, 1_601_000_000, 1010, 1_000_000, 1000, 4, 50, 49.0),
        );
    }
    assert!(close(v.state().0, 2.5, 1e-12));
    v.on_tick(
        secs(60.0),
        &vegas_view(60.0, 1_601_000_000, 1010, 6_000_000, 6000, 4, 100, 96.0),
    );
    assert!(close(v.state().0, 2.55, 1e-12), "{}", v.state().0);
    // Without loss events the price is not updated (eq. 2.7 is undefined).
    for t in [70.0, 80.0, 90.0, 100.0, 110.0, 120.0] {
        v.on_tick(
            secs(t),
            &vegas_view(t, 1_601_000_000, 1010, 7_000_000, 7000, 4, 900, 880.0),
        );
    }
    assert!(close(v.state().0, 2.55, 1e-12));
}

#[test]
fn mbcs_without_a_goal_leave_knobs_alone() {
    let k = Knobs {
        phantom_ecn_prob: 0.3,
        ..Knobs::default()
    };
    let v = FlowView::new(
        secs(10.0),
        Time::ZERO,
        FlowGoal::default(),
        DaLbeInfo::default(),
        k,
    );
    let mut c = CubicMbc::new(&CubicMbcConfig::default());
    c.on_start(&v);
    assert_eq!(c.on_tick(secs(10.0), &v), k);
    let mut g = VegasMbc::new(&VegasMbcConfig::default());
    g.on_start(&v);
    assert_eq!(g.on_tick(secs(10.0), &v), k);
}

// ---------------------------------------------------------------------------------
// Our controller.

fn ds_view(t: f64, acked: u64) -> FlowView {
    let info = DaLbeInfo {
        mss: 1000,
        bytes_acked: acked,
        rtt_min: Some(Dur::from_millis(30)),
        ..DaLbeInfo::default()
    };
    FlowView::new(
        secs(t),
        Time::ZERO,
        FlowGoal {
            size: Some(600_000_000),
            deadline: Some(Dur::from_secs(600)),
        },
        info,
        Knobs::default(),
    )
}

#[test]
fn deadline_switch_follows_the_schedule_with_hysteresis() {
    // S = 600e6 B, deadline 600 s: margin = max(5 s, 0.02·600 s) = 12 s, aim 588 s,
    // schedule rate ζ0 = 600e6/588 = 1 020 408 B/s. Lead L = (588 - t) - R/ζ0.
    let mut d = DeadlineSwitch::new(&DeadlineConfig::default());
    assert_eq!(d.aim(Time::ZERO, secs(600.0)), secs(588.0));
    // t = 0: L = 588 - 588 = 0 ≤ 0 -> best effort.
    let k = d.on_start(&ds_view(0.0, 0));
    assert_eq!((d.mode(), k), (Mode::BestEffort, Knobs::default()));
    // t = 100, A = 110e6: L = 488 - 490e6/ζ0 = 488 - 480.2 = 7.8 ≥ 5 -> LBE.
    let k = d.on_tick(secs(100.0), &ds_view(100.0, 110_000_000));
    assert_eq!(d.mode(), Mode::Lbe);
    assert!(close(d.lead(), 7.8, 1e-9), "{}", d.lead());
    // LBE knobs: phantom ECN when the RTT exceeds min + 0.25·30 ms = 7.5 ms.
    assert_eq!(k.delay_ecn_threshold, Some(Dur::from_micros(7500)));
    assert!(k.at_most_best_effort() && !k.delay_based && k.phantom_ecn_prob == 0.0);
    // t = 110, A = 115e6: L = 478 - 475.3 = 2.7, inside the band: stays LBE.
    d.on_tick(secs(110.0), &ds_view(110.0, 115_000_000));
    assert_eq!(d.mode(), Mode::Lbe);
    // t = 120, A = 118e6: L = 468 - 472.36 = -4.36 -> best effort.
    let k = d.on_tick(secs(120.0), &ds_view(120.0, 118_000_000));
    assert_eq!((d.mode(), k), (Mode::BestEffort, Knobs::default()));
    // t = 130, A = 135e6: L = 458 - 455.7 = 2.3, inside the band: stays best effort.
    d.on_tick(secs(130.0), &ds_view(130.0, 135_000_000));
    assert_eq!(d.mode(), Mode::BestEffort);
    // t = 140, A = 150e6: L = 448 - 441 = 7 -> LBE.
    d.on_tick(secs(140.0), &ds_view(140.0, 150_000_000));
    assert_eq!((d.mode(), d.switches()), (Mode::Lbe, 3));
    // Past the aim (588 s) with data left: best effort until done.
    let k = d.on_tick(secs(590.0), &ds_view(590.0, 599_000_000));
    assert_eq!((d.mode(), k), (Mode::BestEffort, Knobs::default()));
    // Finished: neutral.
    assert_eq!(
        d.on_tick(secs(595.0), &ds_view(595.0, 600_000_000)),
        Knobs::default()
    );
}

#[test]
fn deadline_switch_edge_cases() {
    let mut d = DeadlineSwitch::new(&DeadlineConfig::default());
    // A small min RTT: threshold floor 2 ms (0.25·4 ms = 1 ms).
    assert_eq!(
        d.lbe_knobs(Some(Dur::from_millis(4))).delay_ecn_threshold,
        Some(Dur::from_millis(2))
    );
    // No goal: a pure scavenger.
    let v = FlowView::new(
        secs(1.0),
        Time::ZERO,
        FlowGoal::default(),
        DaLbeInfo::default(),
        Knobs::default(),
    );
    assert_eq!(
        d.on_tick(secs(1.0), &v).delay_ecn_threshold,
        Some(Dur::from_millis(2))
    );
    assert_eq!(d.mode(), Mode::Lbe);
    // A deadline shorter than the margin: aim = start, best effort at once.
    assert_eq!(d.aim(Time::ZERO, secs(3.0)), Time::ZERO);
    // Delay-based LBE option: μ < 1 with base-RTT mode; never above 1.
    let d = DeadlineSwitch::new(&DeadlineConfig {
        lbe_mu: 0.25,
        lbe_phantom_prob: 0.001,
        ..DeadlineConfig::default()
    });
    let k = d.lbe_knobs(None);
    assert!(
        k.delay_based
            && k.base_rtt_based
            && k.mu == 0.25
            && k.suppression_v == 2
            && k.at_most_best_effort()
    );
}

// ---------------------------------------------------------------------------------
// The driver and user-written controllers.

#[test]
fn controlled_flow_ticks_every_interval_and_applies_knobs() {
    let (w, _log) = probe(Knobs::default());
    let goal = FlowGoal {
        size: Some(1_000_000),
        deadline: Some(Dur::from_secs(100)),
    };
    let mut f = ControlledFlow::new(
        w,
        Box::new(LinearPhantom {
            interval: Dur::from_secs(10),
        }),
        goal,
        Time::ZERO,
    );
    assert_eq!((f.next_tick(), f.ticks()), (secs(10.0), 0));
    f.on_ack(secs(5.0), &ack_at(MSS, MSS, 1, MSS));
    assert_eq!(f.ticks(), 0);
    // First event after 10 s: Listing 3.3, p = time left / period = 89.5/100.
    f.on_sent(
        secs(10.5),
        &SentInfo {
            bytes: MSS,
            bytes_in_flight: MSS,
            retransmission: false,
            seq: MSS,
            app_limited: false,
        },
    );
    assert_eq!(f.ticks(), 1);
    assert!(close(f.dalbe().knobs().phantom_ecn_prob, 0.895, 1e-12));
    assert_eq!(f.next_tick(), secs(20.0));
    // Quiet until 35 s: one tick, then the schedule resumes from now (45 s).
    f.on_ack(secs(35.0), &ack_at(2 * MSS, 2 * MSS, 1, MSS));
    assert_eq!((f.ticks(), f.next_tick()), (2, secs(45.0)));
    assert!(close(f.dalbe().knobs().phantom_ecn_prob, 0.65, 1e-12));
    assert_eq!(
        f.view(secs(35.0)).bytes_remaining,
        Some(1_000_000 - 2 * MSS)
    );
    assert_eq!(f.name(), "linear-phantom");
}

#[test]
fn working_hours_controller_switches_by_time_of_day() {
    // Clock starts at 08:00; LBE (phantom p = 0.05) from 09:00 to 17:00.
    let lbe = Knobs {
        phantom_ecn_prob: 0.05,
        ..Knobs::default()
    };
    let wh = WorkingHours {
        interval: Dur::from_secs(60),
        offset: Dur::from_secs(8 * 3600),
        day_start: Dur::from_secs(9 * 3600),
        day_end: Dur::from_secs(17 * 3600),
        lbe,
    };
    let (w, _log) = probe(Knobs::default());
    let mut f = ControlledFlow::new(w, Box::new(wh), FlowGoal::default(), Time::ZERO);
    assert_eq!(f.dalbe().knobs(), Knobs::default()); // 08:00
    assert!(f.poll(secs(3600.0))); // 09:00
    assert_eq!(f.dalbe().knobs(), lbe);
    assert!(f.poll(secs(9.0 * 3600.0))); // 17:00
    assert_eq!(f.dalbe().knobs(), Knobs::default());
}

#[test]
fn deadline_switch_runs_through_the_driver_on_newreno() {
    // 1 s ticks; S = 100 MB due in 100 s (aim 95 s, ζ0 = 1.0526e6 B/s). Starts BE;
    // 30 MB acked by 11 s (lead 84 - 70e6/1.0526e6 = 17.5 s) -> LBE with the delay knob.
    let w = newreno(Knobs::default(), 5);
    let goal = FlowGoal {
        size: Some(100_000_000),
        deadline: Some(Dur::from_secs(100)),
    };
    let mut f = ControlledFlow::new(
        w,
        Box::new(DeadlineSwitch::new(&DeadlineConfig::default())),
        goal,
        Time::ZERO,
    );
    assert_eq!(f.dalbe().knobs(), Knobs::default());
    // A tick runs before the event that triggers it, on the statistics so far: the ACK
    // at 9.5 s runs the overdue tick (A = 0 then, still BE; next tick 10.5 s) and is seen
    // by the tick the ACK at 11 s runs.
    let a = AckSample {
        rtt: Some(Dur::from_millis(30)),
        ..ack_at(30_000_000, 30_000_000, 1, MSS)
    };
    f.on_ack(secs(9.5), &a);
    assert_eq!(
        (f.dalbe().knobs(), f.next_tick()),
        (Knobs::default(), secs(10.5))
    );
    f.on_ack(secs(11.0), &a);
    assert_eq!(
        f.dalbe().knobs().delay_ecn_threshold,
        Some(Dur::from_micros(7500))
    );
    let mut out = Vec::new();
    f.trace(&mut out);
    assert!(out.iter().any(|&(n, v)| n == "ds_lbe" && v == 1.0));
}

/// docs/transfer.md "Progress the controller sees": over QUIC `snd_una` counts packet
/// headers, the handshake and lost packets, so a controller that reads progress from it
/// believes it is ahead. Scripted: S = 10 MB due in 20 s (margin max(5 s, 0.4 s) = 5 s,
/// aim 15 s, ζ0 = S/15 s), so the lead is L = (15 - t) - (S - A)/ζ0 = 1.5e-6·A - t.
/// Every packet is 1452 B on the wire carrying 1400 file bytes; the handshake is 3600 B.
/// P(t) packets are acknowledged by tick t (1 s ticks): 875·t up to t = 6, then 50 more
/// a second while 8 a second are lost (and, as QUIC does, skipped by `snd_una`).
///
/// t = 6: app A = 1400·5250 = 7.35e6 -> L = 11.025 - 6 = 5.025 ≥ 5 -> LBE (both).
/// t = 12: app A = 1400·5550 = 7.77e6 -> L = 11.655 - 12 = -0.345 ≤ 0 -> best effort;
/// `snd_una` = 3600 + 1452·(5550 + 48) = 8 131 896 -> L = 12.1978 - 12 = 0.198 > 0: the
/// old count stays LBE (inside the hysteresis band) although the transfer is behind.
#[test]
fn fed_progress_corrects_a_controller_that_header_overhead_puts_ahead() {
    let goal = FlowGoal {
        size: Some(10_000_000),
        deadline: Some(Dur::from_secs(20)),
    };
    let flow = || {
        ControlledFlow::new(
            newreno(Knobs::default(), 7),
            Box::new(DeadlineSwitch::new(&DeadlineConfig::default())),
            goal,
            Time::ZERO,
        )
    };
    let (mut old, mut fed) = (flow(), flow());
    let lead = |f: &ControlledFlow| {
        let mut out = Vec::new();
        f.trace(&mut out);
        out.iter().find(|(n, _)| *n == "ds_lead_s").unwrap().1
    };
    let lbe = |f: &ControlledFlow| f.dalbe().knobs().delay_ecn_threshold.is_some();
    for t in 1..=12u64 {
        let (acked, lost) = if t <= 6 {
            (875 * t, 0)
        } else {
            (5250 + 50 * (t - 6), 8 * (t - 6))
        };
        let una = 3600 + 1452 * (acked + lost);
        let a = ack_at(una, una, 1, 1452);
        // The ACK half a second before the tick; the tick sees it.
        old.on_ack(secs(t as f64 - 0.5), &a);
        fed.set_progress(1400 * acked);
        fed.on_ack(secs(t as f64 - 0.5), &a);
        assert!(
            old.poll(secs(t as f64)) && fed.poll(secs(t as f64)),
            "t = {t}"
        );
        match t {
            1..=5 => assert!(!lbe(&old) && !lbe(&fed), "t = {t}"),
            6 => {
                assert!(lbe(&old) && lbe(&fed));
                assert!(close(lead(&fed), 5.025, 1e-9), "{}", lead(&fed));
            }
            7..=11 => assert!(lbe(&old) && lbe(&fed), "t = {t}"),
            _ => {
                assert!(close(lead(&old), 12.197844 - 12.0, 1e-6), "{}", lead(&old));
                assert!(lbe(&old), "the snd_una count stays LBE");
                assert!(close(lead(&fed), -0.345, 1e-6), "{}", lead(&fed));
                assert_eq!(fed.dalbe().knobs(), Knobs::default(), "behind: best effort");
            }
        }
    }
    // The base algorithm still sees the sequence space: the wrapper's count is snd_una.
    assert_eq!(fed.dalbe().info().bytes_acked, 3600 + 1452 * (5550 + 48));
    assert_eq!(fed.view(secs(12.0)).bytes_acked, 1400 * 5550);
    // A resume: the goal becomes what is left to send in this connection.
    fed.set_goal(FlowGoal {
        size: Some(9_000_000),
        ..goal
    });
    assert_eq!(
        fed.view(secs(12.0)).bytes_remaining,
        Some(9_000_000 - 1400 * 5550)
    );
}
