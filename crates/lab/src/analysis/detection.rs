//! Mode-detection metrics of Wang 2018 §5.5 (EvaRate, Copa): how long an algorithm takes
//! to notice that a buffer filler joined or left, and how often its mode is wrong after
//! that, from a per-bin mode series. Shared by the simulator's tests and the wang2018
//! study so that both use one definition.

/// One environment change: at `at` seconds the correct mode becomes `hostile`
/// (a buffer filler is present) or not.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub label: &'static str,
    pub at: f64,
    pub hostile: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// Per event: seconds from the change to the end of the first bin whose mode is
    /// the correct one (0 if it already was); `None` if not before the next event.
    pub delays: Vec<Option<f64>>,
    /// Fraction of bins in hostile mode while no buffer filler was present, counted
    /// in each phase after the first correct detection.
    pub false_positive: f64,
    /// Fraction of bins in benevolent mode while CUBIC was present, likewise.
    pub false_negative: f64,
}

/// Wang 2018 §5.5 metrics from a per-bin mode series (`time` = bin ends, `mode` = 1
/// hostile / 0 benevolent, NaN before the flow starts). Phases run from one event to
/// the next (the last to the end of the series). The thesis does not say whether its
/// false-positive/negative rates are fractions of time or of decisions; we count
/// time (bins) after the first correct detection (Wang 2018 notes §4.7).
pub fn metrics(time: &[f64], mode: &[f64], events: &[Event]) -> Metrics {
    let mut delays = Vec::new();
    let (mut fp, mut fp_bins, mut fneg, mut fn_bins) = (0usize, 0usize, 0usize, 0usize);
    for (k, e) in events.iter().enumerate() {
        let end = events.get(k + 1).map_or(f64::INFINITY, |n| n.at);
        let in_phase = |t: f64| t >= e.at && t < end;
        let first = time
            .iter()
            .zip(mode)
            .position(|(&t, &m)| in_phase(t) && !m.is_nan() && (m > 0.5) == e.hostile);
        delays.push(first.map(|i| time[i] - e.at));
        let Some(i0) = first else { continue };
        for (&t, &m) in time.iter().zip(mode).skip(i0 + 1) {
            if !in_phase(t) || m.is_nan() {
                continue;
            }
            let hostile = m > 0.5;
            if e.hostile {
                fn_bins += 1;
                fneg += usize::from(!hostile);
            } else {
                fp_bins += 1;
                fp += usize::from(hostile);
            }
        }
    }
    let rate = |n: usize, d: usize| if d == 0 { 0.0 } else { n as f64 / d as f64 };
    Metrics {
        delays,
        false_positive: rate(fp, fp_bins),
        false_negative: rate(fneg, fn_bins),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_metrics_follow_their_definitions() {
        // Bins of 0.5 s ending at 0.5 .. 6.0; events at 0 (benevolent), 2 (hostile), 4
        // (benevolent). Modes: 1 1 0 0 | 0 1 1 0 | 1 0 0 1.
        let time: Vec<f64> = (1..=12).map(|i| i as f64 * 0.5).collect();
        let mode = [1., 1., 0., 0., 0., 1., 1., 0., 1., 0., 0., 1.];
        let ev = [
            Event {
                label: "1",
                at: 0.0,
                hostile: false,
            },
            Event {
                label: "2",
                at: 2.0,
                hostile: true,
            },
            Event {
                label: "3",
                at: 4.0,
                hostile: false,
            },
        ];
        let m = metrics(&time, &mode, &ev);
        // Phase 1 (bins ending 0.5, 1.0, 1.5; 2.0 is not < 2): first benevolent bin ends at
        // 1.5 → delay 1.5, no bins after it. Phase 2 (2.0 .. 3.5): first hostile bin ends at
        // 3.0 → delay 1.0; after it 3.5 is hostile → FN 0 of 1. Phase 3 (4.0 .. 6.0): 4.0 is
        // already benevolent → delay 0; after it 4.5 (1), 5.0 (0), 5.5 (0), 6.0 (1) → FP 2 of 4.
        assert_eq!(m.delays, vec![Some(1.5), Some(1.0), Some(0.0)]);
        assert_eq!((m.false_positive, m.false_negative), (0.5, 0.0));
        // NaN bins (flow not started) never count, and an undetected phase gives None.
        // Phase 1 is all NaN, phase 2 never hostile; phase 3 benevolent at once (4.0), then
        // hostile in all four later bins → FP 4 of 4; no FN bins at all.
        let mode = [
            f64::NAN,
            f64::NAN,
            f64::NAN,
            f64::NAN,
            0.,
            0.,
            0.,
            0.,
            1.,
            1.,
            1.,
            1.,
        ];
        let m = metrics(&time, &mode, &ev);
        assert_eq!(m.delays, vec![None, None, Some(0.0)]);
        assert_eq!((m.false_positive, m.false_negative), (1.0, 0.0));
    }
}
