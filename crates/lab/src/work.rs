//! Work items: one (scenario, seed) each, keyed by a hash of the scenario, the seed and
//! the code version, so a store knows what it has already run.

use crate::datapath::{Datapath, DatapathError};
use crate::record::{tool_info, RunRecord};
use crate::scenario::Scenario;
use sha2::{Digest, Sha256};

#[derive(Clone, Debug)]
pub struct WorkItem {
    pub key: String,
    /// Which experiment of a study or plan this run belongs to.
    pub label: String,
    pub seed: u64,
    pub scenario: Scenario,
}

/// Hex key of (scenario, seed, code version). The scenario enters in its canonical JSON
/// form (every default filled in), so equivalent files give equal keys.
pub fn item_key(scenario: &Scenario, seed: u64) -> String {
    let tool = tool_info();
    let mut h = Sha256::new();
    h.update(
        serde_json::to_string(scenario)
            .expect("scenarios serialise")
            .as_bytes(),
    );
    h.update(b"\0seed=");
    h.update(seed.to_le_bytes());
    h.update(b"\0version=");
    h.update(tool.version.as_bytes());
    h.update(b"\0commit=");
    h.update(tool.git_commit.as_bytes());
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl WorkItem {
    pub fn new(label: impl Into<String>, scenario: Scenario, seed: u64) -> WorkItem {
        WorkItem {
            key: item_key(&scenario, seed),
            label: label.into(),
            seed,
            scenario,
        }
    }

    /// Runs the item on `datapath`. On the simulator this is idempotent: the same item
    /// gives the same record (wall time aside), so any executor may run it again after a
    /// crash.
    /// Runs the item on the simulator (the default datapath).
    pub fn run(&self) -> RunRecord {
        crate::datapath::Simulator.record(&self.scenario, self.seed)
    }

    pub fn run_on(&self, datapath: &dyn Datapath) -> Result<RunRecord, DatapathError> {
        datapath.run(&self.scenario, self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "duration = \"1s\"\n[link]\nrate = \"8Mbit\"\ndelay = \"10ms\"\nbuffer = \"10 packets\"\n[[flow]]\nalgorithm = \"newreno\"\n";

    #[test]
    fn keys_are_stable_and_distinguish_seed_and_scenario() {
        let a = crate::parse("a.toml", S).unwrap();
        let b = crate::parse("b.toml", &S.replace("newreno", "reno")).unwrap();
        assert_eq!(item_key(&a, 1), item_key(&a, 1));
        // "reno" is an alias: the canonical scenario, and so the key, is the same.
        assert_eq!(item_key(&a, 1), item_key(&b, 1));
        assert_ne!(item_key(&a, 1), item_key(&a, 2));
        let c = crate::parse("c.toml", &S.replace("10ms", "11ms")).unwrap();
        assert_ne!(item_key(&a, 1), item_key(&c, 1));
        assert_eq!(item_key(&a, 1).len(), 32);
    }
}
