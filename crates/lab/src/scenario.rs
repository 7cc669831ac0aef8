//! Scenario files (TOML): one bottleneck, its flows, and what to measure. Parsing checks
//! every field and names the field in every error; the parsed scenario is what result
//! records carry, with every default filled in.

use crate::error::InputError;
use crate::link_models::{self, Preset, TraceSpec};
use crate::toml_fields::Fields;
use scavenger_cc::{find, registry::known_names, Dur, ParamSet, ParamValue, Rate, RawParam, Time};
use scavenger_net::{Jitter, LinkConfig, LossModel, OnOff, Outage, QdiscConfig, QueueLimit};
use scavenger_sim::{FlowConfig, JainSpec, MeasureConfig, SimConfig};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// Packets of this size convert "BDP" buffer sizes to packets.
const BDP_PACKET_BYTES: u64 = 1500;

fn ser_display<T: std::fmt::Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}
fn ser_opt_display<T: std::fmt::Display, S: Serializer>(
    v: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_str(&v.to_string()),
        None => s.serialize_none(),
    }
}
fn ser_params<S: Serializer>(p: &ParamSet, s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    for (k, v) in p.iter() {
        match v {
            ParamValue::Float(x) => m.serialize_entry(k, x)?,
            ParamValue::Int(i) => m.serialize_entry(k, i)?,
            ParamValue::Bool(b) => m.serialize_entry(k, b)?,
            other => m.serialize_entry(k, &other.to_string())?,
        }
    }
    m.end()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffer {
    Packets(u32),
    Bytes(u64),
}

impl Buffer {
    fn limit(self) -> QueueLimit {
        match self {
            Buffer::Packets(n) => QueueLimit::Packets(n),
            Buffer::Bytes(b) => QueueLimit::Bytes(b),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutageSpec {
    #[serde(serialize_with = "ser_display")]
    pub start: Dur,
    #[serde(serialize_with = "ser_display")]
    pub duration: Dur,
}

/// The bottleneck, per direction where it matters: "forward" carries downloads' data
/// (server side to client side), "reverse" their ACKs and uploads.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    /// Constant rate, or with a trace the trace's mean rate.
    #[serde(serialize_with = "ser_display")]
    pub rate: Rate,
    #[serde(serialize_with = "ser_display")]
    pub reverse_rate: Rate,
    #[serde(serialize_with = "ser_display")]
    pub delay: Dur,
    pub buffer: Buffer,
    pub reverse_buffer: Buffer,
    #[serde(serialize_with = "link_models::ser_qdisc")]
    pub qdisc: QdiscConfig,
    #[serde(serialize_with = "link_models::ser_qdisc")]
    pub reverse_qdisc: QdiscConfig,
    #[serde(serialize_with = "link_models::ser_loss")]
    pub loss: LossModel,
    #[serde(serialize_with = "link_models::ser_loss")]
    pub reverse_loss: LossModel,
    #[serde(serialize_with = "link_models::ser_jitter")]
    pub jitter: Jitter,
    #[serde(serialize_with = "link_models::ser_jitter")]
    pub reverse_jitter: Jitter,
    pub trace: Option<TraceSpec>,
    pub reverse_trace: Option<TraceSpec>,
    pub outages: Vec<OutageSpec>,
    #[serde(serialize_with = "link_models::ser_on_off")]
    pub on_off: Option<OnOff>,
    pub preset: Option<Preset>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSpec {
    pub name: String,
    pub algorithm: String,
    #[serde(serialize_with = "ser_params")]
    pub params: ParamSet,
    #[serde(serialize_with = "ser_display")]
    pub start: Dur,
    pub size_bytes: Option<u64>,
    #[serde(serialize_with = "ser_display")]
    pub extra_delay: Dur,
    /// "download" (data on the forward link) or "upload" (data on the reverse link).
    pub direction: FlowDirection,
    /// Sending and receiving hosts, when the scenario names hosts.
    pub from: Option<String>,
    pub to: Option<String>,
    pub mss: u32,
    pub initial_window: u32,
    pub rwnd_bytes: u64,
    pub pacing: bool,
    pub delayed_ack: bool,
    pub clock_offset_ns: i64,
    /// ECN-capable transport (RFC 3168).
    pub ecn: bool,
    pub kind: FlowKind,
    /// When the sender stops (from the start of the run); `None` runs to the end.
    #[serde(serialize_with = "ser_opt_display")]
    pub stop: Option<Dur>,
    /// Soft deadline of a finite transfer, from the flow's start (Wallenburg 2018).
    #[serde(serialize_with = "ser_opt_display")]
    pub deadline: Option<Dur>,
    /// DA-LBE: the metacontroller that drives this flow's knobs.
    pub dalbe: Option<DalbeSpec>,
    /// A receive-side window controller at the flow's receiver (rLEDBAT, RFC 9840).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverSpec>,
    /// `ack_model = "linux" | "legacy"`: how the simulated receiver delays ACKs
    /// (docs/receiver.md). `None` takes the simulator's default, and is left out of the
    /// record so that scenarios without the field keep their keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_model: Option<AckModelChoice>,
    /// `start_jitter = "10ms"`: the flow starts at `start + U[0, start_jitter]` from the
    /// run's seed; `"0ms"` (or 0) turns it off. `None` takes the simulator's default,
    /// `scavenger_sim::DEFAULT_START_JITTER` (10 ms), and is left out of the record.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_opt_display"
    )]
    pub start_jitter: Option<Dur>,
    /// `handshake = false` (on the flow, or in `[sim]` for every TCP flow): the simulated
    /// connection starts with data instead of a SYN/SYN-ACK handshake
    /// (docs/deviations/simulator.md#sim-handshake). `None` takes the default (a
    /// handshake) and is left out of the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
    /// `psh = false`: the simulated sender sets no PSH (as before 2026-11-28), so the Linux
    /// receiver's immediate ACK on PSH never fires (docs/deviations/simulator.md#sim-psh).
    /// `None` takes the default (PSH where a bulk writer pushes) and is left out of the
    /// record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub psh: Option<bool>,
    /// `psh_rule = "every-ack" | "skb-tail" | "skb-tail-bursts"`: where an unpaced
    /// simulated sender puts PSH (`scavenger_sim::PshRule`, docs/receiver.md#psh-writer),
    /// and with `skb-tail-bursts` a flow paced by its algorithm too
    /// (docs/deviations/simulator.md#sim-psh-paced). `None` takes the default (`skb-tail`,
    /// the kernel's rule by the captures) and is left out of the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub psh_rule: Option<PshRuleChoice>,
    /// `gso_max_segs = N` (1 to 65535): caps the segments a paced simulated sender sends
    /// back to back per pacing gap (Linux's `sk_gso_max_segs` over `tcp_tso_segs`,
    /// docs/deviations/simulator.md#sim-paced-bursts); 1 paces single segments, as the
    /// simulator did for every algorithm but BBR before 2026-11-28. `None` takes the
    /// default (65535, a device with GSO) and is left out of the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gso_max_segs: Option<u32>,
    /// `shim_lag = true`: the simulated sender applies the algorithm's window from the ACK
    /// after the one it was computed on, as our kernel shim does
    /// (docs/deviations/kernel.md#kernel-shim-decision-lag; `scavenger validate` sets it for
    /// algorithms the testbed runs through `scv_shim`). `None` (off) is left out of the
    /// record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shim_lag: Option<bool>,
    /// `pacing_credit = true`: Linux's pacing credit, a paced burst that leaves late is
    /// followed by the next one up to half its length sooner
    /// (docs/deviations/simulator.md#sim-pacing-credit). Off by default (opt-in until the
    /// paced algorithms are re-measured with it); `None` is left out of the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacing_credit: Option<bool>,
    /// `transport = "tcp" | "quic"`: the simulator's TCP model, or two quinn-proto
    /// endpoints with the algorithm inside quinn (docs/quic.md, "QUIC in the
    /// simulator"). Left out of the record for TCP, so TCP records keep their keys.
    #[serde(skip_serializing_if = "Transport::is_tcp")]
    pub transport: Transport,
}

/// What carries a flow's data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    #[default]
    Tcp,
    Quic,
}

impl Transport {
    fn is_tcp(&self) -> bool {
        *self == Transport::Tcp
    }

    /// The flow keys that configure the simulator's TCP model and mean nothing to quinn
    /// (its initial window, pacing, ACK policy and ECN are its own).
    const TCP_ONLY: [&'static str; 14] = [
        "handshake",
        "psh",
        "psh_rule",
        "gso_max_segs",
        "shim_lag",
        "pacing_credit",
        "initial_window",
        "pacing",
        "delayed_ack",
        "ack_model",
        "clock_offset",
        "ecn",
        "receiver",
        "dalbe",
    ];

    fn parse(f: &Fields, kind: FlowKind, mss: u32) -> Result<Self, InputError> {
        let t = match f.str("transport")? {
            None | Some("tcp") => return Ok(Transport::Tcp),
            Some("quic") => Transport::Quic,
            Some(other) => {
                return Err(f.err(
                    "transport",
                    format!("\"{other}\" is not a transport; allowed: \"tcp\" or \"quic\""),
                ))
            }
        };
        if matches!(kind, FlowKind::Cbr { .. }) {
            return Err(f.err(
                "transport",
                "\"quic\" carries a congestion-controlled stream; a datagram (kind = \"cbr\") flow has none",
            ));
        }
        if let Some(k) = Self::TCP_ONLY.iter().find(|k| f.raw(k).is_some()) {
            return Err(f.err(
                k,
                "configures the simulator's TCP model and does not apply to transport = \"quic\" (docs/quic.md, \"QUIC in the simulator\")",
            ));
        }
        // A 1500-byte MTU carries MSS 1448 over TCP with timestamps (52 header bytes) and a
        // 1472-byte UDP payload; quinn needs at least 1200.
        if mss + 24 < 1200 || mss + 24 > u16::MAX as u32 {
            return Err(f.err(
                "mss",
                format!("{mss} gives a QUIC datagram of {} bytes; transport = \"quic\" needs 1176..=65511 (a 1200..=65535-byte UDP payload)", mss + 24),
            ));
        }
        Ok(t)
    }
}

/// The simulated receiver's delayed-ACK model, as a scenario names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AckModelChoice {
    /// Linux 6.x: quick-ACK mode, adaptive `ato`, compressed SACKs (`scavenger_sim::delack`).
    Linux,
    /// Every second segment or a fixed 40 ms timer.
    Legacy,
}

impl AckModelChoice {
    fn parse(f: &Fields) -> Result<Option<Self>, InputError> {
        match f.str("ack_model")? {
            None => Ok(None),
            Some("linux") => Ok(Some(Self::Linux)),
            Some("legacy") => Ok(Some(Self::Legacy)),
            Some(other) => Err(f.err(
                "ack_model",
                format!("\"{other}\" is not an ACK model; allowed: \"linux\" or \"legacy\""),
            )),
        }
    }
}

/// Where the simulated sender marks PSH, as a scenario names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PshRuleChoice {
    /// The last segment of every answer to an ACK (fitted to the receiver-side capture).
    EveryAck,
    /// The last segment of an answer of two or more segments (the sender-side capture).
    SkbTail,
    /// `SkbTail`, and a flow paced by its algorithm puts PSH on the tail of each burst of
    /// two or more, none on a lone segment (the capture of Linux's `tcp_bbr`).
    SkbTailBursts,
}

impl PshRuleChoice {
    fn parse(f: &Fields) -> Result<Option<Self>, InputError> {
        match f.str("psh_rule")? {
            None => Ok(None),
            Some("every-ack") => Ok(Some(Self::EveryAck)),
            Some("skb-tail") => Ok(Some(Self::SkbTail)),
            Some("skb-tail-bursts") => Ok(Some(Self::SkbTailBursts)),
            Some(other) => Err(f.err(
                "psh_rule",
                format!(
                    "\"{other}\" is not a PSH rule; allowed: \"every-ack\", \"skb-tail\" or \"skb-tail-bursts\""
                ),
            )),
        }
    }
}

/// `receiver = { controller = NAME, ...its parameters }` on a flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReceiverSpec {
    pub controller: String,
    #[serde(serialize_with = "ser_params")]
    pub params: ParamSet,
}

/// TCP-like connection, or unreliable datagrams at a rate (VoIP-like, UDP noise).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FlowKind {
    Tcp,
    Cbr {
        #[serde(serialize_with = "ser_display")]
        rate: Rate,
        /// Datagram payload bytes (28 header bytes are added: IPv4 + UDP).
        packet_size: u32,
        /// Exponential gaps ("poisson") or constant ones.
        poisson: bool,
    },
    /// Web-like load: TCP flows arriving as a Poisson process, sizes from a distribution;
    /// drawn per run from the run's seed, named `NAME.1`, `NAME.2`, ...
    Web {
        flows_per_s: f64,
        mean_size: u64,
        dist: SizeDist,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "dist", rename_all = "lowercase")]
pub enum SizeDist {
    Exponential,
    Fixed,
    /// Pareto with this shape (> 1) and the given mean.
    Pareto {
        shape: f64,
    },
}

impl SizeDist {
    /// A size with mean `mean` from a uniform draw in [0, 1).
    fn draw(self, mean: u64, u: f64) -> u64 {
        let m = mean as f64;
        let x = match self {
            SizeDist::Fixed => m,
            SizeDist::Exponential => -m * (1.0 - u).ln(),
            // Scale x_m = m (a − 1)/a gives mean m; inversion x = x_m / (1 − u)^(1/a).
            SizeDist::Pareto { shape } => m * (shape - 1.0) / shape / (1.0 - u).powf(1.0 / shape),
        };
        (x.round() as u64).max(1)
    }
}

fn parse_kind(f: &Fields) -> Result<FlowKind, InputError> {
    match f.str("kind")? {
        None | Some("tcp") => {
            for k in ["rate", "packet_size", "arrivals"] {
                if f.raw(k).is_some() {
                    return Err(f.err(
                        k,
                        "only datagram flows (kind = \"cbr\") take a rate, packet_size or arrivals",
                    ));
                }
            }
            Ok(FlowKind::Tcp)
        }
        Some("cbr") => {
            let rate = f.rate("rate")?.ok_or_else(|| {
                f.err(
                    "rate",
                    "is required for a datagram flow (e.g. rate = \"64kbit\")",
                )
            })?;
            let packet_size = f.int("packet_size", 1, 65_000)?.unwrap_or(1472) as u32;
            let poisson = match f.str("arrivals")? {
                None | Some("constant") => false,
                Some("poisson") => true,
                Some(other) => return Err(f.err("arrivals", format!("\"{other}\" is not an arrival process; allowed: \"constant\" or \"poisson\""))),
            };
            for k in ["size", "params", "deadline", "dalbe", "ecn", "receiver"] {
                if f.raw(k).is_some() {
                    return Err(f.err(k, "does not apply to a datagram (kind = \"cbr\") flow"));
                }
            }
            Ok(FlowKind::Cbr {
                rate,
                packet_size,
                poisson,
            })
        }
        Some("web") => {
            let per_s = f.float("flows_per_s", 1e-6, 1e6)?.ok_or_else(|| {
                f.err(
                    "flows_per_s",
                    "is required for web traffic: the mean rate of Poisson flow arrivals",
                )
            })?;
            let mean = f.bytes("mean_size")?.ok_or_else(|| {
                f.err(
                    "mean_size",
                    "is required for web traffic (e.g. mean_size = \"100KB\")",
                )
            })?;
            if mean == 0 {
                return Err(f.err("mean_size", "must be greater than zero"));
            }
            let dist = match f.str("size_dist")? {
                None | Some("exponential") => SizeDist::Exponential,
                Some("fixed") => SizeDist::Fixed,
                Some("pareto") => SizeDist::Pareto { shape: f.float("pareto_shape", 1.0001, 100.0)?.unwrap_or(1.2) },
                Some(other) => return Err(f.err("size_dist", format!("\"{other}\" is not a size distribution; allowed: \"exponential\", \"pareto\", \"fixed\""))),
            };
            for k in ["size", "total_size", "count", "deadline", "dalbe"] {
                if f.raw(k).is_some() {
                    return Err(f.err(
                        k,
                        "does not apply to web traffic (its flows' sizes and number are drawn)",
                    ));
                }
            }
            Ok(FlowKind::Web {
                flows_per_s: per_s,
                mean_size: mean,
                dist,
            })
        }
        Some(other) => Err(f.err(
            "kind",
            format!("\"{other}\" is not a flow kind; allowed: \"tcp\", \"cbr\" or \"web\""),
        )),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DalbeSpec {
    pub controller: String,
    #[serde(serialize_with = "ser_params")]
    pub params: ParamSet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowDirection {
    Download,
    Upload,
}

/// Which side of the bottleneck a host is on. Downloads go from the server side to the
/// client side over the forward link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Server,
    Client,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostSpec {
    pub name: String,
    pub side: Side,
    /// One-way access delay between the host and the bottleneck.
    #[serde(serialize_with = "ser_display")]
    pub delay: Dur,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JainGroup {
    pub name: String,
    pub flows: Vec<String>,
    #[serde(serialize_with = "ser_display")]
    pub from: Dur,
    #[serde(serialize_with = "ser_display")]
    pub to: Dur,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    #[serde(serialize_with = "ser_display")]
    pub duration: Dur,
    pub seed: u64,
    pub link: LinkSpec,
    pub hosts: Vec<HostSpec>,
    pub flows: Vec<FlowSpec>,
    #[serde(serialize_with = "ser_opt_display")]
    pub series_bin: Option<Dur>,
    pub jain: Vec<JainGroup>,
    /// Flows (names, or group names of `count` flows) that are background traffic: the
    /// run is repeated without them to measure the others' slowdown (issue 3 §6).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub background: Vec<String>,
}

/// Reads and parses a scenario file.
pub fn load(path: &std::path::Path) -> Result<Scenario, InputError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| InputError {
        file: file.clone(),
        field: String::new(),
        message: format!("cannot read the scenario file: {e}"),
    })?;
    parse(&file, &text)
}

/// Parses scenario text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Scenario, InputError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| InputError {
        file: file.to_string(),
        field: String::new(),
        message: format!("not valid TOML: {}", e.message()),
    })?;
    parse_table(file, &table)
}

/// Parses a scenario already read as a TOML table (sweep plans edit tables).
pub fn parse_table(file: &str, table: &toml::Table) -> Result<Scenario, InputError> {
    let top = Fields::new(file, "", table);
    top.only(&[
        "name",
        "description",
        "duration",
        "seed",
        "link",
        "host",
        "flow",
        "measure",
        "sim",
    ])?;
    let duration = top
        .dur("duration")?
        .ok_or_else(|| top.err("duration", "is required (e.g. duration = \"60s\")"))?;
    if duration == Dur::ZERO {
        return Err(top.err("duration", "must be greater than zero"));
    }
    let seed = top.int("seed", 0, i64::MAX)?.unwrap_or(1) as u64;
    let link_f = top
        .table("link")?
        .ok_or_else(|| top.err("link", "is required: the bottleneck's [link] table"))?;
    let link = parse_link(&link_f, duration)?;
    let hosts = parse_hosts(&top)?;
    let mut flows = Vec::new();
    let flow_tables = top.tables("flow")?;
    if flow_tables.is_empty() {
        return Err(top.err("flow", "at least one [[flow]] is required"));
    }
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for f in &flow_tables {
        let (base, members) = parse_flow(f, &hosts, duration, &mut flows)?;
        if groups.iter().any(|(g, _)| *g == base)
            || flows.iter().filter(|x: &&FlowSpec| x.name == base).count() > 1
        {
            return Err(f.err(
                "name",
                format!("\"{base}\" is used by more than one flow; names must be unique"),
            ));
        }
        groups.push((base, members));
    }
    // `[sim] handshake = BOOL`: the default for every TCP flow that does not set its own.
    if let Some(sim) = top.table("sim")? {
        sim.only(&["handshake"])?;
        if let Some(h) = sim.bool("handshake")? {
            for fl in flows.iter_mut().filter(|fl| {
                fl.handshake.is_none()
                    && !matches!(fl.kind, FlowKind::Cbr { .. })
                    && fl.transport == Transport::Tcp
            }) {
                fl.handshake = Some(h);
            }
        }
    }
    let mut jain = Vec::new();
    let mut series_bin = None;
    let mut background = Vec::new();
    if let Some(m) = top.table("measure")? {
        m.only(&["series_bin", "jain", "background"])?;
        // Names of flows or of `count` groups, as flow names; the error names the unknown
        // one, as field `key` of `f`.
        let members =
            |names: Vec<&str>, f: &Fields, key: &str| -> Result<Vec<String>, InputError> {
                let mut out = Vec::new();
                for n in names {
                    match groups.iter().find(|(g, _)| g == n) {
                        Some((_, ms)) => out.extend(ms.iter().cloned()),
                        None if flows.iter().any(|f| f.name == n) => out.push(n.to_string()),
                        None => {
                            return Err(f.err(
                                key,
                                format!(
                                    "no flow is named \"{n}\"; flows: {}",
                                    flows
                                        .iter()
                                        .map(|f| f.name.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            ))
                        }
                    }
                }
                Ok(out)
            };
        background = members(
            m.strings("background")?.unwrap_or_default(),
            &m,
            "background",
        )?;
        if !background.is_empty() && background.len() == flows.len() {
            return Err(m.err(
                "background",
                "names every flow; the slowdown needs at least one flow that is not background",
            ));
        }
        series_bin = m.dur("series_bin")?;
        if series_bin == Some(Dur::ZERO) {
            return Err(m.err("series_bin", "must be greater than zero"));
        }
        for (i, j) in m.tables("jain")?.iter().enumerate() {
            j.only(&["name", "flows", "from", "to"])?;
            let names = j
                .strings("flows")?
                .ok_or_else(|| j.err("flows", "is required: the flow names to compare"))?;
            let members = members(names, j, "flows")?;
            if let Some(w) = members.iter().find(|m| {
                flows
                    .iter()
                    .any(|f| &f.name == *m && matches!(f.kind, FlowKind::Web { .. }))
            }) {
                return Err(j.err("flows", format!("\"{w}\" is web traffic, whose flows are drawn per run; Jain's index takes named flows")));
            }
            let from = j.dur("from")?.unwrap_or(Dur::ZERO);
            let to = j.dur("to")?.unwrap_or(duration);
            if to > duration {
                return Err(j.err(
                    "to",
                    format!("{to} is after the end of the run ({duration})"),
                ));
            }
            if from >= to {
                return Err(j.err("from", format!("{from} must be before `to` ({to})")));
            }
            jain.push(JainGroup {
                name: j
                    .str("name")?
                    .map_or_else(|| format!("jain{i}"), str::to_string),
                flows: members,
                from,
                to,
            });
        }
    }
    Ok(Scenario {
        name: top.str("name")?.unwrap_or("").to_string(),
        description: top.str("description")?.unwrap_or("").to_string(),
        duration,
        seed,
        link,
        hosts,
        flows,
        series_bin,
        jain,
        background,
    })
}

fn parse_buffer(f: &Fields, key: &str, rate: Rate, rtt: Dur) -> Result<Option<Buffer>, InputError> {
    if let Some(v @ (toml::Value::Integer(_) | toml::Value::Float(_))) = f.raw(key) {
        return Err(f.err(key, format!("{v} has no unit; write it as a string such as \"83 packets\", \"120KB\" or \"1BDP\"")));
    }
    let Some(s) = f.str(key)? else {
        return Ok(None);
    };
    let lower = s.trim().to_ascii_lowercase();
    let allowed = "a number of packets (\"83 packets\", \"83pkt\"), a size (\"120KB\", \"64KiB\") or a multiple of the bandwidth-delay product (\"1BDP\", \"0.5bdp\")";
    let num_of = |suffixes: &[&str]| {
        suffixes
            .iter()
            .find_map(|suf| lower.strip_suffix(suf).map(|n| n.trim().parse::<f64>()))
    };
    let b = if let Some(n) = num_of(&["packets", "packet", "pkts", "pkt"]) {
        let n = n.map_err(|_| f.err(key, format!("\"{s}\" is malformed; allowed: {allowed}")))?;
        if n.fract() != 0.0 || n < 0.0 || n > u32::MAX as f64 {
            return Err(f.err(
                key,
                format!("\"{s}\": a packet count must be a whole number"),
            ));
        }
        Buffer::Packets(n as u32)
    } else if let Some(n) = num_of(&["bdp"]) {
        let n = n.map_err(|_| f.err(key, format!("\"{s}\" is malformed; allowed: {allowed}")))?;
        let bdp_bytes = rate.bytes_in(rtt);
        let bdp = bdp_bytes as f64 / BDP_PACKET_BYTES as f64;
        let packets = (n * bdp).ceil().max(0.0) as u32;
        if packets == 0 && n > 0.0 {
            // The buffer is fine; the rate or the delay makes the product vanish.
            return Err(f.err(
                key,
                format!("\"{s}\" is no packet at all: the bandwidth-delay product of link.rate {rate} and an RTT of {rtt} (twice link.delay) is {bdp_bytes} bytes; check link.rate and link.delay, or give the buffer in packets or bytes"),
            ));
        }
        Buffer::Packets(packets)
    } else {
        let b = scavenger_cc::units::parse_bytes(s)
            .map_err(|m| f.err(key, format!("{m}; allowed: {allowed}")))?;
        if b > 0 && b < BDP_PACKET_BYTES {
            return Err(f.err(
                key,
                format!("\"{s}\" is smaller than one {BDP_PACKET_BYTES}-byte packet (an Ethernet MTU), so no full-size packet would fit; a buffer must hold at least one"),
            ));
        }
        Buffer::Bytes(b)
    };
    if matches!(b, Buffer::Packets(0) | Buffer::Bytes(0)) {
        return Err(f.err(
            key,
            format!("\"{s}\" gives an empty buffer; it must hold at least one packet"),
        ));
    }
    Ok(Some(b))
}

fn parse_link(f: &Fields, duration: Dur) -> Result<LinkSpec, InputError> {
    f.only(&[
        "rate",
        "reverse_rate",
        "delay",
        "buffer",
        "reverse_buffer",
        "qdisc",
        "reverse_qdisc",
        "loss",
        "reverse_loss",
        "jitter",
        "reverse_jitter",
        "trace",
        "reverse_trace",
        "outages",
        "on_off",
        "preset",
    ])?;
    let preset = link_models::parse_preset(f, "preset")?;
    let trace = link_models::parse_trace(f, "trace")?;
    let reverse_trace_given = link_models::parse_trace(f, "reverse_trace")?;
    if trace.is_some() && f.raw("rate").is_some() {
        return Err(f.err(
            "rate",
            "cannot be combined with `trace`: the trace sets the capacity",
        ));
    }
    if reverse_trace_given.is_some() && f.raw("reverse_rate").is_some() {
        return Err(f.err(
            "reverse_rate",
            "cannot be combined with `reverse_trace`: the trace sets the capacity",
        ));
    }
    if preset == Some(Preset::Wifi) && (trace.is_some() || reverse_trace_given.is_some()) {
        return Err(f.err("preset", "\"wifi\" generates its own rate trace around `rate`; remove `trace`/`reverse_trace` or the preset"));
    }
    let rate = match (&trace, f.rate("rate")?) {
        (Some(t), _) => t.mean_rate,
        (None, Some(r)) => r,
        (None, None) if preset == Some(Preset::Satellite) => scavenger_net::presets::SATELLITE_RATE,
        (None, None) => {
            return Err(f.err(
                "rate",
                "is required (e.g. rate = \"10Mbit\"), unless `trace` gives the capacity",
            ))
        }
    };
    // Without its own rate or trace, the reverse direction is a copy of the forward one.
    let reverse_trace = match (&reverse_trace_given, f.raw("reverse_rate")) {
        (Some(t), _) => Some(t.clone()),
        (None, None) => trace.clone(),
        (None, Some(_)) => None,
    };
    let reverse_rate = match &reverse_trace {
        Some(t) => t.mean_rate,
        None => f.rate("reverse_rate")?.unwrap_or(rate),
    };
    let delay = match f.dur("delay")? {
        Some(d) => d,
        None if preset == Some(Preset::Satellite) => {
            scavenger_net::presets::SATELLITE_ONE_WAY_DELAY
        }
        None => {
            return Err(f.err(
                "delay",
                "is required: one-way propagation delay (e.g. delay = \"20ms\")",
            ))
        }
    };
    let rtt = delay + delay;
    // A rate that cannot send one full-size packet within the run gives a run where
    // nothing arrives; say so here rather than let a BDP buffer or the results puzzle.
    for (key, r) in [("rate", rate), ("reverse_rate", reverse_rate)] {
        if f.raw(key).is_some() && r.tx_time(BDP_PACKET_BYTES) > duration {
            return Err(f.err(
                key,
                format!(
                    "{r} cannot carry one {BDP_PACKET_BYTES}-byte packet within the run's {duration} (it takes {:.3} s)",
                    r.tx_time(BDP_PACKET_BYTES).secs_f64()
                ),
            ));
        }
    }
    let qdisc = link_models::parse_qdisc(f, "qdisc")?.unwrap_or_default();
    let reverse_qdisc =
        link_models::parse_qdisc(f, "reverse_qdisc")?.unwrap_or_else(|| qdisc.clone());
    // A buffer is required unless an AQM brings its Linux default limit or the preset
    // gives one (satellite: 1 BDP).
    let default_buffer = |q: &QdiscConfig, r: Rate| {
        link_models::default_limit_packets(q)
            .map(Buffer::Packets)
            .or_else(|| {
                (preset == Some(Preset::Satellite)).then(|| {
                    Buffer::Packets(
                        ((r.bytes_in(rtt) as f64) / BDP_PACKET_BYTES as f64)
                            .ceil()
                            .max(1.0) as u32,
                    )
                })
            })
    };
    let buffer = match parse_buffer(f, "buffer", rate, rtt)? {
        Some(b) => b,
        None => default_buffer(&qdisc, rate).ok_or_else(|| {
            f.err(
                "buffer",
                "is required (e.g. buffer = \"1BDP\" or \"70 packets\")",
            )
        })?,
    };
    let reverse_buffer = match parse_buffer(f, "reverse_buffer", reverse_rate, rtt)? {
        Some(b) => b,
        None if f.raw("reverse_qdisc").is_some() && f.raw("buffer").is_none() => {
            default_buffer(&reverse_qdisc, reverse_rate).unwrap_or(buffer)
        }
        None => buffer,
    };
    let loss = link_models::parse_loss(f, "loss")?.unwrap_or(LossModel::None);
    let reverse_loss = link_models::parse_loss(f, "reverse_loss")?.unwrap_or(LossModel::None);
    let preset_jitter = (preset == Some(Preset::Wifi))
        .then(|| scavenger_net::presets::WifiModel::default().jitter());
    let jitter = link_models::parse_jitter(f, "jitter")?
        .or(preset_jitter)
        .unwrap_or_default();
    let reverse_jitter = link_models::parse_jitter(f, "reverse_jitter")?.unwrap_or(jitter);
    let on_off = link_models::parse_on_off(f, "on_off")?;
    let mut outages: Vec<OutageSpec> = Vec::new();
    for o in f.tables("outages")? {
        o.only(&["start", "duration"])?;
        let start = o
            .dur("start")?
            .ok_or_else(|| o.err("start", "is required"))?;
        let d = o
            .dur("duration")?
            .ok_or_else(|| o.err("duration", "is required"))?;
        if start >= duration {
            return Err(o.err(
                "start",
                format!("{start} is at or after the end of the run ({duration})"),
            ));
        }
        if d == Dur::ZERO {
            return Err(o.err("duration", "must be greater than zero"));
        }
        if let Some(prev) = outages.last() {
            if start < prev.start + prev.duration {
                return Err(o.err("start", format!("{start} overlaps or precedes the previous outage; list outages in order without overlap")));
            }
        }
        outages.push(OutageSpec { start, duration: d });
    }
    Ok(LinkSpec {
        rate,
        reverse_rate,
        delay,
        buffer,
        reverse_buffer,
        qdisc,
        reverse_qdisc,
        loss,
        reverse_loss,
        jitter,
        reverse_jitter,
        trace,
        reverse_trace,
        outages,
        on_off,
        preset,
    })
}

fn raw_param(f: &Fields, key: &str, v: &toml::Value) -> Result<RawParam, InputError> {
    Ok(match v {
        toml::Value::Integer(i) => RawParam::Int(*i),
        toml::Value::Float(x) => RawParam::Float(*x),
        toml::Value::Boolean(b) => RawParam::Bool(*b),
        toml::Value::String(s) => RawParam::Text(s.clone()),
        other => {
            return Err(f.err(
                key,
                format!("a parameter value must be a number, boolean or string, found {other}"),
            ))
        }
    })
}

/// `dalbe = { controller = "deadline", ...its parameters }` on a flow.
fn parse_dalbe(f: &Fields) -> Result<Option<DalbeSpec>, InputError> {
    let Some(d) = f.table("dalbe")? else {
        return Ok(None);
    };
    let names = scavenger_cc::dalbe::registry::controller_names();
    let name = d
        .str("controller")?
        .ok_or_else(|| d.err("controller", format!("is required; controllers: {names}")))?;
    let info = scavenger_cc::dalbe::find_controller(name).ok_or_else(|| {
        d.err(
            "controller",
            format!("unknown controller \"{name}\"; controllers: {names}"),
        )
    })?;
    let mut raws = Vec::new();
    for (k, v) in d.table.iter().filter(|(k, _)| k.as_str() != "controller") {
        raws.push((k.as_str(), raw_param(&d, k, v)?));
    }
    let params = ParamSet::resolve(info.name, info.params, raws.iter().map(|(k, v)| (*k, v)))
        .map_err(|e| {
            d.err(
                &e.param,
                format!(
                    "{} = {} is not accepted by controller `{}`; allowed: {}",
                    e.param, e.value, info.name, e.allowed
                ),
            )
        })?;
    Ok(Some(DalbeSpec {
        controller: info.name.to_string(),
        params,
    }))
}

/// `receiver = { controller = "rledbat", ...its parameters }` on a flow.
fn parse_receiver(f: &Fields) -> Result<Option<ReceiverSpec>, InputError> {
    let Some(d) = f.table("receiver")? else {
        return Ok(None);
    };
    let names = scavenger_cc::receiver_api::known_receiver_names();
    let name = d.str("controller")?.ok_or_else(|| {
        d.err(
            "controller",
            format!("is required; receive-side controllers: {names}"),
        )
    })?;
    let info = scavenger_cc::find_receiver(name).ok_or_else(|| {
        d.err(
            "controller",
            format!("unknown receive-side controller \"{name}\"; controllers: {names}"),
        )
    })?;
    let mut raws = Vec::new();
    for (k, v) in d.table.iter().filter(|(k, _)| k.as_str() != "controller") {
        raws.push((k.as_str(), raw_param(&d, k, v)?));
    }
    let params = info
        .resolve(raws.iter().map(|(k, v)| (*k, v)))
        .map_err(|e| {
            d.err(
                &e.param,
                format!(
                    "{} = {} is not accepted by receive-side controller `{}`; allowed: {}",
                    e.param, e.value, info.name, e.allowed
                ),
            )
        })?;
    Ok(Some(ReceiverSpec {
        controller: info.name.to_string(),
        params,
    }))
}

fn parse_hosts(top: &Fields) -> Result<Vec<HostSpec>, InputError> {
    let mut hosts: Vec<HostSpec> = Vec::new();
    for h in top.tables("host")? {
        h.only(&["name", "side", "delay"])?;
        let name = h
            .str("name")?
            .ok_or_else(|| h.err("name", "is required"))?
            .to_string();
        if hosts.iter().any(|x| x.name == name) {
            return Err(h.err("name", format!("\"{name}\" names more than one host")));
        }
        let side = match h.str("side")? {
            Some("server") => Side::Server,
            Some("client") => Side::Client,
            Some(other) => return Err(h.err("side", format!("\"{other}\" is not a side; allowed: \"server\" (sends downloads over the forward link) or \"client\""))),
            None => return Err(h.err("side", "is required: \"server\" or \"client\"")),
        };
        hosts.push(HostSpec {
            name,
            side,
            delay: h.dur("delay")?.unwrap_or(Dur::ZERO),
        });
    }
    Ok(hosts)
}

/// Direction and access delay of a flow from its `from`/`to` hosts or its `direction`.
fn flow_path(
    f: &Fields,
    hosts: &[HostSpec],
) -> Result<(FlowDirection, Dur, Option<String>, Option<String>), InputError> {
    let host = |key: &str| -> Result<Option<&HostSpec>, InputError> {
        match f.str(key)? {
            None => Ok(None),
            Some(n) => hosts.iter().find(|h| h.name == n).map(Some).ok_or_else(|| {
                let known: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
                f.err(
                    key,
                    format!(
                        "no host is named \"{n}\"; hosts: {}",
                        if known.is_empty() {
                            "none (add [[host]] tables)".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                )
            }),
        }
    };
    let (from, to) = (host("from")?, host("to")?);
    let explicit = match f.str("direction")? {
        None => None,
        Some("download") | Some("forward") => Some(FlowDirection::Download),
        Some("upload") | Some("reverse") => Some(FlowDirection::Upload),
        Some(other) => {
            return Err(f.err(
                "direction",
                format!("\"{other}\" is not a direction; allowed: \"download\" or \"upload\""),
            ))
        }
    };
    match (from, to) {
        (None, None) => Ok((
            explicit.unwrap_or(FlowDirection::Download),
            Dur::ZERO,
            None,
            None,
        )),
        (Some(a), Some(b)) => {
            let dir = match (a.side, b.side) {
                (Side::Server, Side::Client) => FlowDirection::Download,
                (Side::Client, Side::Server) => FlowDirection::Upload,
                _ => return Err(f.err("to", format!("\"{}\" and \"{}\" are on the same side of the bottleneck; a flow must cross it", a.name, b.name))),
            };
            if explicit.is_some_and(|e| e != dir) {
                return Err(f.err(
                    "direction",
                    "contradicts the sides of `from` and `to`; omit it",
                ));
            }
            Ok((
                dir,
                a.delay + b.delay,
                Some(a.name.clone()),
                Some(b.name.clone()),
            ))
        }
        (Some(_), None) => Err(f.err("to", "is required when `from` is given")),
        (None, Some(_)) => Err(f.err("from", "is required when `to` is given")),
    }
}

/// Parses one `[[flow]]` (expanded `count` times) and returns its base name and members.
/// A TCP-model key set on a datagram flow (`kind = "cbr"`) is an error naming the key and
/// what such a flow lacks.
fn refuse_on_datagram(
    f: &Fields,
    kind: &FlowKind,
    key: &str,
    present: bool,
    lacks: &str,
) -> Result<(), InputError> {
    if present && matches!(kind, FlowKind::Cbr { .. }) {
        return Err(f.err(
            key,
            format!("a datagram (kind = \"cbr\") flow {lacks}; remove `{key}`"),
        ));
    }
    Ok(())
}

fn parse_flow(
    f: &Fields,
    hosts: &[HostSpec],
    duration: Dur,
    out: &mut Vec<FlowSpec>,
) -> Result<(String, Vec<String>), InputError> {
    f.only(&[
        "name",
        "algorithm",
        "params",
        "start",
        "size",
        "count",
        "from",
        "to",
        "direction",
        "extra_delay",
        "mss",
        "initial_window",
        "rwnd",
        "pacing",
        "delayed_ack",
        "ack_model",
        "start_jitter",
        "handshake",
        "psh",
        "psh_rule",
        "gso_max_segs",
        "shim_lag",
        "pacing_credit",
        "clock_offset",
        "ecn",
        "deadline",
        "dalbe",
        "receiver",
        "kind",
        "rate",
        "packet_size",
        "arrivals",
        "stop",
        "total_size",
        "flows_per_s",
        "mean_size",
        "size_dist",
        "pareto_shape",
        "transport",
    ])?;
    let (direction, host_delay, from, to) = flow_path(f, hosts)?;
    let kind = parse_kind(f)?;
    if matches!(kind, FlowKind::Web { .. }) && f.raw("name").is_none() {
        return Err(f.err(
            "name",
            "web traffic needs a name: its flows are called NAME.1, NAME.2, ...",
        ));
    }
    let alg_name =
        match (kind, f.str("algorithm")?) {
            (FlowKind::Tcp, Some(a)) => a,
            (FlowKind::Tcp, None) => {
                return Err(f.err(
                    "algorithm",
                    format!("is required; known algorithms: {}", known_names()),
                ))
            }
            (FlowKind::Cbr { .. }, Some(_)) => return Err(f.err(
                "algorithm",
                "a datagram (kind = \"cbr\") flow has no congestion control; remove `algorithm`",
            )),
            // Datagram flows run no algorithm; the simulator needs an instance it never calls.
            (FlowKind::Cbr { .. }, None) => "newreno",
            (FlowKind::Web { .. }, Some(a)) => a,
            (FlowKind::Web { .. }, None) => {
                return Err(f.err(
                    "algorithm",
                    format!(
                        "is required for web traffic; known algorithms: {}",
                        known_names()
                    ),
                ))
            }
        };
    let info = find(alg_name).ok_or_else(|| {
        f.err(
            "algorithm",
            format!(
                "unknown algorithm \"{alg_name}\"; known algorithms: {}",
                known_names()
            ),
        )
    })?;
    let base = f
        .str("name")?
        .map_or_else(|| format!("flow{}", out.len()), str::to_string);
    if base.is_empty() {
        return Err(f.err("name", "must not be empty"));
    }
    let params = match f.table("params")? {
        None => ParamSet::defaults(info.params),
        Some(p) => {
            let mut raws = Vec::new();
            for (k, v) in p.table {
                raws.push((k.as_str(), raw_param(&p, k, v)?));
            }
            info.resolve(raws.iter().map(|(k, v)| (*k, v)))
                .map_err(|e| {
                    p.err(
                        &e.param,
                        format!(
                            "{} = {} is not accepted by `{}`; allowed: {}",
                            e.param, e.value, info.name, e.allowed
                        ),
                    )
                })?
        }
    };
    let start = f.dur("start")?.unwrap_or(Dur::ZERO);
    if start >= duration {
        return Err(f.err(
            "start",
            format!("{start} is at or after the end of the run ({duration})"),
        ));
    }
    // A bare 0 (integer or string) turns the jitter off; anything else needs a unit.
    let start_jitter = match f.raw("start_jitter") {
        Some(toml::Value::Integer(0)) => Some(Dur::ZERO),
        Some(toml::Value::String(z)) if z.trim() == "0" => Some(Dur::ZERO),
        _ => f.dur("start_jitter")?,
    };
    if let Some(j) = start_jitter {
        if j > Dur::from_secs(10) || start + j >= duration {
            return Err(f.err(
                "start_jitter",
                format!("{j} is too long: at most 10s, and start + start_jitter ({start} + {j}) must lie before the end of the run ({duration})"),
            ));
        }
    }
    let handshake = f.bool("handshake")?;
    refuse_on_datagram(
        f,
        &kind,
        "handshake",
        handshake.is_some(),
        "opens no connection",
    )?;
    let psh = f.bool("psh")?;
    refuse_on_datagram(f, &kind, "psh", psh.is_some(), "sends no TCP segments")?;
    let psh_rule = PshRuleChoice::parse(f)?;
    refuse_on_datagram(
        f,
        &kind,
        "psh_rule",
        psh_rule.is_some(),
        "sends no TCP segments",
    )?;
    let gso_max_segs = f.int("gso_max_segs", 1, 65_535)?.map(|n| n as u32);
    refuse_on_datagram(
        f,
        &kind,
        "gso_max_segs",
        gso_max_segs.is_some(),
        "sends no TCP segments",
    )?;
    let shim_lag = f.bool("shim_lag")?;
    refuse_on_datagram(
        f,
        &kind,
        "shim_lag",
        shim_lag.is_some(),
        "has no congestion window",
    )?;
    let pacing_credit = f.bool("pacing_credit")?;
    refuse_on_datagram(
        f,
        &kind,
        "pacing_credit",
        pacing_credit.is_some(),
        "has no TCP pacing",
    )?;
    let stop = f.dur("stop")?;
    if let Some(st) = stop {
        if st <= start {
            return Err(f.err(
                "stop",
                format!("{st} is not after the flow's start ({start})"),
            ));
        }
    }
    let count = f.int("count", 1, 100_000)?.unwrap_or(1) as usize;
    // httperf-like: `count` connections split `total_size` equally (Ong 2020 §3.4).
    let size = match (f.bytes("size")?, f.bytes("total_size")?) {
        (Some(_), Some(_)) => return Err(f.err(
            "total_size",
            "give either `size` (per connection) or `total_size` (split over `count`), not both",
        )),
        (s, None) => s,
        (None, Some(t)) => Some(((t as f64) / count as f64).round() as u64),
    };
    if size == Some(0) {
        return Err(f.err(
            "size",
            "must be greater than zero (omit it for a long-lived flow)",
        ));
    }
    let mss = f.int("mss", 64, 65_000)?.unwrap_or(1448) as u32;
    let clock_offset_ns = match f.raw("clock_offset") {
        None => 0,
        Some(toml::Value::String(s)) => {
            let (neg, body) = s
                .trim()
                .strip_prefix('-')
                .map_or((false, s.as_str()), |b| (true, b));
            let d = scavenger_cc::units::parse_duration(body)
                .map_err(|m| f.err("clock_offset", m.to_string()))?;
            let n = i64::try_from(d.nanos()).map_err(|_| f.err("clock_offset", "is too large"))?;
            if neg {
                -n
            } else {
                n
            }
        }
        Some(v) => {
            return Err(f.err(
                "clock_offset",
                format!("expected a duration string such as \"-5ms\", found {v}"),
            ))
        }
    };
    let template = FlowSpec {
        name: base.clone(),
        algorithm: if matches!(kind, FlowKind::Cbr { .. }) {
            "none".to_string()
        } else {
            info.name.to_string()
        },
        params,
        start,
        size_bytes: size,
        extra_delay: host_delay + f.dur("extra_delay")?.unwrap_or(Dur::ZERO),
        direction,
        from,
        to,
        mss,
        initial_window: f.int("initial_window", 1, 1000)?.unwrap_or(10) as u32,
        rwnd_bytes: f.bytes("rwnd")?.unwrap_or(64 << 20),
        pacing: f.bool("pacing")?.unwrap_or(false),
        delayed_ack: f.bool("delayed_ack")?.unwrap_or(true),
        ack_model: AckModelChoice::parse(f)?,
        start_jitter,
        handshake,
        psh,
        psh_rule,
        gso_max_segs,
        shim_lag,
        pacing_credit,
        clock_offset_ns,
        ecn: f.bool("ecn")?.unwrap_or(false),
        kind,
        stop,
        deadline: f.dur("deadline")?,
        dalbe: parse_dalbe(f)?,
        receiver: parse_receiver(f)?,
        transport: Transport::parse(f, kind, mss)?,
    };
    if template.deadline.is_some() && template.size_bytes.is_none() {
        return Err(f.err(
            "deadline",
            "needs a finite transfer: give the flow a `size`",
        ));
    }
    if let Some(d) = &template.dalbe {
        if template.deadline.is_none()
            && scavenger_cc::dalbe::find_controller(&d.controller).is_some_and(|c| c.needs_deadline)
        {
            return Err(f.err("dalbe", format!("controller `{}` steers towards a deadline: give the flow a `deadline` and a `size`", d.controller)));
        }
    }
    if template.rwnd_bytes < mss as u64 {
        return Err(f.err(
            "rwnd",
            format!(
                "{} bytes is smaller than one segment ({mss} bytes)",
                template.rwnd_bytes
            ),
        ));
    }
    let mut members = Vec::new();
    for k in 0..count {
        let mut fs = template.clone();
        if count > 1 {
            fs.name = format!("{base}.{}", k + 1);
        }
        if out.iter().any(|x| x.name == fs.name) {
            return Err(f.err(
                "name",
                format!(
                    "\"{}\" is used by more than one flow; names must be unique",
                    fs.name
                ),
            ));
        }
        members.push(fs.name.clone());
        out.push(fs);
    }
    Ok((base, members))
}

/// Above this many full-size packets at the bottleneck (`Scenario::estimated_packets`), a
/// run needs `--force`: at the simulator's few million packets per second of wall time this
/// is about an hour (the largest study run, Wallenburg 2018's long term, is far below).
pub const COST_BOUND_PACKETS: f64 = 1e10;

impl Scenario {
    /// The cost of a run, as the full-size (1500 B) packets the bottleneck can carry in both
    /// directions over the run: (rate + reverse rate) × duration / 1500 B. Packets, not
    /// events, since every packet costs a few events whatever the algorithm.
    pub fn estimated_packets(&self) -> f64 {
        (self.link.rate.bps() as f64 + self.link.reverse_rate.bps() as f64)
            * self.duration.secs_f64()
            / (8.0 * BDP_PACKET_BYTES as f64)
    }

    /// Refuses a run whose estimated cost is past `COST_BOUND_PACKETS`, with the estimate,
    /// its factors and the bound in the message.
    pub fn check_cost(&self) -> Result<(), crate::error::TooCostly> {
        let n = self.estimated_packets();
        if n <= COST_BOUND_PACKETS {
            return Ok(());
        }
        Err(crate::error::TooCostly {
            packets: n,
            rate: self.link.rate,
            reverse_rate: self.link.reverse_rate,
            duration: self.duration,
            bound: COST_BOUND_PACKETS,
        })
    }

    /// A web-traffic entry becomes its drawn flows (Poisson arrivals over the run, sizes
    /// from its distribution, from a generator derived from the run's seed); any other
    /// entry is itself.
    fn expand_web(&self, idx: usize, f: &FlowSpec, seed: u64) -> Vec<FlowSpec> {
        let FlowKind::Web {
            flows_per_s,
            mean_size,
            dist,
        } = f.kind
        else {
            return vec![f.clone()];
        };
        let mut rng = scavenger_cc::Rng::derive(seed, 3000 + idx as u64);
        let end = f.stop.unwrap_or(self.duration).min(self.duration);
        let mut t = f.start.secs_f64();
        let mut out = Vec::new();
        loop {
            t += -(1.0 - rng.uniform()).ln() / flows_per_s;
            if t >= end.secs_f64() {
                return out;
            }
            let mut g = f.clone();
            g.name = format!("{}.{}", f.name, out.len() + 1);
            g.kind = FlowKind::Tcp;
            g.start = Dur::from_secs_f64(t);
            g.size_bytes = Some(dist.draw(mean_size, rng.uniform()));
            g.stop = None;
            out.push(g);
        }
    }

    /// The simulator configuration for this scenario and seed.
    pub fn to_sim(&self, seed: u64) -> SimConfig {
        let l = &self.link;
        // A blackout or an off period takes the whole link down, both directions.
        let outages: Vec<Outage> = l
            .outages
            .iter()
            .map(|o| Outage {
                start: Time::ZERO + o.start,
                end: Time::ZERO + o.start + o.duration,
            })
            .collect();
        let wifi = scavenger_net::presets::WifiModel::default();
        let link = |rate: Rate,
                    buffer: Buffer,
                    qdisc: &QdiscConfig,
                    loss: LossModel,
                    jitter: Jitter,
                    trace: &Option<TraceSpec>,
                    stream: u64| {
            let mut c = LinkConfig {
                qdisc: qdisc.clone(),
                loss,
                jitter,
                outages: outages.clone(),
                on_off: l.on_off,
                ..LinkConfig::new(rate, l.delay, buffer.limit())
            };
            if let Some(t) = trace {
                c = c.with_trace(t.trace.clone());
            } else if l.preset == Some(Preset::Wifi) {
                // The wireless trace is drawn per run, from the run's seed.
                let t = wifi.trace(rate, &mut scavenger_cc::Rng::derive(seed, stream));
                c = c.with_trace(std::sync::Arc::new(t));
            }
            c
        };
        let forward = link(
            l.rate,
            l.buffer,
            &l.qdisc,
            l.loss,
            l.jitter,
            &l.trace,
            0x5749_4649_0001,
        );
        let reverse = link(
            l.reverse_rate,
            l.reverse_buffer,
            &l.reverse_qdisc,
            l.reverse_loss,
            l.reverse_jitter,
            &l.reverse_trace,
            0x5749_4649_0002,
        );
        let flows: Vec<FlowConfig> = self
            .flows
            .iter()
            .enumerate()
            .flat_map(|(i, f)| self.expand_web(i, f, seed))
            .map(|f| {
                // Datagram flows run no algorithm; the simulator still holds a (never called) one.
                let info = find(if f.algorithm == "none" {
                    "newreno"
                } else {
                    &f.algorithm
                })
                .expect("validated at parse time");
                let mut fc = FlowConfig::bulk(&f.name, info);
                fc.params = f.params.clone();
                fc.start = Time::ZERO + f.start;
                fc.size = f.size_bytes;
                fc.mss = f.mss;
                fc.initial_window = f.initial_window;
                fc.extra_delay = f.extra_delay;
                fc.direction = match f.direction {
                    FlowDirection::Download => scavenger_sim::Direction::Forward,
                    FlowDirection::Upload => scavenger_sim::Direction::Reverse,
                };
                fc.rwnd = f.rwnd_bytes;
                fc.pacing = f.pacing;
                fc.ack_every = if f.delayed_ack { 2 } else { 1 };
                match f.ack_model {
                    None => {}
                    Some(AckModelChoice::Linux) => fc.ack_model = scavenger_sim::AckModel::Linux,
                    Some(AckModelChoice::Legacy) => fc.ack_model = scavenger_sim::AckModel::Legacy,
                }
                if let Some(j) = f.start_jitter {
                    fc.start_jitter = j;
                }
                if let Some(h) = f.handshake {
                    fc.handshake = h;
                }
                if let Some(p) = f.psh {
                    fc.psh = p;
                }
                match f.psh_rule {
                    None => {}
                    Some(PshRuleChoice::EveryAck) => fc.psh_rule = scavenger_sim::PshRule::EveryAck,
                    Some(PshRuleChoice::SkbTail) => fc.psh_rule = scavenger_sim::PshRule::SkbTail,
                    Some(PshRuleChoice::SkbTailBursts) => {
                        fc.psh_rule = scavenger_sim::PshRule::SkbTailBursts
                    }
                }
                if let Some(n) = f.gso_max_segs {
                    fc.gso_max_segs = n;
                }
                if let Some(l) = f.shim_lag {
                    fc.shim_lag = l;
                }
                if let Some(c) = f.pacing_credit {
                    fc.pacing_credit = c;
                }
                fc.clock_offset = f.clock_offset_ns;
                fc.ecn = f.ecn;
                fc.stop = f.stop.map(|s| Time::ZERO + s);
                if let FlowKind::Cbr {
                    rate,
                    packet_size,
                    poisson,
                } = f.kind
                {
                    fc.traffic = scavenger_sim::Traffic::Cbr {
                        rate,
                        payload: packet_size,
                        poisson,
                    };
                    fc.header = 28;
                }
                if let Some(r) = &f.receiver {
                    let algorithm = scavenger_cc::find_receiver(&r.controller)
                        .expect("validated at parse time");
                    fc.receiver = Some(scavenger_sim::config::ReceiverControl {
                        algorithm,
                        params: r.params.clone(),
                    });
                }
                if f.transport == Transport::Quic {
                    // One datagram per MTU: the TCP segment plus its 52 header bytes,
                    // less IPv4 and UDP (28), which the links count as `header`.
                    fc.header = 28;
                    fc.endpoints = Some(
                        scavenger_quic::sim::QuicSimConfig {
                            algorithm: info,
                            params: f.params.clone(),
                            max_udp_payload: (f.mss + 24) as u16,
                            receive_window: f.rwnd_bytes,
                        }
                        .factory(),
                    );
                }
                if let Some(d) = &f.dalbe {
                    let ctrl = scavenger_cc::dalbe::find_controller(&d.controller)
                        .expect("validated at parse time");
                    let params = d.params.clone();
                    let goal = scavenger_cc::dalbe::FlowGoal {
                        size: f.size_bytes,
                        deadline: f.deadline,
                    };
                    fc.wrap = Some(std::sync::Arc::new(move |inner, init| {
                        scavenger_cc::dalbe::controlled(inner, (ctrl.build)(&params), goal, init)
                    }));
                }
                fc
            })
            .collect();
        let index = |n: &str| {
            flows
                .iter()
                .position(|f| f.name == n)
                .expect("validated at parse time")
        };
        let jain = self
            .jain
            .iter()
            .map(|j| JainSpec {
                name: j.name.clone(),
                flows: j.flows.iter().map(|n| index(n)).collect(),
                from: Time::ZERO + j.from,
                to: Time::ZERO + j.to,
            })
            .collect();
        SimConfig {
            duration: self.duration,
            seed,
            forward,
            reverse,
            flows,
            measure: MeasureConfig {
                jain,
                series_bin: self.series_bin,
            },
        }
    }
}
