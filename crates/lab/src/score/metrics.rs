//! The scorecard's metrics of one cell, from the runs' summary results and time series,
//! with their goals and the rule for hollow goals (docs/scorecard.md).

use super::error::MissingSeries;
use scavenger_sim::SimResult;
use serde::Serialize;

/// Payload share of a 1500-byte packet (MSS 1448 + 52 header bytes): the most goodput a
/// link of rate C can carry is C · 1448/1500.
pub const PAYLOAD_SHARE: f64 = 1448.0 / 1500.0;

pub const GOAL_SLOWDOWN: f64 = 1.05;
pub const GOAL_SPARE: f64 = 0.90;
pub const GOAL_QDELAY_MEAN_MS: f64 = 5.0;
pub const GOAL_QDELAY_P95_MS: f64 = 10.0;
pub const GOAL_RAMP_RTTS: f64 = 5.0;
pub const GOAL_JAIN: f64 = 0.95;
/// The share of the link the ramp-up must reach, and that the NewReno reference must
/// show in some bin for the ramp-up goal not to be hollow.
pub const RAMP_LEVEL: f64 = 0.90;
/// A foreground alone that leaves at least this share of the link spare makes the
/// "beside a long-lived flow" part of the spare-capacity metric defined.
pub const BESIDE_MIN_SPARE: f64 = 0.10;

/// The time series a scorecard reads from a stored record: bin ends, per-flow goodput
/// (NaN where the record has a gap) and the forward queue at each bin's end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub bin_s: f64,
    pub time_s: Vec<f64>,
    pub goodput_bps: Vec<(String, Vec<f64>)>,
    pub queue_pkts: Vec<f64>,
}

/// One stored run: its summary metrics and, when it kept them, its series.
#[derive(Clone, Debug)]
pub struct Run {
    pub result: SimResult,
    pub series: Option<Series>,
}

/// Flow `name`, or `name.N`, or `nameN` (the roles of the scorecard's scenarios).
fn in_role(flow: &str, role: &str) -> bool {
    flow.strip_prefix(role).is_some_and(|r| {
        r.is_empty() || r.starts_with('.') || r.chars().all(|c| c.is_ascii_digit())
    })
}

impl Series {
    /// Indices of the bins lying wholly inside [from, to].
    fn bins(&self, from: f64, to: f64) -> impl Iterator<Item = usize> + '_ {
        let eps = 1e-9;
        self.time_s
            .iter()
            .enumerate()
            .filter(move |(_, &t)| t - self.bin_s >= from - eps && t <= to + eps)
            .map(|(i, _)| i)
    }

    /// Goodput of the role's flows together in each bin (gaps count as zero).
    fn role_goodput(&self, role: &str) -> Vec<f64> {
        let mut sum = vec![0.0; self.time_s.len()];
        for (name, g) in &self.goodput_bps {
            if in_role(name, role) {
                for (s, x) in sum.iter_mut().zip(g) {
                    if x.is_finite() {
                        *s += x;
                    }
                }
            }
        }
        sum
    }

    /// Mean goodput (bit/s) of the role over the bins inside [from, to].
    pub fn mean_goodput(&self, role: &str, from: f64, to: f64) -> Option<f64> {
        let g = self.role_goodput(role);
        let v: Vec<f64> = self.bins(from, to).map(|i| g[i]).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// The highest goodput of the role in one bin inside [from, to].
    pub fn max_goodput(&self, role: &str, from: f64, to: f64) -> Option<f64> {
        let g = self.role_goodput(role);
        self.bins(from, to).map(|i| g[i]).reduce(f64::max)
    }

    /// Queueing delay (ms) at each bin end inside [from, to]: queue length × 1500 B at
    /// the link's rate.
    pub fn qdelay_ms(&self, rate_bps: f64, from: f64, to: f64) -> Vec<f64> {
        self.bins(from, to)
            .map(|i| self.queue_pkts[i] * 1500.0 * 8.0 / rate_bps * 1e3)
            .collect()
    }

    /// Ramp-up after `depart_s`: seconds from the departure to the end of the first bin
    /// that starts at or after it in which the role's goodput reaches `level` bit/s;
    /// `None` if no bin does before the run ends.
    pub fn ramp_s(&self, role: &str, depart_s: f64, level: f64) -> Option<f64> {
        let g = self.role_goodput(role);
        self.bins(depart_s, f64::INFINITY)
            .find(|&i| g[i] >= level)
            .map(|i| self.time_s[i] - depart_s)
    }
}

pub fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The q-quantile by nearest rank.
pub fn quantile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len());
    Some(s[rank - 1])
}

/// A metric's value and verdict in one cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Verdict {
    Pass,
    Fail,
    /// The goal cannot be met on this link by any sender (see `hollow`); reported "n/a".
    Hollow,
}

impl Verdict {
    pub fn of(pass: bool) -> Verdict {
        if pass {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Hollow => "n/a",
        }
    }
}

/// Everything the scorecard reports for one (algorithm, cell).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellScore {
    /// Foreground slowdown against the same run without the background.
    pub slowdown: Option<f64>,
    /// Harm (Ware et al., HotNets 2019): the foreground's throughput loss (a − b)/a and
    /// delay harm (b − a)/b relative to the foreground alone, and the added delay (ms).
    pub harm_tput: Option<f64>,
    pub harm_delay: Option<f64>,
    pub added_delay_ms: Option<f64>,
    /// Share of the spare capacity used: alone, beside a long-lived foreground that
    /// leaves some spare (else None), and the score (the smaller of the two).
    pub spare_alone: Option<f64>,
    pub spare_beside: Option<f64>,
    pub spare: Option<f64>,
    /// Self-induced queueing delay (alone, after warm-up): mean and p95 (ms).
    pub qdelay_mean_ms: Option<f64>,
    pub qdelay_p95_ms: Option<f64>,
    /// RTTs from the foreground leaving to 90 % of the link; None if never reached.
    pub ramp_rtts: Option<f64>,
    /// The longest ramp-up the run could show (RTTs from departure to the end).
    pub ramp_bound_rtts: Option<f64>,
    pub jain: Option<f64>,
    /// The NewReno reference's mean and one-bin peak goodput after warm-up, as shares of
    /// the capacity: what the hollow rules read.
    pub ref_util: f64,
    pub ref_peak: f64,
    pub v_slowdown: Verdict,
    pub v_spare: Verdict,
    pub v_queue: Verdict,
    pub v_ramp: Verdict,
    pub v_jain: Verdict,
}

pub const METRICS: [&str; 5] = ["slowdown", "spare", "queue", "ramp", "jain"];

impl CellScore {
    pub fn verdicts(&self) -> [Verdict; 5] {
        [
            self.v_slowdown,
            self.v_spare,
            self.v_queue,
            self.v_ramp,
            self.v_jain,
        ]
    }
    /// Every goal that is not hollow passes.
    pub fn all_pass(&self) -> bool {
        self.verdicts().iter().all(|v| *v != Verdict::Fail)
    }
    /// A cell is hollow only when every one of its goals is.
    pub fn hollow(&self) -> bool {
        self.verdicts().iter().all(|v| *v == Verdict::Hollow)
    }
    /// Sets the five verdicts from the values: the goals, and the hollow rules on the
    /// reference's shares. One place for both a seed's score and the median of several
    /// (aggregate.rs).
    pub fn judge(&mut self) {
        let (hollow_spare, hollow_ramp) = hollow_rules(self.ref_util, self.ref_peak);
        let v = |ok: Option<bool>| Verdict::of(ok.unwrap_or(false));
        self.v_slowdown = v(self.slowdown.map(|s| s <= GOAL_SLOWDOWN));
        self.v_spare = if hollow_spare {
            Verdict::Hollow
        } else {
            v(self.spare.map(|s| s >= GOAL_SPARE))
        };
        self.v_queue = v(self
            .qdelay_mean_ms
            .zip(self.qdelay_p95_ms)
            .map(|(m, p)| m <= GOAL_QDELAY_MEAN_MS && p <= GOAL_QDELAY_P95_MS));
        self.v_ramp = if hollow_ramp {
            Verdict::Hollow
        } else {
            v(self.ramp_rtts.map(|x| x <= GOAL_RAMP_RTTS))
        };
        self.v_jain = v(self.jain.map(|j| j >= GOAL_JAIN));
    }
    pub fn passes(&self) -> usize {
        self.verdicts()
            .iter()
            .filter(|v| **v == Verdict::Pass)
            .count()
    }
}

/// What is known of the cell independently of the algorithm under test.
#[derive(Clone, Copy, Debug)]
pub struct CellFrame {
    pub rtt_s: f64,
    /// Forward rate (a trace's mean rate), bit/s.
    pub rate_bps: f64,
    /// Start of the steady-state windows of the alone runs, end of the alone runs.
    pub warm_s: f64,
    pub alone_end_s: f64,
    /// When the foreground starts and, for foregrounds with a stop time, stops.
    pub fg_start_s: f64,
    pub fg_stop_s: Option<f64>,
}

impl CellFrame {
    fn cap(&self) -> f64 {
        self.rate_bps * PAYLOAD_SHARE
    }
}

/// The hollow rules, from the NewReno reference alone on the link: the spare-capacity
/// goal is hollow when NewReno uses less than 90 % of the link after warm-up; the
/// ramp-up goal when NewReno never shows 90 % of the link in one bin (the link cannot
/// deliver it at the bin's resolution).
pub fn hollow(frame: &CellFrame, reference: &Series) -> (bool, bool) {
    let (util, peak) = reference_shares(frame, reference);
    hollow_rules(util, peak)
}

/// The NewReno reference alone after warm-up, as shares of the capacity: its mean
/// goodput and its highest goodput in one bin (the inputs of the hollow rules).
pub fn reference_shares(frame: &CellFrame, reference: &Series) -> (f64, f64) {
    let (a, b) = (frame.warm_s, frame.alone_end_s);
    let util = reference.mean_goodput("bg", a, b).unwrap_or(0.0) / frame.cap();
    let peak = reference.max_goodput("bg", a, b).unwrap_or(0.0) / frame.cap();
    (util, peak)
}

/// (spare capacity hollow, ramp-up hollow) from the reference's shares.
fn hollow_rules(util: f64, peak: f64) -> (bool, bool) {
    (util < GOAL_SPARE, peak < RAMP_LEVEL)
}

fn fg_flows(r: &SimResult) -> impl Iterator<Item = &scavenger_sim::result::FlowResult> {
    r.flows.iter().filter(|f| in_role(&f.name, "fg"))
}

/// Mean over foreground flows of their slowdown: completion time with / alone for
/// transfers that finished in both runs, else throughput alone / with.
pub fn slowdown(with: &SimResult, alone: &SimResult) -> Option<f64> {
    let v: Vec<f64> = fg_flows(with)
        .filter_map(|w| {
            let a = alone.flows.iter().find(|a| a.name == w.name)?;
            Some(match (w.completion_time_s, a.completion_time_s) {
                (Some(tw), Some(ta)) if ta > 0.0 => tw / ta,
                _ if w.throughput_bps > 0.0 => a.throughput_bps / w.throughput_bps,
                _ => f64::INFINITY,
            })
        })
        .collect();
    mean(&v)
}

/// The foreground's throughput (mean goodput over its flows) and delay (mean RTT, or
/// for datagrams the one-way delay) in one run.
fn fg_tput_delay(r: &SimResult) -> (Option<f64>, Option<f64>) {
    let fs: Vec<_> = fg_flows(r).collect();
    let tput = mean(&fs.iter().map(|f| f.goodput_bps).collect::<Vec<_>>());
    let d: Vec<f64> = fs
        .iter()
        .filter_map(|f| f.owd_ms.as_ref().and_then(|o| o.mean).or(f.rtt_ms.mean))
        .collect();
    (tput, mean(&d))
}

/// Harm (Ware et al., HotNets 2019 §3): for "more is better" metrics (a − b)/a, for
/// "less is better" ones (b − a)/b, where a is the foreground alone and b beside the
/// algorithm; plus the added delay b − a in ms.
pub fn harm(with: &SimResult, alone: &SimResult) -> (Option<f64>, Option<f64>, Option<f64>) {
    let (tw, dw) = fg_tput_delay(with);
    let (ta, da) = fg_tput_delay(alone);
    let h_t = match (ta, tw) {
        (Some(a), Some(b)) if a > 0.0 => Some((a - b) / a),
        _ => None,
    };
    let (h_d, added) = match (da, dw) {
        (Some(a), Some(b)) if b > 0.0 => (Some((b - a) / b), Some(b - a)),
        _ => (None, None),
    };
    (h_t, h_d, added)
}

/// When the foreground left: its stop time, or when its last transfer completed
/// (None if one never did).
pub fn departure(frame: &CellFrame, with: &SimResult) -> Option<f64> {
    if let Some(s) = frame.fg_stop_s {
        // Transfers started before the stop (web) may finish after it.
        let last = fg_flows(with)
            .map(|f| f.completed_at_s.or((f.size_bytes.is_none()).then_some(s)))
            .try_fold(s, |acc, c| c.map(|c| acc.max(c)));
        return last;
    }
    fg_flows(with)
        .map(|f| f.completed_at_s)
        .try_fold(0.0f64, |acc, c| c.map(|c| acc.max(c)))
}

/// The runs of one (algorithm, cell).
pub struct CellRuns<'a> {
    pub frame: CellFrame,
    pub with: &'a Run,
    pub fg_alone: &'a Run,
    pub alone: &'a Run,
    pub jain: &'a Run,
    pub reference: &'a Run,
}

pub fn score(r: &CellRuns) -> Result<CellScore, MissingSeries> {
    let f = &r.frame;
    let series =
        |run: &Run, what: &'static str| run.series.clone().ok_or(MissingSeries { run: what });
    let (with_s, alone_s, fg_s, ref_s) = (
        series(r.with, "foreground")?,
        series(r.alone, "alone")?,
        series(r.fg_alone, "foreground-alone")?,
        series(r.reference, "NewReno reference")?,
    );
    let cap = f.cap();
    let (ref_util, ref_peak) = reference_shares(f, &ref_s);

    let slowdown = slowdown(&r.with.result, &r.fg_alone.result);
    let (harm_tput, harm_delay, added_delay_ms) = harm(&r.with.result, &r.fg_alone.result);

    let spare_alone = alone_s
        .mean_goodput("bg", f.warm_s, f.alone_end_s)
        .map(|g| g / cap);
    // Beside a long-lived foreground: the background's share of what the foreground
    // alone leaves spare over the same window.
    let spare_beside = f.fg_stop_s.and_then(|stop| {
        let fg_alone = fg_s.mean_goodput("fg", f.fg_start_s, stop)?;
        let spare = cap - fg_alone;
        if spare < BESIDE_MIN_SPARE * cap {
            return None;
        }
        Some(with_s.mean_goodput("bg", f.fg_start_s, stop)? / spare)
    });
    let spare = match (spare_alone, spare_beside) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    };

    let q = alone_s.qdelay_ms(f.rate_bps, f.warm_s, f.alone_end_s);
    let (qdelay_mean_ms, qdelay_p95_ms) = (mean(&q), quantile(&q, 0.95));

    let end = with_s.time_s.last().copied().unwrap_or(0.0);
    let depart = departure(f, &r.with.result);
    let ramp_rtts = depart
        .and_then(|d| with_s.ramp_s("bg", d, RAMP_LEVEL * cap))
        .map(|s| s / f.rtt_s);
    let ramp_bound_rtts = depart.map(|d| (end - d) / f.rtt_s);

    let jain = r.jain.result.jain.first().map(|j| j.index);

    let mut s = CellScore {
        // Placeholders: `judge` sets every verdict from the values below.
        v_slowdown: Verdict::Fail,
        v_spare: Verdict::Fail,
        v_queue: Verdict::Fail,
        v_ramp: Verdict::Fail,
        v_jain: Verdict::Fail,
        slowdown,
        harm_tput,
        harm_delay,
        added_delay_ms,
        spare_alone,
        spare_beside,
        spare,
        qdelay_mean_ms,
        qdelay_p95_ms,
        ramp_rtts,
        ramp_bound_rtts,
        jain,
        ref_util,
        ref_peak,
    };
    s.judge();
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A series with bins of `bin` s whose flows have the given per-bin goodputs.
    fn series(bin: f64, flows: &[(&str, &[f64])], queue: &[f64]) -> Series {
        let n = flows.first().map_or(queue.len(), |f| f.1.len());
        Series {
            bin_s: bin,
            time_s: (1..=n).map(|i| i as f64 * bin).collect(),
            goodput_bps: flows
                .iter()
                .map(|(n, g)| (n.to_string(), g.to_vec()))
                .collect(),
            queue_pkts: if queue.is_empty() {
                vec![0.0; n]
            } else {
                queue.to_vec()
            },
        }
    }

    fn frame() -> CellFrame {
        CellFrame {
            rtt_s: 0.1,
            rate_bps: 10e6,
            warm_s: 0.2,
            alone_end_s: 1.0,
            fg_start_s: 0.2,
            fg_stop_s: None,
        }
    }

    #[test]
    fn ramp_up_counts_rtts_from_the_departure_to_the_end_of_the_first_full_bin() {
        // Bins of one RTT (0.1 s) ending at 0.1, 0.2, ...; the foreground leaves at
        // 0.35 s. The bin [0.3, 0.4] started before it and does not count; the
        // background reaches 9 Mbit/s in the bin ending at 0.7 s: 0.35 s = 3.5 RTTs.
        let s = series(
            0.1,
            &[("bg", &[9e6, 1e6, 1e6, 9.5e6, 2e6, 5e6, 9e6, 9.6e6])],
            &[],
        );
        let r = s.ramp_s("bg", 0.35, 9e6).unwrap();
        assert!((r / 0.1 - 3.5).abs() < 1e-9, "{r}");
        // Never reached: None.
        assert_eq!(s.ramp_s("bg", 0.35, 9.7e6), None);
        // Several flows of a role count together; gaps (NaN) as zero.
        let s = series(0.1, &[("bg1", &[4e6, f64::NAN]), ("bg2", &[5e6, 9e6])], &[]);
        assert_eq!(s.ramp_s("bg", 0.0, 9e6), Some(0.1));
        assert_eq!(s.mean_goodput("bg", 0.1, 0.2), Some(9e6));
    }

    #[test]
    fn hollow_goals_follow_the_newreno_reference() {
        let f = frame();
        let cap = f.rate_bps * PAYLOAD_SHARE;
        // Mean 0.95 of the link and a bin at 0.99: nothing hollow.
        let full = series(
            0.1,
            &[(
                "bg",
                &[
                    0.0,
                    0.0,
                    0.95 * cap,
                    0.91 * cap,
                    0.99 * cap,
                    0.95 * cap,
                    0.95 * cap,
                    0.95 * cap,
                    0.95 * cap,
                    0.95 * cap,
                ],
            )],
            &[],
        );
        assert_eq!(hollow(&f, &full), (false, false));
        // A small buffer: mean 0.8 but one bin at 0.92: only the spare goal is hollow.
        let small = series(
            0.1,
            &[(
                "bg",
                &[
                    0.0,
                    0.0,
                    0.8 * cap,
                    0.8 * cap,
                    0.92 * cap,
                    0.76 * cap,
                    0.8 * cap,
                    0.8 * cap,
                    0.76 * cap,
                    0.76 * cap,
                ],
            )],
            &[],
        );
        assert_eq!(hollow(&f, &small), (true, false));
        // Never 90 % in any bin: both.
        let never = series(0.1, &[("bg", &[0.5 * cap; 10])], &[]);
        assert_eq!(hollow(&f, &never), (true, true));
    }

    fn flow(name: &str, ct: Option<f64>, tput: f64, rtt: f64) -> scavenger_sim::result::FlowResult {
        let mut r: scavenger_sim::result::FlowResult = serde_json::from_value(serde_json::json!({
            "name": name, "algorithm": "newreno", "start_s": 0.0, "size_bytes": null,
            "completion_time_s": ct, "completed_at_s": ct, "active_s": 1.0,
            "delivered_bytes": 0, "goodput_bps": tput, "throughput_bps": tput,
            "rtt_ms": {"samples": 1, "mean": rtt, "stdev": null, "p50": null, "p95": null, "p99": null},
            "retransmits": 0, "fast_recoveries": 0, "timeouts": 0, "final_cwnd_bytes": 0,
            "conservation": {"sent_bytes": 0, "delivered_bytes": 0, "dropped_bytes": 0, "in_flight_bytes": 0}
        }))
        .unwrap();
        r.size_bytes = ct.map(|_| 1000);
        r
    }

    fn result(flows: Vec<scavenger_sim::result::FlowResult>) -> SimResult {
        SimResult {
            duration_s: 10.0,
            events: 0,
            flows,
            links: vec![],
            jain: vec![],
            series: None,
        }
    }

    #[test]
    fn slowdown_and_harm_compare_the_foreground_with_itself_alone() {
        let alone = result(vec![flow("fg", Some(2.0), 8e6, 50.0)]);
        let with = result(vec![
            flow("bg", None, 1e6, 60.0),
            flow("fg", Some(2.1), 6e6, 75.0),
        ]);
        assert!((slowdown(&with, &alone).unwrap() - 1.05).abs() < 1e-12);
        let (t, d, added) = harm(&with, &alone);
        // Ware et al.: throughput (8 − 6)/8; delay (75 − 50)/75.
        assert!((t.unwrap() - 0.25).abs() < 1e-12);
        assert!((d.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(added, Some(25.0));
        // A long-lived foreground is compared by throughput: 8/4.
        let alone = result(vec![flow("fg", None, 8e6, 50.0)]);
        let with = result(vec![flow("fg", None, 4e6, 50.0)]);
        assert_eq!(slowdown(&with, &alone), Some(2.0));
        // Departure: a stopped flow leaves at its stop time; an unfinished transfer never.
        let f = CellFrame {
            fg_stop_s: Some(7.0),
            ..frame()
        };
        assert_eq!(departure(&f, &with), Some(7.0));
        let with = result(vec![
            flow("fg.1", Some(8.5), 1e6, 1.0),
            flow("fg.2", None, 1e6, 1.0),
        ]);
        assert_eq!(departure(&frame(), &with), None);
    }

    fn run(result: SimResult, series: Series) -> Run {
        Run {
            result,
            series: Some(series),
        }
    }

    #[test]
    fn a_cell_passes_when_every_goal_that_is_not_hollow_passes() {
        let f = frame();
        let cap = f.rate_bps * PAYLOAD_SHARE;
        let full = |x: f64| series(0.1, &[("bg", &[x * cap; 10])], &[]);
        let fg_alone = run(
            result(vec![flow("fg", Some(0.3), 8e6, 50.0)]),
            series(0.1, &[("fg", &[0.0; 10])], &[]),
        );
        let with_s = series(
            0.1,
            &[(
                "bg",
                &[
                    0.95 * cap,
                    0.95 * cap,
                    0.0,
                    0.0,
                    0.0,
                    0.95 * cap,
                    0.95 * cap,
                    0.95 * cap,
                    0.95 * cap,
                    0.95 * cap,
                ],
            )],
            &[],
        );
        // The foreground completes at 0.5 s; the background is back in the bin ending 0.6.
        let with = run(
            result(vec![
                flow("bg", None, 1.0, 1.0),
                flow("fg", Some(0.3), 8e6, 52.0),
            ]),
            with_s,
        );
        let mut jr = result(vec![]);
        jr.jain.push(scavenger_sim::result::JainResult {
            name: "bg".into(),
            flows: vec![],
            from_s: 0.0,
            to_s: 1.0,
            index: 0.99,
            goodput_bps: vec![],
        });
        let jain = Run {
            result: jr,
            series: None,
        };
        // Queue: 2 packets at 10 Mbit/s = 2.4 ms everywhere.
        let alone = run(
            result(vec![]),
            series(0.1, &[("bg", &[0.93 * cap; 10])], &[2.0; 10]),
        );
        let reference = run(result(vec![]), full(0.95));
        let mut with_done = with.clone();
        with_done.result.flows[1].completed_at_s = Some(0.5);
        let runs = CellRuns {
            frame: f,
            with: &with_done,
            fg_alone: &fg_alone,
            alone: &alone,
            jain: &jain,
            reference: &reference,
        };
        let s = score(&runs).unwrap();
        assert_eq!(s.ramp_rtts.map(|r| (r * 1e6).round() / 1e6), Some(1.0));
        assert!((s.qdelay_mean_ms.unwrap() - 2.4).abs() < 1e-9);
        assert!((s.slowdown.unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(s.verdicts(), [Verdict::Pass; 5]);
        assert!(s.all_pass());
        // A reference that cannot fill the link makes spare and ramp n/a; a spare of
        // 0.5 then no longer fails the cell.
        let weak = run(result(vec![]), full(0.5));
        let starving = run(
            result(vec![]),
            series(0.1, &[("bg", &[0.5 * cap; 10])], &[2.0; 10]),
        );
        let runs = CellRuns {
            reference: &weak,
            alone: &starving,
            ..runs
        };
        let s = score(&runs).unwrap();
        assert_eq!((s.v_spare, s.v_ramp), (Verdict::Hollow, Verdict::Hollow));
        assert!(s.all_pass() && !s.hollow());
        // The same starving algorithm where NewReno fills the link fails.
        let runs = CellRuns {
            reference: &reference,
            ..runs
        };
        let s = score(&runs).unwrap();
        assert_eq!(s.v_spare, Verdict::Fail);
        assert!(!s.all_pass());
    }

    #[test]
    fn quantile_is_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.95), Some(19.0));
        assert_eq!(quantile(&v, 0.5), Some(10.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
