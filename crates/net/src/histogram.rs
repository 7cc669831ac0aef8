//! A log-linear histogram (HDR style): exact below 128, then 128 sub-buckets per power
//! of two, so any quantile is within 0.8 % of the true value. Memory depends on the
//! largest value seen, not on how many are recorded, which keeps long runs cheap. Mean
//! and standard deviation are exact (Welford).

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    mean: f64,
    m2: f64,
    min: u64,
    max: u64,
}

#[inline]
fn bucket_of(v: u64) -> usize {
    if v < SUB {
        v as usize
    } else {
        let e = 63 - v.leading_zeros(); // v in [2^e, 2^(e+1))
        let shift = e - SUB_BITS;
        ((shift as u64 + 1) * SUB + ((v >> shift) - SUB)) as usize
    }
}

/// The smallest value in bucket `b`, and the bucket's width.
fn bucket_range(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < SUB {
        (b, 1)
    } else {
        let shift = b / SUB - 1;
        let low = (SUB + b % SUB) << shift;
        (low, 1 << shift)
    }
}

impl Histogram {
    pub fn new() -> Histogram {
        Histogram::default()
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.record_n(v, 1)
    }

    /// Records `v` as `n` equal samples (a weight): the testbed's RTT poll stands for the
    /// ACKs of the segments delivered since the last poll. The same as `n` calls of
    /// `record(v)`, up to rounding in the mean (one Welford step with weight `n`; with
    /// n = 1 the step is exactly `record`'s, as the multiplications by 1 are exact).
    #[inline]
    pub fn record_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        let b = bucket_of(v);
        match self.counts.get_mut(b) {
            Some(c) => *c += n,
            None => self.grow_to(b, n),
        }
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.n += n;
        let x = v as f64;
        let d = x - self.mean;
        self.mean += d * n as f64 / self.n as f64;
        self.m2 += d * (x - self.mean) * n as f64;
    }

    /// Extends the counts to bucket `b` and counts `n` values in it.
    #[cold]
    fn grow_to(&mut self, b: usize, n: u64) {
        self.counts.resize(b + 1, 0);
        self.counts[b] += n;
    }

    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then_some(self.mean)
    }
    /// Population standard deviation.
    pub fn stdev(&self) -> Option<f64> {
        (self.n > 0).then(|| (self.m2 / self.n as f64).sqrt())
    }
    pub fn min(&self) -> Option<u64> {
        (self.n > 0).then_some(self.min)
    }
    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The q-quantile (0 ≤ q ≤ 1) by the nearest-rank rule, reported as the middle of its
    /// bucket (exact below 128) and clamped to the observed min and max.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, width) = bucket_range(b);
                return Some((low + (width - 1) / 2).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weighted_record_is_that_many_records() {
        let mut w = Histogram::new();
        let mut r = Histogram::new();
        for (v, n) in [
            (50_000_000u64, 3u64),
            (120_000_000, 1),
            (7, 0),
            (80_000_000, 5),
        ] {
            w.record_n(v, n);
            for _ in 0..n {
                r.record(v);
            }
        }
        assert_eq!(w.count(), 9);
        assert_eq!((w.min(), w.max()), (r.min(), r.max()));
        assert_eq!(w.quantile(0.5), r.quantile(0.5));
        assert_eq!(w.quantile(0.95), r.quantile(0.95));
        // (3·50 + 120 + 5·80) / 9 ms.
        assert!((w.mean().unwrap() - 670e6 / 9.0).abs() < 1e-3);
        assert!((w.stdev().unwrap() - r.stdev().unwrap()).abs() < 1e-3);
    }

    #[test]
    fn buckets_tile_the_line() {
        let mut prev_end = 0;
        for b in 0..3000 {
            let (low, width) = bucket_range(b);
            assert_eq!(low, prev_end, "bucket {b}");
            assert_eq!(bucket_of(low), b);
            assert_eq!(bucket_of(low + width - 1), b);
            prev_end = low + width;
        }
    }

    #[test]
    fn quantiles_are_exact_for_small_values_and_within_one_percent_above() {
        let mut h = Histogram::new();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(50));
        assert_eq!(h.quantile(0.95), Some(95));
        assert_eq!(h.mean(), Some(50.5));
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for (q, truth) in [
            (0.5, 50_000_000.0),
            (0.95, 95_000_000.0),
            (0.99, 99_000_000.0),
        ] {
            let got = h.quantile(q).unwrap() as f64;
            assert!((got - truth).abs() / truth < 0.008, "q{q}: {got}");
        }
        let sd = h.stdev().unwrap();
        let truth = 1000.0 * ((100_000f64 * 100_000.0 - 1.0) / 12.0).sqrt();
        assert!((sd - truth).abs() / truth < 1e-9);
    }

    #[test]
    fn empty_histogram_has_no_statistics() {
        let h = Histogram::new();
        assert_eq!(h.quantile(0.5), None);
        assert_eq!(h.mean(), None);
    }
}
