//! Counters an application or a test reads while quinn drives the controllers. One
//! `AdapterStats` is shared by every controller a factory builds.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Debug, Default)]
pub struct AdapterStats {
    /// `AckSample`s given to the algorithm (one per ACK frame with new ack-eliciting data).
    pub samples: AtomicU64,
    /// `on_congestion(Loss)` calls: loss episodes.
    pub loss_reductions: AtomicU64,
    /// `on_congestion(Ecn)` calls.
    pub ecn_reductions: AtomicU64,
    /// Congestion events inside a recovery period, not passed on (RFC 9002 §7.3.2).
    pub ignored_events: AtomicU64,
    /// Persistent congestion, passed on as `on_rto`.
    pub rtos: AtomicU64,
    /// Times the algorithm's window changed.
    pub window_changes: AtomicU64,
    /// Smallest and largest window the algorithm reported, bytes.
    pub min_window: AtomicU64,
    pub max_window: AtomicU64,
    /// Acknowledged packets whose transmit record was missing (delivery.rs).
    pub missing_sends: AtomicU64,
    /// The window the algorithm reported last, bytes.
    pub window: AtomicU64,
    /// The RTT of the latest sample, ns (the simulator records one per sample).
    pub last_rtt_ns: AtomicU64,
}

impl AdapterStats {
    pub fn new() -> Self {
        AdapterStats {
            min_window: AtomicU64::new(u64::MAX),
            ..Default::default()
        }
    }

    pub(crate) fn window(&self, old: u64, new: u64) {
        if old != new {
            self.window_changes.fetch_add(1, Relaxed);
        }
        self.window.store(new, Relaxed);
        self.min_window.fetch_min(new, Relaxed);
        self.max_window.fetch_max(new, Relaxed);
    }

    /// A plain copy for printing and assertions.
    pub fn snapshot(&self) -> StatsSnapshot {
        StatsSnapshot {
            samples: self.samples.load(Relaxed),
            loss_reductions: self.loss_reductions.load(Relaxed),
            ecn_reductions: self.ecn_reductions.load(Relaxed),
            ignored_events: self.ignored_events.load(Relaxed),
            rtos: self.rtos.load(Relaxed),
            window_changes: self.window_changes.load(Relaxed),
            min_window: self.min_window.load(Relaxed),
            max_window: self.max_window.load(Relaxed),
            missing_sends: self.missing_sends.load(Relaxed),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatsSnapshot {
    pub samples: u64,
    pub loss_reductions: u64,
    pub ecn_reductions: u64,
    pub ignored_events: u64,
    pub rtos: u64,
    pub window_changes: u64,
    pub min_window: u64,
    pub max_window: u64,
    pub missing_sends: u64,
}
