//! Stand-ins for the links the sources evaluate on but do not specify as models. What
//! they approximate and what they leave out is in docs/network-models.md.
//!
//! - **wifi**: Ong 2020's wireless last hop (802.11n, 5 GHz, one station about 5 m from
//!   the access point, RSSI −66 to −69 dBm, "ideal, stable channel with little
//!   contention"). A variable-rate delivery trace around the link's nominal rate, whose
//!   opportunities come in aggregates (A-MPDU bursts, one per transmit opportunity), plus
//!   per-frame jitter that keeps order.
//! - **satellite**: Trang 2015's long-delay path: 250 ms one way (GEO), no other
//!   satellite effect, as in the thesis's ns-2 dumbbell.

use crate::delay::{standard_normal, Jitter};
use crate::trace::DeliveryTrace;
use scavenger_cc::{Dur, Rate, Rng};

/// Parameters of the wireless stand-in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WifiModel {
    /// Length of the generated trace before it repeats.
    pub cycle: Dur,
    /// The capacity changes every `block` (rate adaptation / channel variation).
    pub block: Dur,
    /// Per-block log-capacity: AR(1) with this coefficient...
    pub ar: f64,
    /// ...and this innovation standard deviation.
    pub sigma: f64,
    /// Aggregates (transmit opportunities) are spaced uniformly in [min, max].
    pub txop_min: Dur,
    pub txop_max: Dur,
    /// Per-frame jitter: uniform ± this, order-preserving, on top of the path delay.
    pub jitter: Dur,
}

impl Default for WifiModel {
    fn default() -> Self {
        WifiModel {
            cycle: Dur::from_secs(60),
            block: Dur::from_millis(100),
            ar: 0.9,
            sigma: 0.05,
            txop_min: Dur::from_millis(1),
            txop_max: Dur::from_millis(3),
            jitter: Dur::from_millis(1),
        }
    }
}

impl WifiModel {
    /// The jitter the preset adds to the link's delay.
    pub fn jitter(&self) -> Jitter {
        Jitter::Uniform {
            amount: self.jitter,
            preserve_order: true,
        }
    }

    /// A trace whose long-run rate is exactly `mean` (up to a byte per cycle): per
    /// block, a capacity that follows a log-normal AR(1) process around `mean`; within a
    /// block, aggregates at random spacings, each carrying the bytes its spacing earned.
    pub fn trace(&self, mean: Rate, rng: &mut Rng) -> DeliveryTrace {
        let cycle = self.cycle.nanos();
        let block = self.block.nanos().max(1);
        let nblocks = cycle.div_ceil(block) as usize;
        // Stationary start, then AR(1) in log space.
        let sd = self.sigma / (1.0 - self.ar * self.ar).max(1e-9).sqrt();
        let mut x = standard_normal(rng) * sd;
        let mut factors = Vec::with_capacity(nblocks);
        for _ in 0..nblocks {
            factors.push(x.exp());
            x = self.ar * x + self.sigma * standard_normal(rng);
        }
        let mean_f = factors.iter().sum::<f64>() / nblocks as f64;
        let bytes_per_ns = mean.bps() as f64 / 8.0 / 1e9;
        let (mut times, mut sizes) = (Vec::new(), Vec::new());
        let (lo, hi) = (
            self.txop_min.nanos(),
            self.txop_max.nanos().max(self.txop_min.nanos()),
        );
        let mut t = 0u64;
        let mut owed = 0.0f64; // bytes earned but not yet delivered
        let mut delivered = 0u64;
        let target_total = (bytes_per_ns * cycle as f64).round() as u64;
        while t < cycle {
            let gap = lo + rng.below(hi - lo + 1);
            let next = (t + gap).min(cycle);
            // Integrate the block-wise capacity over (t, next].
            let mut a = t;
            while a < next {
                let b_idx = (a / block) as usize;
                let b_end = ((b_idx as u64 + 1) * block).min(next);
                owed +=
                    (b_end - a) as f64 * bytes_per_ns * factors[b_idx.min(nblocks - 1)] / mean_f;
                a = b_end;
            }
            t = next;
            let whole = if t == cycle {
                target_total.saturating_sub(delivered)
            } else {
                owed.floor() as u64
            };
            if whole > 0 {
                let mut left = whole;
                // Opportunities are u32 bytes: split huge aggregates at the same instant.
                while left > 0 {
                    let chunk = left.min(u32::MAX as u64);
                    times.push(t);
                    sizes.push(chunk as u32);
                    left -= chunk;
                }
                owed -= whole as f64;
                delivered += whole;
            }
        }
        DeliveryTrace::from_opportunities(times, sizes, Some(cycle))
            .expect("generated trace is well formed")
    }
}

/// Trang 2015's long-delay settings (its §4.2: a 10 Mb/s dumbbell with one-way delay up to
/// 250 ms, GEO).
pub const SATELLITE_ONE_WAY_DELAY: Dur = Dur::from_millis(250);
pub const SATELLITE_RATE: Rate = Rate::from_mbps(10);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wifi_trace_has_the_mean_rate_and_varies() {
        let m = WifiModel::default();
        let t = m.trace(Rate::from_mbps(8), &mut Rng::new(4));
        // 8 Mbit/s × 60 s = 60 MB exactly.
        assert_eq!(t.cycle_bytes(), 60_000_000);
        assert_eq!(t.period(), Dur::from_secs(60));
        // Per-second capacity varies, a little.
        let per_s: Vec<f64> = (0..60)
            .map(|s| {
                (t.bytes_before(scavenger_cc::Time((s + 1) * 1_000_000_000))
                    - t.bytes_before(scavenger_cc::Time(s * 1_000_000_000))) as f64
            })
            .collect();
        let mean = per_s.iter().sum::<f64>() / 60.0;
        let cv = (per_s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 60.0).sqrt() / mean;
        assert!((0.01..0.2).contains(&cv), "cv {cv}");
        // Aggregates: opportunities 1–3 ms apart, each a few packets at 8 Mbit/s.
        assert!(t.len() > 60_000 / 3 && t.len() < 60_000 + 10, "{}", t.len());
    }
}
