//! Errors in user input: every one names the file or field, the value and what is
//! allowed.

use scavenger_cc::{Dur, Rate};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct InputError {
    pub file: String,
    /// Dotted path of the field, e.g. `flow[1].params.beta`; empty for file-level errors.
    pub field: String,
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: field `{}`: {}", self.file, self.field, self.message)
        }
    }
}

impl std::error::Error for InputError {}

/// A study name that is not one of ours.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("unknown study \"{name}\"; studies: {}", known.join(", "))]
pub struct UnknownStudy {
    pub name: String,
    pub known: Vec<&'static str>,
}

/// A run whose estimated cost (full-size packets over the bottleneck, both ways) is past
/// the bound (`scenario::COST_BOUND_PACKETS`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("this run would simulate about {packets:.1e} packets (link.rate {rate} + reverse {reverse_rate} over duration {duration}, in 1500-byte packets), past the bound of {bound:.0e} (about an hour of simulation)")]
pub struct TooCostly {
    pub packets: f64,
    pub rate: Rate,
    pub reverse_rate: Rate,
    pub duration: Dur,
    pub bound: f64,
}

/// The CLI and the report paths still carry errors as text; they take these with `?`.
impl From<UnknownStudy> for String {
    fn from(e: UnknownStudy) -> String {
        e.to_string()
    }
}
