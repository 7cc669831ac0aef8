//! `scavenger bench --cpu`: the flags and the output of the CPU-cost benchmark; the
//! measurement is crates/testbed/src/cpu_bench.rs.

use crate::error::{ArgError, CliError};
use scavenger_cc::units::{parse_bytes, parse_rate};
use scavenger_testbed::cpu_bench::{self, CpuBenchConfig};
use std::process::ExitCode;

#[derive(clap::Args, Debug, Clone)]
pub struct CpuArgs {
    /// Measure the CPU cost per transferred gigabyte of each congestion control on
    /// kernel TCP (and QUIC) over a rate-limited veth path (root; docs/performance.md).
    #[arg(long)]
    pub cpu: bool,
    /// With --cpu: bottleneck rates, comma-separated.
    #[arg(long, default_value = "1Gbit,10Gbit", requires = "cpu")]
    pub rates: String,
    /// With --cpu: repetitions of every case (medians are printed).
    #[arg(long, default_value_t = 5, requires = "cpu")]
    pub reps: usize,
    /// With --cpu: how long each kernel-TCP run sends (a duration with its unit, e.g. 2s).
    #[arg(long, value_name = "DURATION", default_value = "2s", requires = "cpu", value_parser = scavenger_cc::units::parse_duration, alias = "secs")]
    pub duration: scavenger_cc::units::Dur,
    /// With --cpu: size of the file each QUIC run sends.
    #[arg(long, default_value = "200MB", requires = "cpu")]
    pub quic_bytes: String,
    /// With --cpu: only the cases whose name contains one of these (comma-separated,
    /// e.g. cubic,shim,quic).
    #[arg(long, requires = "cpu")]
    pub only: Option<String>,
}

fn config(a: &CpuArgs) -> Result<CpuBenchConfig, ArgError> {
    let rates_bps = a
        .rates
        .split(',')
        .map(|r| {
            parse_rate(r.trim())
                .map(|x| x.bps())
                .map_err(|e| ArgError::Invalid(format!("--rates {r:?}: {e}")))
        })
        .collect::<Result<Vec<u64>, ArgError>>()?;
    if rates_bps.iter().any(|&r| r < 1_000_000) {
        return Err(ArgError::Invalid(format!(
            "--rates {}: each rate must be at least 1Mbit",
            a.rates
        )));
    }
    if a.reps == 0 {
        return Err(ArgError::Invalid("--reps 0: at least 1 repetition".into()));
    }
    let secs = a.duration.nanos() as f64 / 1e9;
    if !(secs > 0.0 && secs <= 600.0) {
        return Err(ArgError::Invalid(format!(
            "--duration {secs}s: allowed more than 0 s and at most 600 s"
        )));
    }
    let quic_bytes = parse_bytes(&a.quic_bytes)
        .map_err(|e| ArgError::Invalid(format!("--quic-bytes {}: {e}", a.quic_bytes)))?;
    if quic_bytes == 0 {
        return Err(ArgError::Invalid(
            "--quic-bytes 0: send at least one byte".into(),
        ));
    }
    Ok(CpuBenchConfig {
        rates_bps,
        secs,
        reps: a.reps,
        scavenger_exe: std::env::current_exe().ok(),
        quic_bytes,
        only: a
            .only
            .as_deref()
            .map(|o| o.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default(),
    })
}

pub fn run(a: &CpuArgs) -> ExitCode {
    crate::error::exit(go(a))
}

fn go(a: &CpuArgs) -> Result<ExitCode, CliError> {
    let cfg = config(a)?;
    println!(
        "# bench --cpu: kernel {}, {} logical CPUs, load average {} at start; {} s per TCP run, {} reps, medians",
        kernel_release(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_bench::load_average(),
        cfg.secs,
        cfg.reps
    );
    cpu_bench::run(&cfg, &mut |r| println!("{}", r.line()))?;
    println!("# load average {} at the end", cpu_bench::load_average());
    Ok(ExitCode::SUCCESS)
}

fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}
