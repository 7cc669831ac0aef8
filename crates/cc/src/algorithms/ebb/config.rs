//! Ebb's parameters (docs/ebb.md#parameters): the spec table and `EbbConfig`. Every
//! variant measured in docs/ebb.md is a parameter here, so that `scavenger score ebb
//! NAME=VALUE` reproduces it.

use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::units::Dur;

pub(super) static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "target",
        kind: ParamKind::Duration {
            min: Dur::from_micros(100),
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(4)),
        unit: "ms",
        doc: "queueing delay above which Ebb decreases (round minimum RTT minus base RTT)",
        source: "docs/ebb.md#target (below the scorecard's 5 ms mean queue goal)",
    },
    ParamSpec {
        name: "refill",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(1)),
        unit: "ms",
        doc: "queueing delay at or below which the queue counts as empty and Ebb jumps back to the remembered BDP",
        source: "docs/ebb.md#refill",
    },
    ParamSpec {
        name: "md",
        kind: ParamKind::Float { min: 0.05, max: 0.95 },
        default: ParamValue::Float(0.5),
        unit: "",
        doc: "multiplicative decrease: cwnd is multiplied by this on loss and on a second round above target",
        source: "docs/ebb.md#yield (as NewReno's beta, RFC 5681)",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "segments",
        doc: "floor of the window outside timeouts",
        source: "docs/ebb.md#parameters (RFC 6817 MIN_CWND)",
    },
    ParamSpec {
        name: "bw_rounds",
        kind: ParamKind::Int { min: 1, max: 1000 },
        default: ParamValue::Int(10),
        unit: "rounds",
        doc: "the bottleneck-rate estimate is the largest delivery rate of this many rounds held at the estimated BDP",
        source: "docs/ebb.md#capacity (BBR's 10-round max filter)",
    },
    ParamSpec {
        name: "pacing_gain",
        kind: ParamKind::Float { min: 1.0, max: 4.0 },
        default: ParamValue::Float(1.25),
        unit: "",
        doc: "pacing rate = pacing_gain · cwnd / base RTT (doubled in slow start)",
        source: "docs/ebb.md#parameters (Linux paces at 120 % of cwnd/srtt)",
    },
    ParamSpec {
        name: "foreign",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(2)),
        unit: "ms",
        doc: "queueing delay beyond Ebb's own (window above the remembered BDP, at the remembered rate) that counts as another flow's and sends Ebb to min_cwnd within the round; 0 = off",
        source: "docs/ebb.md#foreign",
    },
    ParamSpec {
        name: "refill_growth",
        kind: ParamKind::Float { min: 0.0, max: 1000.0 },
        default: ParamValue::Float(0.0),
        unit: "",
        doc: "refill to min(remembered BDP, refill_growth · cwnd); 0 = straight to the remembered BDP",
        source: "docs/ebb.md#refill",
    },
    ParamSpec {
        name: "slowdown_every",
        kind: ParamKind::Int { min: 4, max: 100_000 },
        default: ParamValue::Int(64),
        unit: "rounds",
        doc: "rounds between base-delay refreshes, each two rounds at min_cwnd (the first comes two rounds after slow start)",
        source: "docs/ebb.md#refresh (LEDBAT++ periodic slowdown, draft-irtf-iccrg-ledbat-plus-plus §4.3, with a bounded cost)",
    },
    ParamSpec {
        name: "probe_up",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "with an empty queue at or above the remembered BDP, grow by 1, 2, 4, ... segments per round instead of 1",
        source: "docs/ebb.md#probe (BBRv2 ProbeBW_UP's doubling inflight_hi slope)",
    },
    ParamSpec {
        name: "refill_guard",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "refill only in a round whose largest RTT sample also shows at most target of queue",
        source: "docs/ebb.md#refill",
    },
    ParamSpec {
        name: "jitter_gain",
        kind: ParamKind::Float { min: 0.0, max: 16.0 },
        default: ParamValue::Float(0.0),
        unit: "",
        doc: "the refill and foreign thresholds are raised by jitter_gain times the mean difference of consecutive RTT samples; 0 = off",
        source: "docs/ebb.md#jitter (RFC 3550 §6.4.1 interarrival jitter estimator)",
    },
    ParamSpec {
        name: "own_rate",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Ebb's own queue is its window above its recent delivery rate times the base RTT (not above the remembered BDP), and only a queue beyond it is cut by (target/q)²",
        source: "docs/ebb.md#foreign",
    },
    ParamSpec {
        name: "drain_bytes",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "Ebb's own queue (up to 2·target, or explained by its window) is drained by removing (q − target/2) · C bytes, not by the factor (base + target/2)/(base + q)",
        source: "docs/deviations/ebb.md#ebb-drain-bytes",
    },
    ParamSpec {
        name: "probe_queue",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::ZERO),
        unit: "ms",
        doc: "the additive probe adds at most this much queueing delay per round at the remembered rate (C · probe_queue bytes, between 1/8 and 1 segment); 0 = one segment",
        source: "docs/deviations/ebb.md#ebb-probe-queue",
    },
    ParamSpec {
        name: "held_prev",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "a round's delivery rate counts towards the bottleneck-rate estimate only when this round and the one before it started at the estimated BDP (the round's ACKs are for the previous round's packets)",
        source: "docs/ebb.md#capacity",
    },
    ParamSpec {
        name: "ack_pair_gap",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(20)),
        unit: "ms",
        doc: "pacing never spaces two segments further apart than this (at most at the remembered rate), so that the receiver ACKs every second one at once instead of after its delayed-ACK timer; 0 = off",
        source: "docs/ebb.md#ack-pair (Linux TCP_DELACK_MIN = 40 ms; tcp_min_tso_segs = 2)",
    },
    ParamSpec {
        name: "probe_hold",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "with probe_up, each accelerating step holds the next round (its decision would see the window before the step) and the step doubles only while the delivery rate rose by at least half of what the last step could add",
        source: "docs/ebb.md#probe-hold",
    },
    ParamSpec {
        name: "probe_max_queue",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(4)),
        unit: "ms",
        doc: "with probe_up, a step adds at most this much queueing delay at the remembered rate (C · probe_max_queue bytes, at least one segment); 0 = a quarter of the window",
        source: "docs/ebb.md#probe-hold",
    },
    ParamSpec {
        name: "refill_drain",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "the first decision after a refill removes a queue above target by its bytes at the remembered rate, (q − target/2)·C, instead of the proportional factor",
        source: "docs/ebb.md#refill-drain",
    },
    ParamSpec {
        name: "held_clean",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "a round held at the estimated BDP enters the bottleneck-rate filter only when its queueing delay was within target (a round that shared the link with a queue says nothing about the link's rate)",
        source: "docs/ebb.md#held-clean",
    },
    ParamSpec {
        name: "refill_stage",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.5),
        unit: "",
        doc: "two-stage refill: from below this share of the remembered BDP, a refill goes to this share first and to the whole BDP only at the next decision that still finds the queue empty; 0 = straight to the BDP",
        source: "docs/ebb.md#refill-stage",
    },
    ParamSpec {
        name: "stage_from_floor",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "with refill_stage, only a refill from the window floor (after a yield to a foreground) takes the first stage; from above it, straight to the BDP",
        source: "docs/ebb.md#refill-stage",
    },
    ParamSpec {
        name: "stage_early",
        kind: ParamKind::Bool,
        // On since variant 37 (docs/ebb.md#variant-37).
        default: ParamValue::Bool(true),
        unit: "",
        doc: "with refill_stage, the second stage is taken within the round that carries the first stage's ACKs, as soon as the first min(8 segments, stage) bytes sent after the stage all came back with at most refill of queue",
        source: "docs/ebb.md#stage-early (HyStart's 8 samples)",
    },
    ParamSpec {
        name: "refill_pace_window",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "a refill below the remembered BDP (the first stage, a restore to a share) is paced at its window's rate, cwnd / base RTT, not at the remembered rate",
        source: "docs/ebb.md#refill-pace",
    },
    ParamSpec {
        name: "refill_rounds",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(1),
        unit: "rounds",
        doc: "a refill needs this many consecutive round ends (held ones included) with the round's minimum within refill and every sample within target",
        source: "docs/ebb.md#refill-rounds",
    },
    ParamSpec {
        name: "own_target",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(3)),
        unit: "ms",
        doc: "queueing delay above which Ebb drains a queue its own window explains (to own_target/2), below target; 0 = target",
        source: "docs/ebb.md#own-target",
    },
    ParamSpec {
        name: "pace_cap",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "pace at no more than max(remembered rate, cwnd / base RTT)",
        source: "docs/ebb.md#pacing",
    },
    ParamSpec {
        name: "ss_own",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "after a slow-start exit on delay, the queue is Ebb's own overshoot up to the first round end that is not held: that decision drains it by the proportional rule, and no fast yield or foreign-queue cut reads it as another flow's",
        source: "docs/ebb.md#ss-own (docs/deviations/ebb.md#ebb-ss-own)",
    },
    ParamSpec {
        name: "ss_ack_rate",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "at a slow-start exit on delay, the bottleneck-rate estimate is at least the ACK rate of the last 8 ACKs (a standing queue spaces them at the bottleneck's rate)",
        source: "docs/ebb.md#ss-ack-rate (docs/deviations/ebb.md#ebb-ss-ack-rate; packet-train dispersion, as TCP Westwood's ACK-rate estimate)",
    },
    ParamSpec {
        name: "own_measured",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "the queue Ebb's own window explains is at most the last round's queue plus what the window grew since the round before (at the remembered rate)",
        source: "docs/ebb.md#own-measured",
    },
    ParamSpec {
        name: "refill_own",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "after a refill from the window floor, the queue is Ebb's own burst until the first decision round after the held one: never read as foreign, drained by the proportional rule",
        source: "docs/ebb.md#refill-own",
    },
    ParamSpec {
        name: "foreign_burst",
        kind: ParamKind::Bool,
        // Off: with it the kernel's Ebb at 350 ms held more queue and a joining CUBIC's
        // HyStart left slow start early in 2 of 8 testbed runs (docs/ebb.md#variant-37).
        default: ParamValue::Bool(false),
        unit: "",
        doc: "the foreign-queue test (and the own-queue tests beside it) allow one segment's transmission at the remembered rate beyond `foreign`: on the testbed the kernel sent paced segments in back-to-back pairs, ACKed once per pair",
        source: "docs/ebb.md#foreign-burst",
    },
    ParamSpec {
        name: "refill_burst",
        kind: ParamKind::Bool,
        // On since the simulator sends Linux's paced pairs (docs/ebb.md#variants-104e573-tso).
        default: ParamValue::Bool(true),
        unit: "",
        doc: "the empty-queue threshold (refill, probe up) allows one segment's transmission at the remembered rate beyond `refill`",
        source: "docs/ebb.md#foreign-burst",
    },
    ParamSpec {
        name: "foreign_samples",
        kind: ParamKind::Int { min: 1, max: 8 },
        default: ParamValue::Int(8),
        unit: "samples",
        doc: "the within-round foreign-queue test takes the minimum of this many of the last RTT samples (8: HyStart's count, as the fast yield)",
        source: "docs/ebb.md#faster-yield",
    },
    ParamSpec {
        name: "foreign_in_hold",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "the within-round foreign-queue test also runs in the round held after a decision (a refill stage, a drain of the own queue)",
        source: "docs/ebb.md#faster-yield",
    },
    ParamSpec {
        name: "stage_backoff",
        kind: ParamKind::Int { min: 0, max: 6 },
        default: ParamValue::Int(0),
        unit: "halvings",
        doc: "each refill from the floor that ends in a yield to a foreign queue before Ebb holds the BDP halves the next first stage, at most this many times; 0 = off",
        source: "docs/ebb.md#faster-yield",
    },
    ParamSpec {
        name: "refill_backoff",
        kind: ParamKind::Int { min: 0, max: 16 },
        // 1 in variant 35, 0 since variant 37 (docs/ebb.md#variant-37).
        default: ParamValue::Int(0),
        unit: "rounds",
        doc: "each refill from the floor that ends in a yield to a foreign queue before Ebb holds the BDP makes the next refill wait one more clean round end, at most this many (1 in variant 35, 0 since variant 37); 0 = off",
        source: "docs/ebb.md#faster-yield",
    },
    ParamSpec {
        name: "stage_mean",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "a refill from at or above the first stage (the second stage) needs the round's mean queueing delay, not only its minimum, within refill",
        source: "docs/ebb.md#faster-yield",
    },
    ParamSpec {
        name: "fail_rate",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "a refill from the floor that ends in a yield to a foreign queue lowers the remembered rate to the largest delivery rate of the last bw_rounds rounds",
        source: "docs/ebb.md#latecomers",
    },
    ParamSpec {
        name: "fail_rate_clean",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "with fail_rate, the remembered rate is lowered only if the first decision round after the failed refill finds the queue empty (the others yielded too: Ebb peers, not a foreground)",
        source: "docs/ebb.md#latecomers",
    },
    ParamSpec {
        name: "probe_every",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(1),
        unit: "rounds",
        doc: "at or above the remembered BDP with an empty queue, probe up only once in this many such round ends and hold the window in the others (1 = every round)",
        source: "docs/ebb.md#probe-every",
    },
    ParamSpec {
        name: "band_hold",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(false),
        unit: "",
        doc: "at or above the remembered BDP with a queue between refill and own_target, hold the window instead of adding a segment per round",
        source: "docs/ebb.md#band-hold",
    },
    ParamSpec {
        name: "floor_share",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.0),
        unit: "",
        doc: "at the floor window, pace at most at this share of the remembered rate (the kernel and the simulator then send two-segment bursts, ACKed at once); 0 = off",
        source: "docs/ebb.md#floor-share",
    },
    ParamSpec {
        name: "ss_ack_cap",
        kind: ParamKind::Float { min: 0.0, max: 16.0 },
        default: ParamValue::Float(0.0),
        unit: "",
        doc: "with ss_ack_rate, the ACK rate taken at a slow-start exit is at most this many times the largest delivery-rate sample so far; 0 = no bound",
        source: "docs/ebb.md#ss-ack-cap",
    },
];

/// Ebb's parameters (docs/ebb.md#parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct EbbConfig {
    /// Queueing delay above which the window decreases: 4 ms, below the scorecard's
    /// 5 ms mean queue goal.
    pub target: Dur,
    /// Queueing delay at or below which the queue counts as empty: 1 ms.
    pub refill: Dur,
    /// Multiplicative decrease on loss and on a second round above target: ½.
    pub md: f64,
    /// Window floor in segments: 2.
    pub min_cwnd: u64,
    /// Rounds of the bottleneck-rate max filter: 10.
    pub bw_rounds: usize,
    /// Pacing gain over cwnd/base: 1.25.
    pub pacing_gain: f64,
    /// Rounds between base-delay refreshes (slowdowns): 64.
    pub slowdown_every: u32,
    /// Queueing delay beyond Ebb's own that sends it to the floor within the round:
    /// 2 ms (zero: off; docs/ebb.md#foreign).
    pub foreign: Dur,
    /// Refill to min(BDP, refill_growth · cwnd); 0: to the BDP at once.
    pub refill_growth: f64,
    /// Accelerating probe at an empty queue (docs/ebb.md#probe): true since variant 23
    /// of docs/ebb.md, with its steps held and bounded (probe_hold, probe_max_queue).
    pub probe_up: bool,
    /// Refill only when the round's largest sample is within target (docs/ebb.md#refill).
    pub refill_guard: bool,
    /// Thresholds raised by this many times the RTT jitter (docs/ebb.md#jitter).
    pub jitter_gain: f64,
    /// Own queue from the recent delivery rate (docs/ebb.md#foreign): true.
    pub own_rate: bool,
    /// Pacing capped at max(C, cwnd/base) (docs/ebb.md#pacing): true.
    pub pace_cap: bool,
    /// Largest pacing gap between two segments (docs/deviations/ebb.md#ebb-ack-pair):
    /// 20 ms, half the Linux receiver's smallest delayed-ACK timeout; zero: off.
    pub ack_pair_gap: Dur,
    /// The capacity filter takes a round only when it and the round before it started
    /// at the estimated BDP (docs/ebb.md#capacity): false (variant 18 of docs/ebb.md
    /// lost goals with it).
    pub held_prev: bool,
    /// The additive probe adds at most this much queue per round at the remembered rate
    /// (docs/deviations/ebb.md#ebb-probe-queue): zero, one segment (1 ms in variant 19
    /// of docs/ebb.md broke the flows' fairness).
    pub probe_queue: Dur,
    /// Drain Ebb's own queue by (q − target/2)·C bytes (docs/deviations/ebb.md#ebb-drain-bytes):
    /// false (variant 19 of docs/ebb.md broke the flows' fairness).
    pub drain_bytes: bool,
    /// Probe-up steps hold a round and double only while the delivery rate follows
    /// (docs/ebb.md#probe-hold): true (variant 23).
    pub probe_hold: bool,
    /// Largest queue one probe-up step may add at the remembered rate
    /// (docs/ebb.md#probe-hold): 4 ms, `target` (variant 23; 2, 6 and 8 ms met fewer
    /// goals).
    pub probe_max_queue: Dur,
    /// The first decision after a refill drains a queue by its bytes
    /// (docs/ebb.md#refill-drain): false.
    pub refill_drain: bool,
    /// Only rounds with a queue within target enter the capacity filter
    /// (docs/ebb.md#held-clean): false.
    pub held_clean: bool,
    /// Two-stage refill (docs/ebb.md#refill-stage): a refill from below this share of
    /// the remembered BDP stops at it, and the next decision that still finds the queue
    /// empty goes on to the BDP; zero: straight to the BDP. ½ since variant 24 of
    /// docs/ebb.md (¾ met fewer goals).
    pub refill_stage: f64,
    /// With refill_stage, only a refill from the floor is staged (docs/ebb.md#refill-stage).
    pub stage_from_floor: bool,
    /// With refill_stage, the second stage within the round that carries the first
    /// stage's ACKs, once 8 segments of them (or the stage) saw no queue
    /// (docs/ebb.md#stage-early).
    pub stage_early: bool,
    /// A refill below the remembered BDP is paced at cwnd/base, not at `C`
    /// (docs/ebb.md#refill-pace).
    pub refill_pace_window: bool,
    /// Consecutive clean round ends a refill needs: 1 (docs/ebb.md#refill-rounds).
    pub refill_rounds: u32,
    /// Queueing delay above which a queue Ebb's own window explains is drained, to half
    /// of it: 3 ms since variant 25 of docs/ebb.md, `target − refill`, so that a drain
    /// lands at 1.5 ms, above the empty-queue threshold; zero: `target`
    /// (docs/ebb.md#own-target).
    pub own_target: Dur,
    /// After a slow-start exit on delay, the queue is Ebb's own overshoot until a round
    /// end that is not held (docs/ebb.md#ss-own).
    pub ss_own: bool,
    /// At a slow-start exit on delay, the bottleneck-rate estimate is at least the ACK
    /// rate of the last 8 ACKs (docs/ebb.md#ss-ack-rate).
    pub ss_ack_rate: bool,
    /// Ebb's own queue is at most the last round's queue plus the window's growth since
    /// (docs/ebb.md#own-measured).
    pub own_measured: bool,
    /// After a refill from the floor, the queue is Ebb's own until the first decision
    /// round after the held one, as after a slow-start exit (docs/ebb.md#refill-own).
    pub refill_own: bool,
    /// The foreign-queue allowance includes one segment at the remembered rate
    /// (docs/ebb.md#foreign-burst).
    pub foreign_burst: bool,
    /// The empty-queue threshold includes one segment at the remembered rate
    /// (docs/ebb.md#foreign-burst).
    pub refill_burst: bool,
    /// The within-round foreign-queue test takes the minimum of this many of the last
    /// RTT samples: 8 (docs/ebb.md#faster-yield).
    pub foreign_samples: u32,
    /// The within-round foreign-queue test also runs in held rounds
    /// (docs/ebb.md#faster-yield).
    pub foreign_in_hold: bool,
    /// Halvings of the first refill stage after refills that ended in a yield to a
    /// foreign queue: 0, off (docs/ebb.md#faster-yield).
    pub stage_backoff: u32,
    /// Extra clean round ends a refill waits after refills that ended in a yield to a
    /// foreign queue, one per such refill, at most this many: 1 in variant 35, 0 (off)
    /// since variant 37 (docs/ebb.md#faster-yield, docs/ebb.md#variant-37).
    pub refill_backoff: u32,
    /// The second refill stage needs the round's mean queue within `refill`: on since
    /// variant 35 (docs/ebb.md#faster-yield).
    pub stage_mean: bool,
    /// A failed refill lowers the remembered rate to the recent delivery rate: off
    /// (docs/ebb.md#latecomers).
    pub fail_rate: bool,
    /// With `fail_rate`, only when the first decision round after the failed refill
    /// finds the queue empty: off (docs/ebb.md#latecomers).
    pub fail_rate_clean: bool,
    /// Probe up once in this many clean round ends at or above the BDP, hold in the
    /// others: 1 = every round (docs/ebb.md#probe-every).
    pub probe_every: u32,
    /// Hold the window at or above the BDP while the queue is within (refill,
    /// own_target]: off (docs/ebb.md#band-hold).
    pub band_hold: bool,
    /// At the floor, pace at most at this share of `C`: 0 = off (docs/ebb.md#floor-share).
    pub floor_share: f64,
    /// Bound on the slow-start exit's ACK rate, in delivery-rate samples: 0 = none
    /// (docs/ebb.md#ss-ack-cap).
    pub ss_ack_cap: f64,
}

impl Default for EbbConfig {
    fn default() -> Self {
        EbbConfig {
            target: Dur::from_millis(4),
            refill: Dur::from_millis(1),
            md: 0.5,
            min_cwnd: 2,
            bw_rounds: 10,
            pacing_gain: 1.25,
            slowdown_every: 64,
            foreign: Dur::from_millis(2),
            refill_growth: 0.0,
            probe_up: true,
            refill_guard: true,
            jitter_gain: 0.0,
            own_rate: true,
            pace_cap: true,
            ack_pair_gap: Dur::from_millis(20),
            held_prev: false,
            probe_queue: Dur::ZERO,
            drain_bytes: false,
            probe_hold: true,
            probe_max_queue: Dur::from_millis(4),
            refill_drain: false,
            held_clean: false,
            refill_stage: 0.5,
            stage_from_floor: false,
            stage_early: true,
            refill_pace_window: false,
            refill_rounds: 1,
            own_target: Dur::from_millis(3),
            ss_own: true,
            ss_ack_rate: true,
            own_measured: false,
            refill_own: false,
            foreign_burst: false,
            refill_burst: true,
            foreign_samples: 8,
            foreign_in_hold: false,
            stage_backoff: 0,
            refill_backoff: 0,
            stage_mean: true,
            fail_rate: false,
            fail_rate_clean: false,
            probe_every: 1,
            band_hold: false,
            floor_share: 0.0,
            ss_ack_cap: 0.0,
        }
    }
}

impl TryFrom<&ParamSet> for EbbConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("ebb");
        Ok(EbbConfig {
            target: r.dur("target")?,
            refill: r.dur("refill")?,
            md: r.f64("md")?,
            min_cwnd: r.u64("min_cwnd")?,
            bw_rounds: r.usize("bw_rounds")?,
            pacing_gain: r.f64("pacing_gain")?,
            slowdown_every: r.u64("slowdown_every")? as u32, // the spec table caps it
            foreign: r.dur("foreign")?,
            refill_growth: r.f64("refill_growth")?,
            probe_up: r.bool("probe_up")?,
            refill_guard: r.bool("refill_guard")?,
            jitter_gain: r.f64("jitter_gain")?,
            own_rate: r.bool("own_rate")?,
            pace_cap: r.bool("pace_cap")?,
            ack_pair_gap: r.dur("ack_pair_gap")?,
            held_prev: r.bool("held_prev")?,
            probe_queue: r.dur("probe_queue")?,
            drain_bytes: r.bool("drain_bytes")?,
            probe_hold: r.bool("probe_hold")?,
            probe_max_queue: r.dur("probe_max_queue")?,
            refill_drain: r.bool("refill_drain")?,
            held_clean: r.bool("held_clean")?,
            refill_stage: r.f64("refill_stage")?,
            stage_from_floor: r.bool("stage_from_floor")?,
            stage_early: r.bool("stage_early")?,
            refill_pace_window: r.bool("refill_pace_window")?,
            refill_rounds: r.u64("refill_rounds")? as u32, // the spec table caps it
            own_target: r.dur("own_target")?,
            ss_own: r.bool("ss_own")?,
            ss_ack_rate: r.bool("ss_ack_rate")?,
            own_measured: r.bool("own_measured")?,
            refill_own: r.bool("refill_own")?,
            foreign_burst: r.bool("foreign_burst")?,
            refill_burst: r.bool("refill_burst")?,
            foreign_samples: r.u64("foreign_samples")? as u32, // the spec table caps it
            foreign_in_hold: r.bool("foreign_in_hold")?,
            stage_backoff: r.u64("stage_backoff")? as u32,
            refill_backoff: r.u64("refill_backoff")? as u32,
            stage_mean: r.bool("stage_mean")?,
            fail_rate: r.bool("fail_rate")?,
            fail_rate_clean: r.bool("fail_rate_clean")?,
            probe_every: r.u64("probe_every")? as u32,
            band_hold: r.bool("band_hold")?,
            floor_share: r.f64("floor_share")?,
            ss_ack_cap: r.f64("ss_ack_cap")?,
        })
    }
}
