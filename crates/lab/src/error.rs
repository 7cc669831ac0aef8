//! Errors in user input: every one names the file or field, the value and what is
//! allowed.

use scavenger_cc::{Dur, Rate};
use std::fmt;
use std::path::{Path, PathBuf};

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

/// Errors of the result store and of what reads it (store, store description, merge,
/// tables, reports, comparisons, executors). Each names the path, and the line or key
/// where there is one, and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// An I/O error on `path`; `action` is the verb of the message ("read", "write to").
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("result store {} is in use by {}; wait for it to finish or write to another --out", dir.display(), holder.as_ref().map_or("another process".to_string(), |p| format!("another process (pid {p})")))]
    StoreInUse {
        dir: PathBuf,
        holder: Option<String>,
    },
    /// A damaged line that only opening the store repairs.
    #[error("{} line {line}: not a result record ({reason}); `scavenger report {}` moves damaged lines aside", path.display(), dir.display())]
    DamagedLine {
        path: PathBuf,
        line: usize,
        reason: String,
        dir: PathBuf,
    },
    #[error("internal: a line given for key {key} is not its result record")]
    NotItsRecord { key: String },
    #[error("{} is not a result store (it has no {})", dir.display(), crate::store::RESULTS_FILE)]
    NotAStore { dir: PathBuf },
    #[error("{} holds the results of {held}, not {wanted}; write to another --out, or pass --force to use it anyway (its store.json is replaced)", dir.display())]
    OtherStore {
        dir: PathBuf,
        held: String,
        wanted: String,
    },
    #[error("{}: not a store description ({reason}){}", path.display(), if *replaceable { "; pass --force to replace it" } else { "" })]
    NotAStoreDescription {
        path: PathBuf,
        reason: String,
        replaceable: bool,
    },
    /// merge: a line without a key, or of another build (`origin` is "PATH line N").
    #[error("{origin}: a result line without a `key`")]
    NoKey { origin: String },
    #[error("{origin}: a record of scavenger {version} commit {commit}, but this is {our_version} commit {our_commit}; its key is one this build never asks for. Merge with the build that wrote it, or pass --force to merge it anyway")]
    OtherBuild {
        origin: String,
        version: String,
        commit: String,
        our_version: String,
        our_commit: String,
    },
    #[error("name at least one result store to merge")]
    NothingToMerge,
    #[error("{} is the output store; name it once, as OUT", dir.display())]
    InputIsOutput { dir: PathBuf },
    #[error("{} holds the results of {id}, but {} holds {first}; merge stores of one study or sweep, or pass --force", dir.display(), first_dir.display())]
    MixedStores {
        dir: PathBuf,
        id: String,
        first_dir: PathBuf,
        first: String,
    },
    #[error("key {key}: {a} and {b} hold different records for one run (beyond the wall time); the code or the datapath differs. Pass --force to keep the first")]
    Conflict { key: String, a: String, b: String },
    /// compare: a file or line that is not a record.
    #[error("{}{}: not a {what}: {reason}", path.display(), line.map_or(String::new(), |l| format!(" line {l}")))]
    NotARecord {
        path: PathBuf,
        line: Option<usize>,
        what: &'static str,
        reason: String,
    },
    #[error("{} holds neither record.json nor {}", path.display(), crate::store::RESULTS_FILE)]
    NothingToCompare { path: PathBuf },
    #[error("{}: has no `metrics`; expected a record written by `scavenger run --out` or `testbed run --out`", path.display())]
    NoMetrics { path: PathBuf },
    #[error("no result in {} has the label and seed of one in {}; compare two stores of the same study or sweep, or two records", a.display(), b.display())]
    NothingPaired { a: PathBuf, b: PathBuf },
    /// A run that failed on its datapath.
    #[error(transparent)]
    Datapath(#[from] crate::datapath::DatapathError),
    #[error(transparent)]
    UnknownStudy(#[from] UnknownStudy),
    #[error(transparent)]
    Input(#[from] InputError),
    /// A `--subset` that is not allowed or chooses nothing (a usage error).
    #[error(transparent)]
    Subset(#[from] crate::subset::SubsetError),
}

impl LabError {
    /// The `map_err` for an I/O error on `path`.
    pub fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> LabError {
        let path = path.to_path_buf();
        move |source| LabError::Io {
            action,
            path,
            source,
        }
    }
}

/// A `--shard` that is not `I/N` with 0 <= I < N.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error(
        "\"{text}\" is not a shard; write I/N with 0 <= I < N, for example 0/4 (the first of four)"
    )]
    Malformed { text: String },
    #[error("\"{text}\": the number of shards must be at least 1")]
    NoShards { text: String },
    #[error("\"{text}\": shard index {index} is out of range; shards of {count} are numbered 0 to {}", count - 1)]
    OutOfRange {
        text: String,
        index: u64,
        count: u64,
    },
}

/// A `--set PATH=VALUE` path that does not lead to a setting of the scenario.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AssignError {
    #[error("`{path}`: `{key}` is a list; name an element")]
    ListNeedsElement { path: String, key: String },
    #[error("`{path}`: no `{key}` is named \"{name}\"")]
    NoSuchElement {
        path: String,
        key: String,
        name: String,
    },
    #[error("`{path}`: `{key}[{index}]` is not a table")]
    ElementNotTable {
        path: String,
        key: String,
        index: usize,
    },
    #[error("`{path}`: `{key}` has {len} elements, no index {index}")]
    IndexOutOfRange {
        path: String,
        key: String,
        len: usize,
        index: usize,
    },
    #[error("`{path}`: `{key}` is not a table")]
    NotTable { path: String, key: String },
    #[error("`{path}` does not name a setting")]
    NoSetting { path: String },
}

/// The CLI still carries some errors as text; it takes these with `?`.
impl From<LabError> for String {
    fn from(e: LabError) -> String {
        e.to_string()
    }
}
