//! Scavenger's deterministic discrete-event packet simulator: integer-nanosecond time,
//! a stable tie-break, one seeded RNG per run, a dumbbell topology, and a TCP-like
//! transport (SACK, RTO, Linux-like delayed ACKs, timestamps) that drives the cc layer's algorithms.

pub mod config;
pub mod delack;
pub mod endpoint;
pub mod engine;
pub mod handshake;
pub mod packet;
pub mod pcap;
pub mod rcvbuf;
pub mod receiver;
pub mod result;
pub mod rtt;
mod scoreboard;
pub mod sender;
pub mod tap;
pub mod tso;
pub mod world;

#[cfg(test)]
mod conformance_tests;

pub use config::{
    Direction, FlowConfig, JainSpec, MeasureConfig, SimConfig, Traffic, DEFAULT_START_JITTER,
};
pub use receiver::AckModel;
pub use result::SimResult;
pub use sender::PshRule;
pub use world::{run, run_observed, Simulation, WorkCounts};
