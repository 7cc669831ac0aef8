//! Ebb's growth (docs/ebb.md#refill, docs/ebb.md#probe): the refill to the remembered
//! BDP when the queue empties below it, and the probe above it (one segment per round,
//! or the held, bounded, doubling probe up).

use super::{Ebb, Phase};
use crate::api::AckSample;
use crate::units::{Dur, Rate};

impl Ebb {
    /// The refill condition (docs/ebb.md#refill): an empty round queue `q` below the
    /// remembered BDP, and with `refill_guard` every sample (`qmax`) within target.
    pub(super) fn refill_due(&self, q: Dur, qmax: Option<Dur>) -> bool {
        q <= self.refill_threshold()
            && self.cwnd < self.bdp()
            && (!self.cfg.refill_guard
                || qmax.is_some_and(|m| m <= self.cfg.target + self.jitter()))
            // A foreground in slow start below the BDP leaves the queue empty between
            // its bursts, and Ebb's two segments at the floor rarely meet one: codel
            // traced, a refill 4 rounds after the yield beside a foreground at 79
            // segments (docs/ebb.md#refill-rounds).
            && (self.cfg.refill_rounds <= 1 || self.clean_run >= self.cfg.refill_rounds)
            // With refill_backoff, each refill from the floor that ended in a yield to a
            // foreign queue adds a clean round end to wait for (docs/ebb.md#faster-yield,
            // docs/deviations/ebb.md#ebb-refill-backoff).
            && (self.cfg.refill_backoff == 0
                || self.clean_run > self.failed_refills.min(self.cfg.refill_backoff))
    }

    /// With stage_mean, a refill from at or above the first stage (the second stage, or
    /// a jump from a share) needs the round's mean queue, not only its minimum, within
    /// `refill`: beside a foreground that holds the other half of the link, the queue
    /// touches empty once a round and the minimum reads a free link (codel traced, seed
    /// 2: a second stage at 44 segments beside a NewReno foreground at 46, the
    /// foreground's fourth loss a round later; docs/ebb.md#faster-yield).
    pub(super) fn second_stage_clear(&self, qmean: Option<Dur>) -> bool {
        if !self.cfg.stage_mean || self.cwnd < self.stage_bytes() {
            return true;
        }
        qmean.is_some_and(|m| m <= self.refill_threshold())
    }

    /// Refill: jump to the remembered BDP (or `refill_growth·cwnd` if smaller);
    /// `snd_nxt` marks the first packet a first stage sends (stage_early).
    pub(super) fn refill(&mut self, snd_nxt: u64) {
        // Refill (docs/ebb.md#refill).
        self.after_refill = self.cfg.refill_drain;
        self.probe_added = 0;
        if self.cwnd <= self.floor() {
            // Confirmed by a probe at the BDP, or failed by a yield to a foreign queue
            // first (stage_backoff, refill_backoff; docs/ebb.md#faster-yield).
            self.refill_unconfirmed = true;
        }
        if self.cfg.refill_own && self.cwnd <= self.floor() {
            // A jump from the floor is Ebb's own burst: on kernel TCP at 350 ms every
            // sample of the first stage carried 3 ms (the kernel's paired sends,
            // docs/ebb.md#testbed-350-trace), which the foreign test read as a foreground
            // and sent Ebb back to the floor every three rounds (docs/ebb.md#refill-own).
            // As after a slow-start exit, the round end after the held one drains it
            // instead.
            self.ss_queue = true;
        }
        let g = self.cfg.refill_growth;
        let stage = self.stage_bytes();
        self.cwnd = if g > 0.0 {
            self.scale(self.cwnd, g).min(self.bdp())
        } else if self.cwnd < stage {
            // Two-stage refill, first stage (docs/ebb.md#refill-stage): beside a
            // loss-based foreground that has just halved, the queue is empty with the
            // link partly used, and a jump to the whole BDP overflows the buffer (rtt10
            // traced: refills at foreground windows of 14, 19, 11.5 and 17.5 segments
            // on a 17-segment BDP and buffer, two losses the foreground would not have
            // taken). Half the BDP shows the foreground's share as a queue before the
            // buffer overflows; on a free link the next decision finds it empty again.
            if self.cfg.stage_early {
                // The stage's packets, paced at C, queue at once beside a foreground's
                // share: the first 8 of them (HyStart's sample count), or the whole stage
                // if smaller, tell an empty link within a round (docs/ebb.md#stage-early).
                let need = (super::SS_SAMPLES as u64 * self.mss).min(stage);
                self.stage_mark = Some((snd_nxt, need));
            }
            stage
        } else {
            self.bdp()
        };
        self.hold = true;
        self.phase = Phase::Refill;
    }

    /// Early second stage (docs/ebb.md#stage-early): within the round that carries the
    /// first stage's ACKs, once `need` bytes sent after the stage came back, every one
    /// of their RTT samples within `refill` of base, go on to the remembered BDP now
    /// rather than at the round's end (a round later). Any sample with a queue ends the
    /// wait, and the round-end rules decide. True when it jumped.
    pub(super) fn early_stage(&mut self, ack: &AckSample) -> bool {
        let Some((mark, need)) = self.stage_mark else {
            return false;
        };
        if ack.in_recovery || self.slowdown_left > 0 || self.phase != Phase::Refill {
            self.stage_mark = None;
            return false;
        }
        if ack.snd_una <= mark {
            // An ACK for a packet sent before the stage.
            return false;
        }
        let (Some(rtt), Some(base)) = (ack.rtt, self.base) else {
            return false;
        };
        if rtt - base > self.refill_threshold() {
            self.stage_mark = None;
            return false;
        }
        if ack.snd_una - mark < need {
            return false;
        }
        self.cwnd = self.cwnd.max(self.bdp());
        self.phase = Phase::Refill;
        self.restart_round(ack);
        self.after_refill = self.cfg.refill_drain;
        true
    }

    /// The first stage of a refill, `refill_stage · C·base` bytes (0 when off).
    pub(super) fn stage_bytes(&self) -> u64 {
        if self.cfg.refill_stage <= 0.0 {
            return 0;
        }
        if self.cfg.stage_from_floor && self.cwnd > self.floor() {
            // Only after a yield to a foreground: Ebb flows sharing the link refill from
            // their shares, and a stage that caps only the smaller ones is unfair.
            return 0;
        }
        // With stage_backoff, halved once per refill from the floor that ended in a
        // yield to a foreign queue (docs/ebb.md#faster-yield).
        let halvings = self.failed_refills.min(self.cfg.stage_backoff);
        let share = self.cfg.refill_stage / f64::from(1u32 << halvings);
        ((self.bdp() as f64 * share) as u64).max(self.floor())
    }

    /// Probe at a round end that neither yields nor refills (docs/ebb.md#probe); `step`
    /// is the probe-up slope carried from the round before.
    pub(super) fn probe(&mut self, q: Dur, qmax: Option<Dur>, step: u64, base: Dur) {
        self.after_refill = false;
        // Every sample of the round, not only its minimum, within target: a round's
        // minimum lags the queue a probe builds late in the round (rtt600 traced:
        // the slope kept doubling to a 560 ms queue).
        let clean = qmax.is_some_and(|m| m <= self.cfg.target + self.jitter());
        let added = std::mem::replace(&mut self.probe_added, 0);
        if self.cwnd >= self.bdp() {
            // A decision at the BDP that does not yield: the last refill was right
            // (docs/ebb.md#faster-yield).
            self.refill_unconfirmed = false;
            self.failed_refills = 0;
        }
        if self.cfg.probe_up && q <= self.refill_threshold() && clean && self.cwnd >= self.bdp() {
            if self.cfg.probe_every > 1 && added == 0 {
                // Cruise (docs/ebb.md#probe-every): a step only once in probe_every clean
                // rounds; in the others the window holds at the BDP it has.
                self.cruise += 1;
                if self.cruise < self.cfg.probe_every {
                    self.phase = Phase::Probe;
                    return;
                }
                self.cruise = 0;
            }
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
        } else if self.cfg.band_hold
            && q > self.refill_threshold()
            && self.cwnd >= self.bdp()
            && q <= self.own_target()
        {
            // Band hold (docs/ebb.md#band-hold): at or above the remembered BDP the queue is
            // Ebb's own; a segment more per round only walks it up to own_target and back.
        } else {
            self.cwnd += self.probe_step_bytes();
        }
        self.phase = Phase::Probe;
    }

    /// Did the delivery rate follow the last probe-up step (probe_hold)? A step of
    /// `added` bytes on a link with room raises the rate by `added/base`; at least half
    /// of that means there is room for the next, doubled step. At the link's rate the
    /// step only queues, the rate stays, and the slope falls back to one segment
    /// (BBR's full-pipe test asks for 25 % growth per round for the same reason).
    pub(super) fn rate_followed(&self, added: u64, base: Dur) -> bool {
        let want = 0.5 * added as f64 * 8.0 / base.secs_f64();
        self.capacity.bps() as f64 >= self.probe_cap_before.bps() as f64 + want
    }

    /// The additive probe step (docs/deviations/ebb.md#ebb-probe-queue): one segment, or
    /// what adds probe_queue of queue at the remembered rate if that is less (slow
    /// links, where a segment is more than target: 6 ms at 2 Mbit/s), at least 1/8 of a
    /// segment so that an underestimated rate cannot stall the probe.
    pub(super) fn probe_step_bytes(&self) -> u64 {
        if self.cfg.probe_queue == Dur::ZERO || self.capacity == Rate::ZERO {
            return self.mss;
        }
        let q = self.capacity.bytes_in(self.cfg.probe_queue);
        q.clamp((self.mss / 8).max(1), self.mss)
    }
}
