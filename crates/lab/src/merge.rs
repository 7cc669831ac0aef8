//! `scavenger merge OUT STORE...`: the union of result stores by key, for the shards of a
//! study (`--shard I/N`) run on several machines, or stores written by several drivers.
//!
//! A key names (scenario, seed, code version), and a run on the simulator is
//! deterministic, so two stores that hold one key must hold the same record (the wall
//! time aside). Two different records for one key mean different code or a datapath that
//! is not deterministic; records of another version or commit than this build are keys
//! this build never asks for. Both are refused unless forced. New lines are appended in
//! key order, so a merge of fresh shards is a store sorted by key.

use crate::error::LabError;
use crate::record::tool_info;
use crate::store::{for_each_raw_line, is_blank, Store, RESULTS_FILE};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const META_FILE: &str = "store.json";

#[derive(Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Records appended to the output store.
    pub added: usize,
    /// Records the output (or an earlier input) already held, identical.
    pub duplicates: usize,
    /// Records of another version or commit taken because of `force`.
    pub foreign: usize,
    /// Keys with two different records, the first kept because of `force`.
    pub conflicts: usize,
    /// Torn last lines of inputs that were skipped (their runs are simply missing).
    pub torn: Vec<String>,
}

/// Where a record came from, for messages.
fn origin(path: &Path, line: usize) -> String {
    format!("{} line {line}", path.display())
}

/// The digest of a record line without its wall time: equal digests, equal results.
fn digest(v: &mut Value) -> [u8; 32] {
    if let Some(rec) = v.get_mut("record").and_then(Value::as_object_mut) {
        rec.remove("wall_time_s");
    }
    // serde_json's map is ordered by key, so this form is canonical.
    Sha256::digest(v.to_string().as_bytes()).into()
}

struct Entry {
    digest: [u8; 32],
    origin: String,
    /// The raw line, for records not yet in the output.
    bytes: Option<Vec<u8>>,
}

/// Reads one store's lines into `key -> entry` (within a store the last line of a key
/// wins, as `Store::read` has it).
fn read_lines(
    dir: &Path,
    keep_bytes: bool,
    force: bool,
    summary: &mut MergeSummary,
) -> Result<HashMap<String, Entry>, LabError> {
    let path = dir.join(RESULTS_FILE);
    let tool = tool_info();
    let mut out = HashMap::new();
    for_each_raw_line(&path, |line| {
        if is_blank(&line.bytes) {
            return Ok(());
        }
        let mut v: Value = match serde_json::from_slice(&line.bytes) {
            Ok(v) => v,
            Err(_) if !line.complete => {
                summary.torn.push(format!(
                    "{}: incomplete last line skipped (a write cut short); its run is not merged",
                    origin(&path, line.number)
                ));
                return Ok(());
            }
            Err(e) => {
                return Err(LabError::DamagedLine {
                    path: path.clone(),
                    line: line.number,
                    reason: e.to_string(),
                    dir: dir.to_path_buf(),
                })
            }
        };
        let Some(key) = v.get("key").and_then(Value::as_str).map(str::to_string) else {
            return Err(LabError::NoKey {
                origin: origin(&path, line.number),
            });
        };
        let field = |name: &str| {
            v.pointer(&format!("/record/tool/{name}"))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string()
        };
        let (version, commit) = (field("version"), field("git_commit"));
        if (version.as_str(), commit.as_str()) != (tool.version, tool.git_commit) {
            if !force {
                return Err(LabError::OtherBuild {
                    origin: origin(&path, line.number),
                    version,
                    commit,
                    our_version: tool.version.to_string(),
                    our_commit: tool.git_commit.to_string(),
                });
            }
            summary.foreign += 1;
        }
        let bytes = keep_bytes.then(|| line.bytes.clone());
        out.insert(
            key,
            Entry {
                digest: digest(&mut v),
                origin: origin(&path, line.number),
                bytes,
            },
        );
        Ok(())
    })?;
    Ok(out)
}

/// The store description (`store.json`: kind, name, quick) that a merged store must share.
fn meta_identity(dir: &Path) -> Result<Option<(Value, Vec<u8>)>, LabError> {
    let path = dir.join(META_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(LabError::io("read", &path)(e)),
    };
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| LabError::NotAStoreDescription {
        path: path.clone(),
        reason: e.to_string(),
        replaceable: false,
    })?;
    let id = serde_json::json!([v.get("kind"), v.get("name"), v.get("quick")]);
    Ok(Some((id, bytes)))
}

/// Merges the stores in `inputs` into `out` (already open, so locked). Nothing is written
/// when a check fails.
pub fn merge_into(
    out: &mut Store,
    inputs: &[PathBuf],
    force: bool,
) -> Result<MergeSummary, LabError> {
    if inputs.is_empty() {
        return Err(LabError::NothingToMerge);
    }
    let mut summary = MergeSummary::default();
    // The description: the output's, else the first input's; every store must agree.
    let mut meta = meta_identity(out.dir())?.map(|m| (m, out.dir().to_path_buf()));
    let out_had_meta = meta.is_some();
    for dir in inputs {
        if !dir.join(RESULTS_FILE).is_file() {
            return Err(LabError::NotAStore { dir: dir.clone() });
        }
        if std::fs::canonicalize(dir).ok() == std::fs::canonicalize(out.dir()).ok() {
            return Err(LabError::InputIsOutput { dir: dir.clone() });
        }
        match (meta_identity(dir)?, &meta) {
            (Some(m), None) => meta = Some((m, dir.clone())),
            (Some((id, _)), Some(((first, _), from))) if &id != first && !force => {
                return Err(LabError::MixedStores {
                    dir: dir.clone(),
                    id: id.to_string(),
                    first_dir: from.clone(),
                    first: first.to_string(),
                })
            }
            _ => {}
        }
    }
    let mut all = read_lines(out.dir(), false, force, &mut summary)?;
    for dir in inputs {
        for (key, e) in read_lines(dir, true, force, &mut summary)? {
            match all.get(&key) {
                None => {
                    all.insert(key, e);
                }
                Some(have) if have.digest == e.digest => summary.duplicates += 1,
                Some(have) => {
                    if !force {
                        return Err(LabError::Conflict {
                            key,
                            a: have.origin.clone(),
                            b: e.origin,
                        });
                    }
                    summary.conflicts += 1;
                }
            }
        }
    }
    let mut new: Vec<(String, Vec<u8>)> = all
        .into_iter()
        .filter_map(|(k, e)| e.bytes.map(|b| (k, b)))
        .collect();
    new.sort_by(|a, b| a.0.cmp(&b.0));
    summary.added = new.len();
    out.append_lines(&new)?;
    if let (false, Some(((_, bytes), _))) = (out_had_meta, meta) {
        let path = out.dir().join(META_FILE);
        crate::store::write_atomic(&path, &bytes).map_err(LabError::io("write", &path))?;
    }
    Ok(summary)
}
