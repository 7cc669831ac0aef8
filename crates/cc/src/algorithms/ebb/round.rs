//! Ebb's round-end decision (docs/ebb.md#design): the base-delay refresh, the held
//! round after a change, the yield rules (docs/ebb.md#yield, docs/ebb.md#foreign) and
//! the slow-start exit; growth is in `refill`.

use super::{Ebb, Phase, SLOWDOWN_ROUNDS};
use crate::api::AckSample;
use crate::units::{Dur, Rate};

impl Ebb {
    pub(super) fn end_round(&mut self, ack: &AckSample) {
        // The queue this round measured bounds Ebb's own in the next one
        // (docs/ebb.md#own-measured); this round end's decisions still use the last one.
        let q = self.round_queue();
        self.decide_round(ack);
        if q.is_some() {
            self.last_q = q;
        }
    }

    fn decide_round(&mut self, ack: &AckSample) {
        self.update_capacity();
        let q = self.round_queue();
        let qmax = match (self.round_max, self.base) {
            (Some(m), Some(b)) => Some(m - b),
            _ => None,
        };
        // Consecutive empty rounds, held ones included (refill_rounds,
        // docs/ebb.md#refill-rounds).
        let clean = q.is_some_and(|q| q <= self.refill_threshold())
            && qmax.is_some_and(|m| m <= self.cfg.target + self.jitter());
        self.clean_run = if clean {
            self.clean_run.saturating_add(1)
        } else {
            0
        };
        let qmean = self.round_mean_queue();
        self.round_rtt_sum = 0;
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
        // Slow start's overshoot (docs/ebb.md#ss-own) is in the queue for the round that
        // ends right after the exit (held) and the one after it; this round end's decision
        // is the last to treat the queue as Ebb's own. Longer, a foreground that starts
        // meanwhile would be drained beside instead of yielded to (rtt600:long-cubic
        // traced with the mark held until a clean round: the CUBIC foreground's queue
        // kept it set, slowdown 2.02).
        let ss_overshoot = self.ss_queue;
        if !self.hold {
            self.ss_queue = false;
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
        if !self.hold || ack.in_recovery {
            // Any decision ends the wait for an early second stage; a held round (the
            // one right after the first stage) keeps it (docs/ebb.md#stage-early).
            self.stage_mark = None;
        }
        if !self.hold && !ack.in_recovery && std::mem::take(&mut self.fail_pending) && clean {
            // fail_rate_clean (docs/ebb.md#latecomers): the queue the failed refill met
            // is gone by the first decision round after the yield, so the flows that
            // made it yielded too (Ebb peers); a foreground's queue stays.
            self.forget_stale_rate();
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
            self.yield_to_queue(q, base, ss_overshoot);
        } else if self.own_drain_due(q) {
            self.drain_own(q, base);
        } else if self.refill_due(q, qmax) && self.second_stage_clear(qmean) {
            self.refill(ack.snd_nxt);
        } else if ack.cwnd_limited {
            self.probe(q, qmax, step, base);
        }
        self.round_start_cwnd = self.cwnd;
    }

    /// Yield on a round queue `q` above target (docs/ebb.md#yield).
    fn yield_to_queue(&mut self, q: Dur, base: Dur, ss_overshoot: bool) {
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
        // With ss_own, the queue that slow start's last, paced round left is Ebb's own
        // whatever its size (docs/ebb.md#ss-own).
        let own =
            ss_overshoot || (self.cfg.own_rate && q <= self.own_queue() + self.foreign_allowance());
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
                (b + self.own_target().nanos() as f64 / 2.0) / (b + qn)
            } else {
                self.note_foreign_yield();
                self.cfg.md.min((t / qn) * (t / qn))
            };
            self.cwnd = self.scale(self.cwnd, k);
        }
        self.hold = true;
        self.phase = Phase::Yield;
    }

    /// Yield within the round (docs/ebb.md#yield): when the last 8 samples all show more
    /// than 2·target of queue, a foreground is filling the link; cut now rather than at
    /// the round's end, and start a new round that will be skipped.
    pub(super) fn fast_yield(&mut self, ack: &AckSample) -> bool {
        if self.slowdown_left > 0 || ack.in_recovery || self.ss_queue {
            // With ss_own, the queue slow start left is Ebb's own: the round end drains it
            // (docs/ebb.md#ss-own).
            return false;
        }
        if self.hold && !self.cfg.foreign_in_hold {
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
        let foreign = self.cfg.foreign > Dur::ZERO && self.bdp() > 0 && {
            // With foreign_samples < 8, on the minimum of fewer samples; in a held round
            // (foreign_in_hold) against the window before the change, whose packets
            // that round still carries (docs/ebb.md#faster-yield).
            let qf = if self.cfg.foreign_samples < super::SS_SAMPLES {
                self.recent_queue_of(self.cfg.foreign_samples as usize)
                    .unwrap_or(q)
            } else {
                q
            };
            let own = if self.hold {
                self.own_queue_at(self.cwnd.max(self.prev_start_cwnd))
            } else {
                self.own_queue()
            };
            qf > own + self.foreign_allowance()
        };
        if self.hold && !foreign {
            // In a held round only the foreign test acts (foreign_in_hold).
            return false;
        }
        if (qn <= 2.0 * t || self.cfg.own_rate) && !foreign {
            return false;
        }
        let k = if foreign {
            self.note_foreign_yield();
            0.0
        } else {
            self.cfg.md.min((t / qn) * (t / qn))
        };
        self.cwnd = self.scale(self.cwnd, k);
        self.phase = Phase::Yield;
        self.restart_round(ack);
        true
    }

    /// A yield to a foreign queue: if it follows a refill from the floor that Ebb has
    /// not yet held at the BDP, the refill was taken beside a foreground, and the next
    /// one backs off (stage_backoff, refill_backoff; docs/ebb.md#faster-yield).
    pub(super) fn note_foreign_yield(&mut self) {
        if std::mem::replace(&mut self.refill_unconfirmed, false) {
            let cap = self.cfg.stage_backoff.max(self.cfg.refill_backoff);
            self.failed_refills = (self.failed_refills + 1).min(cap);
            if self.cfg.fail_rate && self.cfg.fail_rate_clean {
                self.fail_pending = true;
            } else if self.cfg.fail_rate {
                self.forget_stale_rate();
            }
        }
    }

    /// With fail_rate (docs/ebb.md#latecomers): a refill from the floor to the
    /// remembered BDP met a queue it does not explain, so the link is shared and the
    /// remembered rate is stale. Traced on rate100's four Ebb flows: the two incumbents
    /// remember the whole link (96.5 Mbit/s), refill together to half of it each from
    /// the floor, meet 160 packets of queue, and go back to the floor, a loop in which
    /// the link ran at 25-50 %. The new rate is the largest delivery rate of the last
    /// `bw_rounds` rounds (what the flow got beside the others), never above the old.
    pub(super) fn forget_stale_rate(&mut self) {
        let recent = self.avail();
        if recent > Rate::ZERO && recent < self.capacity {
            self.capacity = recent;
            self.bw_ring.clear();
            self.bw_ring.push(recent);
        }
    }

    /// A decision within a round: the next round starts at this ACK's `snd_nxt` and is
    /// held (it carries the packets sent before the change).
    pub(super) fn restart_round(&mut self, ack: &AckSample) {
        self.hold = true;
        self.after_refill = false;
        self.probe_added = 0;
        self.stage_mark = None;
        self.round_min = None;
        self.round_max = None;
        self.probe_step = 1;
        self.round_samples = 0;
        self.round_rtt_sum = 0;
        self.round_max_bw = Rate::ZERO;
        self.round_end = ack.snd_nxt;
        self.prev_start_cwnd = self.round_start_cwnd;
        self.round_start_cwnd = self.cwnd;
    }

    /// The queue Ebb drains its own to half of: `own_target`, or `target` when it is
    /// zero (docs/ebb.md#own-target).
    pub(super) fn own_target(&self) -> Dur {
        if self.cfg.own_target > Dur::ZERO {
            self.cfg.own_target.min(self.cfg.target)
        } else {
            self.cfg.target
        }
    }

    /// A round queue `q` within target but above `own_target` that Ebb's own window
    /// explains (docs/ebb.md#own-target).
    fn own_drain_due(&self, q: Dur) -> bool {
        self.cfg.own_target > Dur::ZERO
            && q > self.own_target()
            && q <= self.own_queue() + self.foreign_allowance()
    }

    /// Drain Ebb's own queue `q` to `own_target/2`: `cwnd·(base + own_target/2)/(base +
    /// q)`, the proportional rule of docs/ebb.md#yield with a lower operating point, so
    /// that the buffer a starting foreground meets is almost empty
    /// (docs/ebb.md#own-target).
    fn drain_own(&mut self, q: Dur, base: Dur) {
        let (b, qn) = (base.nanos() as f64, q.nanos() as f64);
        let k = (b + self.own_target().nanos() as f64 / 2.0) / (b + qn);
        self.cwnd = self.scale(self.cwnd, k);
        self.after_refill = false;
        self.probe_added = 0;
        self.hold = true;
        self.phase = Phase::Yield;
    }

    pub(super) fn exit_slow_start(&mut self) {
        self.phase = Phase::Yield;
        self.hold = true;
        // Slow start paces at twice the gain, faster than the link from half the BDP on:
        // the delay test fires on Ebb's own burst, and the rest of that round queues
        // behind it (rtt600 traced: 130 ms). With ss_own that queue is drained, not read
        // as a foreground's (docs/ebb.md#ss-own).
        self.ss_queue = self.cfg.ss_own;
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
