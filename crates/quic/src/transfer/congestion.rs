//! Which controller a transfer runs: an algorithm from the registry by name (LBE by
//! default), or deadline-aware LBE (Wallenburg 2018; docs/dalbe.md): a base algorithm
//! in the DA-LBE wrapper under a metacontroller that knows the transfer's size and
//! deadline. The metacontroller reads no clock: it is ticked from the adapter's ACK and
//! send events, whose `now` comes from quinn, counted from the controller's creation,
//! which is when the deadline starts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn_proto::congestion::{Controller, ControllerFactory};
use scavenger_cc::dalbe::{self, ControlledFlow, ControllerInfo, DaLbe, FlowGoal, Knobs};
use scavenger_cc::registry::{self, AlgorithmInfo};
use scavenger_cc::{
    AckSample, CongestionControl, CongestionEvent, Dur, ParamSet, Rate, RtoEvent, SentInfo, Time,
};

use super::TransferError;
use crate::{FactoryError, ScavengerController, ScavengerFactory};

/// A connection's controller factory and, with a deadline, its progress feed.
pub type FedFactory = (
    Arc<dyn ControllerFactory + Send + Sync>,
    Option<Arc<ProgressFeed>>,
);

/// The LBE algorithm used unless `--algorithm` says otherwise: the best LBE controller
/// we have today. A registry name, so that another (our own `ebb`) can take its place.
pub const DEFAULT_LBE: &str = "ledbat-plus-plus";
/// With `--deadline`: the base algorithm (best effort when behind schedule) and the
/// metacontroller (docs/dalbe.md §4, `DeadlineSwitch`).
pub const DEFAULT_DEADLINE_BASE: &str = "cubic";
pub const DEFAULT_DEADLINE_CONTROLLER: &str = "deadline";

#[derive(Clone, Debug, PartialEq)]
pub enum Congestion {
    /// Run this registry algorithm as it is.
    Algorithm(String),
    /// Deadline-aware LBE: `base` in DA-LBE under `controller`, which must finish the
    /// transfer within `deadline` of the connection's start.
    Deadline {
        base: String,
        controller: String,
        deadline: Duration,
    },
}

impl Default for Congestion {
    fn default() -> Self {
        Congestion::Algorithm(DEFAULT_LBE.to_string())
    }
}

impl Congestion {
    /// The name for summaries: `ledbat-plus-plus`, or `deadline(cubic)`.
    pub fn label(&self) -> String {
        match self {
            Congestion::Algorithm(a) => canonical(a),
            Congestion::Deadline {
                base, controller, ..
            } => format!("{controller}({})", canonical(base)),
        }
    }

    /// The factory for a connection that will carry `size` bytes of file data.
    pub fn factory(
        &self,
        size: u64,
        seed: u64,
    ) -> Result<Arc<dyn ControllerFactory + Send + Sync>, TransferError> {
        self.factory_fed(size, seed).map(|(f, _)| f)
    }

    /// `factory`, and with a deadline the feed through which the sender tells the DA-LBE
    /// controller the transfer's progress in file bytes (docs/transfer.md, "Progress the
    /// controller sees").
    pub fn factory_fed(&self, size: u64, seed: u64) -> Result<FedFactory, TransferError> {
        match self {
            Congestion::Algorithm(a) => Ok((Arc::new(ScavengerFactory::new(a, [], seed)?), None)),
            Congestion::Deadline {
                base,
                controller,
                deadline,
            } => {
                let info = find(base)?;
                let ctrl = dalbe::find_controller(controller).ok_or_else(|| {
                    TransferError::BadOption {
                        field: "--controller",
                        value: controller.clone(),
                        allowed: "a DA-LBE controller (scavenger algorithms lists them): cubic-mbc, vegas-mbc, deadline, linear-phantom",
                    }
                })?;
                if deadline.is_zero() {
                    return Err(TransferError::BadOption {
                        field: "--deadline",
                        value: "0".into(),
                        allowed: "a positive duration such as 30m or 2h",
                    });
                }
                let feed = Arc::new(ProgressFeed::default());
                let factory = Arc::new(DeadlineFactory {
                    info,
                    params: info.resolve([]).map_err(FactoryError::from)?,
                    ctrl,
                    ctrl_params: ParamSet::defaults(ctrl.params),
                    // FlowGoal::size is the file data to send; the sender corrects it for
                    // resumed prefixes and feeds progress in file bytes (`ProgressFeed`).
                    goal: FlowGoal {
                        size: Some(size),
                        deadline: Some(Dur::from_nanos(
                            deadline.as_nanos().min(u64::MAX as u128) as u64
                        )),
                    },
                    seed,
                    built: AtomicU64::new(0),
                    stats: Arc::new(crate::AdapterStats::new()),
                    feed: Arc::clone(&feed),
                });
                Ok((factory, Some(feed)))
            }
        }
    }
}

fn canonical(name: &str) -> String {
    registry::find(name).map_or_else(|| name.to_string(), |i| i.name.to_string())
}

fn find(name: &str) -> Result<&'static AlgorithmInfo, TransferError> {
    registry::find(name).ok_or_else(|| {
        FactoryError::UnknownAlgorithm {
            name: name.to_string(),
            known: registry::known_names(),
        }
        .into()
    })
}

/// `ScavengerFactory` with the algorithm wrapped in DA-LBE under a metacontroller.
struct DeadlineFactory {
    info: &'static AlgorithmInfo,
    params: ParamSet,
    ctrl: &'static ControllerInfo,
    ctrl_params: ParamSet,
    goal: FlowGoal,
    seed: u64,
    built: AtomicU64,
    stats: Arc<crate::AdapterStats>,
    feed: Arc<ProgressFeed>,
}

impl ControllerFactory for DeadlineFactory {
    fn build(self: Arc<Self>, now: Instant, mtu: u16) -> Box<dyn Controller> {
        // Time::ZERO is the adapter's epoch (`now`), so the goal's deadline runs from here.
        let init = crate::factory::controller_init(&self.built, self.seed, mtu);
        let inner = self.info.instantiate(&self.params, init.clone());
        let meta = (self.ctrl.build)(&self.ctrl_params);
        // As `dalbe::controlled`, with the concrete flow kept for the progress feed.
        let dalbe = DaLbe::new(inner, Knobs::default(), DaLbe::derive_rng(&init));
        let flow = ControlledFlow::new(dalbe, meta, self.goal, init.now);
        let algo = Box::new(Fed::new(flow, Arc::clone(&self.feed)));
        Box::new(ScavengerController::new(
            algo,
            now,
            mtu,
            Arc::clone(&self.stats),
        ))
    }
}

/// No value yet.
const UNSET: u64 = u64::MAX;

/// Bytes of a QUIC 1-RTT packet that are not file data when it carries one STREAM
/// frame: flags 1, destination connection ID 8 (quinn's default), packet number ≤ 4,
/// AEAD tag 16, STREAM frame type, stream ID, offset and length ≤ 12 (RFC 9000 §17.3.1,
/// §19.8; RFC 9001 §5.3).
const PACKET_OVERHEAD: u64 = 40;

/// What the sender tells the DA-LBE controller (docs/transfer.md, "Progress the
/// controller sees"): the goal in file bytes once the resume points are known, the
/// file bytes the receiver confirmed, the file bytes handed to quinn, and quinn's count
/// of lost bytes. Written by the sender's task, read by the controller on quinn's.
#[derive(Debug)]
pub struct ProgressFeed {
    goal: AtomicU64,
    confirmed: AtomicU64,
    written: AtomicU64,
    lost: AtomicU64,
}

impl Default for ProgressFeed {
    fn default() -> Self {
        ProgressFeed {
            goal: AtomicU64::new(UNSET),
            confirmed: AtomicU64::new(0),
            written: AtomicU64::new(0),
            lost: AtomicU64::new(0),
        }
    }
}

impl ProgressFeed {
    /// File bytes this connection has to send: the sizes less the resumed prefixes
    /// known so far (each file's resume point arrives with its first reply).
    pub fn set_goal(&self, bytes: u64) {
        self.goal.store(bytes, Ordering::Relaxed);
    }
    /// File bytes of this connection in files the receiver confirmed (whole-file hash).
    pub fn set_confirmed(&self, bytes: u64) {
        self.confirmed.store(bytes, Ordering::Relaxed);
    }
    /// File bytes of this connection handed to quinn.
    pub fn add_written(&self, bytes: u64) {
        self.written.fetch_add(bytes, Ordering::Relaxed);
    }
    /// quinn's `PathStats::lost_bytes`.
    pub fn set_lost(&self, bytes: u64) {
        self.lost.store(bytes, Ordering::Relaxed);
    }
}

/// Where the progress estimate restarts: at the first feed and each confirmation.
#[derive(Clone, Copy)]
struct Calibration {
    una: u64,
    lost: u64,
    confirmed: u64,
}

/// The DA-LBE flow with the sender's progress fed in before each event, so that its
/// ticks see file bytes (`ControlledFlow::set_progress`) while the base algorithm keeps
/// the adapter's `snd_una`. Between confirmations the progress in the current file is
/// estimated from `snd_una` since the last confirmation, less quinn's lost bytes, times
/// the file-data share of a packet (1 - PACKET_OVERHEAD / mean packet size), and never
/// more than the file bytes handed to quinn; each confirmation makes it exact again.
struct Fed {
    flow: ControlledFlow,
    feed: Arc<ProgressFeed>,
    goal: u64,
    una: u64,
    cal: Option<Calibration>,
    sent_bytes: u64,
    sent_packets: u64,
}

impl Fed {
    fn new(flow: ControlledFlow, feed: Arc<ProgressFeed>) -> Fed {
        Fed {
            flow,
            feed,
            goal: UNSET,
            una: 0,
            cal: None,
            sent_bytes: 0,
            sent_packets: 0,
        }
    }

    fn apply(&mut self) {
        let f = &self.feed;
        let goal = f.goal.load(Ordering::Relaxed);
        if goal == UNSET {
            return; // before the first resume reply: snd_una, as Libdalbe
        }
        if goal != self.goal {
            self.goal = goal;
            self.flow.set_goal(FlowGoal {
                size: Some(goal),
                ..self.flow.goal()
            });
        }
        let (confirmed, lost) = (
            f.confirmed.load(Ordering::Relaxed),
            f.lost.load(Ordering::Relaxed),
        );
        let cal = match self.cal {
            Some(c) if c.confirmed == confirmed => c,
            _ => {
                let c = Calibration {
                    una: self.una,
                    lost,
                    confirmed,
                };
                self.cal = Some(c);
                c
            }
        };
        let wire = self
            .una
            .saturating_sub(cal.una)
            .saturating_sub(lost.saturating_sub(cal.lost));
        let mean = self.sent_bytes.checked_div(self.sent_packets).unwrap_or(0);
        let data = if mean > PACKET_OVERHEAD {
            (wire as u128 * (mean - PACKET_OVERHEAD) as u128 / mean as u128) as u64
        } else {
            0
        };
        let written = f.written.load(Ordering::Relaxed);
        self.flow
            .set_progress(confirmed + data.min(written.saturating_sub(confirmed)));
    }
}

impl CongestionControl for Fed {
    fn name(&self) -> &'static str {
        self.flow.name()
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.una = self.una.max(ack.snd_una);
        self.apply();
        self.flow.on_ack(now, ack);
    }
    fn on_congestion(&mut self, now: Time, ev: &CongestionEvent) {
        self.apply();
        self.flow.on_congestion(now, ev);
    }
    fn on_rto(&mut self, now: Time, ev: &RtoEvent) {
        self.apply();
        self.flow.on_rto(now, ev);
    }
    fn on_recovery_exit(&mut self, now: Time) {
        self.flow.on_recovery_exit(now);
    }
    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.sent_bytes += sent.bytes;
        self.sent_packets += 1;
        self.apply();
        self.flow.on_sent(now, sent);
    }
    fn cwnd(&self) -> u64 {
        self.flow.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.flow.ssthresh()
    }
    fn pacing_rate(&self) -> Option<Rate> {
        self.flow.pacing_rate()
    }
    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.flow.trace(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factories_are_found_by_name_and_bad_names_are_named() {
        assert_eq!(Congestion::default().label(), "ledbat-plus-plus");
        Congestion::default().factory(1, 1).unwrap();
        let d = Congestion::Deadline {
            base: "cubic".into(),
            controller: "deadline".into(),
            deadline: Duration::from_secs(60),
        };
        assert_eq!(d.label(), "deadline(cubic)");
        let f = d.factory(1 << 20, 1).unwrap();
        let c = f.build(Instant::now(), 1200);
        assert!(c.window() >= 1200);
        let e = Congestion::Algorithm("nope".into())
            .factory(1, 1)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("nope") && e.contains("cubic"), "{e}");
        let e = Congestion::Deadline {
            base: "cubic".into(),
            controller: "nope".into(),
            deadline: Duration::from_secs(1),
        }
        .factory(1, 1)
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("--controller") && e.contains("nope"), "{e}");
    }
}
