//! Errors of the scorecard: its subjects and cells (the user's input, exit 2) and its
//! evaluation and report (a run that failed on good input, exit 1). Each names the
//! field or file, the value and what is allowed.

use crate::error::{InputError, LabError};

#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    // ---- the user's input ----
    #[error("unknown algorithm \"{name}\"; known: {known}")]
    UnknownAlgorithm { name: String, known: String },
    #[error("parameter \"{text}\" is not NAME=VALUE (e.g. target=25ms)")]
    NotNameValue { text: String },
    #[error("{algorithm} has no parameter \"{name}\"; its parameters: {known}")]
    NoSuchParameter {
        algorithm: &'static str,
        name: String,
        known: String,
    },
    #[error("parameter {name} = \"{value}\" is not accepted; allowed: {allowed}")]
    BadValue {
        name: String,
        value: String,
        allowed: String,
    },
    /// A parameter value out of its range, found where every scenario's ranges are
    /// checked: by building the scenario.
    #[error("scorecard scenario {what}: {source}")]
    Scenario {
        what: String,
        #[source]
        source: InputError,
    },
    #[error("no cell matches --cells {filters}; cells: {cells}")]
    NoCell { filters: String, cells: String },
    #[error("--seeds {value} is out of range; allowed: 1 to {max} (each run is repeated for seeds 1..=N)")]
    Seeds { value: u64, max: u64 },

    // ---- the evaluation and the report ----
    /// Reading the store or writing the report: `LabError::Io`, or `LabError::NotARecord`
    /// for a stored line the scorecard cannot read. Always a run failure here, even where
    /// the same `LabError` is the user's input elsewhere: the store is the scorecard's own.
    #[error(transparent)]
    Store(#[from] LabError),
    #[error("{algorithm} in cell {cell}: {source}")]
    Cell {
        algorithm: String,
        cell: String,
        #[source]
        source: MissingSeries,
    },
}

impl ScoreError {
    /// Whether the user's input is at fault (exit 2) rather than the run (exit 1).
    pub fn is_usage(&self) -> bool {
        !matches!(self, ScoreError::Store(_) | ScoreError::Cell { .. })
    }
}

/// A run of a cell stored without its time series, which every score needs.
#[derive(Debug, thiserror::Error)]
#[error("the {run} run has no time series")]
pub struct MissingSeries {
    pub run: &'static str,
}
