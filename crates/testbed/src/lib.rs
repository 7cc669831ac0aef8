//! The emulated testbed: real kernel TCP flows between network namespaces, through a
//! userspace link emulator built on the net layer's `Link` — the same queue disciplines,
//! rate servers, delay and loss the simulator uses, driven by the real clock.
//!
//! - [`packet`]: raw IPv4 packets (5-tuple, flow hash, CE marking with checksum update);
//! - [`clock`]: CLOCK_MONOTONIC as the net layer's `Time`;
//! - [`emulator`]: the emulator (sans-IO core and its TUN loop) and its packet log;
//! - [`netns`], [`topology`], [`testbed`]: namespaces, the dumbbell, cleanup;
//! - [`endpoints`]: kernel TCP senders and receivers with TCP_INFO polling;
//! - [`quic`]: `transport = "quic"` flows, quinn endpoints over UDP with our controllers;
//! - [`run`]: a scenario on the testbed, as a run record; [`datapath`]: the same behind
//!   the lab's `Datapath` seam, so studies and sweeps can run on the testbed;
//! - [`doctor`], [`bench`]: the CLI's other testbed commands.

pub mod bench;
pub mod census;
pub mod cli;
pub mod clock;
pub mod cpu_bench;
pub mod datapath;
pub mod doctor;
pub mod emulator;
pub mod endpoints;
pub mod error;
pub mod icmp;
pub mod netns;
pub mod packet;
pub mod quic;
pub mod run;
pub mod sys;
pub mod testbed;
pub mod topology;

pub use datapath::TestbedDatapath;
pub use run::{run_scenario, RunOptions, TestbedRun};
pub use testbed::Testbed;
