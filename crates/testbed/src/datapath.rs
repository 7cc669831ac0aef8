//! The testbed as a [`Datapath`]: a scenario runs with kernel TCP between network
//! namespaces through the link emulator, and comes back as the same record the
//! simulator gives (`datapath = "testbed"`, with the kernel and emulator settings in
//! `RunRecord::testbed`). Runs take real time and own machine-wide state (namespaces,
//! BPF registrations), so they run one at a time.

use crate::run::{check_scenario, run_scenario, RunOptions};
use scavenger_lab::datapath::{Datapath, DatapathError};
use scavenger_lab::{RunRecord, Scenario};

/// Runs scenarios on the testbed (needs root; see `scavenger testbed doctor`).
#[derive(Clone, Debug, Default)]
pub struct TestbedDatapath {
    /// Options for every run; the seed of each run replaces `options.seed`.
    pub options: RunOptions,
}

impl Datapath for TestbedDatapath {
    fn name(&self) -> &'static str {
        "testbed"
    }

    fn max_parallel(&self) -> usize {
        1
    }

    fn check(&self, scenario: &Scenario) -> Result<(), DatapathError> {
        check_scenario(scenario, &self.options).map_err(|e| DatapathError {
            datapath: "testbed",
            scenario: scenario.name.clone(),
            message: e.to_string(),
        })
    }

    fn run(&self, scenario: &Scenario, seed: u64) -> Result<RunRecord, DatapathError> {
        let opts = RunOptions {
            seed,
            ..self.options.clone()
        };
        run_scenario(scenario, &opts)
            .map(|r| r.record)
            .map_err(|e| DatapathError {
                datapath: "testbed",
                scenario: scenario.name.clone(),
                message: e.to_string(),
            })
    }
}
