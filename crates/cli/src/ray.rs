//! `--executor ray`: `reproduce` and `sweep` hand the whole command to the Python
//! driver (`python -m scavenger`, the package in python/), which runs batches of work
//! items on Ray workers through the same Rust core and appends the records to the store
//! on this machine. The interpreter is `$SCAVENGER_PYTHON`, else `python3`; it must have
//! the `scavenger` package and `ray` installed (docs/distributed.md).

use std::ffi::OsString;
use std::process::ExitCode;

pub fn delegate(args: Vec<OsString>) -> ExitCode {
    let python = std::env::var_os("SCAVENGER_PYTHON").unwrap_or_else(|| "python3".into());
    let mut cmd = std::process::Command::new(&python);
    cmd.args(["-m", "scavenger"]).args(&args);
    match cmd.status() {
        Ok(s) => match s.code() {
            Some(c) => ExitCode::from(c.clamp(0, 255) as u8),
            None => ExitCode::from(130),
        },
        Err(e) => {
            eprintln!(
                "error: --executor ray runs the Python driver, but {} could not be started: {e}; install the package (pip install ./python) and ray, or set SCAVENGER_PYTHON to an interpreter that has them (docs/distributed.md)",
                python.to_string_lossy()
            );
            ExitCode::from(2)
        }
    }
}
