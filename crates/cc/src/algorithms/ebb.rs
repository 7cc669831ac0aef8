//! Ebb: our own less-than-best-effort controller (issue 18; design and evaluation in
//! docs/ebb.md). It is not from a source; each mechanism names the scorecard goal it
//! serves (docs/scorecard.md).
//!
//! Signals, once per round trip (a round ends when the cumulative ACK passes the
//! `snd_nxt` of the round's start, as BBR's round counting):
//! - `base`: the smallest RTT sample of the connection (Linux `ca_rtt`, `ack.rtt`);
//! - `q = min(RTT samples in the round) − base`: the queueing delay. The minimum over a
//!   round discards what the receiver's delayed-ACK timer adds to single samples
//!   (docs/deviations/ebb.md#ebb-round-min);
//! - `C`: the bottleneck-rate estimate, the largest delivery-rate sample of the last
//!   `bw_rounds` rounds in which the flow held at least its estimated BDP; rounds spent
//!   yielding do not age it, so it remembers the link across a foreground
//!   (docs/deviations/ebb.md#ebb-capacity-memory).
//!
//! Window rules at each round end, with `bdp = C·base`. A round right after a window
//! change makes no decision: it carries the packets sent before the change.
//! - within a round, as soon as the minimum of the last 8 RTT samples is more than
//!   `2·target` above base: the same `(target/q)²` cut at once (fast yield); with
//!   `foreign` > 0, also to `min_cwnd` at once when that minimum is more than `foreign`
//!   above the queue Ebb's own window explains (docs/ebb.md#foreign).
//! - `q > target` (yield, goal "yield"): up to `2·target` the queue may be our own probe:
//!   `cwnd ← cwnd·(base + target/2)/(base + q)`, which drains it to target/2 if we are
//!   alone (goal "no queue"). Above, someone else queues: `cwnd ← cwnd·min(md,
//!   (target/q)²)`, so that a foreground's slow start meets an almost empty link.
//! - `q ≤ refill` and `cwnd < bdp` (refill, goal "come back fast"): the queue is empty
//!   though we are below the remembered BDP, so the link has spare room:
//!   `cwnd ← bdp` (or `refill_growth·cwnd` if smaller); with `foreign` on, paced at `C`
//!   for that round and the held one after it, so the jump fills the pipe without a burst.
//!   With `refill_guard`, only when every sample of the round is within `target` (a
//!   foreground's slow-start bursts leave gaps in which the minimum reads empty).
//! - otherwise `cwnd ← cwnd + 1 segment`, or `C·probe_queue` if less (probe, so that `C`
//!   can grow; docs/deviations/ebb.md#ebb-probe-queue); with `probe_up`,
//!   1, 2, 4, ... segments per clean round at or above the remembered BDP (BBRv2's
//!   ProbeBW_UP slope; docs/ebb.md#probe).
//! - with `own_rate`, Ebb's own queue is its window above `A·base` (`A` the recent
//!   delivery rate, whatever the window), and only a queue beyond it is cut by
//!   `(target/q)²` (docs/ebb.md#foreign); with `pace_cap`, pacing is at most
//!   `max(C, cwnd/base)` (docs/ebb.md#pacing); with `ack_pair_gap`, at least one segment
//!   per 20 ms, so that the receiver ACKs every second one at once
//!   (docs/deviations/ebb.md#ebb-ack-pair).
//! - with `held_prev`, a round enters the capacity filter only when the round before it
//!   also started at the BDP (docs/deviations/ebb.md#ebb-held-prev).
//! - with `probe_hold` and `probe_max_queue` (on by default with `probe_up` since
//!   variant 23 of docs/ebb.md#variants-34cf96c), a probe-up step holds a round, doubles
//!   only while the delivery rate follows, and adds at most `C·probe_max_queue`
//!   (docs/deviations/ebb.md#ebb-probe-hold). Measured and off: `refill_drain` (the
//!   first decision after a refill drains by bytes; #ebb-refill-drain), `held_clean`
//!   (only rounds with a queue within target enter the capacity filter; #ebb-held-clean).
//! - every `slowdown_every` rounds, and two rounds after slow start (LEDBAT++'s
//!   slowdown), two rounds at `min_cwnd`, then the window before: every flow, a
//!   latecomer in particular, sees the true base RTT (goal "share").
//!
//! Loss or ECN: `cwnd ← cwnd·md`; timeout: one segment. Slow start (cwnd += acked) until
//! the round's running minimum exceeds `base + target` or a loss. The window never goes
//! below `min_cwnd`. Pacing: `pacing_gain · cwnd / base` (twice that in slow start).

use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ebb",
    aliases: &[],
    summary: "Ebb: LBE by queueing delay over a remembered bottleneck rate; yields on a few ms of queue, refills to the remembered BDP when the queue empties",
    source: "this project (issue 18); docs/ebb.md",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
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
        name: "pace_cap",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "pace at no more than max(remembered rate, cwnd / base RTT)",
        source: "docs/ebb.md#pacing",
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
        })
    }
}

/// Samples of a round before slow start may end on delay (Linux HyStart HYSTART_MIN_SAMPLES).
const SS_SAMPLES: u32 = 8;

/// Rounds a slowdown lasts: one for the queue to drain, one to measure the base RTT.
const SLOWDOWN_ROUNDS: u32 = 2;

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = EbbConfig::try_from(p).expect("ebb: spec table and EbbConfig agree");
    Box::new(Ebb::new(&cfg, &init))
}

/// What the last round end decided (for traces and tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Decreased on queueing delay above target.
    Yield,
    /// Jumped back to the remembered BDP.
    Refill,
    /// Additive increase.
    Probe,
    /// At the floor to refresh the base RTT.
    Slowdown,
}

#[derive(Clone, Debug)]
pub struct Ebb {
    cfg: EbbConfig,
    mss: u64,
    cwnd: u64,
    phase: Phase,
    /// Smallest RTT sample of the connection.
    base: Option<Dur>,
    /// Smallest RTT sample of the current round.
    round_min: Option<Dur>,
    /// Largest RTT sample of the current round (refill guard).
    round_max: Option<Dur>,
    /// Segments the next accelerating probe adds (1, 2, 4, ...; docs/ebb.md#probe).
    probe_step: u64,
    /// Mean absolute difference of consecutive RTT samples, in ns (RFC 3550 §6.4.1).
    jitter_ns: f64,
    /// The previous RTT sample (jitter estimator).
    last_rtt: Option<Dur>,
    /// RTT samples in the current round.
    round_samples: u32,
    /// The last SS_SAMPLES RTT samples (a ring, `recent_at` the next slot).
    recent: [Dur; SS_SAMPLES as usize],
    recent_at: usize,
    /// The round ends when snd_una reaches this.
    round_end: u64,
    /// Largest delivery rate of the current round (bytes/s as `Rate`).
    round_max_bw: Rate,
    /// Per-round maxima of the rounds held at the BDP (newest last), at most bw_rounds.
    bw_ring: Vec<Rate>,
    /// Largest delivery rate seen since the ring was last refreshed (survives yields).
    capacity: Rate,
    /// Per-round maxima of the last bw_rounds rounds, whatever the window (newest last).
    avail_ring: Vec<Rate>,
    /// Skip the next round's decision: it measures the window before the last change.
    hold: bool,
    /// Rounds left in the current slowdown (0: none running).
    slowdown_left: u32,
    /// Rounds until the next slowdown (0: none scheduled, before slow start ends).
    until_slowdown: u32,
    /// The window before the slowdown, restored after it.
    saved_cwnd: u64,
    /// The window at the start of the round (held-at-BDP test).
    round_start_cwnd: u64,
    /// The window at the start of the round before (held-at-BDP test with held_prev).
    prev_start_cwnd: u64,
    /// The last decision was a refill: the next one judges the refill (refill_drain).
    after_refill: bool,
    /// Bytes the last held probe-up step added, and the capacity estimate before it
    /// (probe_hold: the step doubles only if the delivery rate followed).
    probe_added: u64,
    probe_cap_before: Rate,
}

impl Ebb {
    pub fn new(cfg: &EbbConfig, init: &CcInit) -> Ebb {
        Ebb {
            cfg: cfg.clone(),
            mss: init.mss,
            cwnd: init.initial_cwnd,
            phase: Phase::SlowStart,
            base: None,
            round_min: None,
            round_max: None,
            probe_step: 1,
            jitter_ns: 0.0,
            last_rtt: None,
            round_samples: 0,
            recent: [Dur::MAX; SS_SAMPLES as usize],
            recent_at: 0,
            round_end: 0,
            round_max_bw: Rate::ZERO,
            bw_ring: Vec::new(),
            capacity: Rate::ZERO,
            avail_ring: Vec::new(),
            hold: false,
            round_start_cwnd: init.initial_cwnd,
            prev_start_cwnd: init.initial_cwnd,
            slowdown_left: 0,
            until_slowdown: 0,
            saved_cwnd: 0,
            after_refill: false,
            probe_added: 0,
            probe_cap_before: Rate::ZERO,
        }
    }

    fn floor(&self) -> u64 {
        self.cfg.min_cwnd * self.mss
    }

    /// The remembered BDP: C · base, in bytes (0 before the first samples).
    pub fn bdp(&self) -> u64 {
        match self.base {
            Some(b) => self.capacity.bytes_in(b),
            None => 0,
        }
    }

    fn scale(&self, w: u64, k: f64) -> u64 {
        ((w as f64 * k) as u64).max(self.floor())
    }

    /// Queueing delay over the last SS_SAMPLES samples (none before that many).
    fn recent_queue(&self) -> Option<Dur> {
        let m = self.recent.iter().copied().max()?;
        if m == Dur::MAX {
            return None;
        }
        let min = self.recent.iter().copied().min()?;
        Some(min - self.base?)
    }

    /// The queueing delay Ebb's own window accounts for: what it holds above the
    /// remembered BDP, drained at the remembered rate (zero before an estimate).
    fn own_queue(&self) -> Dur {
        let bdp = if self.cfg.own_rate {
            // What Ebb delivered recently, whatever its window: beside a flow that holds
            // a share without queueing (a constant-rate stream), Ebb's own queue is its
            // window above that share's BDP, not above the whole link's.
            match self.base {
                Some(b) => self.avail().bytes_in(b),
                None => 0,
            }
        } else {
            self.bdp()
        };
        if bdp == 0 || self.capacity == Rate::ZERO || self.cwnd <= bdp {
            return Dur::ZERO;
        }
        let secs = (self.cwnd - bdp) as f64 * 8.0 / self.capacity.bps() as f64;
        Dur::from_secs_f64(secs)
    }

    /// The largest delivery rate of the last bw_rounds rounds, held at the BDP or not.
    fn avail(&self) -> Rate {
        self.avail_ring.iter().copied().max().unwrap_or(Rate::ZERO)
    }

    /// Queueing delay of the round just ended.
    fn round_queue(&self) -> Option<Dur> {
        match (self.round_min, self.base) {
            (Some(m), Some(b)) => Some(m - b),
            _ => None,
        }
    }

    fn end_round(&mut self, ack: &AckSample) {
        // Capacity memory: a round counts towards the filter only when the flow held at
        // least ~its BDP, i.e. tried to use the whole link (docs/deviations/ebb.md#ebb-capacity-memory).
        let bdp = self.bdp();
        // With held_prev, the round before must have started at the BDP too: a round's
        // ACKs are for the packets the round before sent, so the round right after a
        // jump to the BDP (refill, restore after a slowdown) still delivers at the old
        // window's rate. Counted, every refill beside a foreground put a near-zero sample
        // in the filter, and ten of them forgot the link (base:long-newreno traced:
        // C 19.3 → 6.4 Mbit/s, ramp-up 43 RTTs; docs/deviations/ebb.md#ebb-held-prev).
        let held = |w: u64| w * 10 >= bdp * 9;
        let prev_held = !self.cfg.held_prev || held(self.prev_start_cwnd);
        self.prev_start_cwnd = self.round_start_cwnd;
        // With held_clean, a round that held the BDP but met a queue above target shared
        // the link with someone (beside a constant-rate stream, every refill round did):
        // its delivery rate is a share, not the link's rate, and counted it pushed the
        // link's rate out of the filter (base:video traced: C fell to 0.6 of the link,
        // ramp-up 28 RTTs after the stream stopped; docs/ebb.md#held-clean).
        let clean_round =
            !self.cfg.held_clean || self.round_queue().is_none_or(|q| q <= self.cfg.target);
        if self.round_max_bw > Rate::ZERO
            && (bdp == 0 || (held(self.round_start_cwnd) && prev_held && clean_round))
        {
            self.bw_ring.push(self.round_max_bw);
            if self.bw_ring.len() > self.cfg.bw_rounds {
                self.bw_ring.remove(0);
            }
            self.capacity = self.bw_ring.iter().copied().max().unwrap_or(Rate::ZERO);
        } else if self.round_max_bw > self.capacity {
            self.capacity = self.round_max_bw;
        }
        self.avail_ring.push(self.round_max_bw);
        if self.avail_ring.len() > self.cfg.bw_rounds {
            self.avail_ring.remove(0);
        }
        let q = self.round_queue();
        let qmax = match (self.round_max, self.base) {
            (Some(m), Some(b)) => Some(m - b),
            _ => None,
        };
        self.round_min = None;
        self.round_max = None;
        // The accelerating probe continues only from a probe-up round (below).
        let step = std::mem::replace(&mut self.probe_step, 1);
        self.round_samples = 0;
        self.round_max_bw = Rate::ZERO;
        self.round_end = ack.snd_nxt;
        let (Some(q), Some(base)) = (q, self.base) else {
            self.round_start_cwnd = self.cwnd;
            return;
        };
        if self.phase == Phase::SlowStart {
            self.round_start_cwnd = self.cwnd;
            return;
        }
        // Base-delay refresh (docs/ebb.md#refresh): SLOWDOWN_ROUNDS rounds at the floor,
        // so that the queue we and our peers hold drains and every flow, a latecomer in
        // particular, sees the true base RTT; then back to the window before it.
        if self.slowdown_left > 0 {
            self.slowdown_left -= 1;
            if self.slowdown_left == 0 {
                self.cwnd = self.cwnd.max(self.saved_cwnd);
                self.hold = true;
                self.phase = Phase::Refill;
                self.until_slowdown = self.cfg.slowdown_every;
            }
            self.round_start_cwnd = self.cwnd;
            return;
        }
        if self.until_slowdown > 0 {
            self.until_slowdown -= 1;
            if self.until_slowdown == 0 {
                self.saved_cwnd = self.cwnd;
                self.cwnd = self.floor();
                self.slowdown_left = SLOWDOWN_ROUNDS;
                self.phase = Phase::Slowdown;
                self.round_start_cwnd = self.cwnd;
                return;
            }
        }
        if ack.in_recovery {
            self.hold = true;
            self.after_refill = false;
            self.probe_added = 0;
        } else if self.hold {
            // The round just ended carried the packets sent before the last decrease: its
            // queue says nothing about the new window (docs/ebb.md#yield).
            self.hold = false;
            if self.probe_added > 0 {
                // A held probe-up step keeps its slope for the decision that sees it.
                self.probe_step = step;
            }
        } else if q > self.cfg.target {
            let after_refill = std::mem::replace(&mut self.after_refill, false);
            self.probe_added = 0;
            // Yield (docs/ebb.md#yield). Up to 2·target the queue may be our own probe:
            // drain it to target/2. Above, someone else queues: cut by md or by
            // (target/q)², whichever is deeper, so that a foreground's slow start meets
            // an empty link within a round or two.
            let (t, qn, b) = (
                self.cfg.target.nanos() as f64,
                q.nanos() as f64,
                base.nanos() as f64,
            );
            // With own_rate, a queue above 2·target that Ebb's own window explains
            // (beside a constant-rate stream, after a refill) is drained, not cut.
            let own = self.cfg.own_rate && q <= self.own_queue() + self.cfg.foreign + self.jitter();
            // With refill_drain, the first decision after a refill removes the queue by
            // its bytes: the refill found an empty queue, so what queues now is what the
            // jump added on a link that was not free (rtt10 traced: a NewReno foreground
            // that had halved left an empty 1-BDP buffer, the refill filled it, and the
            // proportional rule kept Ebb at 0.67 of its window for two more rounds while
            // the foreground lost packets; docs/ebb.md#refill-drain). Only there, so that
            // the steady-state decrease stays multiplicative (fair among Ebb flows).
            let by_bytes = self.cfg.drain_bytes || (self.cfg.refill_drain && after_refill);
            if (qn <= 2.0 * t || own || after_refill) && by_bytes && self.capacity > Rate::ZERO {
                // Drain by bytes (docs/deviations/ebb.md#ebb-drain-bytes): remove the
                // queue above target/2 at the remembered rate, as if it were all Ebb's.
                // Alone it is the proportional rule's result; beside another flow it
                // is deeper (after a refill beside a NewReno foreground that had just
                // halved, the proportional rule kept Ebb at 0.67 of its window for two
                // more rounds on a full buffer: rtt10 traced, slowdown 1.31).
                let excess = self
                    .capacity
                    .bytes_in(Dur(q.nanos().saturating_sub(self.cfg.target.nanos() / 2)));
                self.cwnd = self.cwnd.saturating_sub(excess).max(self.floor());
            } else {
                let k = if qn <= 2.0 * t || own {
                    (b + t / 2.0) / (b + qn)
                } else {
                    self.cfg.md.min((t / qn) * (t / qn))
                };
                self.cwnd = self.scale(self.cwnd, k);
            }
            self.hold = true;
            self.phase = Phase::Yield;
        } else if q <= self.refill_threshold()
            && self.cwnd < self.bdp()
            && (!self.cfg.refill_guard
                || qmax.is_some_and(|m| m <= self.cfg.target + self.jitter()))
        {
            // Refill (docs/ebb.md#refill).
            self.after_refill = self.cfg.refill_drain;
            self.probe_added = 0;
            let g = self.cfg.refill_growth;
            self.cwnd = if g > 0.0 {
                self.scale(self.cwnd, g).min(self.bdp())
            } else {
                self.bdp()
            };
            self.hold = true;
            self.phase = Phase::Refill;
        } else if ack.cwnd_limited {
            self.after_refill = false;
            // Every sample of the round, not only its minimum, within target: a round's
            // minimum lags the queue a probe builds late in the round (rtt600 traced:
            // the slope kept doubling to a 560 ms queue).
            let clean = qmax.is_some_and(|m| m <= self.cfg.target + self.jitter());
            let added = std::mem::replace(&mut self.probe_added, 0);
            if self.cfg.probe_up && q <= self.refill_threshold() && clean && self.cwnd >= self.bdp()
            {
                // Probe up (docs/ebb.md#probe): no queue at or above the remembered BDP,
                // so the estimate is below the link. Grow by 1, 2, 4, ... segments per
                // round (BBRv2 ProbeBW_UP, bbr2_raise_inflight_hi_slope), at most a
                // quarter of the window per round (BBR's probe gain 1.25).
                let step = if self.cfg.probe_hold && added > 0 && !self.rate_followed(added, base) {
                    1
                } else {
                    step
                };
                let mut add = (step * self.mss).min((self.cwnd / 4).max(self.mss));
                if self.cfg.probe_max_queue > Dur::ZERO {
                    // The step's overshoot, should the link be full, is the step itself:
                    // bounded in queueing delay (rtt600 and satellite traced with
                    // probe_hold: a quarter-window step left 150 ms of queue).
                    add = add.min(
                        self.capacity
                            .bytes_in(self.cfg.probe_max_queue)
                            .max(self.mss),
                    );
                }
                self.cwnd += add;
                self.probe_step = step.saturating_mul(2);
                if self.cfg.probe_hold {
                    // Hold the next round: its ACKs are for packets sent before the
                    // step, so a decision there would double again before the step's
                    // queue shows (rtt600 traced with probe_up: two steps too many each
                    // cycle, 131 packets = 78 ms of queue; docs/ebb.md#probe-hold).
                    self.hold = true;
                    self.probe_added = add;
                    self.probe_cap_before = self.capacity;
                }
            } else {
                self.cwnd += self.probe_step_bytes();
            }
            self.phase = Phase::Probe;
        }
        self.round_start_cwnd = self.cwnd;
    }

    /// Did the delivery rate follow the last probe-up step (probe_hold)? A step of
    /// `added` bytes on a link with room raises the rate by `added/base`; at least half
    /// of that means there is room for the next, doubled step. At the link's rate the
    /// step only queues, the rate stays, and the slope falls back to one segment
    /// (BBR's full-pipe test asks for 25 % growth per round for the same reason).
    fn rate_followed(&self, added: u64, base: Dur) -> bool {
        let want = 0.5 * added as f64 * 8.0 / base.secs_f64();
        self.capacity.bps() as f64 >= self.probe_cap_before.bps() as f64 + want
    }

    /// The additive probe step (docs/deviations/ebb.md#ebb-probe-queue): one segment, or
    /// what adds probe_queue of queue at the remembered rate if that is less (slow
    /// links, where a segment is more than target: 6 ms at 2 Mbit/s), at least 1/8 of a
    /// segment so that an underestimated rate cannot stall the probe.
    fn probe_step_bytes(&self) -> u64 {
        if self.cfg.probe_queue == Dur::ZERO || self.capacity == Rate::ZERO {
            return self.mss;
        }
        let q = self.capacity.bytes_in(self.cfg.probe_queue);
        q.clamp((self.mss / 8).max(1), self.mss)
    }

    /// The RTT jitter allowance: jitter_gain · mean |difference of consecutive samples|
    /// (docs/ebb.md#jitter).
    fn jitter(&self) -> Dur {
        Dur((self.cfg.jitter_gain * self.jitter_ns) as u64)
    }

    /// Queueing delay at or below which the queue counts as empty.
    fn refill_threshold(&self) -> Dur {
        self.cfg.refill + self.jitter()
    }

    /// Yield within the round (docs/ebb.md#yield): when the last 8 samples all show more
    /// than 2·target of queue, a foreground is filling the link; cut now rather than at
    /// the round's end, and start a new round that will be skipped.
    fn fast_yield(&mut self, ack: &AckSample) -> bool {
        if self.hold || self.slowdown_left > 0 || ack.in_recovery {
            return false;
        }
        let Some(q) = self.recent_queue() else {
            return false;
        };
        let t = self.cfg.target.nanos() as f64;
        let qn = q.nanos() as f64;
        // A queue Ebb's own window does not explain is another flow's (docs/ebb.md#foreign):
        // a foreground's slow start adds its whole window to a link Ebb already fills,
        // and CUBIC's HyStart (4 ms at most RTTs) or BBR's full-pipe test end it early
        // if Ebb waits for 2·target. To the floor at once.
        let foreign = self.cfg.foreign > Dur::ZERO
            && self.bdp() > 0
            && q > self.own_queue() + self.cfg.foreign + self.jitter();
        if (qn <= 2.0 * t || self.cfg.own_rate) && !foreign {
            return false;
        }
        let k = if foreign {
            0.0
        } else {
            self.cfg.md.min((t / qn) * (t / qn))
        };
        self.cwnd = self.scale(self.cwnd, k);
        self.phase = Phase::Yield;
        self.hold = true;
        self.after_refill = false;
        self.probe_added = 0;
        self.round_min = None;
        self.round_max = None;
        self.probe_step = 1;
        self.round_samples = 0;
        self.round_max_bw = Rate::ZERO;
        self.round_end = ack.snd_nxt;
        self.prev_start_cwnd = self.round_start_cwnd;
        self.round_start_cwnd = self.cwnd;
        true
    }

    fn exit_slow_start(&mut self) {
        self.phase = Phase::Yield;
        self.hold = true;
        // The first slowdown two rounds after slow start, as LEDBAT++ (draft-irtf-iccrg-
        // ledbat-plus-plus §4.3): a latecomer learns the base RTT before it settles.
        self.until_slowdown = 2;
        // Drain what slow start queued: hold at the estimated BDP when there is one.
        let bdp = self.bdp();
        if bdp > 0 {
            self.cwnd = bdp.max(self.floor()).min(self.cwnd);
        }
    }
}

impl CongestionControl for Ebb {
    fn name(&self) -> &'static str {
        "ebb"
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.base = Some(self.base.map_or(rtt, |b| b.min(rtt)));
            self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
            self.round_max = Some(self.round_max.map_or(rtt, |m| m.max(rtt)));
            if let Some(prev) = self.last_rtt {
                // RFC 3550 §6.4.1: J += (|D| − J)/16.
                let d = rtt.nanos().abs_diff(prev.nanos()) as f64;
                self.jitter_ns += (d - self.jitter_ns) / 16.0;
            }
            self.last_rtt = Some(rtt);
            self.round_samples += 1;
            self.recent[self.recent_at] = rtt;
            self.recent_at = (self.recent_at + 1) % self.recent.len();
        }
        if let Some(rs) = ack.rate {
            if !rs.app_limited || rs.rate > self.capacity {
                self.round_max_bw = self.round_max_bw.max(rs.rate);
            }
        }
        if self.phase == Phase::SlowStart {
            let over = match (self.round_queue(), ack.in_recovery) {
                (_, true) => false,
                // The minimum of the last 8 samples, as HyStart's delay test takes 8
                // samples: a round's minimum lags the queue that slow start builds late
                // in the round (docs/ebb.md#startup).
                (Some(_), false) => self.recent_queue().is_some_and(|q| q > self.cfg.target),
                _ => false,
            };
            if over {
                self.round_max_bw = self.round_max_bw.max(self.capacity);
                self.capacity = self.capacity.max(self.round_max_bw);
                self.exit_slow_start();
            } else if !ack.in_recovery && ack.cwnd_limited {
                self.cwnd += ack.bytes_acked;
            }
        }
        if self.phase != Phase::SlowStart && self.fast_yield(ack) {
            return;
        }
        if ack.snd_una >= self.round_end {
            self.end_round(ack);
        }
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        if self.phase == Phase::SlowStart {
            self.capacity = self.capacity.max(self.round_max_bw);
            self.until_slowdown = 2;
        }
        self.cwnd = self.scale(self.cwnd, self.cfg.md);
        self.saved_cwnd = self.scale(self.saved_cwnd, self.cfg.md);
        self.probe_step = 1;
        if self.slowdown_left == 0 {
            self.phase = Phase::Yield;
        }
        self.hold = true;
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.cwnd = ev.mss;
        self.probe_step = 1;
        self.saved_cwnd = self.scale(self.saved_cwnd, self.cfg.md);
        if self.phase == Phase::SlowStart {
            self.phase = Phase::Yield;
            self.until_slowdown = 2;
        }
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        if self.phase == Phase::SlowStart {
            u64::MAX
        } else {
            self.cwnd
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        let base = self.base?;
        if self.cfg.foreign > Dur::ZERO && self.phase == Phase::Refill && self.capacity > Rate::ZERO
        {
            // A refill (or the restore after a slowdown) jumps the window to the
            // remembered BDP: paced at the remembered rate it fills the pipe in one
            // round without a queue, which the foreign-queue test would read as another
            // flow's (docs/ebb.md#foreign). Only with that test on (`foreign = 0ms`
            // is variant 9 of docs/ebb.md, pacing included).
            return Some(self.capacity);
        }
        let gain = if self.phase == Phase::SlowStart {
            2.0 * self.cfg.pacing_gain
        } else {
            self.cfg.pacing_gain
        };
        let mut bps = self.cwnd as f64 * 8.0 * gain / base.secs_f64();
        if self.cfg.pace_cap && self.phase != Phase::SlowStart && self.capacity > Rate::ZERO {
            // Never faster than the link Ebb knows, unless the window itself asks for
            // more (then at cwnd/base): a gain above the link rate queues Ebb's own
            // window within the round, which the yield rules read as a foreground on
            // long paths (docs/ebb.md#pacing).
            let cap = (self.capacity.bps() as f64).max(self.cwnd as f64 * 8.0 / base.secs_f64());
            bps = bps.min(cap);
        }
        if self.cfg.ack_pair_gap > Dur::ZERO {
            // Two segments within ack_pair_gap (docs/deviations/ebb.md#ebb-ack-pair): at a
            // window of a few segments on a long path, cwnd/base spaces them beyond the
            // receiver's delayed-ACK timeout (40 ms), every segment is ACKed late, every
            // RTT sample of the round carries the timer, and Ebb at the floor reads it as
            // a queue for ever (rtt600 traced: three of four flows at 2 segments for 40 s). Linux
            // sends at least two segments per burst (tcp_min_tso_segs) for the same reason.
            let mut floor = self.mss as f64 * 8.0 / self.cfg.ack_pair_gap.secs_f64();
            if self.capacity > Rate::ZERO {
                floor = floor.min(self.capacity.bps() as f64);
            }
            bps = bps.max(floor);
        }
        Some(Rate::from_bps(bps.max(1.0) as u64))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("capacity_mbps", self.capacity.bps() as f64 / 1e6));
        out.push(("bdp_segments", self.bdp() as f64 / self.mss as f64));
        if let Some(b) = self.base {
            out.push(("base_rtt_ms", b.secs_f64() * 1e3));
        }
        let phase = match self.phase {
            Phase::SlowStart => 0.0,
            Phase::Yield => 1.0,
            Phase::Refill => 2.0,
            Phase::Probe => 3.0,
            Phase::Slowdown => 4.0,
        };
        out.push(("phase", phase));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const BASE_MS: u64 = 50;

    /// An Ebb past slow start with base RTT 50 ms, `cwnd_segs` segments, a remembered
    /// capacity of `cap_mbps` (bdp = cap·50 ms), the current round ending at byte 1000.
    fn ebb(cwnd_segs: u64, cap_mbps: u64) -> Ebb {
        let init = CcInit {
            now: Time::ZERO,
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(1),
        };
        let mut e = Ebb::new(&EbbConfig::default(), &init);
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
}
