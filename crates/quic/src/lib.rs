//! Scavenger's QUIC datapath: our sans-IO congestion controllers (scavenger-cc) inside
//! quinn through quinn-proto 0.11's `congestion::Controller` interface, which lets an
//! outside crate supply a controller without a fork.
//!
//! - `ScavengerFactory` builds a `ScavengerController` per connection path from an
//!   algorithm name and parameters; install it with
//!   `TransportConfig::congestion_controller_factory`.
//! - `ack_frequency::prompt_acks()` asks the peer for prompt ACKs, which delay-based
//!   algorithms need.
//!
//! - `transfer`: `scavenger send` / `receive`, a background file transfer on top
//!   (docs/transfer.md).
//!
//! - `udp`: a scenario's QUIC flow over real UDP, the testbed's QUIC endpoints.
//!
//! - `sim`: QUIC in the simulator, two quinn-proto endpoints in virtual time behind
//!   `scavenger_sim::endpoint::PacketEndpoints` (a scenario flow's `transport = "quic"`).
//!
//! What differs from the TCP datapaths is in docs/quic.md.

pub mod ack_frequency;
mod controller;
mod delivery;
mod factory;
mod recovery;
mod sample;
pub mod sim;
mod stats;
pub mod transfer;
pub mod udp;

pub use controller::ScavengerController;
pub use factory::{initial_window, FactoryError, ScavengerFactory};
pub use stats::{AdapterStats, StatsSnapshot};
pub use transfer::{receive, send, ReceiveOptions, SendOptions, SendSummary};

#[cfg(test)]
mod tests;
