//! The sending end: one QUIC connection, the token on the first stream, then one stream
//! per file from the receiver's resume point. Over TCP (`--transport tcp`): one TLS
//! stream on a kernel TCP socket with a BPF congestion control, the same messages one
//! after another. A reader thread reads and hashes the file
//! ahead of the network (chunk hashes and the whole-file hash), so hashing overlaps
//! with QUIC's encryption.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::protocol::{self, hex, sha256, FileHeader, Hash, Hello, Reply, DEFAULT_CHUNK};
use super::{
    store, tcp, tls, transport, Congestion, Progress, ProgressFeed, Stop, TransferError, Transport,
};

pub struct SendOptions {
    /// `HOST:PORT` of the receiver.
    pub to: String,
    pub token: Vec<u8>,
    pub congestion: Congestion,
    /// QUIC (default) or kernel TCP with a registered BPF algorithm.
    pub transport: Transport,
    /// Continue from the receiver's verified chunks instead of starting over.
    pub resume: bool,
    pub chunk_size: u32,
    /// Pinned SHA-256 of the receiver's certificate. Without it: trust on first use
    /// through `known_receivers`, or no identity check at all when that is `None`.
    pub fingerprint: Option<Hash>,
    pub known_receivers: Option<PathBuf>,
    pub progress: Arc<Progress>,
    pub stop: Stop,
    /// RNG seed of the congestion controller (randomised algorithms).
    pub seed: u64,
}

impl SendOptions {
    pub fn new(to: impl Into<String>, token: impl Into<Vec<u8>>) -> SendOptions {
        SendOptions {
            to: to.into(),
            token: token.into(),
            congestion: Congestion::default(),
            transport: Transport::Quic,
            resume: false,
            chunk_size: DEFAULT_CHUNK,
            fingerprint: None,
            known_receivers: None,
            progress: Arc::default(),
            stop: Stop::default(),
            seed: 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FileSummary {
    pub name: String,
    /// File size.
    pub bytes: u64,
    /// SHA-256 of the whole file, hex, as the receiver confirmed it.
    pub sha256: String,
    /// Bytes the receiver already held verified (0 without resume).
    pub resumed_from: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SendSummary {
    pub files: Vec<FileSummary>,
    /// File bytes sent in this run (sizes minus resumed prefixes).
    pub bytes_sent: u64,
    pub duration: Duration,
    /// The controller: algorithm name, or `controller(base)` with a deadline; over TCP the
    /// kernel's name as getsockopt(TCP_CONGESTION) reported it after connect.
    pub algorithm: String,
    pub transport: Transport,
    pub fingerprint: String,
    /// True when the receiver's certificate was recorded on this first use.
    pub trusted_on_first_use: bool,
}

impl SendSummary {
    pub fn resumed_from(&self) -> u64 {
        self.files.iter().map(|f| f.resumed_from).sum()
    }

    /// Mean rate of this run's file bytes, bytes per second.
    pub fn mean_rate_bytes_per_sec(&self) -> f64 {
        self.bytes_sent as f64 / self.duration.as_secs_f64().max(1e-9)
    }
}

/// Sends `paths` to the receiver in `opts.to`. Blocks; runs its own tokio runtime.
pub fn send<P: AsRef<Path>>(paths: &[P], opts: &SendOptions) -> Result<SendSummary, TransferError> {
    let rt = super::runtime()?;
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    rt.block_on(send_async(&paths, opts))
}

struct Source {
    path: PathBuf,
    name: String,
    size: u64,
}

fn sources(paths: &[PathBuf]) -> Result<Vec<Source>, TransferError> {
    let mut names = BTreeSet::new();
    let mut out = Vec::new();
    for path in paths {
        let md = std::fs::metadata(path).map_err(|e| TransferError::Io {
            what: format!("stat {}", path.display()),
            source: e,
        })?;
        if !md.is_file() {
            return Err(TransferError::NotAFile(path.clone()));
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| TransferError::BadName {
                name: path.display().to_string(),
                why: "not UTF-8 text",
            })?
            .to_string();
        store::check_name(&name)?;
        if !names.insert(name.clone()) {
            return Err(TransferError::BadOption {
                field: "FILE",
                value: name,
                allowed: "distinct file names (the receiver keeps only the name)",
            });
        }
        out.push(Source {
            path: path.clone(),
            name,
            size: md.len(),
        });
    }
    Ok(out)
}

pub async fn send_async(
    paths: &[PathBuf],
    opts: &SendOptions,
) -> Result<SendSummary, TransferError> {
    if !(protocol::MIN_CHUNK..=protocol::MAX_CHUNK).contains(&opts.chunk_size) {
        return Err(TransferError::BadOption {
            field: "chunk size",
            value: opts.chunk_size.to_string(),
            allowed: "4096..=16777216 bytes",
        });
    }
    if opts.token.is_empty() || opts.token.len() > protocol::MAX_TOKEN {
        return Err(TransferError::BadOption {
            field: "--token",
            value: format!("{} bytes", opts.token.len()),
            allowed: "1..=1024 bytes",
        });
    }
    let files = sources(paths)?;
    let total: u64 = files.iter().map(|f| f.size).sum();
    opts.progress.total.store(total, Ordering::Relaxed);

    let addr: SocketAddr = opts
        .to
        .to_socket_addrs()
        .map_err(|e| TransferError::BadOption {
            field: "--to",
            value: format!("{} ({e})", opts.to),
            allowed: "HOST:PORT of a receiver",
        })?
        .next()
        .ok_or_else(|| TransferError::BadOption {
            field: "--to",
            value: opts.to.clone(),
            allowed: "HOST:PORT that resolves to an address",
        })?;

    match opts.transport {
        Transport::Quic => send_quic(addr, &files, total, opts).await,
        Transport::Tcp => send_tcp(addr, &files, opts).await,
    }
}

async fn send_quic(
    addr: SocketAddr,
    files: &[Source],
    total: u64,
    opts: &SendOptions,
) -> Result<SendSummary, TransferError> {
    let mut transport_cfg = quinn::TransportConfig::default();
    transport(&mut transport_cfg);
    let (factory, feed) = opts.congestion.factory_fed(total, opts.seed)?;
    transport_cfg.congestion_controller_factory(factory);
    transport_cfg.ack_frequency_config(Some(crate::ack_frequency::prompt_acks()));
    let mut client_cfg = quinn::ClientConfig::new(Arc::new(tls::client_config()?));
    client_cfg.transport_config(Arc::new(transport_cfg));
    let bind: SocketAddr = if addr.is_ipv4() {
        "0.0.0.0:0".parse().expect("literal")
    } else {
        "[::]:0".parse().expect("literal")
    };
    let mut endpoint = quinn::Endpoint::client(bind).map_err(|e| TransferError::Io {
        what: format!("binding a UDP socket on {bind}"),
        source: e,
    })?;
    endpoint.set_default_client_config(client_cfg);

    let start = Instant::now();
    let work = async {
        let conn = endpoint
            .connect(addr, tls::SERVER_NAME)
            .map_err(|e| TransferError::Connection(format!("{addr}: {e}")))?
            .await
            .map_err(|e| TransferError::Connection(format!("{addr}: {e}")))?;
        let mut feeder = feed.map(|feed| Feeder {
            feed,
            conn: &conn,
            total,
            resumed: 0,
            confirmed: 0,
        });
        let r = session(&conn, files, opts, start, &mut feeder).await;
        match &r {
            Ok(_) => conn.close(0u32.into(), b"done"),
            Err(e) => conn.close(1u32.into(), e.to_string().as_bytes()),
        }
        r
    };
    let r = tokio::select! {
        r = work => r,
        _ = opts.stop.wait() => Err(TransferError::Interrupted),
    };
    if matches!(r, Err(TransferError::Interrupted)) {
        endpoint.close(2u32.into(), b"interrupted");
    }
    // Let the close reach the receiver; bounded, a gone peer does not hold us.
    let _ = tokio::time::timeout(Duration::from_secs(2), endpoint.wait_idle()).await;
    r
}

/// `--transport tcp`: the algorithm is checked before anything is sent (kernel
/// registration, then TCP_CONGESTION before connect and getsockopt after), then TLS 1.3,
/// the identity check, and the same messages as over QUIC on the one stream.
async fn send_tcp(
    addr: SocketAddr,
    files: &[Source],
    opts: &SendOptions,
) -> Result<SendSummary, TransferError> {
    let algorithm = tcp::kernel_algorithm(&opts.congestion)?;
    let start = Instant::now();
    let work = async {
        let sock = tcp::connect(addr, &algorithm).await?;
        let name = rustls::pki_types::ServerName::try_from(tls::SERVER_NAME)
            .map_err(|e| TransferError::Tls(e.to_string()))?;
        let stream = tls::tcp_connector()?
            .connect(name, sock)
            .await
            .map_err(|e| TransferError::Connection(format!("{addr} (TLS over TCP): {e}")))?;
        let seen = tls::peer_fingerprint(stream.get_ref().1.peer_certificates())?;
        let first_use = check_identity(opts, &seen)?;
        let (mut r, mut w) = tokio::io::split(stream);
        hello(&mut w, &mut r, opts).await?;
        let mut out = Vec::new();
        for f in files {
            out.push(send_file(&mut w, &mut r, f, opts, &mut None).await?);
        }
        // close_notify and FIN: the receiver reads the end where the next header would be.
        let _ = w.shutdown().await;
        Ok(summary(
            out,
            start,
            algorithm.clone(),
            Transport::Tcp,
            seen,
            first_use,
        ))
    };
    tokio::select! {
        r = work => r,
        _ = opts.stop.wait() => Err(TransferError::Interrupted),
    }
}

fn summary(
    files: Vec<FileSummary>,
    start: Instant,
    algorithm: String,
    transport: Transport,
    fingerprint: String,
    trusted_on_first_use: bool,
) -> SendSummary {
    let bytes_sent = files.iter().map(|f| f.bytes - f.resumed_from).sum();
    SendSummary {
        files,
        bytes_sent,
        duration: start.elapsed(),
        algorithm,
        transport,
        fingerprint,
        trusted_on_first_use,
    }
}

/// Identity first: nothing secret is sent to a receiver we do not trust. Returns whether
/// the receiver was trusted on this first use.
fn check_identity(opts: &SendOptions, seen: &str) -> Result<bool, TransferError> {
    if let Some(pin) = &opts.fingerprint {
        if hex(pin) != seen {
            return Err(TransferError::FingerprintMismatch {
                pinned: hex(pin),
                seen: seen.to_string(),
            });
        }
    } else if let Some(file) = &opts.known_receivers {
        return tls::trust_on_first_use(file, &opts.to, seen);
    }
    Ok(false)
}

/// The token, and the receiver's answer to it.
async fn hello<W: AsyncWrite + Unpin, R: AsyncRead + Unpin>(
    w: &mut W,
    r: &mut R,
    opts: &SendOptions,
) -> Result<(), TransferError> {
    protocol::write_hello(
        w,
        &Hello {
            token: opts.token.clone(),
        },
    )
    .await?;
    if let Reply::Refused { code, message } = protocol::read_reply(r).await? {
        return Err(TransferError::Refused { code, message });
    }
    Ok(())
}

async fn session(
    conn: &quinn::Connection,
    files: &[Source],
    opts: &SendOptions,
    start: Instant,
    feeder: &mut Option<Feeder<'_>>,
) -> Result<SendSummary, TransferError> {
    let seen = tls::peer_fingerprint(
        conn.peer_identity()
            .and_then(|i| {
                i.downcast::<Vec<rustls::pki_types::CertificateDer<'static>>>()
                    .ok()
            })
            .as_deref()
            .map(|v| v.as_slice()),
    )?;
    let first_use = check_identity(opts, &seen)?;

    let (mut s, mut r) = conn
        .open_bi()
        .await
        .map_err(|e| TransferError::Connection(e.to_string()))?;
    hello(&mut s, &mut r, opts).await?;
    let _ = s.finish();

    let mut out = Vec::new();
    for f in files {
        let (mut s, mut r) = conn
            .open_bi()
            .await
            .map_err(|e| TransferError::Connection(e.to_string()))?;
        out.push(send_file(&mut s, &mut r, f, opts, feeder).await?);
    }
    Ok(summary(
        out,
        start,
        opts.congestion.label(),
        Transport::Quic,
        seen,
        first_use,
    ))
}

/// The sender's side of the DA-LBE progress feed (with `--deadline`, QUIC): the goal
/// less each resumed prefix as its reply arrives, file bytes handed to quinn with
/// quinn's lost-byte count, and each file the receiver confirmed.
struct Feeder<'a> {
    feed: Arc<ProgressFeed>,
    conn: &'a quinn::Connection,
    total: u64,
    resumed: u64,
    confirmed: u64,
}

impl Feeder<'_> {
    fn resumed(&mut self, bytes: u64) {
        self.resumed += bytes;
        self.feed.set_goal(self.total.saturating_sub(self.resumed));
    }
    fn wrote(&self, bytes: u64) {
        self.feed.add_written(bytes);
        self.feed.set_lost(self.conn.stats().path.lost_bytes);
    }
    fn confirmed(&mut self, bytes: u64) {
        self.confirmed += bytes;
        self.feed.set_confirmed(self.confirmed);
    }
}

/// Where a file's chunks go: a QUIC stream takes each chunk's buffer as it is
/// (`write_chunk`, no copy), any other stream (TLS over TCP) copies it.
trait ChunkSink: AsyncWrite + Unpin {
    async fn put(&mut self, data: Vec<u8>) -> Result<(), TransferError>;
    /// The file's data is complete: a QUIC stream finishes (its end is part of the
    /// protocol), the TCP stream goes on with the next file.
    fn end_of_file(&mut self);
}

impl ChunkSink for quinn::SendStream {
    async fn put(&mut self, data: Vec<u8>) -> Result<(), TransferError> {
        self.write_chunk(bytes::Bytes::from(data))
            .await
            .map_err(|e| TransferError::Connection(e.to_string()))
    }
    fn end_of_file(&mut self) {
        let _ = self.finish();
    }
}

impl<T: AsyncRead + AsyncWrite> ChunkSink for tokio::io::WriteHalf<T> {
    async fn put(&mut self, data: Vec<u8>) -> Result<(), TransferError> {
        self.write_all(&data)
            .await
            .map_err(|e| TransferError::Connection(e.to_string()))
    }
    fn end_of_file(&mut self) {}
}

/// One chunk from the reader thread: data and its hash, or (after the last chunk) the
/// whole-file hash.
enum Piece {
    Chunk(Vec<u8>, Hash),
    End(Hash),
}

/// Reads `path` from chunk `from` on, hashing the skipped prefix for the whole-file
/// hash first. Runs on its own thread.
fn reader(
    path: PathBuf,
    header: FileHeader,
    from: u64,
    tx: mpsc::Sender<Result<Piece, TransferError>>,
) {
    let io = |what: &str, e: std::io::Error| TransferError::Io {
        what: format!("{what} {}", path.display()),
        source: e,
    };
    let run = || -> Result<(), TransferError> {
        let mut f = File::open(&path).map_err(|e| io("open", e))?;
        let mut whole = Sha256::new();
        let mut skip = Vec::new();
        for i in 0..header.chunks() {
            let len = header.chunk_len(i);
            // A chunk to send is read into its own buffer, which goes to quinn as it is
            // (`write_chunk`): no copy on the way (docs/performance.md, `scavenger send`).
            // `read_to_end` into spare capacity does not zero it first.
            let mut buf = if i >= from {
                Vec::with_capacity(len)
            } else {
                std::mem::take(&mut skip)
            };
            buf.clear();
            (&mut f)
                .take(len as u64)
                .read_to_end(&mut buf)
                .map_err(|e| io("read", e))?;
            if buf.len() != len {
                return Err(io(
                    "read",
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the file shrank while it was sent",
                    ),
                ));
            }
            whole.update(&buf);
            if i >= from {
                let hash = sha256(&buf);
                if tx.blocking_send(Ok(Piece::Chunk(buf, hash))).is_err() {
                    return Ok(()); // the sender gave up
                }
            } else {
                skip = buf;
            }
        }
        // The file must not have grown or shrunk while it was read.
        let now = f.seek(SeekFrom::End(0)).map_err(|e| io("seek", e))?;
        if now != header.size {
            return Err(TransferError::BadOption {
                field: "FILE",
                value: format!(
                    "{} changed size while sent ({} → {now} bytes)",
                    path.display(),
                    header.size
                ),
                allowed: "a file that does not change during the transfer",
            });
        }
        let _ = tx.blocking_send(Ok(Piece::End(whole.finalize().into())));
        Ok(())
    };
    if let Err(e) = run() {
        let _ = tx.blocking_send(Err(e));
    }
}

async fn send_file<W: ChunkSink, R: AsyncRead + Unpin>(
    s: &mut W,
    r: &mut R,
    f: &Source,
    opts: &SendOptions,
    feeder: &mut Option<Feeder<'_>>,
) -> Result<FileSummary, TransferError> {
    let header = FileHeader {
        name: f.name.clone(),
        size: f.size,
        chunk_size: opts.chunk_size,
        resume: opts.resume,
    };
    protocol::write_header(s, &header).await?;
    let from = match protocol::read_reply(r).await? {
        Reply::Ok { value, .. } if value <= header.chunks() => value,
        Reply::Ok { value, .. } => {
            return Err(TransferError::Protocol {
                field: "resume chunk",
                value: value.to_string(),
                allowed: "at most the file's chunk count",
            })
        }
        Reply::Refused { code, message } => return Err(TransferError::Refused { code, message }),
    };
    let resumed_from = (from * header.chunk_size as u64).min(header.size);
    opts.progress
        .resumed
        .fetch_add(resumed_from, Ordering::Relaxed);
    if let Some(fd) = feeder.as_mut() {
        fd.resumed(resumed_from);
    }

    let (tx, mut rx) = mpsc::channel(4);
    let (path, h) = (f.path.clone(), header.clone());
    let thread = std::thread::spawn(move || reader(path, h, from, tx));
    let mut whole = None;
    while let Some(piece) = rx.recv().await {
        match piece? {
            Piece::Chunk(data, hash) => {
                let n = data.len() as u64;
                s.put(data).await?;
                s.write_all(&hash)
                    .await
                    .map_err(|e| TransferError::Connection(e.to_string()))?;
                opts.progress.sent.fetch_add(n, Ordering::Relaxed);
                if let Some(fd) = feeder.as_ref() {
                    fd.wrote(n);
                }
            }
            Piece::End(h) => {
                s.write_all(&h)
                    .await
                    .map_err(|e| TransferError::Connection(e.to_string()))?;
                s.flush()
                    .await
                    .map_err(|e| TransferError::Connection(e.to_string()))?;
                whole = Some(h);
            }
        }
    }
    let _ = thread.join();
    let whole = whole.ok_or_else(|| TransferError::Connection("the file reader stopped".into()))?;
    s.end_of_file();
    match protocol::read_reply(r).await? {
        Reply::Ok { hash, .. } if hash == whole => {
            if let Some(fd) = feeder.as_mut() {
                fd.confirmed(f.size - resumed_from);
            }
            Ok(FileSummary {
                name: f.name.clone(),
                bytes: f.size,
                sha256: hex(&whole),
                resumed_from,
            })
        }
        Reply::Ok { hash, .. } => Err(TransferError::Protocol {
            field: "confirmed SHA-256",
            value: hex(&hash),
            allowed: "the sender's whole-file hash",
        }),
        Reply::Refused { code, message } => Err(TransferError::Refused { code, message }),
    }
}
