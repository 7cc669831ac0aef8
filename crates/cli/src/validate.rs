//! `scavenger validate [--quick] [--rtts MS,..] [--out DIR]`: the simulator against kernel TCP on the
//! testbed, scenario by scenario (crates/lab/src/validate.rs; docs/validation.md).

use crate::error::{ArgError, CliError};
use scavenger_lab::store::write_atomic;
use scavenger_lab::validate::{self, Figure, Plan};
use scavenger_lab::Simulator;
use scavenger_testbed::datapath::TestbedDatapath;
use scavenger_testbed::run::RunOptions;
use scavenger_testbed::sys;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// The CI subset: 50 ms only, shorter runs (about 11 minutes for the default
    /// algorithms with three testbed repetitions).
    #[arg(long)]
    quick: bool,
    /// Algorithms to compare (scenario names: newreno runs as the kernel's reno). Default:
    /// newreno, cubic, bbr; our LBE algorithms run natively in BPF (ledbat, yield,
    /// ledbat-plus-plus) or through the shim (the others).
    #[arg(long, value_delimiter = ',', default_value = "newreno,cubic,bbr")]
    algorithms: Vec<String>,
    /// Only these base RTTs in ms (some of 50, 350; --quick: 50), e.g. `--rtts 50` for the
    /// full run's 50 ms cases when testbed time is short. Default: all of the mode's.
    #[arg(long, value_delimiter = ',', value_name = "MS")]
    rtts: Option<Vec<u64>>,
    /// Testbed repetitions per scenario (seeds 1..=N; default 3, with --quick too). The
    /// simulator runs at least 12 seeds with the same phases.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100))]
    reps: Option<u64>,
    /// Fail (exit status 1) when a newreno, cubic or bbr figure differs from the testbed's
    /// median by more than this many per cent.
    #[arg(long, value_name = "PCT", default_value_t = 20.0)]
    fail_above: f64,
    /// Output directory: validate.txt (the table), validate.csv and the run records.
    #[arg(long, value_name = "DIR", value_parser = crate::out_dir)]
    out: Option<PathBuf>,
    /// Do not ask for SCHED_FIFO for the emulator thread.
    #[arg(long)]
    no_realtime: bool,
}

pub fn run(a: ValidateArgs) -> ExitCode {
    crate::error::exit(go(a))
}

fn go(a: ValidateArgs) -> Result<ExitCode, CliError> {
    if !(a.fail_above.is_finite() && a.fail_above >= 0.0) {
        return Err(ArgError::Invalid(format!(
            "--fail-above {}: a percentage ≥ 0 is allowed",
            a.fail_above
        ))
        .into());
    }
    let plan = Plan {
        algorithms: a.algorithms.clone(),
        quick: a.quick,
        rtts: a.rtts.clone(),
    };
    let mut cases = validate::cases(&plan)?;
    // Like with like: the testbed runs our algorithms without a native BPF version through
    // the scv_shim agent, which applies each decision from the next ACK; the simulator
    // copies that lag for them (docs/validation.md#shim-lag-in-validate).
    let available = scavenger_testbed::run::kernel_ccs();
    for c in &mut cases {
        for f in &mut c.scenario.flows {
            if scavenger_testbed::run::runs_through_shim(f, false, &available) {
                f.shim_lag = Some(true);
            }
        }
    }
    if !sys::is_root() {
        return Err(CliError::NotRoot {
            command: "validate",
            why: "the testbed side runs kernel TCP in network namespaces",
        });
    }
    // Three with --quick too: with two, fair4/50ms/bbr's testbed side is a mean of two runs
    // that spread 0.67-0.99 (docs/validation.md#ci-2026-11-28).
    let reps = a.reps.unwrap_or(3);
    let testbed = TestbedDatapath {
        options: RunOptions {
            realtime: !a.no_realtime,
            ..RunOptions::default()
        },
    };
    // The testbed runs seeds 1..=reps, the simulator at least validate::SIM_SEEDS with the
    // same phases (its runs take milliseconds; a median of two or three was a draw).
    let sim_seeds = validate::sim_seeds(reps);
    let total = cases.len() as u64 * (sim_seeds.len() as u64 + reps);
    let mut done = 0u64;
    let runs = validate::run(
        &cases,
        &Simulator,
        &testbed,
        &sim_seeds,
        reps,
        |case, dp, seed| {
            done += 1;
            eprintln!("[{done}/{total}] {case} on {dp} (seed {seed})");
        },
    )?;
    let figs: Vec<Figure> = runs
        .iter()
        .flat_map(|(c, s, t)| validate::figures(c, s, t))
        .collect();
    let table = validate::table(&figs);
    print!("{table}");
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(CliError::io("create", dir))?;
        let w = |name: &str, text: &[u8]| {
            let p = dir.join(name);
            write_atomic(&p, text).map_err(CliError::io("write", &p))
        };
        w("validate.txt", table.as_bytes())?;
        w("validate.csv", validate::csv(&figs).as_bytes())?;
        let mut lines = String::new();
        for (_, s, t) in &runs {
            for r in s.iter().chain(t) {
                lines.push_str(&serde_json::to_string(r).expect("records serialise"));
                lines.push('\n');
            }
        }
        w("records.jsonl", lines.as_bytes())?;
    }
    let fails = validate::failures(&figs, a.fail_above);
    if fails.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &fails {
            eprintln!(
                "validate: {} {} differs by {:.1} % (bound {} %)",
                f.case,
                f.metric,
                f.diff_pct(),
                a.fail_above
            );
        }
        Ok(ExitCode::FAILURE)
    }
}
