//! `scavenger census`: which congestion control does a server run? A CAAI-style probe
//! (Wang 2018 §3.1, after Yang et al.) with a TCP receiver of our own on a TUN device,
//! its classifier, an HTTP server for the testbed evaluation, and the report.
//!
//! - [`tcp`]: TCP/IPv4 segments (parse, build);
//! - [`receiver`]: the receiver (sans-IO): small MSS, emulated RTT, induced loss, forced
//!   RTO; the window trace;
//! - [`session`]: what the receiver speaks over its stream: HTTP/1.1, plain or in TLS
//!   (rustls sans-IO);
//! - [`classify`]: the classifier (pure);
//! - [`probe`]: the receiver on a TUN device; URLs;
//! - [`server`]: an HTTP/1.1 server with a per-socket congestion control;
//! - [`eval`]: the evaluation on the testbed; [`report`]: lines, JSON, SVG.

pub mod classify;
pub mod eval;
pub mod probe;
pub mod receiver;
pub mod report;
pub mod server;
pub mod session;
pub mod tcp;
