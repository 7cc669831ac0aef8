//! Scavenger's lab layer: scenario files, result records, runs and benchmarks.

pub mod analysis;
pub mod bench;
pub mod builder;
pub mod datapath;
pub mod error;
pub mod exec;
pub mod link_models;
pub mod merge;
pub mod palette;
pub mod plan;
pub mod progress;
pub mod record;
pub mod report;
pub mod report_sweep;
pub mod report_testbed;
pub mod scenario;
pub mod score;
pub mod shard;
pub mod slowdown;
pub mod store;
pub mod store_meta;
pub mod study;
pub mod subset;
pub mod svg;
pub mod table;
pub mod toml_fields;
pub mod validate;
pub mod work;

pub use datapath::{Datapath, DatapathError, Simulator};
pub use error::InputError;
pub use record::{run_scenario, RunRecord};
pub use scenario::{load, parse, Scenario};
