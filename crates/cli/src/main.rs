//! `scavenger`: the one command-line front end.

use clap::{Parser, Subcommand};
use scavenger_cc::{algorithms, ParamKind};
use scavenger_lab::bench::{run_case, CASES};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "scavenger", version, about = "Less-than-best-effort and delay-based congestion control: simulate, compare, reproduce")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file on the simulator.
    Run {
        scenario: PathBuf,
        /// Seed for the run's random number generator (default: the scenario's `seed`, else 1).
        #[arg(long)]
        seed: Option<u64>,
        /// Write record.json (and series.csv when the scenario asks for time series) here.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the JSON result record on stdout instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// List every algorithm with its parameters, defaults, units and sources.
    Algorithms,
    /// Run the simulator speed benchmark (one line per case).
    Bench {
        /// Run only this case (each case runs in its own process so peak memory is per case).
        #[arg(long)]
        case: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run { scenario, seed, out, json } => {
            let sc = match scavenger_lab::load(&scenario) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let rec = scavenger_lab::run_scenario(&sc, seed.unwrap_or(sc.seed));
            if let Some(dir) = out {
                match rec.write_to(&dir) {
                    Ok(files) => {
                        for f in files {
                            eprintln!("wrote {}", f.display());
                        }
                    }
                    Err(e) => {
                        eprintln!("error: cannot write results to {}: {e}", dir.display());
                        return ExitCode::from(1);
                    }
                }
            }
            if json {
                println!("{}", rec.to_json());
            } else {
                print!("{}", rec.table());
            }
            ExitCode::SUCCESS
        }
        Cmd::Algorithms => {
            for a in algorithms() {
                println!("{}{}  —  {}", a.name, if a.aliases.is_empty() { String::new() } else { format!(" (also: {})", a.aliases.join(", ")) }, a.summary);
                println!("    source: {}", a.source);
                if a.params.is_empty() {
                    println!("    no parameters");
                }
                for p in a.params {
                    let unit = if p.unit.is_empty() { String::new() } else { format!(" {}", p.unit) };
                    let range = match p.kind {
                        ParamKind::Bool => String::new(),
                        k => format!("  [{}]", k.describe()),
                    };
                    println!("    {:<22} = {}{}{}", p.name, p.default, unit, range);
                    println!("    {:<22}   {} ({})", "", p.doc, p.source);
                }
                println!();
            }
            ExitCode::SUCCESS
        }
        Cmd::Bench { case } => match case {
            Some(name) => match CASES.iter().find(|c| c.name == name) {
                Some(c) => {
                    println!("{}", run_case(c));
                    ExitCode::SUCCESS
                }
                None => {
                    eprintln!("error: unknown bench case \"{name}\"; cases: {}", CASES.iter().map(|c| c.name).collect::<Vec<_>>().join(", "));
                    ExitCode::from(2)
                }
            },
            None => {
                let exe = match std::env::current_exe() {
                    Ok(e) => e,
                    Err(e) => {
                        eprintln!("error: cannot find this executable to run cases in child processes: {e}");
                        return ExitCode::from(1);
                    }
                };
                for c in CASES {
                    eprintln!("# case {}: {}", c.name, c.about);
                    match std::process::Command::new(&exe).args(["bench", "--case", c.name]).status() {
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
