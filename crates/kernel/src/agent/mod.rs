//! The userspace half of `scv_shim`: reads the per-ACK records the shim streams through
//! its ring buffer, runs one crates/cc `CongestionControl` per socket, and writes each
//! socket's window (and pacing rate, if the algorithm paces) back into `scv_shim_cmd`.
//! A heartbeat in `scv_shim_hb` tells the shim the agent is alive; when it stops (or is
//! older than max(200 ms, 2·srtt)) the shim falls back to Reno on its own.
//!
//! Parts: `abi` (the shim's record and command layouts), `translate` (records to
//! `CongestionControl` calls, unit-testable without root), `trace` (the optional per-socket
//! CSV of records, samples and decisions), and here the loop that polls the ring buffer and
//! writes commands, and the goal map.
//!
//! Event mapping to the `CongestionControl` calls (crates/cc/src/api.rs call order):
//! ACK → `on_ack`; ca_state entering CWR → `on_congestion(Ecn)`, Recovery →
//! `on_congestion(Loss)`, Loss → `on_rto`; back to Open → `on_recovery_exit`.

mod abi;
mod trace;
mod translate;

use abi::*;
pub use abi::{ShimCmd, ShimEvent};
pub use trace::TRACE_ENV;
use translate::Core;

use crate::libbpf::{LibbpfError, RingBuffer};
use crate::manage::{self, ManageError, Target};
use crate::params::{parse_raw, ParamError};
use crate::sys;
use scavenger_cc::params::{ParamSet, RawParam};
use scavenger_cc::registry::AlgorithmInfo;
use scavenger_cc::units::Dur;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::sys::{monotonic_ns, thread_cpu_ns};

/// Why the agent cannot start or stop, or a goal cannot be set.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(
        "unknown algorithm `{name}`; known: {}",
        scavenger_cc::registry::known_names()
    )]
    UnknownAlgorithm { name: String },
    #[error(
        "unknown DA-LBE controller `{name}`; known: {}",
        scavenger_cc::dalbe::registry::controller_names()
    )]
    UnknownController { name: String },
    #[error(
        "DA-LBE controller `{0}` steers to a deadline: give --size BYTES and --deadline DURATION"
    )]
    NeedsDeadline(&'static str),
    /// Pins in bpffs are root-only: without root every open would fail as if nothing
    /// were loaded (issue 23 item 12).
    #[error("the agent needs root (CAP_BPF and CAP_SYS_ADMIN) to open the scv_shim maps pinned in bpffs; run it as root")]
    NeedsRoot,
    #[error("mapping the shim's {what} map: {source}")]
    Map {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("cookie 0 is no socket (getsockopt(SO_COOKIE) gives a non-zero one)")]
    ZeroCookie,
    #[error("size 0: give the bytes the socket will send")]
    ZeroSize,
    #[error("writing the goal of cookie {cookie}: {source}")]
    WriteGoal { cookie: u64, source: std::io::Error },
    #[error("no goal for cookie {cookie}: {source}")]
    NoGoal { cookie: u64, source: std::io::Error },
    #[error("trace directory {}: {source}", path.display())]
    Trace {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("starting the agent thread: {0}")]
    Thread(#[source] std::io::Error),
    #[error("agent thread panicked")]
    Panicked,
    #[error("agent already stopped")]
    Stopped,
    #[error(transparent)]
    Param(#[from] ParamError),
    #[error(transparent)]
    Manage(#[from] ManageError),
    #[error(transparent)]
    Libbpf(#[from] LibbpfError),
}

/// Callers that still carry errors as text (the testbed's run loop) take these with `?`.
impl From<AgentError> for String {
    fn from(e: AgentError) -> String {
        e.to_string()
    }
}

/// A DA-LBE metacontroller around the agent's algorithm (crates/cc/src/dalbe): every
/// socket's instance is wrapped in DA-LBE and driven by its own controller instance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DalbeConfig {
    /// A name from `scavenger_cc::dalbe::CONTROLLERS` ("deadline", "working-hours", ...).
    pub controller: String,
    pub params: Vec<(String, String)>,
    /// Bytes each socket will send (S), for controllers that steer to a deadline.
    pub size: Option<u64>,
    /// Soft deadline after each socket's start.
    pub deadline: Option<Dur>,
}

pub(super) type Controller = (
    &'static scavenger_cc::dalbe::ControllerInfo,
    ParamSet,
    scavenger_cc::dalbe::FlowGoal,
);

impl DalbeConfig {
    fn resolve(&self) -> Result<Controller, AgentError> {
        let c = scavenger_cc::dalbe::find_controller(&self.controller).ok_or_else(|| {
            AgentError::UnknownController {
                name: self.controller.clone(),
            }
        })?;
        let set = resolve_params(c.name, c.params, &self.params)?;
        if c.needs_deadline && (self.deadline.is_none() || self.size.is_none()) {
            return Err(AgentError::NeedsDeadline(c.name));
        }
        Ok((
            c,
            set,
            scavenger_cc::dalbe::FlowGoal {
                size: self.size,
                deadline: self.deadline,
            },
        ))
    }
}

/// Validates NAME=VALUE pairs against a parameter table.
fn resolve_params(
    owner: &str,
    specs: &'static [scavenger_cc::params::ParamSpec],
    user: &[(String, String)],
) -> Result<ParamSet, ParamError> {
    let mut raws: Vec<(&str, RawParam)> = Vec::new();
    for (n, v) in user {
        let spec = specs
            .iter()
            .find(|p| p.name == n)
            .ok_or_else(|| ParamError::Unknown {
                name: n.clone(),
                owner: owner.to_string(),
                known: specs.iter().map(|p| p.name).collect(),
            })?;
        raws.push((spec.name, parse_raw(spec, v)?));
    }
    Ok(ParamSet::resolve(
        owner,
        specs,
        raws.iter().map(|(n, r)| (*n, r)),
    )?)
}

/// What the agent runs.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentConfig {
    /// A crates/cc algorithm name ("ledbat", "yield", "cdg", "vegas", ...).
    pub algorithm: String,
    pub params: Vec<(String, String)>,
    /// How old the heartbeat may get before the shim falls back to Reno.
    pub stale: Dur,
    /// Records wake the agent at most this often (opening and closing sockets always do).
    pub wake: Dur,
    pub seed: u64,
    /// Optional DA-LBE metacontroller around the algorithm.
    pub dalbe: Option<DalbeConfig>,
    /// The scv_shim registration whose sockets the agent serves: `None` for the shared
    /// one (`scavenger kernel load scv_shim`), else e.g. a `LoadGuard`'s private one.
    pub shim: Option<Target>,
    /// Write a CSV per socket into this directory (agent/trace.rs); `None` also lets
    /// `SCAVENGER_AGENT_TRACE` (`TRACE_ENV`) name one.
    pub trace: Option<std::path::PathBuf>,
}

impl AgentConfig {
    pub fn new(algorithm: &str) -> AgentConfig {
        AgentConfig {
            algorithm: algorithm.to_string(),
            params: Vec::new(),
            stale: crate::params::SHIM_DEFAULT_STALE,
            wake: crate::params::SHIM_DEFAULT_WAKE,
            seed: 1,
            dalbe: None,
            shim: None,
            trace: None,
        }
    }

    /// Validates the algorithm and its parameters against the crates/cc registry.
    pub fn resolve(&self) -> Result<(&'static AlgorithmInfo, ParamSet), AgentError> {
        let info = scavenger_cc::registry::find(&self.algorithm).ok_or_else(|| {
            AgentError::UnknownAlgorithm {
                name: self.algorithm.clone(),
            }
        })?;
        let set = resolve_params(info.name, info.params, &self.params)?;
        if let Some(d) = &self.dalbe {
            d.resolve()?;
        }
        Ok((info, set))
    }
}

/// Counters of one agent run.
#[derive(Clone, Copy, Debug, Default)]
pub struct AgentStats {
    pub events: u64,
    pub acks: u64,
    pub opens: u64,
    pub closes: u64,
    pub congestion_events: u64,
    pub rtos: u64,
    pub commands: u64,
    /// Returns from the ring-buffer poll (wake-ups and 10 ms timeouts).
    pub polls: u64,
    /// Sockets that opened with their own DA-LBE goal (`scavenger kernel goal`).
    pub own_goals: u64,
    /// CPU time of the agent thread while it ran, ns (includes polling and heartbeats).
    pub cpu_ns: u64,
    /// Wall time spent turning records into `CongestionControl` calls, ns (the
    /// algorithm's own cost plus decoding).
    pub handle_ns: u64,
    /// Wall time spent writing decisions into the (memory-mapped) kernel map, ns.
    pub write_ns: u64,
    pub wall_ns: u64,
    /// Trace files that could not be created or written (those sockets run untraced).
    pub trace_errors: u64,
}

impl AgentStats {
    /// Algorithm + decoding cost per ACK, ns.
    pub fn handle_ns_per_ack(&self) -> f64 {
        if self.acks == 0 {
            0.0
        } else {
            self.handle_ns as f64 / self.acks as f64
        }
    }

    pub fn cpu_ns_per_ack(&self) -> f64 {
        if self.acks == 0 {
            0.0
        } else {
            self.cpu_ns as f64 / self.acks as f64
        }
    }
}

/// Latest commands (newest last, at most 32) per (local port, remote port), for tests
/// and status output.
pub type Commanded = Arc<Mutex<HashMap<(u16, u16), Vec<ShimCmd>>>>;

unsafe extern "C" fn on_record(ctx: *mut c_void, data: *mut c_void, size: usize) -> c_int {
    if size < std::mem::size_of::<ShimEvent>() {
        return 0;
    }
    // SAFETY: ctx is the `Core` the agent loop owns and keeps alive (and does not touch)
    // while ring_buffer__poll runs; data points to `size` readable bytes of one record.
    let core = unsafe { &mut *(ctx as *mut Core) };
    let ev = unsafe { std::ptr::read_unaligned(data as *const ShimEvent) };
    let t = Instant::now();
    core.handle(&ev);
    core.stats.handle_ns += t.elapsed().as_nanos() as u64;
    0
}

struct ShimMaps {
    ring: OwnedFd,
    cmd: sys::MmapArray,
    hb: sys::MmapArray,
    /// Absent in a shim loaded by an older build (no per-socket goals then).
    goal: Option<OwnedFd>,
}

fn shim() -> Target {
    Target::shared(manage::find("scv_shim").expect("scv_shim is in the catalogue"))
}

fn open_maps(target: Option<&Target>) -> Result<ShimMaps, AgentError> {
    // Pins in bpffs are root-only: without root every open fails as if nothing were
    // loaded, so say what is really missing (issue 23 item 12).
    if !sys::is_root() {
        return Err(AgentError::NeedsRoot);
    }
    let s = target.cloned().unwrap_or_else(shim);
    let cmd = s.open_pinned("cmd")?;
    let hb = s.open_pinned("hb")?;
    let map = |fd: &OwnedFd, n: usize, what: &'static str| {
        sys::MmapArray::map(fd, n).map_err(|source| AgentError::Map { what, source })
    };
    Ok(ShimMaps {
        ring: s.open_pinned("ring")?,
        cmd: map(&cmd, SLOTS * CMD_SIZE, "command")?,
        hb: map(&hb, HB_N * 8, "heartbeat")?,
        goal: s.open_pinned("goal").ok(),
    })
}

fn write_hb(hb: &sys::MmapArray, slot: u32, v: u64) {
    hb.write_u64(slot as usize * 8, v);
}

/// Stores a decision in the socket's slot with plain stores (the map is mmapped); cwnd
/// goes last, as a non-zero cwnd is what makes the slot valid for the shim. A slot shared
/// by two live sockets (ids 16384 apart) goes to the newer writer and the other socket
/// runs the Reno fallback.
fn write_cmd(cmd: &sys::MmapArray, c: &ShimCmd) {
    let base = (c.id as usize & (SLOTS - 1)) * CMD_SIZE;
    if cmd.read_u64(base) != c.id {
        cmd.write_u32(base + 8, 0);
        cmd.write_u64(base, c.id);
    }
    cmd.write_u32(base + 12, c.ssthresh);
    cmd.write_u64(base + 16, c.pacing_rate);
    cmd.write_u64(base + 24, c.written_ns);
    cmd.write_u64(base + 32, c.seq);
    std::sync::atomic::fence(Ordering::Release);
    cmd.write_u32(base + 8, c.cwnd);
}

fn clear_cmd(cmd: &sys::MmapArray, id: u64) {
    let base = (id as usize & (SLOTS - 1)) * CMD_SIZE;
    if cmd.read_u64(base) == id {
        cmd.write_u32(base + 8, 0);
    }
}

/// `struct scv_shim_goal` as stored: size (bytes, 0 = unknown), deadline (ns, 0 = none).
fn goal_bytes(g: &scavenger_cc::dalbe::FlowGoal) -> [u8; 16] {
    let mut v = [0u8; 16];
    v[..8].copy_from_slice(&g.size.unwrap_or(0).to_ne_bytes());
    v[8..].copy_from_slice(&g.deadline.map_or(0, |d| d.nanos()).to_ne_bytes());
    v
}

pub(super) fn read_goal(fd: &OwnedFd, cookie: u64) -> Option<scavenger_cc::dalbe::FlowGoal> {
    let mut v = [0u8; 16];
    sys::map_lookup(fd, &cookie.to_ne_bytes(), &mut v).ok()?;
    let size = u64::from_ne_bytes(v[..8].try_into().unwrap());
    let deadline = u64::from_ne_bytes(v[8..].try_into().unwrap());
    Some(scavenger_cc::dalbe::FlowGoal {
        size: (size > 0).then_some(size),
        deadline: (deadline > 0).then_some(Dur(deadline)),
    })
}

/// Registers a DA-LBE goal for the socket with this cookie (`getsockopt(SO_COOKIE)`),
/// for an agent running with a DA-LBE controller. The agent reads it when the socket
/// starts using scv_shim, so register it before `setsockopt(TCP_CONGESTION, "scv_shim")`.
pub fn set_goal(cookie: u64, goal: scavenger_cc::dalbe::FlowGoal) -> Result<(), AgentError> {
    set_goal_in(&shim(), cookie, goal)
}

/// `set_goal` for the scv_shim registration `shim` (e.g. a `LoadGuard`'s).
pub fn set_goal_in(
    shim: &Target,
    cookie: u64,
    goal: scavenger_cc::dalbe::FlowGoal,
) -> Result<(), AgentError> {
    if cookie == 0 {
        return Err(AgentError::ZeroCookie);
    }
    if goal.size == Some(0) {
        return Err(AgentError::ZeroSize);
    }
    let fd = shim.open_pinned("goal")?;
    sys::map_update(&fd, &cookie.to_ne_bytes(), &goal_bytes(&goal))
        .map_err(|source| AgentError::WriteGoal { cookie, source })
}

/// Forgets a socket's goal (also do this when the socket closes: the map holds 4096).
pub fn clear_goal(cookie: u64) -> Result<(), AgentError> {
    clear_goal_in(&shim(), cookie)
}

/// `clear_goal` for the scv_shim registration `shim`.
pub fn clear_goal_in(shim: &Target, cookie: u64) -> Result<(), AgentError> {
    let fd = shim.open_pinned("goal")?;
    sys::map_delete(&fd, &cookie.to_ne_bytes())
        .map_err(|source| AgentError::NoGoal { cookie, source })
}

/// The trace directory: the configuration's, else `SCAVENGER_AGENT_TRACE`'s (an empty
/// value is none); created if missing.
fn trace_dir(cfg: &AgentConfig) -> Result<Option<std::path::PathBuf>, AgentError> {
    let dir = cfg.trace.clone().or_else(|| {
        std::env::var_os(TRACE_ENV)
            .filter(|v| !v.is_empty())
            .map(Into::into)
    });
    if let Some(d) = &dir {
        std::fs::create_dir_all(d).map_err(|source| AgentError::Trace {
            path: d.clone(),
            source,
        })?;
    }
    Ok(dir)
}

/// Runs the agent until `stop` is set (or `duration` passes). Needs `scv_shim` loaded.
pub fn run(
    cfg: &AgentConfig,
    stop: &AtomicBool,
    duration: Option<Duration>,
    commanded: Commanded,
) -> Result<AgentStats, AgentError> {
    let (info, params) = cfg.resolve()?;
    let mut maps = open_maps(cfg.shim.as_ref())?;
    // The ring buffer callback gets this pointer; the loop below uses it only between polls.
    let dalbe = cfg.dalbe.as_ref().map(|d| d.resolve()).transpose()?;
    let trace_dir = trace_dir(cfg)?;
    let core_ptr: *mut Core = Box::into_raw(Box::new(Core {
        info,
        params,
        dalbe,
        seed: cfg.seed,
        flows: HashMap::new(),
        stats: AgentStats::default(),
        closed: Vec::new(),
        commanded,
        goals: maps.goal.take(),
        epoch_ns: monotonic_ns(),
        trace_dir,
    }));
    // SAFETY: core_ptr is the `Core` on_record expects; it lives until after `rb` is
    // dropped below, and this loop touches it only between polls.
    let rb =
        match unsafe { RingBuffer::new(maps.ring.as_raw_fd(), on_record, core_ptr as *mut c_void) }
        {
            Ok(rb) => rb,
            Err(e) => {
                // SAFETY: nobody else got the pointer.
                drop(unsafe { Box::from_raw(core_ptr) });
                return Err(e.into());
            }
        };
    write_hb(&maps.hb, HB_STALE_NS, cfg.stale.nanos());
    write_hb(&maps.hb, HB_WAKE_NS, cfg.wake.nanos().max(1));
    let started = Instant::now();
    let cpu0 = thread_cpu_ns();
    let mut result = Ok(());
    while !stop.load(Ordering::Relaxed) && duration.is_none_or(|d| started.elapsed() < d) {
        write_hb(&maps.hb, HB_AGENT_NS, monotonic_ns());
        if let Err(e) = rb.poll(10) {
            result = Err(AgentError::from(e));
            break;
        }
        // SAFETY: poll has returned, so the callback no longer holds the pointer.
        let core = unsafe { &mut *core_ptr };
        core.stats.polls += 1;
        let now = monotonic_ns();
        let mut cmds = Vec::new();
        for (id, f) in core.flows.iter_mut().filter(|(_, f)| f.dirty) {
            f.dirty = false;
            let ss = f.cc.ssthresh();
            let c = ShimCmd {
                id: *id,
                cwnd: (f.cc.cwnd() / f.mss).clamp(1, INFINITE_SSTHRESH as u64) as u32,
                ssthresh: if ss == u64::MAX {
                    INFINITE_SSTHRESH
                } else {
                    (ss / f.mss).clamp(1, INFINITE_SSTHRESH as u64) as u32
                },
                pacing_rate: f.cc.pacing_rate().map_or(0, |r| (r.bps() / 8).max(1)),
                written_ns: now,
                seq: f.last.seq + 1,
            };
            if (c.cwnd, c.ssthresh, c.pacing_rate)
                != (f.last.cwnd, f.last.ssthresh, f.last.pacing_rate)
            {
                f.last = c;
                cmds.push((c, f.sport, f.dport));
            }
        }
        let tw = Instant::now();
        let had = !cmds.is_empty();
        for (c, sport, dport) in cmds {
            write_cmd(&maps.cmd, &c);
            core.stats.commands += 1;
            if let Ok(mut m) = core.commanded.lock() {
                let h = m.entry((sport, dport)).or_default();
                if h.len() == 32 {
                    h.remove(0);
                }
                h.push(c);
            }
        }
        if had {
            core.stats.write_ns += tw.elapsed().as_nanos() as u64;
        }
        for id in core.closed.drain(..) {
            clear_cmd(&maps.cmd, id);
        }
    }
    // Tell the shim at once that nobody is deciding any more (Reno from the next ACK).
    write_hb(&maps.hb, HB_AGENT_NS, 0);
    drop(rb);
    // SAFETY: the ring buffer (the only other user of the pointer) is gone.
    let core = unsafe { Box::from_raw(core_ptr) };
    let mut stats = core.stats;
    stats.cpu_ns = thread_cpu_ns().saturating_sub(cpu0);
    stats.wall_ns = started.elapsed().as_nanos() as u64;
    result.map(|_| stats)
}

/// An agent on its own thread.
pub struct AgentHandle {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Result<AgentStats, AgentError>>>,
    pub commanded: Commanded,
}

impl AgentHandle {
    pub fn spawn(cfg: AgentConfig) -> Result<AgentHandle, AgentError> {
        cfg.resolve()?;
        open_maps(cfg.shim.as_ref())?;
        let stop = Arc::new(AtomicBool::new(false));
        let commanded: Commanded = Arc::default();
        let (s, c) = (stop.clone(), commanded.clone());
        let thread = std::thread::Builder::new()
            .name("scv-agent".into())
            .spawn(move || run(&cfg, &s, None, c))
            .map_err(AgentError::Thread)?;
        Ok(AgentHandle {
            stop,
            thread: Some(thread),
            commanded,
        })
    }

    /// The agent's latest command for the socket with these ports.
    pub fn command_for(&self, sport: u16, dport: u16) -> Option<ShimCmd> {
        self.commanded
            .lock()
            .ok()?
            .get(&(sport, dport))
            .and_then(|h| h.last().copied())
    }

    /// The agent's last (up to 32) commands for that socket, oldest first.
    pub fn recent_commands(&self, sport: u16, dport: u16) -> Vec<ShimCmd> {
        self.commanded
            .lock()
            .ok()
            .and_then(|m| m.get(&(sport, dport)).cloned())
            .unwrap_or_default()
    }

    /// The windows of the agent's last (up to 32) commands for that socket.
    pub fn recent_cwnds(&self, sport: u16, dport: u16) -> Vec<u32> {
        self.recent_commands(sport, dport)
            .iter()
            .map(|c| c.cwnd)
            .collect()
    }

    pub fn stop(mut self) -> Result<AgentStats, AgentError> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .map(|t| t.join().map_err(|_| AgentError::Panicked)?)
            .unwrap_or(Err(AgentError::Stopped))
    }
}

impl Drop for AgentHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_errors_name_what_is_wrong() {
        assert_eq!(
            AgentError::NeedsRoot.to_string(),
            "the agent needs root (CAP_BPF and CAP_SYS_ADMIN) to open the scv_shim maps pinned in bpffs; run it as root"
        );
        let e = AgentConfig::new("no-such-cc")
            .resolve()
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("unknown algorithm `no-such-cc`; known: ") && e.contains("ledbat"),
            "{e}"
        );
        let mut cfg = AgentConfig::new("ledbat");
        cfg.params = vec![("nonsense".into(), "1".into())];
        let e = cfg.resolve().err().unwrap().to_string();
        assert!(
            e.starts_with("unknown parameter `nonsense` for ledbat; known: ")
                && e.contains("target"),
            "{e}"
        );
        let deadline = scavenger_cc::dalbe::registry::CONTROLLERS
            .iter()
            .find(|c| c.needs_deadline)
            .expect("a controller steers to a deadline");
        let mut cfg = AgentConfig::new("ledbat");
        cfg.dalbe = Some(DalbeConfig {
            controller: deadline.name.into(),
            ..Default::default()
        });
        assert_eq!(
            cfg.resolve().err().unwrap().to_string(),
            format!(
                "DA-LBE controller `{}` steers to a deadline: give --size BYTES and --deadline DURATION",
                deadline.name
            )
        );
        let e = set_goal_in(&shim(), 0, Default::default()).unwrap_err();
        assert!(matches!(e, AgentError::ZeroCookie), "{e}");
    }

    /// Without root the pinned maps cannot be opened even when the shim is loaded: the
    /// agent must say that it needs root, not that the shim is missing (issue 23 item 12).
    /// As root, the check runs in a child process that dropped to `nobody`.
    #[test]
    fn the_agent_without_root_says_it_needs_root() {
        const ENV: &str = "SCAVENGER_TEST_AS_NOBODY";
        if std::env::var_os(ENV).is_some() {
            // SAFETY: plain setgid/setuid calls in a single-purpose child process.
            unsafe {
                assert_eq!(libc::setgid(65534), 0, "setgid");
                assert_eq!(libc::setuid(65534), 0, "setuid");
            }
        }
        if !sys::is_root() {
            let e = open_maps(None)
                .err()
                .expect("opening the maps fails without root")
                .to_string();
            assert!(e.contains("needs root") && !e.contains("not loaded"), "{e}");
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "agent::tests::the_agent_without_root_says_it_needs_root",
            ])
            .env(ENV, "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "child as nobody: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
