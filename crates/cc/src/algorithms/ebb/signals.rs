//! Ebb's signals (docs/ebb.md#signals): the queueing delay over the base RTT (the
//! round minimum, the last 8 samples, the RTT jitter), the bottleneck-rate estimate
//! with its capacity memory, and the queue Ebb's own window explains.

use super::Ebb;
use crate::api::AckSample;
use crate::units::{Dur, Rate};

impl Ebb {
    /// Take one ACK's RTT and delivery-rate samples into the round's estimates.
    pub(super) fn record_sample(&mut self, ack: &AckSample) {
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
            self.round_rtt_sum = self.round_rtt_sum.saturating_add(rtt.nanos());
            self.recent[self.recent_at] = rtt;
            self.recent_at = (self.recent_at + 1) % self.recent.len();
        }
        if let Some(rs) = ack.rate {
            if !rs.app_limited || rs.rate > self.capacity {
                self.round_max_bw = self.round_max_bw.max(rs.rate);
            }
        }
    }

    /// Queueing delay over the last SS_SAMPLES samples (none before that many).
    pub(super) fn recent_queue(&self) -> Option<Dur> {
        let m = self.recent.iter().copied().max()?;
        if m == Dur::MAX {
            return None;
        }
        let min = self.recent.iter().copied().min()?;
        Some(min - self.base?)
    }

    /// Queueing delay over the last `n` (at most SS_SAMPLES) samples, once SS_SAMPLES
    /// have come (the foreign test with foreign_samples, docs/ebb.md#faster-yield).
    pub(super) fn recent_queue_of(&self, n: usize) -> Option<Dur> {
        self.recent_queue()?;
        let len = self.recent.len();
        let n = n.clamp(1, len);
        let min = (1..=n)
            .map(|k| self.recent[(self.recent_at + len - k) % len])
            .min()?;
        Some(min - self.base?)
    }

    /// The queueing delay Ebb's own window accounts for: what it holds above the
    /// remembered BDP, drained at the remembered rate (zero before an estimate).
    pub(super) fn own_queue(&self) -> Dur {
        self.own_queue_at(self.cwnd)
    }

    /// The own queue of a window `cwnd` (own_queue; the foreign test in a held round
    /// takes the window before the change, whose packets that round still carries).
    pub(super) fn own_queue_at(&self, cwnd: u64) -> Dur {
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
        if bdp == 0 || self.capacity == Rate::ZERO || cwnd <= bdp {
            return Dur::ZERO;
        }
        let secs = (cwnd - bdp) as f64 * 8.0 / self.capacity.bps() as f64;
        let own = Dur::from_secs_f64(secs);
        match (self.cfg.own_measured, self.last_q) {
            (true, Some(last)) => {
                // At most the queue the last round measured plus what the window grew since
                // the round before (docs/ebb.md#own-measured). The window's excess over
                // the delivery rate's BDP overstates the queue when that rate
                // underestimates the link: rtt600:long-cubic traced, 37 segments "own" (22
                // ms) with an empty queue, so a CUBIC foreground's slow start queued 24 ms
                // behind Ebb before it yielded, and its HyStart exited at 0.2 of the BDP.
                let grown = cwnd.saturating_sub(self.prev_start_cwnd);
                let grown = Dur::from_secs_f64(grown as f64 * 8.0 / self.capacity.bps() as f64);
                own.min(last + grown)
            }
            _ => own,
        }
    }

    /// The largest delivery rate of the last bw_rounds rounds, held at the BDP or not.
    pub(super) fn avail(&self) -> Rate {
        self.avail_ring.iter().copied().max().unwrap_or(Rate::ZERO)
    }

    /// Mean queueing delay of the round's samples (stage_mean, docs/ebb.md#faster-yield).
    pub(super) fn round_mean_queue(&self) -> Option<Dur> {
        let base = self.base?;
        if self.round_samples == 0 {
            return None;
        }
        let mean = self.round_rtt_sum / u64::from(self.round_samples);
        Some(Dur(mean.saturating_sub(base.nanos())))
    }

    /// Queueing delay of the round just ended.
    pub(super) fn round_queue(&self) -> Option<Dur> {
        match (self.round_min, self.base) {
            (Some(m), Some(b)) => Some(m - b),
            _ => None,
        }
    }

    /// The capacity filter at a round end (docs/ebb.md#capacity): the round's largest
    /// delivery rate enters `C`'s ring when the round held the remembered BDP, and the
    /// recent-rate ring `A` whatever the window.
    pub(super) fn update_capacity(&mut self) {
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
            self.push_bw(self.round_max_bw);
            self.capacity = self.bw_ring.iter().copied().max().unwrap_or(Rate::ZERO);
        } else if self.round_max_bw > self.capacity {
            self.capacity = self.round_max_bw;
        }
        self.avail_ring.push(self.round_max_bw);
        if self.avail_ring.len() > self.cfg.bw_rounds {
            self.avail_ring.remove(0);
        }
    }

    /// The RTT jitter allowance: jitter_gain · mean |difference of consecutive samples|
    /// (docs/ebb.md#jitter).
    pub(super) fn jitter(&self) -> Dur {
        Dur((self.cfg.jitter_gain * self.jitter_ns) as u64)
    }

    /// What the foreign-queue test allows beyond Ebb's own queue (docs/ebb.md#foreign):
    /// `foreign` and the jitter allowance; with `foreign_burst`, one segment's
    /// transmission at the remembered rate as well. On the testbed the kernel sent
    /// Ebb's paced stage in back-to-back pairs, ACKed once per pair, so every RTT sample
    /// was a pair's second segment's, which waits behind the first at the bottleneck
    /// (traced at 350 ms, 8 Mbit/s: 2.9-3.0 ms on every sample against `foreign` = 2 ms;
    /// docs/ebb.md#testbed-350-trace, docs/ebb.md#foreign-burst).
    pub(super) fn foreign_allowance(&self) -> Dur {
        let base = self.cfg.foreign + self.jitter();
        if self.cfg.foreign_burst {
            base + self.segment_time()
        } else {
            base
        }
    }

    /// One segment's transmission at the remembered rate, whole ns (floor, as the C
    /// core's integer division); zero before an estimate.
    fn segment_time(&self) -> Dur {
        match self.capacity.bps() {
            0 => Dur::ZERO,
            bps => Dur::from_nanos(self.mss * 8 * 1_000_000_000 / bps),
        }
    }

    /// Queueing delay at or below which the queue counts as empty.
    pub(super) fn refill_threshold(&self) -> Dur {
        // With refill_burst, the wait of a two-segment burst's second segment counts as
        // empty too: on kernel TCP every sample of a stage paced at C carries it, and the
        // second stage never came (docs/ebb.md#foreign-burst).
        let burst = if self.cfg.refill_burst {
            self.segment_time()
        } else {
            Dur::ZERO
        };
        self.cfg.refill + self.jitter() + burst
    }

    /// The ACK rate of the last SS_SAMPLES ACKs, taken into the bottleneck-rate estimate
    /// at a slow-start exit on delay (docs/ebb.md#ss-ack-rate). The exit fires when all
    /// of the last 8 samples carry more than target of queue: the bottleneck was busy
    /// while they were sent back, so their ACKs are spaced at its rate (packet-train
    /// dispersion), while the delivery-rate samples still average over the round before,
    /// in which slow start sent half as much (rtt600 traced: C = 9.4 then 14.2 Mbit/s on
    /// a 20 Mbit/s link, and 120 rounds of probing to the link). The estimate enters the
    /// filter as a held round's sample, so rounds at the new BDP confirm or age it.
    pub(super) fn take_ack_rate(&mut self) {
        if self.acks_seen < self.acks.len() {
            return;
        }
        let newest = self.acks[(self.acks_at + self.acks.len() - 1) % self.acks.len()];
        let oldest = self.acks[self.acks_at];
        let span = newest.0.nanos().saturating_sub(oldest.0.nanos());
        let bytes = newest.1.saturating_sub(oldest.1);
        if span == 0 || bytes == 0 {
            return;
        }
        let mut rate = Rate::from_bps((bytes as f64 * 8.0 / Dur(span).secs_f64()) as u64);
        let delivered = self.capacity.max(self.round_max_bw);
        if self.cfg.ss_ack_cap > 0.0 && delivered > Rate::ZERO {
            // Slow start's delivery rate lags the link by at most the round's doubling, so
            // an ACK rate far above it is the ACKs' own bunching, not the bottleneck's
            // spacing: the wifi preset delivers in aggregates 1-3 ms apart, and eight ACKs
            // of one aggregate read 25.9 Mbit/s on a 20 Mbit/s link (docs/ebb.md#ss-ack-cap).
            let cap = (delivered.bps() as f64 * self.cfg.ss_ack_cap) as u64;
            rate = rate.min(Rate::from_bps(cap));
        }
        if rate > self.capacity {
            self.capacity = rate;
            self.push_bw(rate);
        }
    }

    /// One sample into the bottleneck-rate filter, which keeps the last bw_rounds.
    fn push_bw(&mut self, rate: Rate) {
        self.bw_ring.push(rate);
        if self.bw_ring.len() > self.cfg.bw_rounds {
            self.bw_ring.remove(0);
        }
    }
}
