//! The DA-LBE knobs (the settable socket options of the Storbukås kernel component,
//! Wallenburg 2018 App. B.1-B.2, Wallenburg 2018 notes §4.1) and the per-flow statistics it exported
//! (`struct da_lbe_info`, Wallenburg 2018 App. B.3, Wallenburg 2018 notes §4.3).

use crate::units::{Dur, Time};

/// The knob settings applied by [`super::DaLbe`]. Every field can be changed while the
/// flow runs (`DaLbe::set_knobs`). `Knobs::default()` is the neutral setting that
/// `dalbe_open` applies (Wallenburg 2018 §3.3.2 / spec §5.1: "booleans off, positive-only
/// params zero, scaling factors 1", DA-LBE mode on): the wrapped algorithm then behaves
/// exactly as without the wrapper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Knobs {
    /// `DA_LBE_MODE`: nothing below acts when false (statistics are still kept).
    pub enabled: bool,
    /// `DA_LBE_INFO_ECN`: chance of a phantom ECN per received ACK, multiplied by the
    /// segments the ACK covers (minimum one) and saturating at 1 (Wallenburg 2018 §3.6.1).
    pub phantom_ecn_prob: f64,
    /// `DA_LBE_ECN_CONGESTION_DELAY`, the integer factor v: phantom ECNs are suppressed
    /// while the time since the last real congestion event is at least v times the
    /// average time between real congestion events. 0 disables suppression.
    pub suppression_v: u32,
    /// `DA_LBE_EWMA_WEIGHT` (thesis: `DA_LBE_ECN_EWMA_WEIGHT`), 0..=128: the average
    /// between congestion events moves by (128 - weight)/128 of each new interval's
    /// difference; 0 freezes it (Wallenburg 2018 §3.6.2 fix 3). Kernel default 96.
    pub ewma_weight: u32,
    /// `DA_LBE_ECN_BACKOFF`: chance of ignoring a real ECN echo (no cwnd reduction).
    pub ecn_ignore_prob: f64,
    /// `DA_LBE_CWND_BACKOFF`: chance of ignoring the cwnd backoff when a loss episode
    /// starts (the datapath still retransmits; cwnd and ssthresh are unchanged).
    pub loss_ignore_prob: f64,
    /// `DA_LBE_CONGESTION_PRICE`, μ: the factor by which queueing delay is divided
    /// before the wrapped algorithm sees it (Wallenburg 2018 Alg 4 after the §3.6.3 fix:
    /// RTT' = base + (RTT - base)/μ). μ > 1 hides delay (more aggressive), μ < 1
    /// inflates it (more LBE). Only acts with `delay_based`.
    pub mu: f64,
    /// `DA_LBE_DELAY_BASED_MODE`: enables the delay scaling by `mu`.
    pub delay_based: bool,
    /// `DA_LBE_BASE_RTT_BASED`: scale only the delay above the base RTT (Vegas); when
    /// false the whole RTT is divided by μ. One-way delays are always scaled above their
    /// minimum (they carry an unknown clock offset).
    pub base_rtt_based: bool,
    /// Extension (not in Wallenburg 2018, see docs/dalbe.md): a phantom ECN on every ACK whose
    /// RTT sample exceeds the flow's minimum RTT by more than this queueing delay
    /// (still at most one reduction per RTT). Turns any base algorithm into one that
    /// yields to standing queues. `None` = off.
    pub delay_ecn_threshold: Option<Dur>,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            enabled: true,
            phantom_ecn_prob: 0.0,
            suppression_v: 0,
            ewma_weight: DEFAULT_EWMA_WEIGHT,
            ecn_ignore_prob: 0.0,
            loss_ignore_prob: 0.0,
            mu: 1.0,
            delay_based: false,
            base_rtt_based: false,
            delay_ecn_threshold: None,
        }
    }
}

/// Kernel `DALBE_EWMA_LEVEL` (Wallenburg 2018 notes §4.1 [K]): new-sample gain (128 - 96)/128 = 1/4.
pub const DEFAULT_EWMA_WEIGHT: u32 = 96;

impl Knobs {
    /// The neutral setting (same as `Default`).
    pub fn neutral() -> Knobs {
        Knobs::default()
    }

    /// True when no knob can make the flow more aggressive than the wrapped algorithm
    /// alone: nothing ignored and no delay hidden (μ ≤ 1 or delay scaling off).
    pub fn at_most_best_effort(&self) -> bool {
        !self.enabled
            || (self.ecn_ignore_prob <= 0.0
                && self.loss_ignore_prob <= 0.0
                && (!self.delay_based || self.mu <= 1.0))
    }
}

/// Per-flow statistics, the `da_lbe_info` set plus what Libdalbe read from `TCP_INFO`
/// (smoothed RTT) and the additions Wallenburg 2018 notes §11.6 asks for (delay-triggered cwnd
/// reductions). Counters are cumulative since the flow started; a metacontroller forms
/// per-interval deltas itself (as Libdalbe's `info_now`/`info_prev`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DaLbeInfo {
    /// Sender MSS, current cwnd and ssthresh of the wrapped algorithm (bytes).
    pub mss: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// The datapath is in loss recovery (last ACK's `in_recovery`).
    pub in_recovery: bool,
    /// A wrapper-initiated (phantom-ECN) cwnd reduction is in progress (Linux CWR).
    pub in_cwr: bool,
    /// ACKs processed.
    pub acks: u64,
    /// `dalbe_packets_acked`: Σ ⌈bytes acked / mss⌉ over ACKs.
    pub packets_acked: u64,
    /// `dalbe_bytes_acked`: highest cumulative ACK (snd_una), bytes.
    pub bytes_acked: u64,
    /// Bytes delivered including SACKed data (datapath's `delivered`).
    pub bytes_delivered: u64,
    /// Segments retransmitted (datapath `on_sent` with `retransmission`).
    pub retransmits: u64,
    /// Real congestion events by kind: loss episodes (`dalbe_fast_retransmits` as
    /// episodes), retransmission timeouts (slow retransmits), ECN echoes
    /// (`dalbe_ecn_count`, per ECN event the datapath reports). Counted whether or not
    /// the wrapper let the algorithm react.
    pub loss_events: u64,
    pub rto_events: u64,
    pub ecn_events: u64,
    /// Real events not passed to the algorithm: by the ignore knobs, or absorbed
    /// because a phantom-ECN reduction was already under way (Linux: no second
    /// reduction while in CWR).
    pub ignored_losses: u64,
    pub ignored_ecns: u64,
    pub absorbed_events: u64,
    /// `dalbe_phantom_ecn_count`: phantom ECNs triggered by the probability knob.
    pub phantom_ecn: u64,
    /// Phantom ECNs triggered by the delay-threshold extension.
    pub delay_phantom_ecn: u64,
    /// Phantom ECNs (of both kinds) that reduced cwnd; the others fell into a
    /// reduction already under way (at most one per RTT, RFC 3168).
    pub phantom_reductions: u64,
    /// ACKs on which the probability knob was not tried because of suppression.
    pub phantom_suppressed: u64,
    /// `dalbe_congestion_event_count`: real congestion events (loss + RTO + ECN).
    pub congestion_events: u64,
    /// `dalbe_avg_congestion_interval`: EWMA of the time between real congestion
    /// events (ns resolution, signed arithmetic as after the Wallenburg 2018 §3.6.2 fix).
    pub avg_congestion_interval: Option<Dur>,
    /// Time of the last real congestion event (or flow start before the first).
    pub last_congestion: Time,
    /// `dalbe_cwnd_proportion_aggregated` / `dalbe_cwnd_nr_of_proportions`: Σ and count
    /// of new/old cwnd over reductions made on loss, ECN and phantom ECN.
    pub reduction_ratio_sum: f64,
    pub reductions: u64,
    /// The same for reductions the algorithm made by itself inside `on_ack` (Vegas's
    /// delay decrements; Wallenburg 2018 notes §11.6).
    pub delay_reduction_ratio_sum: f64,
    pub delay_reductions: u64,
    /// RTT statistics from raw (unscaled) samples: minimum, smoothed (RFC 6298,
    /// gain 1/8, as `tcpi_rtt`), latest, and sum/count for whole-flow means.
    pub rtt_min: Option<Dur>,
    pub srtt: Option<Dur>,
    pub rtt_latest: Option<Dur>,
    pub rtt_sum_secs: f64,
    pub rtt_samples: u64,
    /// Minimum one-way delay sample (ns, with the clock offset).
    pub owd_min: Option<i64>,
}

impl DaLbeInfo {
    /// Mean of all raw RTT samples since the flow started.
    pub fn rtt_mean(&self) -> Option<Dur> {
        (self.rtt_samples > 0)
            .then(|| Dur::from_secs_f64(self.rtt_sum_secs / self.rtt_samples as f64))
    }

    /// Real congestion events of all kinds.
    pub fn real_events(&self) -> u64 {
        self.loss_events + self.rto_events + self.ecn_events
    }
}
