//! `send` / `receive` end to end over 127.0.0.1 (UDP, port 0), and the receiver's
//! defences driven through the wire protocol directly (docs/transfer.md).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use scavenger_quic::transfer::protocol::{self, sha256, FileHeader, Hello, Refusal, Reply};
use scavenger_quic::transfer::{tls, Stop};
use scavenger_quic::{receive, send, ReceiveOptions, SendOptions};

const TOKEN: &[u8] = b"correct horse battery staple";

struct Receiver {
    addr: SocketAddr,
    fingerprint: String,
    stop: Stop,
    log: Arc<Mutex<Vec<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.trigger();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn receiver(dir: &Path, max_size: u64) -> Receiver {
    let stop = Stop::default();
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = Arc::clone(&log);
    let opts = ReceiveOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        dir: dir.to_path_buf(),
        token: TOKEN.to_vec(),
        max_size,
        state_dir: None,
        stop: stop.clone(),
        log: Arc::new(move |m: &str| l.lock().unwrap().push(m.to_string())),
    };
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        receive(&opts, |a, f| tx.send((a, f.to_string())).unwrap()).unwrap();
    });
    let (addr, fingerprint) = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    Receiver {
        addr,
        fingerprint,
        stop,
        log,
        thread: Some(thread),
    }
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("scavenger-transfer-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Deterministic, incompressible-looking content.
fn content(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Names in `dir` other than the receiver's certificate directory.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".scavenger")
        .collect();
    v.sort();
    v
}

#[test]
fn twenty_megabytes_arrive_with_the_right_hash() {
    let (src, dst) = (tempdir("20mb-src"), tempdir("20mb-dst"));
    let data = content(20_000_000, 1);
    std::fs::write(src.join("big.bin"), &data).unwrap();
    let r = receiver(&dst, 1 << 30);
    let mut o = SendOptions::new(r.addr.to_string(), TOKEN);
    o.fingerprint = Some(tls::parse_fingerprint(&r.fingerprint).unwrap());
    let s = send(&[src.join("big.bin")], &o).unwrap();
    let want = protocol::hex(&sha256(&data));
    assert_eq!(s.files.len(), 1);
    assert_eq!(s.files[0].sha256, want);
    assert_eq!((s.bytes_sent, s.resumed_from()), (20_000_000, 0));
    assert_eq!(s.algorithm, "ledbat-plus-plus");
    assert_eq!(
        protocol::hex(&sha256(&std::fs::read(dst.join("big.bin")).unwrap())),
        want
    );
    // No partial files remain.
    assert_eq!(entries(&dst), vec!["big.bin".to_string()]);
    eprintln!("20 MB in {:?}", s.duration);
}

#[test]
fn a_wrong_token_is_refused_before_any_file_is_created() {
    let (src, dst) = (tempdir("tok-src"), tempdir("tok-dst"));
    std::fs::write(src.join("a.txt"), b"hello").unwrap();
    let r = receiver(&dst, 1 << 20);
    let o = SendOptions::new(r.addr.to_string(), b"wrong".to_vec());
    let e = send(&[src.join("a.txt")], &o).unwrap_err();
    assert!(
        matches!(
            e,
            scavenger_quic::transfer::TransferError::Refused {
                code: Refusal::Auth,
                ..
            }
        ),
        "{e}"
    );
    assert!(entries(&dst).is_empty(), "{:?}", entries(&dst));
    assert!(r
        .log
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains("wrong token")));
}

#[test]
fn a_pinned_fingerprint_that_differs_stops_before_the_token_is_sent() {
    let (src, dst) = (tempdir("pin-src"), tempdir("pin-dst"));
    std::fs::write(src.join("a.txt"), b"hello").unwrap();
    let r = receiver(&dst, 1 << 20);
    let mut o = SendOptions::new(r.addr.to_string(), TOKEN);
    o.fingerprint = Some([7u8; 32]);
    let e = send(&[src.join("a.txt")], &o).unwrap_err().to_string();
    assert!(
        e.contains("fingerprint") && e.contains(&r.fingerprint),
        "{e}"
    );
    // Trust on first use: recorded, then matched.
    let known = src.join("known");
    o.fingerprint = None;
    o.known_receivers = Some(known.clone());
    assert!(send(&[src.join("a.txt")], &o).unwrap().trusted_on_first_use);
    assert!(std::fs::read_to_string(&known)
        .unwrap()
        .contains(&r.fingerprint));
    std::fs::remove_file(dst.join("a.txt")).unwrap();
    assert!(!send(&[src.join("a.txt")], &o).unwrap().trusted_on_first_use);
}

/// A client that speaks the protocol directly, as a malicious or crashing sender would.
struct RawClient {
    _endpoint: quinn::Endpoint,
    conn: quinn::Connection,
}

async fn raw_client(addr: SocketAddr) -> RawClient {
    let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    endpoint.set_default_client_config(quinn::ClientConfig::new(Arc::new(
        tls::client_config().unwrap(),
    )));
    let conn = endpoint
        .connect(addr, tls::SERVER_NAME)
        .unwrap()
        .await
        .unwrap();
    let (mut s, mut r) = conn.open_bi().await.unwrap();
    protocol::write_hello(
        &mut s,
        &Hello {
            token: TOKEN.to_vec(),
        },
    )
    .await
    .unwrap();
    assert!(matches!(
        protocol::read_reply(&mut r).await.unwrap(),
        Reply::Ok { .. }
    ));
    RawClient {
        _endpoint: endpoint,
        conn,
    }
}

impl RawClient {
    /// Sends a header and returns the receiver's reply and the stream.
    async fn header(&self, h: &FileHeader) -> (Reply, quinn::SendStream, quinn::RecvStream) {
        let (mut s, mut r) = self.conn.open_bi().await.unwrap();
        protocol::write_header(&mut s, h).await.unwrap();
        (protocol::read_reply(&mut r).await.unwrap(), s, r)
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn header(name: &str, size: u64) -> FileHeader {
    FileHeader {
        name: name.into(),
        size,
        chunk_size: 64 * 1024,
        resume: false,
    }
}

#[test]
fn path_traversal_and_symlink_names_are_refused() {
    let dst = tempdir("trav-dst");
    let outside = tempdir("trav-outside");
    let r = receiver(&dst, 1 << 20);
    rt().block_on(async {
        for name in ["../evil", "/etc/evil", "a/b", "..", ".hidden", "x\\..\\y"] {
            let c = raw_client(r.addr).await;
            let (reply, _, _) = c.header(&header(name, 10)).await;
            match reply {
                Reply::Refused { code: Refusal::BadRequest, message } => {
                    assert!(message.contains("refused"), "{name}: {message}")
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        // A symlink planted at the .part name is not followed.
        std::os::unix::fs::symlink(outside.join("target"), dst.join(".victim.part")).unwrap();
        let c = raw_client(r.addr).await;
        let (reply, _, _) = c.header(&header("victim", 10)).await;
        assert!(
            matches!(&reply, Reply::Refused { code: Refusal::BadRequest, message } if message.contains("symbolic link")),
            "{reply:?}"
        );
    });
    assert!(!outside.join("target").exists());
    assert!(entries(&outside).is_empty());
    assert!(!dst.join("victim").exists());
}

#[test]
fn a_sender_that_lies_about_its_size_cannot_write_past_it_or_the_limit() {
    let dst = tempdir("lie-dst");
    let r = receiver(&dst, 1 << 20);
    rt().block_on(async {
        // Over --max-size: refused from the header, nothing created.
        let c = raw_client(r.addr).await;
        let (reply, _, _) = c.header(&header("huge", 1 << 40)).await;
        assert!(
            matches!(&reply, Reply::Refused { code: Refusal::TooBig, message } if message.contains("--max-size") && message.contains("1099511627776")),
            "{reply:?}"
        );
        assert!(entries(&dst).is_empty());

        // Declares 100 000 bytes, then streams 2 MB of well-formed chunks.
        let c = raw_client(r.addr).await;
        let h = header("liar", 100_000);
        let (reply, mut s, mut rr) = c.header(&h).await;
        assert_eq!(reply, Reply::Ok { value: 0, hash: [0; 32] });
        let chunk = content(64 * 1024, 3);
        for _ in 0..32 {
            if s.write_all(&chunk).await.is_err() || s.write_all(&sha256(&chunk)).await.is_err() {
                break;
            }
        }
        let _ = s.finish();
        let reply = protocol::read_reply(&mut rr).await.unwrap();
        assert!(matches!(reply, Reply::Refused { .. }), "{reply:?}");
    });
    let part = dst.join(".liar.part");
    assert!(std::fs::metadata(&part).unwrap().len() <= 100_000);
    assert!(!dst.join("liar").exists());
}

#[test]
fn a_damaged_sidecar_resumes_from_the_last_good_chunk() {
    let (src, dst) = (tempdir("side-src"), tempdir("side-dst"));
    let data = content(5 * 64 * 1024 + 1000, 4);
    std::fs::write(src.join("f.bin"), &data).unwrap();
    let r = receiver(&dst, 1 << 30);
    // A sender that delivers 4 of 6 chunks and disappears.
    rt().block_on(async {
        let c = raw_client(r.addr).await;
        let (reply, mut s, _) = c.header(&header("f.bin", data.len() as u64)).await;
        assert_eq!(
            reply,
            Reply::Ok {
                value: 0,
                hash: [0; 32]
            }
        );
        for ch in data.chunks(64 * 1024).take(4) {
            s.write_all(ch).await.unwrap();
            s.write_all(&sha256(ch)).await.unwrap();
        }
        // Wait until the receiver has recorded all four.
        let side = dst.join(".f.bin.chunks");
        for _ in 0..500 {
            if std::fs::metadata(&side).map_or(0, |m| m.len()) >= 24 + 4 * 48 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        c.conn.close(9u32.into(), b"crash");
    });
    std::thread::sleep(Duration::from_millis(200));
    // Damage record 2 (of 0..4) and append a torn record.
    let side = dst.join(".f.bin.chunks");
    let mut b = std::fs::read(&side).unwrap();
    assert_eq!(b.len(), 24 + 4 * 48);
    b[24 + 2 * 48 + 20] ^= 0x40;
    b.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&side, &b).unwrap();

    let mut o = SendOptions::new(r.addr.to_string(), TOKEN);
    o.resume = true;
    o.chunk_size = 64 * 1024;
    let s = send(&[src.join("f.bin")], &o).unwrap();
    assert_eq!(s.files[0].resumed_from, 2 * 64 * 1024);
    assert_eq!(s.bytes_sent, data.len() as u64 - 2 * 64 * 1024);
    assert_eq!(std::fs::read(dst.join("f.bin")).unwrap(), data);
    assert_eq!(entries(&dst), vec!["f.bin".to_string()]);
}

#[test]
fn a_deadline_transfer_runs_da_lbe_and_arrives() {
    let (src, dst) = (tempdir("dl-src"), tempdir("dl-dst"));
    let data = content(3_000_000, 5);
    std::fs::write(src.join("d.bin"), &data).unwrap();
    let r = receiver(&dst, 1 << 30);
    let mut o = SendOptions::new(r.addr.to_string(), TOKEN);
    o.congestion = scavenger_quic::transfer::Congestion::Deadline {
        base: "cubic".into(),
        controller: "deadline".into(),
        deadline: Duration::from_secs(60),
    };
    let s = send(&[src.join("d.bin")], &o).unwrap();
    assert_eq!(s.algorithm, "deadline(cubic)");
    assert_eq!(std::fs::read(dst.join("d.bin")).unwrap(), data);
}
