//! Scavenger's lab layer: scenario files, result records, runs and benchmarks.

pub mod bench;
pub mod error;
pub mod record;
pub mod scenario;
pub mod toml_fields;

pub use error::InputError;
pub use record::{run_scenario, RunRecord};
pub use scenario::{load, parse, Scenario};
