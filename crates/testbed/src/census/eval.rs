//! The census on the testbed: a server namespace running our HTTP server with a known
//! congestion control per port, the census receiver on a TUN device in the client
//! namespace, and the testbed's link emulator between them. Each run is one probe; the
//! table compares the true algorithm with the inferred class.
//!
//! ```text
//!  [server ns] HTTP :8000+i ─veth─ [router S] ═(emulator)═ [router C] ─veth─ [client ns] cen0 ⇒ receiver 10.2.200.2
//! ```

use super::classify::{classify, Class, Verdict};
use super::probe::{self, Target};
use super::receiver::ProbeConfig;
use super::report::CensusRecord;
use super::server::HttpServer;
use super::session::Trust;
use crate::emulator::EmulatorConfig;
use crate::error::{InsideError, TestbedError};
use crate::{netns, Testbed};
use scavenger_cc::{Dur, Rate};
use scavenger_lab::scenario::Side;
use scavenger_net::{LinkConfig, QueueLimit};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// A bottleneck for the evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    pub name: &'static str,
    pub down_mbps: u64,
    pub up_mbps: u64,
    pub rtt_ms: u64,
}

impl LinkSpec {
    /// Ong 2020 §3.2's buffer, 2 × BDP of the downlink in 1500-byte packets, as bytes: the
    /// census's small segments then get the same buffer in bytes as full-sized ones.
    pub fn buffer_bytes(&self) -> u64 {
        scavenger_lab::study::ong2020::buffer_packets(self.down_mbps as f64, self.rtt_ms) * 1500
    }

    fn config(&self, mbps: u64) -> LinkConfig {
        LinkConfig::new(
            Rate::from_mbps(mbps),
            Dur::from_micros(self.rtt_ms * 500),
            QueueLimit::Bytes(self.buffer_bytes()),
        )
    }
}

/// Ong 2020 Table 3.1's 8/1 Mbit/s row at 50 ms, and a 100 Mbit/s link at 50 ms.
pub const LINKS: &[LinkSpec] = &[
    LinkSpec {
        name: "ong-8-1",
        down_mbps: 8,
        up_mbps: 1,
        rtt_ms: 50,
    },
    LinkSpec {
        name: "100mbit",
        down_mbps: 100,
        up_mbps: 100,
        rtt_ms: 50,
    },
];

/// A link name the census evaluation does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("link {name:?}: unknown; the census evaluation has {}", LINKS.iter().map(|l| l.name).collect::<Vec<_>>().join(", "))]
pub struct UnknownLink {
    pub name: String,
}

pub fn link(name: &str) -> Result<LinkSpec, UnknownLink> {
    LINKS
        .iter()
        .find(|l| l.name == name)
        .cloned()
        .ok_or_else(|| UnknownLink { name: name.into() })
}

/// The class each of the kernel's algorithms should get (Wang 2018 §3.1's examples:
/// Reno linear, CUBIC polynomial, BBR rate-based); others are reported as found.
pub fn expected(algorithm: &str) -> Option<Class> {
    match algorithm {
        "reno" => Some(Class::Linear),
        "cubic" | "bic" => Some(Class::Polynomial),
        "bbr" => Some(Class::RateBased),
        _ => None,
    }
}

#[derive(Clone, Debug)]
pub struct EvalOptions {
    pub links: Vec<LinkSpec>,
    /// Kernel congestion control names.
    pub algorithms: Vec<String>,
    pub runs: u32,
    pub cfg: ProbeConfig,
    /// Size of the served page (the probe stops on its own limits first).
    pub page_bytes: u64,
    pub realtime: bool,
    /// Serve and probe over TLS (https://, the servers' self-signed certificate pinned).
    pub tls: bool,
}

/// How a server runs the algorithm asked for.
#[derive(Clone, Copy)]
pub enum Route<'a> {
    /// The kernel's own (reno, cubic, bbr, …).
    Kernel(&'a str),
    /// Our native BPF version, registered under a private name.
    Native(&'static scavenger_kernel::manage::NativeAlg),
    /// Our crates/cc algorithm in the userspace agent, on the scv_shim struct_ops.
    Shim(&'a str),
}

/// `shim:NAME` runs NAME through the shim; else our native BPF version if there is one,
/// the kernel's algorithm of that name if the kernel has it, else ours through the shim
/// (as `testbed run` does). A name nobody has fails when the server starts.
pub fn route<'a>(algorithm: &'a str, kernel: &[String]) -> Route<'a> {
    if let Some(n) = algorithm.strip_prefix("shim:") {
        return Route::Shim(n);
    }
    if let Some(a) = crate::run::native_for(algorithm) {
        return Route::Native(a);
    }
    if kernel.iter().any(|k| k == algorithm) || scavenger_cc::find(algorithm).is_none() {
        return Route::Kernel(algorithm);
    }
    Route::Shim(algorithm)
}

/// The label of an algorithm in records and tables: shim-run ones as `shim:NAME`.
pub fn label(algorithm: &str, kernel: &[String]) -> String {
    match route(algorithm, kernel) {
        Route::Shim(n) => format!("shim:{n}"),
        _ => algorithm.to_string(),
    }
}

const RECEIVER: Ipv4Addr = Ipv4Addr::new(10, 2, 200, 2);
const RECEIVER_GW: Ipv4Addr = Ipv4Addr::new(10, 2, 200, 1);
const BASE_PORT: u16 = 8000;

/// Runs every (link, algorithm, run); `each` sees every record as it is made.
pub fn evaluate(
    opts: &EvalOptions,
    each: &mut dyn FnMut(&CensusRecord),
) -> Result<Vec<CensusRecord>, TestbedError> {
    let mut out = Vec::new();
    for l in &opts.links {
        run_link(opts, l, &mut |r| {
            each(&r);
            out.push(r);
        })?;
        if netns::stop_requested() {
            break;
        }
    }
    Ok(out)
}

/// The census testbed of one link: servers (one port per algorithm) and the receiver's
/// TUN device. Dropping it (or `shutdown`) stops the servers, closes the device and
/// deletes the namespaces, in that order.
pub struct CensusBed {
    pub servers: Vec<HttpServer>,
    /// Each server's algorithm (ours by our name: `ledbat`, `yield`; through the shim
    /// as `shim:vegas`).
    pub labels: Vec<String>,
    pub tun: Option<probe::Tun>,
    /// The servers' certificate's SHA-256 when they serve HTTPS.
    pub pin: Option<String>,
    /// One agent per shim-run algorithm (stopped after the servers).
    agents: Vec<scavenger_kernel::agent::AgentHandle>,
    /// Native BPF algorithms and shim registrations for this bed (unregistered after
    /// the agents).
    natives: Vec<scavenger_kernel::manage::LoadGuard>,
    tb: Option<Testbed>,
}

impl CensusBed {
    /// The bed of link `l` with a server per algorithm (see [`route`]), serving HTTPS
    /// with a fresh self-signed certificate when `tls`.
    pub fn start(
        l: &LinkSpec,
        algorithms: &[String],
        realtime: bool,
        tls: bool,
    ) -> Result<CensusBed, TestbedError> {
        let tls_cfg = if tls {
            Some(super::server::self_signed()?)
        } else {
            None
        };
        let cfg = EmulatorConfig {
            forward: l.config(l.down_mbps),
            reverse: l.config(l.up_mbps),
            seed: 1,
            flows: vec![],
            log_limit: 0,
        };
        let tb = Testbed::start(
            &[
                ("server".into(), Side::Server),
                ("client".into(), Side::Client),
            ],
            cfg,
            realtime,
        )?;
        let kernel = crate::run::kernel_ccs();
        let mut bed = CensusBed {
            servers: Vec::new(),
            labels: algorithms.iter().map(|a| label(a, &kernel)).collect(),
            pin: tls_cfg.as_ref().map(|(_, pin)| pin.clone()),
            agents: Vec::new(),
            natives: Vec::new(),
            tun: None,
            tb: Some(tb),
        };
        let tb = bed.tb.as_ref().expect("just set");
        let (srv, cli) = (tb.host("server").clone(), tb.host("client").clone());
        // Cached metrics would start the next connection with the last one's ssthresh.
        netns::sysctl(&srv.ns, "net.ipv4.tcp_no_metrics_save", "1")?;
        netns::sysctl(&cli.ns, "net.ipv4.ip_forward", "1")?;
        for k in [
            "net.ipv4.conf.all.rp_filter",
            "net.ipv4.conf.default.rp_filter",
        ] {
            netns::sysctl(&cli.ns, k, "0")?;
        }
        netns::ip_batch(
            Some(&tb.topo.router_client),
            &[format!("route add 10.2.200.0/24 via {}", cli.addr)],
        )?;
        bed.tun = Some(probe::open_tun(
            Some(&cli.ns),
            "cen0",
            RECEIVER_GW,
            RECEIVER,
        )?);
        let register = |alg: &'static scavenger_kernel::manage::NativeAlg| {
            scavenger_kernel::manage::LoadGuard::new(alg, &[]).map_err(|source| {
                TestbedError::from(InsideError::Register {
                    name: alg.name,
                    source,
                })
            })
        };
        for (i, a) in algorithms.iter().enumerate() {
            // Ours with a native BPF version (LEDBAT, Yield, LEDBAT++) run as it, and the
            // rest of ours through the shim with an agent of their own, each registered
            // under a private name for this bed (docs/kernel.md), as `testbed run` does.
            let cc = match route(a, &kernel) {
                Route::Kernel(k) => k.to_string(),
                Route::Native(alg) => {
                    let g = register(alg)?;
                    let n = g.name().to_string();
                    bed.natives.push(g);
                    n
                }
                Route::Shim(name) => {
                    scavenger_kernel::objects::built().map_err(|source| {
                        InsideError::ShimNotBuilt {
                            algorithm: a.to_string(),
                            source,
                        }
                    })?;
                    let shim = scavenger_kernel::manage::find("scv_shim")
                        .map_err(InsideError::ShimUnknown)?;
                    let g = register(shim)?;
                    let n = g.name().to_string();
                    let mut cfg = scavenger_kernel::agent::AgentConfig::new(name);
                    cfg.shim = Some(g.target.clone());
                    bed.natives.push(g);
                    let h = scavenger_kernel::agent::AgentHandle::spawn(cfg).map_err(|source| {
                        InsideError::AgentStart {
                            algorithm: a.to_string(),
                            source,
                        }
                    })?;
                    bed.agents.push(h);
                    n
                }
            };
            let tls = tls_cfg.as_ref().map(|(c, _)| c.clone());
            let s = HttpServer::start(&srv.ns, srv.addr, BASE_PORT + i as u16, &cc, tls)?;
            bed.servers.push(s);
        }
        Ok(bed)
    }

    /// The testbed's namespace names (for checks that they are gone).
    pub fn id(&self) -> String {
        self.tb
            .as_ref()
            .map_or(String::new(), |t| t.topo.id.clone())
    }

    /// Target `path` on the server of algorithm number `i` (https:// if it serves TLS).
    pub fn target(&self, i: usize, path: &str) -> Target {
        let s = &self.servers[i];
        let scheme = if s.tls { "https" } else { "http" };
        Target {
            url: format!("{scheme}://{}:{}{path}", s.addr, s.port),
            https: s.tls,
            host: s.addr.to_string(),
            addr: s.addr,
            port: s.port,
            path: path.to_string(),
        }
    }

    /// `cfg` with the servers' certificate pinned when they serve TLS.
    pub fn probe_config(&self, cfg: &ProbeConfig) -> ProbeConfig {
        ProbeConfig {
            trust: self
                .pin
                .as_ref()
                .map(|p| Trust::Pinned { sha256: p.clone() })
                .or_else(|| cfg.trust.clone()),
            ..cfg.clone()
        }
    }

    pub fn tun(&self) -> &probe::Tun {
        self.tun.as_ref().expect("until shutdown")
    }

    /// Stops everything; checks that every connection ran its server's algorithm.
    pub fn shutdown(mut self) -> Result<(), TestbedError> {
        let mut err = None;
        for mut s in std::mem::take(&mut self.servers) {
            let cc = s.cc.clone();
            let seen = s.seen_cc.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if let Err(e) = s.stop() {
                err.get_or_insert(e);
            }
            if let Some(bad) = seen.iter().find(|c| **c != cc) {
                err.get_or_insert(
                    InsideError::WrongCongestionControl {
                        cc: cc.clone(),
                        seen: bad.clone(),
                    }
                    .into(),
                );
            }
        }
        self.tun = None;
        for a in std::mem::take(&mut self.agents) {
            if let Err(e) = a.stop() {
                err.get_or_insert(InsideError::AgentStop(e).into());
            }
        }
        self.natives.clear();
        if let Some(tb) = self.tb.take() {
            tb.shutdown()?;
        }
        err.map_or(Ok(()), Err)
    }
}

impl Drop for CensusBed {
    fn drop(&mut self) {
        // Servers first (their threads live in the namespaces), then the device, then
        // the testbed (emulator, namespaces).
        self.servers.clear();
        self.tun = None;
        self.agents.clear();
        self.natives.clear();
        self.tb = None;
    }
}

fn run_link(
    opts: &EvalOptions,
    l: &LinkSpec,
    each: &mut dyn FnMut(CensusRecord),
) -> Result<(), TestbedError> {
    let bed = CensusBed::start(l, &opts.algorithms, opts.realtime, opts.tls)?;
    let cfg = bed.probe_config(&opts.cfg);
    let mut port = 20000u16;
    let path = format!("/bytes/{}", opts.page_bytes);
    'runs: for run in 0..opts.runs {
        for i in 0..bed.servers.len() {
            if netns::stop_requested() {
                break 'runs;
            }
            let target = bed.target(i, &path);
            port = port.wrapping_add(1).max(20000);
            let r = probe::run(bed.tun(), &target, &cfg, port);
            let mut rec = record(&target, &cfg, r);
            rec.true_algorithm = Some(bed.labels[i].clone());
            rec.link = Some(l.name.to_string());
            rec.run = Some(run + 1);
            each(rec);
        }
    }
    bed.shutdown()
}

/// The record of one probe (classified, or the error as an unknown).
pub fn record(
    t: &Target,
    cfg: &ProbeConfig,
    r: Result<super::receiver::ProbeOutcome, super::receiver::ProbeError>,
) -> CensusRecord {
    let (verdict, end, outcome) = match r {
        Ok(o) => {
            let mut v = classify(&o.trace);
            if v.class == Class::Unknown {
                v.reason = format!("{}; {}", v.reason, o.end);
            }
            (v, o.end.to_string(), Some(o))
        }
        Err(e) => (
            Verdict {
                class: Class::Unknown,
                confidence: 0.0,
                reason: e.to_string(),
                features: Default::default(),
            },
            e.to_string(),
            None,
        ),
    };
    CensusRecord {
        url: t.url.clone(),
        addr: format!("{}:{}", t.addr, t.port),
        true_algorithm: None,
        link: None,
        run: None,
        config: cfg.clone(),
        verdict,
        end,
        outcome,
        version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// The evaluation table (Markdown): per link and algorithm the inferred classes, then
/// accuracy per expected class.
pub fn table(records: &[CensusRecord]) -> String {
    let classes = [
        Class::Linear,
        Class::Polynomial,
        Class::RateBased,
        Class::Unknown,
    ];
    let mut by: BTreeMap<(String, String), [u32; 4]> = BTreeMap::new();
    for r in records {
        let k = (
            r.link.clone().unwrap_or_default(),
            r.true_algorithm.clone().unwrap_or_default(),
        );
        let i = classes
            .iter()
            .position(|c| *c == r.verdict.class)
            .expect("a class");
        by.entry(k).or_default()[i] += 1;
    }
    let mut s = String::from(
        "| link | true algorithm | runs | linear | polynomial | rate-based | unknown | expected | correct |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut acc: BTreeMap<&'static str, (u32, u32)> = BTreeMap::new();
    for ((link, alg), n) in &by {
        let runs: u32 = n.iter().sum();
        let (exp, ok) = match expected(alg) {
            Some(c) => {
                let i = classes.iter().position(|x| *x == c).expect("a class");
                let e = acc.entry(c.name()).or_default();
                e.0 += n[i];
                e.1 += runs;
                (c.name().to_string(), format!("{}/{runs}", n[i]))
            }
            None => ("(as found)".into(), "—".into()),
        };
        s += &format!(
            "| {link} | {alg} | {runs} | {} | {} | {} | {} | {exp} | {ok} |\n",
            n[0], n[1], n[2], n[3]
        );
    }
    if acc.is_empty() {
        return s;
    }
    s += "\n| class | correct | accuracy |\n|---|---|---|\n";
    for (c, (ok, n)) in acc {
        s += &format!(
            "| {c} | {ok}/{n} | {:.0} % |\n",
            100.0 * f64::from(ok) / f64::from(n.max(1))
        );
    }
    s
}
