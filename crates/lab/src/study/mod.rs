//! Reproduction studies: a source's evaluation as experiments (scenarios), seeds, the
//! source's published numbers and its qualitative claims, each checked against ours.

pub mod hayes2011;
pub mod ong2020;
pub mod trang2015;
pub mod wallenburg2018;
pub mod wang2018;

use crate::store::Stored;
use crate::work::WorkItem;
use scavenger_sim::SimResult;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// What a study reports per run. Flows are assigned roles by name: a role is a flow's
/// name or the prefix before its first '.', e.g. `fg` for `fg`, `fg.1`, `fg.2`; `*` is
/// every flow. Ong 2020's metrics use the roles `fg` (foreground) and `bg` (background,
/// the mechanism under test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// Foreground transaction time (s): first to last byte at the receiver, mean over the
    /// foreground connections of the run (Ong 2020 §3.5).
    FgFtt,
    /// Background throughput (KiB/s, IP bytes received over the active time), mean per flow.
    BgTput,
    /// Foreground throughput per connection (KiB/s).
    FgTput,
    /// Per-run mean and standard deviation of the sender-side RTT (ms), averaged over
    /// foreground flows.
    FgRttMean,
    FgRttStdev,
    /// The same over background flows.
    BgRttMean,
    BgRttStdev,
    /// Jain's index over the background flows (the scenario's first Jain group).
    Jain,
    /// Share of the spare capacity the background used: background IP bits over (forward
    /// link capacity − foreground IP bits), over the whole run. Meaningful for downloads
    /// with a foreground.
    BgSpareShare,
    /// Mean per flow of the role of the IP throughput over its active time (Mbit/s).
    Tput(&'static str),
    /// Sum over the role's flows of the IP throughput (Mbit/s).
    SumTput(&'static str),
    /// Mean per flow of the goodput (Mbit/s).
    Goodput(&'static str),
    /// The role's share of all bits the flows of the run delivered (IP bytes × active
    /// time), 0..1.
    Share(&'static str),
    /// Mean over the role's flows of the per-run RTT mean, stdev and p95 (ms).
    RttMean(&'static str),
    RttStdev(&'static str),
    RttP95(&'static str),
    /// Mean over the role's flows of the one-way delay mean and p95 (ms): per datagram for
    /// CBR flows, from timestamp echoes for TCP.
    OwdMean(&'static str),
    OwdP95(&'static str),
    /// Mean over the role's flows of the completion time (s from its start); None if one
    /// did not complete.
    Completion(&'static str),
    /// The latest completion instant of the role's flows (s from the run's start).
    CompletedAt(&'static str),
    /// Mean over the role's flows of the loss rate (datagrams lost / sent, or for TCP
    /// the share of the data bytes it sent that the network dropped).
    LossRate(&'static str),
    /// Utilisation of the first (bottleneck) link, 0..1.
    LinkUtil,
    /// Queueing delay at the first link: mean and p95 (ms).
    QdelayMean,
    QdelayP95,
    /// Jain's index of the scenario's n-th Jain group.
    JainAt(usize),
    /// The role's payload goodput over the n-th Jain group's window as a percentage of
    /// the bottleneck rate (Trang 2015's η over a tail window; flows of the role outside the
    /// group are not counted).
    WinUtil(usize, &'static str),
    /// Seconds by which the role's last flow finished after its deadline, given here in s
    /// from the flow's start (Wallenburg 2018 Table 5.4: completion minus deadline, negative =
    /// early). A flow unfinished at the end of the run counts as finishing then (a lower
    /// bound, as the thesis counted killed runs).
    DeadlineMargin(&'static str, u32),
}

impl Metric {
    pub fn name(self) -> String {
        let s = |x: &str| x.to_string();
        match self {
            Metric::FgFtt => s("foreground transaction time (s)"),
            Metric::BgTput => s("background throughput (KiB/s)"),
            Metric::FgTput => s("foreground throughput per connection (KiB/s)"),
            Metric::FgRttMean => s("foreground RTT mean (ms)"),
            Metric::FgRttStdev => s("foreground RTT stdev (ms)"),
            Metric::BgRttMean => s("background RTT mean (ms)"),
            Metric::BgRttStdev => s("background RTT stdev (ms)"),
            Metric::Jain => s("Jain's index"),
            Metric::BgSpareShare => s("share of spare capacity used by the background"),
            Metric::Tput(r) => format!("{r} throughput per flow (Mbit/s)"),
            Metric::SumTput(r) => format!("{r} throughput, sum (Mbit/s)"),
            Metric::Goodput(r) => format!("{r} goodput per flow (Mbit/s)"),
            Metric::Share(r) => format!("{r} share of delivered bits"),
            Metric::RttMean(r) => format!("{r} RTT mean (ms)"),
            Metric::RttStdev(r) => format!("{r} RTT stdev (ms)"),
            Metric::RttP95(r) => format!("{r} RTT p95 (ms)"),
            Metric::OwdMean(r) => format!("{r} one-way delay mean (ms)"),
            Metric::OwdP95(r) => format!("{r} one-way delay p95 (ms)"),
            Metric::Completion(r) => format!("{r} completion time (s)"),
            Metric::CompletedAt(r) => format!("{r} completed at (s)"),
            Metric::LossRate(r) => format!("{r} loss rate"),
            Metric::LinkUtil => s("bottleneck utilisation"),
            Metric::QdelayMean => s("queueing delay mean (ms)"),
            Metric::QdelayP95 => s("queueing delay p95 (ms)"),
            Metric::JainAt(i) => format!("Jain's index (group {i})"),
            Metric::WinUtil(i, r) => format!("{r} goodput in window {i} (% of capacity)"),
            Metric::DeadlineMargin(r, d) => format!("{r} completion minus its {d} s deadline (s)"),
        }
    }

    /// A short machine-readable key (CSV columns).
    pub fn key(self) -> String {
        let s = |x: &str| x.to_string();
        match self {
            Metric::FgFtt => s("fg_ftt_s"),
            Metric::BgTput => s("bg_tput_kib"),
            Metric::FgTput => s("fg_tput_kib"),
            Metric::FgRttMean => s("fg_rtt_mean_ms"),
            Metric::FgRttStdev => s("fg_rtt_stdev_ms"),
            Metric::BgRttMean => s("bg_rtt_mean_ms"),
            Metric::BgRttStdev => s("bg_rtt_stdev_ms"),
            Metric::Jain => s("jain"),
            Metric::BgSpareShare => s("bg_spare_share"),
            Metric::Tput(r) => format!("{r}_tput_mbps"),
            Metric::SumTput(r) => format!("{r}_sum_tput_mbps"),
            Metric::Goodput(r) => format!("{r}_goodput_mbps"),
            Metric::Share(r) => format!("{r}_share"),
            Metric::RttMean(r) => format!("{r}_rtt_mean_ms"),
            Metric::RttStdev(r) => format!("{r}_rtt_stdev_ms"),
            Metric::RttP95(r) => format!("{r}_rtt_p95_ms"),
            Metric::OwdMean(r) => format!("{r}_owd_mean_ms"),
            Metric::OwdP95(r) => format!("{r}_owd_p95_ms"),
            Metric::Completion(r) => format!("{r}_completion_s"),
            Metric::CompletedAt(r) => format!("{r}_completed_at_s"),
            Metric::LossRate(r) => format!("{r}_loss_rate"),
            Metric::LinkUtil => s("link_util"),
            Metric::QdelayMean => s("qdelay_mean_ms"),
            Metric::QdelayP95 => s("qdelay_p95_ms"),
            Metric::JainAt(i) => format!("jain_{i}"),
            Metric::WinUtil(i, r) => format!("{r}_win{i}_util_pct"),
            Metric::DeadlineMargin(r, _) => format!("{r}_deadline_margin_s"),
        }
    }

    /// The metric of one run, if the run has what it needs.
    pub fn of(self, r: &SimResult) -> Option<f64> {
        use scavenger_sim::result::FlowResult;
        fn in_role(name: &str, role: &str) -> bool {
            role == "*"
                || name == role
                || name
                    .strip_prefix(role)
                    .is_some_and(|rest| rest.starts_with('.'))
        }
        let role = |p: &'static str| r.flows.iter().filter(move |f| in_role(&f.name, p));
        let mean = |xs: Vec<Option<f64>>| -> Option<f64> {
            if xs.is_empty() || xs.iter().any(Option::is_none) {
                return None;
            }
            Some(xs.iter().flatten().sum::<f64>() / xs.len() as f64)
        };
        let kib = |bps: f64| bps / 8.0 / 1024.0;
        // IP bits a flow delivered over the run (flows are active for different times).
        let bits = |f: &FlowResult| f.throughput_bps * f.active_s;
        match self {
            Metric::FgFtt => mean(role("fg").map(|f| f.completion_time_s).collect()),
            Metric::BgTput => mean(role("bg").map(|f| Some(kib(f.throughput_bps))).collect()),
            Metric::FgTput => mean(role("fg").map(|f| Some(kib(f.throughput_bps))).collect()),
            Metric::FgRttMean => mean(role("fg").map(|f| f.rtt_ms.mean).collect()),
            Metric::FgRttStdev => mean(role("fg").map(|f| f.rtt_ms.stdev).collect()),
            Metric::BgRttMean => mean(role("bg").map(|f| f.rtt_ms.mean).collect()),
            Metric::BgRttStdev => mean(role("bg").map(|f| f.rtt_ms.stdev).collect()),
            Metric::Jain => r.jain.first().map(|j| j.index),
            Metric::BgSpareShare => {
                let bg: f64 = role("bg").map(bits).sum();
                let fg: Vec<f64> = role("fg").map(bits).collect();
                let spare =
                    r.links.first()?.rate_bps as f64 * r.duration_s - fg.iter().sum::<f64>();
                (!fg.is_empty() && spare > 0.0).then(|| bg / spare)
            }
            Metric::Tput(p) => mean(role(p).map(|f| Some(f.throughput_bps / 1e6)).collect()),
            Metric::SumTput(p) => {
                let v: Vec<f64> = role(p).map(|f| f.throughput_bps / 1e6).collect();
                (!v.is_empty()).then(|| v.iter().sum())
            }
            Metric::Goodput(p) => mean(role(p).map(|f| Some(f.goodput_bps / 1e6)).collect()),
            Metric::Share(p) => {
                let all: f64 = r.flows.iter().map(bits).sum();
                let mine: Vec<f64> = role(p).map(bits).collect();
                (!mine.is_empty() && all > 0.0).then(|| mine.iter().sum::<f64>() / all)
            }
            Metric::RttMean(p) => mean(role(p).map(|f| f.rtt_ms.mean).collect()),
            Metric::RttStdev(p) => mean(role(p).map(|f| f.rtt_ms.stdev).collect()),
            Metric::RttP95(p) => mean(role(p).map(|f| f.rtt_ms.p95).collect()),
            Metric::OwdMean(p) => mean(
                role(p)
                    .map(|f| f.owd_ms.as_ref().and_then(|s| s.mean))
                    .collect(),
            ),
            Metric::OwdP95(p) => mean(
                role(p)
                    .map(|f| f.owd_ms.as_ref().and_then(|s| s.p95))
                    .collect(),
            ),
            Metric::Completion(p) => mean(role(p).map(|f| f.completion_time_s).collect()),
            Metric::CompletedAt(p) => {
                let v: Vec<Option<f64>> = role(p).map(|f| f.completed_at_s).collect();
                if v.is_empty() || v.iter().any(Option::is_none) {
                    return None;
                }
                v.into_iter().flatten().reduce(f64::max)
            }
            // The simulator gives datagram flows a loss rate; a TCP flow's is its dropped
            // over sent data bytes.
            Metric::LossRate(p) => mean(
                role(p)
                    .map(|f| {
                        f.loss_rate.or_else(|| {
                            (f.conservation.sent_bytes > 0).then(|| {
                                f.conservation.dropped_bytes as f64
                                    / f.conservation.sent_bytes as f64
                            })
                        })
                    })
                    .collect(),
            ),
            Metric::LinkUtil => r.links.first().map(|l| l.utilisation),
            Metric::QdelayMean => r.links.first()?.qdelay_ms.mean,
            Metric::QdelayP95 => r.links.first()?.qdelay_ms.p95,
            Metric::JainAt(i) => r.jain.get(i).map(|j| j.index),
            Metric::WinUtil(i, p) => {
                let j = r.jain.get(i)?;
                let rate = r.links.first()?.rate_bps as f64;
                let mine: Vec<f64> = j
                    .flows
                    .iter()
                    .zip(&j.goodput_bps)
                    .filter(|(n, _)| in_role(n, p))
                    .map(|(_, g)| *g)
                    .collect();
                (!mine.is_empty() && rate > 0.0).then(|| 100.0 * mine.iter().sum::<f64>() / rate)
            }
            Metric::DeadlineMargin(p, d) => role(p)
                .map(|f| f.completed_at_s.unwrap_or(r.duration_s) - (f.start_s + d as f64))
                .reduce(f64::max),
        }
    }
}

/// How a report plots a study's runs: one plot per experiment group, one colour per
/// experiment (its mechanism).
#[derive(Clone, Debug)]
pub enum Plot {
    /// One point per run with each mechanism's 95 % confidence ellipse (Ong 2020's
    /// figures). `pantheon`: the x axis is a delay, drawn logarithmic and inverted
    /// (better is up and to the right, as Pantheon's throughput-versus-delay plots).
    Scatter {
        heading: &'static str,
        x: Metric,
        y: Metric,
        pantheon: bool,
    },
    /// The empirical CDF over runs of a metric, one line per mechanism.
    Cdf {
        heading: &'static str,
        metric: Metric,
    },
}

/// One experiment: a scenario run over the study's seeds.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub id: String,
    /// Experiments with the same group are plotted together (one point per mechanism).
    pub group: String,
    pub mechanism: String,
    pub scenario: crate::scenario::Scenario,
}

/// A number the source publishes. With `relative_to`, the value is the percentage change
/// of our metric against that experiment's ("X % lower FTT than with NewReno"). With
/// `pool`, the value is one median over the runs of `experiment` and of every experiment
/// in `pool` together (a figure that pools settings, e.g. Jain's index by delay over link
/// speeds and flow counts); ours is then only given once all of them have runs.
#[derive(Clone, Debug)]
pub struct Published {
    pub source: &'static str,
    pub experiment: String,
    pub metric: Metric,
    pub relative_to: Option<String>,
    pub value: f64,
    pub pool: Vec<String>,
}

impl Published {
    /// A number for one experiment (no pool).
    pub fn new(
        source: &'static str,
        experiment: String,
        metric: Metric,
        relative_to: Option<String>,
        value: f64,
    ) -> Published {
        Published {
            source,
            experiment,
            metric,
            relative_to,
            value,
            pool: vec![],
        }
    }
}

pub struct ClaimOutcome {
    pub holds: Option<bool>,
    pub evidence: String,
}

pub struct Claim {
    pub source: &'static str,
    pub text: &'static str,
    pub check: Box<dyn Fn(&Results) -> ClaimOutcome>,
}

impl Claim {
    pub fn new(
        source: &'static str,
        text: &'static str,
        check: impl Fn(&Results) -> ClaimOutcome + 'static,
    ) -> Claim {
        Claim {
            source,
            text,
            check: Box::new(check),
        }
    }

    /// A check that may stop early with an outcome (`Err`), e.g. "not run" when an
    /// experiment it needs has no runs, so that `?` can carry it.
    pub fn fallible(
        source: &'static str,
        text: &'static str,
        check: impl Fn(&Results) -> Result<ClaimOutcome, ClaimOutcome> + 'static,
    ) -> Claim {
        Claim::new(source, text, move |r| check(r).unwrap_or_else(|o| o))
    }
}

pub struct StudyDef {
    pub name: &'static str,
    pub title: &'static str,
    pub quick: bool,
    pub experiments: Vec<Experiment>,
    pub seeds: Vec<u64>,
    pub published: Vec<Published>,
    pub claims: Vec<Claim>,
    /// Set-up choices the source leaves open, shown in the report.
    pub notes: Vec<&'static str>,
    /// The columns of the report's per-experiment table (medians over runs).
    pub table: Vec<Metric>,
    /// Metrics whose coefficient of variation over runs the table shows.
    pub cv: Vec<Metric>,
    pub plots: Vec<Plot>,
}

pub const STUDIES: &[(&str, &str)] = &[("ong2020", "Ong 2020: LBE mechanisms and Yield on asymmetric access links, chapters 4 and 5"), ("hayes2011", "Hayes & Armitage 2011: CDG under random loss, sharing, against NewReno, mixed RTTs"), ("wallenburg2018", "Wallenburg 2018: deadline-aware LBE over CUBIC and Vegas, short- and long-term testbed scenarios"), ("trang2015", "Trang 2015: LEDBAT target/gain analysis, latecomer, 100 flows; FLOWER with DropTail, RED, CoDel, PIE"), ("wang2018", "Wang 2018: EvaRate and low-latency CC in flow mixes, mode detection, fairness, cellular and satellite links, chapter 5")];

pub fn study(name: &str, quick: bool) -> Result<StudyDef, crate::error::UnknownStudy> {
    match name {
        "ong2020" => Ok(ong2020::study(quick)),
        "trang2015" => Ok(trang2015::study(quick)),
        "hayes2011" => Ok(hayes2011::study(quick)),
        "wallenburg2018" => Ok(wallenburg2018::study(quick)),
        "wang2018" => Ok(wang2018::study(quick)),
        other => Err(crate::error::UnknownStudy {
            name: other.to_string(),
            known: STUDIES.iter().map(|s| s.0).collect(),
        }),
    }
}

impl StudyDef {
    /// The experiment with this id.
    pub fn experiment(&self, id: &str) -> Option<&Experiment> {
        self.experiments.iter().find(|e| e.id == id)
    }

    pub fn work_items(&self) -> Vec<WorkItem> {
        self.experiments
            .iter()
            .flat_map(|e| {
                self.seeds
                    .iter()
                    .map(move |&s| WorkItem::new(e.id.clone(), e.scenario.clone(), s))
            })
            .collect()
    }
}

/// Stored runs grouped by experiment id.
///
/// A study stopped early (Ctrl-C, SIGTERM) leaves experiments with fewer runs than seeds,
/// or none. A claim or published number that looks at such an experiment is judged on
/// data that was never collected, so the report marks it "not checked": `expect` names
/// the study's experiments and seeds, every look-up of an incomplete one is noted, and
/// `take_incomplete` tells the report which ones a check used.
pub struct Results {
    pub runs: BTreeMap<String, Vec<(u64, SimResult)>>,
    /// Experiments of the study with fewer stored runs than it has seeds.
    incomplete: BTreeSet<String>,
    /// The incomplete experiments looked up since the last `take_incomplete`.
    used: RefCell<BTreeSet<String>>,
}

pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

impl Results {
    /// Runs with no expectations: every experiment counts as complete.
    pub fn new(runs: BTreeMap<String, Vec<(u64, SimResult)>>) -> Results {
        Results {
            runs,
            incomplete: BTreeSet::new(),
            used: RefCell::new(BTreeSet::new()),
        }
    }

    /// Marks each experiment of `def` with fewer runs than `def`'s seeds as incomplete.
    pub fn expect(mut self, def: &StudyDef) -> Results {
        self.incomplete = def
            .experiments
            .iter()
            .filter(|e| self.runs.get(&e.id).map_or(0, Vec::len) < def.seeds.len())
            .map(|e| e.id.clone())
            .collect();
        self
    }

    /// The incomplete experiments looked up since the last call, and forget them.
    pub fn take_incomplete(&self) -> BTreeSet<String> {
        std::mem::take(&mut *self.used.borrow_mut())
    }

    /// The stored runs of an experiment (noting the look-up if it is incomplete). Checks
    /// read runs through this, not `runs` directly.
    pub fn runs_of(&self, exp: &str) -> Option<&Vec<(u64, SimResult)>> {
        if self.incomplete.contains(exp) {
            self.used.borrow_mut().insert(exp.to_string());
        }
        self.runs.get(exp)
    }

    /// Whether the experiment has stored runs (a look-up like any other).
    pub fn has_runs(&self, exp: &str) -> bool {
        self.runs_of(exp).is_some()
    }

    pub fn from_stored(stored: &[Stored], keep: impl Fn(&Stored) -> bool) -> Results {
        let mut runs: BTreeMap<String, Vec<(u64, SimResult)>> = BTreeMap::new();
        for s in stored.iter().filter(|s| keep(s)) {
            runs.entry(s.label.clone())
                .or_default()
                .push((s.seed, s.metrics()));
        }
        for v in runs.values_mut() {
            v.sort_by_key(|(seed, _)| *seed);
        }
        Results::new(runs)
    }

    /// Per-run values of a metric in an experiment (runs lacking it are skipped).
    pub fn values(&self, exp: &str, m: Metric) -> Vec<f64> {
        self.runs_of(exp).map_or(vec![], |rs| {
            rs.iter().filter_map(|(_, r)| m.of(r)).collect()
        })
    }

    /// Coefficient of variation over runs (Ong 2020 §3.6): sample stdev / mean.
    pub fn cv(&self, exp: &str, m: Metric) -> Option<f64> {
        let v = self.values(exp, m);
        if v.len() < 2 {
            return None;
        }
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
        (mean != 0.0).then(|| var.sqrt() / mean)
    }

    /// The median over runs, as Ong 2020 reports.
    pub fn median(&self, exp: &str, m: Metric) -> Option<f64> {
        median(&self.values(exp, m))
    }

    /// The median over the runs of several experiments together; `None` unless every one
    /// of them has runs with the metric.
    pub fn pooled_median<S: AsRef<str>>(&self, exps: &[S], m: Metric) -> Option<f64> {
        let mut all = Vec::new();
        for e in exps {
            let v = self.values(e.as_ref(), m);
            if v.is_empty() {
                return None;
            }
            all.extend(v);
        }
        median(&all)
    }

    /// Our value for a published number: the median (pooled over `pool` when given), or
    /// the percentage change of the median against the reference experiment.
    pub fn ours(&self, p: &Published) -> Option<f64> {
        let v = if p.pool.is_empty() {
            self.median(&p.experiment, p.metric)?
        } else {
            let exps: Vec<&str> = std::iter::once(p.experiment.as_str())
                .chain(p.pool.iter().map(String::as_str))
                .collect();
            self.pooled_median(&exps, p.metric)?
        };
        match &p.relative_to {
            None => Some(v),
            Some(r) => {
                let base = self.median(r, p.metric)?;
                (base != 0.0).then(|| (v / base - 1.0) * 100.0)
            }
        }
    }
}

/// The verdict on a number or claim whose data is missing: not in this run of the study,
/// or not (yet) collected.
pub const NOT_CHECKED: &str = "not checked";

/// The verdict on a difference `d` (percent, or percentage points for relative numbers):
/// close within 10, near within 25, differs beyond (and for NaN, a published 0). The
/// studies' reports and `scavenger compare` both judge by it (docs/reproduction.md).
pub fn closeness(d: f64) -> &'static str {
    if d.abs() <= 10.0 {
        "close"
    } else if d.abs() <= 25.0 {
        "near"
    } else {
        "differs"
    }
}

/// How far ours is from the published number: relative difference for absolute values,
/// percentage points for relative ones; "not checked" without ours.
pub fn verdict(p: &Published, ours: Option<f64>) -> (&'static str, Option<f64>) {
    let Some(o) = ours else {
        return (NOT_CHECKED, None);
    };
    if p.relative_to.is_some() {
        let d = o - p.value;
        (closeness(d), Some(d))
    } else {
        let d = if p.value != 0.0 {
            (o - p.value) / p.value.abs() * 100.0
        } else {
            f64::NAN
        };
        (closeness(d), Some(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficient_of_variation_is_sample_stdev_over_mean() {
        let mk = |tput: f64| {
            let mut r: SimResult = serde_json::from_str(r#"{"duration_s":1,"events":0,"flows":[],"links":[],"jain":[{"name":"j","flows":[],"from_s":0,"to_s":1,"index":0,"goodput_bps":[]}]}"#).unwrap();
            r.jain[0].index = tput;
            r
        };
        let mut runs = BTreeMap::new();
        runs.insert(
            "e".to_string(),
            vec![(1, mk(1.0)), (2, mk(2.0)), (3, mk(3.0))],
        );
        let res = Results::new(runs);
        // mean 2, sample stdev 1.
        assert_eq!(res.cv("e", Metric::Jain), Some(0.5));
        assert_eq!(res.cv("nope", Metric::Jain), None);
    }

    #[test]
    fn median_of_even_and_odd_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn verdicts_use_relative_error_or_percentage_points() {
        let p = Published {
            source: "t",
            experiment: "e".into(),
            metric: Metric::FgFtt,
            relative_to: None,
            value: 10.0,
            pool: vec![],
        };
        assert_eq!(verdict(&p, Some(10.5)).0, "close");
        assert_eq!(verdict(&p, Some(12.0)).0, "near");
        assert_eq!(verdict(&p, Some(20.0)).0, "differs");
        assert_eq!(verdict(&p, None).0, "not checked");
        let r = Published {
            relative_to: Some("b".into()),
            value: -60.0,
            ..p
        };
        let (v, d) = verdict(&r, Some(-45.0));
        assert_eq!((v, d), ("near", Some(15.0)));
    }

    #[test]
    fn pooled_numbers_need_every_experiment() {
        let res = |exps: &[&str]| -> Results {
            let mut runs = BTreeMap::new();
            for (i, e) in exps.iter().enumerate() {
                let jain = scavenger_sim::result::JainResult {
                    name: "all".into(),
                    flows: vec![],
                    from_s: 0.0,
                    to_s: 1.0,
                    index: 0.5 + 0.1 * i as f64,
                    goodput_bps: vec![],
                };
                let r = SimResult {
                    duration_s: 1.0,
                    events: 0,
                    flows: vec![],
                    links: vec![],
                    jain: vec![jain],
                    series: None,
                };
                runs.insert(e.to_string(), vec![(1, r)]);
            }
            Results::new(runs)
        };
        let p = Published {
            source: "t",
            experiment: "a".into(),
            metric: Metric::Jain,
            relative_to: None,
            value: 0.6,
            pool: vec!["b".into(), "c".into()],
        };
        assert_eq!(res(&["a", "b"]).ours(&p), None);
        let got = res(&["a", "b", "c"]).ours(&p).unwrap();
        assert!((got - 0.6).abs() < 1e-9, "{got}");
    }
}
