//! Base-delay and current-delay bookkeeping of RFC 6817 (LEDBAT) §2.4.2 (and its
//! delay-estimation discussion in §3), shared by the LEDBAT family (LEDBAT, Apple
//! LEDBAT, and later others).
//!
//! - Base delay: BASE_HISTORY buckets, each the minimum delay seen during one minute;
//!   a new bucket is started ("roll-over") when a new minute starts, evicting the oldest;
//!   the base delay is the minimum over all buckets (RFC 6817 §2.4.2 `update_base_delay`).
//! - Current delay: the last CURRENT_FILTER samples; the current delay is their minimum
//!   (RFC 6817 §2.4.2 `update_current_delay`, with FILTER() = MIN, the noise filter the
//!   RFC suggests and both Linux LEDBAT modules use).
//!
//! Delays are signed nanoseconds: one-way delay samples include the unknown offset
//! between the two hosts' clocks, so they may be negative; only differences and minima
//! are meaningful: the offset cancels in `current − base` (RFC 6817 §3, delay estimation).

use crate::units::{Dur, Time};
use std::collections::VecDeque;

/// RFC 6817 §2.5: "BASE_HISTORY ... SHOULD be 10" (minutes of history).
pub const RFC_BASE_HISTORY: usize = 10;
/// Four samples: the Linux LEDBAT module by Valenti used in Trang 2015
/// (`noise_filter_len = 4`; see /work/shared/specs/001-flower.md §2.3). The module seed
/// 000 evaluated defaults to 2 instead (`current_filter = 2`); the algorithms choose.
pub const DEFAULT_CURRENT_FILTER: usize = 4;
/// Each base-delay bucket covers one minute (RFC 6817 §2.4.2).
pub const BUCKET_PERIOD: Dur = Dur::from_secs(60);

/// When a new base-delay bucket is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollover {
    /// RFC 6817 §2.4.2: `if round_to_minute(now) != round_to_minute(last_rollover)`,
    /// i.e. whenever the sample falls into a different whole minute of `now` (minute
    /// boundaries at multiples of 60 s of the clock) than the last roll-over.
    MinuteBoundary,
    /// The Linux LEDBAT module Ong 2020 evaluated (Kühlewind/Fisches `tcp_ledbat.c`,
    /// `tcp_ledbat_update_base_delay`): `if now >= last_rollover + 60 s`, i.e. 60 s after
    /// the previous roll-over rather than at minute boundaries.
    Elapsed,
}

/// BASE_HISTORY one-minute minima (RFC 6817 §2.4.2 `base_delays`).
#[derive(Clone, Debug)]
pub struct BaseDelayHistory {
    /// Oldest first; the back is the bucket of the current minute. RFC 6817 initialises
    /// the list to +INFINITY; an absent bucket is the same thing.
    buckets: VecDeque<i64>,
    len: usize,
    /// RFC 6817: `last_rollover = -INFINITY`; `None` means "never rolled over".
    last_rollover: Option<Time>,
    mode: Rollover,
}

impl BaseDelayHistory {
    /// `len` buckets (at least 1).
    pub fn new(len: usize, mode: Rollover) -> Self {
        let len = len.max(1);
        BaseDelayHistory {
            buckets: VecDeque::with_capacity(len),
            len,
            last_rollover: None,
            mode,
        }
    }

    fn new_bucket_due(&self, now: Time) -> bool {
        let Some(last) = self.last_rollover else {
            return true;
        };
        match self.mode {
            // round_to_minute() taken as truncation to the whole minute.
            Rollover::MinuteBoundary => {
                now.nanos() / BUCKET_PERIOD.nanos() != last.nanos() / BUCKET_PERIOD.nanos()
            }
            Rollover::Elapsed => now >= last + BUCKET_PERIOD,
        }
    }

    /// RFC 6817 §2.4.2 `update_base_delay(delay)`.
    pub fn update(&mut self, now: Time, delay: i64) {
        if self.new_bucket_due(now) {
            // last_rollover = now; delete first item of base_delays; append delay.
            self.last_rollover = Some(now);
            if self.buckets.len() == self.len {
                self.buckets.pop_front();
            }
            self.buckets.push_back(delay);
        } else if let Some(tail) = self.buckets.back_mut() {
            // base_delays.tail = MIN(base_delays.tail, delay)
            *tail = (*tail).min(delay);
        }
    }

    /// MIN(base_delays); `None` before the first sample.
    pub fn base(&self) -> Option<i64> {
        self.buckets.iter().copied().min()
    }

    /// The buckets, oldest first (for traces and tests).
    pub fn buckets(&self) -> impl Iterator<Item = i64> + '_ {
        self.buckets.iter().copied()
    }

    pub fn last_rollover(&self) -> Option<Time> {
        self.last_rollover
    }

    /// Forgets all history (e.g. after a route change).
    pub fn reset(&mut self) {
        self.buckets.clear();
        self.last_rollover = None;
    }
}

/// The last CURRENT_FILTER delay samples (RFC 6817 §2.4.2 `current_delays`), filtered
/// by MIN (the noise filter of §3.4.2).
#[derive(Clone, Debug)]
pub struct CurrentDelayFilter {
    samples: VecDeque<i64>,
    len: usize,
}

impl CurrentDelayFilter {
    /// `len` samples (at least 1).
    pub fn new(len: usize) -> Self {
        let len = len.max(1);
        CurrentDelayFilter {
            samples: VecDeque::with_capacity(len),
            len,
        }
    }

    /// RFC 6817 §2.4.2 `update_current_delay(delay)`: delete the first item, append delay.
    pub fn update(&mut self, delay: i64) {
        if self.samples.len() == self.len {
            self.samples.pop_front();
        }
        self.samples.push_back(delay);
    }

    /// FILTER(current_delays) = MIN; `None` before the first sample.
    pub fn current(&self) -> Option<i64> {
        self.samples.iter().copied().min()
    }

    pub fn reset(&mut self) {
        self.samples.clear();
    }
}

/// Both lists together, fed with the same samples, as RFC 6817 §2.4.2 "on
/// acknowledgement" does: `queuing_delay = FILTER(current_delays) - MIN(base_delays)`.
#[derive(Clone, Debug)]
pub struct LedbatDelayEstimator {
    pub base: BaseDelayHistory,
    pub current: CurrentDelayFilter,
}

impl LedbatDelayEstimator {
    pub fn new(base_history: usize, current_filter: usize, mode: Rollover) -> Self {
        LedbatDelayEstimator {
            base: BaseDelayHistory::new(base_history, mode),
            current: CurrentDelayFilter::new(current_filter),
        }
    }

    /// One delay sample at `now`.
    pub fn update(&mut self, now: Time, delay: i64) {
        self.base.update(now, delay);
        self.current.update(delay);
    }

    /// FILTER(current_delays) − MIN(base_delays) in nanoseconds; `None` before the first
    /// sample. It can be negative only if a roll-over evicted the bucket that held the
    /// samples still in the current filter; callers decide how to treat that.
    pub fn queuing_delay(&self) -> Option<i64> {
        Some(self.current.current()? - self.base.base()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;
    fn t(secs: u64) -> Time {
        Time(secs * S)
    }

    #[test]
    fn minute_boundary_rollover_starts_buckets_at_whole_minutes() {
        let mut h = BaseDelayHistory::new(RFC_BASE_HISTORY, Rollover::MinuteBoundary);
        assert_eq!(h.base(), None);
        // First sample always rolls over (last_rollover = -inf).
        h.update(t(10), 50);
        h.update(t(30), 40); // same minute [0,60): tail = min(50,40) = 40
        h.update(t(59), 45); // still minute 0: tail stays 40
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![40]);
        // 60 s is the next minute: new bucket even though only 1 s passed since 59 s.
        h.update(Time(60 * S), 70);
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![40, 70]);
        h.update(Time(119 * S + 999_999_999), 65); // minute 1 still: tail = 65
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![40, 65]);
        h.update(t(120), 80); // minute 2
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![40, 65, 80]);
        assert_eq!(h.base(), Some(40));
        assert_eq!(h.last_rollover(), Some(t(120)));
    }

    #[test]
    fn elapsed_rollover_waits_sixty_seconds_after_the_last_one() {
        let mut h = BaseDelayHistory::new(RFC_BASE_HISTORY, Rollover::Elapsed);
        h.update(t(30), 50); // first sample: roll-over, last = 30 s
        h.update(t(60), 40); // 30 s later: same bucket (MinuteBoundary would roll here)
        h.update(Time(89 * S + 999_999_999), 45);
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![40]);
        h.update(t(90), 70); // 30 + 60 = 90 s: new bucket
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![40, 70]);
        assert_eq!(h.last_rollover(), Some(t(90)));
    }

    #[test]
    fn history_length_evicts_the_oldest_minute() {
        // Three buckets; minute m gets delay 100 - m, except minute 0 has the smallest.
        let mut h = BaseDelayHistory::new(3, Rollover::MinuteBoundary);
        h.update(t(0), -5); // negative: OWD with a clock offset
        h.update(t(60), 99);
        h.update(t(120), 98);
        assert_eq!(h.base(), Some(-5));
        h.update(t(180), 97); // evicts minute 0
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![99, 98, 97]);
        assert_eq!(h.base(), Some(97));
        // An idle gap of several minutes still adds only one bucket (RFC pseudo-code).
        h.update(t(600), 120);
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![98, 97, 120]);
        h.reset();
        assert_eq!(h.base(), None);
    }

    #[test]
    fn current_filter_is_the_minimum_of_the_last_samples() {
        let mut f = CurrentDelayFilter::new(DEFAULT_CURRENT_FILTER);
        assert_eq!(f.current(), None);
        for d in [30, 10, 20, 40] {
            f.update(d);
        }
        assert_eq!(f.current(), Some(10));
        f.update(50); // window 10,20,40,50
        assert_eq!(f.current(), Some(10));
        f.update(60); // window 20,40,50,60: the 10 fell out
        assert_eq!(f.current(), Some(20));
        let mut one = CurrentDelayFilter::new(1);
        one.update(7);
        one.update(9);
        assert_eq!(one.current(), Some(9));
    }

    #[test]
    fn queuing_delay_is_current_minus_base_and_rises_when_the_base_rolls_out() {
        let mut e = LedbatDelayEstimator::new(2, 2, Rollover::MinuteBoundary);
        assert_eq!(e.queuing_delay(), None);
        e.update(t(1), -1_000); // base -1000
        e.update(t(2), 9_000);
        // current = min(-1000, 9000) = -1000 → q = 0
        assert_eq!(e.queuing_delay(), Some(0));
        e.update(t(3), 19_000); // current = min(9000,19000) = 9000 → q = 10000
        assert_eq!(e.queuing_delay(), Some(10_000));
        e.update(t(61), 19_000); // bucket 2: [-1000, 19000]
        e.update(t(121), 19_000); // bucket 3 evicts the -1000 bucket: [19000, 19000]
        assert_eq!(e.base.base(), Some(19_000));
        assert_eq!(e.queuing_delay(), Some(0));
    }
}
