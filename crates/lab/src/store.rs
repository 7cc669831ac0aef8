//! The result store: a directory with one JSON line per finished work item in
//! `results.jsonl`. Lines are appended whole and synced, so a crash can at worst leave a
//! truncated last line, which is ignored on reopening (that item simply runs again).

use crate::record::RunRecord;
use scavenger_sim::SimResult;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

pub const RESULTS_FILE: &str = "results.jsonl";

/// What a store line holds; `record` is the full run record.
#[derive(Serialize)]
struct LineOut<'a> {
    key: &'a str,
    label: &'a str,
    seed: u64,
    record: &'a RunRecord,
}

/// A stored result as read back: only the metrics of the record are parsed and kept
/// (the scenario and tool information are skipped), so a store of tens of thousands of
/// runs fits in memory.
#[derive(Clone, Debug, Deserialize)]
pub struct Stored {
    pub key: String,
    pub label: String,
    pub seed: u64,
    record: StoredRecord,
}

#[derive(Clone, Debug, Deserialize)]
struct StoredRecord {
    metrics: SimResult,
}

/// The part of a line `Store::open` needs.
#[derive(Deserialize)]
struct KeyOnly {
    key: String,
}

impl Stored {
    pub fn metrics(&self) -> Result<SimResult, String> {
        Ok(self.record.metrics.clone())
    }
    pub fn metrics_ref(&self) -> &SimResult {
        &self.record.metrics
    }
}

pub struct Store {
    dir: PathBuf,
    file: File,
    done: HashSet<String>,
}

impl Store {
    /// Opens (creating if needed) the store in `dir`.
    pub fn open(dir: &Path) -> Result<Store, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create result store {}: {e}", dir.display()))?;
        let path = dir.join(RESULTS_FILE);
        Self::drop_torn_tail(&path)?;
        let mut done = HashSet::new();
        Self::for_each_line::<KeyOnly>(&path, |k| {
            done.insert(k.key);
        })?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Ok(Store {
            dir: dir.to_path_buf(),
            file,
            done,
        })
    }

    /// A crash mid-append can leave a last line without its newline; cut it off so the
    /// next append starts on a fresh line (that item simply runs again).
    fn drop_torn_tail(path: &Path) -> Result<(), String> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        if bytes.last().is_none_or(|&b| b == b'\n') {
            return Ok(());
        }
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        f.set_len(keep as u64)
            .and_then(|_| f.sync_data())
            .map_err(|e| format!("cannot repair {}: {e}", path.display()))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn contains(&self, key: &str) -> bool {
        self.done.contains(key)
    }

    pub fn len(&self) -> usize {
        self.done.len()
    }
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// Appends one result and syncs it to disk before returning.
    pub fn append(
        &mut self,
        key: &str,
        label: &str,
        seed: u64,
        record: &RunRecord,
    ) -> Result<(), String> {
        let mut line = serde_json::to_string(&LineOut {
            key,
            label,
            seed,
            record,
        })
        .expect("records serialise");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| {
                format!(
                    "cannot write to {}: {e}",
                    self.dir.join(RESULTS_FILE).display()
                )
            })?;
        self.done.insert(key.to_string());
        Ok(())
    }

    /// Every complete result in the store in `dir`. When a key appears more than once
    /// (a `--force` re-run), the last one wins.
    pub fn read(dir: &Path) -> Result<Vec<Stored>, String> {
        let mut out: Vec<Stored> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        Self::for_each_line::<Stored>(&dir.join(RESULTS_FILE), |s| match index.get(&s.key) {
            Some(&i) => out[i] = s,
            None => {
                index.insert(s.key.clone(), out.len());
                out.push(s);
            }
        })?;
        Ok(out)
    }

    /// Parses the store's lines one at a time (never the whole file in memory). A line
    /// that does not parse is an error unless it is the last one: a torn last line from a
    /// crash, whose item simply runs again.
    fn for_each_line<T: serde::de::DeserializeOwned>(
        path: &Path,
        mut f: impl FnMut(T),
    ) -> Result<(), String> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut pending: Option<String> = None;
        for (i, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if let Some(e) = pending.take() {
                return Err(e);
            }
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<T>(&line) {
                Ok(v) => f(v),
                Err(e) => {
                    pending = Some(format!(
                        "{} line {}: not a result record: {e}",
                        path.display(),
                        i + 1
                    ))
                }
            }
        }
        Ok(())
    }
}
