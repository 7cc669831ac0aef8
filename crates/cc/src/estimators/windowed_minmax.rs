//! Kathleen Nichols' windowed min/max filter, as in Linux `lib/win_minmax.c` (used by
//! BBR for the max-bandwidth filter keyed by round count, and for min-RTT style trackers
//! keyed by time).
//!
//! The filter keeps the best, second-best and third-best samples of the last `win` key
//! units, with the invariant that the key (time) of the n-th best is at or after the key
//! of the (n-1)-th best, and spreads them over the window (a new second-best is taken
//! from the second quarter, a new third-best from the second half) so that the estimate
//! stays close to the true windowed extreme in constant space and time.
//!
//! Keys are `u64`: nanoseconds (see the `*_at` helpers taking `Time`/`Dur`) or a round
//! counter. Unlike Linux's `u32` keys, they are not expected to wrap; a key earlier than
//! a stored one is treated as no time elapsed.

use crate::units::{Dur, Time};

/// One sample: key (time or round) and value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinmaxSample {
    pub t: u64,
    pub v: u64,
}

/// Windowed extreme filter. `MAX = true` tracks the maximum, `false` the minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowedFilter<const MAX: bool> {
    s: [MinmaxSample; 3],
    valid: bool,
}

/// Windowed maximum (Linux `minmax_running_max`).
pub type WindowedMax = WindowedFilter<true>;
/// Windowed minimum (Linux `minmax_running_min`).
pub type WindowedMin = WindowedFilter<false>;

impl<const MAX: bool> Default for WindowedFilter<MAX> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const MAX: bool> WindowedFilter<MAX> {
    /// An empty filter: the first `update` resets it to that sample.
    pub const fn new() -> Self {
        WindowedFilter {
            s: [MinmaxSample { t: 0, v: 0 }; 3],
            valid: false,
        }
    }

    /// `a` is at least as good as `b` (>= for a max filter, <= for a min filter).
    #[inline]
    fn as_good(a: u64, b: u64) -> bool {
        if MAX {
            a >= b
        } else {
            a <= b
        }
    }

    /// The current windowed extreme, `None` before the first sample.
    pub fn get(&self) -> Option<u64> {
        self.valid.then_some(self.s[0].v)
    }

    /// Best, second-best and third-best samples (for tests and traces).
    pub fn samples(&self) -> [MinmaxSample; 3] {
        self.s
    }

    pub fn is_empty(&self) -> bool {
        !self.valid
    }

    /// Forgets everything; the filter restarts with this one sample (Linux `minmax_reset`).
    pub fn reset(&mut self, t: u64, v: u64) -> u64 {
        let val = MinmaxSample { t, v };
        self.s = [val; 3];
        self.valid = true;
        v
    }

    /// Drops all samples (the filter becomes empty).
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Adds a measurement `v` at key `t` and returns the windowed extreme over the last
    /// `win` key units (Linux `minmax_running_max` / `minmax_running_min`).
    pub fn update(&mut self, t: u64, v: u64, win: u64) -> u64 {
        let val = MinmaxSample { t, v };
        // win_minmax.c: "found new max?" / "nothing left in window?" -> forget earlier samples.
        if !self.valid || Self::as_good(v, self.s[0].v) || t.saturating_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if Self::as_good(v, self.s[1].v) {
            // A new second-best also becomes the third-best.
            self.s[2] = val;
            self.s[1] = val;
        } else if Self::as_good(v, self.s[2].v) {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// win_minmax.c `minmax_subwin_update`: as time advances, update the 1st, 2nd and
    /// 3rd choices.
    fn subwin_update(&mut self, win: u64, val: MinmaxSample) -> u64 {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > win {
            // The best sample left the window without a better one: promote the 2nd and
            // 3rd choices; the 2nd may be outside the window too (the 3rd was checked).
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window passed without a new 2nd choice: take one from the
            // second quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window passed without a new 3rd choice: take one from the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }

    /// `update` keyed by time in nanoseconds.
    pub fn update_at(&mut self, now: Time, v: u64, win: Dur) -> u64 {
        self.update(now.nanos(), v, win.nanos())
    }

    /// `reset` keyed by time in nanoseconds.
    pub fn reset_at(&mut self, now: Time, v: u64) -> u64 {
        self.reset(now.nanos(), v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: u64, v: u64) -> MinmaxSample {
        MinmaxSample { t, v }
    }

    #[test]
    fn empty_filter_takes_the_first_sample() {
        let mut f = WindowedMin::new();
        assert_eq!(f.get(), None);
        assert_eq!(f.update(5, 70, 10), 70);
        assert_eq!(f.samples(), [s(5, 70); 3]);
        assert_eq!(f.get(), Some(70));
        f.clear();
        assert!(f.is_empty());
    }

    #[test]
    fn max_filter_quarter_half_replacement_and_expiry() {
        // Window 100: win/4 = 25, win/2 = 50.
        let mut f = WindowedMax::new();
        assert_eq!(f.update(0, 10, 100), 10);
        assert_eq!(f.samples(), [s(0, 10); 3]);
        // 5 is worse than all three; dt = 10 <= 25: nothing changes.
        assert_eq!(f.update(10, 5, 100), 10);
        assert_eq!(f.samples(), [s(0, 10); 3]);
        // dt = 30 > 25 and s1.t == s0.t: quarter rule, s2 = s1 = (30, 6).
        assert_eq!(f.update(30, 6, 100), 10);
        assert_eq!(f.samples(), [s(0, 10), s(30, 6), s(30, 6)]);
        // 4 < 6; dt = 40: s1.t != s0.t, and 40 <= 50 for the half rule: unchanged.
        assert_eq!(f.update(40, 4, 100), 10);
        assert_eq!(f.samples(), [s(0, 10), s(30, 6), s(30, 6)]);
        // dt = 60 > 50 and s2.t == s1.t: half rule, s2 = (60, 3).
        assert_eq!(f.update(60, 3, 100), 10);
        assert_eq!(f.samples(), [s(0, 10), s(30, 6), s(60, 3)]);
        // 5 >= s2.v = 3 (but < s1.v = 6): replaces the third choice.
        assert_eq!(f.update(70, 5, 100), 10);
        assert_eq!(f.samples(), [s(0, 10), s(30, 6), s(70, 5)]);
        // 7 >= s1.v = 6: replaces second and third; then the half rule (s2.t == s1.t,
        // dt = 80 > 50) re-takes the same sample.
        assert_eq!(f.update(80, 7, 100), 10);
        assert_eq!(f.samples(), [s(0, 10), s(80, 7), s(80, 7)]);
        // dt = 101 > 100: the best expires, 2nd -> 1st, 3rd -> 2nd, new -> 3rd;
        // 101 - 80 = 21 <= 100 so one shift only.
        assert_eq!(f.update(101, 2, 100), 7);
        assert_eq!(f.samples(), [s(80, 7), s(80, 7), s(101, 2)]);
        // dt = 95 <= 100; s1.t == s0.t and 95 > 25: quarter rule takes (175, 1).
        assert_eq!(f.update(175, 1, 100), 7);
        assert_eq!(f.samples(), [s(80, 7), s(175, 1), s(175, 1)]);
        // dt = 101: shift once; 181 - 175 = 6 so the new best is 1.
        assert_eq!(f.update(181, 0, 100), 1);
        assert_eq!(f.samples(), [s(175, 1), s(175, 1), s(181, 0)]);
        // A new maximum forgets everything.
        assert_eq!(f.update(182, 9, 100), 9);
        assert_eq!(f.samples(), [s(182, 9); 3]);
    }

    #[test]
    fn max_filter_double_shift_and_nothing_left_in_window() {
        let mut f = WindowedMax::new();
        f.update(0, 10, 100);
        f.update(30, 6, 100); // quarter rule -> [(0,10),(30,6),(30,6)]
                              // 5 < 6; dt = 100 is not > 100; half rule: s2.t == s1.t and 100 > 50 -> s2 = (100,5).
        assert_eq!(f.update(100, 5, 100), 10);
        assert_eq!(f.samples(), [s(0, 10), s(30, 6), s(100, 5)]);
        // t - s2.t = 35 <= 100 (no reset); dt = 135 > 100: shift to [(30,6),(100,5),(135,1)];
        // 135 - 30 = 105 > 100: shift again to [(100,5),(135,1),(135,1)].
        assert_eq!(f.update(135, 1, 100), 5);
        assert_eq!(f.samples(), [s(100, 5), s(135, 1), s(135, 1)]);
        // t - s2.t = 236 - 135 = 101 > 100: nothing left in the window, reset even though
        // 3 is worse than the stored best.
        assert_eq!(f.update(236, 3, 100), 3);
        assert_eq!(f.samples(), [s(236, 3); 3]);
    }

    #[test]
    fn min_filter_by_round_count() {
        // Window 10 rounds: win/4 = 2, win/2 = 5.
        let mut f = WindowedMin::new();
        assert_eq!(f.update(0, 100, 10), 100);
        // 105 is worse; dt = 1 <= 2: unchanged.
        assert_eq!(f.update(1, 105, 10), 100);
        assert_eq!(f.samples(), [s(0, 100); 3]);
        // dt = 3 > 2: quarter rule.
        assert_eq!(f.update(3, 104, 10), 100);
        assert_eq!(f.samples(), [s(0, 100), s(3, 104), s(3, 104)]);
        // 103 <= 104: new second (and third) choice.
        assert_eq!(f.update(6, 103, 10), 100);
        assert_eq!(f.samples(), [s(0, 100), s(6, 103), s(6, 103)]);
        // 110 > 103 (worse than all); dt = 8: s2.t == s1.t but the half rule compares dt
        // against win/2 = 5 -> s2 = (8, 110).
        assert_eq!(f.update(8, 110, 10), 100);
        assert_eq!(f.samples(), [s(0, 100), s(6, 103), s(8, 110)]);
        // Round 11: dt = 11 > 10, the best expires; 11 - 6 = 5 <= 10.
        assert_eq!(f.update(11, 120, 10), 103);
        assert_eq!(f.samples(), [s(6, 103), s(8, 110), s(11, 120)]);
        // A new minimum forgets everything.
        assert_eq!(f.update(12, 90, 10), 90);
        assert_eq!(f.samples(), [s(12, 90); 3]);
    }

    #[test]
    fn min_filter_keyed_by_time() {
        // Min RTT over 10 s, values in microseconds.
        let win = Dur::from_secs(10);
        let mut f = WindowedMin::new();
        assert_eq!(f.update_at(Time(0), 50_000, win), 50_000);
        assert_eq!(
            f.update_at(Time(Dur::from_secs(3).nanos()), 60_000, win),
            50_000
        );
        // 3 s > 2.5 s = win/4: the 60 ms sample became the 2nd and 3rd choice.
        assert_eq!(f.samples()[1], s(3_000_000_000, 60_000));
        // At 10.5 s the 50 ms sample (t = 0) is older than the window: 60 ms remains.
        assert_eq!(f.update_at(Time(10_500_000_000), 70_000, win), 60_000);
        assert_eq!(f.reset_at(Time(11_000_000_000), 80_000), 80_000);
        assert_eq!(f.get(), Some(80_000));
    }
}
