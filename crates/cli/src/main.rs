//! `scavenger`: the one command-line front end.

use clap::{Parser, Subcommand};
use scavenger_cc::{algorithms, ParamKind};
use scavenger_lab::bench::{run_case, CASES};
use scavenger_lab::error::LabError;
use scavenger_lab::exec::{install_interrupt_handler, run_into_store, LocalExecutor};
use scavenger_lab::plan::load_plan;
use scavenger_lab::report::{study_report, sweep_report};
use scavenger_lab::store::Store;
use scavenger_lab::study::study;
use std::io::IsTerminal;

mod pcap;
mod plot;
use std::path::PathBuf;
use std::process::ExitCode;

mod bench_cpu;
mod census;
mod error;
mod export;
mod merge;
mod ray;
mod reproduce_testbed;
mod transfer;
mod validate;

#[cfg(test)]
mod cli_tests;

use scavenger_lab::shard::Shard;
use scavenger_lab::store_meta::{write_meta, StoreMeta};

use error::{exit, ArgError, CliError};

/// `--executor`: where the runs of `reproduce` and `sweep` go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ExecutorKind {
    /// This machine's cores (`--jobs`).
    Local,
    /// A Ray cluster, through the Python driver (`python -m scavenger`; docs/distributed.md).
    Ray,
}

/// The flags `reproduce` and `sweep` share for splitting and distributing their runs.
#[derive(clap::Args, Clone, Debug)]
struct Distribute {
    /// Run only the items whose key modulo N is I (0 <= I < N); join the shard stores
    /// with `scavenger merge`. No report is written for a shard.
    #[arg(long, value_parser = Shard::parse, value_name = "I/N")]
    shard: Option<Shard>,
    /// Where the runs go.
    #[arg(long, value_enum, default_value = "local")]
    executor: ExecutorKind,
    /// With --executor ray: the cluster's address (default: start a local Ray instance).
    #[arg(long, requires = "executor")]
    address: Option<String>,
}

#[derive(Parser)]
#[command(
    name = "scavenger",
    version,
    about = "Less-than-best-effort and delay-based congestion control: simulate, compare, reproduce"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file on the simulator.
    Run {
        /// The scenario file (TOML; examples/ has many, docs/scenarios.md describes them).
        scenario: PathBuf,
        /// Seed for the run's random number generator (default: the scenario's `seed`, else 1).
        #[arg(long)]
        seed: Option<u64>,
        /// Output directory: record.json (and series.csv when the scenario asks for time
        /// series, slowdown.json when it has a background flow) go here.
        #[arg(long, value_name = "DIR", value_parser = out_dir)]
        out: Option<PathBuf>,
        /// Print the JSON result record on stdout instead of the table.
        #[arg(long)]
        json: bool,
        /// Run even if the scenario's estimated cost is past the bound (see README).
        #[arg(long)]
        force: bool,
        /// Write two pcap files per flow here (at the sender and at the receiver), with
        /// Ethernet/IPv4/TCP headers for Wireshark, tshark and tcptrace.
        #[arg(long, value_name = "DIR")]
        pcap: Option<PathBuf>,
    },
    /// Re-run a source's evaluation and report ours beside its published numbers.
    Reproduce {
        /// ong2020, trang2015, hayes2011, wallenburg2018 or wang2018.
        study: String,
        /// A representative subset that runs in minutes.
        #[arg(long)]
        quick: bool,
        /// Output directory: the result store and its report (default: results/STUDY or
        /// results/STUDY-quick).
        #[arg(long, value_name = "DIR", value_parser = out_dir)]
        out: Option<PathBuf>,
        /// Re-run items already in the store; also writes into a store of another study
        /// or sweep (replacing its store.json).
        #[arg(long)]
        force: bool,
        /// Parallel runs, at least 1 (default: all cores). Testbed runs go one at a time
        /// whatever this says.
        #[arg(long, value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Where the runs go: the simulator, or kernel TCP on the testbed (root; real
        /// time; its own store, default results/STUDY[-quick]-testbed, with the
        /// simulator's runs of the same experiments in DIR/sim and a report of
        /// published, simulator and testbed numbers side by side).
        #[arg(long, value_enum, default_value = "sim")]
        datapath: reproduce_testbed::DatapathKind,
        /// Run only these runs: GLOB[@SEEDS] patterns separated by commas, matched
        /// against the experiment ids (`*` matches any characters, `/` included; `@2` one
        /// seed, `@1-3` a range). Example: 'dl/*/350ms/newreno-long-1/ledbat@1-2'.
        #[arg(long, value_name = "PATTERNS")]
        subset: Option<String>,
        /// With --datapath testbed: do not ask for SCHED_FIFO for the emulator thread.
        #[arg(long)]
        no_realtime: bool,
        #[command(flatten)]
        dist: Distribute,
    },
    /// Run a sweep plan (a base scenario, settings to vary, seeds) into a result store.
    Sweep {
        /// The sweep plan (TOML).
        plan: PathBuf,
        /// Output directory: the result store and its report.
        #[arg(long, value_name = "DIR", value_parser = out_dir)]
        out: PathBuf,
        /// Re-run items already in the store; also runs scenarios past the cost bound and
        /// writes into a store of another study or sweep.
        #[arg(long)]
        force: bool,
        /// Parallel runs, at least 1 (default: all cores).
        #[arg(long, value_parser = parse_jobs)]
        jobs: Option<usize>,
        #[command(flatten)]
        dist: Distribute,
    },
    /// Join result stores (the shards of a study or sweep) by key into OUT.
    Merge {
        /// The output store, a directory (created if needed; its records are kept).
        #[arg(value_name = "OUT_DIR", value_parser = out_dir)]
        out: PathBuf,
        /// The stores to merge.
        #[arg(required = true)]
        stores: Vec<PathBuf>,
        /// Merge records of another version or commit, and keep the first of two
        /// different records for one key.
        #[arg(long)]
        force: bool,
    },
    /// Write a result store as a table, one row per run (parameters, metrics, seed, version).
    Export {
        /// The result store (the directory `reproduce`, `sweep` or `score` wrote).
        store: PathBuf,
        /// csv (text, one header line) or parquet (for pandas, polars, DuckDB).
        #[arg(long, value_enum)]
        format: export::Format,
        /// Output directory: writes results.csv or results.parquet there (default: csv
        /// to stdout, parquet to STORE/results.parquet).
        #[arg(long, value_name = "DIR", value_parser = out_dir)]
        out: Option<PathBuf>,
    },
    /// Re-render the report of a result store written by `reproduce` or `sweep`.
    Report {
        /// The result store's directory (its results.jsonl and store.json).
        dir: PathBuf,
    },
    /// LBE scorecard of an algorithm and parameter set over a designed grid (docs/scorecard.md).
    Score {
        /// A registered algorithm (omit with --all).
        algorithm: Option<String>,
        /// Parameters as NAME=VALUE (e.g. target=25ms).
        params: Vec<String>,
        /// Score every registered LBE algorithm.
        #[arg(long, conflicts_with = "algorithm")]
        all: bool,
        /// The quick grid (CI).
        #[arg(long)]
        quick: bool,
        /// Only cells whose id contains one of these (comma-separated).
        #[arg(long, value_delimiter = ',')]
        cells: Vec<String>,
        /// Seeds per run, 1 to 100: every run is repeated for seeds 1..=N and each metric
        /// is the median over them, with its min-max (docs/scorecard.md#seeds).
        #[arg(long, value_name = "N", default_value_t = scavenger_lab::score::DEFAULT_SEEDS)]
        seeds: u64,
        /// Output directory: the result store and the scorecard (default:
        /// results/score-NAME[-quick]).
        #[arg(long, value_name = "DIR", value_parser = out_dir)]
        out: Option<PathBuf>,
        /// Re-run cells already in the store.
        #[arg(long)]
        force: bool,
        /// Parallel runs, at least 1 (default: all cores).
        #[arg(long, value_parser = parse_jobs)]
        jobs: Option<usize>,
    },
    /// List every algorithm with its parameters, defaults, units and sources.
    Algorithms,
    /// Receive files sent with `scavenger send` (QUIC, TLS 1.3, token; docs/transfer.md).
    Receive(transfer::ReceiveArgs),
    /// Send files in the background: less-than-best-effort, or by a deadline (docs/transfer.md).
    Send(transfer::SendArgs),
    /// Which congestion control does a web server run? A CAAI-style probe (Wang 2018 §3.1; docs/census.md).
    Census(census::CensusArgs),
    /// The simulator against kernel TCP on the testbed, scenario by scenario (root; docs/validation.md).
    Validate(validate::ValidateArgs),
    /// Emulated testbed: network namespaces, the link emulator, real kernel TCP flows.
    Testbed {
        #[command(subcommand)]
        cmd: scavenger_testbed::cli::TestbedCmd,
    },
    /// Real Linux TCP through BPF struct_ops: native algorithms, the shim agent, live parameters.
    Kernel {
        #[command(subcommand)]
        cmd: scavenger_kernel::cli::KernelCmd,
    },
    /// Compare two result records (record.json) or two result stores, per flow and metric.
    Compare {
        /// The first record.json or result store (the reference).
        a: PathBuf,
        /// The second record.json or result store.
        b: PathBuf,
    },
    /// Plot one run over time: goodput, congestion window, RTT (from --pcap captures in
    /// the same directory) and queue, as HTML or SVG.
    Plot {
        /// A record.json, or the directory `scavenger run --out` wrote.
        record: PathBuf,
        /// Output directory: writes plot.html (plot.svg with --svg) there (default: the
        /// record's directory).
        #[arg(long, value_name = "DIR", value_parser = out_dir)]
        out: Option<PathBuf>,
        /// Write one stacked SVG (plot.svg) instead of the HTML page.
        #[arg(long)]
        svg: bool,
    },
    /// Run the simulator speed benchmark (one line per case).
    Bench {
        /// Run only this case (each case runs in its own process so peak memory is per case).
        /// Without it: cases a-d; the large cases e, f and g of issue 21 run only when named.
        #[arg(long, conflicts_with = "cpu")]
        case: Option<String>,
        #[command(flatten)]
        cpu: bench_cpu::CpuArgs,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(
        cli.cmd,
        Cmd::Run { .. }
            | Cmd::Reproduce {
                datapath: reproduce_testbed::DatapathKind::Sim,
                ..
            }
            | Cmd::Report { .. }
            | Cmd::Algorithms
            | Cmd::Compare { .. }
    ) {
        // Commands that only print: end quietly when the reader goes away
        // (`scavenger algorithms | head`) instead of panicking in println!. Rust ignores
        // SIGPIPE by default; the testbed and kernel commands keep that, since their
        // sockets must see EPIPE rather than kill the process.
        // SAFETY: resetting a signal disposition before any thread starts.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    match cli.cmd {
        Cmd::Run {
            scenario,
            seed,
            out,
            json,
            force,
            pcap,
        } => exit(run(&scenario, seed, out, json, force, pcap)),
        Cmd::Reproduce {
            study,
            quick,
            out,
            force,
            jobs,
            datapath,
            subset,
            no_realtime,
            dist,
        } => {
            if datapath == reproduce_testbed::DatapathKind::Testbed {
                if let Err(e) = reproduce_testbed::check_flags(
                    dist.executor == ExecutorKind::Ray,
                    dist.shard.is_some(),
                ) {
                    return e.report();
                }
                let dir = out.unwrap_or_else(|| reproduce_testbed::default_dir(&study, quick));
                return finish(reproduce_testbed::reproduce(reproduce_testbed::Args {
                    study: &study,
                    quick,
                    dir: &dir,
                    force,
                    jobs,
                    subset: subset.as_deref(),
                    realtime: !no_realtime,
                }));
            }
            if no_realtime {
                return CliError::from(ArgError::Invalid(
                    "--no-realtime is for --datapath testbed (the simulator keeps no real time)"
                        .into(),
                ))
                .report();
            }
            let dir = out.unwrap_or_else(|| {
                PathBuf::from("results").join(if quick {
                    format!("{study}-quick")
                } else {
                    study.clone()
                })
            });
            if dist.executor == ExecutorKind::Ray {
                if subset.is_some() {
                    return CliError::from(ArgError::Invalid(
                        "--subset with --executor ray: the Ray driver runs whole studies; allowed: --executor local".into(),
                    ))
                    .report();
                }
                let mut args: Vec<std::ffi::OsString> = vec!["reproduce".into(), study.into()];
                if quick {
                    args.push("--quick".into());
                }
                args.extend(["--out".into(), dir.into_os_string()]);
                return ray::delegate(ray_args(args, force, jobs, &dist));
            }
            finish(reproduce(
                &study,
                quick,
                &dir,
                force,
                jobs,
                dist.shard,
                subset.as_deref(),
            ))
        }
        Cmd::Sweep {
            plan,
            out,
            force,
            jobs,
            dist,
        } => {
            if dist.executor == ExecutorKind::Ray {
                let args = vec![
                    "sweep".into(),
                    plan.into_os_string(),
                    "--out".into(),
                    out.into_os_string(),
                ];
                return ray::delegate(ray_args(args, force, jobs, &dist));
            }
            finish(sweep(&plan, &out, force, jobs, dist.shard))
        }
        Cmd::Merge { out, stores, force } => {
            finish(merge::run(&out, &stores, force).map(|_| Outcome::Done))
        }
        Cmd::Export { store, format, out } => {
            finish(export::run(&store, format, out).map(|_| Outcome::Done))
        }
        Cmd::Report { dir } => finish(report(&dir)),
        Cmd::Plot { record, out, svg } => exit(plot_file(&record, out, svg).and_then(|f| {
            let path = plot::run(&record, Some(&f))?;
            eprintln!("wrote {}", path.display());
            Ok(ExitCode::SUCCESS)
        })),
        Cmd::Score {
            algorithm,
            params,
            all,
            quick,
            cells,
            seeds,
            out,
            force,
            jobs,
        } => finish(score(
            algorithm, &params, all, quick, &cells, seeds, out, force, jobs,
        )),
        Cmd::Algorithms => {
            let print_params = |params: &[scavenger_cc::ParamSpec]| {
                if params.is_empty() {
                    println!("    no parameters");
                }
                for p in params {
                    // A duration's default prints with its unit ("100ms"): no second one.
                    let unit = if p.unit.is_empty() || matches!(p.kind, ParamKind::Duration { .. })
                    {
                        String::new()
                    } else {
                        format!(" {}", p.unit)
                    };
                    let range = match p.kind {
                        ParamKind::Bool => String::new(),
                        k => format!("  [{}]", k.describe()),
                    };
                    println!("    {:<22} = {}{}{}", p.name, p.default, unit, range);
                    println!("    {:<22}   {} ({})", "", p.doc, p.source);
                }
                println!();
            };
            println!("# Sender-side congestion control (flow `algorithm`)\n");
            for a in algorithms() {
                println!(
                    "{}{}  —  {}",
                    a.name,
                    if a.aliases.is_empty() {
                        String::new()
                    } else {
                        format!(" (also: {})", a.aliases.join(", "))
                    },
                    a.summary
                );
                println!("    source: {}", a.source);
                print_params(a.params);
            }
            println!("# Receiver-side window control (flow `receiver = {{ controller = ... }}`)\n");
            for r in scavenger_cc::receiver_api::receiver_algorithms() {
                println!("{}  —  {}", r.name, r.summary);
                println!("    source: {}", r.source);
                print_params(r.params);
            }
            println!("# DA-LBE metacontrollers (flow `dalbe = {{ controller = ... }}`)\n");
            for c in scavenger_cc::dalbe::CONTROLLERS {
                println!(
                    "{}  —  {}{}",
                    c.name,
                    c.summary,
                    if c.needs_deadline {
                        " (needs a deadline)"
                    } else {
                        ""
                    }
                );
                print_params(c.params);
            }
            ExitCode::SUCCESS
        }
        Cmd::Receive(a) => transfer::receive(a),
        Cmd::Send(a) => transfer::send(a),
        Cmd::Census(a) => census::run(a),
        Cmd::Validate(a) => validate::run(a),
        Cmd::Testbed { cmd } => scavenger_testbed::cli::run(cmd),
        Cmd::Kernel { cmd } => scavenger_kernel::cli::run(cmd),
        Cmd::Compare { a, b } => exit(check_comparable(&a, &b).and_then(|_| {
            print!(
                "{}",
                scavenger_lab::analysis::compare::compare_paths(&a, &b)?
            );
            Ok(ExitCode::SUCCESS)
        })),
        Cmd::Bench { cpu, .. } if cpu.cpu => bench_cpu::run(&cpu),
        Cmd::Bench { case, .. } => match case {
            Some(name) => match CASES.iter().find(|c| c.name == name) {
                Some(c) => {
                    println!("{}", run_case(c));
                    ExitCode::SUCCESS
                }
                None => CliError::from(ArgError::UnknownBenchCase {
                    name,
                    known: CASES.iter().map(|c| c.name).collect::<Vec<_>>().join(", "),
                })
                .report(),
            },
            None => {
                let exe = match std::env::current_exe() {
                    Ok(e) => e,
                    Err(e) => {
                        eprintln!("error: cannot find this executable to run cases in child processes: {e}");
                        return ExitCode::from(1);
                    }
                };
                for c in CASES.iter().filter(|c| c.default) {
                    eprintln!("# case {}: {}", c.name, c.about);
                    match std::process::Command::new(&exe)
                        .args(["bench", "--case", c.name])
                        .status()
                    {
                        Ok(s) if s.success() => {}
                        other => {
                            eprintln!("error: bench case {} failed: {other:?}", c.name);
                            return ExitCode::from(1);
                        }
                    }
                }
                ExitCode::SUCCESS
            }
        },
    }
}

pub(crate) enum Outcome {
    Done,
    Interrupted,
}

impl Outcome {
    /// `Done` when every run finished, `Interrupted` when a signal stopped them.
    pub(crate) fn of(complete: bool) -> Outcome {
        if complete {
            Outcome::Done
        } else {
            Outcome::Interrupted
        }
    }
}

/// Prints a report's summary on stdout and the files it wrote on stderr.
pub(crate) fn print_rendered(r: scavenger_lab::report::Rendered) {
    print!("{}", r.summary);
    for f in r.files {
        eprintln!("wrote {}", f.display());
    }
}

fn finish(r: Result<Outcome, CliError>) -> ExitCode {
    match r {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Interrupted) => ExitCode::from(130),
        Err(e) => e.report(),
    }
}

/// `run`: one scenario on the simulator.
fn run(
    scenario: &std::path::Path,
    seed: Option<u64>,
    out: Option<PathBuf>,
    json: bool,
    force: bool,
    pcap: Option<PathBuf>,
) -> Result<ExitCode, CliError> {
    let sc = scavenger_lab::load(scenario)?;
    if !force {
        sc.check_cost().map_err(|source| CliError::TooCostly {
            file: scenario.display().to_string(),
            source,
        })?;
    }
    let seed = seed.unwrap_or(sc.seed);
    let (capture, tap) = match pcap.as_deref() {
        None => (None, None),
        Some(d) => {
            let (c, t) = pcap::start(d, &sc.to_sim(seed))?;
            (Some(c), Some(t))
        }
    };
    let rec = scavenger_lab::progress::run_tapped_with_progress(
        &sc,
        seed,
        std::io::stderr().is_terminal(),
        tap,
    );
    if let Some(c) = capture {
        let files = c.finish()?;
        eprintln!(
            "wrote {} pcap files to {}",
            files.len(),
            pcap.as_deref().expect("asked").display()
        );
    }
    let slowdown = scavenger_lab::slowdown::foreground_slowdown(&sc, rec.seed, &rec.metrics);
    if let (Some(dir), Some(sd)) = (&out, &slowdown) {
        let path = dir.join("slowdown.json");
        std::fs::create_dir_all(dir)
            .and_then(|_| {
                std::fs::write(
                    &path,
                    serde_json::to_string_pretty(sd).expect("serialises") + "\n",
                )
            })
            .map_err(CliError::io("write", &path))?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(dir) = out {
        for f in rec
            .write_to(&dir)
            .map_err(CliError::io("write results to", &dir))?
        {
            eprintln!("wrote {}", f.display());
        }
    }
    if json {
        println!("{}", rec.to_json());
    } else {
        print!("{}", rec.table());
        if let Some(sd) = &slowdown {
            print!("{}", sd.table());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--jobs`: a number of parallel runs, at least one.
/// `--out` (and merge's OUT): always a directory, created when needed. A path that
/// exists and is not a directory is refused here, before any work, rather than failing
/// after a long run.
fn out_dir(s: &str) -> Result<PathBuf, ArgError> {
    let p = PathBuf::from(s);
    if p.exists() && !p.is_dir() {
        return Err(ArgError::OutIsFile(s.to_string()));
    }
    Ok(p)
}

/// The file `plot` writes: plot.html or plot.svg in `--out` (created), else next to the
/// record.
fn plot_file(
    record: &std::path::Path,
    out: Option<PathBuf>,
    svg: bool,
) -> Result<PathBuf, CliError> {
    let name = if svg { "plot.svg" } else { "plot.html" };
    let dir = match out {
        Some(d) => {
            std::fs::create_dir_all(&d).map_err(CliError::io("create", &d))?;
            d
        }
        None if record.is_dir() => record.to_path_buf(),
        None => record
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .to_path_buf(),
    };
    Ok(dir.join(name))
}

fn parse_jobs(s: &str) -> Result<usize, ArgError> {
    match s.parse::<usize>() {
        Ok(0) => Err(ArgError::NoJobs),
        Ok(n) => Ok(n),
        Err(_) => Err(ArgError::JobsNotANumber(s.to_string())),
    }
}

fn executor(jobs: Option<usize>) -> LocalExecutor {
    let mut e = LocalExecutor::new(std::io::stderr().is_terminal());
    if let Some(j) = jobs {
        e.threads = j;
    }
    e
}

/// `compare` on two single records that share no flow, link or Jain group would print a
/// table of dashes; say why instead.
fn check_comparable(a: &std::path::Path, b: &std::path::Path) -> Result<(), CliError> {
    use scavenger_lab::analysis::compare::{compare_records, load};
    let (ra, rb) = (load(a)?, load(b)?);
    for (path, recs) in [(a, &ra), (b, &rb)] {
        if let Some((label, _)) = recs.iter().find(|(_, r)| r.get("metrics").is_none()) {
            return Err(ArgError::Invalid(format!(
                "{}: {label} is not a result record (it has no `metrics`); compare record.json files or result stores",
                path.display()
            ))
            .into());
        }
    }
    if ra.len() == 1 && rb.len() == 1 {
        let rows = compare_records(&ra[0].1, &rb[0].1);
        if !rows.iter().any(|r| r.a.is_some() && r.b.is_some()) {
            return Err(ArgError::Invalid(format!(
                "{} and {} have no flow, link or Jain group of the same name, so nothing to compare; compare two runs of the same scenario (for example on the simulator and on the testbed)",
                a.display(),
                b.display()
            ))
            .into());
        }
    }
    Ok(())
}

/// The Python driver's flags for `--executor ray`.
fn ray_args(
    mut args: Vec<std::ffi::OsString>,
    force: bool,
    jobs: Option<usize>,
    dist: &Distribute,
) -> Vec<std::ffi::OsString> {
    args.extend(["--executor".into(), "ray".into()]);
    if force {
        args.push("--force".into());
    }
    if let Some(j) = jobs {
        args.extend(["--jobs".into(), j.to_string().into()]);
    }
    if let Some(a) = &dist.address {
        args.extend(["--address".into(), a.into()]);
    }
    if let Some(s) = dist.shard {
        args.extend(["--shard".into(), s.to_string().into()]);
    }
    args
}

/// Opens (and locks) the store in `dir`, saying what it repaired.
pub(crate) fn open_store(dir: &std::path::Path) -> Result<Store, CliError> {
    let store = Store::open(dir)?;
    for r in store.repairs() {
        eprintln!("warning: {r}");
    }
    Ok(store)
}

/// Runs `items` on `datapath` into `store` (no shards); false if interrupted.
pub(crate) fn run_items_on(
    store: &mut Store,
    items: Vec<scavenger_lab::work::WorkItem>,
    force: bool,
    jobs: Option<usize>,
    datapath: std::sync::Arc<dyn scavenger_lab::datapath::Datapath>,
) -> Result<bool, CliError> {
    let mut exec = executor(jobs);
    exec.datapath = datapath;
    run_items_with(&exec, store, items, force, None)
}

fn run_items(
    store: &mut Store,
    items: Vec<scavenger_lab::work::WorkItem>,
    force: bool,
    jobs: Option<usize>,
    shard: Option<Shard>,
) -> Result<bool, CliError> {
    run_items_with(&executor(jobs), store, items, force, shard)
}

fn run_items_with(
    exec: &LocalExecutor,
    store: &mut Store,
    items: Vec<scavenger_lab::work::WorkItem>,
    force: bool,
    shard: Option<Shard>,
) -> Result<bool, CliError> {
    install_interrupt_handler();
    let items = match shard {
        Some(s) => {
            let all = items.len();
            let mine = s.select(items);
            eprintln!("shard {s}: {} of {all} runs", mine.len());
            mine
        }
        None => items,
    };
    let total = items.len();
    let t0 = std::time::Instant::now();
    match run_into_store(exec, store, items, force)? {
        Ok((ran, skipped)) => {
            eprintln!(
                "{ran} runs in {:.1} s ({skipped} of {total} already in {})",
                t0.elapsed().as_secs_f64(),
                store.dir().display()
            );
            Ok(true)
        }
        Err(i) => {
            eprintln!(
                "interrupted: {} runs stored, {} left; writing the partial report; run the same command again to resume",
                i.completed, i.remaining
            );
            Ok(false)
        }
    }
}

fn reproduce(
    name: &str,
    quick: bool,
    dir: &std::path::Path,
    force: bool,
    jobs: Option<usize>,
    shard: Option<Shard>,
    subset: Option<&str>,
) -> Result<Outcome, CliError> {
    let def = study(name, quick)?;
    let items = reproduce_testbed::chosen_items(name, def.work_items(), subset)?;
    // The lock is held until the report is written: one writer per store.
    let mut store = open_store(dir)?;
    write_meta(
        dir,
        &StoreMeta {
            kind: "study".into(),
            name: name.into(),
            quick,
            plan: None,
            datapath: "sim".into(),
        },
        force,
    )?;
    eprintln!(
        "{}: {} experiments × {} seeds",
        def.title,
        def.experiments.len(),
        def.seeds.len()
    );
    let complete = run_items(&mut store, items, force, jobs, shard)?;
    if let Some(s) = shard {
        return Ok(shard_done(s, dir, complete));
    }
    let r = study_report(&def, dir)?;
    print_rendered(r);
    Ok(Outcome::of(complete))
}

fn sweep(
    plan_path: &std::path::Path,
    dir: &std::path::Path,
    force: bool,
    jobs: Option<usize>,
    shard: Option<Shard>,
) -> Result<Outcome, CliError> {
    let plan = load_plan(plan_path)?;
    let items = plan.expand()?;
    if !force {
        for w in &items {
            w.scenario
                .check_cost()
                .map_err(|source| CliError::TooCostly {
                    file: format!("{}: setting {}", plan_path.display(), w.label),
                    source,
                })?;
        }
    }
    let labels: Vec<String> = plan.combinations().into_iter().map(|c| c.0).collect();
    let abs = std::fs::canonicalize(plan_path).unwrap_or_else(|_| plan_path.to_path_buf());
    let mut store = open_store(dir)?;
    write_meta(
        dir,
        &StoreMeta {
            kind: "sweep".into(),
            name: plan.name.clone(),
            quick: false,
            plan: Some(abs),
            datapath: "sim".into(),
        },
        force,
    )?;
    eprintln!(
        "sweep {}: {} settings × {} seeds",
        plan.name,
        labels.len(),
        plan.seeds.len()
    );
    let complete = run_items(&mut store, items, force, jobs, shard)?;
    if let Some(s) = shard {
        return Ok(shard_done(s, dir, complete));
    }
    let r = sweep_report(&plan.name, dir, &labels)?;
    print!("{}", r.summary);
    Ok(Outcome::of(complete))
}

#[allow(clippy::too_many_arguments)]
fn score(
    algorithm: Option<String>,
    params: &[String],
    all: bool,
    quick: bool,
    cells: &[String],
    seeds: u64,
    out: Option<PathBuf>,
    force: bool,
    jobs: Option<usize>,
) -> Result<Outcome, CliError> {
    use scavenger_lab::score::{report, Plan, Subject, LBE};
    let subjects = match (algorithm, all) {
        (Some(a), false) => vec![Subject::parse(&a, params)?],
        (None, true) if params.is_empty() => LBE
            .iter()
            .map(|a| Subject::parse(a, &[]))
            .collect::<Result<_, _>>()?,
        (None, true) => return Err(ArgError::Invalid("--all takes no parameters".into()).into()),
        _ => {
            return Err(ArgError::Invalid(
                "name an algorithm (scavenger score ledbat) or give --all".into(),
            )
            .into())
        }
    };
    let name = if all {
        "all".to_string()
    } else {
        subjects[0].label()
    };
    let dir = out.unwrap_or_else(|| {
        PathBuf::from("results").join(format!("score-{name}{}", if quick { "-quick" } else { "" }))
    });
    let plan = Plan::new(subjects, quick, cells, seeds)?;
    let items = plan.work_items()?;
    eprintln!(
        "scorecard {name}: {} algorithms × {} cells × {} seeds, {} runs",
        plan.subjects.len(),
        plan.cells.len(),
        plan.seeds,
        items.len()
    );
    // The lock is held until the report is written: one writer per store.
    let mut store = open_store(&dir)?;
    let complete = run_items(&mut store, items, force, jobs, None)?;
    let sc = plan.evaluate(&dir)?;
    for f in report::write(&sc, &dir)? {
        eprintln!("wrote {}", f.display());
    }
    print!("{}", sc.summary());
    Ok(Outcome::of(complete))
}

/// A shard holds part of the runs: its report would be of a part, so there is none.
fn shard_done(s: Shard, dir: &std::path::Path, complete: bool) -> Outcome {
    if complete {
        eprintln!(
            "shard {s} done; when every shard is, join them with `scavenger merge OUT {} ...` and run `scavenger report OUT`",
            dir.display()
        );
        Outcome::Done
    } else {
        Outcome::Interrupted
    }
}

fn report(dir: &std::path::Path) -> Result<Outcome, CliError> {
    let meta_path = dir.join("store.json");
    let text = std::fs::read_to_string(&meta_path).map_err(|e| {
        ArgError::Invalid(format!(
            "{} is not a result store written by `reproduce` or `sweep` ({}: {e})",
            dir.display(),
            meta_path.display()
        ))
    })?;
    let meta: StoreMeta =
        serde_json::from_str(&text).map_err(|e| LabError::NotAStoreDescription {
            path: meta_path.clone(),
            reason: e.to_string(),
            replaceable: false,
        })?;
    // Opening takes the lock (no report while a run writes) and moves damaged lines aside.
    let _store = open_store(dir)?;
    let r = match meta.kind.as_str() {
        "study" if meta.datapath == "testbed" => {
            scavenger_lab::report_testbed::testbed_report(&study(&meta.name, meta.quick)?, dir)?
        }
        "study" => study_report(&study(&meta.name, meta.quick)?, dir)?,
        "sweep" => {
            let plan_path = meta.plan.ok_or_else(|| {
                ArgError::Invalid(format!(
                    "{}: a sweep store must name its plan",
                    meta_path.display()
                ))
            })?;
            let plan = load_plan(&plan_path)?;
            let labels: Vec<String> = plan.combinations().into_iter().map(|c| c.0).collect();
            sweep_report(&plan.name, dir, &labels)?
        }
        other => {
            return Err(ArgError::Invalid(format!(
                "{}: unknown store kind \"{other}\"; allowed: study or sweep",
                meta_path.display()
            ))
            .into())
        }
    };
    print_rendered(r);
    Ok(Outcome::Done)
}
