//! The receiving end: a QUIC server that checks the token on a connection's first stream
//! before it touches the directory, then takes one file per stream into
//! `store::Partial`. Every size read from the peer is checked before it is used:
//! names and tokens by `protocol`, the file size against `--max-size` and the free disk
//! space here, and only the declared bytes are ever written.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    let mut cfg = quinn::ServerConfig::with_crypto(Arc::new(tls::server_config(cert, key)?));
    let mut t = quinn::TransportConfig::default();
    transport(&mut t);
    cfg.transport_config(Arc::new(t));

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| TransferError::Io {
            what: "starting the tokio runtime".into(),
            source: e,
        })?;
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
        on_ready(addr, &fingerprint);
        let shared = Arc::new(Shared {
            dir,
            token: opts.token.clone(),
            max_size: opts.max_size,
            log: opts.log.clone(),
            writers: Mutex::default(),
        });
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        loop {
            let incoming = tokio::select! {
                i = endpoint.accept() => i,
                _ = opts.stop.wait() => None,
            };
            let Some(incoming) = incoming else { break };
            // Each connection may hold a chunk buffer and quinn's windows (≤ 16 MiB +
            // 32 MiB): bound how many there are.
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
                match incoming.await {
                    Ok(conn) => connection(s, conn).await,
                    Err(e) => (s.log)(&format!("{peer}: handshake failed: {e}")),
                }
                drop(permit);
            });
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
    writers: Mutex<HashMap<String, quinn::Connection>>,
}

/// Removes a name's writer entry when its transfer ends, however it ends.
struct Writing<'a> {
    s: &'a Shared,
    name: String,
    id: usize,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        let mut w = self.s.writers.lock().unwrap_or_else(|e| e.into_inner());
        if w.get(&self.name).is_some_and(|c| c.stable_id() == self.id) {
            w.remove(&self.name);
        }
    }
}

/// Opens the partial file, closing an older connection that still writes the name and
/// waiting (up to 5 s) for it to let go of the lock.
async fn open_partial<'a>(
    s: &'a Shared,
    conn: &quinn::Connection,
    h: &FileHeader,
) -> Result<(Partial, Writing<'a>), TransferError> {
    let old = s
        .writers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&h.name)
        .filter(|c| c.stable_id() != conn.stable_id())
        .cloned();
    if let Some(old) = old {
        (s.log)(&format!(
            "{}: {}: superseding the transfer from {}",
            conn.remote_address(),
            h.name,
            old.remote_address()
        ));
        old.close(4u32.into(), b"superseded by a newer sender");
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
                    id: conn.stable_id(),
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
        match file(&s, &conn, &mut rx, &mut tx).await {
            Ok((h, hash, from)) => (s.log)(&format!(
                "{peer}: received {} ({} bytes, sha256 {}, resumed from {from})",
                h.name,
                h.size,
                hex(&hash)
            )),
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

/// Answers the hello; returns whether the token was right.
async fn tx_ok(tx: &mut quinn::SendStream, ok: bool) -> Result<bool, TransferError> {
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

async fn file(
    s: &Shared,
    conn: &quinn::Connection,
    rx: &mut quinn::RecvStream,
    tx: &mut quinn::SendStream,
) -> FileResult {
    let h = protocol::read_header(rx)
        .await
        .map_err(|e| ("header".to_string(), e))?;
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
    // Anything after the whole-file hash is a sender writing past its declared size.
    let mut extra = [0u8; 1];
    match rx.read(&mut extra).await {
        Ok(None) => {}
        Ok(Some(_)) => {
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
    let _ = tx.finish();
    Ok((h, hash, resumed_bytes))
}

async fn read_exact(rx: &mut quinn::RecvStream, buf: &mut [u8]) -> Result<(), TransferError> {
    let want = buf.len();
    rx.read_exact(buf).await.map_err(|e| match e {
        quinn::ReadExactError::FinishedEarly(n) => TransferError::Protocol {
            field: "stream length",
            value: format!("ended {n} bytes into a {want}-byte read"),
            allowed: "the header's size in chunks, each with its hash, then the file hash",
        },
        quinn::ReadExactError::ReadError(e) => TransferError::Connection(e.to_string()),
    })
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, TransferError> + Send + 'static,
) -> Result<T, TransferError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| TransferError::Connection(format!("worker: {e}")))?
}
