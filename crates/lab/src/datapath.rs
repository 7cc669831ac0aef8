//! The datapath seam: everything that can run a scenario and return a result record.
//!
//! A study, a sweep or `scavenger run` hands a [`Scenario`] and a seed to a
//! [`Datapath`] and gets back a [`RunRecord`] in the one record schema, whichever
//! datapath ran it. The simulator ([`Simulator`], here) is the default; the testbed
//! (kernel TCP between namespaces through the link emulator) implements the trait in
//! `scavenger-testbed`, and QUIC will be the third. Analysis (compare, detection, study
//! metrics) reads records and never asks which datapath made them, except to label them.

use crate::record::RunRecord;
use crate::scenario::Scenario;
use std::fmt;

/// Why a datapath could not run a scenario: the scenario asks for something the
/// datapath cannot do (an algorithm the kernel lacks, a link feature the emulator does
/// not model), or the datapath failed (no root, a namespace that could not be made).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatapathError {
    pub datapath: &'static str,
    pub scenario: String,
    pub message: String,
}

impl fmt::Display for DatapathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cannot run scenario {:?}: {}",
            self.datapath, self.scenario, self.message
        )
    }
}

impl std::error::Error for DatapathError {}

/// Runs one scenario with one seed and returns its record.
///
/// Implementations must be deterministic where the datapath allows it (the simulator
/// is: same scenario and seed, byte-identical record apart from `wall_time_s`), and must
/// fill `RunRecord::datapath` with [`Datapath::name`].
pub trait Datapath: Sync {
    /// The name recorded in every record this datapath makes ("sim", "testbed", ...).
    fn name(&self) -> &'static str;

    /// How many runs may proceed at once. The simulator runs one per core; a datapath
    /// that owns machine-wide state (the testbed's namespaces and BPF registrations, the
    /// real clock) runs one at a time so that runs do not disturb each other.
    fn max_parallel(&self) -> usize {
        usize::MAX
    }

    /// Whether this datapath can run `scenario`, without running it: an error names what
    /// it lacks (an algorithm, a flow kind, a link feature). `reproduce` reports such runs
    /// as skipped, with this reason, instead of failing midway through a long study.
    fn check(&self, _scenario: &Scenario) -> Result<(), DatapathError> {
        Ok(())
    }

    fn run(&self, scenario: &Scenario, seed: u64) -> Result<RunRecord, DatapathError>;
}

/// The deterministic packet simulator (`scavenger-sim`), the default datapath.
#[derive(Clone, Copy, Debug, Default)]
pub struct Simulator;

impl Simulator {
    /// Runs `scenario` with `seed`. The simulator accepts every valid scenario, so this
    /// cannot fail; [`Datapath::run`] wraps it.
    pub fn record(&self, scenario: &Scenario, seed: u64) -> RunRecord {
        let t0 = std::time::Instant::now();
        let metrics = scavenger_sim::run(scenario.to_sim(seed));
        RunRecord::simulated(scenario, seed, metrics, t0.elapsed())
    }
}

impl Datapath for Simulator {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn run(&self, scenario: &Scenario, seed: u64) -> Result<RunRecord, DatapathError> {
        Ok(self.record(scenario, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulator_labels_its_records_and_is_deterministic() {
        let sc = crate::parse(
            "t.toml",
            "name = \"t\"\nduration = \"2s\"\n[link]\nrate = \"8Mbit\"\ndelay = \"10ms\"\nbuffer = \"20 packets\"\n[[flow]]\nname = \"a\"\nalgorithm = \"newreno\"\n",
        )
        .unwrap();
        let dp: &dyn Datapath = &Simulator;
        let mut a = dp.run(&sc, 3).unwrap();
        let mut b = dp.run(&sc, 3).unwrap();
        assert_eq!(a.datapath, "sim");
        a.wall_time_s = 0.0;
        b.wall_time_s = 0.0;
        assert_eq!(a.to_json(), b.to_json());
        assert!(a.metrics.flows[0].goodput_bps > 1e6);
    }
}
