//! `ScavengerController`: one of our `CongestionControl` algorithms behind quinn-proto's
//! `congestion::Controller`.
//!
//! quinn (0.11) calls, per connection path: `on_sent` once per transmit; per ACK frame,
//! `on_ack` for each newly acknowledged ack-eliciting packet and then `on_end_acks`;
//! after that frame's loss detection, `on_congestion_event` for a batch of lost packets
//! (or, with `lost_bytes == 0`, for an ECN-CE increase); `window()` before each
//! datagram. The adapter turns this into the call order of `scavenger_cc::api`: one
//! `AckSample` per ACK frame (sample.rs), `on_congestion` once per RFC 9002 recovery
//! period (recovery.rs), `on_rto` for persistent congestion, `on_recovery_exit`.

use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard};

use quinn_proto::congestion::{Controller, ControllerMetrics};
use quinn_proto::RttEstimator;
use scavenger_cc::{
    CongestionControl, CongestionEvent, CongestionKind, Dur, RtoEvent, SentInfo, Time,
};
use std::time::Instant;

use crate::delivery::DeliveryState;
use crate::recovery::{RecoveryPeriod, Response};
use crate::sample::{ack_sample, AckFrame, FrameContext};
use crate::stats::AdapterStats;

/// RFC 9002 §6.1.2 kTimeThreshold is 9/8; transmits older than twice that before the
/// newest acknowledged one are acknowledged or lost, and their records can go.
const PRUNE_RTTS: u64 = 2;

/// Linux `tcp_is_cwnd_limited` by rounds: the window limited sending in this round or
/// the previous one. A round ends when the bytes delivered pass what was delivered
/// plus in flight at its start.
#[derive(Clone, Copy, Debug, Default)]
struct CwndRounds {
    round_end: u64,
    this: bool,
    prev: bool,
}

impl CwndRounds {
    /// After a transmit: would the next full datagram still fit? quinn blocks when
    /// `in_flight + segment >= window()`.
    fn on_sent(&mut self, in_flight: u64, mtu: u64, cwnd: u64) {
        if in_flight + mtu > cwnd {
            self.this = true;
        }
    }

    fn on_ack(&mut self, delivered: u64, in_flight: u64) -> bool {
        if delivered >= self.round_end {
            self.prev = self.this;
            self.this = false;
            self.round_end = delivered + in_flight;
        }
        self.this || self.prev
    }
}

/// Maps quinn's `Instant`s to the integer-nanosecond `Time` our algorithms use, counted
/// from the moment the controller was built.
#[derive(Clone, Copy, Debug)]
struct Epoch(Instant);

impl Epoch {
    fn time(self, t: Instant) -> Time {
        Time(t.saturating_duration_since(self.0).as_nanos() as u64)
    }
}

pub struct ScavengerController {
    /// Shared with copies made by `clone_box`, which quinn uses only when a NAT rebinding
    /// moves the connection to a new port (paths.rs `PathData::from_previous`): it keeps
    /// the old path as a fallback and drives only one of the two at a time, so sharing
    /// keeps the algorithm's state (base delay, rate estimates) across the rebinding as
    /// quinn keeps its RTT estimator. Our algorithms are `Send` but not `Sync`; the
    /// mutex makes the controller `Sync` as quinn requires. It is never contended.
    algo: Arc<Mutex<Box<dyn CongestionControl>>>,
    epoch: Epoch,
    mtu: u64,
    /// The algorithm's cwnd after the last call, so `window()` (called per datagram)
    /// does not lock.
    cwnd: u64,
    initial_window: u64,
    /// Adapter's in-flight estimate: quinn's value at each `on_end_acks`, plus transmits
    /// since, minus losses since (quinn's `on_sent` does not pass it).
    in_flight: u64,
    snd_nxt: u64,
    snd_una: u64,
    frame: AckFrame,
    delivery: DeliveryState,
    recovery: RecoveryPeriod,
    rounds: CwndRounds,
    /// Minimum of this adapter's RTT samples: the delivery-rate filter's min RTT.
    min_rtt: Option<Dur>,
    /// Largest recent RTT for pruning transmit records: max of quinn's conservative RTT
    /// and our latest sample.
    prune_rtt: Dur,
    /// Persistent-congestion events since the last ACK frame with new data.
    rto_backoff: u32,
    stats: Arc<AdapterStats>,
}

impl ScavengerController {
    /// Wraps `algo`, built for a path whose MTU is `mtu`, at `now`.
    pub fn new(
        algo: Box<dyn CongestionControl>,
        now: Instant,
        mtu: u16,
        stats: Arc<AdapterStats>,
    ) -> Self {
        let cwnd = algo.cwnd();
        stats.window(cwnd, cwnd);
        ScavengerController {
            algo: Arc::new(Mutex::new(algo)),
            epoch: Epoch(now),
            mtu: mtu as u64,
            cwnd,
            initial_window: cwnd,
            in_flight: 0,
            snd_nxt: 0,
            snd_una: 0,
            frame: AckFrame::default(),
            delivery: DeliveryState::new(Time::ZERO),
            recovery: RecoveryPeriod::default(),
            rounds: CwndRounds::default(),
            min_rtt: None,
            prune_rtt: Dur::ZERO,
            rto_backoff: 0,
            stats,
        }
    }

    /// The algorithm's registry name.
    pub fn algorithm(&self) -> &'static str {
        self.lock().name()
    }

    /// The counters shared with the factory (all controllers it built).
    pub fn stats_snapshot(&self) -> crate::StatsSnapshot {
        self.stats.snapshot()
    }

    /// The algorithm's internal variables, for traces.
    pub fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.lock().trace(out)
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn CongestionControl>> {
        // A panic inside an algorithm poisons the mutex; the state is still the
        // algorithm's own, so keep using it rather than panic in every later call.
        self.algo.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refreshes the cached window after the algorithm ran.
    fn refresh(&mut self) {
        let cwnd = self.lock().cwnd();
        self.stats.window(self.cwnd, cwnd);
        self.cwnd = cwnd;
    }

    /// quinn's per-packet `on_ack`, without the `RttEstimator` (which only quinn can
    /// construct): the adapter takes its RTT from send times.
    pub fn on_packet_acked(&mut self, now: Instant, sent: Instant, bytes: u64) {
        let (now, sent) = (self.epoch.time(now), self.epoch.time(sent));
        self.frame.add(sent, bytes);
        self.delivery.on_acked(now, sent, bytes);
    }

    /// The window quinn compares with. quinn blocks a datagram when `in_flight +
    /// segment >= window()` (connection/mod.rs), TCP when `in_flight + segment > cwnd`;
    /// one byte more makes a window of k datagrams admit k of them. At least one
    /// datagram always fits, as an algorithm may report less than one (Nice).
    fn quinn_window(&self) -> u64 {
        self.cwnd.max(self.mtu) + 1
    }
}

impl Controller for ScavengerController {
    fn on_sent(&mut self, now: Instant, bytes: u64, _last_packet_number: u64) {
        let now = self.epoch.time(now);
        self.delivery.on_sent(now, self.in_flight);
        let seq = self.snd_nxt;
        self.snd_nxt += bytes;
        self.in_flight += bytes;
        self.rounds.on_sent(self.in_flight, self.mtu, self.cwnd);
        let sent = SentInfo {
            bytes,
            bytes_in_flight: self.in_flight,
            // QUIC resends lost frames in new packets with new numbers: every transmit is
            // new data to the window, as RFC 9002 counts it.
            retransmission: false,
            seq,
            // Not known when quinn sends; the ACK's `app_limited` carries it.
            app_limited: false,
        };
        self.lock().on_sent(now, &sent);
        self.refresh();
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        _app_limited: bool,
        rtt: &RttEstimator,
    ) {
        let conservative = Dur(rtt.conservative().as_nanos() as u64);
        self.prune_rtt = self.prune_rtt.max(conservative);
        self.on_packet_acked(now, sent, bytes);
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        _largest_packet_num_acked: Option<u64>,
    ) {
        let now = self.epoch.time(now);
        let frame = std::mem::take(&mut self.frame);
        self.in_flight = in_flight;
        self.snd_una = self.snd_una.max(self.snd_nxt.saturating_sub(in_flight));
        if app_limited {
            self.delivery.on_app_limited(in_flight);
        }
        let Some(newest_sent) = frame.newest_sent else {
            // Only ack-only packets were acknowledged: nothing for the window.
            return;
        };
        let rate = self.delivery.finish_ack(self.min_rtt);
        let rtt = now.since(newest_sent);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        let horizon = Dur(self.prune_rtt.max(rtt).nanos() * PRUNE_RTTS);
        if in_flight == 0 {
            self.delivery.forget_all();
        } else if newest_sent.nanos() > horizon.nanos() {
            self.delivery
                .forget_before(Time(newest_sent.nanos() - horizon.nanos()));
        }
        self.prune_rtt = rtt;
        let rec = self.recovery.on_ack(newest_sent);
        let delivered = self.delivery.delivered();
        let cx = FrameContext {
            now,
            in_flight,
            app_limited,
            in_recovery: rec.in_recovery,
            cwnd_limited: self.rounds.on_ack(delivered, in_flight),
            delivered,
            rate,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            mtu: self.mtu,
        };
        let sample = ack_sample(&frame, &cx);
        {
            let mut algo = self.lock();
            if rec.exit {
                algo.on_recovery_exit(now);
            }
            algo.on_ack(now, &sample);
        }
        self.rto_backoff = 0;
        use std::sync::atomic::Ordering::Relaxed;
        self.stats.last_rtt_ns.store(rtt.nanos(), Relaxed);
        self.stats.samples.fetch_add(1, Relaxed);
        self.stats
            .missing_sends
            .store(self.delivery.missing, Relaxed);
        self.refresh();
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        let (now, sent) = (self.epoch.time(now), self.epoch.time(sent));
        let prior_in_flight = self.in_flight;
        self.in_flight = self.in_flight.saturating_sub(lost_bytes);
        if lost_bytes > 0 {
            self.delivery.forget_before(sent);
        }
        match self
            .recovery
            .on_congestion_event(now, sent, is_persistent_congestion)
        {
            Response::Ignore => {
                self.stats.ignored_events.fetch_add(1, Relaxed);
                return;
            }
            Response::Reduce => {
                // quinn passes `lost_bytes == 0` exactly for an ECN-CE increase
                // (connection/mod.rs `process_ecn`); a loss batch always has bytes.
                let kind = if lost_bytes == 0 {
                    self.stats.ecn_reductions.fetch_add(1, Relaxed);
                    CongestionKind::Ecn
                } else {
                    self.stats.loss_reductions.fetch_add(1, Relaxed);
                    CongestionKind::Loss
                };
                let ev = CongestionEvent {
                    kind,
                    bytes_in_flight: prior_in_flight,
                    bytes_lost: lost_bytes,
                    mss: self.mtu,
                };
                self.lock().on_congestion(now, &ev);
            }
            Response::Collapse => {
                // RFC 9002 §7.6.2 persistent congestion: QUIC's counterpart of a TCP
                // retransmission timeout (§7.6: "analogous to ... a retransmission
                // timeout"); the algorithm's `on_rto` applies its timeout response.
                self.rto_backoff += 1;
                self.stats.rtos.fetch_add(1, Relaxed);
                let ev = RtoEvent {
                    bytes_in_flight: prior_in_flight,
                    backoff_count: self.rto_backoff,
                    mss: self.mtu,
                };
                self.lock().on_rto(now, &ev);
            }
        }
        self.refresh();
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        // Later samples and events carry the new MTU as `mss`; algorithms that fixed
        // their segment size at start keep it (as Linux modules do with a changed MSS
        // until they read `tp->mss_cache` again).
        self.mtu = new_mtu as u64;
    }

    fn window(&self) -> u64 {
        self.quinn_window()
    }

    fn metrics(&self) -> ControllerMetrics {
        let algo = self.lock();
        let mut m = ControllerMetrics::default();
        m.congestion_window = self.quinn_window();
        m.ssthresh = Some(algo.ssthresh()).filter(|&s| s != u64::MAX);
        // Reported for qlog only: quinn 0.11's pacer does not use it (docs/quic.md).
        m.pacing_rate = algo.pacing_rate().map(|r| r.bps());
        m
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(ScavengerController {
            algo: Arc::clone(&self.algo),
            epoch: self.epoch,
            mtu: self.mtu,
            cwnd: self.cwnd,
            initial_window: self.initial_window,
            // The new path starts with nothing in flight (quinn: `InFlight::new()`).
            in_flight: 0,
            snd_nxt: self.snd_nxt,
            snd_una: self.snd_una,
            frame: AckFrame::default(),
            delivery: self.delivery.clone(),
            recovery: self.recovery.clone(),
            rounds: self.rounds,
            min_rtt: self.min_rtt,
            prune_rtt: self.prune_rtt,
            rto_backoff: self.rto_backoff,
            stats: Arc::clone(&self.stats),
        })
    }

    fn initial_window(&self) -> u64 {
        self.initial_window.max(self.mtu) + 1
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
