//! A read-only view of the packets at the hosts' interfaces, for captures (`--pcap`).
//!
//! smoltcp's `PcapWriter` wraps a device; here the world calls the tap where a packet
//! leaves or reaches a host. A tap only reads: a run with a tap gives the same result as
//! one without, and a run without a tap pays one branch per host crossing.

use crate::packet::Packet;
use scavenger_cc::Time;
use std::cell::RefCell;
use std::rc::Rc;

/// Where the tap sees a packet: the interface of the flow's sender or of its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapPoint {
    /// A data packet (or datagram) leaves the sender, before its access link.
    SenderOut,
    /// An ACK reaches the sender.
    SenderIn,
    /// A data packet (or datagram) reaches the receiver.
    ReceiverIn,
    /// An ACK leaves the receiver.
    ReceiverOut,
}

pub trait Tap {
    fn packet(&mut self, now: Time, at: TapPoint, p: &Packet);
}

/// A shared tap: the caller keeps one handle to read or finish the tap after the run
/// (which consumes the simulation).
impl<T: Tap> Tap for Rc<RefCell<T>> {
    fn packet(&mut self, now: Time, at: TapPoint, p: &Packet) {
        self.borrow_mut().packet(now, at, p);
    }
}

/// Every tapped packet in order: the simulator's packet log, for tests.
#[derive(Default)]
pub struct PacketLog {
    pub entries: Vec<(Time, TapPoint, Packet)>,
}

impl Tap for PacketLog {
    fn packet(&mut self, now: Time, at: TapPoint, p: &Packet) {
        self.entries.push((now, at, *p));
    }
}
