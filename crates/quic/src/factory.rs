//! `ScavengerFactory`: quinn's `ControllerFactory` for an algorithm from our registry,
//! found by name and configured by a `ParamSet`, as scenarios and the CLI do.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use quinn_proto::congestion::{Controller, ControllerFactory};
use scavenger_cc::registry::{self, AlgorithmInfo};
use scavenger_cc::{CcInit, ParamError, ParamSet, RawParam, Rng, Time};

use crate::controller::ScavengerController;
use crate::stats::AdapterStats;

#[derive(Debug, thiserror::Error)]
pub enum FactoryError {
    #[error("unknown congestion-control algorithm `{name}`; known: {known}")]
    UnknownAlgorithm { name: String, known: String },
    #[error(transparent)]
    Param(#[from] ParamError),
}

/// Builds one `ScavengerController` per connection path.
pub struct ScavengerFactory {
    info: &'static AlgorithmInfo,
    params: ParamSet,
    seed: u64,
    /// Paths built so far: the RNG stream of the next one, so that each connection's
    /// algorithm draws from its own generator and a run is reproducible for a seed.
    built: AtomicU64,
    stats: Arc<AdapterStats>,
}

impl ScavengerFactory {
    /// `name` as `scavenger algorithms` lists it (aliases accepted), user parameters on
    /// top of the algorithm's defaults.
    pub fn new<'a, I>(name: &str, params: I, seed: u64) -> Result<Self, FactoryError>
    where
        I: IntoIterator<Item = (&'a str, &'a RawParam)>,
    {
        let info = registry::find(name).ok_or_else(|| FactoryError::UnknownAlgorithm {
            name: name.to_string(),
            known: registry::known_names(),
        })?;
        let params = info.resolve(params)?;
        Ok(Self::from_params(info, params, seed))
    }

    pub fn from_params(info: &'static AlgorithmInfo, params: ParamSet, seed: u64) -> Self {
        ScavengerFactory {
            info,
            params,
            seed,
            built: AtomicU64::new(0),
            stats: Arc::new(AdapterStats::new()),
        }
    }

    pub fn algorithm(&self) -> &'static AlgorithmInfo {
        self.info
    }

    /// Counters of every controller built by this factory.
    pub fn stats(&self) -> Arc<AdapterStats> {
        Arc::clone(&self.stats)
    }

    /// A controller for a path whose MTU is `mtu`, created at `now`.
    pub fn controller(&self, now: Instant, mtu: u16) -> ScavengerController {
        let init = controller_init(&self.built, self.seed, mtu);
        let algo = self.info.instantiate(&self.params, init);
        ScavengerController::new(algo, now, mtu, Arc::clone(&self.stats))
    }
}

/// The start of the `built`-th controller a factory makes for a path of MTU `mtu`: the
/// adapter's epoch (Time::ZERO is its `now`), an MSS of one datagram, RFC 9002's initial
/// window and the controller's own random stream of `seed`. Counts the controller.
pub(crate) fn controller_init(built: &AtomicU64, seed: u64, mtu: u16) -> CcInit {
    let stream = built.fetch_add(1, Ordering::Relaxed);
    let mss = mtu as u64;
    CcInit {
        now: Time::ZERO,
        mss,
        initial_cwnd: initial_window(mss),
        rng: Rng::derive(seed, stream),
    }
}

/// RFC 9002 §7.2: "min(10 * max_datagram_size, max(2 * max_datagram_size, 14720))",
/// what quinn's own controllers start with.
pub fn initial_window(max_datagram_size: u64) -> u64 {
    (10 * max_datagram_size).min((2 * max_datagram_size).max(14720))
}

impl ControllerFactory for ScavengerFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(self.controller(now, current_mtu))
    }
}
