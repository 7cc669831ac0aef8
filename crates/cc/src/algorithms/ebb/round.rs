//! Ebb's round-end decision (docs/ebb.md#design): the base-delay refresh, the held
//! round after a change, the yield rules (docs/ebb.md#yield, docs/ebb.md#foreign) and
//! the slow-start exit; growth is in `refill`.

use super::{Ebb, Phase, SLOWDOWN_ROUNDS};
use crate::api::AckSample;
use crate::units::{Dur, Rate};

impl Ebb {
    pub(super) fn end_round(&mut self, ack: &AckSample) {
        self.update_capacity();
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
            self.yield_to_queue(q, base);
        } else if self.refill_due(q, qmax) {
            self.refill();
        } else if ack.cwnd_limited {
            self.probe(q, qmax, step, base);
        }
        self.round_start_cwnd = self.cwnd;
    }

    /// Yield on a round queue `q` above target (docs/ebb.md#yield).
    fn yield_to_queue(&mut self, q: Dur, base: Dur) {
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
    }

    /// Yield within the round (docs/ebb.md#yield): when the last 8 samples all show more
    /// than 2·target of queue, a foreground is filling the link; cut now rather than at
    /// the round's end, and start a new round that will be skipped.
    pub(super) fn fast_yield(&mut self, ack: &AckSample) -> bool {
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

    pub(super) fn exit_slow_start(&mut self) {
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
