//! `scavenger bench --cpu` (issue 22 item 3): the CPU cost per transferred gigabyte of
//! each congestion control on a rate-limited veth path between two namespaces, the table
//! a user reads before putting an algorithm into production (Wang 2018 §5.8 compares
//! EvaRate's CPU with CUBIC's).
//!
//! Path: namespace `…-cs` (sender) and `…-cr` (receiver), joined by a veth pair; the
//! sender's egress has a token bucket (`tbf`, burst 1 ms of the rate) at the measured
//! rate; no delay (netem is not in this kernel). Cases:
//! - the kernel's cubic, bbr and reno;
//! - our native BPF algorithms (crates/kernel), each registered under a name private to
//!   this process and unregistered on every exit path (`LoadGuard`);
//! - scv_shim with the userspace agent running a crates/cc algorithm, waking at most every
//!   100 µs and every 1 ms;
//! - QUIC through quinn: `scavenger send` as a child process in the sender namespace to a
//!   `scavenger receive` child in the receiver namespace.
//!
//! What is counted: the kernel's own accounting of user and system time (getrusage), of
//! the sender thread (TCP), of the receiver thread, and of the agent thread (shim cases);
//! for QUIC, of the whole `scavenger send` process (wait4) and of the receiver process
//! (/proc/PID/stat). Softirq work is charged to whichever task runs when it happens: on
//! a veth pair the receiver's TCP input often runs in the sender's softirq and the
//! sender's ACK processing (where the congestion control runs) in the receiver's, so the
//! per-algorithm difference shows in the sum more reliably than in either side alone.
//! Softirq work done in ksoftirqd or in other tasks' interrupts, and the tbf qdisc's
//! timer, are not counted.

use crate::error::TestbedError;
use crate::netns::{self, Namespaces};
use crate::sys;
use scavenger_kernel::agent::{AgentConfig, AgentError, AgentHandle};
use scavenger_kernel::manage::{self, LoadGuard, ManageError};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SENDER_IP: &str = "10.201.0.1";
const RECEIVER_IP: Ipv4Addr = Ipv4Addr::new(10, 201, 0, 2);

/// What `bench --cpu` measures.
#[derive(Clone, Debug)]
pub struct CpuBenchConfig {
    /// Bottleneck rates, bit/s.
    pub rates_bps: Vec<u64>,
    /// Seconds of sending per TCP run.
    pub secs: f64,
    /// Repetitions of every case (medians are reported).
    pub reps: usize,
    /// The `scavenger` executable for the QUIC cases (`None`: no QUIC cases).
    pub scavenger_exe: Option<PathBuf>,
    /// Bytes of the file each QUIC run sends.
    pub quic_bytes: u64,
    /// Only cases whose label contains one of these (empty: all).
    pub only: Vec<String>,
}

impl Default for CpuBenchConfig {
    fn default() -> CpuBenchConfig {
        CpuBenchConfig {
            rates_bps: vec![1_000_000_000, 10_000_000_000],
            secs: 2.0,
            reps: 5,
            scavenger_exe: None,
            quic_bytes: 200_000_000,
            only: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
enum Kind {
    /// A congestion control the kernel has built in.
    Kernel(&'static str),
    /// A native BPF algorithm of crates/kernel (catalogue name).
    Native(&'static str),
    /// scv_shim with the agent running `alg`, waking at most every `wake_us`.
    Shim { alg: &'static str, wake_us: u64 },
    /// `scavenger send --algorithm alg` over QUIC.
    Quic(&'static str),
}

#[derive(Clone, Debug)]
struct Case {
    label: String,
    kind: Kind,
}

/// Why `bench --cpu` stopped. Each names the step (the command, the socket call, the
/// file) and what the system said.
#[derive(Debug, thiserror::Error)]
pub enum CpuBenchError {
    #[error("bench --cpu needs reps ≥ 1 (got {reps}), seconds > 0 (got {secs}) and a rate")]
    BadConfig { reps: usize, secs: f64 },
    #[error("bench --cpu needs root (namespaces, tc, BPF registration)")]
    NeedsRoot,
    #[error("no case matches {0:?}")]
    NoCase(Vec<String>),
    /// `scavenger_kernel::unavailable_reason`.
    #[error("the BPF cases cannot run: {0}")]
    BpfUnavailable(String),
    #[error("interrupted")]
    Interrupted,
    /// A system call, file or child process; `what` says which.
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    /// A file or socket call whose error speaks for itself.
    #[error("{0}")]
    Plain(#[source] std::io::Error),
    #[error("tc qdisc add tbf in {ns}: {stderr}")]
    Tc { ns: String, stderr: String },
    #[error("the receiver did not start")]
    ReceiverNotStarted,
    /// The receiver thread ended before it could say its port.
    #[error("sending on a closed channel")]
    Channel,
    #[error("the sender thread panicked")]
    SenderPanicked,
    #[error("the receiver thread panicked")]
    ReceiverPanicked,
    #[error("scavenger receive did not print its address (got {0:?})")]
    NoAddress(String),
    /// `stderr` is what `scavenger send` printed.
    #[error("scavenger send --algorithm {alg} failed: {stderr}")]
    SendFailed { alg: String, stderr: String },
    #[error(transparent)]
    Testbed(#[from] TestbedError),
    #[error(transparent)]
    Manage(#[from] ManageError),
    #[error(transparent)]
    Agent(#[from] AgentError),
}

/// `map_err` for an I/O step described by `what`.
fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CpuBenchError {
    move |source| CpuBenchError::Io {
        what: what.into(),
        source,
    }
}

fn cases(cfg: &CpuBenchConfig) -> Vec<Case> {
    let mut v: Vec<Case> = ["cubic", "bbr", "reno"]
        .iter()
        .map(|c| Case {
            label: c.to_string(),
            kind: Kind::Kernel(c),
        })
        .collect();
    for a in manage::ALGS.iter().filter(|a| a.layout.is_some()) {
        v.push(Case {
            label: a.name.to_string(),
            kind: Kind::Native(a.name),
        });
    }
    // LEDBAT (to set against the native scv_ledbat) and EvaRate (Wang 2018, which
    // has no native BPF version) through the shim.
    for alg in ["ledbat", "evarate"] {
        for wake_us in [100, 1000] {
            v.push(Case {
                label: format!("shim+{alg}@{wake_us}us"),
                kind: Kind::Shim { alg, wake_us },
            });
        }
    }
    if cfg.scavenger_exe.is_some() {
        for alg in ["cubic", "ledbat-plus-plus"] {
            v.push(Case {
                label: format!("quic+{alg}"),
                kind: Kind::Quic(alg),
            });
        }
    }
    v.retain(|c| cfg.only.is_empty() || cfg.only.iter().any(|o| c.label.contains(o.as_str())));
    v
}

/// One run's measurements.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    bytes: u64,
    wall_s: f64,
    sender_user_s: f64,
    sender_sys_s: f64,
    receiver_s: f64,
    agent_s: f64,
}

/// One output line: medians over the repetitions.
#[derive(Clone, Debug)]
pub struct CpuRow {
    pub label: String,
    pub rate_bps: u64,
    pub reps: usize,
    pub goodput_bps: f64,
    /// CPU seconds per 10⁹ bytes delivered.
    pub sender_s_per_gb: f64,
    pub sender_user_s_per_gb: f64,
    pub sender_sys_s_per_gb: f64,
    pub receiver_s_per_gb: f64,
    pub agent_s_per_gb: f64,
    /// Sender + receiver + agent.
    pub total_s_per_gb: f64,
}

impl CpuRow {
    pub fn line(&self) -> String {
        format!(
            "cc={} rate={} reps={} goodput_gbps={:.3} sender_cpu_s_per_gb={:.3} (user {:.3} sys {:.3}) receiver_cpu_s_per_gb={:.3} agent_cpu_s_per_gb={:.3} total_cpu_s_per_gb={:.3}",
            self.label,
            rate_label(self.rate_bps),
            self.reps,
            self.goodput_bps * 1e-9,
            self.sender_s_per_gb,
            self.sender_user_s_per_gb,
            self.sender_sys_s_per_gb,
            self.receiver_s_per_gb,
            self.agent_s_per_gb,
            self.total_s_per_gb
        )
    }
}

fn rate_label(bps: u64) -> String {
    if bps.is_multiple_of(1_000_000_000) {
        format!("{}Gbit", bps / 1_000_000_000)
    } else {
        format!("{}Mbit", bps as f64 / 1e6)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn row(case: &Case, rate_bps: u64, s: &[Sample]) -> CpuRow {
    let per_gb = |f: &dyn Fn(&Sample) -> f64| {
        median(
            s.iter()
                .map(|x| f(x) / (x.bytes.max(1) as f64 / 1e9))
                .collect(),
        )
    };
    CpuRow {
        label: case.label.clone(),
        rate_bps,
        reps: s.len(),
        goodput_bps: median(
            s.iter()
                .map(|x| x.bytes as f64 * 8.0 / x.wall_s.max(1e-9))
                .collect(),
        ),
        sender_s_per_gb: per_gb(&|x| x.sender_user_s + x.sender_sys_s),
        sender_user_s_per_gb: per_gb(&|x| x.sender_user_s),
        sender_sys_s_per_gb: per_gb(&|x| x.sender_sys_s),
        receiver_s_per_gb: per_gb(&|x| x.receiver_s),
        agent_s_per_gb: per_gb(&|x| x.agent_s),
        total_s_per_gb: per_gb(&|x| x.sender_user_s + x.sender_sys_s + x.receiver_s + x.agent_s),
    }
}

use crate::sys::thread_cpu_times as thread_cpu;

fn tv(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

/// The two namespaces, the veth pair and the token bucket at `rate_bps`.
fn build_path(ns: &Namespaces, rate_bps: u64) -> Result<(String, String), CpuBenchError> {
    let id = netns::unique_id();
    let (s, r) = (format!("{id}-cs"), format!("{id}-cr"));
    ns.add(&s)?;
    ns.add(&r)?;
    // Created inside the sender namespace, so the names never meet another helper's.
    netns::ip_batch(
        Some(&s),
        &[
            format!("link add v0 type veth peer name v1 netns {r}"),
            format!("addr add {SENDER_IP}/30 dev v0"),
            "link set v0 up".into(),
        ],
    )?;
    netns::ip_batch(
        Some(&r),
        &[
            format!("addr add {RECEIVER_IP}/30 dev v1"),
            "link set v1 up".into(),
        ],
    )?;
    // Burst: 1 ms at the rate (at least 64 KiB, one GSO segment); queue: 10 ms.
    let burst = (rate_bps / 8 / 1000).max(65_536);
    let limit = (rate_bps / 8 / 100).max(4 * burst);
    let out = Command::new("tc")
        .args(["-n", &s, "qdisc", "add", "dev", "v0", "root", "tbf"])
        .args(["rate", &format!("{rate_bps}bit")])
        .args(["burst", &burst.to_string(), "limit", &limit.to_string()])
        .stdin(Stdio::null())
        .output()
        .map_err(io("cannot run tc (install iproute2)"))?;
    if !out.status.success() {
        return Err(CpuBenchError::Tc {
            ns: s,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok((s, r))
}

/// One kernel-TCP run with congestion control `cc`: a sender thread in `s` writes for
/// `secs` to a receiver thread in `r`.
fn tcp_run(s: &str, r: &str, cc: &str, secs: f64) -> Result<Sample, CpuBenchError> {
    let (tx, rx) = std::sync::mpsc::channel::<u16>();
    let receiver = netns::spawn_in(r, "scv-cpu-recv", move || {
        let l = TcpListener::bind((RECEIVER_IP, 0))
            .map_err(io(format!("receiver bind {RECEIVER_IP}")))?;
        tx.send(l.local_addr().map_err(CpuBenchError::Plain)?.port())
            .map_err(|_| CpuBenchError::Channel)?;
        let (mut c, _) = l.accept().map_err(io("accept"))?;
        let (u0, s0) = thread_cpu();
        let t0 = Instant::now();
        let mut buf = vec![0u8; 1 << 18];
        let mut n = 0u64;
        loop {
            match c.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => n += k as u64,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io("receive")(e)),
            }
        }
        let (u1, s1) = thread_cpu();
        Ok::<_, CpuBenchError>((n, t0.elapsed().as_secs_f64(), u1 - u0 + s1 - s0))
    })?;
    let port = rx
        .recv_timeout(Duration::from_secs(10))
        .map_err(|_| CpuBenchError::ReceiverNotStarted);
    let port = match port {
        Ok(p) => p,
        Err(e) => {
            let why = receiver.join().ok().and_then(|r| r.err());
            return Err(why.unwrap_or(e));
        }
    };
    let cc_name = cc.to_string();
    let sender = netns::spawn_in(s, "scv-cpu-send", move || {
        let (u0, s0) = thread_cpu();
        let mut c = sys::tcp_connect(RECEIVER_IP, port, &cc_name)
            .map_err(io(format!("connect with {cc_name}")))?;
        let buf = vec![0x5au8; 1 << 18];
        let t0 = Instant::now();
        while t0.elapsed().as_secs_f64() < secs && !netns::stop_requested() {
            c.write_all(&buf).map_err(io("send"))?;
        }
        drop(c);
        let (u1, s1) = thread_cpu();
        Ok::<_, CpuBenchError>((u1 - u0, s1 - s0))
    })?;
    let sent = sender.join().map_err(|_| CpuBenchError::SenderPanicked)?;
    let got = receiver
        .join()
        .map_err(|_| CpuBenchError::ReceiverPanicked)?;
    let (su, ss) = sent?;
    let (bytes, wall_s, rs) = got?;
    Ok(Sample {
        bytes,
        wall_s,
        sender_user_s: su,
        sender_sys_s: ss,
        receiver_s: rs,
        agent_s: 0.0,
    })
}

/// A `scavenger receive` child in the receiver namespace, killed and reaped on drop.
struct QuicReceiver {
    child: Child,
    addr: String,
    fingerprint: String,
}

impl QuicReceiver {
    fn start(exe: &Path, r: &str, dir: &Path, token: &Path) -> Result<QuicReceiver, CpuBenchError> {
        let mut child = Command::new("ip")
            .args(["netns", "exec", r])
            .arg(exe)
            .args(["receive", "--listen", &format!("{RECEIVER_IP}:0"), "--dir"])
            .arg(dir)
            .arg("--token-file")
            .arg(token)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io(format!("cannot start {} receive", exe.display())))?;
        let mut line = String::new();
        let read = BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line);
        // "listening on ADDR fingerprint FP"
        let w: Vec<&str> = line.split_whitespace().collect();
        let mut rx = QuicReceiver {
            child,
            addr: String::new(),
            fingerprint: String::new(),
        };
        match (read, w.as_slice()) {
            (Ok(_), ["listening", "on", addr, "fingerprint", fp]) => {
                rx.addr = addr.to_string();
                rx.fingerprint = fp.to_string();
                Ok(rx)
            }
            _ => Err(CpuBenchError::NoAddress(line)),
        }
    }

    /// User + system seconds of the receiver process so far (/proc/PID/stat 14 and 15).
    fn cpu_s(&self) -> f64 {
        proc_cpu_s(self.child.id()).unwrap_or(f64::NAN)
    }
}

impl Drop for QuicReceiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn proc_cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the file are the 12th and 13th after the command name.
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK).ok()?? as f64;
    Some(ticks / hz)
}

/// One QUIC run: `scavenger send FILE` in the sender namespace, its CPU from wait4.
fn quic_run(
    exe: &Path,
    s: &str,
    rx: &QuicReceiver,
    file: &Path,
    dir: &Path,
    token: &Path,
    alg: &str,
) -> Result<Sample, CpuBenchError> {
    let _ = std::fs::remove_file(dir.join(file.file_name().expect("a file name")));
    let r0 = rx.cpu_s();
    let t0 = Instant::now();
    let err_path = dir.with_extension("send-stderr");
    let err = std::fs::File::create(&err_path).map_err(CpuBenchError::Plain)?;
    let child = Command::new("ip")
        .args(["netns", "exec", s])
        .arg(exe)
        .arg("send")
        .arg(file)
        .args(["--to", &rx.addr, "--fingerprint", &rx.fingerprint])
        .arg("--token-file")
        .arg(token)
        .args(["--algorithm", alg])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .map_err(io(format!("cannot start {} send", exe.display())))?;
    // `ip netns exec` execs the command in place, so the child is the sender; wait4
    // gives its (all threads') user and system time.
    let mut status = 0;
    // SAFETY: nix has no wait4 (waitpid gives no rusage). An all-zero rusage is a valid
    // value, and wait4 fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child (not yet reaped) with pointers valid for the call.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    let wall_s = t0.elapsed().as_secs_f64();
    if pid < 0 {
        return Err(io("wait4")(std::io::Error::last_os_error()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let msg = std::fs::read_to_string(&err_path).unwrap_or_default();
        return Err(CpuBenchError::SendFailed {
            alg: alg.to_string(),
            stderr: msg.trim().to_string(),
        });
    }
    let bytes = std::fs::metadata(file).map_err(CpuBenchError::Plain)?.len();
    Ok(Sample {
        bytes,
        wall_s,
        sender_user_s: tv(ru.ru_utime),
        sender_sys_s: tv(ru.ru_stime),
        receiver_s: rx.cpu_s() - r0,
        agent_s: 0.0,
    })
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs every case at every rate, `reps` times, cases interleaved within each repetition
/// so that the machine's load drifts over all of them alike; calls `line` with each row
/// as it is done. Everything it creates (namespaces, registrations, the agent, child
/// processes, files) is removed on every exit path, SIGINT included.
pub fn run(
    cfg: &CpuBenchConfig,
    line: &mut dyn FnMut(&CpuRow),
) -> Result<Vec<CpuRow>, CpuBenchError> {
    if cfg.reps == 0 || cfg.secs.is_nan() || cfg.secs <= 0.0 || cfg.rates_bps.is_empty() {
        return Err(CpuBenchError::BadConfig {
            reps: cfg.reps,
            secs: cfg.secs,
        });
    }
    if !sys::is_root() {
        return Err(CpuBenchError::NeedsRoot);
    }
    netns::install_signal_handlers();
    let cases = cases(cfg);
    if cases.is_empty() {
        return Err(CpuBenchError::NoCase(cfg.only.clone()));
    }
    // Registrations private to this process, held for the whole benchmark.
    let mut guards: Vec<(String, LoadGuard)> = Vec::new();
    let needs_kernel = cases
        .iter()
        .any(|c| matches!(c.kind, Kind::Native(_) | Kind::Shim { .. }));
    if needs_kernel {
        if let Some(why) = scavenger_kernel::unavailable_reason() {
            return Err(CpuBenchError::BpfUnavailable(why));
        }
    }
    for c in &cases {
        let name = match c.kind {
            Kind::Native(n) => n,
            Kind::Shim { .. } => "scv_shim",
            _ => continue,
        };
        if !guards.iter().any(|(n, _)| n == name) {
            let g = LoadGuard::new(manage::find(name)?, &[])?;
            guards.push((name.to_string(), g));
        }
    }
    let kname = |n: &str| {
        guards
            .iter()
            .find(|(g, _)| g == n)
            .map(|(_, g)| g.name().to_string())
            .expect("registered above")
    };
    let scratch = Scratch(std::env::temp_dir().join(format!("scv-cpu-{}", std::process::id())));
    let quic = match &cfg.scavenger_exe {
        Some(exe) if cases.iter().any(|c| matches!(c.kind, Kind::Quic(_))) => {
            std::fs::create_dir_all(scratch.0.join("dst")).map_err(CpuBenchError::Plain)?;
            let file = scratch.0.join("payload.bin");
            write_payload(&file, cfg.quic_bytes)?;
            let token = scratch.0.join("token");
            std::fs::write(&token, "cpu-bench\n").map_err(CpuBenchError::Plain)?;
            Some((exe.clone(), file, token))
        }
        _ => None,
    };
    let mut rows = Vec::new();
    for &rate in &cfg.rates_bps {
        let ns = Namespaces::new();
        let (s, r) = build_path(&ns, rate)?;
        let qrx = match &quic {
            Some((exe, _, token)) => {
                Some(QuicReceiver::start(exe, &r, &scratch.0.join("dst"), token)?)
            }
            None => None,
        };
        let mut samples: Vec<Vec<Sample>> = cases.iter().map(|_| Vec::new()).collect();
        for _ in 0..cfg.reps {
            for (i, c) in cases.iter().enumerate() {
                if netns::stop_requested() {
                    return Err(CpuBenchError::Interrupted);
                }
                let x = match &c.kind {
                    Kind::Kernel(cc) => tcp_run(&s, &r, cc, cfg.secs)?,
                    Kind::Native(n) => tcp_run(&s, &r, &kname(n), cfg.secs)?,
                    Kind::Shim { alg, wake_us } => {
                        let target = guards
                            .iter()
                            .find(|(g, _)| g == "scv_shim")
                            .map(|(_, g)| g.target.clone())
                            .expect("registered above");
                        let mut ac = AgentConfig::new(alg);
                        ac.wake = scavenger_cc::units::Dur::from_micros(*wake_us);
                        ac.shim = Some(target.clone());
                        let h = AgentHandle::spawn(ac)?;
                        let res = tcp_run(&s, &r, &target.name, cfg.secs);
                        let st = h.stop()?;
                        let mut x = res?;
                        x.agent_s = st.cpu_ns as f64 * 1e-9;
                        x
                    }
                    Kind::Quic(alg) => {
                        let (exe, file, token) = quic.as_ref().expect("set up above");
                        let rx = qrx.as_ref().expect("started above");
                        quic_run(exe, &s, rx, file, &scratch.0.join("dst"), token, alg)?
                    }
                };
                samples[i].push(x);
            }
        }
        drop(qrx);
        for (c, s) in cases.iter().zip(&samples) {
            let row = row(c, rate, s);
            line(&row);
            rows.push(row);
        }
        ns.delete_all()?;
    }
    drop(guards);
    Ok(rows)
}

/// A file of `n` incompressible-looking bytes (xorshift), written once per benchmark.
fn write_payload(path: &Path, n: u64) -> Result<(), CpuBenchError> {
    let what = || io(path.display().to_string());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(what())?);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut buf = vec![0u8; 1 << 20];
    let mut left = n;
    while left > 0 {
        for w in buf.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            w.copy_from_slice(&x.to_le_bytes()[..w.len()]);
        }
        let k = left.min(buf.len() as u64) as usize;
        f.write_all(&buf[..k]).map_err(what())?;
        left -= k as u64;
    }
    f.flush().map_err(what())
}

/// The load averages (1, 5, 15 min) as /proc/loadavg gives them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(vec![]).is_nan());
    }

    #[test]
    fn a_row_is_per_gigabyte_of_delivered_bytes() {
        let c = Case {
            label: "x".into(),
            kind: Kind::Kernel("cubic"),
        };
        let s = Sample {
            bytes: 2_000_000_000,
            wall_s: 2.0,
            sender_user_s: 0.1,
            sender_sys_s: 0.5,
            receiver_s: 0.4,
            agent_s: 0.2,
        };
        let r = row(&c, 10_000_000_000, &[s]);
        assert!((r.goodput_bps - 8e9).abs() < 1.0);
        assert!((r.sender_s_per_gb - 0.3).abs() < 1e-12);
        assert!((r.total_s_per_gb - 0.6).abs() < 1e-12);
        assert!(r
            .line()
            .starts_with("cc=x rate=10Gbit reps=1 goodput_gbps=8.000"));
    }

    #[test]
    fn only_filters_cases_and_quic_needs_the_executable() {
        let mut cfg = CpuBenchConfig {
            only: vec!["quic".into()],
            ..CpuBenchConfig::default()
        };
        assert!(cases(&cfg).is_empty());
        cfg.scavenger_exe = Some("scavenger".into());
        let labels: Vec<String> = cases(&cfg).into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["quic+cubic", "quic+ledbat-plus-plus"]);
    }
}
