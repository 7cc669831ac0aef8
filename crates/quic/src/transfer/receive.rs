//! The receiving end: a QUIC server, and on the same port a TCP server (TLS 1.3 over kernel
//! TCP, `--transport tcp`), that checks the token on a connection's first stream before it
//! touches the directory, then takes one file per QUIC stream (over TCP: one file after
//! another on the one stream) into `store::Partial`. Every size read from the peer is checked before it is used:
//! names and tokens by `protocol`, the file size against `--max-size` and the free disk
//! space here, and only the declared bytes are ever written.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::protocol::{self, hex, FileHeader, Hash, Refusal, Reply, HASH_LEN};
use super::store::{self, Partial};
use super::{tls, transport, Stop, TransferError};

pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

pub struct ReceiveOptions {
    pub listen: SocketAddr,
    pub dir: PathBuf,
    pub token: Vec<u8>,
    /// Largest file accepted, bytes.
    pub max_size: u64,
    /// Certificate and key; `DIR/.scavenger` when `None`.
    pub state_dir: Option<PathBuf>,
    pub stop: Stop,
    pub log: Log,
}

/// Connections served at a time; more are refused at the handshake.
const MAX_CONNECTIONS: usize = 8;

/// How long a sender has to present its token.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the receiver until `opts.stop`; `on_ready` gets the bound address and the
/// certificate fingerprint once it listens. Blocks; runs its own tokio runtime.
pub fn receive(
    opts: &ReceiveOptions,
    on_ready: impl FnOnce(SocketAddr, &str),
) -> Result<(), TransferError> {
    if opts.token.is_empty() || opts.token.len() > protocol::MAX_TOKEN {
        return Err(TransferError::BadOption {
            field: "--token",
            value: format!("{} bytes", opts.token.len()),
            allowed: "1..=1024 bytes",
        });
    }
    let dir = opts.dir.canonicalize().map_err(|e| TransferError::Io {
        what: format!("--dir {}", opts.dir.display()),
        source: e,
    })?;
    if !dir.is_dir() {
        return Err(TransferError::NotAFile(dir));
    }
    let state = opts
        .state_dir
        .clone()
        .unwrap_or_else(|| dir.join(".scavenger"));
    let (cert, key) = tls::receiver_identity(&state)?;
    let fingerprint = tls::fingerprint(&cert);
    let acceptor = tls::tcp_acceptor(cert.clone(), key.clone_key())?;
    let mut cfg = quinn::ServerConfig::with_crypto(Arc::new(tls::server_config(cert, key)?));
    let mut t = quinn::TransportConfig::default();
    transport(&mut t);
    cfg.transport_config(Arc::new(t));

    let rt = super::runtime()?;
    rt.block_on(async {
        let endpoint =
            quinn::Endpoint::server(cfg, opts.listen).map_err(|e| TransferError::Io {
                what: format!("--listen {}", opts.listen),
                source: e,
            })?;
        let addr = endpoint.local_addr().map_err(|e| TransferError::Io {
            what: "local address".into(),
            source: e,
        })?;
        // TCP on the same address and port (with port 0, the one UDP got).
        let tcp = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| TransferError::Io {
                what: format!("--listen {addr} (TCP, beside QUIC on UDP)"),
                source: e,
            })?;
        on_ready(addr, &fingerprint);
        let shared = Arc::new(Shared {
            dir,
            token: opts.token.clone(),
            max_size: opts.max_size,
            log: opts.log.clone(),
            writers: Mutex::default(),
            next_id: AtomicU64::new(0),
        });
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        // Every TCP connection's stop, triggered when the receiver stops (QUIC
        // connections end with the endpoint).
        let mut tcp_stops: Vec<Stop> = Vec::new();
        loop {
            let next = tokio::select! {
                i = endpoint.accept() => i.map(|i| Accepted::Quic(Box::new(i))),
                t = tcp.accept() => Some(Accepted::Tcp(t)),
                _ = opts.stop.wait() => None,
            };
            let Some(next) = next else { break };
            match next {
                Accepted::Quic(incoming) => {
                    // Each connection may hold a chunk buffer and quinn's windows (≤ 16
                    // MiB + 32 MiB): bound how many there are, over both transports.
                    let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
                        (shared.log)(&format!(
                            "{}: refused: already {MAX_CONNECTIONS} connections",
                            incoming.remote_address()
                        ));
                        incoming.refuse();
                        continue;
                    };
                    let s = Arc::clone(&shared);
                    tokio::spawn(async move {
                        let peer = incoming.remote_address();
                        match (*incoming).await {
                            Ok(conn) => connection(s, conn).await,
                            Err(e) => (s.log)(&format!("{peer}: handshake failed: {e}")),
                        }
                        drop(permit);
                    });
                }
                Accepted::Tcp(Err(e)) => {
                    (shared.log)(&format!("TCP accept: {e}"));
                    // EMFILE and the like: do not spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Accepted::Tcp(Ok((sock, peer))) => {
                    let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
                        (shared.log)(&format!(
                            "{peer}: refused: already {MAX_CONNECTIONS} connections"
                        ));
                        continue; // dropping the socket closes it
                    };
                    tcp_stops.retain(|s| !s.is_set());
                    let stop = Stop::default();
                    tcp_stops.push(stop.clone());
                    let (s, a) = (Arc::clone(&shared), acceptor.clone());
                    tokio::spawn(async move {
                        tcp_connection(s, a, sock, peer, stop).await;
                        drop(permit);
                    });
                }
            }
        }
        for s in &tcp_stops {
            s.trigger();
        }
        endpoint.close(0u32.into(), b"receiver stopping");
        let _ = tokio::time::timeout(Duration::from_secs(2), endpoint.wait_idle()).await;
        Ok(())
    })
}

struct Shared {
    dir: PathBuf,
    token: Vec<u8>,
    max_size: u64,
    log: Log,
    /// Which connection writes which name. A sender that was killed leaves its
    /// connection (and the name's lock) until the idle timeout; a new authenticated
    /// sender of the same name supersedes it (all senders hold the same token).
    writers: Mutex<HashMap<String, Conn>>,
    /// Numbers connections of both transports for `Conn::id`.
    next_id: AtomicU64,
}

enum Accepted {
    Quic(Box<quinn::Incoming>),
    Tcp(std::io::Result<(tokio::net::TcpStream, SocketAddr)>),
}

/// One sender's connection, as the writer table knows it: who, and how to end it.
#[derive(Clone)]
struct Conn {
    id: u64,
    peer: SocketAddr,
    close: Arc<dyn Fn() + Send + Sync>,
}

impl Shared {
    fn conn(&self, peer: SocketAddr, close: Arc<dyn Fn() + Send + Sync>) -> Conn {
        Conn {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            peer,
            close,
        }
    }
}

/// Removes a name's writer entry when its transfer ends, however it ends.
struct Writing<'a> {
    s: &'a Shared,
    name: String,
    id: u64,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        let mut w = self.s.writers.lock().unwrap_or_else(|e| e.into_inner());
        if w.get(&self.name).is_some_and(|c| c.id == self.id) {
            w.remove(&self.name);
        }
    }
}

/// Opens the partial file, closing an older connection that still writes the name and
/// waiting (up to 5 s) for it to let go of the lock.
async fn open_partial<'a>(
    s: &'a Shared,
    conn: &Conn,
    h: &FileHeader,
) -> Result<(Partial, Writing<'a>), TransferError> {
    let old = s
        .writers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&h.name)
        .filter(|c| c.id != conn.id)
        .cloned();
    if let Some(old) = old {
        (s.log)(&format!(
            "{}: {}: superseding the transfer from {}",
            conn.peer, h.name, old.peer
        ));
        (old.close)();
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (dir, hh) = (s.dir.clone(), h.clone());
        match blocking(move || Partial::open(&dir, &hh)).await {
            Err(TransferError::Busy(_)) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => return Err(e),
            Ok(p) => {
                s.writers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(h.name.clone(), conn.clone());
                let w = Writing {
                    s,
                    name: h.name.clone(),
                    id: conn.id,
                };
                return Ok((p, w));
            }
        }
    }
}

/// Compares without an early exit, so the time taken does not tell how much of a
/// guessed token was right.
fn same_token(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

async fn connection(s: Arc<Shared>, conn: quinn::Connection) {
    let peer = conn.remote_address();
    let me = {
        let c = conn.clone();
        s.conn(
            peer,
            Arc::new(move || c.close(4u32.into(), b"superseded by a newer sender")),
        )
    };
    let hello = async {
        let (mut tx, mut rx) = conn
            .accept_bi()
            .await
            .map_err(|e| TransferError::Connection(e.to_string()))?;
        let h = protocol::read_hello(&mut rx).await?;
        Ok::<_, TransferError>((tx_ok(&mut tx, same_token(&h.token, &s.token)).await?, tx))
    };
    match tokio::time::timeout(HELLO_TIMEOUT, hello).await {
        Ok(Ok((true, _))) => {}
        Ok(Ok((false, mut tx))) => {
            (s.log)(&format!("{peer}: refused: wrong token"));
            let _ = tx.finish();
            let _ = tokio::time::timeout(Duration::from_secs(1), tx.stopped()).await;
            conn.close(1u32.into(), b"wrong token");
            return;
        }
        Ok(Err(e)) => {
            (s.log)(&format!("{peer}: refused: {e}"));
            conn.close(1u32.into(), b"bad hello");
            return;
        }
        Err(_) => {
            (s.log)(&format!(
                "{peer}: refused: no token within {HELLO_TIMEOUT:?}"
            ));
            conn.close(1u32.into(), b"hello timeout");
            return;
        }
    }
    // Files one at a time: a connection never holds more than one chunk buffer.
    while let Ok((mut tx, mut rx)) = conn.accept_bi().await {
        let header = protocol::read_header(&mut rx)
            .await
            .map_err(|e| ("header".to_string(), e));
        let r = match header {
            Ok(h) => file(&s, &me, h, &mut rx, &mut tx, End::Stream).await,
            Err(e) => Err(e),
        };
        match r {
            Ok((h, hash, from)) => {
                let _ = tx.finish();
                log_received(&s, peer, &h, &hash, from);
            }
            Err((name, e)) => {
                (s.log)(&format!("{peer}: {name}: {e}"));
                let _ = protocol::write_reply(&mut tx, &refusal(&e)).await;
                let _ = tx.finish();
                let _ = tokio::time::timeout(Duration::from_secs(1), tx.stopped()).await;
                // A stream error leaves the framing unknown: end the connection.
                conn.close(3u32.into(), b"transfer refused");
                return;
            }
        }
    }
}

fn log_received(s: &Shared, peer: SocketAddr, h: &FileHeader, hash: &Hash, from: u64) {
    (s.log)(&format!(
        "{peer}: received {} ({} bytes, sha256 {}, resumed from {from})",
        h.name,
        h.size,
        hex(hash)
    ));
}

/// A sender over TCP (`--transport tcp`): TLS 1.3 (ALPN `scvx-tcp`), then the same
/// messages as over QUIC on the one stream: Hello and its Reply, then per file Header,
/// Reply, chunks, whole-file hash, Reply, until the sender closes. Ends early on `stop`
/// (the receiver stops, or a newer sender of the same name supersedes this one).
async fn tcp_connection(
    s: Arc<Shared>,
    acceptor: tokio_rustls::TlsAcceptor,
    sock: tokio::net::TcpStream,
    peer: SocketAddr,
    stop: Stop,
) {
    let me = {
        let st = stop.clone();
        s.conn(peer, Arc::new(move || st.trigger()))
    };
    let work = async {
        let tls = match tokio::time::timeout(HELLO_TIMEOUT, acceptor.accept(sock)).await {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => return (s.log)(&format!("{peer}: TCP: handshake failed: {e}")),
            Err(_) => {
                return (s.log)(&format!(
                    "{peer}: TCP: refused: no handshake within {HELLO_TIMEOUT:?}"
                ))
            }
        };
        let (mut rx, mut tx) = tokio::io::split(tls);
        let hello = async {
            let h = protocol::read_hello(&mut rx).await?;
            tx_ok(&mut tx, same_token(&h.token, &s.token)).await
        };
        match tokio::time::timeout(HELLO_TIMEOUT, hello).await {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => {
                (s.log)(&format!("{peer}: refused: wrong token"));
                let _ = tx.shutdown().await;
                return;
            }
            Ok(Err(e)) => return (s.log)(&format!("{peer}: refused: {e}")),
            Err(_) => {
                return (s.log)(&format!(
                    "{peer}: refused: no token within {HELLO_TIMEOUT:?}"
                ))
            }
        }
        loop {
            let r = match protocol::read_header_or_end(&mut rx).await {
                Ok(None) => break,
                Ok(Some(h)) => file(&s, &me, h, &mut rx, &mut tx, End::NextHeader).await,
                Err(e) => Err(("header".to_string(), e)),
            };
            match r {
                Ok((h, hash, from)) => log_received(&s, peer, &h, &hash, from),
                Err((name, e)) => {
                    (s.log)(&format!("{peer}: {name}: {e}"));
                    let _ = protocol::write_reply(&mut tx, &refusal(&e)).await;
                    // A stream error leaves the framing unknown: end the connection.
                    let _ = tx.shutdown().await;
                    return;
                }
            }
        }
        let _ = tx.shutdown().await;
    };
    tokio::select! {
        _ = work => {}
        _ = stop.wait() => (s.log)(&format!("{peer}: TCP: connection closed")),
    }
    stop.trigger(); // marks it finished for the receiver's list
}

/// Answers the hello; returns whether the token was right.
async fn tx_ok<W: AsyncWrite + Unpin>(tx: &mut W, ok: bool) -> Result<bool, TransferError> {
    let r = if ok {
        Reply::Ok {
            value: 0,
            hash: [0; HASH_LEN],
        }
    } else {
        Reply::Refused {
            code: Refusal::Auth,
            message: "wrong token".into(),
        }
    };
    protocol::write_reply(tx, &r).await?;
    Ok(ok)
}

fn refusal(e: &TransferError) -> Reply {
    use TransferError as E;
    let code = match e {
        E::Protocol { .. } | E::BadName { .. } | E::Symlink(_) | E::NotAFile(_) => {
            Refusal::BadRequest
        }
        E::TooBig { .. } => Refusal::TooBig,
        E::Exists(_) => Refusal::Exists,
        E::Busy(_) => Refusal::Busy,
        E::ChunkHash { .. } | E::FileHash { .. } => Refusal::Integrity,
        _ => Refusal::Io,
    };
    Reply::Refused {
        code,
        message: e.to_string(),
    }
}

type FileResult = Result<(FileHeader, Hash, u64), (String, TransferError)>;

/// What follows a file's whole-file hash: the end of its QUIC stream, or over TCP the
/// next header (or the end), which the caller reads.
#[derive(Clone, Copy, PartialEq)]
enum End {
    Stream,
    NextHeader,
}

async fn file<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    s: &Shared,
    conn: &Conn,
    h: FileHeader,
    rx: &mut R,
    tx: &mut W,
    end: End,
) -> FileResult {
    let name = h.name.clone();
    let tag = |e| (name.clone(), e);
    store::check_name(&h.name).map_err(tag)?;
    if h.size > s.max_size {
        return Err(tag(TransferError::TooBig {
            name: h.name.clone(),
            size: h.size,
            limit_name: "--max-size",
            limit: s.max_size,
        }));
    }
    // Disk space for the part not yet on disk (what a resume may keep is at most the
    // current .part length).
    let (part_name, _) = store::part_names(&h.name);
    let have = if h.resume {
        std::fs::symlink_metadata(s.dir.join(&part_name)).map_or(0, |m| m.len().min(h.size))
    } else {
        0
    };
    let free = store::free_space(&s.dir).map_err(tag)?;
    if h.size - have > free {
        return Err(tag(TransferError::TooBig {
            name: h.name.clone(),
            size: h.size - have,
            limit_name: "free disk space",
            limit: free,
        }));
    }
    let (mut part, _writing) = open_partial(s, conn, &h).await.map_err(tag)?;
    let from = part.verified();
    let resumed_bytes = part.verified_bytes();
    protocol::write_reply(
        tx,
        &Reply::Ok {
            value: from,
            hash: [0; HASH_LEN],
        },
    )
    .await
    .map_err(tag)?;

    // One buffer of the validated chunk size (≤ 16 MiB) for the whole file.
    let mut buf = vec![0u8; h.chunk_size as usize + HASH_LEN];
    for i in from..h.chunks() {
        let len = h.chunk_len(i);
        read_exact(rx, &mut buf[..len + HASH_LEN])
            .await
            .map_err(tag)?;
        let hash: Hash = buf[len..len + HASH_LEN].try_into().expect("32 bytes");
        part.append(&buf[..len], &hash).map_err(tag)?;
    }
    let mut whole = [0u8; HASH_LEN];
    read_exact(rx, &mut whole).await.map_err(tag)?;
    // Anything after the whole-file hash is a sender writing past its declared size. (Over
    // TCP the next header follows; the caller reads it, and refuses anything else.)
    let mut extra = [0u8; 1];
    match if end == End::Stream {
        rx.read(&mut extra).await
    } else {
        Ok(0)
    } {
        Ok(0) => {}
        Ok(_) => {
            return Err(tag(TransferError::Protocol {
                field: "stream length",
                value: "data after the whole-file hash".into(),
                allowed: "exactly the header's size in chunks, then the hash",
            }))
        }
        Err(e) => return Err(tag(TransferError::Connection(e.to_string()))),
    }
    let hash = blocking(move || part.finish(&whole)).await.map_err(tag)?;
    protocol::write_reply(
        tx,
        &Reply::Ok {
            value: h.size,
            hash,
        },
    )
    .await
    .map_err(tag)?;
    Ok((h, hash, resumed_bytes))
}

async fn read_exact<R: AsyncRead + Unpin>(rx: &mut R, buf: &mut [u8]) -> Result<(), TransferError> {
    let want = buf.len();
    match rx.read_exact(buf).await {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(TransferError::Protocol {
            field: "stream length",
            value: format!("ended inside a {want}-byte read"),
            allowed: "the header's size in chunks, each with its hash, then the file hash",
        }),
        Err(e) => Err(TransferError::Connection(e.to_string())),
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, TransferError> + Send + 'static,
) -> Result<T, TransferError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| TransferError::Connection(format!("worker: {e}")))?
}
