//! `scavenger score`: an LBE scorecard for any algorithm and parameter set.
//!
//! Every (algorithm, cell) is measured by five runs per seed, all plain work items in a result
//! store (so a scorecard is parallel, resumable and Ctrl-C safe like any study):
//! the algorithm with the cell's foreground (`with`), that scenario without the
//! algorithm (`fg-alone`, shared by every algorithm), the algorithm alone on the link
//! (`alone`), four copies started 10 s apart (`jain`), and NewReno alone (`reference`,
//! for the hollow rules). Runs that depend only on the link are named by the link, so
//! cells on the same link share them. Each run is repeated for seeds 1..=N and each
//! metric is the median over the seeds (aggregate.rs). docs/scorecard.md describes the
//! grid, the metrics, the goals, the seeds and the hollow rule.

pub mod aggregate;
pub mod error;
pub mod grid;
pub mod metrics;
pub mod report;

use crate::builder::Arg;
use crate::error::LabError;
use crate::slowdown::without_background;
use crate::work::WorkItem;
use aggregate::SeededScore;
pub use error::ScoreError;
use grid::{Cell, Fg};
use metrics::{CellFrame, CellRuns, CellScore, Run, Series};
use scavenger_cc::params::ParamKind;
use serde::Deserialize;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// The registered algorithms that are less-than-best-effort, in the order `--all`
/// scores them: the one place that says which algorithms are LBE. Loss-based TCPs
/// (NewReno, CUBIC), BBR and the rate-based delay controllers (Copa, EvaRate,
/// PropRate, Vivace) aim at a fair share and are not listed; they can still be scored
/// by name.
pub const LBE: &[&str] = &[
    "ledbat",
    "ledbat-rfc",
    "ledbat-tuned",
    "ledbat-plus-plus",
    "apple-ledbat",
    "flower",
    "eclipse",
    "yield",
    "tcp-lp",
    "westwood-lp",
    "nice",
    "vegas",
    "cdg",
    "4cp",
    "imtcp-bg",
    "ebb",
    "proteus-s",
    "flexis",
];

/// The algorithm under test and its parameters.
#[derive(Clone, Debug)]
pub struct Subject {
    pub algorithm: &'static str,
    pub params: Vec<(String, Arg)>,
    texts: Vec<String>,
}

impl Subject {
    /// `algorithm` (a registry name or alias) with `NAME=VALUE` parameters, each checked
    /// against the algorithm's parameter table.
    pub fn parse(algorithm: &str, params: &[String]) -> Result<Subject, ScoreError> {
        let info = scavenger_cc::registry::find(algorithm).ok_or_else(|| {
            ScoreError::UnknownAlgorithm {
                name: algorithm.to_string(),
                known: scavenger_cc::registry::known_names(),
            }
        })?;
        let mut out = Vec::new();
        for p in params {
            let (name, text) = p
                .split_once('=')
                .ok_or_else(|| ScoreError::NotNameValue { text: p.clone() })?;
            let spec = info.params.iter().find(|s| s.name == name).ok_or_else(|| {
                ScoreError::NoSuchParameter {
                    algorithm: info.name,
                    name: name.to_string(),
                    known: info
                        .params
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            })?;
            let bad = || ScoreError::BadValue {
                name: name.to_string(),
                value: text.to_string(),
                allowed: spec.kind.describe(),
            };
            let arg: Arg = match spec.kind {
                ParamKind::Bool => match text {
                    "true" | "1" | "yes" | "on" => true.into(),
                    "false" | "0" | "no" | "off" => false.into(),
                    _ => return Err(bad()),
                },
                ParamKind::Int { .. } => text.parse::<i64>().map_err(|_| bad())?.into(),
                ParamKind::Float { .. } => text.parse::<f64>().map_err(|_| bad())?.into(),
                ParamKind::Duration { .. } | ParamKind::Choice(_) => text.into(),
            };
            out.push((name.to_string(), arg));
        }
        let s = Subject {
            algorithm: info.name,
            params: out,
            texts: params.to_vec(),
        };
        // Range checks happen where every scenario's are: build one.
        grid::alone(&grid::BASE, &s)?;
        Ok(s)
    }

    /// "ledbat" or "ledbat[target=25ms,gain=0.5]".
    pub fn label(&self) -> String {
        if self.texts.is_empty() {
            self.algorithm.to_string()
        } else {
            format!("{}[{}]", self.algorithm, self.texts.join(","))
        }
    }
}

/// A scorecard to run: algorithms × cells.
pub struct Plan {
    pub subjects: Vec<Subject>,
    pub cells: Vec<Cell>,
    pub quick: bool,
    /// Every run is repeated for seeds 1..=`seeds`.
    pub seeds: u64,
}

/// The five runs of one (algorithm, cell), built.
struct CellScenarios {
    with: crate::scenario::Scenario,
    fg_alone: crate::scenario::Scenario,
    alone: crate::scenario::Scenario,
    jain: crate::scenario::Scenario,
    reference: crate::scenario::Scenario,
}

/// Seeds per run unless `--seeds` says otherwise (docs/scorecard.md#seeds): the seed
/// draws each flow's start jitter (U[0, 10 ms]), the wifi preset's losses, the web
/// arrivals and the cell trace's phase, and many verdicts sit within a few percent of
/// their goal, so one seed decides them by luck. Five gives a median that one outlying
/// seed cannot move, within the quick grid's CI budget.
pub const DEFAULT_SEEDS: u64 = 5;

/// The most seeds `--seeds` accepts: more is a different experiment (a sweep), and a
/// full grid would take hours.
pub const MAX_SEEDS: u64 = 100;

impl Plan {
    /// The grid (`quick`: the CI subset), optionally only cells whose id contains one of
    /// `filters`.
    /// `seeds` must lie in 1..=`MAX_SEEDS`.
    pub fn new(
        subjects: Vec<Subject>,
        quick: bool,
        filters: &[String],
        seeds: u64,
    ) -> Result<Plan, ScoreError> {
        if !(1..=MAX_SEEDS).contains(&seeds) {
            return Err(ScoreError::Seeds {
                value: seeds,
                max: MAX_SEEDS,
            });
        }
        let cells: Vec<Cell> = grid::cells()
            .into_iter()
            .filter(|c| !quick || c.quick)
            .filter(|c| filters.is_empty() || filters.iter().any(|f| c.id().contains(f.as_str())))
            .collect();
        if cells.is_empty() {
            return Err(ScoreError::NoCell {
                filters: filters.join(","),
                cells: grid::cells()
                    .iter()
                    .map(Cell::id)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(Plan {
            subjects,
            cells,
            quick,
            seeds,
        })
    }

    fn scenarios(&self, c: &Cell, s: &Subject) -> Result<CellScenarios, ScoreError> {
        let with = grid::with_fg(c, s)?;
        let reno = Subject::parse("newreno", &[])?;
        Ok(CellScenarios {
            fg_alone: without_background(&with),
            with,
            alone: grid::alone(&c.link, s)?,
            jain: grid::jain(&c.link, s)?,
            reference: grid::alone(&c.link, &reno)?,
        })
    }

    /// The work items, each once (cells share link runs, algorithms share the
    /// foreground-alone and reference runs), for every seed. The seed is part of each
    /// item's key, so a store resumes per seed, and a store of fewer seeds is reused.
    pub fn work_items(&self) -> Result<Vec<WorkItem>, ScoreError> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for s in &self.subjects {
            for c in &self.cells {
                let sc = self.scenarios(c, s)?;
                let cid = c.id();
                let lid = c.link.id;
                let alg = s.label();
                for (label, scen) in [
                    (format!("{alg}|{cid}|with"), sc.with),
                    (format!("-|{cid}|fg-alone"), sc.fg_alone),
                    (format!("{alg}|{lid}|alone"), sc.alone),
                    (format!("{alg}|{lid}|jain"), sc.jain),
                    (format!("newreno|{lid}|reference"), sc.reference),
                ] {
                    for seed in 1..=self.seeds {
                        let w = WorkItem::new(label.clone(), scen.clone(), seed);
                        if seen.insert(w.key.clone()) {
                            out.push(w);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Scores every (algorithm, cell) from the store in `dir`, seed by seed, and
    /// aggregates the seeds; a cell whose runs are not all there yet for every seed is
    /// left out (`None`).
    pub fn evaluate(&self, dir: &Path) -> Result<Scorecard, ScoreError> {
        let mut wanted = std::collections::HashSet::new();
        let mut keyed = Vec::new();
        for s in &self.subjects {
            for c in &self.cells {
                let sc = self.scenarios(c, s)?;
                let keys: Vec<[String; 5]> = (1..=self.seeds)
                    .map(|seed| {
                        [&sc.with, &sc.fg_alone, &sc.alone, &sc.jain, &sc.reference]
                            .map(|x| crate::work::item_key(x, seed))
                    })
                    .collect();
                wanted.extend(keys.iter().flatten().cloned());
                keyed.push((s.label(), c.clone(), keys));
            }
        }
        let runs = read_runs(dir, &wanted)?;
        let mut rows = Vec::new();
        for (alg, c, keys) in keyed {
            let mut per_seed = Vec::new();
            for seed_keys in &keys {
                let got: Vec<Option<&Run>> = seed_keys.iter().map(|k| runs.get(k)).collect();
                let [Some(with), Some(fg_alone), Some(alone), Some(jain), Some(reference)] =
                    got[..]
                else {
                    break;
                };
                let cr = CellRuns {
                    frame: frame(&c, &with.result),
                    with,
                    fg_alone,
                    alone,
                    jain,
                    reference,
                };
                per_seed.push(metrics::score(&cr).map_err(|source| ScoreError::Cell {
                    algorithm: alg.clone(),
                    cell: c.id(),
                    source,
                })?);
            }
            let complete = per_seed.len() == keys.len();
            rows.push((alg, c, SeededScore::new(per_seed).filter(|_| complete)));
        }
        Ok(Scorecard {
            algorithms: self.subjects.iter().map(Subject::label).collect(),
            cells: self.cells.clone(),
            rows,
            quick: self.quick,
            seeds: self.seeds,
        })
    }
}

fn frame(c: &Cell, with: &scavenger_sim::SimResult) -> CellFrame {
    let t = c.link.timing();
    let rate = with
        .links
        .first()
        .map_or(c.link.kbps as f64 * 1e3, |l| l.rate_bps as f64);
    CellFrame {
        rtt_s: t.rtt.secs_f64(),
        rate_bps: rate,
        warm_s: t.warm.secs_f64(),
        alone_end_s: (t.warm + t.measure).secs_f64(),
        fg_start_s: t.warm.secs_f64(),
        fg_stop_s: match c.fg {
            Fg::Short(_) => None,
            _ => Some((t.warm + t.long).secs_f64()),
        },
    }
}

/// The scored grid.
pub struct Scorecard {
    pub algorithms: Vec<String>,
    pub cells: Vec<Cell>,
    pub rows: Vec<(String, Cell, Option<SeededScore>)>,
    pub quick: bool,
    pub seeds: u64,
}

impl Scorecard {
    /// The cell's aggregate over the seeds (medians and their verdicts).
    pub fn score(&self, alg: &str, cell: &str) -> Option<&CellScore> {
        self.seeded(alg, cell).map(|s| &s.median)
    }

    /// The cell's per-seed scores with their aggregate.
    pub fn seeded(&self, alg: &str, cell: &str) -> Option<&SeededScore> {
        self.rows
            .iter()
            .find(|(a, c, _)| a == alg && c.id() == cell)
            .and_then(|r| r.2.as_ref())
    }

    /// (cells where every goal that is not hollow passes, cells that are not hollow,
    /// cells not yet run) for one algorithm.
    pub fn tally(&self, alg: &str) -> (usize, usize, usize) {
        let mut k = 0;
        let mut n = 0;
        let mut missing = 0;
        for (a, _, s) in &self.rows {
            if a != alg {
                continue;
            }
            match s.as_ref().map(|s| &s.median) {
                None => missing += 1,
                Some(s) if s.hollow() => {}
                Some(s) => {
                    n += 1;
                    k += usize::from(s.all_pass());
                }
            }
        }
        (k, n, missing)
    }

    /// One line per algorithm: `algo=NAME cells_all_pass=K/N`.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for a in &self.algorithms {
            let (k, n, missing) = self.tally(a);
            out += &format!("algo={a} cells_all_pass={k}/{n}");
            if missing > 0 {
                out += &format!(" not_run={missing}");
            }
            out.push('\n');
        }
        out
    }
}

/// What the scorecard reads of a stored line: the key and the record's metrics with
/// their series (which `Store::read` leaves out).
#[derive(Deserialize)]
struct Line {
    key: String,
    record: LineRecord,
}

#[derive(Deserialize)]
struct LineRecord {
    metrics: serde_json::Value,
}

#[derive(Deserialize)]
struct RawSeries {
    bin_s: f64,
    time_s: Vec<f64>,
    flow_goodput_bps: Vec<Vec<Option<f64>>>,
    queue_pkts: Vec<f64>,
}

/// The stored runs with keys in `wanted` (the last line of a key wins, as in
/// `Store::read`). A torn last line is ignored, as the store ignores it.
fn read_runs(
    dir: &Path,
    wanted: &std::collections::HashSet<String>,
) -> Result<HashMap<String, Run>, LabError> {
    let path = dir.join(crate::store::RESULTS_FILE);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(LabError::io("read", &path)(e)),
    };
    let bad = |line: usize, what: &'static str| {
        let path = path.clone();
        move |e: serde_json::Error| LabError::NotARecord {
            path,
            line: Some(line),
            what,
            reason: e.to_string(),
        }
    };
    // Streamed line by line: a full `--all` store holds hundreds of megabytes of series.
    let mut lines = std::io::BufReader::new(file).lines().enumerate().peekable();
    let mut out = HashMap::new();
    while let Some((i, text)) = lines.next() {
        let text = text.map_err(LabError::io("read", &path))?;
        if text.trim().is_empty() {
            continue;
        }
        let line: Line = match serde_json::from_str(&text) {
            Ok(l) => l,
            // A torn last line from a crash: its item runs again.
            Err(_) if lines.peek().is_none() => continue,
            Err(e) => return Err(bad(i + 1, "result record")(e)),
        };
        if !wanted.contains(&line.key) {
            continue;
        }
        let m = line.record.metrics;
        let result: scavenger_sim::SimResult =
            serde_json::from_value(m.clone()).map_err(bad(i + 1, "run result"))?;
        let series = match m.get("series") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => {
                let raw: RawSeries =
                    serde_json::from_value(v.clone()).map_err(bad(i + 1, "time series"))?;
                Some(Series {
                    bin_s: raw.bin_s,
                    time_s: raw.time_s,
                    goodput_bps: result
                        .flows
                        .iter()
                        .map(|f| f.name.clone())
                        .zip(
                            raw.flow_goodput_bps
                                .into_iter()
                                .map(|g| g.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect()),
                        )
                        .collect(),
                    queue_pkts: raw.queue_pkts,
                })
            }
        };
        out.insert(line.key, Run { result, series });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_lbe_algorithm_is_registered_and_parameters_are_checked() {
        for a in LBE {
            let s = Subject::parse(a, &[]).unwrap();
            assert_eq!(s.algorithm, *a, "LBE lists canonical names");
        }
        let s = Subject::parse("ledbat", &["target=25ms".into(), "gain=0.5".into()]).unwrap();
        assert_eq!(s.label(), "ledbat[target=25ms,gain=0.5]");
        // Every input error is the user's (exit 2) and names the field, the value and what
        // is allowed.
        let e = Subject::parse("ledbat", &["gain=7".into()]).unwrap_err();
        assert!(
            matches!(e, ScoreError::Scenario { .. }) && e.is_usage(),
            "{e}"
        );
        let e = e.to_string();
        assert!(e.contains("gain") && e.contains('7'), "{e}");
        let e = Subject::parse("ledbat", &["gain=x".into()]).unwrap_err();
        assert!(
            matches!(e, ScoreError::BadValue { .. }) && e.is_usage(),
            "{e}"
        );
        assert!(e.to_string().contains("gain = \"x\"") && e.to_string().contains("a number in"));
        let e = Subject::parse("ledbat", &["nope=1".into()]).unwrap_err();
        assert!(
            matches!(e, ScoreError::NoSuchParameter { .. }) && e.is_usage(),
            "{e}"
        );
        let e = e.to_string();
        assert!(e.contains("nope") && e.contains("target"), "{e}");
        let e = Subject::parse("ledbat", &["gain".into()]).unwrap_err();
        assert!(
            matches!(e, ScoreError::NotNameValue { .. }) && e.is_usage(),
            "{e}"
        );
        assert!(e.to_string().contains("NAME=VALUE"), "{e}");
        let e = Subject::parse("no-such", &[]).unwrap_err();
        assert!(e.is_usage() && e.to_string().contains("known"), "{e}");
    }

    #[test]
    fn stored_runs_are_read_back_with_their_series_and_a_torn_last_line_is_skipped() {
        let dir = std::env::temp_dir().join(format!("scavenger-score-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let reno = Subject::parse("newreno", &[]).unwrap();
        let mut sc = grid::alone(&grid::BASE, &reno).unwrap();
        sc.duration = scavenger_cc::Dur::from_secs(2);
        let w = WorkItem::new("t", sc, 1);
        let rec = w.run();
        let mut store = crate::store::Store::open(&dir).unwrap();
        store.append(&w.key, &w.label, w.seed, &rec).unwrap();
        drop(store);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(crate::store::RESULTS_FILE))
            .unwrap();
        std::io::Write::write_all(&mut f, b"{\"key\":\"torn").unwrap();
        let wanted = std::collections::HashSet::from([w.key.clone()]);
        let runs = read_runs(&dir, &wanted).unwrap();
        let run = &runs[&w.key];
        let s = run.series.as_ref().unwrap();
        assert_eq!(s.goodput_bps[0].0, "bg");
        assert_eq!(s.time_s.len(), 40, "2 s in 50 ms bins");
        assert_eq!(s.goodput_bps[0].1.len(), 40);
        assert_eq!(run.result.flows[0].name, "bg");
        assert!(read_runs(&dir, &Default::default()).unwrap().is_empty());
        // A damaged line that is not the last is a run failure (exit 1) naming the line.
        std::io::Write::write_all(&mut f, b"\n{}\n").unwrap();
        let e = ScoreError::from(read_runs(&dir, &wanted).unwrap_err());
        assert!(!e.is_usage(), "{e}");
        assert!(e.to_string().contains("line 2: not a result record"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn algorithms_share_the_foreground_alone_and_reference_runs() {
        let a = Subject::parse("ledbat", &[]).unwrap();
        let b = Subject::parse("yield", &[]).unwrap();
        let cell = ["base:short-newreno".to_string()];
        let one = Plan::new(vec![a.clone()], true, &cell, 1).unwrap();
        assert_eq!(one.work_items().unwrap().len(), 5);
        let two = Plan::new(vec![a.clone(), b], true, &cell, 1).unwrap();
        // with, alone, jain for each; fg-alone and reference once.
        assert_eq!(two.work_items().unwrap().len(), 8);
        let e = Plan::new(vec![], true, &["no-such-cell".into()], 1)
            .err()
            .unwrap();
        assert!(
            matches!(e, ScoreError::NoCell { .. }) && e.is_usage(),
            "{e}"
        );
    }

    #[test]
    fn every_run_is_repeated_per_seed_under_its_own_key() {
        let a = Subject::parse("ledbat", &[]).unwrap();
        let cell = ["base:short-newreno".to_string()];
        let one = Plan::new(vec![a.clone()], true, &cell, 1)
            .unwrap()
            .work_items()
            .unwrap();
        let two = Plan::new(vec![a.clone()], true, &cell, 2)
            .unwrap()
            .work_items()
            .unwrap();
        assert_eq!(two.len(), 10);
        for w in &one {
            let seeds: Vec<u64> = two
                .iter()
                .filter(|x| x.label == w.label)
                .map(|x| x.seed)
                .collect();
            assert_eq!(seeds, [1, 2], "{}", w.label);
        }
        // Seed 1's keys are those of a one-seed plan: its store is reused, not rerun.
        let keys: std::collections::HashSet<_> = two.iter().map(|w| &w.key).collect();
        assert_eq!(keys.len(), 10);
        assert!(one.iter().all(|w| keys.contains(&w.key)));
        // Out of range: the flag, the value and what is allowed.
        for n in [0, MAX_SEEDS + 1] {
            let e = Plan::new(vec![a.clone()], true, &cell, n).err().unwrap();
            assert!(matches!(e, ScoreError::Seeds { .. }) && e.is_usage(), "{e}");
            let e = e.to_string();
            assert!(
                e.contains(&format!("--seeds {n}")) && e.contains("1 to 100"),
                "{e}"
            );
        }
    }
}
