//! Link pieces shared by the simulator and the link emulator. Everything here is sans-IO
//! and knows nothing about TCP: a packet is anything with a size on the wire. The
//! simulator and the emulator drive the same objects with `enqueue(now, pkt)`,
//! `advance(now)`/`poll(now)` and `next_wakeup()`.

pub mod delay;
pub mod histogram;
pub mod link;
pub mod loss;
pub mod queue;

pub use delay::DelayLine;
pub use histogram::Histogram;
pub use link::{Link, LinkConfig, LinkStats, Outage};
pub use loss::LossModel;
pub use queue::{DropTail, QueueLimit};

/// What the net layer needs to know about a packet.
pub trait WirePacket {
    /// Bytes the packet occupies on the wire (headers included).
    fn wire_bytes(&self) -> u32;
}
