//! `scavenger testbed run`: a scenario on real kernel TCP through the emulator, written
//! as the same result record as a simulator run (`datapath = "testbed"`, plus a
//! `testbed` block with the kernel version and the settings used).

use crate::emulator::{EmulatorConfig, EmulatorReport, FlowRoute, FORWARD};
use crate::endpoints::{self, FlowPlan, ReceiverReport, Sample, SenderReport, BIN};
use crate::error::TestbedError;
use crate::netns;
use crate::quic::QUIC_CC;
use crate::testbed::Testbed;
use scavenger_cc::{Dur, ParamSet, Time};
use scavenger_lab::record::{tool_info, RunRecord, RECORD_FORMAT};
use scavenger_lab::scenario::{FlowDirection, FlowKind, FlowSpec, Scenario, Side};
use scavenger_net::Histogram;
use scavenger_quic::udp::UdpFlow;
use scavenger_sim::result::{
    jain_index, stats_from, Conservation, FlowResult, JainResult, LinkResult, Series, SimResult,
};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// First port the receivers listen on (below Linux's ephemeral range, 32768–60999, so
/// senders' ports never collide with a receiver's).
pub const FIRST_PORT: u16 = 5001;

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub seed: u64,
    /// Run the emulator under SCHED_FIFO when permitted.
    pub realtime: bool,
    /// Keep the per-packet log (for the mahimahi export); records per direction.
    pub log_limit: usize,
    /// Run our algorithms through the scv_shim agent even where a native BPF version
    /// exists (`testbed run --shim`: to compare the two datapaths of one algorithm).
    pub shim: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 1,
            realtime: true,
            log_limit: 8 << 20,
            shim: false,
        }
    }
}

pub struct TestbedRun {
    pub record: RunRecord,
    pub emulator: EmulatorReport,
}

/// The congestion controls the kernel offers (/proc/sys/net/ipv4/tcp_available_congestion_control).
pub fn kernel_ccs() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn kernel_version() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// The kernel's name for one of our algorithms, if the kernel has an implementation of
/// it: ours are `newreno` (Linux `reno` is NewReno, RFC 6582), `cubic`, `bbr` (v1).
pub fn kernel_cc_for(ours: &str, available: &[String]) -> Result<String, TestbedError> {
    let k = match ours {
        "newreno" => "reno",
        "cubic" => "cubic",
        "bbr" => "bbr",
        other => {
            return Err(TestbedError::NoKernelCc {
                algorithm: other.to_string(),
                available: available.to_vec(),
            })
        }
    };
    if available.iter().any(|a| a == k) {
        Ok(k.to_string())
    } else {
        Err(TestbedError::KernelLacks {
            algorithm: ours.to_string(),
            kernel: k,
            available: available.to_vec(),
        })
    }
}

use scavenger_kernel::agent::{AgentConfig, AgentError, AgentHandle, DalbeConfig};
use scavenger_kernel::manage::{catalogue_name, ManageError};
use scavenger_kernel::objects::ObjectError;

/// Why a scenario cannot run on the testbed, or what failed while it ran. Errors about one
/// flow name it.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(
        "flow \"{flow}\": kind = \"{kind}\" is not supported by the testbed yet (TCP flows only)"
    )]
    UnsupportedKind { flow: String, kind: &'static str },
    #[error("flow \"{flow}\": unknown algorithm {algorithm}")]
    UnknownAlgorithm { flow: String, algorithm: String },
    /// The algorithm needs the BPF objects (`route`: through the shim, or as which native
    /// BPF algorithm), and this build has none.
    #[error("flow \"{flow}\": algorithm `{algorithm}` runs on the testbed {route}, but {source}")]
    NoBpfObjects {
        flow: String,
        algorithm: &'static str,
        route: String,
        source: ObjectError,
    },
    /// The agent refused the flow's algorithm, parameters or DA-LBE settings.
    #[error("flow \"{flow}\": {source}")]
    Agent {
        flow: String,
        source: Box<AgentError>,
    },
    #[error("flow \"{flow}\": flows through the scv_shim agent must share algorithm, params, dalbe, size and deadline on the testbed (one agent per run)")]
    ShimSettingsDiffer { flow: String },
    #[error("flow \"{flow}\": flows using {alg} must have the same `params` on the testbed (one global parameter set per BPF algorithm)")]
    NativeParamsDiffer { flow: String, alg: &'static str },
    /// A parameter the native BPF version does not take (scv_ebb runs Ebb's default
    /// variant only, docs/deviations/kernel.md#kernel-ebb-integer).
    #[error("flow \"{flow}\": the native {alg} does not take these `params`: {source}; `testbed run --shim` runs the algorithm with every parameter in the scv_shim agent")]
    NativeParams {
        flow: String,
        alg: &'static str,
        source: Box<scavenger_kernel::params::ParamError>,
    },
    /// No kernel congestion control for the flow's algorithm.
    #[error("flow \"{flow}\": {source}")]
    KernelCc { flow: String, source: TestbedError },
    #[error("flow \"{flow}\": `params` cannot be applied to the kernel's {algorithm}; remove them for a testbed run")]
    ParamsOnKernelCc {
        flow: String,
        algorithm: &'static str,
    },
    #[error("flow \"{flow}\": `receiver` (a receive-window controller) needs our own receiver; the kernel's TCP cannot run it")]
    NeedsOwnReceiver { flow: String },
    #[error("cannot register {alg}: {source}")]
    Register {
        alg: &'static str,
        source: Box<ManageError>,
    },
    #[error("cannot start the scv_shim agent: {0}")]
    AgentStart(#[source] Box<AgentError>),
    #[error("too many flows for the testbed's port plan")]
    TooManyFlows,
    /// SIGINT or SIGTERM (`netns::install_signal_handlers`).
    #[error("interrupted")]
    Interrupted,
    #[error("a sender thread panicked")]
    SenderPanicked,
    #[error("a receiver thread panicked")]
    ReceiverPanicked,
    #[error("the emulator thread panicked")]
    EmulatorPanicked,
    /// The flows' endpoints that failed, in flow order.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    Several(Vec<RunError>),
    #[error(transparent)]
    Flow(#[from] endpoints::FlowError),
    #[error(transparent)]
    Manage(Box<ManageError>),
    #[error(transparent)]
    Testbed(#[from] TestbedError),
}

/// A native BPF congestion control (crates/kernel) that a run registers for its flows,
/// with the scenario's non-default parameters as `NAME=VALUE` strings.
pub struct NativeUse {
    pub alg: &'static scavenger_kernel::manage::NativeAlg,
    pub params: Vec<(String, String)>,
}

/// Our algorithm's native BPF version (scv_ledbat, scv_yield, scv_ledbatpp), if there is
/// one; the shim is not a flow's algorithm.
pub fn native_for(ours: &str) -> Option<&'static scavenger_kernel::manage::NativeAlg> {
    scavenger_kernel::manage::find(ours)
        .ok()
        .filter(|a| a.layout.is_some())
}

/// Whether the testbed runs flow `f` through the scv_shim agent (our algorithm without a
/// native BPF version, or with `shim`, or under DA-LBE), as `plan_flows` decides; `false`
/// for the kernel's own algorithms (`available`: `kernel_ccs()`) and for QUIC flows.
/// `scavenger validate` gives such flows the simulator's copy of the shim's decision lag
/// (`shim_lag`).
pub fn runs_through_shim(
    f: &scavenger_lab::scenario::FlowSpec,
    shim: bool,
    available: &[String],
) -> bool {
    f.transport == scavenger_lab::scenario::Transport::Tcp
        && scavenger_cc::find(&f.algorithm)
            .is_some_and(|info| routes_via_shim(info.name, f.dalbe.is_some(), shim, available))
}

/// The routing rule of `plan_flows` and `runs_through_shim`: DA-LBE always runs in the
/// agent; our own algorithm (not one of the kernel's) runs there when it has no native BPF
/// version or `shim` asks for it.
fn routes_via_shim(name: &str, dalbe: bool, shim: bool, available: &[String]) -> bool {
    let ours = kernel_cc_for(name, available).is_err();
    dalbe || (ours && (shim || native_for(name).is_none()))
}

/// What a scenario needs from the kernel: the congestion control per flow, the native
/// BPF algorithms to register, the shim agent (if any flow runs through it), the
/// settings the testbed cannot apply (warnings, recorded in the result), and each
/// `transport = "quic"` flow's QUIC settings (`None` for kernel TCP flows).
type KernelPlan = (
    Vec<String>,
    Vec<NativeUse>,
    Option<AgentConfig>,
    Vec<String>,
    Vec<Option<UdpFlow>>,
);

/// The largest UDP payload a datagram can carry over the testbed's 1500-byte MTU.
const MAX_UDP_PAYLOAD: u16 = 1500 - 28;

/// Checks that the testbed can honour every flow and returns its [`KernelPlan`]. With
/// `shim`, our algorithms run in the scv_shim agent even where a native version exists.
fn plan_flows(sc: &Scenario, shim: bool) -> Result<KernelPlan, RunError> {
    let available = kernel_ccs();
    let mut ccs = Vec::new();
    let mut natives: Vec<NativeUse> = Vec::new();
    let mut agent: Option<AgentConfig> = None;
    let mut ignored = Vec::new();
    let mut quic = Vec::new();
    for f in &sc.flows {
        let who = format!("flow \"{}\"", f.name);
        let flow = || f.name.clone();
        let unsupported = |kind| RunError::UnsupportedKind { flow: flow(), kind };
        match f.kind {
            FlowKind::Tcp => {}
            FlowKind::Cbr { .. } => return Err(unsupported("cbr")),
            FlowKind::Web { .. } => return Err(unsupported("web")),
        }
        let info = scavenger_cc::find(&f.algorithm).ok_or_else(|| RunError::UnknownAlgorithm {
            flow: flow(),
            algorithm: f.algorithm.clone(),
        })?;
        if f.transport == scavenger_lab::scenario::Transport::Quic {
            // Our algorithm inside quinn (crate::quic). The scenario parser has refused
            // the TCP-only keys; the MTU is the veths' 1500 bytes, the seed is the run's.
            let want = (f.mss + 24).min(u16::MAX as u32) as u16;
            if want > MAX_UDP_PAYLOAD {
                ignored.push(format!(
                    "{who}: mss = {} (a QUIC datagram of {want} bytes does not fit the 1500-byte MTU; {MAX_UDP_PAYLOAD} used)",
                    f.mss
                ));
            }
            if let Some(n) = f.gso_max_segs {
                ignored.push(format!(
                "{who}: gso_max_segs = {n} (the kernel sizes its skbs with the device's GSO limits)"
            ));
            }
            if f.start_jitter.is_some_and(|j| j > Dur::ZERO) {
                ignored.push(format!(
                    "{who}: start_jitter (the testbed starts each flow at `start`; the threads' own timing is its jitter)"
                ));
            }
            quic.push(Some(UdpFlow {
                algorithm: info,
                params: f.params.clone(),
                seed: 0,
                max_udp_payload: want.min(MAX_UDP_PAYLOAD),
                receive_window: f.rwnd_bytes,
            }));
            ccs.push(QUIC_CC.to_string());
            continue;
        }
        quic.push(None);
        let defaults = ParamSet::defaults(info.params);
        let non_default = |set: &ParamSet, defaults: &ParamSet| -> Vec<(String, String)> {
            set.iter()
                .filter(|(n, v)| defaults.get(n) != Some(*v))
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        let via_shim = routes_via_shim(info.name, f.dalbe.is_some(), shim, &available);
        if via_shim {
            // Our own algorithm in the userspace agent, on kernel sockets through scv_shim
            // (crates/kernel): one agent per run, so shim flows must share its settings.
            if let Err(source) = scavenger_kernel::objects::built() {
                return Err(RunError::NoBpfObjects {
                    flow: flow(),
                    algorithm: info.name,
                    route: "through the scv_shim agent".into(),
                    source,
                });
            }
            let mut cfg = AgentConfig::new(info.name);
            cfg.params = non_default(&f.params, &defaults);
            cfg.seed = sc.seed;
            cfg.dalbe = f.dalbe.as_ref().map(|d| {
                let c = scavenger_cc::dalbe::find_controller(&d.controller);
                let dd = c.map(|c| ParamSet::defaults(c.params));
                DalbeConfig {
                    controller: d.controller.clone(),
                    params: dd.map_or_else(Vec::new, |dd| non_default(&d.params, &dd)),
                    size: f.size_bytes,
                    deadline: f.deadline,
                }
            });
            cfg.resolve().map_err(|source| RunError::Agent {
                flow: flow(),
                source: Box::new(source),
            })?;
            match &agent {
                // The rest of the agent's settings (seed, staleness) are the run's.
                Some(a) if *a != cfg => return Err(RunError::ShimSettingsDiffer { flow: flow() }),
                Some(_) => {}
                None => agent = Some(cfg),
            }
            ccs.push("scv_shim".to_string());
        } else if let Some(alg) = native_for(info.name) {
            if let Err(source) = scavenger_kernel::objects::built() {
                return Err(RunError::NoBpfObjects {
                    flow: flow(),
                    algorithm: info.name,
                    route: format!("as the native BPF {}", alg.name),
                    source,
                });
            }
            // Parameters go to the BPF object's global map when it is registered; flows
            // sharing it must agree on them.
            let params = non_default(&f.params, &defaults);
            if let Some(layout) = alg.layout {
                layout
                    .resolve(&params)
                    .map_err(|source| RunError::NativeParams {
                        flow: flow(),
                        alg: alg.name,
                        source: Box::new(source),
                    })?;
            }
            match natives.iter().find(|u| u.alg.name == alg.name) {
                Some(u) if u.params != params => {
                    return Err(RunError::NativeParamsDiffer {
                        flow: flow(),
                        alg: alg.name,
                    })
                }
                Some(_) => {}
                None => natives.push(NativeUse { alg, params }),
            }
            ccs.push(alg.name.to_string());
        } else {
            ccs.push(kernel_cc_for(info.name, &available).map_err(|source| {
                RunError::KernelCc {
                    flow: flow(),
                    source,
                }
            })?);
            if f.params != ParamSet::defaults(info.params) {
                return Err(RunError::ParamsOnKernelCc {
                    flow: flow(),
                    algorithm: info.name,
                });
            }
        }
        if f.receiver.is_some() {
            return Err(RunError::NeedsOwnReceiver { flow: flow() });
        }
        if f.mss != 1448 {
            ignored.push(format!(
                "{who}: mss = {} (the kernel derives 1448 from the 1500-byte MTU)",
                f.mss
            ));
        }
        if f.initial_window != 10 {
            ignored.push(format!(
                "{who}: initial_window = {} (the kernel uses 10)",
                f.initial_window
            ));
        }
        if f.pacing {
            ignored.push(format!("{who}: pacing = true (on the testbed only the kernel's bbr and our algorithms that set a pacing rate in the shim agent pace)"));
        }
        if !f.delayed_ack {
            ignored.push(format!(
                "{who}: delayed_ack = false (the kernel's receiver decides)"
            ));
        }
        if f.ack_model == Some(scavenger_lab::scenario::AckModelChoice::Legacy) {
            ignored.push(format!(
                "{who}: ack_model = \"legacy\" (the kernel's receiver is Linux's)"
            ));
        }
        if f.handshake == Some(false) {
            ignored.push(format!(
                "{who}: handshake = false (kernel TCP always opens with a handshake)"
            ));
        }
        if f.psh == Some(false) {
            ignored.push(format!(
                "{who}: psh = false (the kernel's writer sets PSH as tcp_push decides)"
            ));
        }
        if let Some(rule) = f.psh_rule {
            ignored.push(format!(
                "{who}: psh_rule = {rule:?} (the kernel's writer sets PSH as tcp_push decides)"
            ));
        }
        // Through the shim the lag is the shim's own (what `shim_lag` copies); on a native
        // or kernel algorithm the decision applies on the ACK itself.
        if f.shim_lag == Some(true) && !via_shim {
            ignored.push(format!(
                "{who}: shim_lag (the simulator's copy of the shim's decision lag; this flow does not run through the shim)"
            ));
        }
        if f.pacing_credit == Some(false) {
            ignored.push(format!(
                "{who}: pacing_credit = false (the kernel's pacing always takes tcp_update_skb_after_send's credit)"
            ));
        }
        if f.start_jitter.is_some_and(|j| j > Dur::ZERO) {
            ignored.push(format!(
                "{who}: start_jitter (the testbed starts each flow at `start`; the kernel's and the threads' own timing is its jitter)"
            ));
        }
        if f.clock_offset_ns != 0 {
            ignored.push(format!(
                "{who}: clock_offset (hosts share the machine's clock)"
            ));
        }
        if f.rwnd_bytes != 64 << 20 {
            ignored.push(format!(
                "{who}: rwnd = {} bytes (the kernel autotunes its receive buffer)",
                f.rwnd_bytes
            ));
        }
    }
    Ok((ccs, natives, agent, ignored, quic))
}

/// The hosts to build: the scenario's, plus a default "server"/"client" for flows that
/// name no hosts.
fn hosts_of(sc: &Scenario) -> Vec<(String, Side)> {
    let mut h: Vec<(String, Side)> = sc.hosts.iter().map(|x| (x.name.clone(), x.side)).collect();
    for side in [Side::Server, Side::Client] {
        if sc.flows.iter().any(|f| f.from.is_none()) && !h.iter().any(|x| x.1 == side) {
            h.push((
                if side == Side::Server {
                    "server"
                } else {
                    "client"
                }
                .to_string(),
                side,
            ));
        }
    }
    h
}

fn endpoints_of(f: &FlowSpec, hosts: &[(String, Side)]) -> (String, String) {
    let first = |s: Side| {
        hosts
            .iter()
            .find(|x| x.1 == s)
            .expect("hosts_of adds one per side")
            .0
            .clone()
    };
    match (&f.from, &f.to) {
        (Some(a), Some(b)) => (a.clone(), b.clone()),
        _ => match f.direction {
            FlowDirection::Download => (first(Side::Server), first(Side::Client)),
            FlowDirection::Upload => (first(Side::Client), first(Side::Server)),
        },
    }
}

/// Whether the testbed can run `sc` (its flows' kinds, algorithms and settings, this
/// kernel's congestion controls, the BPF objects), without building anything: the
/// checks `run_scenario` makes first with the same `opts` (`opts.shim` changes which
/// algorithms run natively).
pub fn check_scenario(sc: &Scenario, opts: &RunOptions) -> Result<(), RunError> {
    plan_flows(sc, opts.shim).map(drop)
}

/// Runs `sc` on the testbed. Interrupted by SIGINT/SIGTERM (after
/// `netns::install_signal_handlers`), it tears down and returns an error.
pub fn run_scenario(sc: &Scenario, opts: &RunOptions) -> Result<TestbedRun, RunError> {
    let wall = std::time::Instant::now();
    let (mut ccs, natives, agent_cfg, ignored, mut quic) = plan_flows(sc, opts.shim)?;
    // Each QUIC flow's algorithm draws from its own stream of the run's seed, as in the
    // simulator (quinn's own draws use the system RNG here).
    for (i, q) in quic.iter_mut().enumerate() {
        if let Some(q) = q {
            q.seed = scavenger_cc::Rng::derive(opts.seed, 0x5155_0000 + i as u64).next_u64();
        }
    }
    for w in &ignored {
        eprintln!("warning: the testbed ignores {w}");
    }
    // Registered for this run only, under names and pins private to this process and run
    // (scv_<tag>_<pid>_<n>: two runs, or a user's `kernel load`, never collide), held by
    // this process so that nobody's `kernel unload` removes them meanwhile; the guards
    // unregister on every exit path, also on panic (never as a namespace default: sockets
    // select them with setsockopt). A SIGKILLed run's are removed by `testbed clean`.
    let mut _registered = Vec::new();
    let mut rename = |alg: &'static scavenger_kernel::manage::NativeAlg,
                      params: &[(String, String)]|
     -> Result<scavenger_kernel::manage::Target, RunError> {
        let g = scavenger_kernel::manage::LoadGuard::new(alg, params).map_err(|source| {
            RunError::Register {
                alg: alg.name,
                source: Box::new(source),
            }
        })?;
        for cc in ccs.iter_mut().filter(|c| *c == alg.name) {
            *cc = g.name().to_string();
        }
        let t = g.target.clone();
        _registered.push(g);
        Ok(t)
    };
    for u in &natives {
        rename(u.alg, &u.params)?;
    }
    let agent_cfg = match agent_cfg {
        Some(mut cfg) => {
            let shim = scavenger_kernel::manage::find("scv_shim")
                .map_err(|e| RunError::Manage(Box::new(e)))?;
            cfg.shim = Some(rename(shim, &[])?);
            Some(cfg)
        }
        None => None,
    };
    // Declared after the registrations so that it stops before they are undone.
    let _agent = match agent_cfg {
        Some(cfg) => Some(AgentHandle::spawn(cfg).map_err(|e| RunError::AgentStart(Box::new(e)))?),
        None => None,
    };
    if sc.flows.len() > (32768 - FIRST_PORT as usize) {
        return Err(RunError::TooManyFlows);
    }
    let sim = sc.to_sim(opts.seed);
    let hosts = hosts_of(sc);
    let routes: Vec<FlowRoute> = sc
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| FlowRoute {
            port: FIRST_PORT + i as u16,
            data_forward: f.direction == FlowDirection::Download,
            extra_delay: f.extra_delay,
        })
        .collect();
    // Time series need the forward link's packet log (queue length, utilisation per bin).
    let log_limit = if sc.series_bin.is_some() {
        opts.log_limit.max(RunOptions::default().log_limit)
    } else {
        opts.log_limit
    };
    let cfg = EmulatorConfig {
        forward: sim.forward.clone(),
        reverse: sim.reverse.clone(),
        seed: opts.seed,
        flows: routes,
        log_limit,
    };
    let mut tb = Testbed::start(&hosts, cfg, opts.realtime)?;
    let mut plans = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let (from, to) = endpoints_of(f, &hosts);
        let (s, r) = (
            tb.topo.host(&from).expect("built").clone(),
            tb.topo.host(&to).expect("built").clone(),
        );
        if f.ecn {
            // RFC 3168 ECN on both ends of this flow (net.ipv4.tcp_ecn = 1: request and accept).
            netns::sysctl(&s.ns, "net.ipv4.tcp_ecn", "1")?;
            netns::sysctl(&r.ns, "net.ipv4.tcp_ecn", "1")?;
        }
        let run_end = Time::ZERO + sc.duration;
        plans.push(FlowPlan {
            name: f.name.clone(),
            kernel_cc: ccs[i].clone(),
            sender_ns: s.ns.clone(),
            receiver_ns: r.ns.clone(),
            receiver_addr: r.addr,
            port: FIRST_PORT + i as u16,
            start: Time::ZERO + f.start,
            end: f.stop.map_or(run_end, |st| (Time::ZERO + st).min(run_end)),
            size: f.size_bytes,
        });
    }
    let stop = Arc::new(AtomicBool::new(false));
    let run_end = Time::ZERO + sc.duration;
    let mut threads = Vec::new();
    let result = (|| -> Result<(), RunError> {
        for (p, q) in plans.iter().zip(&quic) {
            let done = Arc::new(AtomicBool::new(false));
            let (r, s) = match q {
                None => (
                    endpoints::start_receiver(p, tb.clock, run_end, stop.clone(), done.clone())?,
                    endpoints::start_sender(p, tb.clock, stop.clone(), done)?,
                ),
                Some(q) => (
                    crate::quic::start_receiver(
                        p,
                        q,
                        tb.clock,
                        run_end,
                        stop.clone(),
                        done.clone(),
                    )?,
                    crate::quic::start_sender(p, q, tb.clock, stop.clone(), done)?,
                ),
            };
            threads.push((s, r));
        }
        while tb.clock.now() < run_end {
            if netns::stop_requested() {
                return Err(RunError::Interrupted);
            }
            std::thread::sleep(std::time::Duration::from_millis(10).min(
                std::time::Duration::from_nanos(run_end.since(tb.clock.now()).nanos().max(1)),
            ));
        }
        Ok(())
    })();
    stop.store(true, Ordering::SeqCst);
    let mut senders = Vec::new();
    let mut receivers = Vec::new();
    let mut errors = Vec::new();
    for (s, r) in threads {
        match s.join() {
            Ok(Ok(x)) => senders.push(x),
            Ok(Err(e)) => errors.push(e.into()),
            Err(_) => errors.push(RunError::SenderPanicked),
        }
        match r.join() {
            Ok(Ok(x)) => receivers.push(x),
            Ok(Err(e)) => errors.push(e.into()),
            Err(_) => errors.push(RunError::ReceiverPanicked),
        }
    }
    let report = tb.stop_emulator().ok_or(RunError::EmulatorPanicked)?;
    let tb_id = tb.topo.id.clone();
    tb.shutdown()?;
    result?;
    if !errors.is_empty() {
        return Err(RunError::Several(errors));
    }
    let metrics = metrics(sc, &plans, &senders, &receivers, &report);
    let lateness = |h: &Histogram| json!({"p50": h.quantile(0.5).map(|x| x as f64 / 1e6), "p99": h.quantile(0.99).map(|x| x as f64 / 1e6), "max": h.max().map(|x| x as f64 / 1e6)});
    let testbed = json!({
        "kernel": kernel_version(),
        "id": tb_id,
        "emulator": {
            "thread": "in-process",
            "realtime": report.realtime.is_ok(),
            "realtime_note": report.realtime.as_ref().err().map(|e| e.to_string()),
            "clock": "CLOCK_MONOTONIC",
            "lateness_ms": {"forward": lateness(&report.lateness_ns[0]), "reverse": lateness(&report.lateness_ns[1])},
            "packets": report.packets,
            "write_errors": report.write_errors,
        },
        "flows": plans.iter().zip(&senders).zip(&quic).map(|((p, s), q)| match q {
            None => json!({"name": p.name, "kernel_cc": catalogue_name(&p.kernel_cc), "cc_in_use": catalogue_name(&s.cc_in_use), "registered_as": p.kernel_cc, "port": p.port}),
            Some(q) => json!({"name": p.name, "transport": "quic", "quic": "quinn 0.11 over UDP, the algorithm through scavenger-quic's adapter", "cc_in_use": s.cc_in_use, "max_udp_payload": q.max_udp_payload, "port": p.port}),
        }).collect::<Vec<_>>(),
        "tcp_info_interval_ms": endpoints::SAMPLE_EVERY.nanos() as f64 / 1e6,
        "offloads": "tso gso gro off on every veth",
        "ignored_settings": ignored,
    });
    let record = RunRecord {
        format: RECORD_FORMAT,
        tool: tool_info(),
        datapath: "testbed",
        seed: opts.seed,
        scenario: sc.clone(),
        events: report.packets,
        wall_time_s: wall.elapsed().as_secs_f64(),
        metrics,
        testbed: Some(testbed),
    };
    Ok(TestbedRun {
        record,
        emulator: report,
    })
}

fn bytes_between(r: &ReceiverReport, from: Time, to: Time) -> u64 {
    let (a, b) = (
        (from.nanos() / BIN.nanos()) as usize,
        (to.nanos() / BIN.nanos()) as usize,
    );
    r.bins
        .get(a.min(r.bins.len())..b.min(r.bins.len()))
        .map_or(0, |s| s.iter().sum())
}

fn metrics(
    sc: &Scenario,
    plans: &[FlowPlan],
    senders: &[SenderReport],
    receivers: &[ReceiverReport],
    rep: &EmulatorReport,
) -> SimResult {
    let end = Time::ZERO + sc.duration;
    let flows = sc
        .flows
        .iter()
        .zip(plans)
        .zip(senders.iter().zip(receivers))
        .zip(&rep.flows)
        .map(|(((f, p), (s, r)), c)| {
            let stop = r.completed_at.unwrap_or(p.end);
            let active = stop.since(p.start).secs_f64();
            let per_s = |b: u64| {
                if active > 0.0 {
                    b as f64 * 8.0 / active
                } else {
                    0.0
                }
            };
            let last = s.samples.last().map(|x| x.info).unwrap_or_default();
            let rtt_ms = stats_from(&s.rtt, 1e-6);
            // For kernel TCP rtt_ms is already srtt weighted by delivered segments, the
            // simulator's srtt_ms; QUIC's polls weigh once each, so it has no such figure.
            let srtt_ms = match f.transport {
                scavenger_lab::scenario::Transport::Tcp => rtt_ms.mean,
                scavenger_lab::scenario::Transport::Quic => None,
            };
            FlowResult {
                name: f.name.clone(),
                algorithm: f.algorithm.clone(),
                start_s: p.start.secs_f64(),
                size_bytes: f.size_bytes,
                // From the flow's start (its connect), as the simulator measures it.
                completion_time_s: r.completed_at.map(|c| c.since(p.start).secs_f64()),
                completed_at_s: r.completed_at.map(|c| c.secs_f64()),
                active_s: active,
                delivered_bytes: r.bytes,
                goodput_bps: per_s(r.bytes),
                throughput_bps: per_s(c.data_delivered_bytes),
                rtt_ms,
                srtt_ms,
                retransmits: last.total_retrans as u64,
                fast_recoveries: s.recoveries_seen,
                timeouts: last.total_rto.unwrap_or(0) as u64,
                ecn_responses: s.cwr_seen,
                final_cwnd_bytes: last.snd_cwnd as u64 * last.snd_mss as u64,
                owd_ms: None,
                loss_rate: None,
                conservation: Conservation {
                    sent_bytes: c.data_arrived_bytes,
                    delivered_bytes: c.data_delivered_bytes,
                    dropped_bytes: c.data_dropped_bytes,
                    in_flight_bytes: c.data_in_flight_bytes,
                },
            }
        })
        .collect();
    let links = ["forward", "reverse"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            LinkResult::from_stats(
                name,
                &rep.links[i],
                rep.configs[i].rate,
                sc.duration,
                rep.in_transit_bytes[i],
            )
        })
        .collect();
    let jain = sc
        .jain
        .iter()
        .map(|j| {
            let (from, to) = (Time::ZERO + j.from, (Time::ZERO + j.to).min(end));
            let span = to.since(from).secs_f64();
            let rates: Vec<f64> = j
                .flows
                .iter()
                .map(|n| {
                    sc.flows.iter().position(|f| &f.name == n).map_or(0.0, |i| {
                        if span > 0.0 {
                            bytes_between(&receivers[i], from, to) as f64 * 8.0 / span
                        } else {
                            0.0
                        }
                    })
                })
                .collect();
            JainResult {
                name: j.name.clone(),
                flows: j.flows.clone(),
                from_s: j.from.secs_f64(),
                to_s: j.to.secs_f64(),
                index: jain_index(&rates),
                goodput_bps: rates,
            }
        })
        .collect();
    let series = sc
        .series_bin
        .map(|bin| series(sc, bin, senders, receivers, rep));
    SimResult {
        duration_s: sc.duration.secs_f64(),
        events: rep.packets,
        flows,
        links,
        jain,
        series,
    }
}

/// Time series from the receivers' byte bins, the TCP_INFO samples and the forward
/// link's packet log.
fn series(
    sc: &Scenario,
    bin: Dur,
    senders: &[SenderReport],
    receivers: &[ReceiverReport],
    rep: &EmulatorReport,
) -> Series {
    let n = sc.duration.nanos().div_ceil(bin.nanos()) as usize;
    let time_s: Vec<f64> = (1..=n)
        .map(|k| (bin.nanos() * k as u64) as f64 / 1e9)
        .collect();
    let edge = |k: usize| Time(bin.nanos() * k as u64);
    let goodput = receivers
        .iter()
        .map(|r| {
            (0..n)
                .map(|k| bytes_between(r, edge(k), edge(k + 1)) as f64 * 8.0 / bin.secs_f64())
                .collect()
        })
        .collect();
    // The last TCP_INFO sample at or before each bin's end, per sender: one pass over
    // the (time-ordered) samples, read by every column below.
    let at_end: Vec<Vec<Option<&Sample>>> = senders
        .iter()
        .map(|s| {
            let mut it = s.samples.iter().peekable();
            let mut last = None;
            (0..n)
                .map(|k| {
                    while let Some(x) = it.next_if(|x| x.t <= edge(k + 1)) {
                        last = Some(x);
                    }
                    last
                })
                .collect()
        })
        .collect();
    let column = |bins: &[Option<&Sample>], f: &dyn Fn(&Sample) -> Option<f64>| -> Vec<f64> {
        bins.iter()
            .map(|x| x.and_then(f).unwrap_or(f64::NAN))
            .collect()
    };
    let cwnd = at_end
        .iter()
        .map(|bins| {
            bins.iter()
                .map(|x| x.map_or(0, |x| x.info.snd_cwnd as u64 * x.info.snd_mss as u64))
                .collect()
        })
        .collect();
    // In place of the simulator's algorithm trace variables: the kernel's srtt and
    // delivery-rate estimate (bytes/s in TCP_INFO, bit/s here).
    let trace = at_end
        .iter()
        .map(|bins| {
            let mut cols = vec![
                (
                    "srtt_ms".to_string(),
                    column(bins, &|x| Some(x.info.rtt_us as f64 / 1e3)),
                ),
                (
                    "delivery_rate_bps".to_string(),
                    column(bins, &|x| Some(x.info.delivery_rate as f64 * 8.0)),
                ),
            ];
            // A BBR sender also shows the kernel's model (TCP_CC_INFO), under the names
            // the simulator's BBR trace uses where they mean the same.
            if bins.iter().flatten().any(|x| x.bbr.is_some()) {
                let bbr = |f: fn(crate::sys::BbrInfo) -> f64| column(bins, &move |x| x.bbr.map(f));
                cols.push(("bw_mbps".into(), bbr(|b| b.bw_bytes_per_s as f64 * 8e-6)));
                cols.push(("min_rtt_ms".into(), bbr(|b| b.min_rtt_us as f64 / 1e3)));
                cols.push(("pacing_gain".into(), bbr(|b| b.pacing_gain)));
                cols.push(("cwnd_gain".into(), bbr(|b| b.cwnd_gain)));
            }
            cols
        })
        .collect();
    let mut tx = vec![0u64; n];
    let mut queue = vec![0u64; n];
    let mut q: i64 = 0;
    let mut log: Vec<_> = rep.logs[FORWARD].iter().collect();
    log.sort_by_key(|r| r.t_ns);
    let mut it = log.into_iter().peekable();
    for k in 0..n {
        while let Some(r) = it.next_if(|r| r.t_ns < edge(k + 1).nanos()) {
            use crate::emulator::LogKind::*;
            match r.kind {
                Arrival => q += 1,
                Departure => {
                    q -= 1;
                    tx[k] += r.bytes as u64;
                }
                QueueDrop => q -= 1,
                WireLoss => {}
            }
        }
        queue[k] = q.max(0) as u64;
    }
    let cap = rep.configs[FORWARD].rate.bytes_in(bin) as f64;
    Series {
        bin_s: bin.secs_f64(),
        time_s,
        flow_goodput_bps: goodput,
        flow_cwnd_bytes: cwnd,
        flow_trace: trace,
        link_utilisation: tx
            .iter()
            .map(|&b| if cap > 0.0 { b as f64 / cap } else { 0.0 })
            .collect(),
        queue_pkts: queue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_names_map_to_the_kernels_and_others_are_refused() {
        let avail: Vec<String> = ["reno", "bbr", "cubic"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(kernel_cc_for("newreno", &avail).unwrap(), "reno");
        assert_eq!(kernel_cc_for("cubic", &avail).unwrap(), "cubic");
        // Ours with a native BPF version run as it; the rest are refused.
        assert_eq!(native_for("ledbat").map(|a| a.name), Some("scv_ledbat"));
        assert_eq!(native_for("yield").map(|a| a.name), Some("scv_yield"));
        assert_eq!(
            native_for("ledbat-plus-plus").map(|a| a.name),
            Some("scv_ledbatpp")
        );
        assert!(native_for("vegas").is_none() && native_for("shim").is_none());
        let e = kernel_cc_for("ledbat", &avail).unwrap_err().to_string();
        assert!(
            e.contains("ledbat") && e.contains("reno, bbr, cubic"),
            "{e}"
        );
        let e = kernel_cc_for("cubic", &avail[..2]).unwrap_err().to_string();
        assert!(
            e.contains("does not offer") && e.contains("reno, bbr"),
            "{e}"
        );
    }

    /// `runs_through_shim` names the flows `plan_flows` routes through the agent: ours
    /// without a native version (cdg), any under DA-LBE, ours with a native version only
    /// with `--shim`; never the kernel's own (cubic, newreno as reno).
    #[test]
    fn the_flows_that_run_through_the_shim_are_the_ones_validate_gives_the_lag() {
        let sc = scavenger_lab::parse("t.toml", "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nalgorithm = \"cdg\"\n[[flow]]\nalgorithm = \"ledbat\"\n[[flow]]\nalgorithm = \"cubic\"\n[[flow]]\nalgorithm = \"newreno\"\n[[flow]]\nalgorithm = \"ledbat\"\ndalbe = { controller = \"working-hours\" }\n").unwrap();
        let available = kernel_ccs();
        let via = |shim| -> Vec<bool> {
            sc.flows
                .iter()
                .map(|f| runs_through_shim(f, shim, &available))
                .collect()
        };
        assert_eq!(via(false), [true, false, false, false, true]);
        assert_eq!(via(true), [true, true, false, false, true]);
    }

    #[test]
    fn ebb_runs_as_the_native_scv_ebb_unless_the_shim_is_asked_for() {
        assert_eq!(native_for("ebb").map(|a| a.name), Some("scv_ebb"));
        if let Err(e) = scavenger_kernel::objects::built() {
            eprintln!("SKIP (routing with BPF objects): {e}");
            return;
        }
        let sc = scavenger_lab::parse("t.toml", "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nalgorithm = \"ebb\"\nparams = { target = \"5ms\" }\n[[flow]]\nalgorithm = \"cubic\"\n").unwrap();
        let (ccs, natives, agent, _, _) = plan_flows(&sc, false).unwrap();
        assert_eq!(ccs, ["scv_ebb", "cubic"]);
        assert_eq!(natives.len(), 1);
        assert_eq!(natives[0].alg.name, "scv_ebb");
        assert_eq!(
            natives[0].params,
            [("target".to_string(), "5ms".to_string())]
        );
        assert!(agent.is_none());
        // --shim: the same flow in the agent; the kernel's own algorithms stay native.
        let (ccs, natives, agent, _, _) = plan_flows(&sc, true).unwrap();
        assert_eq!(ccs, ["scv_shim", "cubic"]);
        assert!(natives.is_empty());
        let agent = agent.expect("the shim agent runs Ebb");
        assert_eq!(agent.algorithm, "ebb");
        assert_eq!(agent.params, [("target".to_string(), "5ms".to_string())]);
        // A variant the native version does not run: an error that names the parameter
        // and the way to run it (through the shim), never a silent change of route.
        let sc = scavenger_lab::parse("t.toml", "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"bg\"\nalgorithm = \"ebb\"\nparams = { drain_bytes = true }\n").unwrap();
        let e = plan_flows(&sc, false).err().unwrap().to_string();
        assert!(
            e.starts_with("flow \"bg\": the native scv_ebb does not take these `params`: unknown parameter `drain_bytes` for ebb")
                && e.ends_with("`testbed run --shim` runs the algorithm with every parameter in the scv_shim agent"),
            "{e}"
        );
        assert!(plan_flows(&sc, true).is_ok());
    }

    #[test]
    fn unsupported_flow_kinds_and_params_are_clear_errors() {
        let sc = scavenger_lab::parse("t.toml", "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nkind = \"cbr\"\nrate = \"1Mbit\"\n").unwrap();
        let e = plan_flows(&sc, false).err().unwrap().to_string();
        assert_eq!(
            e,
            "flow \"flow0\": kind = \"cbr\" is not supported by the testbed yet (TCP flows only)"
        );
        let sc =
            scavenger_lab::parse("t.toml", "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nalgorithm = \"cubic\"\nparams = { beta = 0.5 }\n").unwrap();
        assert!(plan_flows(&sc, false)
            .err()
            .unwrap()
            .to_string()
            .contains("params"));
        // QUIC flows run our algorithm in quinn, never as kernel TCP; an mss too large
        // for the veths' MTU is a warning and 1472-byte datagrams.
        let sc =
            scavenger_lab::parse("t.toml", "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nalgorithm = \"cubic\"\ntransport = \"quic\"\nmss = 8000\n[[flow]]\nalgorithm = \"cubic\"\n").unwrap();
        let (ccs, natives, agent, ignored, quic) = plan_flows(&sc, false).unwrap();
        assert_eq!(ccs, ["quic", "cubic"]);
        assert!(natives.is_empty() && agent.is_none());
        let q = quic[0].as_ref().expect("flow 0 is QUIC");
        assert_eq!((q.algorithm.name, q.max_udp_payload), ("cubic", 1472));
        assert!(quic[1].is_none());
        assert!(
            ignored.iter().any(|w| w.contains("mss = 8000")),
            "{ignored:?}"
        );
        // Algorithms the kernel lacks go through the scv_shim agent (when the BPF objects
        // are built; otherwise the error says how to build them).
        let sc = scavenger_lab::parse("t.toml", "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"a\"\nalgorithm = \"vegas\"\n[[flow]]\nname = \"b\"\nalgorithm = \"cdg\"\n").unwrap();
        match plan_flows(&sc, false) {
            Ok(_) => panic!("two different shim algorithms in one run must be refused"),
            Err(e) => assert!(e.to_string().contains("scv_shim"), "{e}"),
        }
    }

    #[test]
    fn flows_without_hosts_get_default_hosts_per_side() {
        let sc = scavenger_lab::parse(
            "t.toml",
            "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nalgorithm = \"cubic\"\n[[flow]]\nalgorithm = \"cubic\"\ndirection = \"upload\"\n",
        )
        .unwrap();
        let h = hosts_of(&sc);
        assert_eq!(
            h,
            vec![
                ("server".to_string(), Side::Server),
                ("client".to_string(), Side::Client)
            ]
        );
        assert_eq!(
            endpoints_of(&sc.flows[0], &h),
            ("server".into(), "client".into())
        );
        assert_eq!(
            endpoints_of(&sc.flows[1], &h),
            ("client".into(), "server".into())
        );
    }
}
