//! The result store: a directory with one JSON line per finished work item in
//! `results.jsonl`. Lines are appended whole and synced. Opening the store checks every
//! line: one that is not a result record (a torn last line after a crash, a hand edit, NUL
//! bytes after a full disk) is moved aside into `results.jsonl.damaged`, reported, and the
//! store is rewritten without it (temp file + rename), so its run is simply done again.
//! One process at a time writes a store: `open` takes an exclusive lock (`store.lock`).

use crate::error::LabError;
use crate::record::RunRecord;
use nix::fcntl::{Flock, FlockArg};
use scavenger_sim::SimResult;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

pub const RESULTS_FILE: &str = "results.jsonl";
/// Where `open` moves lines that are not result records (appended, never overwritten).
pub const DAMAGED_FILE: &str = "results.jsonl.damaged";
/// The lock file: held (flock) by the one process writing the store; holds its pid.
pub const LOCK_FILE: &str = "store.lock";

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

impl Stored {
    pub fn metrics(&self) -> SimResult {
        self.record.metrics.clone()
    }
    pub fn metrics_ref(&self) -> &SimResult {
        &self.record.metrics
    }
}

/// The line `append` writes for a result (without its newline): what a worker of a
/// distributed executor returns, so the driver's store is byte for byte the local one.
pub fn store_line(key: &str, label: &str, seed: u64, record: &RunRecord) -> String {
    serde_json::to_string(&LineOut {
        key,
        label,
        seed,
        record,
    })
    .expect("records serialise")
}

pub struct Store {
    dir: PathBuf,
    file: File,
    done: HashSet<String>,
    repairs: Vec<String>,
    /// Held for the life of the store; dropping it releases the lock.
    _lock: Flock<File>,
}

/// One raw line of the results file: its 1-based number, its bytes without the newline,
/// and whether it ended in a newline (only the last line of a file can lack one).
pub(crate) struct RawLine {
    pub(crate) number: usize,
    pub(crate) bytes: Vec<u8>,
    pub(crate) complete: bool,
}

/// Calls `f` on each line of `path` (none if the file does not exist), one at a time, so
/// the whole file is never in memory. Bytes, not text: a line of invalid UTF-8 is a
/// damaged line like any other, not an I/O error.
pub(crate) fn for_each_raw_line(
    path: &Path,
    mut f: impl FnMut(RawLine) -> Result<(), LabError>,
) -> Result<(), LabError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(LabError::io("read", path)(e)),
    };
    let mut r = BufReader::new(file);
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        let n = r
            .read_until(b'\n', &mut buf)
            .map_err(LabError::io("read", path))?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        let complete = buf.last() == Some(&b'\n');
        if complete {
            buf.pop();
        }
        f(RawLine {
            number,
            bytes: std::mem::take(&mut buf),
            complete,
        })?;
    }
}

pub(crate) fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

/// Takes the store's lock without waiting; a second writer gets a message naming the
/// store and, when the lock file says, the holder's pid.
fn lock(dir: &Path) -> Result<Flock<File>, LabError> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(LabError::io("open", &path))?;
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(mut held) => {
            // Record our pid for the message a second writer gets; best effort.
            let _ = held
                .set_len(0)
                .and_then(|_| held.rewind())
                .and_then(|_| writeln!(held, "{}", std::process::id()));
            Ok(held)
        }
        Err((mut file, nix::errno::Errno::EWOULDBLOCK)) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            Err(LabError::StoreInUse {
                dir: dir.to_path_buf(),
                holder: Some(pid.trim().to_string()).filter(|p| !p.is_empty()),
            })
        }
        Err((_, e)) => Err(LabError::io("lock", &path)(e.into())),
    }
}

impl Store {
    /// Opens (creating if needed) the store in `dir`, locked for this process, with any
    /// damaged lines moved aside (see `repairs`).
    pub fn open(dir: &Path) -> Result<Store, LabError> {
        std::fs::create_dir_all(dir).map_err(LabError::io("create result store", dir))?;
        let lock = lock(dir)?;
        let path = dir.join(RESULTS_FILE);
        let mut done = HashSet::new();
        let mut damaged: Vec<RawLine> = Vec::new();
        let mut needs_newline = false;
        for_each_raw_line(&path, |line| {
            if line.complete && is_blank(&line.bytes) {
                return Ok(());
            }
            // Checked as `read` will parse it, so that a store `open` accepts is one
            // `read` can read.
            match serde_json::from_slice::<Stored>(&line.bytes) {
                Ok(s) => {
                    done.insert(s.key);
                    needs_newline = !line.complete;
                }
                Err(_) => damaged.push(line),
            }
            Ok(())
        })?;
        let mut repairs = Vec::new();
        if !damaged.is_empty() {
            repairs = Self::move_aside(dir, &damaged)?;
        } else if needs_newline {
            // A whole record whose newline never reached the disk: keep it, end it.
            let mut f = OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(LabError::io("open", &path))?;
            f.write_all(b"\n")
                .and_then(|_| f.sync_data())
                .map_err(LabError::io("repair", &path))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(LabError::io("open", &path))?;
        Ok(Store {
            dir: dir.to_path_buf(),
            file,
            done,
            repairs,
            _lock: lock,
        })
    }

    /// Appends the damaged lines to `results.jsonl.damaged`, then rewrites the results
    /// file without them (a temp file renamed over it, so a crash leaves one or the other).
    /// Returns one message per damaged line.
    fn move_aside(dir: &Path, damaged: &[RawLine]) -> Result<Vec<String>, LabError> {
        let path = dir.join(RESULTS_FILE);
        let aside = dir.join(DAMAGED_FILE);
        let mut out = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&aside)
            .map_err(LabError::io("open", &aside))?;
        for d in damaged {
            out.write_all(&d.bytes)
                .and_then(|_| out.write_all(b"\n"))
                .map_err(LabError::io("write", &aside))?;
        }
        out.sync_data().map_err(LabError::io("write", &aside))?;

        let bad: BTreeSet<usize> = damaged.iter().map(|d| d.number).collect();
        let tmp = dir.join(format!("{RESULTS_FILE}.tmp"));
        let mut w = BufWriter::new(File::create(&tmp).map_err(LabError::io("create", &tmp))?);
        let werr = |e: std::io::Error| LabError::io("write", &tmp)(e);
        for_each_raw_line(&path, |line| {
            if bad.contains(&line.number) || is_blank(&line.bytes) {
                return Ok(());
            }
            w.write_all(&line.bytes)
                .and_then(|_| w.write_all(b"\n"))
                .map_err(werr)
        })?;
        w.into_inner()
            .map_err(|e| werr(e.into_error()))?
            .sync_all()
            .map_err(werr)?;
        std::fs::rename(&tmp, &path).map_err(LabError::io("replace", &path))?;
        sync_dir(dir);

        Ok(damaged
            .iter()
            .map(|d| {
                let what = if !d.complete {
                    format!(
                        "incomplete last line ({} bytes, no newline: a write cut short by a crash or a full disk)",
                        d.bytes.len()
                    )
                } else {
                    let why = serde_json::from_slice::<Stored>(&d.bytes)
                        .err()
                        .map_or(String::new(), |e| e.to_string());
                    format!("not a result record ({why})")
                };
                format!(
                    "{} line {}: {what}; moved to {}, its run will be done again",
                    path.display(),
                    d.number,
                    aside.display()
                )
            })
            .collect())
    }

    /// What `open` repaired, one message per damaged line moved aside (empty if none).
    pub fn repairs(&self) -> &[String] {
        &self.repairs
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
    ) -> Result<(), LabError> {
        let mut line = store_line(key, label, seed, record);
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(LabError::io("write to", &self.dir.join(RESULTS_FILE)))?;
        self.done.insert(key.to_string());
        Ok(())
    }

    /// Appends result lines already serialised (by another store: `merge`), each checked
    /// to be a result record of its key, then syncs once. A crash part-way leaves whole
    /// lines and at most one torn last line, which `open` moves aside.
    pub fn append_lines(&mut self, lines: &[(String, Vec<u8>)]) -> Result<(), LabError> {
        let path = self.dir.join(RESULTS_FILE);
        let werr = |e: std::io::Error| LabError::io("write to", &path)(e);
        let mut w = BufWriter::new(&self.file);
        for (key, bytes) in lines {
            match serde_json::from_slice::<Stored>(bytes) {
                Ok(s) if &s.key == key => {}
                _ => return Err(LabError::NotItsRecord { key: key.clone() }),
            }
            w.write_all(bytes)
                .and_then(|_| w.write_all(b"\n"))
                .map_err(werr)?;
        }
        w.flush().map_err(werr)?;
        drop(w);
        self.file.sync_data().map_err(werr)?;
        for (key, _) in lines {
            self.done.insert(key.clone());
        }
        Ok(())
    }

    /// Every complete result in the store in `dir`. When a key appears more than once
    /// (a `--force` re-run), the last one wins. Reading takes no lock: a last line being
    /// written (no newline yet) is skipped; any other damaged line is an error, which
    /// opening the store (`reproduce`, `sweep`, `report`) repairs.
    pub fn read(dir: &Path) -> Result<Vec<Stored>, LabError> {
        let path = dir.join(RESULTS_FILE);
        let mut out: Vec<Stored> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for_each_raw_line(&path, |line| {
            if is_blank(&line.bytes) {
                return Ok(());
            }
            let s = match serde_json::from_slice::<Stored>(&line.bytes) {
                Ok(s) => s,
                Err(_) if !line.complete => return Ok(()),
                Err(e) => {
                    return Err(LabError::DamagedLine {
                        path: path.clone(),
                        line: line.number,
                        reason: e.to_string(),
                        dir: dir.to_path_buf(),
                    })
                }
            };
            match index.get(&s.key) {
                Some(&i) => out[i] = s,
                None => {
                    index.insert(s.key.clone(), out.len());
                    out.push(s);
                }
            }
            Ok(())
        })?;
        Ok(out)
    }
}

/// Makes a rename in `dir` durable (best effort: not every file system syncs directories).
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Writes `content` to `path` atomically: a temp file in the same directory, synced, then
/// renamed over `path`, so a reader or a crash sees the old file or the new one, never half.
pub fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy());
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let r = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(content)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    } else {
        sync_dir(dir);
    }
    r
}
