//! What the CLI's integration tests share: running the built `scavenger` binary and a
//! fresh scratch directory per test process.
#![allow(dead_code)] // each test target uses its own subset

use std::path::PathBuf;
use std::process::Command;

/// Runs `scavenger ARGS` and returns (exit code, stdout, stderr).
pub fn scavenger(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scavenger"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An empty directory `scavenger-PREFIX-TAG-PID` under the system's temporary directory.
pub fn tmpdir(prefix: &str, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("scavenger-{prefix}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
