//! Registering, unregistering and inspecting the native congestion controls.
//!
//! Lifetime model (docs/kernel.md "Loading"): with the system libbpf 1.1 a struct_ops
//! registration is a map element, not a bpf_link, so it outlives the loading process.
//! `load` therefore registers, pins the algorithm's maps under
//! /sys/fs/bpf/scavenger/<name>/ (mounting bpffs there if needed) and exits; `unload`
//! deletes the registration through the pinned struct_ops map and removes the pins;
//! `status` reads both. `LoadGuard` unloads on drop, for tests and embedding programs.

use crate::libbpf::Object;
use crate::objects;
use crate::params::{self, Layout, Values};
use crate::sys;
use std::fs;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

pub const BPFFS: &str = "/sys/fs/bpf";
pub const PIN_ROOT: &str = "/sys/fs/bpf/scavenger";
const AVAILABLE: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

/// A congestion control this crate can register.
pub struct NativeAlg {
    /// The name sockets select (setsockopt TCP_CONGESTION), also the struct_ops map name.
    pub name: &'static str,
    /// Prefix of the object's other maps: `<prefix>_par`, `_ovr`, `_sts`.
    pub map_prefix: &'static str,
    pub object: &'static str,
    /// Parameter layout; `None` for the shim (whose "parameters" are the agent's).
    pub layout: Option<&'static Layout>,
    pub summary: &'static str,
    /// Extra maps to pin (the shim's ring buffer and command maps).
    pub extra_maps: &'static [&'static str],
}

pub static ALGS: &[NativeAlg] = &[
    NativeAlg {
        name: "scv_ledbat",
        map_prefix: "scv_ledbat",
        object: "scv_ledbat",
        layout: Some(&params::LEDBAT),
        summary: "LEDBAT (RFC 6817, the Linux module of Ong 2020), native BPF; follows crates/cc `ledbat`",
        extra_maps: &[],
    },
    NativeAlg {
        name: "scv_yield",
        map_prefix: "scv_yield",
        object: "scv_yield",
        layout: Some(&params::YIELD),
        summary: "Yield TCP (Ong 2020 ch. 5, App. B), native BPF; follows crates/cc `yield`",
        extra_maps: &[],
    },
    NativeAlg {
        name: "scv_ledbatpp",
        map_prefix: "scv_lpp",
        object: "scv_ledbatpp",
        layout: Some(&params::LEDBATPP),
        summary: "LEDBAT++ (draft-irtf-iccrg-ledbat-plus-plus), native BPF; follows crates/cc `ledbat-plus-plus`",
        extra_maps: &[],
    },
    NativeAlg {
        name: "scv_shim",
        map_prefix: "scv_shim",
        object: "scv_shim",
        layout: None,
        summary: "Shim: streams per-ACK samples to `scavenger kernel agent`, applies the agent's cwnd/pacing; Reno when the agent is silent",
        extra_maps: &["scv_shim_ring", "scv_shim_cmd", "scv_shim_hb", "scv_shim_goal"],
    },
];

/// Finds an algorithm by kernel name ("scv_ledbat") or by the crates/cc name it follows
/// ("ledbat"), case-insensitively.
pub fn find(name: &str) -> Result<&'static NativeAlg, String> {
    let n = name.to_ascii_lowercase();
    ALGS.iter()
        .find(|a| {
            a.name == n
                || a.layout.is_some_and(|l| l.cc_name == n)
                || a.name.trim_start_matches("scv_") == n
        })
        .ok_or_else(|| {
            format!(
                "unknown kernel algorithm `{name}`; known: {}",
                ALGS.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
            )
        })
}

impl NativeAlg {
    pub fn pin_dir(&self) -> PathBuf {
        Path::new(PIN_ROOT).join(self.name)
    }
    fn map_name(&self, suffix: &str) -> String {
        format!("{}_{suffix}", self.map_prefix)
    }
    fn pinned_maps(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("ops".to_string(), self.name.to_string()),
            ("sts".to_string(), self.map_name("sts")),
        ];
        if self.layout.is_some() {
            v.push(("par".to_string(), self.map_name("par")));
            v.push(("ovr".to_string(), self.map_name("ovr")));
        }
        for m in self.extra_maps {
            v.push((
                m.trim_start_matches(self.map_prefix)
                    .trim_start_matches('_')
                    .to_string(),
                m.to_string(),
            ));
        }
        v
    }
    pub fn open_pinned(&self, what: &str) -> Result<OwnedFd, String> {
        let p = self.pin_dir().join(what);
        sys::obj_get(&p).map_err(|e| {
            format!(
                "{} is not loaded (cannot open {}: {e}); run `scavenger kernel load {}`",
                self.name,
                p.display(),
                self.name
            )
        })
    }
}

/// What of ours is still registered or pinned (empty after every `unload` and every
/// dropped `LoadGuard`): registered `scv_*` names and pin directories that exist.
pub fn leftovers() -> Vec<String> {
    let mut left: Vec<String> = available()
        .into_iter()
        .filter(|n| n.starts_with("scv_"))
        .map(|n| format!("registered: {n}"))
        .collect();
    left.extend(
        ALGS.iter()
            .filter(|a| a.pin_dir().exists())
            .map(|a| format!("pinned: {}", a.pin_dir().display())),
    );
    left
}

/// Names currently in tcp_available_congestion_control.
pub fn available() -> Vec<String> {
    fs::read_to_string(AVAILABLE)
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn is_registered(name: &str) -> bool {
    available().iter().any(|n| n == name)
}

fn preflight() -> Result<(), String> {
    objects::built()?;
    if !sys::is_root() {
        return Err("registering a BPF congestion control needs root (CAP_BPF + CAP_NET_ADMIN); run as root".into());
    }
    Ok(())
}

/// Registers `alg` with parameters `user` (NAME=VALUE pairs, validated against the
/// crates/cc table). Returns the pin directory.
pub fn load(alg: &NativeAlg, user: &[(String, String)]) -> Result<PathBuf, String> {
    let values = match alg.layout {
        Some(l) => Some(l.resolve(user)?),
        None if !user.is_empty() => {
            return Err(format!(
                "{} takes no parameters (the agent's algorithm does)",
                alg.name
            ))
        }
        None => None,
    };
    preflight()?;
    if is_registered(alg.name) {
        return Err(format!(
            "{} is already registered; `scavenger kernel unload {}` first",
            alg.name, alg.name
        ));
    }
    let elf = objects::object(alg.object)?;
    let obj = Object::load(elf)?;
    sys::ensure_bpffs(Path::new(BPFFS))
        .map_err(|e| format!("cannot mount bpffs at {BPFFS}: {e}"))?;
    let dir = alg.pin_dir();
    if dir.exists() {
        // Stale pins of an earlier load whose registration is gone: replace them.
        remove_pins(alg);
    }
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let result = (|| {
        if let (Some(v), Some(_)) = (values, alg.layout) {
            let fd = obj.map_fd(&alg.map_name("par"))?;
            let b = unsafe_borrow(fd);
            sys::map_update(&b, &0u32.to_ne_bytes(), &params::values_to_bytes(&v))
                .map_err(|e| format!("writing parameters: {e}"))?;
        }
        for (pin, map) in alg.pinned_maps() {
            let fd = obj.map_fd(&map)?;
            sys::obj_pin(fd, &dir.join(&pin))
                .map_err(|e| format!("pinning {map} at {}: {e}", dir.join(&pin).display()))?;
        }
        obj.register_struct_ops(alg.name)
    })();
    if let Err(e) = result {
        remove_pins(alg);
        return Err(e);
    }
    Ok(dir)
}

/// Borrows a descriptor owned by a libbpf object for the duration of a call.
fn unsafe_borrow(fd: i32) -> BorrowedFd<'static> {
    // SAFETY: callers only use the borrow while the owning `Object` is alive.
    unsafe { BorrowedFd::borrow_raw(fd) }
}

fn remove_pins(alg: &NativeAlg) {
    let dir = alg.pin_dir();
    if let Ok(rd) = fs::read_dir(&dir) {
        for e in rd.flatten() {
            let _ = fs::remove_file(e.path());
        }
    }
    let _ = fs::remove_dir(&dir);
    let _ = fs::remove_dir(PIN_ROOT); // only succeeds when empty
}

/// What `unload` did.
#[derive(Debug, Clone)]
pub struct Unloaded {
    pub was_registered: bool,
    pub via_pin: bool,
}

/// Unregisters `alg` (through its pin, or by finding its struct_ops map by name when the
/// pins are gone, e.g. after a crashed test) and removes its pins.
pub fn unload(alg: &NativeAlg) -> Result<Unloaded, String> {
    if !sys::is_root() {
        return Err("unregistering needs root".into());
    }
    let was = is_registered(alg.name);
    let mut via_pin = false;
    if let Ok(fd) = sys::obj_get(&alg.pin_dir().join("ops")) {
        via_pin = true;
        match sys::map_delete(&fd, &0u32.to_ne_bytes()) {
            Ok(()) => {}
            Err(e)
                if e.raw_os_error() == Some(libc::ENOENT)
                    || e.raw_os_error() == Some(libc::EINVAL) => {}
            Err(e) => return Err(format!("unregistering {}: {e}", alg.name)),
        }
    }
    if is_registered(alg.name) {
        // No (working) pin: find the registered struct_ops map by name.
        for (info, fd) in sys::all_maps().map_err(|e| format!("listing BPF maps: {e}"))? {
            if info.map_type == sys::MAP_TYPE_STRUCT_OPS && info.name == alg.name {
                let _ = sys::map_delete(&fd, &0u32.to_ne_bytes());
            }
        }
    }
    remove_pins(alg);
    if is_registered(alg.name) {
        return Err(format!(
            "{} is still listed in {AVAILABLE} after unregistering",
            alg.name
        ));
    }
    Ok(Unloaded {
        was_registered: was,
        via_pin,
    })
}

/// Current parameters of a loaded algorithm: the global set, or a socket's override.
pub fn read_params(alg: &NativeAlg, cookie: Option<u64>) -> Result<Values, String> {
    let Some(_) = alg.layout else {
        return Err(format!("{} has no parameters", alg.name));
    };
    let mut buf = vec![0u8; params::SLOTS * 8];
    match cookie {
        None => {
            let fd = alg.open_pinned("par")?;
            sys::map_lookup(&fd, &0u32.to_ne_bytes(), &mut buf)
                .map_err(|e| format!("reading parameters: {e}"))?;
        }
        Some(c) => {
            let fd = alg.open_pinned("ovr")?;
            if sys::map_lookup(&fd, &c.to_ne_bytes(), &mut buf).is_err() {
                return read_params(alg, None);
            }
        }
    }
    Ok(params::values_from_bytes(&buf))
}

/// `kernel set`: changes one parameter, globally (all sockets, from their next ACK) or
/// for the socket with cookie `cookie` only. Returns the new value set.
pub fn set_param(
    alg: &NativeAlg,
    name: &str,
    value: &str,
    cookie: Option<u64>,
) -> Result<Values, String> {
    let Some(layout) = alg.layout else {
        return Err(format!(
            "{} has no parameters; set them on the agent",
            alg.name
        ));
    };
    let cur = read_params(alg, cookie)?;
    let new = layout.apply(cur, name, value)?;
    let bytes = params::values_to_bytes(&new);
    match cookie {
        None => {
            let fd = alg.open_pinned("par")?;
            sys::map_update(&fd, &0u32.to_ne_bytes(), &bytes)
                .map_err(|e| format!("writing parameters: {e}"))?;
        }
        Some(c) => {
            let fd = alg.open_pinned("ovr")?;
            sys::map_update(&fd, &c.to_ne_bytes(), &bytes)
                .map_err(|e| format!("writing the override of socket {c}: {e}"))?;
        }
    }
    Ok(new)
}

/// Removes a socket's override (it then follows the global set again).
pub fn clear_override(alg: &NativeAlg, cookie: u64) -> Result<(), String> {
    let fd = alg.open_pinned("ovr")?;
    sys::map_delete(&fd, &cookie.to_ne_bytes())
        .map_err(|e| format!("socket {cookie} has no override: {e}"))
}

/// The BPF side's counters (`enum scv_stat` in bpf/scv_common.bpf.h).
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub sockets: u64,
    pub acks: u64,
    pub last_cwnd: u64,
    pub last_queuing_delay_ns: u64,
    pub override_acks: u64,
    pub ssthresh_calls: u64,
    pub owd_samples: u64,
    pub rtt_samples: u64,
    /// Shim only: ACKs where the agent's window was applied / Reno fallback ran.
    pub agent_applied: u64,
    pub fallback_acks: u64,
    pub ring_drops: u64,
}

pub fn stats(alg: &NativeAlg) -> Result<Stats, String> {
    let fd = alg.open_pinned("sts")?;
    let get = |k: u32| -> u64 {
        let mut v = [0u8; 8];
        sys::map_lookup(&fd, &k.to_ne_bytes(), &mut v)
            .map(|_| u64::from_ne_bytes(v))
            .unwrap_or(0)
    };
    Ok(Stats {
        sockets: get(0),
        acks: get(1),
        last_cwnd: get(2),
        last_queuing_delay_ns: get(3),
        override_acks: get(4),
        ssthresh_calls: get(5),
        owd_samples: get(6),
        rtt_samples: get(7),
        agent_applied: get(8),
        fallback_acks: get(9),
        ring_drops: get(10),
    })
}

/// One line of `kernel status`.
#[derive(Debug, Clone)]
pub struct Status {
    pub name: &'static str,
    pub registered: bool,
    pub pinned: Option<PathBuf>,
    pub params: Vec<(&'static str, String)>,
    pub overrides: Vec<u64>,
    pub stats: Option<Stats>,
}

pub fn status() -> Vec<Status> {
    ALGS.iter()
        .map(|a| {
            let dir = a.pin_dir();
            let pinned = dir.join("ops").exists().then_some(dir);
            let params = match (a.layout, pinned.is_some()) {
                (Some(l), true) => read_params(a, None)
                    .map(|v| l.describe(&v))
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            let overrides = match (a.layout, pinned.is_some()) {
                (Some(_), true) => a
                    .open_pinned("ovr")
                    .ok()
                    .and_then(|fd| sys::map_keys_u64(&fd).ok())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            Status {
                name: a.name,
                registered: is_registered(a.name),
                stats: pinned.as_ref().and_then(|_| stats(a).ok()),
                pinned,
                params,
                overrides,
            }
        })
        .collect()
}

/// Registers on creation, unregisters on drop (also when a test panics), so that nothing
/// stays registered or pinned.
pub struct LoadGuard {
    pub alg: &'static NativeAlg,
}

impl LoadGuard {
    pub fn new(alg: &'static NativeAlg, user: &[(String, String)]) -> Result<LoadGuard, String> {
        // A leftover of an earlier crashed run would make registration fail with EEXIST.
        if is_registered(alg.name) {
            unload(alg)?;
        }
        load(alg, user)?;
        Ok(LoadGuard { alg })
    }
}

impl Drop for LoadGuard {
    fn drop(&mut self) {
        if let Err(e) = unload(self.alg) {
            eprintln!("warning: unloading {} failed: {e}", self.alg.name);
        }
    }
}
