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
