//! What a simulation run needs, already validated (the lab layer turns scenario files
//! into this).

use scavenger_cc::{
    AlgorithmInfo, CcInit, CongestionControl, Dur, ParamSet, ReceiverAlgorithmInfo, Time,
};
use scavenger_net::LinkConfig;

#[derive(Clone)]
pub struct SimConfig {
    pub duration: Dur,
    pub seed: u64,
    /// Bottleneck, sender side to receiver side (data direction).
    pub forward: LinkConfig,
    /// Bottleneck, receiver side to sender side (ACK direction).
    pub reverse: LinkConfig,
    pub flows: Vec<FlowConfig>,
    pub measure: MeasureConfig,
}

/// A flow's start jitter unless its scenario sets one: U[0, 10 ms] (issue 17: seeds must
/// not be copies of one start phase; docs/deviations/simulator.md#sim-start-jitter).
pub const DEFAULT_START_JITTER: Dur = Dur::from_millis(10);

#[derive(Clone)]
pub struct FlowConfig {
    pub name: String,
    pub algorithm: &'static AlgorithmInfo,
    pub params: ParamSet,
    pub start: Time,
    /// The flow starts at `start + U[0, start_jitter]`, drawn from the run's seed (its own
    /// stream per flow), so that runs with different seeds start in different phases as on
    /// a testbed; zero starts exactly at `start`. Default [`DEFAULT_START_JITTER`]
    /// (docs/deviations/simulator.md#sim-start-jitter).
    pub start_jitter: Dur,
    /// A TCP flow opens with a SYN/SYN-ACK handshake (`crate::handshake`): data starts
    /// one RTT after the flow starts, and the handshake's RTT sample seeds the sender's
    /// SRTT and RTO and the receiver's. `false` starts with data at once, with no RTT
    /// sample, as before issue 17 (docs/deviations/simulator.md#sim-handshake). Default
    /// true; ignored by datagram and packet-endpoint (QUIC) flows.
    pub handshake: bool,
    /// Bytes to transfer; `None` for a long-lived bulk flow.
    pub size: Option<u64>,
    pub mss: u32,
    pub header: u32,
    /// Initial window in segments.
    pub initial_window: u32,
    /// One-way delay added between this flow's sender and the bottleneck, in each
    /// direction (so the flow's base RTT grows by twice this).
    pub extra_delay: Dur,
    pub rwnd: u64,
    pub pacing: bool,
    /// 1: the receiver acknowledges every segment; otherwise delayed ACKs (`ack_model`).
    pub ack_every: u32,
    /// The legacy receiver's delayed-ACK timer (Linux's timeout is adaptive).
    pub delack_timeout: Dur,
    /// Linux 6.x's receiver (the default: delayed ACKs and receive-window autotuning) or
    /// the legacy every-second-segment receiver with a fixed window (docs/receiver.md).
    pub ack_model: crate::receiver::AckModel,
    /// The sender marks PSH where a bulk writer's pushes land (the default,
    /// docs/deviations/simulator.md#sim-psh); `false` sends no PSH, as the simulator did
    /// before 2026-11-28 (kept for the tests docs/receiver.md lists as pinned to it).
    pub psh: bool,
    /// Where PSH lands: `SkbTailBursts` (the default, the testbed's captures: an unpaced
    /// flow's answer of two or more segments and a paced flow's bursts of two or more
    /// carry it on their tail; docs/deviations/simulator.md#sim-psh-paced), `SkbTail`
    /// (paced flows mark every lone segment too, the default before) or `EveryAck`
    /// (fitted, the default before that; docs/deviations/simulator.md#sim-psh).
    pub psh_rule: crate::sender::PshRule,
    /// Linux's `sk_gso_max_segs`: a paced sender sends up to `tcp_tso_segs` segments per
    /// pacing gap, capped by this (`crate::tso`). Default `GSO_MAX_SEGS` (a device with
    /// GSO); 1 paces single segments, as before 2026-11-28 for every algorithm but BBR
    /// (docs/deviations/simulator.md#sim-paced-bursts).
    pub gso_max_segs: u32,
    /// Apply the algorithm's window from the ACK after the one it was computed on, as our
    /// kernel shim does (docs/deviations/kernel.md#kernel-shim-decision-lag): for comparing
    /// with algorithms run through `scv_shim` (`scavenger validate`). Default `false`.
    pub shim_lag: bool,
    /// Linux's pacing credit (`tcp_update_skb_after_send`, 6.x): a paced burst that left
    /// after its earliest departure time, after an idle or window-limited gap, is followed
    /// by the next one up to half its length sooner, so ACK-clocked bursts of a paced flow
    /// leave at up to twice the pacing rate (docs/deviations/simulator.md#sim-pacing-credit).
    /// Default `false` (opt-in until the paced algorithms are re-measured with it).
    pub pacing_credit: bool,
    /// Receiver clock minus true time, ns.
    pub clock_offset: i64,
    /// Which way the data goes: `Forward` uses the forward link for data and the reverse
    /// link for ACKs (a download in Ong 2020's terms); `Reverse` the opposite (an upload).
    pub direction: Direction,
    /// ECN-capable transport (RFC 3168): data is sent ECT(0), the receiver echoes CE
    /// marks with ECE until CWR, and the sender calls `on_congestion(Ecn)` at most once
    /// per round trip.
    pub ecn: bool,
    /// Wraps the algorithm instance when the flow starts (e.g. DA-LBE under a
    /// metacontroller); `None` runs the algorithm as it is.
    pub wrap: Option<CcWrapper>,
    /// The sender stops here (no new data, no retransmissions); `None` runs to the end.
    pub stop: Option<Time>,
    pub traffic: Traffic,
    /// A receive-side window controller at the receiver (rLEDBAT, RFC 9840): ACKs
    /// advertise min(`rwnd`, its window) without moving the right edge left, and the
    /// sender honours the advertised edge. `None`: the static `rwnd`.
    pub receiver: Option<ReceiverControl>,
    /// Runs the flow as two packet endpoints (QUIC, built by the scenario layer) whose
    /// datagrams cross the links, instead of the TCP model (`crate::endpoint`). `header`
    /// is then the IP + UDP header of each datagram.
    pub endpoints: Option<crate::endpoint::EndpointFactory>,
}

/// A receive-side controller and its parameters.
#[derive(Clone)]
pub struct ReceiverControl {
    pub algorithm: &'static ReceiverAlgorithmInfo,
    pub params: ParamSet,
}

impl ReceiverControl {
    /// The controller with its default parameters.
    pub fn new(algorithm: &'static ReceiverAlgorithmInfo) -> ReceiverControl {
        ReceiverControl {
            algorithm,
            params: ParamSet::defaults(algorithm.params),
        }
    }
}

/// What a flow carries.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Traffic {
    /// A TCP-like connection driven by `algorithm`.
    #[default]
    Tcp,
    /// Unreliable constant-bit-rate datagrams (VoIP-like, or Wallenburg 2018's UDP noise):
    /// `payload` bytes each plus `header` bytes, at `rate` on average; with `poisson`
    /// the gaps are exponential. No ACKs; the receiver records one-way delay and loss.
    Cbr {
        rate: scavenger_cc::Rate,
        payload: u32,
        poisson: bool,
    },
}

/// Builds a flow's controller around its algorithm instance.
pub type CcWrapper = std::sync::Arc<
    dyn Fn(Box<dyn CongestionControl>, &CcInit) -> Box<dyn CongestionControl> + Send + Sync,
>;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    #[default]
    Forward,
    Reverse,
}

impl FlowConfig {
    /// A bulk flow with the transport defaults of the foundation issue: MSS 1448, 52 header
    /// bytes, IW10, Linux 6.x delayed ACKs (docs/receiver.md), a 64 MiB receive window.
    pub fn bulk(name: &str, algorithm: &'static AlgorithmInfo) -> FlowConfig {
        FlowConfig {
            name: name.to_string(),
            algorithm,
            params: ParamSet::defaults(algorithm.params),
            start: Time::ZERO,
            start_jitter: DEFAULT_START_JITTER,
            handshake: true,
            size: None,
            mss: 1448,
            header: crate::packet::DEFAULT_HEADER_BYTES,
            initial_window: 10,
            extra_delay: Dur::ZERO,
            rwnd: 64 << 20,
            pacing: false,
            ack_every: 2,
            delack_timeout: Dur::from_millis(40),
            ack_model: crate::receiver::AckModel::Linux,
            psh: true,
            psh_rule: crate::sender::PshRule::SkbTailBursts,
            gso_max_segs: crate::tso::GSO_MAX_SEGS,
            shim_lag: false,
            pacing_credit: false,
            clock_offset: 0,
            direction: Direction::Forward,
            ecn: false,
            wrap: None,
            stop: None,
            traffic: Traffic::Tcp,
            receiver: None,
            endpoints: None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct MeasureConfig {
    pub jain: Vec<JainSpec>,
    /// Bin width of the optional time series (per-flow throughput and cwnd, queue length).
    pub series_bin: Option<Dur>,
}

#[derive(Clone, Debug)]
pub struct JainSpec {
    pub name: String,
    /// Indices into `SimConfig::flows`.
    pub flows: Vec<usize>,
    pub from: Time,
    pub to: Time,
}
