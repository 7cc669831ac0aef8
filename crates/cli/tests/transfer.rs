//! `scavenger send` / `receive` as processes on 127.0.0.1: a sender killed with SIGKILL
//! mid-way resumes with --resume and completes with the right hash; the receiver stops
//! cleanly on SIGTERM.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// A scratch directory under the system's temp dir, removed when dropped: the test's
/// 64 MB file pair must not stay behind, whether the test passes or panics.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("scavenger-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

/// A child process killed when dropped (a failed assertion must not leave a receiver
/// listening).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn len(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// Over QUIC, and over TCP with `--algorithm reno` (every kernel lists it; a BPF
/// algorithm over TCP is the root testbed test's).
#[test]
fn a_sender_killed_mid_way_resumes_and_completes_with_the_right_hash() {
    killed_and_resumed(&[], "ledbat-plus-plus", "quic");
}

#[test]
fn a_sender_killed_mid_way_over_tcp_resumes_and_completes_with_the_right_hash() {
    killed_and_resumed(
        &["--transport", "tcp", "--algorithm", "reno"],
        "reno",
        "tcp",
    );
}

fn killed_and_resumed(transport: &[&str], algorithm: &str, transport_name: &str) {
    let tag = transport_name;
    let (src, dst) = (
        Scratch::new(&format!("kill-src-{tag}")),
        Scratch::new(&format!("kill-dst-{tag}")),
    );
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..64_000_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let file = src.join("big.bin");
    std::fs::write(&file, &data).unwrap();
    let want = hex(&Sha256::digest(&data));
    let tok = src.join("token");
    std::fs::write(&tok, "s3cret\n").unwrap();
    let exe = env!("CARGO_BIN_EXE_scavenger");

    let mut recv = KillOnDrop(
        Command::new(exe)
            .args(["receive", "--listen", "127.0.0.1:0", "--dir"])
            .arg(&*dst)
            .arg("--token-file")
            .arg(&tok)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(recv.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // "listening on ADDR fingerprint FP"
    let w: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        (w[0], w[1], w[3]),
        ("listening", "on", "fingerprint"),
        "{line}"
    );
    let (addr, fp) = (w[2].to_string(), w[4].to_string());

    let send = |resume: bool| {
        let mut c = Command::new(exe);
        c.arg("send")
            .arg(&file)
            .args([
                "--to",
                &addr,
                "--fingerprint",
                &fp,
                "--json",
                "--chunk-size",
                "256KiB",
            ])
            .arg("--token-file")
            .arg(&tok)
            .args(transport)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if resume {
            c.arg("--resume");
        }
        c
    };
    let mut first = KillOnDrop(send(false).spawn().unwrap());
    let part = dst.join(".big.bin.part");
    let t0 = Instant::now();
    while len(&part) < 8_000_000 {
        assert!(
            first.0.try_wait().unwrap().is_none(),
            "the sender finished before it was killed"
        );
        assert!(t0.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    first.0.kill().unwrap(); // SIGKILL
    first.0.wait().unwrap();
    assert!(
        !dst.join("big.bin").exists(),
        "a partial file appeared under its name"
    );

    std::thread::sleep(Duration::from_millis(300));
    let out = send(true).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let resumed = j["resumed_from"].as_u64().unwrap();
    assert!((256 * 1024..64_000_000).contains(&resumed), "{j}");
    assert_eq!(j["bytes"].as_u64().unwrap(), 64_000_000 - resumed, "{j}");
    assert_eq!(j["files"][0]["sha256"], want.as_str());
    assert_eq!(j["algorithm"], algorithm);
    assert_eq!(j["transport"], transport_name);
    assert_eq!(
        hex(&Sha256::digest(std::fs::read(dst.join("big.bin")).unwrap())),
        want
    );
    assert!(!part.exists() && !dst.join(".big.bin.chunks").exists());

    // SIGTERM stops the receiver cleanly (exit status 0).
    unsafe { libc::kill(recv.0.id() as i32, libc::SIGTERM) };
    let st = recv.0.wait().unwrap();
    assert!(st.success(), "{st:?}");
}

/// `scavenger ARGS` must fail; its stderr, and its exit status (docs/cli.md).
fn fails(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scavenger"))
        .args(args)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{args:?} succeeded");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_options_are_named() {
    let to = ["--to", "127.0.0.1:1", "--token", "t"];
    let send = |file: &str, more: &[&str]| {
        let mut a = vec!["send", file];
        a.extend(to);
        a.extend(more);
        fails(&a)
    };
    let (code, e) = send("/dev/null", &["--transport", "udp"]);
    assert!(
        e.contains("--transport") && e.contains("udp") && e.contains("quic (default) or tcp"),
        "{e}"
    );
    assert_eq!(code, Some(2), "a bad option is a usage error: {e}");
    // TCP without a registered kernel algorithm: why, and how to register one.
    let (_, e) = send(
        "/etc/hostname",
        &["--transport", "tcp", "--algorithm", "scv_lp_notloaded"],
    );
    assert!(
        e.contains("scv_lp_notloaded")
            && e.contains("not registered")
            && e.contains("scavenger kernel load"),
        "{e}"
    );
    let (code, e) = fails(&["send", "/dev/null", "--to", "127.0.0.1:1"]);
    assert!(e.contains("token"), "{e}");
    assert_eq!(code, Some(2), "{e}");
    let (_, e) = send("/etc/hostname", &["--algorithm", "nope"]);
    assert!(e.contains("nope") && e.contains("cubic"), "{e}");
}
