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
pub fn start(dir: &Path, cfg: &SimConfig) -> Result<(Capture, Box<dyn Tap>), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut paths = Vec::new();
    let tap = PcapTap::new(cfg, |i, at_sender| {
        let name = file_name(i, &cfg.flows[i].name, at_sender);
        let tmp = dir.join(format!(".{name}.tmp"));
        let f = File::create(&tmp)?;
        paths.push((tmp, dir.join(name)));
        Ok(BufWriter::with_capacity(1 << 16, f))
    })
    .map_err(|e| format!("cannot create a capture in {}: {e}", dir.display()))?;
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
    pub fn finish(self) -> Result<Vec<PathBuf>, String> {
        let tap = Rc::try_unwrap(self.tap)
            .map_err(|_| "the capture is still in use".to_string())?
            .into_inner();
        let fail = |e: std::io::Error| format!("cannot write a capture: {e}");
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
            std::fs::rename(&tmp, &path)
                .map_err(|e| format!("cannot rename {}: {e}", tmp.display()))?;
            done.push(path);
        }
        Ok(done)
    }
}
