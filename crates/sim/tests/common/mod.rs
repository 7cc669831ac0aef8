#![allow(dead_code)]
use scavenger_cc::{find, Dur, Rate, Time};
use scavenger_net::{LinkConfig, LossModel, Outage, QueueLimit};
use scavenger_sim::{FlowConfig, MeasureConfig, SimConfig};

/// A symmetric dumbbell: `rate`, base RTT `rtt` (all on the bottleneck), drop-tail
/// buffer of `buffer` packets in each direction.
pub fn dumbbell(rate_mbps: u64, rtt_ms: u64, buffer: u32, secs: u64) -> SimConfig {
    let link = LinkConfig::new(
        Rate::from_mbps(rate_mbps),
        Dur::from_micros(rtt_ms * 500),
        QueueLimit::Packets(buffer),
    );
    SimConfig {
        duration: Dur::from_secs(secs),
        seed: 1,
        forward: link.clone(),
        reverse: link,
        flows: vec![],
        measure: MeasureConfig::default(),
    }
}

pub fn flow(name: &str, alg: &str) -> FlowConfig {
    FlowConfig::bulk(name, find(alg).unwrap_or_else(|| panic!("algorithm {alg}")))
}

/// Bandwidth-delay product in 1500-byte packets.
pub fn bdp_packets(rate_mbps: u64, rtt_ms: u64) -> u32 {
    (rate_mbps * 1_000_000 / 8 * rtt_ms / 1000 / 1500) as u32
}

pub fn outage(start_s: u64, secs: u64) -> Outage {
    Outage {
        start: Time(start_s * 1_000_000_000),
        end: Time((start_s + secs) * 1_000_000_000),
    }
}

pub fn bernoulli(p: f64) -> LossModel {
    LossModel::Bernoulli { p }
}
