//! The emulator's clock: CLOCK_MONOTONIC nanoseconds since the testbed started, as the
//! net layer's `Time`, so that the same `Link` objects the simulator drives with
//! simulated time are driven here with real time.

use scavenger_cc::Time;

/// CLOCK_MONOTONIC now, in nanoseconds.
pub use scavenger_kernel::sys::monotonic_ns;

/// Maps monotonic instants to `Time` since an origin.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    origin_ns: u64,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            origin_ns: monotonic_ns(),
        }
    }
    pub fn with_origin(origin_ns: u64) -> Clock {
        Clock { origin_ns }
    }
    pub fn origin_ns(&self) -> u64 {
        self.origin_ns
    }
    /// A monotonic instant as `Time`; instants before the origin map to zero.
    pub fn to_time(&self, mono_ns: u64) -> Time {
        Time(mono_ns.saturating_sub(self.origin_ns))
    }
    /// The monotonic instant of `t`.
    pub fn to_mono(&self, t: Time) -> u64 {
        self.origin_ns.saturating_add(t.nanos())
    }
    pub fn now(&self) -> Time {
        self.to_time(monotonic_ns())
    }
    /// Sleeps until `t` (returns at once if it has passed).
    pub fn sleep_until(&self, t: Time) {
        let now = self.now();
        if t > now {
            std::thread::sleep(std::time::Duration::from_nanos(t.since(now).nanos()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_monotonic_instants_to_time_since_the_origin() {
        let c = Clock::with_origin(5_000_000_000);
        assert_eq!(c.to_time(5_000_000_000), Time(0));
        assert_eq!(c.to_time(5_000_123_456), Time(123_456));
        assert_eq!(
            c.to_time(4_000_000_000),
            Time(0),
            "before the origin saturates at zero"
        );
        assert_eq!(c.to_mono(Time(42)), 5_000_000_042);
        assert_eq!(c.to_time(c.to_mono(Time(987_654_321))), Time(987_654_321));
    }

    #[test]
    fn real_clock_is_monotonic_and_counts_nanoseconds() {
        let c = Clock::start();
        let a = c.now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b = c.now();
        assert!(b > a);
        let d = b.since(a).nanos();
        // Slept 20 ms; a loaded machine may oversleep, never undersleep.
        assert!((20_000_000..1_000_000_000).contains(&d), "{d}");
    }
}
