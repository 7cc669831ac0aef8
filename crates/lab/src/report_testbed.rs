//! The report of a study run on the testbed (`reproduce STUDY --datapath testbed`, issue
//! 17 item 4): each published number beside the simulator's and the testbed's, and for
//! each which side the difference lies on (docs/reproduction.md#testbed-attribution).
//!
//! The testbed store (DIR) holds kernel-TCP runs, usually of a subset of the study; the
//! simulator store beside it (DIR/sim) holds the simulator's runs of the same experiments
//! over all the study's seeds, so the simulator column is the number the study's own
//! report gives. The two never mix: each is its own store with its own store.json.
//!
//! Testbed runs are kept by experiment and scenario, not by code version: a testbed run
//! takes real time, and what it measured (the kernel on this scenario) does not change
//! when our code does. A run whose stored scenario is no longer the experiment's is
//! ignored. The simulator's runs are matched by key (scenario, seed and code version), as
//! in every study report.

use crate::error::LabError;
use crate::report::{diff_words, f2, metric_words, source_name, write_file, Rendered};
use crate::store::{Store, Stored};
use crate::study::{verdict, Published, Results, StudyDef, NOT_CHECKED};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

/// The simulator's store inside a testbed store.
pub const SIM_SUBDIR: &str = "sim";
/// Runs the testbed cannot run, with the reason (JSON lines of [`Skipped`]).
pub const SKIPPED_FILE: &str = "skipped.jsonl";
/// The machine's load average around each invocation (testbed runs are real time).
pub const LOAD_FILE: &str = "load.txt";

/// A run of the subset that the testbed cannot run, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    pub label: String,
    pub seed: u64,
    pub reason: String,
}

/// Merges `new` into the skipped runs recorded in `dir` (by label and seed: a later
/// reason replaces an earlier one) and writes them back.
pub fn record_skipped(dir: &Path, new: &[Skipped]) -> Result<(), LabError> {
    let mut all = read_skipped(dir)?;
    for s in new {
        all.retain(|o| (o.label.as_str(), o.seed) != (s.label.as_str(), s.seed));
        all.push(s.clone());
    }
    all.sort_by(|a, b| (&a.label, a.seed).cmp(&(&b.label, b.seed)));
    let text: String = all
        .iter()
        .map(|s| serde_json::to_string(s).expect("serialises") + "\n")
        .collect();
    let p = dir.join(SKIPPED_FILE);
    crate::store::write_atomic(&p, text.as_bytes()).map_err(LabError::io("write", &p))
}

pub fn read_skipped(dir: &Path) -> Result<Vec<Skipped>, LabError> {
    let p = dir.join(SKIPPED_FILE);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(LabError::io("read", &p)(e)),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| LabError::DamagedLine {
                path: p.clone(),
                line: i + 1,
                reason: e.to_string(),
                dir: dir.to_path_buf(),
            })
        })
        .collect()
}

/// The testbed store's runs that belong to `def`, by experiment and seed, with the key
/// of each: the label is one of its experiments and the stored scenario is that
/// experiment's scenario. A run stored twice for the same experiment and seed (a
/// `--force`d re-run) counts once, the later one.
pub fn testbed_runs(
    def: &StudyDef,
    dir: &Path,
) -> Result<BTreeMap<(String, u64), String>, LabError> {
    #[derive(serde::Deserialize)]
    struct Line {
        key: String,
        label: String,
        seed: u64,
        record: Rec,
    }
    #[derive(serde::Deserialize)]
    struct Rec {
        datapath: String,
        scenario: serde_json::Value,
    }
    let path = dir.join(crate::store::RESULTS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(LabError::io("read", &path)(e)),
    };
    let mut runs = BTreeMap::new();
    // Lines that do not parse are the store's to repair (opening it does); skip them here.
    for l in text.lines() {
        let Ok(l) = serde_json::from_str::<Line>(l) else {
            continue;
        };
        let Some(e) = def.experiment(&l.label) else {
            continue;
        };
        let want = serde_json::to_value(&e.scenario).expect("scenarios serialise");
        if l.record.datapath == "testbed" && l.record.scenario == want {
            runs.insert((l.label, l.seed), l.key);
        }
    }
    Ok(runs)
}

/// The attributions, in the order the summary counts them
/// (docs/reproduction.md#testbed-attribution).
pub const NONE: &str = "none: simulator ≈ published";
pub const OURS: &str = "ours: simulator ≠ testbed";
pub const OURS_SMALL: &str = "ours, within 25 %: testbed ≈ published, simulator near both";
pub const SOURCE: &str = "source's testbed: simulator ≈ testbed ≠ published";
pub const UNCLEAR: &str = "unclear: testbed between simulator and published, near both";
const ATTRIBUTIONS: [&str; 5] = [NONE, OURS, OURS_SMALL, SOURCE, UNCLEAR];

/// Which side the simulator's difference from the published number lies on, from three
/// verdicts (close ≤ 10 %, near ≤ 25 %, differs beyond; `verdict`): the simulator's
/// against the published number, the testbed's against it, and the simulator's against
/// the testbed. A simulator close to the published number has nothing to attribute; one
/// that differs from the testbed is ours; one the testbed reproduces (close, or near
/// while the testbed too differs from the published number) is the source testbed's. A
/// "near" is within the noise of three runs, so the two cases where near verdicts leave
/// it open are named as such rather than forced to a side.
pub fn attribution(
    sim_vs_published: &str,
    testbed_vs_published: &str,
    sim_vs_testbed: &str,
) -> &'static str {
    match (sim_vs_published, testbed_vs_published, sim_vs_testbed) {
        (_, NOT_CHECKED, _) => "no testbed number",
        (NOT_CHECKED, _, _) | (_, _, NOT_CHECKED) => {
            "no simulator number (its runs are incomplete or of another build: run reproduce again)"
        }
        ("close", _, _) => NONE,
        (_, _, "differs") => OURS,
        (_, "close", _) => OURS_SMALL,
        (_, "differs", _) | (_, _, "close") => SOURCE,
        _ => UNCLEAR,
    }
}

/// One published number with the simulator's and the testbed's beside it.
pub struct Row<'a> {
    pub p: &'a Published,
    pub sim: Option<f64>,
    pub sim_verdict: &'static str,
    pub testbed: Option<f64>,
    pub testbed_runs: usize,
    pub testbed_verdict: &'static str,
    pub testbed_diff: Option<f64>,
    /// The simulator against the testbed, judged as against a published number.
    pub sim_vs_testbed: &'static str,
    pub sim_vs_testbed_diff: Option<f64>,
}

impl Row<'_> {
    pub fn attribution(&self) -> &'static str {
        attribution(self.sim_verdict, self.testbed_verdict, self.sim_vs_testbed)
    }
}

/// The rows for every published number with a testbed number.
pub fn rows<'a>(def: &'a StudyDef, sim: &Results, testbed: &Results) -> Vec<Row<'a>> {
    def.published
        .iter()
        .filter_map(|p| {
            let tb = testbed.ours(p)?;
            let s = sim.ours(p);
            // The simulator's number only counts with all its runs (as in the study's
            // report); the testbed's is a median over the runs it has, counted.
            let s = if sim.take_incomplete().is_empty() {
                s
            } else {
                None
            };
            let (sv, _) = verdict(p, s);
            let (tv, td) = verdict(p, Some(tb));
            let (svt, svt_d) = verdict(
                &Published {
                    value: tb,
                    ..p.clone()
                },
                s,
            );
            Some(Row {
                p,
                sim: s,
                sim_verdict: sv,
                testbed: Some(tb),
                testbed_runs: testbed.values(&p.experiment, p.metric).len(),
                testbed_verdict: tv,
                testbed_diff: td,
                sim_vs_testbed: svt,
                sim_vs_testbed_diff: svt_d,
            })
        })
        .collect()
}

/// The published numbers of experiments with testbed runs that the testbed cannot give
/// yet, each with the experiments it also needs (its `relative_to` and pool) that have
/// no testbed run.
pub fn wanting<'a>(def: &'a StudyDef, testbed: &Results) -> Vec<(&'a Published, Vec<String>)> {
    let has_runs = |e: &str| testbed.runs.get(e).is_some_and(|v| !v.is_empty());
    def.published
        .iter()
        .filter(|p| has_runs(&p.experiment) && testbed.ours(p).is_none())
        .filter_map(|p| {
            let missing: Vec<String> = p
                .relative_to
                .iter()
                .chain(&p.pool)
                .filter(|e| !has_runs(e))
                .cloned()
                .collect();
            (!missing.is_empty()).then_some((p, missing))
        })
        .collect()
}

/// Renders the report of the testbed store `dir` (and its simulator store, DIR/sim).
pub fn testbed_report(def: &StudyDef, dir: &Path) -> Result<Rendered, LabError> {
    let sim_dir = dir.join(SIM_SUBDIR);
    let expected: HashSet<String> = def.work_items().into_iter().map(|w| w.key).collect();
    let sim_stored = if sim_dir.join(crate::store::RESULTS_FILE).exists() {
        Store::read(&sim_dir)?
    } else {
        vec![]
    };
    let sim = Results::from_stored(&sim_stored, |s: &Stored| expected.contains(&s.key)).expect(def);
    let tb_keys: HashSet<String> = testbed_runs(def, dir)?.into_values().collect();
    let tb_stored = Store::read(dir)?;
    let testbed = Results::from_stored(&tb_stored, |s: &Stored| tb_keys.contains(&s.key));
    let tb_runs: usize = testbed.runs.values().map(Vec::len).sum();
    let skipped = read_skipped(dir)?;
    let load = std::fs::read_to_string(dir.join(LOAD_FILE)).unwrap_or_default();
    let rows = rows(def, &sim, &testbed);
    let wanting = wanting(def, &testbed);
    let src = source_name(def);
    let title = format!(
        "{}{}: published, simulator and testbed",
        def.title,
        if def.quick { " (quick)" } else { "" }
    );
    let count = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();

    let mut summary = String::new();
    let _ = writeln!(summary, "{title}");
    let _ = writeln!(
        summary,
        "testbed runs: {tb_runs} of {} experiments ({} stored runs of other scenarios ignored); skipped: {}",
        testbed.runs.len(),
        tb_stored.len() - tb_runs,
        skipped.len()
    );
    let _ = writeln!(
        summary,
        "published numbers with a testbed number: {}; attribution of the simulator's difference: {}",
        rows.len(),
        ATTRIBUTIONS
            .iter()
            .map(|a| format!("{} {}", count(&|r| r.attribution() == *a), a.split(':').next().unwrap_or(a)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !wanting.is_empty() {
        let _ = writeln!(
            summary,
            "published numbers of these experiments that need testbed runs of others too: {} (report.md lists them)",
            wanting.len()
        );
    }
    let _ = writeln!(summary);
    let _ = writeln!(
        summary,
        "{:<12} {:<44} {:<44} {:>9} {:>9} {:>9} {:>4} {:>8} {:>8}  attribution",
        "source", "experiment", "metric", "published", "sim", "testbed", "runs", "tb-pub", "sim-tb"
    );
    for r in &rows {
        let _ = writeln!(
            summary,
            "{:<12} {:<44} {:<44} {:>9} {:>9} {:>9} {:>4} {:>8} {:>8}  {}",
            r.p.source,
            r.p.experiment,
            metric_words(def, r.p),
            f2(Some(r.p.value)),
            f2(r.sim),
            f2(r.testbed),
            r.testbed_runs,
            r.testbed_verdict,
            r.sim_vs_testbed,
            r.attribution()
        );
    }

    let mut md = format!("# {title}\n\n");
    md += &format!(
        "{tb_runs} runs on the testbed (kernel TCP between namespaces through the link emulator); the simulator's column is the median over all {} seeds of each experiment (DIR/sim), the testbed's the median over the runs it has (the runs column). Verdicts as in the study's report: close within 10 % (10 points for a change in percent), near within 25 %, differs beyond. **sim vs testbed** judges the simulator against the testbed's number the same way. The attribution of the simulator's difference from the published number: none when the simulator is close to it; ours when the simulator differs from the testbed; ours but within 25 % when the testbed is close to the published number; the source's testbed when the simulator is close to the testbed, or near it while the testbed differs from the published number; unclear when the testbed is near both (docs/reproduction.md#testbed-attribution).\n\n",
        def.seeds.len()
    );
    md += "| source | experiment | metric | published | simulator | sim verdict | testbed | runs | testbed verdict | testbed − published | sim vs testbed | attribution |\n|---|---|---|---:|---:|---|---:|---:|---|---:|---|---|\n";
    for r in &rows {
        md += &format!(
            "| {src} {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} |\n",
            r.p.source,
            r.p.experiment,
            metric_words(def, r.p),
            f2(Some(r.p.value)),
            f2(r.sim),
            r.sim_verdict,
            f2(r.testbed),
            r.testbed_runs,
            r.testbed_verdict,
            diff_words(r.p, r.testbed_diff),
            r.sim_vs_testbed,
            diff_words(r.p, r.sim_vs_testbed_diff),
            r.attribution()
        );
    }
    if !wanting.is_empty() {
        md += "\n## Published numbers that need more testbed runs\n\nNumbers of experiments the testbed ran that are relative to, or pooled with, experiments it has not run; add those to `--subset`:\n\n";
        for (p, missing) in &wanting {
            md += &format!(
                "- {src} {}, `{}`, {}: needs `{}`\n",
                p.source,
                p.experiment,
                metric_words(def, p),
                missing.join("`, `")
            );
        }
    }
    if !skipped.is_empty() {
        md +=
            "\n## Skipped runs\n\nRuns of the subset the testbed cannot run, with the reason:\n\n";
        for s in &skipped {
            md += &format!("- `{}` seed {}: {}\n", s.label, s.seed, s.reason);
        }
    }
    if !load.trim().is_empty() {
        md += "\n## Load average\n\nThe machine's load average (1, 5, 15 min) when each invocation started and ended; testbed runs are real time on a shared machine.\n\n```\n";
        md += &load;
        md += "```\n";
    }

    let mut csv = String::from("source,experiment,metric,relative_to,published,sim,sim_verdict,testbed,testbed_runs,testbed_verdict,testbed_diff,sim_vs_testbed,sim_vs_testbed_diff,attribution\n");
    let o = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    for r in &rows {
        csv += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\"\n",
            r.p.source,
            r.p.experiment,
            r.p.metric.key(),
            r.p.relative_to.clone().unwrap_or_default(),
            r.p.value,
            o(r.sim),
            r.sim_verdict,
            o(r.testbed),
            r.testbed_runs,
            r.testbed_verdict,
            o(r.testbed_diff),
            r.sim_vs_testbed,
            o(r.sim_vs_testbed_diff),
            r.attribution()
        );
    }
    let mut files = Vec::new();
    write_file(dir, "summary.txt", &summary, &mut files)?;
    write_file(dir, "report.md", &md, &mut files)?;
    write_file(dir, "published-sim-testbed.csv", &csv, &mut files)?;
    Ok(Rendered { summary, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribution_follows_the_three_verdicts() {
        assert_eq!(attribution("close", "differs", "differs"), NONE);
        assert_eq!(attribution("differs", "differs", "differs"), OURS);
        assert_eq!(attribution("near", "close", "differs"), OURS);
        assert_eq!(attribution("differs", "close", "near"), OURS_SMALL);
        assert_eq!(attribution("differs", "differs", "near"), SOURCE);
        assert_eq!(attribution("near", "near", "close"), SOURCE);
        assert_eq!(attribution("differs", "near", "near"), UNCLEAR);
        assert_eq!(
            attribution("near", NOT_CHECKED, NOT_CHECKED),
            "no testbed number"
        );
        assert_eq!(
            attribution(NOT_CHECKED, "differs", NOT_CHECKED),
            "no simulator number (its runs are incomplete or of another build: run reproduce again)"
        );
    }

    /// A study of one experiment `e` (seeds 1–3) with one published Jain's index, 0.9.
    fn one_number_study() -> StudyDef {
        let scenario = crate::parse(
            "e.toml",
            "duration = \"1s\"\n[link]\nrate = \"8Mbit\"\ndelay = \"10ms\"\nbuffer = \"10 packets\"\n[[flow]]\nalgorithm = \"newreno\"\n",
        )
        .unwrap();
        StudyDef {
            name: "t",
            title: "T",
            quick: true,
            experiments: vec![crate::study::Experiment {
                id: "e".into(),
                group: "g".into(),
                mechanism: "newreno".into(),
                scenario,
            }],
            seeds: vec![1, 2, 3],
            published: vec![Published::new(
                "Fig 1",
                "e".into(),
                crate::study::Metric::Jain,
                None,
                0.9,
            )],
            claims: vec![],
            notes: vec![],
            table: vec![],
            cv: vec![],
            plots: vec![],
        }
    }

    /// Results of experiment `e` with one Jain's index per seed.
    fn jain_runs(indices: &[f64]) -> Results {
        let runs = indices
            .iter()
            .zip(1..)
            .map(|(&x, seed)| {
                let mut r: scavenger_sim::SimResult = serde_json::from_str(r#"{"duration_s":1,"events":0,"flows":[],"links":[],"jain":[{"name":"j","flows":[],"from_s":0,"to_s":1,"index":0,"goodput_bps":[]}]}"#).unwrap();
                r.jain[0].index = x;
                (seed, r)
            })
            .collect();
        Results::new([("e".to_string(), runs)].into())
    }

    #[test]
    fn rows_put_the_three_numbers_side_by_side_and_attribute_the_difference() {
        let def = one_number_study();
        // The simulator (median 0.5) differs from the published 0.9 and is close to the
        // testbed's 0.52 (two runs): the source's testbed.
        let sim = jain_runs(&[0.4, 0.5, 0.6]).expect(&def);
        let r = rows(&def, &sim, &jain_runs(&[0.5, 0.54]));
        assert_eq!(r.len(), 1);
        let r = &r[0];
        assert_eq!(
            (r.sim, r.testbed, r.testbed_runs),
            (Some(0.5), Some(0.52), 2)
        );
        assert_eq!((r.sim_verdict, r.testbed_verdict), ("differs", "differs"));
        let d = r.sim_vs_testbed_diff.unwrap();
        assert!((d - (0.5 - 0.52) / 0.52 * 100.0).abs() < 1e-9, "{d}");
        assert_eq!(r.sim_vs_testbed, "close");
        assert_eq!(r.attribution(), SOURCE);
        // The testbed near the published number and the simulator far from both: ours.
        let r = &rows(&def, &sim, &jain_runs(&[0.85]))[0];
        assert_eq!((r.testbed_verdict, r.sim_vs_testbed), ("close", "differs"));
        // No testbed run: no row. Two of three simulator runs: no simulator number.
        assert!(rows(&def, &sim, &jain_runs(&[])).is_empty());
        let partial = jain_runs(&[0.4, 0.5]).expect(&def);
        let r = &rows(&def, &partial, &jain_runs(&[0.5]))[0];
        assert_eq!((r.sim, r.sim_vs_testbed), (None, NOT_CHECKED));
    }

    #[test]
    fn a_number_relative_to_an_experiment_without_testbed_runs_is_listed_with_it() {
        let mut def = one_number_study();
        def.published[0].relative_to = Some("base".into());
        let tb = jain_runs(&[0.5]);
        assert!(rows(&def, &tb, &tb).is_empty());
        let w = wanting(&def, &tb);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].1, vec!["base".to_string()]);
        // Without testbed runs of the experiment itself, nothing is wanted.
        assert!(wanting(&def, &jain_runs(&[])).is_empty());
    }

    #[test]
    fn testbed_runs_are_the_study_scenarios_on_the_testbed_the_later_of_two_kept() {
        let def = one_number_study();
        let dir = std::env::temp_dir().join(format!("scavenger-tbruns-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sc = serde_json::to_value(&def.experiments[0].scenario).unwrap();
        let mut other = sc.clone();
        other["duration"] = "2s".into();
        let line = |key: &str, label: &str, seed: u64, dp: &str, sc: &serde_json::Value| {
            serde_json::json!({"key": key, "label": label, "seed": seed,
                "record": {"datapath": dp, "scenario": sc}})
            .to_string()
                + "\n"
        };
        let text = [
            line("k1", "e", 1, "testbed", &sc),
            line("k2", "e", 2, "testbed", &sc),
            line("k3", "e", 1, "testbed", &sc),
            line("k4", "e", 3, "sim", &sc),
            line("k5", "e", 3, "testbed", &other),
            line("k6", "nosuch", 1, "testbed", &sc),
            "not json\n".to_string(),
        ]
        .concat();
        std::fs::write(dir.join(crate::store::RESULTS_FILE), text).unwrap();
        let runs = testbed_runs(&def, &dir);
        let _ = std::fs::remove_dir_all(&dir);
        let want: BTreeMap<(String, u64), String> = [
            (("e".to_string(), 1), "k3".to_string()),
            (("e".to_string(), 2), "k2".to_string()),
        ]
        .into();
        assert_eq!(runs.unwrap(), want);
    }

    #[test]
    fn skipped_runs_merge_by_label_and_seed() {
        let dir = std::env::temp_dir().join(format!("scavenger-skipped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = |l: &str, seed, r: &str| Skipped {
            label: l.into(),
            seed,
            reason: r.into(),
        };
        record_skipped(&dir, &[s("b", 1, "x"), s("a", 2, "y")]).unwrap();
        record_skipped(&dir, &[s("b", 1, "z")]).unwrap();
        let back = read_skipped(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(back.unwrap(), vec![s("a", 2, "y"), s("b", 1, "z")]);
    }
}
