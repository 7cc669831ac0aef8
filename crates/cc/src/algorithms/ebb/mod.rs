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
//! - with `refill_stage` (docs/ebb.md#refill-stage), a refill from below that share of
//!   the BDP stops at it, and the next decision that still finds the queue empty goes
//!   on to the BDP (docs/deviations/ebb.md#ebb-refill-stage); with `stage_from_floor`,
//!   only a refill from the floor is staged.
//! - with `own_target` (3 ms since variant 25 of docs/ebb.md#variants-dc5dd47), a queue
//!   within target that Ebb's own window explains is drained from `own_target` to half of
//!   it, so that the buffer a starting foreground meets holds less of Ebb
//!   (docs/ebb.md#own-target). With `stage_early` (on since variant 37), the second
//!   refill stage is taken within the round of the first stage's ACKs, once 8 segments
//!   of them saw no queue (#stage-early). Measured and off: `refill_pace_window` (a
//!   refill below the BDP paced at cwnd/base; #refill-pace), `refill_rounds` (consecutive
//!   empty rounds before a refill; #refill-rounds).
//! - at a slow-start exit on delay (variant 29 of docs/ebb.md#variants-a78dcdd), with
//!   `ss_ack_rate` `C` is at least the ACK rate of the last 8 ACKs, which a busy
//!   bottleneck spaced (docs/ebb.md#ss-ack-rate); with `ss_own` the queue until the
//!   first decision after the exit is slow start's own overshoot, drained and never read
//!   as foreign (docs/ebb.md#ss-own). Measured and off: `own_measured` (own queue at most
//!   the last round's queue plus the window's growth; docs/ebb.md#own-measured).
//! - since variant 35 (docs/ebb.md#faster-yield), a refill from at or above the first
//!   stage needs the round's mean queue, not only its minimum, within `refill`
//!   (`stage_mean`): beside a foreground holding the other half of the link the queue
//!   touches empty once a round. In variant 35 a refill from the floor that ended in a
//!   yield to a foreign queue before a probe at the BDP had failed, and the next refill
//!   needed a second clean round end in a row (`refill_backoff = 1`); off since variant 37.
//! - since variant 37 (docs/ebb.md#variant-37, made for the kernel's PSH on paced bursts,
//!   which ACKs a lone paced segment late), `stage_early` on and `refill_backoff` 0: each
//!   round they wait for now costs a full round trip. Measured and off: `foreign_burst`
//!   (the foreign test allows one segment's transmission at `C` beyond `foreign`): best on
//!   the simulator's scorecard, but on kernel TCP at 350 ms a joining CUBIC's HyStart left
//!   slow start early in 2 of 8 runs. Measured and off: `foreign_samples` (the foreign
//!   test on fewer than 8 samples), `foreign_in_hold` (the foreign test in held rounds),
//!   `stage_backoff` (a smaller first stage after a failed refill).
//! - measured and off (docs/ebb.md#latecomers): `fail_rate` (a failed refill lowers the
//!   remembered rate to the recent delivery rate: four Ebb flows that each remember the
//!   whole link refill together and collide) and `fail_rate_clean` (only if the next
//!   decision round is empty).
//! - measured and off (docs/ebb.md#variants-b157333): `probe_every` (a probe-up step once
//!   in N clean rounds), `band_hold` (no additive segment at or above the BDP while the
//!   queue is within own_target), `floor_share` (the floor paced at a share of `C`) and
//!   `ss_ack_cap` (the slow-start exit's ACK rate at most that many delivery rates).
//! - every `slowdown_every` rounds, and two rounds after slow start (LEDBAT++'s
//!   slowdown), two rounds at `min_cwnd`, then the window before: every flow, a
//!   latecomer in particular, sees the true base RTT (goal "share").
//!
//! Loss or ECN: `cwnd ← cwnd·md`; timeout: one segment. Slow start (cwnd += acked) until
//! the round's running minimum exceeds `base + target` or a loss. The window never goes
//! below `min_cwnd`. Pacing: `pacing_gain · cwnd / base` (twice that in slow start).
//!
//! The code is split by concern: `config` (parameters; every variant of docs/ebb.md is
//! a parameter), `signals` (queueing delay, jitter and the bottleneck-rate estimate),
//! `round` (the round-end decision, the yield rules and the base-delay refresh),
//! `refill` (refill and probe), `tests` (equation-level tests with scripted ACKs).

mod config;
mod refill;
mod round;
mod signals;
#[cfg(test)]
mod tests;

pub use config::EbbConfig;
use config::PARAMS;

use crate::api::*;
use crate::params::ParamSet;
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
    /// Sum of the RTT samples of the current round, in ns (stage_mean).
    round_rtt_sum: u64,
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
    /// With stage_early, after a first refill stage: `snd_nxt` at the stage (ACKs past
    /// it are for the stage's packets) and the bytes of them that must come back with
    /// an empty queue before the second stage (docs/ebb.md#stage-early).
    stage_mark: Option<(u64, u64)>,
    /// Consecutive round ends with an empty queue (refill_rounds).
    clean_run: u32,
    /// With ss_own: slow start ended on delay and no round end after the held one has
    /// come yet, so the queue is slow start's own overshoot (docs/ebb.md#ss-own); with
    /// refill_own, the same after a refill from the floor (docs/ebb.md#refill-own).
    ss_queue: bool,
    /// The last SS_SAMPLES ACKs' times and cumulative ACK points (a ring, `acks_at` the
    /// next slot), for the ACK rate at a slow-start exit (docs/ebb.md#ss-ack-rate).
    acks: [(Time, u64); SS_SAMPLES as usize],
    acks_at: usize,
    acks_seen: usize,
    /// The round-minimum queue of the last round end (own_measured,
    /// docs/ebb.md#own-measured).
    last_q: Option<Dur>,
    /// A refill from the floor has not yet been confirmed by a probe decision at the
    /// remembered BDP (stage_backoff, refill_backoff; docs/ebb.md#faster-yield).
    refill_unconfirmed: bool,
    /// Refills from the floor in a row that ended in a yield to a foreign queue.
    failed_refills: u32,
    /// With fail_rate_clean: a refill failed, and the next decision round lowers the
    /// remembered rate if it finds the queue empty (docs/ebb.md#latecomers).
    fail_pending: bool,
    /// Clean round ends at or above the BDP since the last probe-up step (probe_every).
    cruise: u32,
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
            round_rtt_sum: 0,
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
            stage_mark: None,
            clean_run: 0,
            ss_queue: false,
            acks: [(Time(0), 0); SS_SAMPLES as usize],
            acks_at: 0,
            acks_seen: 0,
            last_q: None,
            refill_unconfirmed: false,
            failed_refills: 0,
            fail_pending: false,
            cruise: 0,
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
}

impl CongestionControl for Ebb {
    fn name(&self) -> &'static str {
        "ebb"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.record_sample(ack);
        if self.phase == Phase::SlowStart {
            self.acks[self.acks_at] = (now, ack.snd_una);
            self.acks_at = (self.acks_at + 1) % self.acks.len();
            self.acks_seen += 1;
            let over = match (self.round_queue(), ack.in_recovery) {
                (_, true) => false,
                // The minimum of the last 8 samples, as HyStart's delay test takes 8
                // samples: a round's minimum lags the queue that slow start builds late
                // in the round (docs/ebb.md#startup).
                (Some(_), false) => self.recent_queue().is_some_and(|q| q > self.cfg.target),
                _ => false,
            };
            if over {
                if self.cfg.ss_ack_rate {
                    self.take_ack_rate();
                }
                self.round_max_bw = self.round_max_bw.max(self.capacity);
                self.capacity = self.capacity.max(self.round_max_bw);
                self.exit_slow_start();
            } else if !ack.in_recovery && ack.cwnd_limited {
                self.cwnd += ack.bytes_acked;
            }
        }
        if self.stage_mark.is_some() && self.early_stage(ack) {
            return;
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
        self.ss_queue = false;
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
            if self.cfg.refill_pace_window {
                // Below the BDP (a first stage, a restore to a share), at the window's own
                // rate: paced at C, a half-BDP stage beside a 40 % stream queued the
                // stream's rate for half a round (10 ms), which read as foreign and sent
                // Ebb back to the floor every other round (base:video traced, spare 0.36;
                // docs/ebb.md#refill-pace).
                let own = Rate::from_bps((self.cwnd as f64 * 8.0 / base.secs_f64()) as u64);
                return Some(self.capacity.min(own));
            }
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
        if self.cfg.floor_share > 0.0
            && self.cwnd <= self.floor()
            && self.phase != Phase::SlowStart
            && self.capacity > Rate::ZERO
        {
            // The floor as a share of the link (docs/ebb.md#floor-share): two segments a
            // round are 11 % of a 20 Mbit/s link at 10 ms and 23 % of 2 Mbit/s at 50 ms,
            // which alone slows a foreground by more than the goal. Paced this slowly, both
            // datapaths send the two segments as one burst (tcp_min_tso_segs), which the
            // receiver ACKs at once, so the RTT sample stays clean.
            bps = bps.min(self.capacity.bps() as f64 * self.cfg.floor_share);
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
