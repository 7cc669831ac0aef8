//! What one run measured. Serialised into the JSON result record by the lab layer.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SimResult {
    pub duration_s: f64,
    pub events: u64,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub jain: Vec<JainResult>,
    /// Time series are written to the record but not read back (their NaN gaps become
    /// nulls): stores and reports work from the summary metrics.
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub series: Option<Series>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Stats {
    pub samples: u64,
    pub mean: Option<f64>,
    pub stdev: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlowResult {
    pub name: String,
    pub algorithm: String,
    pub start_s: f64,
    /// Finite transfers: bytes requested.
    pub size_bytes: Option<u64>,
    /// Seconds from the first to the last byte at the receiver (finite transfers).
    pub completion_time_s: Option<f64>,
    /// When the last byte of a finite transfer arrived (seconds since the run started).
    pub completed_at_s: Option<f64>,
    /// Active duration: start to completion, or start to the end of the run.
    pub active_s: f64,
    /// Distinct payload bytes received.
    pub delivered_bytes: u64,
    /// Payload goodput over the active duration, bit/s.
    pub goodput_bps: f64,
    /// IP bytes received (retransmissions and headers included) over the active duration.
    pub throughput_bps: f64,
    pub rtt_ms: Stats,
    /// The sender's smoothed RTT (Linux srtt), mean weighted by the segments each ACK
    /// delivered: the testbed's `rtt_ms` measure (deviations/testbed.md#testbed-rtt-tcp-info),
    /// which `validate` compares on both sides (docs/validation.md#srtt-measure). `None`
    /// for datagram and QUIC flows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srtt_ms: Option<f64>,
    pub retransmits: u64,
    pub fast_recoveries: u64,
    pub timeouts: u64,
    /// Window reductions in response to ECN-Echo.
    #[serde(default)]
    pub ecn_responses: u64,
    pub final_cwnd_bytes: u64,
    /// Datagram flows: one-way delay of every datagram received (ms) and the fraction
    /// lost among those that were not still in flight at the end.
    #[serde(default)]
    pub owd_ms: Option<Stats>,
    #[serde(default)]
    pub loss_rate: Option<f64>,
    pub conservation: Conservation,
}

/// Wire bytes of data packets: sent = delivered + dropped + in flight (at the end).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Conservation {
    pub sent_bytes: u64,
    pub delivered_bytes: u64,
    pub dropped_bytes: u64,
    pub in_flight_bytes: u64,
}

impl Conservation {
    pub fn holds(&self) -> bool {
        self.sent_bytes == self.delivered_bytes + self.dropped_bytes + self.in_flight_bytes
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LinkResult {
    pub name: String,
    pub rate_bps: u64,
    /// Bytes transmitted / (rate × run duration).
    pub utilisation: f64,
    pub tx_bytes: u64,
    pub tx_pkts: u64,
    /// Packets that reached the far end.
    pub delivered_pkts: u64,
    pub queue_drops: u64,
    /// Of `queue_drops`, those the AQM decided (not the buffer being full).
    #[serde(default)]
    pub aqm_drops: u64,
    /// ECN-CE marks set by the AQM.
    #[serde(default)]
    pub ecn_marks: u64,
    pub wire_losses: u64,
    pub qdelay_ms: Stats,
    pub conservation: Conservation,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JainResult {
    pub name: String,
    pub flows: Vec<String>,
    pub from_s: f64,
    pub to_s: f64,
    /// Jain's fairness index of the flows' goodput over [from, to].
    pub index: f64,
    pub goodput_bps: Vec<f64>,
}

/// Time series, one sample per bin.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Series {
    pub bin_s: f64,
    pub time_s: Vec<f64>,
    /// Per flow: goodput (bit/s) in each bin.
    pub flow_goodput_bps: Vec<Vec<f64>>,
    /// Per flow: congestion window (bytes) at the end of each bin.
    pub flow_cwnd_bytes: Vec<Vec<u64>>,
    /// Per flow: the algorithm's own trace variables (`CongestionControl::trace`) at the
    /// end of each bin, by name.
    pub flow_trace: Vec<Vec<(String, Vec<f64>)>>,
    /// Forward bottleneck: utilisation in each bin and queue length at its end (packets).
    pub link_utilisation: Vec<f64>,
    pub queue_pkts: Vec<u64>,
}

impl Series {
    /// Flow `flow`'s trace variable `name`, one value per bin (`None` if the flow or its
    /// algorithm has no such trace).
    pub fn trace(&self, flow: usize, name: &str) -> Option<&[f64]> {
        self.flow_trace
            .get(flow)?
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

impl LinkResult {
    /// A bottleneck direction's result from its net-layer counters: `rate` over
    /// `duration` for the utilisation, `in_transit_bytes` still on the wire at the end
    /// (for conservation). Shared by the simulator and the testbed's emulator.
    pub fn from_stats(
        name: &str,
        s: &scavenger_net::LinkStats,
        rate: scavenger_cc::Rate,
        duration: scavenger_cc::Dur,
        in_transit_bytes: u64,
    ) -> LinkResult {
        let cap = rate.bytes_in(duration) as f64;
        LinkResult {
            name: name.to_string(),
            rate_bps: rate.bps(),
            utilisation: if cap > 0.0 {
                s.tx_bytes as f64 / cap
            } else {
                0.0
            },
            tx_bytes: s.tx_bytes,
            tx_pkts: s.tx_pkts,
            delivered_pkts: s.delivered_pkts,
            queue_drops: s.dropped_pkts,
            aqm_drops: s.aqm_dropped_pkts,
            ecn_marks: s.marked_pkts,
            wire_losses: s.lost_pkts,
            qdelay_ms: stats_from(&s.qdelay, 1e-6),
            conservation: Conservation {
                sent_bytes: s.arrived_bytes,
                delivered_bytes: s.delivered_bytes,
                dropped_bytes: s.dropped_bytes + s.lost_bytes,
                in_flight_bytes: in_transit_bytes,
            },
        }
    }
}

pub fn stats_from(h: &scavenger_net::Histogram, scale: f64) -> Stats {
    Stats {
        samples: h.count(),
        mean: h.mean().map(|x| x * scale),
        stdev: h.stdev().map(|x| x * scale),
        p50: h.quantile(0.50).map(|x| x as f64 * scale),
        p95: h.quantile(0.95).map(|x| x as f64 * scale),
        p99: h.quantile(0.99).map(|x| x as f64 * scale),
    }
}

/// Jain's index (Σx)² / (n·Σx²); 1 for an empty or all-zero set.
pub fn jain_index(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_matches_its_definition() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), 1.0);
        assert_eq!(jain_index(&[1.0, 0.0]), 0.5);
        assert!((jain_index(&[1.0, 2.0, 3.0]) - 36.0 / 42.0).abs() < 1e-12);
    }
}
