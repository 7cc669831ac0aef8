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
use scavenger_cc::dalbe::{self, ControllerInfo, FlowGoal};
use scavenger_cc::registry::{self, AlgorithmInfo};
use scavenger_cc::{CcInit, Dur, ParamSet, Rng, Time};

use super::TransferError;
use crate::{initial_window, FactoryError, ScavengerController, ScavengerFactory};

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
        match self {
            Congestion::Algorithm(a) => Ok(Arc::new(ScavengerFactory::new(a, [], seed)?)),
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
                Ok(Arc::new(DeadlineFactory {
                    info,
                    params: info.resolve([]).map_err(FactoryError::from)?,
                    ctrl,
                    ctrl_params: ParamSet::defaults(ctrl.params),
                    // FlowGoal::size is the file data still to send; the controller counts
                    // progress as bytes acknowledged at the QUIC layer, which includes
                    // ~3 % of headers and handshake, so it sees itself slightly ahead.
                    goal: FlowGoal {
                        size: Some(size),
                        deadline: Some(Dur::from_nanos(
                            deadline.as_nanos().min(u64::MAX as u128) as u64
                        )),
                    },
                    seed,
                    built: AtomicU64::new(0),
                    stats: Arc::new(crate::AdapterStats::new()),
                }))
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
}

impl ControllerFactory for DeadlineFactory {
    fn build(self: Arc<Self>, now: Instant, mtu: u16) -> Box<dyn Controller> {
        let stream = self.built.fetch_add(1, Ordering::Relaxed);
        let mss = mtu as u64;
        // Time::ZERO is the adapter's epoch (`now`), so the goal's deadline runs from here.
        let init = CcInit {
            now: Time::ZERO,
            mss,
            initial_cwnd: initial_window(mss),
            rng: Rng::derive(self.seed, stream),
        };
        let inner = self.info.instantiate(&self.params, init.clone());
        let meta = (self.ctrl.build)(&self.ctrl_params);
        let algo = dalbe::controlled(inner, meta, self.goal, &init);
        Box::new(ScavengerController::new(
            algo,
            now,
            mtu,
            Arc::clone(&self.stats),
        ))
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
