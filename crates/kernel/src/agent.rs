//! The userspace half of `scv_shim`: reads the per-ACK records the shim streams through
//! its ring buffer, runs one crates/cc `CongestionControl` per socket, and writes each
//! socket's window (and pacing rate, if the algorithm paces) back into `scv_shim_cmd`.
//! A heartbeat in `scv_shim_hb` tells the shim the agent is alive; when it stops (or is
//! older than max(200 ms, 2·srtt)) the shim falls back to Reno on its own.
//!
//! Event mapping to the `CongestionControl` calls (crates/cc/src/api.rs call order):
//! ACK → `on_ack`; ca_state entering CWR → `on_congestion(Ecn)`, Recovery →
//! `on_congestion(Loss)`, Loss → `on_rto`; back to Open → `on_recovery_exit`.

use crate::libbpf::RingBuffer;
use crate::manage::{self, Target};
use crate::params::parse_raw;
use crate::sys;
use scavenger_cc::api::*;
use scavenger_cc::params::{ParamSet, RawParam};
use scavenger_cc::registry::AlgorithmInfo;
use scavenger_cc::rng::Rng;
use scavenger_cc::units::{Dur, Rate, Time};
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `struct scv_shim_ev` (bpf/scv_shim.h).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ShimEvent {
    pub id: u64,
    pub ts_ns: u64,
    pub delivered: u64,
    pub srtt_us: u64,
    pub rtt_us: i64,
    pub interval_us: i64,
    pub kind: u32,
    pub mss: u32,
    pub acked_sacked: u32,
    pub rs_delivered: i32,
    pub prior_in_flight: u32,
    pub in_flight: u32,
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    pub tsval: u32,
    pub tsecr: u32,
    pub losses: i32,
    pub flag: u32,
    pub ca_state: u8,
    pub app_limited: u8,
    pub cwnd_limited: u8,
    pub usec_ts: u8,
    pub sport: u16,
    pub dport: u16,
    /// `tp->bytes_acked`: snd_una as a byte offset in the stream.
    pub bytes_acked: u64,
    /// `tp->snd_nxt - tp->snd_una`, bytes.
    pub nxt_minus_una: u32,
    /// `tp->tsoffset`: our TSval is the TCP clock (ms, or µs with usec_ts) plus this.
    pub tsoffset: u32,
    /// The socket's cookie if one was generated (SO_COOKIE), else 0.
    pub cookie: u64,
}

// bpf/scv_shim.h asserts the same size on the C side.
const _: () = assert!(std::mem::size_of::<ShimEvent>() == 128);

impl ShimEvent {
    /// snd_una and snd_nxt as byte offsets in the stream.
    fn una_nxt(&self) -> (u64, u64) {
        (
            self.bytes_acked,
            self.bytes_acked + self.nxt_minus_una as u64,
        )
    }
}

/// `struct scv_shim_cmd` (bpf/scv_shim.h).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShimCmd {
    pub id: u64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub pacing_rate: u64,
    pub written_ns: u64,
    pub seq: u64,
}

const EV_OPEN: u32 = 0;
const EV_ACK: u32 = 1;
const EV_CONGESTION: u32 = 2;
const EV_STATE: u32 = 3;
const EV_CLOSE: u32 = 4;
const EV_TX_START: u32 = 5;
const HB_AGENT_NS: u32 = 0;
const HB_STALE_NS: u32 = 2;
const HB_WAKE_NS: u32 = 4;
/// `SCV_SHIM_SLOTS` and `SCV_HB_N` (bpf/scv_shim.h).
const SLOTS: usize = 16384;
const HB_N: usize = 8;
const CMD_SIZE: usize = std::mem::size_of::<ShimCmd>();
/// Linux FLAG_ECE (net/ipv4/tcp_input.c): the ACK carried an ECN echo.
const FLAG_ECE: u32 = 0x40;
const CA_OPEN: u8 = 0;
const CA_CWR: u8 = 2;
const CA_RECOVERY: u8 = 3;
const CA_LOSS: u8 = 4;
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

use crate::sys::{monotonic_ns, thread_cpu_ns};

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

type Controller = (
    &'static scavenger_cc::dalbe::ControllerInfo,
    ParamSet,
    scavenger_cc::dalbe::FlowGoal,
);

impl DalbeConfig {
    fn resolve(&self) -> Result<Controller, String> {
        use scavenger_cc::dalbe::{find_controller, registry::controller_names};
        let c = find_controller(&self.controller).ok_or_else(|| {
            format!(
                "unknown DA-LBE controller `{}`; known: {}",
                self.controller,
                controller_names()
            )
        })?;
        let set = resolve_params(c.name, c.params, &self.params)?;
        if c.needs_deadline && (self.deadline.is_none() || self.size.is_none()) {
            return Err(format!("DA-LBE controller `{}` steers to a deadline: give --size BYTES and --deadline DURATION", c.name));
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
) -> Result<ParamSet, String> {
    let mut raws: Vec<(&str, RawParam)> = Vec::new();
    for (n, v) in user {
        let spec = specs.iter().find(|p| p.name == n).ok_or_else(|| {
            format!(
                "unknown parameter `{n}` for {owner}; known: {}",
                specs.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
            )
        })?;
        raws.push((spec.name, parse_raw(spec, v)?));
    }
    ParamSet::resolve(owner, specs, raws.iter().map(|(n, r)| (*n, r))).map_err(|e| e.to_string())
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
        }
    }

    /// Validates the algorithm and its parameters against the crates/cc registry.
    pub fn resolve(&self) -> Result<(&'static AlgorithmInfo, ParamSet), String> {
        let info = scavenger_cc::registry::find(&self.algorithm).ok_or_else(|| {
            format!(
                "unknown algorithm `{}`; known: {}",
                self.algorithm,
                scavenger_cc::registry::known_names()
            )
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

struct Flow {
    cc: Box<dyn CongestionControl>,
    mss: u64,
    ca_state: u8,
    rto_count: u32,
    last_ece: bool,
    sport: u16,
    dport: u16,
    dirty: bool,
    last: ShimCmd,
    /// The highest snd_nxt (stream offset) already reported through `on_sent`.
    sent_nxt: u64,
    /// Time of the previous record of this socket.
    last_ts: u64,
    /// (TSval − TSecr of the first timestamped ACK, the OWD (ns) it stands for).
    owd_ref: Option<(u32, i64)>,
}

impl Flow {
    /// The kernel has no per-transmission hook for congestion control, so `on_sent` is
    /// derived: new data between two records (snd_nxt moved) were sent right after the
    /// earlier record's ACK was processed (tcp_ack → tcp_data_snd_check), as one call
    /// covering all of them; `in_flight_after` is the flight size after those sends.
    /// Retransmissions do not move snd_nxt and are not reported
    /// (docs/deviations/kernel.md#kernel-shim).
    fn report_sent(&mut self, snd_nxt: u64, in_flight_after: u64) {
        if snd_nxt > self.sent_nxt {
            let sent = SentInfo {
                bytes: snd_nxt - self.sent_nxt,
                bytes_in_flight: in_flight_after,
                retransmission: false,
                seq: self.sent_nxt,
                app_limited: false,
            };
            self.cc.on_sent(Time(self.last_ts), &sent);
            self.sent_nxt = snd_nxt;
        }
    }

    /// The `AckSample` of an ACK record (after `mss` and `last_ece` were updated).
    fn ack_sample(&mut self, ev: &ShimEvent) -> AckSample {
        let mss = self.mss;
        let (snd_una, snd_nxt) = ev.una_nxt();
        let unit = if ev.usec_ts != 0 { 1_000 } else { 1_000_000 };
        // TSval − TSecr is the OWD plus the difference of the two ends' timestamp
        // offsets, which Linux randomises per connection (secure_tcp_ts_off), so
        // it can be anywhere in ±2^31 ms and wrap. Only differences are meaningful
        // (AckSample::owd), so it is taken relative to the first sample, which
        // stands for half the smoothed RTT then (at least 1 ms): positive, small
        // and without wrap-around, as the simulator's OWD
        // (docs/deviations/kernel.md#kernel-timestamps).
        let owd = (ev.tsecr != 0).then(|| {
            let diff = ev.tsval.wrapping_sub(ev.tsecr);
            let (d0, base) = *self
                .owd_ref
                .get_or_insert((diff, (ev.srtt_us as i64 * 500).max(1_000_000)));
            diff.wrapping_sub(d0) as i32 as i64 * unit + base
        });
        // RFC 7323 RTTM: our TCP timestamp clock now (tcp_time_stamp_ts: the
        // CLOCK_MONOTONIC µs clock in ms, or µs, plus tsoffset) minus TSecr.
        let ts_echo_rtt = (ev.tsecr != 0).then(|| {
            let clock = (ev.ts_ns / unit as u64) as u32;
            let d = clock.wrapping_add(ev.tsoffset).wrapping_sub(ev.tsecr) as i32;
            Dur(d.max(0) as u64 * unit as u64)
        });
        let rate = (ev.interval_us > 0 && ev.rs_delivered > 0).then(|| {
            let interval = Dur::from_micros(ev.interval_us as u64);
            let delivered = ev.rs_delivered as u64 * mss;
            RateSample {
                rate: Rate::from_bytes_over(delivered, interval),
                interval,
                delivered,
                app_limited: ev.app_limited != 0,
            }
        });
        AckSample {
            bytes_acked: ev.acked_sacked as u64 * mss,
            rtt: (ev.rtt_us > 0).then(|| Dur::from_micros(ev.rtt_us as u64)),
            owd,
            ts_echo_rtt,
            delivered: ev.delivered * mss,
            rate,
            prior_in_flight: ev.prior_in_flight as u64 * mss,
            bytes_in_flight: ev.in_flight as u64 * mss,
            app_limited: ev.app_limited != 0,
            cwnd_limited: ev.cwnd_limited != 0,
            ecn_ce: self.last_ece,
            in_recovery: ev.ca_state >= CA_CWR,
            snd_una,
            snd_nxt,
            mss,
        }
    }
}

/// Latest commands (newest last, at most 32) per (local port, remote port), for tests
/// and status output.
pub type Commanded = Arc<Mutex<HashMap<(u16, u16), Vec<ShimCmd>>>>;

struct Core {
    info: &'static AlgorithmInfo,
    params: ParamSet,
    dalbe: Option<Controller>,
    seed: u64,
    flows: HashMap<u64, Flow>,
    stats: AgentStats,
    closed: Vec<u64>,
    commanded: Commanded,
    /// scv_shim_goal (per-socket DA-LBE goals by cookie), when the shim is loaded.
    goals: Option<OwnedFd>,
    /// CLOCK_MONOTONIC when the agent started: algorithms see time since then, so that
    /// `Time::ZERO` is the start of the run as in the simulator (controllers such as
    /// working-hours map it to a time of day), not the machine's boot.
    epoch_ns: u64,
}

impl Core {
    fn flow(&mut self, ev: &ShimEvent) -> &mut Flow {
        let (info, params, seed, dalbe) = (self.info, &self.params, self.seed, &self.dalbe);
        let epoch = self.epoch_ns;
        let (goals, stats) = (&self.goals, &mut self.stats);
        self.flows.entry(ev.id).or_insert_with(|| {
            let mss = (ev.mss as u64).max(1);
            let init = CcInit {
                now: Time(ev.ts_ns.saturating_sub(epoch)),
                mss,
                initial_cwnd: ev.snd_cwnd.max(1) as u64 * mss,
                rng: Rng::new(seed ^ ev.id.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            };
            let cc = match dalbe {
                // DA-LBE (crates/cc/src/dalbe): the socket's instance under its own
                // controller, ticked by the socket's events.
                Some((c, cp, goal)) => {
                    let inner = info.instantiate(params, init.clone());
                    // A goal registered for this socket's cookie replaces the agent's.
                    let own = goals
                        .as_ref()
                        .filter(|_| ev.cookie != 0)
                        .and_then(|fd| read_goal(fd, ev.cookie));
                    if own.is_some() {
                        stats.own_goals += 1;
                    }
                    scavenger_cc::dalbe::controlled(
                        inner,
                        (c.build)(cp),
                        own.unwrap_or(*goal),
                        &init,
                    )
                }
                None => info.instantiate(params, init),
            };
            Flow {
                cc,
                mss,
                ca_state: CA_OPEN,
                rto_count: 0,
                last_ece: false,
                sport: ev.sport,
                dport: ev.dport,
                dirty: true,
                last: ShimCmd::default(),
                sent_nxt: ev.una_nxt().1,
                last_ts: ev.ts_ns.saturating_sub(epoch),
                owd_ref: None,
            }
        })
    }

    fn handle(&mut self, ev: &ShimEvent) {
        self.stats.events += 1;
        let now = Time(ev.ts_ns.saturating_sub(self.epoch_ns));
        match ev.kind {
            EV_OPEN => {
                self.stats.opens += 1;
                self.flow(ev);
            }
            EV_CLOSE => {
                self.stats.closes += 1;
                self.flows.remove(&ev.id);
                self.closed.push(ev.id);
            }
            EV_CONGESTION => self.stats.congestion_events += 1,
            EV_TX_START => {
                // CA_EVENT_TX_START fires before the first segment from an empty pipe
                // is counted: report that segment now (in flight = itself), so that
                // idle-restart logic (CUBIC's epoch shift, Vegas/Nice re-init) runs at
                // the right time. With snd_nxt past snd_una it is an RTO retransmission.
                let f = self.flow(ev);
                let (una, nxt) = ev.una_nxt();
                let mss = f.mss;
                f.report_sent(nxt, nxt - una);
                let sent = SentInfo {
                    bytes: mss,
                    bytes_in_flight: mss,
                    retransmission: nxt > una,
                    // The head of the queue: new data at snd_nxt = snd_una, or the RTO's
                    // retransmission of snd_una.
                    seq: una,
                    app_limited: false,
                };
                f.cc.on_sent(now, &sent);
                if nxt == una {
                    f.sent_nxt = nxt + mss;
                }
                f.last_ts = now.nanos();
                f.dirty = true;
            }
            EV_STATE => {
                let new = ev.flag as u8;
                let f = self.flow(ev);
                let old = f.ca_state;
                let mss = f.mss;
                let in_flight = ev.in_flight as u64 * mss;
                if new == CA_LOSS {
                    f.rto_count += 1;
                    let n = f.rto_count;
                    f.cc.on_rto(
                        now,
                        &RtoEvent {
                            bytes_in_flight: in_flight,
                            backoff_count: n,
                            mss,
                        },
                    );
                    f.ca_state = new;
                    f.dirty = true;
                    self.stats.rtos += 1;
                    return;
                } else if (new == CA_RECOVERY || new == CA_CWR) && old < CA_CWR {
                    let kind = if new == CA_CWR {
                        CongestionKind::Ecn
                    } else {
                        CongestionKind::Loss
                    };
                    let lost = if kind == CongestionKind::Loss { mss } else { 0 };
                    f.cc.on_congestion(
                        now,
                        &CongestionEvent {
                            kind,
                            bytes_in_flight: in_flight,
                            bytes_lost: lost,
                            mss,
                        },
                    );
                } else if new == CA_OPEN && old >= CA_CWR {
                    f.cc.on_recovery_exit(now);
                    f.rto_count = 0;
                }
                f.ca_state = new;
                f.dirty = true;
            }
            EV_ACK => {
                self.stats.acks += 1;
                let f = self.flow(ev);
                let mss = (ev.mss as u64).max(1);
                f.mss = mss;
                let snd_nxt = ev.una_nxt().1;
                f.report_sent(snd_nxt, ev.prior_in_flight as u64 * mss);
                f.last_ts = now.nanos();
                f.ca_state = ev.ca_state;
                f.last_ece = ev.flag & FLAG_ECE != 0;
                let ack = f.ack_sample(ev);
                f.cc.on_ack(now, &ack);
                f.dirty = true;
            }
            _ => {}
        }
    }
}

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

fn open_maps(target: Option<&Target>) -> Result<ShimMaps, String> {
    // Pins in bpffs are root-only: without root every open fails as if nothing were
    // loaded, so say what is really missing (issue 23 item 12).
    if !sys::is_root() {
        return Err(
            "the agent needs root (CAP_BPF and CAP_SYS_ADMIN) to open the scv_shim maps pinned in bpffs; run it as root"
                .into(),
        );
    }
    let s = target.cloned().unwrap_or_else(shim);
    let cmd = s.open_pinned("cmd")?;
    let hb = s.open_pinned("hb")?;
    let map = |fd: &OwnedFd, n: usize, what: &str| {
        sys::MmapArray::map(fd, n).map_err(|e| format!("mapping the shim's {what} map: {e}"))
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

fn read_goal(fd: &OwnedFd, cookie: u64) -> Option<scavenger_cc::dalbe::FlowGoal> {
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
pub fn set_goal(cookie: u64, goal: scavenger_cc::dalbe::FlowGoal) -> Result<(), String> {
    set_goal_in(&shim(), cookie, goal)
}

/// `set_goal` for the scv_shim registration `shim` (e.g. a `LoadGuard`'s).
pub fn set_goal_in(
    shim: &Target,
    cookie: u64,
    goal: scavenger_cc::dalbe::FlowGoal,
) -> Result<(), String> {
    if cookie == 0 {
        return Err("cookie 0 is no socket (getsockopt(SO_COOKIE) gives a non-zero one)".into());
    }
    if goal.size == Some(0) {
        return Err("size 0: give the bytes the socket will send".into());
    }
    let fd = shim.open_pinned("goal")?;
    sys::map_update(&fd, &cookie.to_ne_bytes(), &goal_bytes(&goal))
        .map_err(|e| format!("writing the goal of cookie {cookie}: {e}"))
}

/// Forgets a socket's goal (also do this when the socket closes: the map holds 4096).
pub fn clear_goal(cookie: u64) -> Result<(), String> {
    clear_goal_in(&shim(), cookie)
}

/// `clear_goal` for the scv_shim registration `shim`.
pub fn clear_goal_in(shim: &Target, cookie: u64) -> Result<(), String> {
    let fd = shim.open_pinned("goal")?;
    sys::map_delete(&fd, &cookie.to_ne_bytes())
        .map_err(|e| format!("no goal for cookie {cookie}: {e}"))
}

/// Runs the agent until `stop` is set (or `duration` passes). Needs `scv_shim` loaded.
pub fn run(
    cfg: &AgentConfig,
    stop: &AtomicBool,
    duration: Option<Duration>,
    commanded: Commanded,
) -> Result<AgentStats, String> {
    let (info, params) = cfg.resolve()?;
    let mut maps = open_maps(cfg.shim.as_ref())?;
    // The ring buffer callback gets this pointer; the loop below uses it only between polls.
    let dalbe = cfg.dalbe.as_ref().map(|d| d.resolve()).transpose()?;
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
                return Err(e);
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
            result = Err(e);
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
    thread: Option<std::thread::JoinHandle<Result<AgentStats, String>>>,
    pub commanded: Commanded,
}

impl AgentHandle {
    pub fn spawn(cfg: AgentConfig) -> Result<AgentHandle, String> {
        cfg.resolve()?;
        open_maps(cfg.shim.as_ref())?;
        let stop = Arc::new(AtomicBool::new(false));
        let commanded: Commanded = Arc::default();
        let (s, c) = (stop.clone(), commanded.clone());
        let thread = std::thread::Builder::new()
            .name("scv-agent".into())
            .spawn(move || run(&cfg, &s, None, c))
            .map_err(|e| format!("starting the agent thread: {e}"))?;
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

    pub fn stop(mut self) -> Result<AgentStats, String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .map(|t| t.join().map_err(|_| "agent thread panicked".to_string())?)
            .unwrap_or(Err("agent already stopped".into()))
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

    const MSS: u32 = 1000;

    fn core(cfg: &AgentConfig) -> Core {
        let (info, params) = cfg.resolve().unwrap();
        Core {
            info,
            params,
            dalbe: cfg.dalbe.as_ref().map(|d| d.resolve().unwrap()),
            seed: cfg.seed,
            flows: HashMap::new(),
            stats: AgentStats::default(),
            closed: Vec::new(),
            commanded: Commanded::default(),
            goals: None,
            epoch_ns: 0,
        }
    }

    fn ev(kind: u32, ts_ms: u64, una: u64, nxt: u64) -> ShimEvent {
        ShimEvent {
            id: 7,
            ts_ns: ts_ms * 1_000_000,
            delivered: una / MSS as u64,
            srtt_us: 0,
            rtt_us: -1,
            interval_us: 0,
            kind,
            mss: MSS,
            acked_sacked: 0,
            rs_delivered: 0,
            prior_in_flight: 0,
            in_flight: ((nxt - una) / MSS as u64) as u32,
            snd_cwnd: 10,
            snd_ssthresh: INFINITE_SSTHRESH,
            tsval: 0,
            tsecr: 0,
            losses: 0,
            flag: 0,
            ca_state: CA_OPEN,
            app_limited: 0,
            cwnd_limited: 1,
            usec_ts: 0,
            sport: 1,
            dport: 2,
            bytes_acked: una,
            nxt_minus_una: (nxt - una) as u32,
            tsoffset: 0,
            cookie: 0,
        }
    }

    /// A cwnd-limited transfer: every ACK covers one segment and releases the window's
    /// worth of new data; the RTT is `rtt_ms(ack number)`.
    fn drive(c: &mut Core, acks: u64, rtt_ms: impl Fn(u64) -> u64) -> Vec<u64> {
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        c.handle(&ev(EV_TX_START, 0, 0, 0));
        let (mut una, mut t) = (0u64, 0u64);
        let mut nxt = 10 * MSS as u64;
        let mut windows = Vec::new();
        for k in 0..acks {
            una += MSS as u64;
            t += 10;
            let mut e = ev(EV_ACK, t, una, nxt);
            e.acked_sacked = 1;
            e.rtt_us = (rtt_ms(k) * 1000) as i64;
            e.prior_in_flight = ((nxt - una) / MSS as u64 + 1) as u32;
            c.handle(&e);
            let cwnd = c.flows[&7].cc.cwnd();
            windows.push(cwnd / MSS as u64);
            nxt = nxt.max(una + cwnd);
        }
        windows
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
                .expect("opening the maps fails without root");
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

    /// Vegas runs its per-RTT adjustment only when snd_una passes the snd_nxt of the
    /// previous round: with the stream offsets from the shim it leaves slow start when
    /// the RTT triples (without them it would slow-start forever).
    #[test]
    fn vegas_in_the_agent_counts_rounds_from_the_stream_offsets() {
        let mut c = core(&AgentConfig::new("vegas"));
        let w = drive(&mut c, 200, |k| if k < 40 { 100 } else { 300 });
        let peak = *w.iter().max().unwrap();
        let last = *w.last().unwrap();
        assert!(
            last < peak,
            "Vegas never backed off: peak {peak}, last {last}"
        );
        assert!(
            c.flows[&7].cc.ssthresh() != u64::MAX,
            "Vegas is still in slow start"
        );
    }

    /// DA-LBE's A(t) is snd_una: the metacontroller's measured rate x̄ after its first
    /// 10 s tick is the rate at which the stream was acknowledged.
    #[test]
    fn dalbe_in_the_agent_measures_the_acknowledged_rate() {
        let mut cfg = AgentConfig::new("cubic");
        cfg.dalbe = Some(DalbeConfig {
            controller: "cubic-mbc".into(),
            params: Vec::new(),
            size: Some(100_000_000),
            deadline: Some(Dur::from_secs(60)),
        });
        let mut c = core(&cfg);
        // One 1000-byte segment acknowledged every 10 ms: 100 kB/s = 0.8 Mbit/s.
        drive(&mut c, 1_100, |_| 50);
        let mut out = Vec::new();
        c.flows[&7].cc.trace(&mut out);
        let xbar = out
            .iter()
            .find(|(n, _)| *n == "mbc_xbar_mbps")
            .expect("mbc trace")
            .1;
        assert!(
            (xbar - 0.8).abs() < 0.01,
            "x̄ = {xbar} Mbit/s, acknowledged at 0.8"
        );
    }

    /// A send from an empty pipe is reported to the algorithm as such, and the data
    /// sent between two ACKs as one `on_sent` at the earlier ACK.
    #[test]
    fn sends_are_derived_from_snd_nxt() {
        let mut c = core(&AgentConfig::new("cubic"));
        drive(&mut c, 3, |_| 50);
        let f = &c.flows[&7];
        // 10 segments of initial window (one at TX_START) plus what each ACK released.
        assert!(f.sent_nxt >= 12 * MSS as u64, "sent_nxt {}", f.sent_nxt);
        assert_eq!(f.last_ts, 30_000_000);
    }

    /// Linux randomises each end's timestamp offset, so TSval − TSecr may sit anywhere in
    /// u32 and wrap; the OWD handed to the algorithm is relative to the first sample
    /// (standing for srtt/2), so it stays positive and follows the queue. The echo RTT
    /// comes from our own timestamp clock (CLOCK_MONOTONIC ms + tsoffset) minus TSecr.
    #[test]
    fn owd_is_relative_to_the_first_sample_and_echo_rtt_uses_tsoffset() {
        let mut c = core(&AgentConfig::new("ledbat"));
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        let off: u32 = 0x7fff_fff0; // our offset; the peer's differs by about 2^31
        let peer_off: u32 = 0xffff_fff8;
        let mut got = Vec::new();
        // Queueing delay 0, 5, 10 ms on a 20 ms OWD; the echoed segment left 60, 65, 70 ms
        // before the ACK's record.
        for (k, q) in [0u64, 5, 10].iter().enumerate() {
            let now_ms = 1_000 + 100 * k as u64;
            let sent_ms = (now_ms - 60 - q) as u32;
            let mut e = ev(EV_ACK, now_ms, 1000 * (k as u64 + 1), 1000 * (k as u64 + 5));
            e.srtt_us = 60_000;
            e.tsecr = sent_ms.wrapping_add(off);
            e.tsval = (sent_ms + 20 + *q as u32).wrapping_add(peer_off);
            e.tsoffset = off;
            let a = c.flows.get_mut(&7).unwrap().ack_sample(&e);
            got.push((a.owd, a.ts_echo_rtt.map(|d| d.nanos() / 1_000_000)));
        }
        assert_eq!(
            got,
            vec![
                (Some(30_000_000), Some(60)),
                (Some(35_000_000), Some(65)),
                (Some(40_000_000), Some(70))
            ],
            "OWD: srtt/2 first, then +5 ms per step; echo RTT 60, 65, 70 ms"
        );
        // Without timestamps neither is given.
        let a = c
            .flows
            .get_mut(&7)
            .unwrap()
            .ack_sample(&ev(EV_ACK, 2_000, 5000, 9000));
        assert_eq!((a.owd, a.ts_echo_rtt), (None, None));
    }
}
