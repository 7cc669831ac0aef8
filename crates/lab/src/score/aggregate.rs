//! Several seeds per cell (docs/scorecard.md#seeds): each metric is the median of its
//! per-seed values, the verdicts are those of the medians, and the min–max over the
//! seeds is kept for the report. One seed's luck can no longer decide a goal that sits
//! at its threshold.

use super::metrics::CellScore;

/// The median: the middle value, or the mean of the two middle values for an even
/// count. `None` for no value.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(s[n / 2]),
        // Two infinite middles stay infinite (the mean of ∞ and ∞ is ∞).
        _ => Some((s[n / 2 - 1] + s[n / 2]) / 2.0),
    }
}

/// The scores of one (algorithm, cell) over seeds 1..=N, and their aggregate.
#[derive(Clone, Debug, PartialEq)]
pub struct SeededScore {
    /// Per seed, seed 1 first.
    pub seeds: Vec<CellScore>,
    /// Each value the median over the seeds where it is defined, and the verdicts
    /// judged on those medians.
    pub median: CellScore,
}

/// A metric of one seed's score.
pub type Metric = fn(&CellScore) -> Option<f64>;

/// A ramp-up never reached within the run counts as infinitely long, so that it sorts
/// above every ramp-up that was reached (and reads "inf" in scorecard.csv's spread).
pub fn ramp_or_never(s: &CellScore) -> Option<f64> {
    Some(s.ramp_rtts.unwrap_or(f64::INFINITY))
}

impl SeededScore {
    /// `None` for no seed.
    pub fn new(seeds: Vec<CellScore>) -> Option<SeededScore> {
        let first = seeds.first()?;
        let med = |f: Metric| median(&seeds.iter().filter_map(f).collect::<Vec<_>>());
        let ramp = med(ramp_or_never).filter(|r| r.is_finite());
        let mut m = CellScore {
            slowdown: med(|s| s.slowdown),
            harm_tput: med(|s| s.harm_tput),
            harm_delay: med(|s| s.harm_delay),
            added_delay_ms: med(|s| s.added_delay_ms),
            spare_alone: med(|s| s.spare_alone),
            spare_beside: med(|s| s.spare_beside),
            // The median of each seed's score (the smaller of alone and beside), not the
            // smaller of the two medians: the score is per run.
            spare: med(|s| s.spare),
            qdelay_mean_ms: med(|s| s.qdelay_mean_ms),
            qdelay_p95_ms: med(|s| s.qdelay_p95_ms),
            ramp_rtts: ramp,
            // Shown as "> bound" when the median seed never ramped up.
            ramp_bound_rtts: med(|s| s.ramp_bound_rtts),
            jain: med(|s| s.jain),
            ref_util: med(|s| Some(s.ref_util)).unwrap_or(first.ref_util),
            ref_peak: med(|s| Some(s.ref_peak)).unwrap_or(first.ref_peak),
            ..first.clone()
        };
        m.judge();
        Some(SeededScore { seeds, median: m })
    }

    /// The smallest and largest value of a metric over the seeds where it is defined.
    pub fn spread(&self, f: Metric) -> Option<(f64, f64)> {
        self.seeds.iter().filter_map(f).fold(None, |acc, x| {
            Some(acc.map_or((x, x), |(lo, hi): (f64, f64)| (lo.min(x), hi.max(x))))
        })
    }

    /// The ramp-up's spread, a ramp-up never reached counting as ∞.
    pub fn ramp_spread(&self) -> Option<(f64, f64)> {
        self.spread(ramp_or_never)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::metrics::Verdict;

    /// A seed's score with every goal met but for the given slowdown and ramp-up.
    fn seed(slowdown: f64, ramp: Option<f64>) -> CellScore {
        let mut s = CellScore {
            slowdown: Some(slowdown),
            harm_tput: Some(0.0),
            harm_delay: Some(0.0),
            added_delay_ms: Some(0.0),
            spare_alone: Some(0.95),
            spare_beside: None,
            spare: Some(0.95),
            qdelay_mean_ms: Some(2.0),
            qdelay_p95_ms: Some(4.0),
            ramp_rtts: ramp,
            ramp_bound_rtts: Some(60.0),
            jain: Some(0.99),
            ref_util: 0.95,
            ref_peak: 0.97,
            v_slowdown: Verdict::Fail,
            v_spare: Verdict::Fail,
            v_queue: Verdict::Fail,
            v_ramp: Verdict::Fail,
            v_jain: Verdict::Fail,
        };
        s.judge();
        s
    }

    #[test]
    fn median_takes_the_middle_or_the_mean_of_the_two_middles() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[1.08, 1.03, 1.06]), Some(1.06));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(
            median(&[1.0, f64::INFINITY, f64::INFINITY]),
            Some(f64::INFINITY)
        );
    }

    #[test]
    fn the_verdict_is_the_medians_and_one_lucky_seed_does_not_pass_the_cell() {
        // Seed 1 alone would pass (slowdown 1.03 ≤ 1.05), seeds 2 and 3 do not: the median
        // 1.06 fails, and the spread shows 1.03–1.08.
        let seeds = vec![
            seed(1.03, Some(3.0)),
            seed(1.08, Some(4.0)),
            seed(1.06, Some(2.0)),
        ];
        assert!(seeds[0].all_pass() && !seeds[1].all_pass());
        let a = SeededScore::new(seeds).unwrap();
        assert_eq!(a.median.slowdown, Some(1.06));
        assert_eq!(a.median.v_slowdown, Verdict::Fail);
        assert!(!a.median.all_pass());
        assert_eq!(a.spread(|s| s.slowdown), Some((1.03, 1.08)));
        // The other goals are the medians of values that pass: they pass.
        assert_eq!(a.median.ramp_rtts, Some(3.0));
        assert_eq!(
            a.median.verdicts()[1..],
            [Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Pass]
        );
        // One seed that fails among passing ones does not fail the median.
        let a =
            SeededScore::new(vec![seed(1.01, None), seed(1.09, None), seed(1.04, None)]).unwrap();
        assert_eq!(a.median.slowdown, Some(1.04));
        assert_eq!(a.median.v_slowdown, Verdict::Pass);
        // No seed ramped up: the median is never reached and shown against its bound.
        assert_eq!(a.median.ramp_rtts, None);
        assert_eq!(a.median.ramp_bound_rtts, Some(60.0));
        assert_eq!(a.median.v_ramp, Verdict::Fail);
        assert_eq!(a.ramp_spread(), Some((f64::INFINITY, f64::INFINITY)));
    }

    #[test]
    fn a_ramp_up_never_reached_counts_as_the_longest_and_hollow_rules_use_the_median() {
        // Ramp-ups 2, never, 4 RTTs: median 4 passes; 2, never, never: the median never.
        let a = SeededScore::new(vec![
            seed(1.0, Some(2.0)),
            seed(1.0, None),
            seed(1.0, Some(4.0)),
        ])
        .unwrap();
        assert_eq!(a.median.ramp_rtts, Some(4.0));
        assert_eq!(a.median.v_ramp, Verdict::Pass);
        assert_eq!(a.ramp_spread(), Some((2.0, f64::INFINITY)));
        let a =
            SeededScore::new(vec![seed(1.0, Some(2.0)), seed(1.0, None), seed(1.0, None)]).unwrap();
        assert_eq!(a.median.ramp_rtts, None);
        assert_eq!(a.median.v_ramp, Verdict::Fail);
        // NewReno fills the link in one seed of three: the median reference does not,
        // so the spare goal is hollow (n/a) although a seed alone would judge it.
        let mut starved = vec![seed(1.0, Some(2.0)); 3];
        for (s, util) in starved.iter_mut().zip([0.95, 0.85, 0.80]) {
            s.ref_util = util;
            s.spare = Some(0.5);
            s.judge();
        }
        assert_eq!(starved[0].v_spare, Verdict::Fail);
        let a = SeededScore::new(starved).unwrap();
        assert_eq!(a.median.ref_util, 0.85);
        assert_eq!(a.median.v_spare, Verdict::Hollow);
        assert!(a.median.all_pass());
        assert!(SeededScore::new(vec![]).is_none());
    }
}
