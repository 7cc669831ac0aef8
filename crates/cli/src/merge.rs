//! `scavenger merge OUT STORE...`: the union of result stores by key (shards of a study
//! run on several machines). The checks live in scavenger_lab::merge.

use std::path::{Path, PathBuf};

pub fn run(out: &Path, inputs: &[PathBuf], force: bool) -> Result<(), crate::error::CliError> {
    let mut store = crate::open_store(out)?;
    let s = scavenger_lab::merge::merge_into(&mut store, inputs, force)?;
    for t in &s.torn {
        eprintln!("warning: {t}");
    }
    if s.conflicts > 0 {
        eprintln!(
            "warning: --force: {} keys had two different records; the first was kept",
            s.conflicts
        );
    }
    if s.foreign > 0 {
        eprintln!(
            "warning: --force: {} records of another version or commit were merged",
            s.foreign
        );
    }
    eprintln!(
        "merged {} stores into {}: {} records added, {} already there; {} records in all",
        inputs.len(),
        out.display(),
        s.added,
        s.duplicates,
        store.len()
    );
    Ok(())
}
