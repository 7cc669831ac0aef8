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
    // The drain of an own queue within target (own_target, variant 25) is off here too:
    // the tests of the other rules script queues of 1-4 ms; own_target has its own test.
    // The two defaults of variant 37 (docs/ebb.md#variant-37) are at variant 35's values
    // here, as the tests of the rules they change were scripted: the second stage at a
    // round end (stage_early) and one more clean round after a failed refill
    // (refill_backoff = 1); each has its own test. foreign_burst is off, as by default.
    let cfg = EbbConfig {
        refill_stage: 0.0,
        own_target: Dur::ZERO,
        foreign_burst: false,
        stage_early: false,
        refill_backoff: 1,
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

/// Where a scripted ACK sequence stops.
#[derive(Clone, Copy, PartialEq)]
enum Upto {
    /// The last ACK reaches the round's end (the others the byte before it): a round-end
    /// decision.
    End,
    /// Every ACK stays inside a round that ends at byte 10⁶ (`snd_una` 10): only the
    /// within-round rules (slow-start exit, fast yield, foreign queue) act.
    Within,
}

/// Scripted ACKs, one per RTT sample (µs), each carrying a delivery-rate sample of
/// `bps` bit/s (over 50 ms, not app-limited) when given. The one loop every test feeds
/// Ebb through.
fn ack_round(e: &mut Ebb, rtts_us: &[u64], bps: Option<u64>, upto: Upto) {
    if upto == Upto::Within {
        e.round_end = 1_000_000;
    }
    let start = e.round_end;
    for (i, &r) in rtts_us.iter().enumerate() {
        let una = match upto {
            Upto::Within => 10,
            Upto::End if i + 1 == rtts_us.len() => start,
            Upto::End => start - 1,
        };
        let mut a = ack(una, r);
        a.rate = bps.map(|bps| RateSample {
            rate: Rate::from_bps(bps),
            interval: Dur::from_millis(50),
            delivered: 6250,
            app_limited: false,
        });
        e.on_ack(Time::ZERO, &a);
    }
}

/// One round without rate samples, ending with a round-end decision.
fn round(e: &mut Ebb, rtts_us: &[u64]) {
    ack_round(e, rtts_us, None, Upto::End);
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
    ack_round(&mut e, &[60_000], Some(1_000_000), Upto::End);
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
    // Seven samples 5 ms above base grow the window by one segment each.
    ack_round(&mut e, &[55_000; 7], None, Upto::Within);
    assert_eq!((e.cwnd(), e.phase), (17 * MSS, Phase::SlowStart));
    // The eighth makes the minimum of the last eight 5 ms > target: slow start ends
    // and the first slowdown is two rounds away.
    ack_round(&mut e, &[55_000], None, Upto::Within);
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
    ack_round(&mut e, &[54_500; 8], None, Upto::Within);
    assert_eq!((e.cwnd(), e.phase), (2 * MSS, Phase::Yield));
    // 3.5 ms is within 2 ms of the own 2 ms: no decision within the round.
    let mut e = ebb(104, 16);
    e.cfg.foreign = Dur::from_millis(2);
    e.avail_ring = vec![Rate::from_mbps(16)];
    ack_round(&mut e, &[53_500; 8], None, Upto::Within);
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
    ack_round(&mut e, &[60_000; 7], None, Upto::Within);
    assert_eq!(e.cwnd(), 100 * MSS);
    ack_round(&mut e, &[60_000], None, Upto::Within);
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
    // Without the guard (and without the rules of variant 35 that also read that
    // sample: the round's mean queue, 6.1 ms, and the clean-round count), the first
    // round refills.
    let mut e = ebb(2, 16);
    e.cfg.refill_guard = false;
    e.cfg.stage_mean = false;
    e.cfg.refill_backoff = 0;
    round(&mut e, &[50_200, 62_000]);
    assert_eq!(e.cwnd(), 100_000);
}

#[test]
fn jitter_is_the_mean_difference_of_consecutive_samples_and_raises_the_refill_threshold() {
    // RFC 3550 §6.4.1: J += (|D| − J)/16. Samples 50, 52, 50 ms: J = 2/16 ms, then
    // 2/16 + (2 − 2/16)/16 = 0.2421875 ms.
    let mut e = ebb(2, 16);
    // The threshold without refill_burst's segment (on by default since 104e573-tso).
    e.cfg.refill_burst = false;
    ack_round(&mut e, &[50_000, 52_000, 50_000], None, Upto::Within);
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
    let mut e = ebb(2, 16);
    e.cfg.held_prev = true;
    e.bw_ring = vec![Rate::from_mbps(16)];
    e.prev_start_cwnd = e.cwnd;
    round(&mut e, &[50_500]);
    assert_eq!((e.cwnd(), e.phase), (100_000, Phase::Refill));
    ack_round(&mut e, &[50_500], Some(1_000_000), Upto::End);
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16)]);
    ack_round(&mut e, &[50_500], Some(15_000_000), Upto::End);
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16), Rate::from_mbps(15)]);
    // Without held_prev the first round after the jump counts.
    let mut e = ebb(2, 16);
    e.cfg.held_prev = false;
    e.bw_ring = vec![Rate::from_mbps(16)];
    round(&mut e, &[50_500]);
    ack_round(&mut e, &[50_500], Some(1_000_000), Upto::End);
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16), Rate::from_mbps(1)]);
}

#[test]
fn the_probe_adds_at_most_probe_queue_of_queue_per_round() {
    // C = 2 Mbit/s, base 50 ms: bdp 12 500 B; a window of 20 segments at q = 2 ms
    // (above refill, below target) probes by C · 1 ms = 250 bytes, not a segment
    // (a segment is 4 ms of queue at 2 Mbit/s). Without refill_burst (on by default),
    // whose segment would count q = 2 ms as empty.
    let mut e = ebb(20, 2);
    e.cfg.refill_burst = false;
    e.cfg.probe_queue = Dur::from_millis(1);
    round(&mut e, &[52_000]);
    assert_eq!((e.cwnd(), e.phase), (20_250, Phase::Probe));
    // At 16 Mbit/s, 1 ms is 2 000 bytes: one segment.
    let mut e = ebb(120, 16);
    e.cfg.refill_burst = false;
    e.cfg.probe_queue = Dur::from_millis(1);
    round(&mut e, &[52_000]);
    assert_eq!(e.cwnd(), 121 * MSS);
    // At 0.5 Mbit/s, 62 bytes is below 1/8 segment: 125 bytes.
    let mut e = ebb(20, 0);
    e.cfg.refill_burst = false;
    e.cfg.probe_queue = Dur::from_millis(1);
    e.capacity = Rate::from_bps(500_000);
    round(&mut e, &[52_000]);
    assert_eq!(e.cwnd(), 20_125);
    // probe_queue = 0 (the default): one segment.
    let mut e = ebb(20, 2);
    e.cfg.refill_burst = false;
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
    ack_round(&mut e, &[60_000], Some(10_000_000), Upto::End);
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16)]);
    let mut e = ebb(100, 16);
    e.cfg.held_clean = true;
    e.bw_ring = vec![Rate::from_mbps(16)];
    ack_round(&mut e, &[52_000], Some(15_000_000), Upto::End);
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16), Rate::from_mbps(15)]);
    // Without held_clean the shared round counts.
    let mut e = ebb(100, 16);
    e.bw_ring = vec![Rate::from_mbps(16)];
    ack_round(&mut e, &[60_000], Some(10_000_000), Upto::End);
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
    ack_round(&mut e, &[50_500], Some(16_200_000), Upto::End);
    assert_eq!(e.cwnd(), 113 * MSS);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 113 * MSS, "held");
    // The 2-segment step could add 0.32 Mbit/s; the rate stayed at 16.2: the link is
    // full, the slope falls back to one segment → 114.
    ack_round(&mut e, &[50_500], Some(16_200_000), Upto::End);
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

#[test]
fn an_early_second_stage_follows_eight_clean_segments_of_the_first() {
    // bdp = 100 000 bytes (C = 16 Mbit/s, base 50 ms), stage = 50 000. The round-end
    // decision at snd_una 1 000 (snd_nxt 101 000) takes the first stage; ACKs past
    // 101 000 are for the stage's packets, and 8 segments of them (8 000 bytes < the
    // stage) at q = 0.5 ms ≤ refill take the second stage at once.
    let staged = |early: bool| {
        let mut e = ebb(2, 16);
        e.cfg.refill_stage = 0.5;
        e.cfg.stage_early = early;
        round(&mut e, &[50_500]);
        assert_eq!(
            (e.cwnd(), e.stage_mark),
            (50_000, early.then_some((101_000, 8_000)))
        );
        round(&mut e, &[50_500]); // held: ACKs for packets sent before the stage
        assert_eq!(e.cwnd(), 50_000);
        e
    };
    let mut e = staged(true);
    e.on_ack(Time::ZERO, &ack(105_000, 50_500)); // 4 000 bytes of the stage back
    assert_eq!(e.cwnd(), 50_000);
    e.on_ack(Time::ZERO, &ack(109_000, 50_500)); // 8 000: on to the bdp
    assert_eq!((e.cwnd(), e.phase), (100_000, Phase::Refill));
    // A new, held round from this ACK's snd_nxt; the wait is over.
    assert_eq!((e.round_end, e.hold, e.stage_mark), (209_000, true, None));
    // One stage sample with 2 ms of queue (a foreground's share) ends the wait: the
    // round-end rules decide.
    let mut e = staged(true);
    e.on_ack(Time::ZERO, &ack(105_000, 52_000));
    e.on_ack(Time::ZERO, &ack(109_000, 50_500));
    assert_eq!((e.cwnd(), e.stage_mark), (50_000, None));
    // Off: the second stage waits for the round's end.
    let mut e = staged(false);
    e.on_ack(Time::ZERO, &ack(109_000, 50_500));
    assert_eq!(e.cwnd(), 50_000);
}

#[test]
fn own_target_drains_an_own_queue_below_target() {
    // C = 16 Mbit/s (2 MB/s), base 50 ms, recent rate the whole link: at 104 segments
    // Ebb's own queue is 4 000 B / 2 MB/s = 2 ms. own_target = 2 ms: a round at q = 3 ms
    // (within target) is drained to own_target/2: k = (50 + 1)/(50 + 3) → 100 075 bytes.
    let own = |segs: u64, target_ms: u64, rtt_us: u64| {
        let mut e = ebb(segs, 16);
        e.cfg.own_target = Dur::from_millis(target_ms);
        e.avail_ring = vec![Rate::from_mbps(16)];
        round(&mut e, &[rtt_us]);
        (e.cwnd(), e.phase)
    };
    assert_eq!(own(104, 2, 53_000), (104_000 * 51 / 53, Phase::Yield));
    // q = 1.5 ms ≤ own_target: the probe, one segment.
    assert_eq!(own(104, 2, 51_500), (105 * MSS, Phase::Probe));
    // own_target = 0 (off): q = 3 ms probes as before.
    assert_eq!(own(104, 0, 53_000), (105 * MSS, Phase::Probe));
    // Above target the proportional rule drains to own_target/2 too: (50 + 1)/(50 + 6).
    assert_eq!(own(104, 2, 56_000), (104_000 * 51 / 56, Phase::Yield));
    // At the bdp the window explains no queue: 3 ms is more than foreign = 2 ms beyond
    // it, someone else's within target, and Ebb probes.
    assert_eq!(own(100, 2, 53_000), (101 * MSS, Phase::Probe));
}

#[test]
fn a_refill_below_the_bdp_is_paced_at_its_window_rate() {
    // C = 16 Mbit/s, base 50 ms. A first stage of 50 000 bytes: 50 000 · 8 / 0.05 =
    // 8 Mbit/s, half the remembered rate, so the stage adds no queue beside a flow that
    // holds less than half the link.
    let mut e = ebb(50, 16);
    e.phase = Phase::Refill;
    e.cfg.refill_pace_window = true;
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(8)));
    // At or above the bdp: the remembered rate, as before.
    e.cwnd = 120 * MSS;
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(16)));
    // Off: the remembered rate at any window.
    e.cwnd = 50 * MSS;
    e.cfg.refill_pace_window = false;
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(16)));
}

#[test]
fn refill_rounds_asks_for_consecutive_empty_rounds() {
    // bdp = 100 000 bytes; refill_rounds = 2. One empty round only probes (one
    // segment); the second in a row refills.
    let mut e = ebb(2, 16);
    e.cfg.refill_rounds = 2;
    round(&mut e, &[50_500]);
    assert_eq!((e.cwnd(), e.phase), (3 * MSS, Phase::Probe));
    round(&mut e, &[50_500]);
    assert_eq!((e.cwnd(), e.phase), (100_000, Phase::Refill));
    // A round with 2 ms of queue (above refill) in between starts the count again.
    let mut e = ebb(2, 16);
    e.cfg.refill_rounds = 2;
    round(&mut e, &[50_500]);
    round(&mut e, &[52_000]);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 5 * MSS);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 100_000);
}

/// An Ebb in slow start at 10 segments, base 50 ms from a first ACK at time 0, then
/// `n` ACKs 1 ms apart, each for 2 segments (a delayed-ACK pair) and 5 ms above base.
fn slow_start_with_queue(cfg: EbbConfig, n: u64) -> Ebb {
    slow_start_with_queue_after(cfg, n, None)
}

/// `slow_start_with_queue` whose first ACK carries the delivery-rate sample `first_rate`.
fn slow_start_with_queue_after(cfg: EbbConfig, n: u64, first_rate: Option<Rate>) -> Ebb {
    let init = CcInit {
        now: Time::ZERO,
        mss: MSS,
        initial_cwnd: 10 * MSS,
        rng: Rng::new(1),
    };
    let mut e = Ebb::new(&cfg, &init);
    e.round_end = 1_000_000;
    let mut first = ack(1000, 50_000);
    first.rate = first_rate.map(|rate| RateSample {
        rate,
        interval: Dur::from_millis(50),
        delivered: rate.bytes_in(Dur::from_millis(50)),
        app_limited: false,
    });
    e.on_ack(Time::ZERO, &first);
    for i in 1..=n {
        let mut a = ack(1000 + 2000 * i, 55_000);
        a.bytes_acked = 2 * MSS;
        e.on_ack(Time(i * 1_000_000), &a);
    }
    e
}

#[test]
fn a_slow_start_exit_on_delay_takes_the_ack_rate_of_the_last_eight_acks() {
    // Eight ACKs 5 ms above base end slow start at the 9th ACK (the first set the
    // base). The last eight ACKs (the 2nd to the 9th, 1 to 8 ms) cover 7 × 2000 bytes
    // in 7 ms: 16 Mbit/s, so C = 16 Mbit/s and the BDP at 50 ms is 100 segments
    // (docs/ebb.md#ss-ack-rate). No delivery-rate sample came, so without the rule C
    // stays unknown.
    let e = slow_start_with_queue(EbbConfig::default(), 8);
    assert_eq!(e.phase, Phase::Yield);
    assert_eq!(e.capacity, Rate::from_mbps(16));
    assert_eq!(e.bw_ring, vec![Rate::from_mbps(16)]);
    assert_eq!(e.bdp(), 100 * MSS);
    let off = slow_start_with_queue(
        EbbConfig {
            ss_ack_rate: false,
            ..EbbConfig::default()
        },
        8,
    );
    assert_eq!(off.phase, Phase::Yield);
    assert_eq!(off.capacity, Rate::ZERO);
}

#[test]
fn after_a_slow_start_exit_the_queue_is_drained_not_read_as_foreign() {
    // The exit sets the slow-start-queue mark (docs/ebb.md#ss-own).
    let e = slow_start_with_queue(EbbConfig::default(), 8);
    assert!(e.ss_queue);
    // C = 16 Mbit/s, 100 segments = the BDP, own queue 0. With the mark, eight samples
    // 30 ms above base (more than foreign = 2 ms beyond the own 0 ms) do not send Ebb
    // to the floor within the round; the round end drains by the proportional rule,
    // k = (50 + 4/2)/(50 + 30) = 52/80 (own_target = 0 here: target), 65 segments.
    let mut e = ebb(100, 16);
    e.avail_ring = vec![Rate::from_mbps(16)];
    e.ss_queue = true;
    ack_round(&mut e, &[80_000; 8], None, Upto::Within);
    assert_eq!(e.cwnd(), 100 * MSS);
    e.round_end = 1000;
    round(&mut e, &[80_000]);
    assert_eq!((e.cwnd(), e.phase), (65 * MSS, Phase::Yield));
    // That decision was the mark's last: the round end after the held one clears it
    // whatever the queue (a foreground that starts meanwhile is yielded to).
    assert!(!e.ss_queue);
    // Without the mark the same queue is foreign: to the floor within the round.
    let mut e = ebb(100, 16);
    e.avail_ring = vec![Rate::from_mbps(16)];
    ack_round(&mut e, &[80_000; 8], None, Upto::Within);
    assert_eq!(e.cwnd(), 2 * MSS);
}

#[test]
fn the_slow_start_queue_mark_lasts_until_the_first_decision_round() {
    // The round that ends right after the exit is held and keeps the mark; the next
    // round end clears it whatever its queue (docs/ebb.md#ss-own).
    let mut e = ebb(100, 16);
    e.ss_queue = true;
    e.hold = true;
    round(&mut e, &[50_500, 60_000]);
    assert!(e.ss_queue);
    round(&mut e, &[51_000, 60_000]);
    assert!(!e.ss_queue);
    // A loss clears it: a loss is a signal whoever queued.
    e.ss_queue = true;
    let loss = CongestionEvent {
        kind: CongestionKind::Loss,
        bytes_in_flight: 0,
        bytes_lost: MSS,
        mss: MSS,
    };
    e.on_congestion(Time::ZERO, &loss);
    assert!(!e.ss_queue);
}

#[test]
fn own_measured_bounds_the_own_queue_by_the_last_rounds_queue_and_growth() {
    // C = A = 16 Mbit/s (2 MB/s), base 50 ms: bdp = 100 segments; at 104 segments the
    // window explains 4 000 bytes = 2 ms of own queue. The last round measured no queue
    // and the window has not grown since the round before: with own_measured the own
    // queue is 0 ms, so 8 samples 2.5 ms above base are more than foreign = 2 ms beyond
    // it and Ebb goes to the floor (docs/ebb.md#own-measured).
    let setup = |measured: bool, prev_segs: u64| {
        let mut e = ebb(104, 16);
        e.cfg.own_measured = measured;
        e.avail_ring = vec![Rate::from_mbps(16)];
        e.last_q = Some(Dur::ZERO);
        e.prev_start_cwnd = prev_segs * MSS;
        e
    };
    let mut e = setup(true, 104);
    assert_eq!(e.own_queue(), Dur::ZERO);
    ack_round(&mut e, &[52_500; 8], None, Upto::Within);
    assert_eq!(e.cwnd(), 2 * MSS);
    // Grown by one segment since the round before: 1 000 bytes = 0.5 ms of own queue,
    // and 2.5 ms is within foreign of it.
    let mut e = setup(true, 103);
    assert_eq!(e.own_queue(), Dur::from_micros(500));
    ack_round(&mut e, &[52_500; 8], None, Upto::Within);
    assert_eq!(e.cwnd(), 104 * MSS);
    // Off: the window's 2 ms.
    let mut e = setup(false, 104);
    assert_eq!(e.own_queue(), Dur::from_millis(2));
    ack_round(&mut e, &[52_500; 8], None, Upto::Within);
    assert_eq!(e.cwnd(), 104 * MSS);
}

#[test]
fn with_refill_own_the_queue_after_a_refill_from_the_floor_is_drained_not_read_as_foreign() {
    // bdp = 100 000 bytes (C = 16 Mbit/s, base 50 ms), stage = 50 000, own queue 0 at the
    // stage (below A·base = 100 000). docs/ebb.md#refill-own.
    let stage_then_queue = |refill_own: bool| {
        let mut e = ebb(2, 16);
        e.cfg.refill_stage = 0.5;
        e.cfg.refill_own = refill_own;
        e.avail_ring = vec![Rate::from_mbps(16)];
        round(&mut e, &[50_500]); // the floor, an empty queue: first stage
        assert_eq!((e.cwnd(), e.phase), (50_000, Phase::Refill));
        assert_eq!(e.ss_queue, refill_own);
        round(&mut e, &[50_500]); // held; the mark stays
        assert_eq!(e.ss_queue, refill_own);
        // The stage's round: eight samples 30 ms above base, beyond own 0 + foreign 2 ms.
        ack_round(&mut e, &[80_000; 8], None, Upto::Within);
        e
    };
    // Without the mark: foreign, to the floor within the round.
    assert_eq!(stage_then_queue(false).cwnd(), 2 * MSS);
    // With it: no cut within the round; the round end drains by the proportional rule,
    // k = (50 + 4/2)/(50 + 30) = 52/80 (own_target = 0 here: target), 32 500 bytes, and
    // clears the mark.
    let mut e = stage_then_queue(true);
    assert_eq!(e.cwnd(), 50_000);
    e.round_end = 1000;
    round(&mut e, &[80_000]);
    assert_eq!(
        (e.cwnd(), e.phase, e.ss_queue),
        (32_500, Phase::Yield, false)
    );
    // A refill from above the floor (30 segments, a share) sets no mark.
    let mut e = ebb(30, 16);
    e.cfg.refill_stage = 0.5;
    e.cfg.refill_own = true;
    round(&mut e, &[50_500]);
    assert_eq!((e.cwnd(), e.ss_queue), (50_000, false));
}

#[test]
fn with_foreign_burst_the_foreign_test_allows_one_segment_at_the_remembered_rate() {
    // C = 16 Mbit/s, 100 segments = the BDP (A = C), own queue 0; one segment of 1000
    // bytes at C is 0.5 ms, so the allowance is foreign 2 ms + 0.5 ms = 2.5 ms
    // (docs/ebb.md#foreign-burst).
    let within = |burst: bool, rtt_us: u64| {
        let mut e = ebb(100, 16);
        e.avail_ring = vec![Rate::from_mbps(16)];
        e.cfg.foreign_burst = burst;
        ack_round(&mut e, &[rtt_us; 8], None, Upto::Within);
        e.cwnd()
    };
    assert_eq!(e_allowance(true), Dur::from_micros(2_500));
    assert_eq!(e_allowance(false), Dur::from_millis(2));
    // 2.3 ms of queue: foreign without the burst allowance, Ebb's burst with it.
    assert_eq!(within(false, 52_300), 2 * MSS);
    assert_eq!(within(true, 52_300), 100 * MSS);
    // 2.6 ms: beyond both.
    assert_eq!(within(true, 52_600), 2 * MSS);
}

fn e_allowance(burst: bool) -> Dur {
    let mut e = ebb(100, 16);
    e.cfg.foreign_burst = burst;
    e.foreign_allowance()
}

#[test]
fn with_refill_burst_the_empty_queue_threshold_allows_one_segment_at_the_remembered_rate() {
    // C = 16 Mbit/s (bdp 100 000 bytes), 1000-byte segments: 0.5 ms each; the threshold
    // is refill 1 ms + 0.5 ms (docs/ebb.md#foreign-burst).
    let after = |burst: bool, rtt_us: u64| {
        let mut e = ebb(2, 16);
        e.cfg.refill_burst = burst;
        round(&mut e, &[rtt_us]);
        e.cwnd()
    };
    // q = 1.3 ms: not empty without the allowance (probe, one segment), empty with it.
    assert_eq!(after(false, 51_300), 3 * MSS);
    assert_eq!(after(true, 51_300), 100 * MSS);
    // q = 1.6 ms: beyond both.
    assert_eq!(after(true, 51_600), 3 * MSS);
}

/// A refill from the floor to the first stage (bdp = 100 000 bytes, stage = 50 000),
/// its held round, then 8 samples with 8 ms of queue within the next round: a foreign
/// queue (the recent-rate ring is empty, so the own queue is 0), to the floor. The
/// refill has failed (docs/ebb.md#faster-yield).
fn failed_refill(e: &mut Ebb) {
    round(e, &[50_500]);
    assert_eq!((e.cwnd(), e.refill_unconfirmed), (50_000, true));
    round(e, &[50_500]); // held
    ack_round(e, &[58_000; 8], None, Upto::Within);
    assert_eq!((e.cwnd(), e.phase), (2 * MSS, Phase::Yield));
    assert!(!e.refill_unconfirmed);
}

#[test]
fn after_a_failed_refill_the_next_one_waits_for_a_second_clean_round() {
    let run = |backoff: u32| {
        let mut e = ebb(2, 16);
        e.cfg.refill_stage = 0.5;
        e.cfg.refill_backoff = backoff;
        failed_refill(&mut e);
        assert_eq!(e.failed_refills, backoff.min(1));
        // The held round still carries the foreground's queue (3 ms): not clean.
        round(&mut e, &[53_000]);
        assert_eq!(e.cwnd(), 2 * MSS);
        // One clean round end.
        round(&mut e, &[50_500]);
        e
    };
    // refill_backoff = 0: the first clean round end refills.
    assert_eq!(run(0).cwnd(), 50_000);
    // refill_backoff = 1: one clean round end is not more than one failure; the window
    // probes by one segment, and the second clean round end in a row refills.
    let mut e = run(1);
    assert_eq!((e.cwnd(), e.phase), (3 * MSS, Phase::Probe));
    round(&mut e, &[50_500]);
    assert_eq!((e.cwnd(), e.phase), (50_000, Phase::Refill));
}

#[test]
fn a_probe_at_the_bdp_confirms_the_refill_and_clears_the_backoff() {
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    e.cfg.refill_backoff = 1;
    failed_refill(&mut e);
    round(&mut e, &[50_500]); // held
    round(&mut e, &[50_500]); // clean_run 2 > 1: first stage
    round(&mut e, &[50_500]); // held
    round(&mut e, &[50_500]); // second stage: the bdp
    assert_eq!(e.cwnd(), 100_000);
    round(&mut e, &[50_500]); // held
    assert_eq!(e.failed_refills, 1);
    round(&mut e, &[50_500]); // a probe at the bdp
    assert_eq!((e.phase, e.failed_refills), (Phase::Probe, 0));
    assert!(!e.refill_unconfirmed);
}

#[test]
fn the_second_stage_needs_the_rounds_mean_queue_within_refill() {
    // After the first stage (50 000 bytes) and its held round, a round whose minimum is
    // 0.5 ms (≤ refill) and largest 3 ms (≤ target) but whose mean is (0.5 + 3 + 3)/3
    // = 2.17 ms: with stage_mean no second stage, one segment of probe below the bdp.
    let second = |mean: bool| {
        let mut e = ebb(2, 16);
        e.cfg.refill_stage = 0.5;
        e.cfg.stage_mean = mean;
        round(&mut e, &[50_500]);
        round(&mut e, &[50_500]);
        round(&mut e, &[50_500, 53_000, 53_000]);
        e.cwnd()
    };
    assert_eq!(second(false), 100_000);
    assert_eq!(second(true), 51_000);
    // A round of empty samples (mean 0.6 ms) takes the second stage.
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    round(&mut e, &[50_500]);
    round(&mut e, &[50_500]);
    round(&mut e, &[50_500, 50_700]);
    assert_eq!(e.cwnd(), 100_000);
    // The first stage, from the floor, does not read the mean: (0.5 + 3)/2 = 1.75 ms.
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    round(&mut e, &[50_500, 53_000]);
    assert_eq!(e.cwnd(), 50_000);
}

#[test]
fn with_stage_backoff_a_failed_refill_halves_the_next_first_stage() {
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    e.cfg.refill_backoff = 0;
    e.cfg.stage_backoff = 2;
    failed_refill(&mut e);
    assert_eq!(e.failed_refills, 1);
    round(&mut e, &[50_500]); // held
    round(&mut e, &[50_500]); // stage ½ / 2 of 100 000
    assert_eq!(e.cwnd(), 25_000);
    round(&mut e, &[50_500]); // held
    ack_round(&mut e, &[58_000; 8], None, Upto::Within);
    assert_eq!((e.cwnd(), e.failed_refills), (2 * MSS, 2));
    round(&mut e, &[50_500]);
    round(&mut e, &[50_500]);
    assert_eq!(e.cwnd(), 12_500);
}

#[test]
fn with_foreign_samples_the_foreign_test_reads_fewer_samples() {
    // Own queue 2 ms (104 segments, bdp 100, as in the foreign-queue test above); six
    // samples at base, then two with 4.5 ms of queue: the minimum of the last 8 is 0,
    // of the last 2 is 4.5 ms > 2 + foreign.
    let run = |n: u32| {
        let mut e = ebb(104, 16);
        e.avail_ring = vec![Rate::from_mbps(16)];
        e.cfg.foreign_samples = n;
        let mut rtts = vec![50_000; 6];
        rtts.extend([54_500, 54_500]);
        ack_round(&mut e, &rtts, None, Upto::Within);
        e.cwnd()
    };
    assert_eq!(run(8), 104 * MSS);
    assert_eq!(run(2), 2 * MSS);
}

#[test]
fn with_foreign_in_hold_the_held_round_still_yields_to_a_foreign_queue() {
    // q = 5 ms ≤ 2·target: the proportional rule, 104 000·52/55 = 98 327, then a held
    // round. In it, 8 samples with 10 ms of queue against the own queue of the window
    // before the change (104 segments: 2 ms) plus foreign (2 ms).
    let run = |in_hold: bool| {
        let mut e = ebb(104, 16);
        e.avail_ring = vec![Rate::from_mbps(16)];
        e.cfg.foreign_in_hold = in_hold;
        round(&mut e, &[55_000]);
        assert_eq!((e.cwnd(), e.hold), (98_327, true));
        ack_round(&mut e, &[60_000; 8], None, Upto::Within);
        e.cwnd()
    };
    assert_eq!(run(false), 98_327);
    assert_eq!(run(true), 2 * MSS);
}

#[test]
fn with_fail_rate_a_failed_refill_lowers_the_remembered_rate_to_the_recent_delivery_rate() {
    // Remembered 16 Mbit/s (bdp 100 000 bytes), delivered at most 8 Mbit/s in the last
    // bw_rounds rounds. A refill from the floor (first stage 50 000) meets a foreign
    // queue: with fail_rate C becomes 8 Mbit/s (bdp 50 000), and the next refill's
    // first stage is half of that.
    let run = |fail_rate: bool| {
        let mut e = ebb(2, 16);
        e.cfg.refill_stage = 0.5;
        e.cfg.refill_backoff = 0;
        e.cfg.fail_rate = fail_rate;
        e.avail_ring = vec![Rate::from_mbps(8)];
        failed_refill(&mut e);
        round(&mut e, &[50_500]); // held
        round(&mut e, &[50_500]); // first stage
        (e.capacity, e.cwnd())
    };
    assert_eq!(run(false), (Rate::from_mbps(16), 50_000));
    assert_eq!(run(true), (Rate::from_mbps(8), 25_000));
    // Never raised: a recent rate above the remembered one leaves it.
    let mut e = ebb(2, 16);
    e.cfg.refill_stage = 0.5;
    e.cfg.fail_rate = true;
    e.avail_ring = vec![Rate::from_mbps(20)];
    failed_refill(&mut e);
    assert_eq!(e.capacity, Rate::from_mbps(16));
}

#[test]
fn with_fail_rate_clean_the_rate_is_lowered_only_if_the_next_decision_round_is_empty() {
    let run = |next_rtt_us: u64| {
        let mut e = ebb(2, 16);
        e.cfg.refill_stage = 0.5;
        e.cfg.refill_backoff = 0;
        e.cfg.fail_rate = true;
        e.cfg.fail_rate_clean = true;
        e.avail_ring = vec![Rate::from_mbps(8)];
        failed_refill(&mut e);
        // Not yet: the rate waits for the first decision round.
        assert_eq!((e.capacity, e.fail_pending), (Rate::from_mbps(16), true));
        round(&mut e, &[50_500]); // held
        round(&mut e, &[next_rtt_us]);
        (e.capacity, e.cwnd(), e.fail_pending)
    };
    // Empty (0.5 ms): the others yielded too; C 8 Mbit/s, first stage 25 000.
    assert_eq!(run(50_500), (Rate::from_mbps(8), 25_000, false));
    // 3 ms of queue stays (a foreground's): C kept, no refill, the mark cleared.
    assert_eq!(run(53_000), (Rate::from_mbps(16), 3 * MSS, false));
}

#[test]
fn with_ss_ack_cap_the_exit_ack_rate_is_bounded_by_the_delivery_rate() {
    // The ACKs of slow_start_with_queue read 16 Mbit/s (7 × 2000 B in 7 ms). With a
    // delivery-rate sample of 5 Mbit/s before the exit and ss_ack_cap = 2, C is at most
    // 10 Mbit/s (docs/ebb.md#ss-ack-cap); with the default (0) the ACK rate stands.
    let run = |cap: f64| {
        let cfg = EbbConfig {
            ss_ack_cap: cap,
            ..EbbConfig::default()
        };
        let e = slow_start_with_queue_after(cfg, 8, Some(Rate::from_mbps(5)));
        assert_eq!(e.phase, Phase::Yield);
        e.capacity
    };
    assert_eq!(run(2.0), Rate::from_mbps(10));
    assert_eq!(run(0.0), Rate::from_mbps(16));
}

#[test]
fn with_probe_every_a_probe_up_step_comes_once_in_that_many_clean_rounds() {
    // C = 16 Mbit/s, bdp 100 segments, unheld slope (as the doubling test): with
    // probe_every = 3, clean rounds at the BDP hold twice and step on the third
    // (docs/ebb.md#probe-every).
    let mut e = ebb(100, 16);
    e.cfg.probe_hold = false;
    e.cfg.probe_max_queue = Dur::ZERO;
    e.cfg.probe_every = 3;
    e.bw_ring = vec![Rate::from_mbps(16)];
    let mut seen = vec![];
    for _ in 0..6 {
        round(&mut e, &[50_500]);
        seen.push(e.cwnd() / MSS);
    }
    // Steps of 1 then 1 again: a held round resets the doubling slope.
    assert_eq!(seen, vec![100, 100, 101, 101, 101, 102]);
    assert_eq!(e.phase, Phase::Probe);
}

#[test]
fn with_band_hold_a_queue_between_refill_and_own_target_holds_the_window_at_the_bdp() {
    // bdp 100 segments (16 Mbit/s, 50 ms), own_target 3 ms: a round at q = 2 ms
    // (above refill's 1 ms plus a segment's 0.5 ms) adds a segment by default and holds
    // with band_hold; below the BDP the segment is added either way
    // (docs/ebb.md#band-hold).
    for (segs, band, want) in [(100, false, 101), (100, true, 100), (60, true, 61)] {
        let mut e = ebb(segs, 16);
        e.cfg.own_target = Dur::from_millis(3);
        e.cfg.band_hold = band;
        e.bw_ring = vec![Rate::from_mbps(16)];
        round(&mut e, &[52_000]);
        assert_eq!(e.cwnd() / MSS, want, "cwnd {segs}, band_hold {band}");
        assert_eq!(e.phase, Phase::Probe);
    }
}

#[test]
fn with_floor_share_the_floor_is_paced_at_that_share_of_the_remembered_rate() {
    // At the floor (2 segments) after a yield, C = 16 Mbit/s: the ack-pair floor paces at
    // 400 kbit/s (one segment per 20 ms); floor_share = 0.01 lowers it to 160 kbit/s,
    // two segments per 100 ms (docs/ebb.md#floor-share). In slow start and above the
    // floor nothing changes.
    let mut e = ebb(2, 16);
    e.phase = Phase::Yield;
    assert_eq!(e.pacing_rate(), Some(Rate::from_bps(400_000)));
    e.cfg.floor_share = 0.01;
    assert_eq!(e.pacing_rate(), Some(Rate::from_bps(160_000)));
    // Slow start: twice the gain, 2 · 1.25 · 2 000 · 8 / 0.05 = 800 kbit/s, unchanged.
    e.phase = Phase::SlowStart;
    assert_eq!(e.pacing_rate(), Some(Rate::from_bps(800_000)));
    let mut e = ebb(40, 16);
    e.cfg.floor_share = 0.01;
    assert_eq!(e.pacing_rate(), Some(Rate::from_mbps(8)));
}
