//! Errors in user input: every one names the file, the field and the value.

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
