//! The command's one error type. Every subcommand returns `Result<_, CliError>`; `main`
//! prints the message once ("error: ...") and exits with the status of its class:
//!
//! - 2, usage: a flag, argument or input file that is not allowed (the message names the
//!   field, the value and what is allowed). Nothing ran, or nothing that matters was lost.
//! - 1, run failure: the input was fine but running it failed (I/O, the network, the
//!   testbed, a datapath).
//!
//! 130 (interrupted) is not an error: commands return it as their outcome. docs/cli.md
//! lists the statuses.

use scavenger_lab::error::{LabError, TooCostly, UnknownStudy};
use scavenger_lab::{DatapathError, InputError};
use std::process::ExitCode;

/// Exit status of a usage error (bad flag, argument or input file).
pub const EXIT_USAGE: u8 = 2;
/// Exit status of a run that failed on good input.
pub const EXIT_FAILURE: u8 = 1;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    // ---- usage (exit 2) ----
    /// A flag or argument the layers below do not check (combinations, ranges).
    #[error(transparent)]
    Arg(#[from] ArgError),
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    UnknownStudy(#[from] UnknownStudy),
    /// A scenario past the cost bound, without --force.
    #[error("{file}: {source}; pass --force to run it anyway")]
    TooCostly {
        file: String,
        #[source]
        source: TooCostly,
    },
    #[error(transparent)]
    Url(#[from] scavenger_testbed::census::probe::UrlError),
    #[error(transparent)]
    ProbeConfig(#[from] scavenger_testbed::census::receiver::ConfigError),
    #[error(transparent)]
    UnknownLink(#[from] scavenger_testbed::census::eval::UnknownLink),
    /// The scorecard's subjects and cells (crates/lab/src/score still reports text).
    #[error("{0}")]
    Score(String),

    // ---- run failure (exit 1), or usage where the wrapped error says so ----
    /// The result store and what reads it; its input errors are usage errors.
    #[error(transparent)]
    Lab(#[from] LabError),
    #[error(transparent)]
    Datapath(#[from] DatapathError),
    #[error(transparent)]
    Export(#[from] scavenger_export::ExportError),
    /// TLS trust for the census (a bad --pin is a usage error).
    #[error(transparent)]
    Session(#[from] scavenger_testbed::census::session::SessionError),
    #[error(transparent)]
    Testbed(#[from] scavenger_testbed::error::TestbedError),
    #[error(transparent)]
    CpuBench(#[from] scavenger_testbed::cpu_bench::CpuBenchError),
    /// `send`/`receive` (a bad --fingerprint or --transport is a usage error).
    #[error(transparent)]
    Transfer(#[from] scavenger_quic::transfer::TransferError),
    #[error("cannot write to stdout: {0}")]
    Stdout(#[source] std::io::Error),
    /// `plot`: its input errors (not a record, no series) are usage errors.
    #[error(transparent)]
    Plot(#[from] crate::plot::PlotError),
    /// A capture (`run --pcap`) that could not be made.
    #[error("{0}")]
    Output(String),
    /// The scorecard's evaluation or report (crates/lab/src/score still reports text).
    #[error("{0}")]
    ScoreRun(String),
}

/// A flag or argument that is not allowed: each names the flag, the value and what is.
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    #[error("\"{0}\" is a file; --out names an output directory (the files inside it are named by the command)")]
    OutIsFile(String),
    #[error("\"{0}\" is not a whole number of parallel runs")]
    JobsNotANumber(String),
    #[error("must be at least 1 (the number of runs at a time)")]
    NoJobs,
    #[error("unknown bench case \"{name}\"; cases: {known}")]
    UnknownBenchCase { name: String, known: String },
    /// A flag out of its range or a combination of flags that is not allowed; the text
    /// names the flag, the value and what is allowed.
    #[error("{0}")]
    Invalid(String),
}

impl CliError {
    /// `map_err` for an I/O error on `path`; `action` is the verb ("read", "write"). The
    /// lab's `LabError::Io`, so that one variant says "cannot {action} {path}" for the
    /// store and the command alike (a run failure, exit 1).
    pub fn io(action: &'static str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self {
        let io = LabError::io(action, path);
        move |source| CliError::Lab(io(source))
    }

    /// Whether the user's input is at fault (exit 2) rather than the run (exit 1).
    pub fn is_usage(&self) -> bool {
        use scavenger_quic::transfer::TransferError as T;
        use scavenger_testbed::census::session::SessionError as S;
        match self {
            CliError::Arg(_)
            | CliError::Input(_)
            | CliError::UnknownStudy(_)
            | CliError::TooCostly { .. }
            | CliError::Url(_)
            | CliError::ProbeConfig(_)
            | CliError::UnknownLink(_)
            | CliError::Score(_) => true,
            CliError::Lab(e) => !matches!(
                e,
                LabError::Io { .. }
                    | LabError::StoreInUse { .. }
                    | LabError::NotItsRecord { .. }
                    | LabError::Datapath(_)
            ),
            CliError::Session(e) => matches!(e, S::BadPin { .. }),
            CliError::Plot(e) => e.is_usage(),
            CliError::Transfer(e) => matches!(e, T::BadOption { .. } | T::Algorithm(_)),
            CliError::Datapath(_)
            | CliError::Export(_)
            | CliError::Testbed(_)
            | CliError::CpuBench(_)
            | CliError::Stdout(_)
            | CliError::Output(_)
            | CliError::ScoreRun(_) => false,
        }
    }

    /// Prints the message and gives the exit status of its class.
    pub fn report(&self) -> ExitCode {
        eprintln!("error: {self}");
        ExitCode::from(if self.is_usage() {
            EXIT_USAGE
        } else {
            EXIT_FAILURE
        })
    }
}

/// The exit status of a command's result: its own status, or its error's.
pub fn exit(r: Result<ExitCode, CliError>) -> ExitCode {
    r.unwrap_or_else(|e| e.report())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_exit_2_and_run_failures_exit_1() {
        let usage = CliError::Arg(ArgError::NoJobs);
        assert!(usage.is_usage());
        let failure =
            CliError::io("write", std::path::Path::new("/x"))(std::io::Error::other("disk full"));
        assert!(!failure.is_usage());
        assert_eq!(failure.to_string(), "cannot write /x: disk full");
        // A result store that is of another study is the user's choice of --out: usage.
        let other = CliError::Lab(LabError::OtherStore {
            dir: "/r".into(),
            held: "sweep a".into(),
            wanted: "study b".into(),
        });
        assert!(other.is_usage());
        let in_use = CliError::Lab(LabError::StoreInUse {
            dir: "/r".into(),
            holder: None,
        });
        assert!(!in_use.is_usage());
        // plot: a record without series is the user's input; a capture that cannot be
        // read is not.
        assert!(CliError::Plot(crate::plot::PlotError::NoSeries).is_usage());
        let capture = crate::plot::PlotError::Capture {
            path: "/c".into(),
            why: crate::plot::CaptureError::Truncated,
        };
        assert!(!CliError::Plot(capture).is_usage());
    }
}
