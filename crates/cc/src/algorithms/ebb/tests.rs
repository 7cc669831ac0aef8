//! Ebb's equation-level tests: scripted ACK sequences, exact windows.

use super::*;
use crate::rng::Rng;

const MSS: u64 = 1000;
const BASE_MS: u64 = 50;

/// An Ebb past slow start (refill in one jump) with base RTT 50 ms, `cwnd_segs` segments, a remembered
/// capacity of `cap_mbps` (bdp = cap·50 ms), the current round ending at byte 1000.
fn ebb(cwnd_segs: u64, cap_mbps: u64) -> Ebb {
    let init = CcInit {
        now: Time::ZERO,
        mss: MSS,
        initial_cwnd: 10 * MSS,
        rng: Rng::new(1),
    };
    // A refill in one jump (refill_stage = 0, as before variant 24 of docs/ebb.md): the
    // tests of other rules script one refill round; the staged refill has its own tests.
    let cfg = EbbConfig {
        refill_stage: 0.0,
        ..EbbConfig::default()
    };
    let mut e = Ebb::new(&cfg, &init);
    e.cwnd = cwnd_segs * MSS;
    e.phase = Phase::Probe;
    e.base = Some(Dur::from_millis(BASE_MS));
    e.capacity = Rate::from_mbps(cap_mbps);
    e.round_end = 1000;
    e.round_start_cwnd = e.cwnd;
    e
}

fn ack(una: u64, rtt_us: u64) -> AckSample {
    AckSample {
        bytes_acked: MSS,
        rtt: Some(Dur::from_micros(rtt_us)),
        snd_una: una,
        snd_nxt: una + 100 * MSS,
        ..AckSample::empty(MSS)
    }
}

/// One round: an ACK per sample, the last one reaching the round's end.
fn round(e: &mut Ebb, rtts_us: &[u64]) {
    let start = e.round_end;
    for (i, &r) in rtts_us.iter().enumerate() {
        let last = i + 1 == rtts_us.len();
        let una = if last { start } else { start - 1 };
        e.on_ack(Time::ZERO, &ack(una, r));
    }
}

#[test]
fn config_defaults_match_spec_table() {
    assert_eq!(
        EbbConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
        EbbConfig::default()
    );
}

#[test]
fn a_small_queue_is_drained_to_half_the_target() {
    // q = min(57, 56) − 50 = 6 ms ∈ (4, 8] ms: k = (50 + 2)/(50 + 6) = 52/56.
    let mut e = ebb(100, 0);
    round(&mut e, &[57_000, 56_000]);
    assert_eq!(e.cwnd(), 100 * MSS * 52 / 56); // 92 857 bytes
    assert_eq!(e.phase, Phase::Yield);
}

#[test]
fn a_foreign_queue_cuts_by_the_square_of_target_over_queue() {
    // q = 10 ms > 2·target: k = min(md, (4/10)²) = 0.16 → 16 segments.
    let mut e = ebb(100, 0);
    round(&mut e, &[60_000, 61_000]);
    assert_eq!(e.cwnd(), 16 * MSS);
    // q = 8.5 ms: (4/8.5)² = 0.2214… → 22 145 bytes (22.1 segments).
    let mut e = ebb(100, 0);
    round(&mut e, &[58_500]);
    assert_eq!(e.cwnd(), 22_145);
    // q = 40 ms: (4/40)² = 0.01 → 1 segment, floored at min_cwnd = 2.
    let mut e = ebb(100, 0);
    round(&mut e, &[90_000]);
    assert_eq!(e.cwnd(), 2 * MSS);
}

#[test]
fn the_round_after_a_change_makes_no_decision() {
    // Round 1 decreases; round 2 carries packets sent before that and is ignored
    // even with the same queue; round 3 decides again.
    let mut e = ebb(100, 0);
    round(&mut e, &[60_000]);
    assert_eq!(e.cwnd(), 16 * MSS);
    round(&mut e, &[60_000]);
    assert_eq!(e.cwnd(), 16 * MSS);
    round(&mut e, &[60_000]);
    assert_eq!(e.cwnd(), 2560); // 16 000 · 0.16
}

#[test]
fn a_delayed_ack_sample_does_not_count_as_queue() {
    // One sample held 40 ms by the receiver's delayed-ACK timer, the others at base:
    // the round minimum is the base, so Ebb probes (+1 segment) instead of yielding.
    let mut e = ebb(100, 0);
    round(&mut e, &[90_000, 50_000, 50_200]);
    assert_eq!(e.cwnd(), 101 * MSS);
    assert_eq!(e.phase, Phase::Probe);
}

#[test]
fn an_empty_queue_below_the_remembered_bdp_refills_at_once() {
    // C = 16 Mbit/s, base 50 ms: bdp = 16e6/8 · 0.05 = 100 000 bytes. The window is
    // 2 segments after a yield; one round at q = 0.5 ms ≤ refill restores the bdp.
    let mut e = ebb(2, 16);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 100_000);
    assert_eq!(e.phase, Phase::Refill);
    // At or above the bdp, an empty queue only probes.
    let mut e = ebb(100, 16);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 101 * MSS);
}

#[test]
fn capacity_is_remembered_while_yielding() {
    // A round held at the floor with a 1 Mbit/s delivery rate does not lower the
    // 16 Mbit/s estimate: the flow was not trying to fill the link.
    let mut e = ebb(2, 16);
    e.bw_ring = vec![Rate::from_mbps(16)];
    let mut a = ack(1000, 60_000);
    a.rate = Some(RateSample {
        rate: Rate::from_mbps(1),
        interval: Dur::from_millis(50),
        delivered: 6250,
        app_limited: false,
    });
    e.on_ack(Time::ZERO, &a);
    assert_eq!(e.capacity, Rate::from_mbps(16));
    assert_eq!(e.bdp(), 100_000);
}

#[test]
fn loss_halves_and_slow_start_ends_on_eight_samples_above_target() {
    let mut e = ebb(100, 0);
    let loss = CongestionEvent {
        kind: CongestionKind::Loss,
        bytes_in_flight: 0,
        bytes_lost: MSS,
        mss: MSS,
    };
    e.on_congestion(Time::ZERO, &loss);
    assert_eq!(e.cwnd(), 50 * MSS);

    let mut e = ebb(10, 0);
    e.phase = Phase::SlowStart;
    e.round_end = 1_000_000;
    // Seven samples 5 ms above base grow the window by one segment each.
    for _ in 0..7 {
        e.on_ack(Time::ZERO, &ack(10, 55_000));
    }
    assert_eq!((e.cwnd(), e.phase), (17 * MSS, Phase::SlowStart));
    // The eighth makes the minimum of the last eight 5 ms > target: slow start ends
    // and the first slowdown is two rounds away.
    e.on_ack(Time::ZERO, &ack(10, 55_000));
    assert_eq!(e.phase, Phase::Yield);
    assert_eq!(e.until_slowdown, 2);
}

#[test]
fn a_slowdown_holds_the_floor_for_two_rounds_then_restores_the_window() {
    let mut e = ebb(100, 0);
    e.until_slowdown = 1;
    round(&mut e, &[50_000]);
    assert_eq!((e.cwnd(), e.phase), (2 * MSS, Phase::Slowdown));
    round(&mut e, &[50_000]);
    assert_eq!(e.cwnd(), 2 * MSS);
    round(&mut e, &[50_000]);
    assert_eq!((e.cwnd(), e.phase), (100 * MSS, Phase::Refill));
    assert_eq!(e.until_slowdown, 64);
}

#[test]
fn a_queue_its_own_window_does_not_explain_sends_ebb_to_the_floor() {
    // C = 16 Mbit/s, base 50 ms: bdp = 100 segments. At 104 segments Ebb's own queue
    // is 4 000 bytes at 2 MB/s = 2 ms; 8 samples 4.5 ms above base exceed it by more
    // than foreign = 2 ms: to min_cwnd at once, although 4.5 ms < 2·target.
    let mut e = ebb(104, 16);
    e.cfg.foreign = Dur::from_millis(2);
    e.avail_ring = vec![Rate::from_mbps(16)];
    e.round_end = 1_000_000;
    for _ in 0..8 {
        e.on_ack(Time::ZERO, &ack(10, 54_500));
    }
    assert_eq!((e.cwnd(), e.phase), (2 * MSS, Phase::Yield));
    // 3.5 ms is within 2 ms of the own 2 ms: no decision within the round.
    let mut e = ebb(104, 16);
    e.cfg.foreign = Dur::from_millis(2);
    e.avail_ring = vec![Rate::from_mbps(16)];
    e.round_end = 1_000_000;
    for _ in 0..8 {
        e.on_ack(Time::ZERO, &ack(10, 53_500));
    }
    assert_eq!(e.cwnd(), 104 * MSS);
}

#[test]
fn refill_growth_bounds_the_jump() {
    let mut e = ebb(2, 16);
    e.cfg.refill_growth = 2.0;
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 4 * MSS);
}

#[test]
fn eight_samples_above_twice_the_target_cut_within_the_round() {
    // q = 10 ms on each of the last 8 samples (> 2·target = 8 ms): the 8th ACK cuts by
    // (4/10)² = 0.16 at once, without waiting for the round's end at byte 10⁶, and
    // starts a new round ending at this ACK's snd_nxt (10 + 100 000), to be skipped.
    let mut e = ebb(100, 0);
    e.cfg.own_rate = false;
    e.round_end = 1_000_000;
    for _ in 0..7 {
        e.on_ack(Time::ZERO, &ack(10, 60_000));
    }
    assert_eq!(e.cwnd(), 100 * MSS);
    e.on_ack(Time::ZERO, &ack(10, 60_000));
    assert_eq!((e.cwnd(), e.phase), (16 * MSS, Phase::Yield));
    assert_eq!((e.round_end, e.hold), (100_010, true));
}

#[test]
fn an_empty_queue_at_the_remembered_bdp_probes_up_by_doubling_steps() {
    // C = 16 Mbit/s, base 50 ms: bdp = 100 segments; cwnd 100. Rounds at q = 0.5 ms
    // (≤ refill) add 1, 2, 4, 8 segments (BBRv2's ProbeBW_UP slope).
    let mut e = ebb(100, 16);
    e.cfg.probe_up = true;
    // The unheld, unbounded slope (variant 16a of docs/ebb.md).
    e.cfg.probe_hold = false;
    e.cfg.probe_max_queue = Dur::ZERO;
    e.bw_ring = vec![Rate::from_mbps(16)];
    let mut w = 100;
    for add in [1, 2, 4, 8] {
        round(&mut e, &[50_500]);
        w += add;
        assert_eq!(e.cwnd(), w * MSS, "step {add}");
        assert_eq!(e.phase, Phase::Probe);
    }
    // A round at q = 2 ms (a queue, below target) adds one segment and resets the
    // slope; the next empty round starts again at 1.
    round(&mut e, &[52_000]);
    assert_eq!(e.cwnd(), (w + 1) * MSS);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), (w + 2) * MSS);
    // A round whose minimum is clean but whose later samples met 10 ms of queue
    // (the probe's own, late in the round) adds one segment only.
    let mut e = ebb(100, 16);
    e.cfg.probe_up = true;
    // The unheld, unbounded slope (variant 16a of docs/ebb.md).
    e.cfg.probe_hold = false;
    e.cfg.probe_max_queue = Dur::ZERO;
    round(&mut e, &[50_500]);
    round(&mut e, &[50_500, 60_000]);
    assert_eq!(e.cwnd(), 102 * MSS);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 103 * MSS);
    // probe_up = false: one segment per round, always.
    let mut e = ebb(100, 16);
    e.cfg.probe_up = false;
    for _ in 0..3 {
        round(&mut e, &[50_500]);
    }
    assert_eq!(e.cwnd(), 103 * MSS);
}

#[test]
fn the_probe_step_is_at_most_a_quarter_of_the_window() {
    // 40 segments at a (stale) bdp of 16 segments: the step of 64 is cut to 10.
    let mut e = ebb(40, 16);
    e.cfg.probe_up = true;
    // The unheld, unbounded slope (variant 16a of docs/ebb.md).
    e.cfg.probe_hold = false;
    e.cfg.probe_max_queue = Dur::ZERO;
    e.base = Some(Dur::from_millis(8)); // bdp = 16e6/8 · 0.008 = 16 000 bytes
    e.probe_step = 64;
    round(&mut e, &[8_500]);
    assert_eq!(e.cwnd(), 50 * MSS);
    assert_eq!(e.probe_step, 128);
}

#[test]
fn a_round_with_a_sample_above_target_does_not_refill() {
    // Below the bdp at the floor, the round's minimum shows no queue but one sample
    // met a foreground's burst (12 ms > target): no refill (docs/ebb.md#refill).
    let mut e = ebb(2, 16);
    round(&mut e, &[50_200, 62_000]);
    assert_eq!(e.cwnd(), 3 * MSS);
    assert_eq!(e.phase, Phase::Probe);
    // A clean round refills to the bdp.
    round(&mut e, &[50_200, 50_400]);
    assert_eq!(e.cwnd(), 100_000);
    // Without the guard, the first round refills.
    let mut e = ebb(2, 16);
    e.cfg.refill_guard = false;
    round(&mut e, &[50_200, 62_000]);
    assert_eq!(e.cwnd(), 100_000);
}

#[test]
fn jitter_is_the_mean_difference_of_consecutive_samples_and_raises_the_refill_threshold() {
    // RFC 3550 §6.4.1: J += (|D| − J)/16. Samples 50, 52, 50 ms: J = 2/16 ms, then
    // 2/16 + (2 − 2/16)/16 = 0.2421875 ms.
    let mut e = ebb(2, 16);
    e.round_end = 1_000_000;
    for r in [50_000, 52_000, 50_000] {
        e.on_ack(Time::ZERO, &ack(10, r));
    }
    assert_eq!(e.jitter_ns, 242_187.5);
    // jitter_gain = 8: refill threshold 1 ms + 8 · 0.2421875 ms = 2.9375 ms.
    e.cfg.jitter_gain = 8.0;
    assert_eq!(e.refill_threshold(), Dur(2_937_500));
    e.round_min = None;
    e.round_max = None;
    round(&mut e, &[52_500]); // q = 2.5 ms: empty within the jitter allowance
    assert_eq!(e.cwnd(), 100_000);
}

#[test]
fn beside_a_constant_rate_stream_the_own_queue_counts_from_the_recent_delivery_rate() {
    // Remembered link 16 Mbit/s (bdp 100 segments); the last rounds delivered 8 Mbit/s
    // (a stream holds the rest): own queue = (cwnd − 8 Mbit/s · 50 ms)/16 Mbit/s.
    // At 70 segments: (70 000 − 50 000) B / 2 MB/s = 10 ms.
    let mut e = ebb(70, 16);
    e.cfg.drain_bytes = true;
    e.avail_ring = vec![Rate::from_mbps(8)];
    assert_eq!(e.own_queue(), Dur::from_millis(10));
    // A round at q = 11 ms (> 2·target, within own + foreign): drained to target/2,
    // not cut by (4/11)²: by bytes, (11 − 2) ms · 2 MB/s = 18 000 bytes removed.
    round(&mut e, &[61_000]);
    assert_eq!(e.cwnd(), 52_000);
    // Proportionally (drain_bytes = false): k = (50 + 2)/(50 + 11).
    let mut e = ebb(70, 16);
    e.cfg.drain_bytes = false;
    e.avail_ring = vec![Rate::from_mbps(8)];
    round(&mut e, &[61_000]);
    assert_eq!(e.cwnd(), 70 * MSS * 52 / 61);
    // The same queue with the whole link as the recent rate (own = 0): foreign, cut
    // by (4/11)² = 0.1322… → 9 256 bytes.
    let mut e = ebb(70, 16);
    e.avail_ring = vec![Rate::from_mbps(16)];
    round(&mut e, &[61_000]);
    assert_eq!(e.cwnd(), 9_256);
    // With own_rate = false the remembered BDP counts: own = 0 at 70 segments.
    let mut e = ebb(70, 16);
    e.cfg.own_rate = false;
    e.avail_ring = vec![Rate::from_mbps(8)];
    assert_eq!(e.own_queue(), Dur::ZERO);
}

#[test]
fn pacing_never_exceeds_the_remembered_rate_unless_the_window_asks_for_more() {
    // cwnd 90 000 B at base 50 ms: 1.25 · 90 000 · 8 / 0.05 = 18 Mbit/s, above the
    // remembered 16 Mbit/s: paced at 16.
    let e = ebb(90, 16);
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(16)));
    // 120 000 B: cwnd/base = 19.2 Mbit/s > 16: paced at cwnd/base (gain 1).
    let e = ebb(120, 16);
    let r = e.pacing_rate().unwrap().bps();
    assert!(r.abs_diff(19_200_000) <= 1, "{r}");
    // 40 000 B: 1.25 · 6.4 = 8 Mbit/s, below the cap.
    let e = ebb(40, 16);
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(8)));
    let mut e = ebb(90, 16);
    e.cfg.pace_cap = false;
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(18)));
}

#[test]
fn pacing_sends_two_segments_within_the_ack_pair_gap() {
    // 2 segments of 1000 B at base 600 ms: 1.25 · 2 000 · 8 / 0.6 = 33 333 bit/s, one
    // segment every 240 ms, each ACKed after the receiver's 40 ms delayed-ACK timer.
    // The floor: one segment per ack_pair_gap = 20 ms, 1 000 · 8 / 0.02 = 400 kbit/s.
    let mut e = ebb(2, 16);
    e.base = Some(Dur::from_millis(600));
    assert_eq!(e.pacing_rate(), Some(Rate::from_bps(400_000)));
    // Never above the remembered rate: C = 0.2 Mbit/s paces at 200 kbit/s.
    e.capacity = Rate::from_bps(200_000);
    assert_eq!(e.pacing_rate(), Some(Rate::from_bps(200_000)));
    // Off: cwnd/base with the gain.
    e.capacity = Rate::from_mbps(16);
    e.cfg.ack_pair_gap = Dur::ZERO;
    assert_eq!(e.pacing_rate(), Some(Rate::from_bps(33_333)));
    // A window whose own rate is above the floor is unchanged (40 segments at 50 ms:
    // 8 Mbit/s).
    let e = ebb(40, 16);
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(8)));
}

#[test]
fn the_round_after_a_jump_to_the_bdp_does_not_age_the_capacity() {
    // C = 16 Mbit/s (bdp 100 segments), at the floor. Round 1 (q = 0.5 ms) refills to
    // 100 segments; round 2 started at the bdp but ACKs the floor's packets (1 Mbit/s):
    // not in the filter. Round 3 (the round before it also at the bdp) is: 15 Mbit/s.
    let rated = |una: u64, mbps: u64| AckSample {
        rate: Some(RateSample {
            rate: Rate::from_mbps(mbps),
            interval: Dur::from_millis(50),
            delivered: 6250,
            app_limited: false,
        }),
        ..ack(una, 50_500)
    };
    let mut e = ebb(2, 16);
    e.cfg.held_prev = true;
    e.bw_ring = vec![Rate::from_mbps(16)];
    e.prev_start_cwnd = e.cwnd;
    round(&mut e, &[50_500]);
    assert_eq!((e.cwnd(), e.phase), (100_000, Phase::Refill));
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 1));
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16)]);
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 15));
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16), Rate::from_mbps(15)]);
    // Without held_prev the first round after the jump counts.
    let mut e = ebb(2, 16);
    e.cfg.held_prev = false;
    e.bw_ring = vec![Rate::from_mbps(16)];
    round(&mut e, &[50_500]);
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 1));
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16), Rate::from_mbps(1)]);
}

#[test]
fn the_probe_adds_at_most_probe_queue_of_queue_per_round() {
    // C = 2 Mbit/s, base 50 ms: bdp 12 500 B; a window of 20 segments at q = 2 ms
    // (above refill, below target) probes by C · 1 ms = 250 bytes, not a segment
    // (a segment is 4 ms of queue at 2 Mbit/s).
    let mut e = ebb(20, 2);
    e.cfg.probe_queue = Dur::from_millis(1);
    round(&mut e, &[52_000]);
    assert_eq!((e.cwnd(), e.phase), (20_250, Phase::Probe));
    // At 16 Mbit/s, 1 ms is 2 000 bytes: one segment.
    let mut e = ebb(120, 16);
    e.cfg.probe_queue = Dur::from_millis(1);
    round(&mut e, &[52_000]);
    assert_eq!(e.cwnd(), 121 * MSS);
    // At 0.5 Mbit/s, 62 bytes is below 1/8 segment: 125 bytes.
    let mut e = ebb(20, 0);
    e.cfg.probe_queue = Dur::from_millis(1);
    e.capacity = Rate::from_bps(500_000);
    round(&mut e, &[52_000]);
    assert_eq!(e.cwnd(), 20_125);
    // probe_queue = 0 (the default): one segment.
    let mut e = ebb(20, 2);
    round(&mut e, &[52_000]);
    assert_eq!(e.cwnd(), 21 * MSS);
}

#[test]
fn an_own_queue_is_drained_by_its_bytes_at_the_remembered_rate() {
    // C = 16 Mbit/s (2 MB/s), base 50 ms, 104 segments, q = 6 ms (≤ 2·target): remove
    // (6 − 2) ms · 2 MB/s = 8 000 bytes → 96 000 (alone: the queue left is target/2).
    let mut e = ebb(104, 16);
    e.cfg.drain_bytes = true;
    e.avail_ring = vec![Rate::from_mbps(16)];
    round(&mut e, &[56_000, 57_000]);
    assert_eq!((e.cwnd(), e.phase), (96_000, Phase::Yield));
    // A queue larger than the window: to the floor.
    let mut e = ebb(5, 16);
    e.cfg.drain_bytes = true;
    e.cfg.foreign = Dur::ZERO;
    e.avail_ring = vec![Rate::ZERO];
    round(&mut e, &[57_000]);
    assert_eq!(e.cwnd(), 2 * MSS);
    // No remembered rate: the proportional rule, (50 + 2)/(50 + 6).
    let mut e = ebb(104, 0);
    e.cfg.drain_bytes = true;
    round(&mut e, &[56_000]);
    assert_eq!(e.cwnd(), 104 * MSS * 52 / 56);
}

/// An ACK at `una` with RTT `rtt_us` and a delivery-rate sample of `bps`.
fn rated(una: u64, rtt_us: u64, bps: u64) -> AckSample {
    AckSample {
        rate: Some(RateSample {
            rate: Rate::from_bps(bps),
            interval: Dur::from_millis(50),
            delivered: 6250,
            app_limited: false,
        }),
        ..ack(una, rtt_us)
    }
}

#[test]
fn the_first_decision_after_a_refill_drains_the_queue_by_its_bytes() {
    // C = 16 Mbit/s (2 MB/s), base 50 ms: bdp 100 000 B. From the floor, q = 0.5 ms
    // refills to 100 000; the next round is held; the one after meets q = 10 ms,
    // which the window explains (A = 8 Mbit/s: own = (100 000 − 50 000) B / 2 MB/s
    // = 25 ms), so it is
    // drained: by bytes, 100 000 − (10 − 2) ms · 2 MB/s = 84 000.
    let mut e = ebb(2, 16);
    e.cfg.refill_drain = true;
    e.bw_ring = vec![Rate::from_mbps(16)];
    e.avail_ring = vec![Rate::from_mbps(8)];
    round(&mut e, &[50_500]);
    assert_eq!((e.cwnd(), e.phase), (100_000, Phase::Refill));
    round(&mut e, &[60_000]);
    assert_eq!(e.cwnd(), 100_000, "the round after the refill is held");
    round(&mut e, &[60_000]);
    assert_eq!((e.cwnd(), e.phase), (84_000, Phase::Yield));
    // Held again; the next decision is not right after a refill: proportional,
    // 84 000 · (50 + 2)/(50 + 6) = 78 000.
    round(&mut e, &[56_000]);
    round(&mut e, &[56_000]);
    assert_eq!(e.cwnd(), 78_000);
    // refill_drain = false: the first decision is proportional, 100 000 · 52/60.
    let mut e = ebb(2, 16);
    e.bw_ring = vec![Rate::from_mbps(16)];
    e.avail_ring = vec![Rate::from_mbps(8)];
    round(&mut e, &[50_500]);
    round(&mut e, &[60_000]);
    round(&mut e, &[60_000]);
    assert_eq!(e.cwnd(), 100_000 * 52 / 60);
}

#[test]
fn a_round_at_the_bdp_with_a_queue_does_not_enter_the_capacity_filter() {
    // C = 16 Mbit/s, 100 segments held (bdp 100 000 B). A round at q = 10 ms that
    // delivered 10 Mbit/s shared the link: with held_clean it stays out of the
    // filter; a round at q = 2 ms (≤ target) at 15 Mbit/s enters it.
    let mut e = ebb(100, 16);
    e.cfg.held_clean = true;
    e.bw_ring = vec![Rate::from_mbps(16)];
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 60_000, 10_000_000));
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16)]);
    let mut e = ebb(100, 16);
    e.cfg.held_clean = true;
    e.bw_ring = vec![Rate::from_mbps(16)];
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 52_000, 15_000_000));
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16), Rate::from_mbps(15)]);
    // Without held_clean the shared round counts.
    let mut e = ebb(100, 16);
    e.bw_ring = vec![Rate::from_mbps(16)];
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 60_000, 10_000_000));
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16), Rate::from_mbps(10)]);
}

#[test]
fn a_held_probe_step_doubles_only_while_the_delivery_rate_follows() {
    // C = 16 Mbit/s, base 50 ms (bdp 100 segments), 110 segments at an empty queue:
    // step 1 → 111, and the next round is held (its ACKs are for packets sent before
    // the step).
    let mut e = ebb(110, 16);
    e.cfg.probe_up = true;
    e.cfg.probe_hold = true;
    e.bw_ring = vec![Rate::from_mbps(16)];
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 111 * MSS);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 111 * MSS, "held");
    // The step of 1 000 B could add 1 000 · 8 / 0.05 = 0.16 Mbit/s; the rate rose by
    // 0.2 Mbit/s (≥ half of that): the doubled step, 2 segments → 113.
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 50_500, 16_200_000));
    assert_eq!(e.cwnd(), 113 * MSS);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 113 * MSS, "held");
    // The 2-segment step could add 0.32 Mbit/s; the rate stayed at 16.2: the link is
    // full, the slope falls back to one segment → 114.
    let end = e.round_end;
    e.on_ack(Time::ZERO, &rated(end, 50_500, 16_200_000));
    assert_eq!(e.cwnd(), 114 * MSS);
}

#[test]
fn probe_max_queue_bounds_a_probe_up_step() {
    // C = 16 Mbit/s (2 MB/s): 4 ms is 8 000 bytes; the step of 64 segments is cut to
    // 8 segments. Below one segment's worth, one segment.
    let mut e = ebb(200, 16);
    e.cfg.probe_up = true;
    e.cfg.probe_max_queue = Dur::from_millis(4);
    e.probe_step = 64;
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 208 * MSS);
    let mut e = ebb(200, 16);
    e.cfg.probe_up = true;
    e.cfg.probe_max_queue = Dur::from_micros(100);
    e.probe_step = 64;
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 201 * MSS);
}

#[test]
fn a_two_stage_refill_stops_at_the_stage_then_goes_on_while_the_queue_stays_empty() {
    // bdp = 100 000 bytes (C = 16 Mbit/s, base 50 ms); refill_stage = ½: stage = 50 000.
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    round(&mut e, &[50_500]); // q = 0.5 ms ≤ refill, cwnd 2 000 < stage: first stage
    assert_eq!((e.cwnd(), e.phase), (50_000, Phase::Refill));
    round(&mut e, &[50_500]); // the held round decides nothing
    assert_eq!(e.cwnd(), 50_000);
    round(&mut e, &[50_500]); // still empty at the stage: on to the whole bdp
    assert_eq!((e.cwnd(), e.phase), (100_000, Phase::Refill));
    // A foreground's share shows after the first stage: q = 3 ms ∈ (refill, target]
    // only probes, one segment (below the bdp, so no probe up).
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    round(&mut e, &[50_500]);
    round(&mut e, &[50_500]);
    round(&mut e, &[53_000]);
    assert_eq!((e.cwnd(), e.phase), (51_000, Phase::Probe));
    // From at or above the stage, a refill goes to the bdp at once.
    let mut e = ebb(60, 16);
    e.cfg.refill_stage = 0.5;
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 100_000);
}

#[test]
fn with_stage_from_floor_only_a_refill_from_the_floor_is_staged() {
    // bdp = 100 000 bytes, stage = 50 000; the floor is 2 segments.
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    e.cfg.stage_from_floor = true;
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 50_000);
    // From 30 segments (a share, not the floor): straight to the bdp.
    let mut e = ebb(30, 16);
    e.cfg.refill_stage = 0.5;
    e.cfg.stage_from_floor = true;
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 100_000);
}
