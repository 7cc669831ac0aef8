//! Helpers shared by the testbed's root test binaries.
#![allow(dead_code)] // each test binary uses its own subset

use scavenger_cc::{Dur, Rate};
use scavenger_net::{LinkConfig, QueueLimit};
use scavenger_testbed::netns;

/// Prints past the test harness's output capture, so a skip shows in every log.
pub fn say(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

/// Whether namespaces can be created here; says why not.
pub fn can_run(test: &str) -> bool {
    if !scavenger_testbed::sys::is_root() {
        say(&format!(
            "SKIP {test}: not root (the testbed needs network namespaces, veth and TUN)"
        ));
        return false;
    }
    let ns = netns::Namespaces::new();
    if let Err(e) = ns.add(&format!("{}-probe", netns::unique_id())) {
        say(&format!(
            "SKIP {test}: cannot create a network namespace: {e}"
        ));
        return false;
    }
    true
}

pub fn link(rate_mbps: u64, delay_ms: u64, limit: u32) -> LinkConfig {
    LinkConfig::new(
        Rate::from_mbps(rate_mbps),
        Dur::from_millis(delay_ms),
        QueueLimit::Packets(limit),
    )
}
