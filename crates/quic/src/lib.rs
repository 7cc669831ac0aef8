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
//! What differs from the TCP datapaths is in docs/quic.md.

pub mod ack_frequency;
mod controller;
mod delivery;
mod factory;
mod recovery;
mod sample;
mod stats;

pub use controller::ScavengerController;
pub use factory::{initial_window, FactoryError, ScavengerFactory};
pub use stats::{AdapterStats, StatsSnapshot};

#[cfg(test)]
mod tests;
