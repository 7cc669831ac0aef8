//! `scavenger run --pcap DIR`: two pcap files per flow, the capture at the sender's
//! interface and at the receiver's (crates/sim/src/pcap.rs says how packets are encoded).
//! Each file is written under a temporary name and renamed when the run ends, so a file
//! with the final name is complete.

use scavenger_sim::pcap::PcapTap;
use scavenger_sim::tap::Tap;
use scavenger_sim::SimConfig;
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

type FileTap = PcapTap<BufWriter<File>>;

/// A capture that could not be made: each names the directory or file and what the
/// system said. All are run failures (exit 1): the flag was fine, the disk was not.
#[derive(Debug, thiserror::Error)]
pub enum PcapError {
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create a capture in {}: {source}", dir.display())]
    Open {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The run still holds its handle on the tap (a bug: the run drops it when it ends).
    #[error("the capture is still in use")]
    InUse,
    #[error("cannot write a capture: {0}")]
    Write(#[source] std::io::Error),
    #[error("cannot rename {}: {source}", from.display())]
    Rename {
        from: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The captures of one run, open.
pub struct Capture {
    tap: Rc<RefCell<FileTap>>,
    /// (temporary, final) path of each file, in the order the tap opened them.
    paths: Vec<(PathBuf, PathBuf)>,
}

/// "03-lbe.1.sender.pcap": flow index, the flow's name with characters a file name may
/// not hold replaced by '_', the host.
pub fn file_name(index: usize, flow: &str, at_sender: bool) -> String {
    let name: String = flow
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let host = if at_sender { "sender" } else { "receiver" };
    format!("{index:02}-{name}.{host}.pcap")
}

/// Opens the files in `dir` (created if missing) and returns the tap to give the run.
pub fn start(dir: &Path, cfg: &SimConfig) -> Result<(Capture, Box<dyn Tap>), PcapError> {
    std::fs::create_dir_all(dir).map_err(|source| PcapError::CreateDir {
        dir: dir.to_path_buf(),
        source,
    })?;
    let mut paths = Vec::new();
    let tap = PcapTap::new(cfg, |i, at_sender| {
        let name = file_name(i, &cfg.flows[i].name, at_sender);
        let tmp = dir.join(format!(".{name}.tmp"));
        let f = File::create(&tmp)?;
        paths.push((tmp, dir.join(name)));
        Ok(BufWriter::with_capacity(1 << 16, f))
    })
    .map_err(|source| PcapError::Open {
        dir: dir.to_path_buf(),
        source,
    })?;
    let tap = Rc::new(RefCell::new(tap));
    Ok((
        Capture {
            tap: tap.clone(),
            paths,
        },
        Box::new(tap),
    ))
}

impl Capture {
    /// Flushes and renames the files (after the run, which drops its handle on the tap).
    pub fn finish(self) -> Result<Vec<PathBuf>, PcapError> {
        let tap = Rc::try_unwrap(self.tap)
            .map_err(|_| PcapError::InUse)?
            .into_inner();
        let fail = PcapError::Write;
        let sinks = tap.finish().map_err(fail)?;
        for mut w in sinks.into_iter().flatten() {
            w.flush().map_err(fail)?;
            w.into_inner()
                .map_err(|e| fail(e.into_error()))?
                .sync_all()
                .map_err(fail)?;
        }
        let mut done = Vec::new();
        for (tmp, path) in self.paths {
            std::fs::rename(&tmp, &path).map_err(|source| PcapError::Rename {
                from: tmp.clone(),
                source,
            })?;
            done.push(path);
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::CliError;

    #[test]
    fn a_capture_directory_that_cannot_be_made_is_a_run_failure_naming_it() {
        let file = std::env::temp_dir().join(format!("scavenger-pcap-file-{}", std::process::id()));
        std::fs::write(&file, b"not a directory").unwrap();
        let dir = file.join("captures");
        use scavenger_lab::score::{grid, Subject};
        let reno = Subject::parse("newreno", &[]).unwrap();
        let cfg = grid::alone(&grid::BASE, &reno).unwrap().to_sim(1);
        let e = start(&dir, &cfg).err().expect("a file is in the way");
        assert!(matches!(e, PcapError::CreateDir { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("cannot create {}", dir.display())),
            "{e}"
        );
        assert!(!CliError::from(e).is_usage());
        let _ = std::fs::remove_file(&file);
    }
}
