//! Link pieces shared by the simulator and the link emulator. Everything here is sans-IO
//! and knows nothing about TCP: a packet is anything with a size on the wire, a flow key
//! and an ECN field. The simulator and the emulator drive the same objects with
//! `enqueue(now, pkt)`, `advance(now)`/`poll(now)` and `next_wakeup()`.
//!
//! - [`qdisc`]: queue disciplines (drop-tail, drop-head, RED, CoDel, PIE, FQ-CoDel) with
//!   ECN marking;
//! - [`trace`]: delivery-opportunity traces (mahimahi and a native format) for
//!   variable-rate links;
//! - [`delay`]: propagation delay with optional jitter;
//! - [`loss`]: Bernoulli and Gilbert–Elliott loss;
//! - [`link`]: one direction of a link built from those pieces;
//! - [`presets`]: the wireless and satellite stand-ins.

pub mod delay;
pub mod histogram;
pub mod link;
pub mod loss;
pub mod presets;
pub mod qdisc;
pub mod queue;
pub mod trace;

pub use delay::{DelayLine, Jitter};
pub use histogram::Histogram;
pub use link::{DropReason, Link, LinkConfig, LinkStats, OnOff, Outage};
pub use loss::{LossModel, LossProcess};
pub use qdisc::{
    CodelParams, FqCodelParams, PieEstimator, PieParams, Qdisc, QdiscConfig, QdiscStats, RedParams,
};
pub use queue::QueueLimit;
pub use trace::{DeliveryTrace, TraceError};

/// What the net layer needs to know about a packet.
pub trait WirePacket {
    /// Bytes the packet occupies on the wire (headers included).
    fn wire_bytes(&self) -> u32;

    /// The flow the packet belongs to, for flow-queueing disciplines (FQ-CoDel hashes
    /// it, RFC 8290 §4.1.1). Packet types without flows are one flow.
    #[inline]
    fn flow_key(&self) -> u64 {
        0
    }

    /// Whether the packet's ECN field is ECT(0), ECT(1) or CE (RFC 3168 §5), so that an
    /// AQM may mark it instead of dropping it.
    #[inline]
    fn ecn_capable(&self) -> bool {
        false
    }

    /// Sets the ECN field to CE (RFC 3168 §5). Called only when `ecn_capable()` is true.
    #[inline]
    fn set_ce(&mut self) {}
}
