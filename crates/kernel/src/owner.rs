//! Who owns a registration (issue 23 item 9). BPF registrations and their pins are global
//! to the machine, so each one records the process that made it: its pid and its start
//! time (field 22 of /proc/PID/stat, clock ticks since boot), which together name one
//! process even after the pid is reused. A registration is *held* while a process keeps
//! it (a `LoadGuard`: a test, a testbed run, an embedding program) and *persistent* when
//! `scavenger kernel load` made it to outlive the command.
//!
//! bpffs holds only BPF objects, so the record is a one-element array map pinned as
//! `owner` next to the registration's other pins.

use crate::sys;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Map name of the record (what `bpftool map` shows).
const MAP_NAME: &str = "scv_owner";
/// pid u64, start time u64, held u64 (1 = held by that process, 0 = persistent).
const VALUE_SIZE: u32 = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    pub pid: u32,
    /// Start time of `pid` in clock ticks after boot (/proc/PID/stat field 22).
    pub start: u64,
    /// Held by that process (it unregisters when done); `false`: made to persist.
    pub held: bool,
}

/// The start time of process `pid`, or `None` if there is no such process.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces and ')': the
    // fields after the last ')' start with field 3 (state), so field 22 is the 20th.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

impl Owner {
    /// The calling process.
    pub fn this_process(held: bool) -> Owner {
        let pid = std::process::id();
        Owner {
            pid,
            start: start_time(pid).unwrap_or(0),
            held,
        }
    }

    /// Process `pid` as it runs now, if it exists.
    pub fn of(pid: u32, held: bool) -> Option<Owner> {
        start_time(pid).map(|start| Owner { pid, start, held })
    }

    /// The owner process still runs (same pid and same start time).
    pub fn is_alive(&self) -> bool {
        start_time(self.pid) == Some(self.start)
    }

    /// This process is the owner.
    pub fn is_this_process(&self) -> bool {
        self.pid == std::process::id() && self.is_alive()
    }

    /// A live process other than this one holds the registration: only `--force`
    /// removes it.
    pub fn protects(&self) -> bool {
        self.held && self.is_alive() && !self.is_this_process()
    }

    pub fn describe(&self) -> String {
        let state = if self.is_alive() { "running" } else { "gone" };
        if self.held {
            format!("held by pid {} ({state})", self.pid)
        } else {
            format!("persistent, loaded by pid {} ({state})", self.pid)
        }
    }

    fn to_bytes(self) -> [u8; VALUE_SIZE as usize] {
        let mut v = [0u8; VALUE_SIZE as usize];
        v[..8].copy_from_slice(&(self.pid as u64).to_ne_bytes());
        v[8..16].copy_from_slice(&self.start.to_ne_bytes());
        v[16..].copy_from_slice(&(self.held as u64).to_ne_bytes());
        v
    }

    fn from_bytes(v: &[u8; VALUE_SIZE as usize]) -> Owner {
        let u = |o: usize| u64::from_ne_bytes(v[o..o + 8].try_into().unwrap());
        Owner {
            pid: u(0) as u32,
            start: u(8),
            held: u(16) != 0,
        }
    }

    /// Creates the record and pins it at `path`.
    pub fn pin(&self, path: &Path) -> Result<(), OwnerError> {
        let fd = sys::array_map_create(MAP_NAME, VALUE_SIZE).map_err(OwnerError::Create)?;
        sys::map_update(&fd, &0u32.to_ne_bytes(), &self.to_bytes()).map_err(OwnerError::Write)?;
        sys::obj_pin(fd.as_raw_fd(), path).map_err(|source| OwnerError::Pin {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads the record pinned at `path` (`None`: no record, e.g. an older build's pins).
    pub fn read(path: &Path) -> Option<Owner> {
        let fd = sys::obj_get(path).ok()?;
        let mut v = [0u8; VALUE_SIZE as usize];
        sys::map_lookup(&fd, &0u32.to_ne_bytes(), &mut v).ok()?;
        Some(Owner::from_bytes(&v))
    }
}

/// A step of recording the owner of a registration that failed.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error("creating the owner record: {0}")]
    Create(#[source] std::io::Error),
    #[error("writing the owner record: {0}")]
    Write(#[source] std::io::Error),
    #[error("pinning the owner record at {}: {source}", path.display())]
    Pin {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_named_by_pid_and_start_time() {
        let me = Owner::this_process(true);
        assert!(me.start > 0 && me.is_alive() && me.is_this_process());
        assert!(
            !me.protects(),
            "a process never protects a registration from itself"
        );
        // Same pid, another start time: a reused pid, not the owner.
        let reused = Owner {
            start: me.start + 1,
            ..me
        };
        assert!(!reused.is_alive() && !reused.protects());
        // A running child holds; once reaped it is gone.
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let o = Owner::of(child.id(), true).unwrap();
        assert!(o.is_alive() && o.protects());
        assert!(
            !Owner { held: false, ..o }.protects(),
            "persistent: no protection"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!o.is_alive() && !o.protects());
        assert_eq!(Owner::from_bytes(&o.to_bytes()), o);
    }

    #[test]
    fn start_time_survives_parentheses_in_the_command_name() {
        // Field 22 counted after the last ')': a name such as "a) b" must not shift it.
        let pid = std::process::id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let rest = &stat[stat.rfind(')').unwrap() + 1..];
        let want: u64 = rest.split_whitespace().nth(19).unwrap().parse().unwrap();
        assert_eq!(start_time(pid), Some(want));
        assert_eq!(start_time(u32::MAX), None);
    }
}
