//! The `scavenger testbed ...` subcommands (wired into crates/cli).

use crate::{bench, doctor, emulator, netns, run};
use clap::Subcommand;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum TestbedCmd {
    /// Run a scenario with real kernel TCP flows through the link emulator (root).
    Run {
        /// The scenario file (TOML, as for `scavenger run`).
        scenario: PathBuf,
        /// Seed for the emulator's loss/AQM draws (default: the scenario's `seed`).
        #[arg(long)]
        seed: Option<u64>,
        /// Output directory: record.json, series.csv and the emulator's mahimahi logs go
        /// here.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print the JSON result record instead of the table.
        #[arg(long)]
        json: bool,
        /// Do not ask for SCHED_FIFO for the emulator thread.
        #[arg(long)]
        no_realtime: bool,
        /// Run our algorithms through the scv_shim agent even where a native BPF version
        /// exists (ledbat, yield, ledbat-plus-plus, ebb), to compare the two datapaths.
        #[arg(long)]
        shim: bool,
    },
    /// Check what the testbed needs (root, namespaces, TUN, veth, ethtool, congestion controls).
    Doctor,
    /// Remove what runs that no longer exist (e.g. killed with SIGKILL) left: namespaces,
    /// BPF registrations and pins; report orphaned sockets. Never touches a running
    /// process's, nor a `kernel load`ed registration.
    Clean,
    /// Measure the emulator: forwarding throughput with no delay, and delay error at 100 Mbit/s, 50 ms
    /// (offered 95 and 50 Mbit/s).
    Bench {
        /// How long each measurement runs, with a unit (e.g. 5s). Was `--secs N`.
        #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = scavenger_cc::units::parse_duration, alias = "secs")]
        duration: scavenger_cc::Dur,
    },
}

pub fn run(cmd: TestbedCmd) -> ExitCode {
    match cmd {
        TestbedCmd::Run {
            scenario,
            seed,
            out,
            json,
            no_realtime,
            shim,
        } => {
            let sc = match scavenger_lab::load(&scenario) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            netns::install_signal_handlers();
            let opts = run::RunOptions {
                seed: seed.unwrap_or(sc.seed),
                realtime: !no_realtime,
                log_limit: if out.is_some() { 8 << 20 } else { 0 },
                shim,
            };
            let r = match run::run_scenario(&sc, &opts) {
                Ok(r) => r,
                Err(_) if netns::stop_requested() => {
                    eprintln!("interrupted; the testbed was torn down");
                    return ExitCode::from(130);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(1);
                }
            };
            if let Some(dir) = out {
                let mut files = match r.record.write_to(&dir) {
                    Ok(f) => f,
                    Err(e) => {
                        eprintln!("error: cannot write results to {}: {e}", dir.display());
                        return ExitCode::from(1);
                    }
                };
                for (i, name) in ["forward", "reverse"].iter().enumerate() {
                    let p = dir.join(format!("{name}.mahimahi.log"));
                    let w = std::fs::File::create(&p)
                        .map(std::io::BufWriter::new)
                        .and_then(|mut w| {
                            emulator::write_mahimahi(&r.emulator.logs[i], &mut w)
                                .and_then(|_| std::io::Write::flush(&mut w))
                        });
                    if let Err(e) = w {
                        eprintln!("error: cannot write {}: {e}", p.display());
                        return ExitCode::from(1);
                    }
                    files.push(p);
                }
                for f in files {
                    eprintln!("wrote {}", f.display());
                }
            }
            if json {
                println!("{}", r.record.to_json());
            } else {
                print!("{}", r.record.table());
            }
            ExitCode::SUCCESS
        }
        TestbedCmd::Doctor => {
            let checks = doctor::run_checks();
            for c in &checks {
                println!(
                    "{:<4} {:<20} {}",
                    if c.ok { "ok" } else { "FAIL" },
                    c.name,
                    c.detail
                );
            }
            if checks.iter().all(|c| c.ok) {
                println!("the testbed can run here");
                ExitCode::SUCCESS
            } else {
                println!("the testbed cannot run here until the FAIL lines are fixed");
                ExitCode::from(1)
            }
        }
        TestbedCmd::Clean => match doctor::clean() {
            Ok(c) => {
                for n in &c.namespaces {
                    println!("deleted namespace {n}");
                }
                for r in &c.kernel.removed {
                    println!("unregistered {r}");
                }
                for r in &c.kernel.kept {
                    println!("left alone: {r}");
                }
                if c.namespaces.is_empty() && c.kernel.removed.is_empty() {
                    println!("nothing to clean");
                }
                println!("{}", c.after.describe_orphans());
                if c.kernel.errors.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    for e in &c.kernel.errors {
                        eprintln!("error: {e}");
                    }
                    ExitCode::from(1)
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
        TestbedCmd::Bench { duration } => {
            let secs = duration.secs_f64();
            netns::install_signal_handlers();
            let cases = [
                (
                    scavenger_cc::Rate::from_mbps(100_000),
                    scavenger_cc::Dur::ZERO,
                    0u64,
                ),
                (
                    scavenger_cc::Rate::from_mbps(100),
                    scavenger_cc::Dur::from_millis(50),
                    95_000_000u64,
                ),
                (
                    scavenger_cc::Rate::from_mbps(100),
                    scavenger_cc::Dur::from_millis(50),
                    50_000_000u64,
                ),
            ];
            let (pps, gbps) = bench::core_throughput(2_000_000);
            println!(
                "emulator core alone (no TUN): {:.2} Mpackets/s of 1500 bytes = {gbps:.1} Gbit/s",
                pps / 1e6
            );
            for (rate, delay, pace) in cases {
                match bench::blast(rate, delay, pace, secs) {
                    Ok(r) => println!("{r}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(1);
                    }
                }
            }
            ExitCode::SUCCESS
        }
    }
}
