//! The packet-endpoint seam: a flow whose two ends are a real protocol stack (QUIC
//! through quinn-proto, `scavenger_quic::sim`) instead of the simulator's TCP model.
//!
//! The world carries the endpoints' datagrams over its links and access lines as it
//! carries TCP segments: a client datagram is a `Kind::Data` packet on the flow's data
//! direction, a server datagram a `Kind::Ack` packet on the other, each `header` bytes
//! (IPv4 + UDP) plus its payload on the wire. The payload itself waits here, keyed by the
//! packet's `seg` (a per-flow datagram number), so that `Packet` stays a small copyable
//! value; a dropped packet's payload is forgotten. Time is the simulator's: the endpoints
//! see only the `now` passed in (docs/quic.md, "QUIC in the simulator").
//!
//! This crate knows nothing of QUIC: the scenario layer (crates/lab) builds the
//! endpoints through `FlowConfig::endpoints`, so the dependency runs lab → quic → sim.

use crate::packet::{Kind, Packet};
use scavenger_cc::{Dur, Time};
use scavenger_net::Histogram;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which end of the flow: the client sends the flow's data, the server receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Client,
    Server,
}

/// What the world reads from the endpoints for the flow's record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStatus {
    /// Application bytes the server has read, in order.
    pub delivered: u64,
    /// The server has read the whole transfer (finite flows only).
    pub finished: bool,
    /// The sender's congestion window, bytes.
    pub cwnd: u64,
    /// Packets the sender declared lost (what it retransmits).
    pub lost_packets: u64,
    /// Window reductions for loss.
    pub loss_reductions: u64,
    /// Persistent congestion (the algorithm's `on_rto`).
    pub timeouts: u64,
    /// Window reductions for ECN-CE.
    pub ecn_reductions: u64,
}

/// Two endpoints of one flow, driven in virtual time. Implementations must be
/// deterministic: the same calls give the same datagrams.
pub trait PacketEndpoints {
    /// A datagram with `payload` reached `to` at `now`.
    fn deliver(&mut self, now: Time, to: End, payload: &[u8]);
    /// The next datagram either end sends at `now`, or `None` when neither has one.
    fn poll_transmit(&mut self, now: Time) -> Option<(End, Vec<u8>)>;
    /// Runs the timers due at or before `now`.
    fn handle_timeout(&mut self, now: Time);
    /// The earliest timer of either end.
    fn next_timeout(&mut self) -> Option<Time>;
    /// The flow's sender stops writing new data (`FlowConfig::stop`).
    fn stop(&mut self, now: Time);
    fn status(&self) -> EndpointStatus;
    /// RTT samples (one per ACK that gave the sender's controller a sample) since the
    /// last call.
    fn take_rtt_samples(&mut self, out: &mut Vec<Dur>);
}

/// What the endpoints of a flow are built from when the flow starts.
#[derive(Clone, Debug)]
pub struct EndpointInit {
    pub flow: u32,
    pub now: Time,
    /// The run's seed; implementations derive their generators from it and `flow`.
    pub seed: u64,
    /// Bytes to transfer; `None` for a bulk flow that never ends.
    pub size: Option<u64>,
}

/// Builds a flow's endpoints (`FlowConfig::endpoints`).
pub type EndpointFactory = Arc<dyn Fn(&EndpointInit) -> Box<dyn PacketEndpoints> + Send + Sync>;

/// The world's state of one endpoint flow: the endpoints, the payloads in the network,
/// and the sender-side counters that the TCP model keeps in its `Sender`.
pub(crate) struct EndpointFlow {
    pub eps: Box<dyn PacketEndpoints>,
    payloads: BTreeMap<u32, Vec<u8>>,
    next_id: u32,
    pub sent_wire_bytes: u64,
    pub rtt: Histogram,
    rtt_buf: Vec<Dur>,
}

impl EndpointFlow {
    pub fn new(eps: Box<dyn PacketEndpoints>) -> EndpointFlow {
        EndpointFlow {
            eps,
            payloads: BTreeMap::new(),
            next_id: 0,
            sent_wire_bytes: 0,
            rtt: Histogram::new(),
            rtt_buf: Vec::new(),
        }
    }

    /// The next datagram as a packet of `flow`, its payload kept until it arrives or is
    /// dropped.
    pub fn next_packet(&mut self, now: Time, flow: u32, header: u32) -> Option<(End, Packet)> {
        let (from, payload) = self.eps.poll_transmit(now)?;
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let mut p = Packet::data(flow, id, payload.len() as u32, header, now.nanos(), false);
        if from == End::Server {
            p.kind = Kind::Ack;
        } else {
            self.sent_wire_bytes += p.wire as u64;
        }
        self.payloads.insert(id, payload);
        Some((from, p))
    }

    /// Hands an arriving packet's payload to its end.
    pub fn arrive(&mut self, now: Time, p: &Packet) {
        let to = match p.kind {
            Kind::Data => End::Server,
            Kind::Ack => End::Client,
        };
        if let Some(payload) = self.payloads.remove(&p.seg) {
            self.eps.deliver(now, to, &payload);
        }
        if to == End::Client {
            self.eps.take_rtt_samples(&mut self.rtt_buf);
            for d in self.rtt_buf.drain(..) {
                self.rtt.record(d.nanos());
            }
        }
    }

    /// A packet of this flow was dropped: its payload will never arrive.
    pub fn dropped(&mut self, p: &Packet) {
        self.payloads.remove(&p.seg);
    }
}
