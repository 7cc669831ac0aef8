//! `scavenger reproduce STUDY --datapath testbed [--subset PATTERNS]` (issue 17 item 4):
//! a study's runs, or a chosen subset, on kernel TCP through the testbed, and a report of
//! each published number beside the simulator's and the testbed's
//! (crates/lab/src/report_testbed.rs, docs/reproduction.md#testbed-attribution).
//!
//! The testbed's runs go to their own store (DIR, `store.json` says `"datapath":
//! "testbed"`), the simulator's runs of the same experiments to DIR/sim, so the two never
//! mix. Runs the testbed cannot run are reported as skipped with the reason. The testbed
//! runs one scenario at a time in real time (`TestbedDatapath::max_parallel` is 1, so
//! `--jobs` only sets the simulator's parallelism).

use crate::error::{ArgError, CliError};
use crate::{open_store, print_rendered, run_items_on, Outcome};
use scavenger_lab::datapath::{Datapath, Simulator};
use scavenger_lab::report_testbed::{
    record_skipped, testbed_report, testbed_runs, Skipped, LOAD_FILE, SIM_SUBDIR,
};
use scavenger_lab::store_meta::{write_meta, StoreMeta};
use scavenger_lab::study::study;
use scavenger_lab::subset::Subset;
use scavenger_lab::work::WorkItem;
use scavenger_testbed::datapath::TestbedDatapath;
use scavenger_testbed::run::RunOptions;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

/// `--datapath`: what runs a study's scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DatapathKind {
    /// The deterministic packet simulator.
    Sim,
    /// Kernel TCP between network namespaces through the link emulator (root; real time,
    /// one run at a time).
    Testbed,
}

/// The default store of a testbed reproduction: beside the simulator's, never in it.
pub fn default_dir(study: &str, quick: bool) -> std::path::PathBuf {
    std::path::PathBuf::from("results").join(format!(
        "{study}{}-testbed",
        if quick { "-quick" } else { "" }
    ))
}

/// The study's items that `subset` chooses (all of them without one).
pub fn chosen_items(
    name: &str,
    items: Vec<WorkItem>,
    subset: Option<&str>,
) -> Result<Vec<WorkItem>, CliError> {
    match subset {
        None => Ok(items),
        Some(s) => Ok(Subset::parse(s)
            .map_err(scavenger_lab::error::LabError::from)?
            .select(name, items)
            .map_err(scavenger_lab::error::LabError::from)?),
    }
}

/// Splits `items` into those `dp` can run and those it cannot (with the reason), asking
/// once per experiment.
pub fn runnable(dp: &dyn Datapath, items: Vec<WorkItem>) -> (Vec<WorkItem>, Vec<Skipped>) {
    let mut verdicts: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut run = Vec::new();
    let mut skipped = Vec::new();
    for w in items {
        let why = verdicts
            .entry(w.label.clone())
            .or_insert_with(|| dp.check(&w.scenario).err().map(|e| e.message))
            .clone();
        match why {
            None => run.push(w),
            Some(reason) => skipped.push(Skipped {
                label: w.label.clone(),
                seed: w.seed,
                reason,
            }),
        }
    }
    (run, skipped)
}

/// "1.23 0.98 0.77" from /proc/loadavg.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn note_load(dir: &Path, when: &str) -> Result<(), CliError> {
    use std::io::Write as _;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let line = format!("{when} unix {secs}: load average {}\n", load_average());
    eprint!("{line}");
    let p = dir.join(LOAD_FILE);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&p)
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .map_err(CliError::io("append to", &p))
}

pub struct Args<'a> {
    pub study: &'a str,
    pub quick: bool,
    pub dir: &'a Path,
    pub force: bool,
    pub jobs: Option<usize>,
    pub subset: Option<&'a str>,
    pub realtime: bool,
}

pub fn reproduce(a: Args) -> Result<Outcome, CliError> {
    let def = study(a.study, a.quick)?;
    let items = chosen_items(a.study, def.work_items(), a.subset)?;
    if !scavenger_testbed::sys::is_root() {
        return Err(CliError::NotRoot {
            command: "reproduce --datapath testbed",
            why: "the testbed runs kernel TCP in network namespaces",
        });
    }
    if a.jobs.is_some_and(|j| j > 1) {
        eprintln!("note: testbed runs go one at a time (real time, machine-wide namespaces and BPF registrations); --jobs sets the simulator's runs only");
    }
    let testbed = TestbedDatapath {
        options: RunOptions {
            realtime: a.realtime,
            ..RunOptions::default()
        },
    };
    let (run, skipped) = runnable(&testbed, items);

    // The lock is held until the report is written: one writer per store.
    let mut store = open_store(a.dir)?;
    write_meta(a.dir, &meta(a.study, a.quick, "testbed"), a.force)?;
    // Testbed runs are kept by experiment, seed and scenario, not by build (the store's
    // key holds the build): what the kernel measured does not change when our code does,
    // and a run takes a minute of real time. So a run already stored is not run again
    // unless --force, whichever build stored it.
    let done = testbed_runs(&def, a.dir)?;
    let (run, already): (Vec<WorkItem>, Vec<WorkItem>) = run
        .into_iter()
        .partition(|w| a.force || !done.contains_key(&(w.label.clone(), w.seed)));

    // The simulator's runs, every seed, of the chosen experiments and of those with
    // testbed runs from earlier invocations: its column is the study's own number for
    // this build. Seconds, and resumable like any store.
    let experiments: BTreeSet<&str> = run
        .iter()
        .chain(&already)
        .map(|w| w.label.as_str())
        .chain(skipped.iter().map(|s| s.label.as_str()))
        .chain(done.keys().map(|(l, _)| l.as_str()))
        .collect();
    let sim_dir = a.dir.join(SIM_SUBDIR);
    std::fs::create_dir_all(&sim_dir).map_err(CliError::io("create", &sim_dir))?;
    {
        let mut sim_store = open_store(&sim_dir)?;
        write_meta(&sim_dir, &meta(a.study, a.quick, "sim"), a.force)?;
        let sim_items: Vec<WorkItem> = def
            .work_items()
            .into_iter()
            .filter(|w| experiments.contains(w.label.as_str()))
            .collect();
        eprintln!(
            "simulator: {} runs of {} experiments into {}",
            sim_items.len(),
            experiments.len(),
            sim_dir.display()
        );
        if !run_items_on(
            &mut sim_store,
            sim_items,
            a.force,
            a.jobs,
            Arc::new(Simulator),
        )? {
            return Ok(Outcome::Interrupted);
        }
    }

    for s in &skipped {
        eprintln!("skipped {} seed {}: {}", s.label, s.seed, s.reason);
    }
    record_skipped(a.dir, &skipped)?;
    eprintln!(
        "{}: {} runs on the testbed, one at a time ({} already there, {} skipped)",
        def.title,
        run.len(),
        already.len(),
        skipped.len()
    );
    note_load(a.dir, "start")?;
    let complete = run_items_on(&mut store, run, a.force, Some(1), Arc::new(testbed))?;
    note_load(a.dir, "end")?;
    let r = testbed_report(&def, a.dir)?;
    print_rendered(r);
    Ok(Outcome::of(complete))
}

fn meta(study: &str, quick: bool, datapath: &str) -> StoreMeta {
    StoreMeta {
        kind: "study".into(),
        name: study.into(),
        quick,
        plan: None,
        datapath: datapath.into(),
    }
}

/// Flags that do not go with `--datapath testbed`.
pub fn check_flags(ray: bool, shard: bool) -> Result<(), CliError> {
    if ray {
        return Err(ArgError::Invalid(
            "--executor ray with --datapath testbed: testbed runs need this machine's namespaces; allowed: --executor local".into(),
        )
        .into());
    }
    if shard {
        return Err(ArgError::Invalid(
            "--shard with --datapath testbed: a testbed run is not split into shards; choose runs with --subset instead".into(),
        )
        .into());
    }
    Ok(())
}
