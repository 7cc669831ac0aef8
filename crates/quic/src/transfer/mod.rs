//! `scavenger send` / `scavenger receive`: a background file transfer over QUIC with our
//! congestion controllers (docs/transfer.md). The library calls are [`send`] and
//! [`receive`]; the CLI is a thin layer over them.
//!
//! - `protocol`: the wire format, with a bound on every length read from the peer;
//! - `store`: the receiver's .part files and their append-only chunk sidecars;
//! - `tls`: the receiver's certificate, the sender's fingerprint check;
//! - `congestion`: LBE (an algorithm by name) or deadline-aware LBE (DA-LBE);
//! - `tcp`: `--transport tcp`, kernel TCP with a registered BPF algorithm;
//! - `send`, `receive`: the two ends.

mod congestion;
pub mod protocol;
mod receive;
mod send;
pub mod store;
pub mod tcp;
pub mod tls;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

pub use congestion::{
    Congestion, ProgressFeed, DEFAULT_DEADLINE_BASE, DEFAULT_DEADLINE_CONTROLLER, DEFAULT_LBE,
};
pub use protocol::Refusal;
pub use receive::{receive, Log, ReceiveOptions};
pub use send::{send, send_async, FileSummary, SendOptions, SendSummary};

/// How the sender reaches the receiver (which listens on both, on the same port).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transport {
    /// QUIC (quinn) with the controller inside the process: any registry algorithm, DA-LBE.
    #[default]
    Quic,
    /// Kernel TCP with a registered BPF congestion control, TLS 1.3 over it (`tcp`).
    Tcp,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Quic => "quic",
            Transport::Tcp => "tcp",
        }
    }

    pub fn parse(s: &str) -> Result<Transport, TransferError> {
        match s {
            "quic" => Ok(Transport::Quic),
            "tcp" => Ok(Transport::Tcp),
            _ => Err(TransferError::BadOption {
                field: "--transport",
                value: s.to_string(),
                allowed: "quic (default) or tcp",
            }),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error("protocol: {field} = {value}; allowed: {allowed}")]
    Protocol {
        field: &'static str,
        value: String,
        allowed: &'static str,
    },
    #[error("{field} = {value}; allowed: {allowed}")]
    BadOption {
        field: &'static str,
        value: String,
        allowed: &'static str,
    },
    #[error("file name \"{name}\" refused: {why}; allowed: one path component inside the receiver's directory, without a leading `.`")]
    BadName { name: String, why: &'static str },
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("stream: {0}")]
    Stream(#[from] std::io::Error),
    #[error("{0} is a symbolic link; the receiver writes only regular files inside its directory")]
    Symlink(PathBuf),
    #[error("{0} exists and is not a regular file")]
    NotAFile(PathBuf),
    #[error("{0} already exists; the receiver never replaces a file")]
    Exists(PathBuf),
    #[error("another transfer of \"{0}\" is in progress")]
    Busy(String),
    #[error("chunk #{index} does not match its SHA-256")]
    ChunkHash { index: u64 },
    #[error(
        "\"{name}\": the whole-file SHA-256 does not match; the partial file is kept for --resume"
    )]
    FileHash { name: String },
    #[error("\"{name}\": size {size} bytes exceeds {limit_name} = {limit} bytes")]
    TooBig {
        name: String,
        size: u64,
        limit_name: &'static str,
        limit: u64,
    },
    #[error("the receiver refused ({code:?}): {message}")]
    Refused { code: Refusal, message: String },
    #[error("TLS: {0}")]
    Tls(String),
    #[error("the receiver's certificate fingerprint is {seen}, but --fingerprint pins {pinned}")]
    FingerprintMismatch { pinned: String, seen: String },
    #[error("the receiver at {address} shows certificate {seen}, but {file} records {known} for it; remove that line if the receiver's certificate was replaced on purpose")]
    FingerprintChanged {
        address: String,
        known: String,
        seen: String,
        file: PathBuf,
    },
    #[error("connection: {0}")]
    Connection(String),
    /// `--transport tcp`: no usable kernel congestion control (the message says why).
    #[error("{0}")]
    Kernel(String),
    #[error(transparent)]
    Algorithm(#[from] crate::FactoryError),
    #[error("interrupted; the partial file stays on the receiver and --resume continues it")]
    Interrupted,
}

/// A stop request shared with a signal handler: `trigger` from any thread.
#[derive(Clone)]
pub struct Stop {
    tx: std::sync::Arc<tokio::sync::watch::Sender<bool>>,
}

impl Default for Stop {
    fn default() -> Self {
        Stop {
            tx: std::sync::Arc::new(tokio::sync::watch::channel(false).0),
        }
    }
}

impl Stop {
    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    pub fn is_set(&self) -> bool {
        *self.tx.borrow()
    }

    /// Resolves once `trigger` was called.
    pub async fn wait(&self) {
        let mut rx = self.tx.subscribe();
        let _ = rx.wait_for(|s| *s).await;
    }
}

/// Counters a progress display reads while a transfer runs.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes of all files.
    pub total: AtomicU64,
    /// Bytes the receiver had already verified (resume).
    pub resumed: AtomicU64,
    /// Bytes handed to QUIC in this run.
    pub sent: AtomicU64,
}

impl Progress {
    pub fn get(&self) -> (u64, u64, u64) {
        (
            self.total.load(Ordering::Relaxed),
            self.resumed.load(Ordering::Relaxed),
            self.sent.load(Ordering::Relaxed),
        )
    }
}

/// QUIC transport settings both ends use: windows large enough for ~1 Gbit/s at a few
/// tens of ms, bounded so that one connection holds at most ~48 MiB of peer data.
/// The runtime `send` and `receive` block on: two workers (one transfer, its timers).
fn runtime() -> Result<tokio::runtime::Runtime, TransferError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| TransferError::Io {
            what: "starting the tokio runtime".into(),
            source: e,
        })
}

fn transport(cfg: &mut quinn::TransportConfig) {
    cfg.stream_receive_window(quinn::VarInt::from_u32(16 << 20));
    cfg.receive_window(quinn::VarInt::from_u32(32 << 20));
    cfg.send_window(32 << 20);
    cfg.max_concurrent_bidi_streams(quinn::VarInt::from_u32(2));
    cfg.max_concurrent_uni_streams(quinn::VarInt::from_u32(0));
    cfg.max_idle_timeout(Some(
        quinn::IdleTimeout::try_from(std::time::Duration::from_secs(30)).expect("30 s fits"),
    ));
    cfg.keep_alive_interval(Some(std::time::Duration::from_secs(5)));
}
