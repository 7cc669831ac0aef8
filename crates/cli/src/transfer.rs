//! `scavenger send` / `scavenger receive` (docs/transfer.md): argument parsing, signals,
//! progress and the summary. The transfer itself is `scavenger_quic::transfer`.

use crate::error::{ArgError, CliError};
use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use scavenger_cc::units::UnitError;
use scavenger_quic::transfer::{
    self, tls, Congestion, Progress, Stop, TransferError, Transport, DEFAULT_DEADLINE_BASE,
    DEFAULT_DEADLINE_CONTROLLER, DEFAULT_LBE,
};
use scavenger_quic::{ReceiveOptions, SendOptions, SendSummary};

fn parse_size(s: &str) -> Result<u64, UnitError> {
    scavenger_cc::units::parse_bytes(s)
}

/// A `--deadline` that is not a positive duration.
#[derive(Debug, thiserror::Error)]
enum DeadlineError {
    #[error(transparent)]
    Unit(#[from] UnitError),
    #[error("\"{0}\": a deadline must be positive")]
    Zero(String),
}

fn parse_deadline(s: &str) -> Result<Duration, DeadlineError> {
    let d = scavenger_cc::units::parse_duration(s)?;
    if d.nanos() == 0 {
        return Err(DeadlineError::Zero(s.to_string()));
    }
    Ok(Duration::from_nanos(d.nanos()))
}

#[derive(clap::Args)]
pub struct ReceiveArgs {
    /// Address to listen on, UDP (QUIC) and TCP (`send --transport tcp`) on the same port,
    /// e.g. 0.0.0.0:7878 (port 0: any free port, printed).
    #[arg(long)]
    listen: SocketAddr,
    /// Directory the files go to; nothing is written outside it.
    #[arg(long)]
    dir: PathBuf,
    /// Pre-shared token senders must present (visible in `ps`; prefer --token-file).
    #[arg(long, conflicts_with = "token_file")]
    token: Option<String>,
    /// File holding the token (one line).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Largest file accepted (B, KB, MB, GB, KiB, MiB, GiB); free disk space is checked too.
    #[arg(long, default_value = "100GiB", value_parser = parse_size)]
    max_size: u64,
}

#[derive(clap::Args)]
pub struct SendArgs {
    /// Files to send; the receiver stores each under its file name.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The receiver, HOST:PORT.
    #[arg(long)]
    to: String,
    /// Pre-shared token the receiver expects (visible in `ps`; prefer --token-file).
    #[arg(long, conflicts_with = "token_file")]
    token: Option<String>,
    /// File holding the token (one line).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Congestion-control algorithm (`scavenger algorithms`). Default: ledbat-plus-plus
    /// (LBE); with --deadline, the base algorithm of the DA-LBE controller (default cubic).
    /// With --transport tcp: a kernel congestion control (`ledbat-plus-plus` means the
    /// native BPF `scv_ledbatpp`, which `scavenger kernel load` registers).
    #[arg(long)]
    algorithm: Option<String>,
    /// Finish within this time (e.g. 30min, 2h): LBE while on schedule, faster as the
    /// deadline nears (DA-LBE, docs/dalbe.md).
    #[arg(long, value_parser = parse_deadline, conflicts_with = "lbe")]
    deadline: Option<Duration>,
    /// Less-than-best-effort without a deadline (the default).
    #[arg(long)]
    lbe: bool,
    /// DA-LBE metacontroller with --deadline.
    #[arg(long, default_value = DEFAULT_DEADLINE_CONTROLLER, requires = "deadline")]
    controller: String,
    /// Continue from the chunks the receiver already verified.
    #[arg(long)]
    resume: bool,
    /// Print a JSON summary on stdout at the end.
    #[arg(long)]
    json: bool,
    /// SHA-256 fingerprint of the receiver's certificate, as `scavenger receive` prints it.
    /// Without it the first certificate seen at this address is trusted and recorded.
    #[arg(long)]
    fingerprint: Option<String>,
    /// Where trust-on-first-use fingerprints are kept
    /// (default $XDG_CONFIG_HOME/scavenger/known_receivers or ~/.config/...).
    #[arg(long)]
    known_receivers: Option<PathBuf>,
    /// quic (default), or tcp: kernel TCP with a registered BPF algorithm, TLS 1.3 over it
    /// (no --deadline).
    #[arg(long, default_value = "quic")]
    transport: String,
    /// Chunk size (4KiB to 16MiB).
    #[arg(long, default_value = "1MiB", value_parser = parse_size)]
    chunk_size: u64,
}

fn token(token: Option<String>, file: Option<PathBuf>) -> Result<Vec<u8>, CliError> {
    let t = match (token, file) {
        (Some(t), _) => t,
        (None, Some(f)) => std::fs::read_to_string(&f)
            .map_err(CliError::io("read --token-file", &f))?
            .trim_end_matches(['\n', '\r'])
            .to_string(),
        (None, None) => {
            return Err(ArgError::Invalid(
                "a token is required: --token T or --token-file F".into(),
            )
            .into())
        }
    };
    if t.is_empty() || t.len() > transfer::protocol::MAX_TOKEN {
        return Err(ArgError::Invalid(format!(
            "--token of {} bytes; allowed: 1..=1024 bytes",
            t.len()
        ))
        .into());
    }
    Ok(t.into_bytes())
}

/// SIGINT, SIGTERM and SIGHUP trigger `stop` (ctrlc's termination feature).
fn on_signals(stop: &Stop) {
    let s = stop.clone();
    if let Err(e) = ctrlc::set_handler(move || s.trigger()) {
        eprintln!("warning: cannot install the signal handler: {e}");
    }
}

fn fail(e: impl Into<CliError>) -> ExitCode {
    e.into().report()
}

pub fn receive(a: ReceiveArgs) -> ExitCode {
    let token = match token(a.token, a.token_file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let stop = Stop::default();
    on_signals(&stop);
    let opts = ReceiveOptions {
        listen: a.listen,
        dir: a.dir,
        token,
        max_size: a.max_size,
        state_dir: None,
        stop,
        log: Arc::new(|m: &str| eprintln!("{m}")),
    };
    let r = transfer::receive(&opts, |addr, fp| {
        // One line a script (or a test) can read, then the human note.
        print_line(&format!("listening on {addr} fingerprint {fp}"));
        eprintln!("senders pin this receiver with: --fingerprint {fp}");
    });
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn known_receivers_default() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("scavenger").join("known_receivers"))
}

pub fn send(a: SendArgs) -> ExitCode {
    let transport = match Transport::parse(&a.transport) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let token = match token(a.token, a.token_file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let chunk_size = match u32::try_from(a.chunk_size) {
        Ok(c) => c,
        Err(_) => {
            return fail(ArgError::Invalid(format!(
                "--chunk-size {}; allowed: 4KiB..=16MiB",
                a.chunk_size
            )))
        }
    };
    let congestion = match a.deadline {
        Some(deadline) => Congestion::Deadline {
            base: a.algorithm.unwrap_or_else(|| DEFAULT_DEADLINE_BASE.into()),
            controller: a.controller,
            deadline,
        },
        None => Congestion::Algorithm(a.algorithm.unwrap_or_else(|| DEFAULT_LBE.into())),
    };
    let fingerprint = match a.fingerprint.as_deref().map(tls::parse_fingerprint) {
        None => None,
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => return fail(e),
    };
    let stop = Stop::default();
    on_signals(&stop);
    let progress = Arc::new(Progress::default());
    let opts = SendOptions {
        to: a.to,
        token,
        congestion,
        transport,
        resume: a.resume,
        chunk_size,
        fingerprint,
        known_receivers: if fingerprint.is_some() {
            None
        } else {
            a.known_receivers.or_else(known_receivers_default)
        },
        progress: Arc::clone(&progress),
        stop,
        seed: 1,
    };
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let display = {
        let (p, d) = (Arc::clone(&progress), Arc::clone(&done));
        std::thread::spawn(move || show_progress(&p, &d))
    };
    let r = scavenger_quic::send(&a.files, &opts);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = display.join();
    match r {
        Ok(s) => {
            if s.trusted_on_first_use {
                eprintln!(
                    "trusted the receiver's certificate {} on first use",
                    s.fingerprint
                );
            }
            if a.json {
                print_line(&summary_json(&s));
            } else {
                eprintln!(
                    "sent {} file(s), {} bytes in {:.1} s ({:.1} Mbit/s), {}",
                    s.files.len(),
                    s.bytes_sent,
                    s.duration.as_secs_f64(),
                    s.mean_rate_bytes_per_sec() * 8e-6,
                    s.algorithm
                );
                for f in &s.files {
                    eprintln!("  {}  sha256 {}", f.name, f.sha256);
                }
            }
            ExitCode::SUCCESS
        }
        Err(TransferError::Interrupted) => {
            eprintln!("{}", TransferError::Interrupted);
            ExitCode::from(130)
        }
        Err(e) => fail(e),
    }
}

fn summary_json(s: &SendSummary) -> String {
    let files: Vec<_> = s
        .files
        .iter()
        .map(|f| {
            serde_json::json!({
                "name": f.name, "bytes": f.bytes, "sha256": f.sha256, "resumed_from": f.resumed_from,
            })
        })
        .collect();
    serde_json::json!({
        "files": files,
        "bytes": s.bytes_sent,
        "duration_s": s.duration.as_secs_f64(),
        "mean_rate_bytes_per_s": s.mean_rate_bytes_per_sec(),
        "mean_rate_mbit_per_s": s.mean_rate_bytes_per_sec() * 8e-6,
        "algorithm": s.algorithm,
        "transport": s.transport.name(),
        "resumed_from": s.resumed_from(),
        "fingerprint": s.fingerprint,
    })
    .to_string()
}

/// A bar with rate and ETA on a terminal; otherwise a log line every 5 s.
fn show_progress(p: &Progress, done: &std::sync::atomic::AtomicBool) {
    use std::sync::atomic::Ordering::Relaxed;
    let tty = std::io::stderr().is_terminal();
    let bar = tty.then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            )
            .expect("valid template"),
        );
        b
    });
    let start = Instant::now();
    let mut last_log = start;
    while !done.load(Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        let (total, resumed, sent) = p.get();
        if let Some(b) = &bar {
            b.set_length(total);
            b.set_position(resumed + sent);
        } else if last_log.elapsed() >= Duration::from_secs(5) {
            last_log = Instant::now();
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "progress: {} of {} bytes ({:.0} %), {:.1} Mbit/s",
                resumed + sent,
                total,
                100.0 * (resumed + sent) as f64 / total.max(1) as f64,
                sent as f64 * 8e-6 / secs.max(1e-9)
            );
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

/// One line to stdout. A reader that went away (`scavenger send --json | head -c0`) must not
/// turn a finished transfer into a panic: say so on stderr and carry on, the files are in place.
fn print_line(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        eprintln!("warning: cannot write to stdout ({e}); the line was: {line}");
    }
}
