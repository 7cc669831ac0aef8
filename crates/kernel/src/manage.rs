//! Registering, unregistering and inspecting the native congestion controls.
//!
//! Lifetime model (docs/kernel.md "Loading"): with the system libbpf 1.1 a struct_ops
//! registration is a map element, not a bpf_link, so it outlives the loading process.
//! `load` therefore registers, pins the algorithm's maps under
//! /sys/fs/bpf/scavenger/<name>/ (mounting bpffs there if needed) and exits; `unload`
//! deletes the registration through the pinned struct_ops map and removes the pins;
//! `status` reads both. `LoadGuard` unloads on drop, for tests and embedding programs.
//!
//! Registrations are global to the machine, so each one has an owner (`owner::Owner`,
//! pinned as `owner`) and `unload` refuses one that a live process holds unless forced.
//! `LoadGuard`s register under a private name (`scv_<tag>_<pid>_<n>`, pins under
//! /sys/fs/bpf/scavenger-<pid>/): two processes, or two guards in one, never touch each
//! other's registration, and a user's `kernel load scv_ledbat` is never replaced.

use crate::libbpf::{LibbpfError, Object};
use crate::objects::{self, ObjectError};
use crate::owner::{Owner, OwnerError};
use crate::params::{self, Layout, ParamError, Values};
use crate::sys;
use std::fs;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

pub const BPFFS: &str = "/sys/fs/bpf";
pub const PIN_ROOT: &str = "/sys/fs/bpf/scavenger";
const AVAILABLE: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

/// Why registering, unregistering or inspecting a congestion control failed. Each names
/// the registration, the file or map, and what the system said.
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    /// Not in the catalogue (`ALGS`).
    #[error("unknown kernel algorithm `{name}`; known: {}", catalogue())]
    UnknownAlg { name: String },
    /// Neither in the catalogue nor a private registration found on the machine.
    #[error("unknown kernel algorithm `{name}`; known: {}, and private registrations listed by `scavenger kernel status`", catalogue())]
    UnknownTarget { name: String },
    /// A pin of the registration cannot be opened: it is not loaded.
    #[error("{name} is not loaded (cannot open {}: {source}); run `scavenger kernel load {alg}`", path.display())]
    NotLoaded {
        name: String,
        alg: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "registering a BPF congestion control needs root (CAP_BPF + CAP_NET_ADMIN); run as root"
    )]
    LoadNeedsRoot,
    #[error("unregistering needs root")]
    UnloadNeedsRoot,
    /// Parameters given for the shim, whose parameters are the agent's.
    #[error("{alg} takes no parameters (the agent's algorithm does)")]
    TakesNoParams { alg: &'static str },
    #[error("{name} is already registered{}; `scavenger kernel unload {name}` first", owner.map(|o| format!(" ({})", o.describe())).unwrap_or_default())]
    AlreadyRegistered { name: String, owner: Option<Owner> },
    #[error("cannot mount bpffs at {dir}: {source}")]
    Bpffs {
        dir: &'static str,
        source: io::Error,
    },
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir { dir: PathBuf, source: io::Error },
    #[error("pinning {map} at {}: {source}", path.display())]
    Pin {
        map: String,
        path: PathBuf,
        source: io::Error,
    },
    /// A live process holds the registration and unloading was not forced.
    #[error("{name} is {}: refusing to unregister it under a running process (stop that process, or use --force)", owner.describe())]
    Held { name: String, owner: Owner },
    #[error("unregistering {name}: {source}")]
    Unregister { name: String, source: io::Error },
    #[error("listing BPF maps: {0}")]
    ListMaps(#[source] io::Error),
    #[error("{name} is still listed in {file} after unregistering")]
    StillRegistered { name: String, file: &'static str },
    #[error("{name} has no parameters")]
    NoParams { name: String },
    /// `kernel set` on the shim.
    #[error("{name} has no parameters; set them on the agent")]
    NoParamsSetOnAgent { name: String },
    #[error("reading parameters: {0}")]
    ReadParams(#[source] io::Error),
    #[error("writing parameters: {0}")]
    WriteParams(#[source] io::Error),
    #[error("writing the override of socket {cookie}: {source}")]
    WriteOverride { cookie: u64, source: io::Error },
    #[error("socket {cookie} has no override: {source}")]
    NoOverride { cookie: u64, source: io::Error },
    #[error(transparent)]
    Object(#[from] ObjectError),
    #[error(transparent)]
    Libbpf(#[from] LibbpfError),
    #[error(transparent)]
    Param(#[from] ParamError),
    #[error(transparent)]
    Owner(#[from] OwnerError),
}

/// The catalogue's names, for "known: ..." in messages.
fn catalogue() -> String {
    ALGS.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
}

/// A congestion control this crate can register.
pub struct NativeAlg {
    /// The name sockets select (setsockopt TCP_CONGESTION), also the struct_ops map name.
    pub name: &'static str,
    /// Two letters naming it in private registration names (`scv_<tag>_<pid>_<n>`).
    pub tag: &'static str,
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
        tag: "lb",
        map_prefix: "scv_ledbat",
        object: "scv_ledbat",
        layout: Some(&params::LEDBAT),
        summary: "LEDBAT (RFC 6817, the Linux module of Ong 2020), native BPF; follows crates/cc `ledbat`",
        extra_maps: &[],
    },
    NativeAlg {
        name: "scv_yield",
        tag: "yd",
        map_prefix: "scv_yield",
        object: "scv_yield",
        layout: Some(&params::YIELD),
        summary: "Yield TCP (Ong 2020 ch. 5, App. B), native BPF; follows crates/cc `yield`",
        extra_maps: &[],
    },
    NativeAlg {
        name: "scv_ledbatpp",
        tag: "lp",
        map_prefix: "scv_lpp",
        object: "scv_ledbatpp",
        layout: Some(&params::LEDBATPP),
        summary: "LEDBAT++ (draft-irtf-iccrg-ledbat-plus-plus), native BPF; follows crates/cc `ledbat-plus-plus`",
        extra_maps: &[],
    },
    NativeAlg {
        name: "scv_ebb",
        tag: "eb",
        map_prefix: "scv_ebb",
        object: "scv_ebb",
        layout: Some(&params::EBB),
        summary: "Ebb (our LBE controller, docs/ebb.md), default variant, native BPF; follows crates/cc `ebb`",
        extra_maps: &[],
    },
    NativeAlg {
        name: "scv_shim",
        tag: "sh",
        map_prefix: "scv_shim",
        object: "scv_shim",
        layout: None,
        summary: "Shim: streams per-ACK samples to `scavenger kernel agent`, applies the agent's cwnd/pacing; Reno when the agent is silent",
        extra_maps: &["scv_shim_ring", "scv_shim_cmd", "scv_shim_hb", "scv_shim_goal"],
    },
];

/// Finds an algorithm by kernel name ("scv_ledbat") or by the crates/cc name it follows
/// ("ledbat"), case-insensitively.
pub fn find(name: &str) -> Result<&'static NativeAlg, ManageError> {
    let n = name.to_ascii_lowercase();
    ALGS.iter()
        .find(|a| {
            a.name == n
                || a.layout.is_some_and(|l| l.cc_name == n)
                || a.name.trim_start_matches("scv_") == n
        })
        .ok_or_else(|| ManageError::UnknownAlg { name: name.into() })
}

impl NativeAlg {
    /// The pin directory of its shared registration (`scavenger kernel load`).
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
    /// Opens a pin of its shared registration.
    pub fn open_pinned(&'static self, what: &str) -> Result<OwnedFd, ManageError> {
        Target::shared(self).open_pinned(what)
    }
}

/// One registration of an algorithm: the name sockets select and where its maps are
/// pinned. `shared` is what `scavenger kernel load` uses; `private` gives a name and a
/// pin directory no other process or guard uses.
#[derive(Clone)]
pub struct Target {
    pub alg: &'static NativeAlg,
    /// The congestion control's name in the kernel (setsockopt TCP_CONGESTION).
    pub name: String,
    pub pin_dir: PathBuf,
}

impl PartialEq for Target {
    fn eq(&self, o: &Target) -> bool {
        self.alg.name == o.alg.name && self.name == o.name && self.pin_dir == o.pin_dir
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}) at {}",
            self.name,
            self.alg.name,
            self.pin_dir.display()
        )
    }
}

static PRIVATE_COUNTER: AtomicU32 = AtomicU32::new(0);

fn base36(mut v: u64) -> String {
    let mut d = Vec::new();
    loop {
        d.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(v % 36) as usize]);
        v /= 36;
        if v == 0 {
            break;
        }
    }
    d.reverse();
    String::from_utf8(d).expect("ascii")
}

/// The pin root of this process's private registrations.
pub fn private_root(pid: u32) -> PathBuf {
    PathBuf::from(format!("{PIN_ROOT}-{pid}"))
}

/// The pid a private name (`scv_<tag>_<pid base 36>_<n>`) carries.
pub fn private_name_pid(name: &str) -> Option<u32> {
    let mut it = name.strip_prefix("scv_")?.split('_');
    let (tag, pid, n) = (it.next()?, it.next()?, it.next()?);
    if it.next().is_some() || tag.len() != 2 || n.is_empty() {
        return None;
    }
    u32::from_str_radix(pid, 36).ok()
}

impl Target {
    pub fn shared(alg: &'static NativeAlg) -> Target {
        Target {
            alg,
            name: alg.name.to_string(),
            pin_dir: alg.pin_dir(),
        }
    }

    /// A registration private to this process: `scv_<tag>_<pid>_<n>` (pid and n in base
    /// 36, at most 15 bytes as TCP_CA_NAME_MAX allows), pinned under
    /// /sys/fs/bpf/scavenger-<pid>/.
    pub fn private(alg: &'static NativeAlg) -> Target {
        let pid = std::process::id();
        let n = PRIVATE_COUNTER.fetch_add(1, Ordering::SeqCst);
        let name = format!(
            "scv_{}_{}_{}",
            alg.tag,
            base36(pid as u64),
            base36(n as u64)
        );
        debug_assert!(name.len() <= 15, "{name}");
        Target {
            alg,
            pin_dir: private_root(pid).join(&name),
            name,
        }
    }

    /// The target a kernel name stands for: a catalogue name is its shared registration,
    /// a private name is found among the pins (or, without pins, in the kernel's list).
    pub fn by_name(name: &str) -> Result<Target, ManageError> {
        if let Ok(a) = find(name) {
            return Ok(Target::shared(a));
        }
        if let Some(f) = discover().into_iter().find(|f| f.target.name == name) {
            return Ok(f.target);
        }
        Err(ManageError::UnknownTarget { name: name.into() })
    }

    fn map_pin(&self, what: &str) -> PathBuf {
        self.pin_dir.join(what)
    }

    pub fn open_pinned(&self, what: &str) -> Result<OwnedFd, ManageError> {
        let path = self.map_pin(what);
        sys::obj_get(&path).map_err(|source| ManageError::NotLoaded {
            name: self.name.clone(),
            alg: self.alg.name,
            path,
            source,
        })
    }

    /// The owner recorded with the registration, if its pins have one.
    pub fn owner(&self) -> Option<Owner> {
        Owner::read(&self.map_pin("owner"))
    }

    pub fn is_registered(&self) -> bool {
        is_registered(&self.name)
    }
}

/// The catalogue entry a kernel name belongs to: a catalogue name, or a private name
/// by its tag.
fn alg_of_name(name: &str) -> Option<&'static NativeAlg> {
    ALGS.iter().find(|a| a.name == name).or_else(|| {
        private_name_pid(name)?;
        let tag = name.strip_prefix("scv_")?.split('_').next()?;
        ALGS.iter().find(|a| a.tag == tag)
    })
}

/// The catalogue name behind a kernel name: `scv_ledbat` for a private registration
/// `scv_lb_…` of it; any other name unchanged.
pub fn catalogue_name(name: &str) -> &str {
    match alg_of_name(name) {
        Some(a) => a.name,
        None => name,
    }
}

/// A registration or pin directory of ours found on the machine.
#[derive(Clone, Debug)]
pub struct Found {
    pub target: Target,
    /// Listed in tcp_available_congestion_control.
    pub registered: bool,
    /// The pin directory exists.
    pub pinned: bool,
    pub owner: Option<Owner>,
}

impl Found {
    /// Left behind by a process that is gone: a held registration whose holder died, or
    /// (without an owner record) a private name whose pid is gone. Persistent
    /// registrations (`kernel load`) are never "left behind".
    pub fn is_dead_leftover(&self) -> bool {
        match self.owner {
            Some(o) => o.held && !o.is_alive(),
            None => private_name_pid(&self.target.name)
                .is_some_and(|pid| crate::owner::start_time(pid).is_none()),
        }
    }

    pub fn describe(&self) -> String {
        let what = match (self.registered, self.pinned) {
            (true, true) => "registered, pinned".to_string(),
            (true, false) => "registered, no pins".to_string(),
            (false, true) => "NOT registered (stale pins)".to_string(),
            (false, false) => "gone".to_string(),
        };
        let owner = self
            .owner
            .map(|o| o.describe())
            .unwrap_or_else(|| "no owner record".into());
        format!(
            "{} ({what}; {owner}) at {}",
            self.target.name,
            self.target.pin_dir.display()
        )
    }
}

/// Every registration and pin directory of ours: pin directories under
/// /sys/fs/bpf/scavenger and /sys/fs/bpf/scavenger-<pid>, and registered `scv_*` names
/// without pins.
pub fn discover() -> Vec<Found> {
    let avail = available();
    let mut out: Vec<Found> = Vec::new();
    let roots: Vec<PathBuf> = fs::read_dir(BPFFS)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("scavenger"))
        .map(|e| e.path())
        .collect();
    for root in roots {
        for e in fs::read_dir(&root).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(alg) = alg_of_name(&name) else {
                continue;
            };
            let target = Target {
                alg,
                name: name.clone(),
                pin_dir: e.path(),
            };
            out.push(Found {
                registered: avail.contains(&name),
                pinned: true,
                owner: target.owner(),
                target,
            });
        }
    }
    for name in avail.iter().filter(|n| n.starts_with("scv_")) {
        if out.iter().any(|f| &f.target.name == name) {
            continue;
        }
        let Some(alg) = alg_of_name(name) else {
            continue;
        };
        let pin_dir = match private_name_pid(name) {
            Some(pid) => private_root(pid).join(name),
            None => Path::new(PIN_ROOT).join(name),
        };
        out.push(Found {
            target: Target {
                alg,
                name: name.clone(),
                pin_dir,
            },
            registered: true,
            pinned: false,
            owner: None,
        });
    }
    out.sort_by(|a, b| a.target.name.cmp(&b.target.name));
    out
}

/// What of ours is still registered or pinned, by any process.
pub fn leftovers() -> Vec<String> {
    discover().iter().map(Found::describe).collect()
}

/// What this process still has registered or pinned (empty after every `unload` and
/// every dropped `LoadGuard`); other processes' registrations are not counted.
pub fn own_leftovers() -> Vec<String> {
    let pid = std::process::id();
    discover()
        .iter()
        .filter(|f| {
            private_name_pid(&f.target.name) == Some(pid)
                || f.owner.is_some_and(|o| o.is_this_process())
        })
        .map(Found::describe)
        .collect()
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

fn preflight() -> Result<(), ManageError> {
    objects::built()?;
    if !sys::is_root() {
        return Err(ManageError::LoadNeedsRoot);
    }
    Ok(())
}

/// Registers `alg` under its shared name with parameters `user` (NAME=VALUE pairs,
/// validated against the crates/cc table), to persist after this process
/// (`scavenger kernel load`). Returns the pin directory.
pub fn load(alg: &'static NativeAlg, user: &[(String, String)]) -> Result<PathBuf, ManageError> {
    load_target(&Target::shared(alg), user, Owner::this_process(false))
}

/// Registers `t` with parameters `user`, recording `owner` with its pins.
pub fn load_target(
    t: &Target,
    user: &[(String, String)],
    owner: Owner,
) -> Result<PathBuf, ManageError> {
    let alg = t.alg;
    let values = match alg.layout {
        Some(l) => Some(l.resolve(user)?),
        None if !user.is_empty() => return Err(ManageError::TakesNoParams { alg: alg.name }),
        None => None,
    };
    preflight()?;
    if is_registered(&t.name) {
        return Err(ManageError::AlreadyRegistered {
            name: t.name.clone(),
            owner: t.owner(),
        });
    }
    let elf = objects::object(alg.object)?;
    let elf = if t.name == alg.name {
        elf.to_vec()
    } else {
        objects::renamed(elf, alg.name, &t.name)?
    };
    let obj = Object::load(&elf)?;
    sys::ensure_bpffs(Path::new(BPFFS))
        .map_err(|source| ManageError::Bpffs { dir: BPFFS, source })?;
    let dir = &t.pin_dir;
    if dir.exists() {
        // Stale pins of an earlier load whose registration is gone: replace them.
        remove_pins(t);
    }
    fs::create_dir_all(dir).map_err(|source| ManageError::CreateDir {
        dir: dir.clone(),
        source,
    })?;
    let result = (|| -> Result<(), ManageError> {
        if let (Some(v), Some(_)) = (values, alg.layout) {
            let fd = obj.map_fd(&alg.map_name("par"))?;
            let b = unsafe_borrow(fd);
            sys::map_update(&b, &0u32.to_ne_bytes(), &params::values_to_bytes(&v))
                .map_err(ManageError::WriteParams)?;
        }
        // The owner first: a registration is never visible without one.
        owner.pin(&dir.join("owner"))?;
        for (pin, map) in alg.pinned_maps() {
            let fd = obj.map_fd(&map)?;
            let path = dir.join(&pin);
            sys::obj_pin(fd, &path).map_err(|source| ManageError::Pin { map, path, source })?;
        }
        Ok(obj.register_struct_ops(alg.name)?)
    })();
    if let Err(e) = result {
        remove_pins(t);
        return Err(e);
    }
    Ok(dir.clone())
}

/// Borrows a descriptor owned by a libbpf object for the duration of a call.
fn unsafe_borrow(fd: i32) -> BorrowedFd<'static> {
    // SAFETY: callers only use the borrow while the owning `Object` is alive.
    unsafe { BorrowedFd::borrow_raw(fd) }
}

fn remove_pins(t: &Target) {
    let dir = &t.pin_dir;
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let _ = fs::remove_file(e.path());
        }
    }
    let _ = fs::remove_dir(dir);
    // The root (scavenger or scavenger-<pid>) goes when empty; remove_dir fails otherwise.
    if let Some(root) = dir.parent() {
        if root
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("scavenger"))
        {
            let _ = fs::remove_dir(root);
        }
    }
}

/// What `unload` did.
#[derive(Debug, Clone)]
pub struct Unloaded {
    pub was_registered: bool,
    pub via_pin: bool,
}

/// Whether `unload` may remove a registration a live process holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Force {
    No,
    Yes,
}

/// Unregisters the shared registration of `alg` (see `unload_target`).
pub fn unload(alg: &'static NativeAlg) -> Result<Unloaded, ManageError> {
    unload_target(&Target::shared(alg), Force::No)
}

/// Unregisters `t` (through its pin, or by finding its struct_ops map by the name it
/// registers when the pins are gone, e.g. after a crashed test) and removes its pins.
/// A registration held by another live process is refused unless `force`.
pub fn unload_target(t: &Target, force: Force) -> Result<Unloaded, ManageError> {
    if !sys::is_root() {
        return Err(ManageError::UnloadNeedsRoot);
    }
    if let Some(o) = t.owner().filter(|o| o.protects()) {
        if force == Force::No {
            return Err(ManageError::Held {
                name: t.name.clone(),
                owner: o,
            });
        }
    }
    let was = is_registered(&t.name);
    let mut via_pin = false;
    if let Ok(fd) = sys::obj_get(&t.map_pin("ops")) {
        via_pin = true;
        match sys::map_delete(&fd, &0u32.to_ne_bytes()) {
            Ok(()) => {}
            Err(e)
                if e.raw_os_error() == Some(libc::ENOENT)
                    || e.raw_os_error() == Some(libc::EINVAL) => {}
            Err(source) => {
                return Err(ManageError::Unregister {
                    name: t.name.clone(),
                    source,
                })
            }
        }
    }
    if is_registered(&t.name) {
        // No (working) pin: find the struct_ops map that registers this name. Several
        // maps share the map name (every private registration of an algorithm is
        // `scv_ledbat`…), so match the congestion control's name in the map's value.
        for (info, fd) in sys::all_maps().map_err(ManageError::ListMaps)? {
            if info.map_type == sys::MAP_TYPE_STRUCT_OPS
                && sys::struct_ops_cc_name(&fd, info.value_size).as_deref() == Some(&t.name)
            {
                let _ = sys::map_delete(&fd, &0u32.to_ne_bytes());
            }
        }
    }
    remove_pins(t);
    if is_registered(&t.name) {
        return Err(ManageError::StillRegistered {
            name: t.name.clone(),
            file: AVAILABLE,
        });
    }
    Ok(Unloaded {
        was_registered: was,
        via_pin,
    })
}

/// A struct_ops map of ours that the kernel still holds after its registration went:
/// sockets that used it are still alive (orphaned sockets in FIN-WAIT-1 or LAST-ACK with
/// unsent data, or a dying namespace's), and the kernel frees it when they time out.
#[derive(Clone, Debug)]
pub struct Lingering {
    pub map_id: u32,
    pub cc_name: String,
}

/// Struct_ops maps of ours whose congestion control is no longer registered.
pub fn lingering() -> Vec<Lingering> {
    let avail = available();
    sys::all_maps()
        .unwrap_or_default()
        .into_iter()
        .filter(|(i, _)| i.map_type == sys::MAP_TYPE_STRUCT_OPS)
        .filter_map(|(i, fd)| {
            let cc = sys::struct_ops_cc_name(&fd, i.value_size)?;
            (!avail.contains(&cc)).then_some(Lingering {
                map_id: i.id,
                cc_name: cc,
            })
        })
        .collect()
}

/// Orphaned TCP sockets on the machine (`orphan` in /proc/net/sockstat: closed by their
/// process, still sending or waiting for the peer).
pub fn orphaned_tcp_sockets() -> u64 {
    fs::read_to_string("/proc/net/sockstat")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("TCP:"))?;
            let mut it = line.split_whitespace();
            while let Some(w) = it.next() {
                if w == "orphan" {
                    return it.next()?.parse().ok();
                }
            }
            None
        })
        .unwrap_or(0)
}

/// What `clean_dead` did.
#[derive(Clone, Debug, Default)]
pub struct Cleaned {
    /// Registrations (or stale pins) of processes that are gone, removed.
    pub removed: Vec<String>,
    /// Left alone: held by a running process, or persistent (`kernel load`).
    pub kept: Vec<String>,
    pub errors: Vec<String>,
}

/// Removes the registrations and pins that processes which are gone left behind
/// (`testbed clean`), never a running process's or a persistent one.
pub fn clean_dead() -> Cleaned {
    let mut c = Cleaned::default();
    for f in discover() {
        if f.is_dead_leftover() {
            match unload_target(&f.target, Force::No) {
                Ok(_) => c.removed.push(f.describe()),
                Err(e) => c.errors.push(e.to_string()),
            }
        } else {
            c.kept.push(f.describe());
        }
    }
    c
}

/// Current parameters of a loaded algorithm: the global set, or a socket's override.
pub fn read_params(t: &Target, cookie: Option<u64>) -> Result<Values, ManageError> {
    let Some(_) = t.alg.layout else {
        return Err(ManageError::NoParams {
            name: t.name.clone(),
        });
    };
    let mut buf = vec![0u8; params::SLOTS * 8];
    match cookie {
        None => {
            let fd = t.open_pinned("par")?;
            sys::map_lookup(&fd, &0u32.to_ne_bytes(), &mut buf).map_err(ManageError::ReadParams)?;
        }
        Some(c) => {
            let fd = t.open_pinned("ovr")?;
            if sys::map_lookup(&fd, &c.to_ne_bytes(), &mut buf).is_err() {
                return read_params(t, None);
            }
        }
    }
    Ok(params::values_from_bytes(&buf))
}

/// `kernel set`: changes one parameter, globally (all sockets, from their next ACK) or
/// for the socket with cookie `cookie` only. Returns the new value set.
pub fn set_param(
    t: &Target,
    name: &str,
    value: &str,
    cookie: Option<u64>,
) -> Result<Values, ManageError> {
    let Some(layout) = t.alg.layout else {
        return Err(ManageError::NoParamsSetOnAgent {
            name: t.name.clone(),
        });
    };
    let cur = read_params(t, cookie)?;
    let new = layout.apply(cur, name, value)?;
    let bytes = params::values_to_bytes(&new);
    match cookie {
        None => {
            let fd = t.open_pinned("par")?;
            sys::map_update(&fd, &0u32.to_ne_bytes(), &bytes).map_err(ManageError::WriteParams)?;
        }
        Some(c) => {
            let fd = t.open_pinned("ovr")?;
            sys::map_update(&fd, &c.to_ne_bytes(), &bytes)
                .map_err(|source| ManageError::WriteOverride { cookie: c, source })?;
        }
    }
    Ok(new)
}

/// Removes a socket's override (it then follows the global set again).
pub fn clear_override(t: &Target, cookie: u64) -> Result<(), ManageError> {
    let fd = t.open_pinned("ovr")?;
    sys::map_delete(&fd, &cookie.to_ne_bytes())
        .map_err(|source| ManageError::NoOverride { cookie, source })
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

pub fn stats(t: &Target) -> Result<Stats, ManageError> {
    let fd = t.open_pinned("sts")?;
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
    pub target: Target,
    pub registered: bool,
    pub pinned: Option<PathBuf>,
    pub owner: Option<Owner>,
    pub params: Vec<(&'static str, String)>,
    pub overrides: Vec<u64>,
    pub stats: Option<Stats>,
}

/// The shared registration of every catalogue algorithm, then every private one found.
pub fn status() -> Vec<Status> {
    let mut targets: Vec<Target> = ALGS.iter().map(Target::shared).collect();
    for f in discover() {
        if !targets.contains(&f.target) {
            targets.push(f.target);
        }
    }
    targets
        .into_iter()
        .map(|t| {
            let dir = t.pin_dir.clone();
            let pinned = dir.join("ops").exists().then_some(dir);
            let params = match (t.alg.layout, pinned.is_some()) {
                (Some(l), true) => read_params(&t, None)
                    .map(|v| l.describe(&v))
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            let overrides = match (t.alg.layout, pinned.is_some()) {
                (Some(_), true) => t
                    .open_pinned("ovr")
                    .ok()
                    .and_then(|fd| sys::map_keys_u64(&fd).ok())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            Status {
                registered: t.is_registered(),
                stats: pinned.as_ref().and_then(|_| stats(&t).ok()),
                owner: t.owner(),
                pinned,
                params,
                overrides,
                target: t,
            }
        })
        .collect()
}

/// Registers on creation, unregisters on drop (also when a test panics), so that nothing
/// stays registered or pinned. The registration has a name and pins private to this
/// process and guard (`Target::private`): sockets select `guard.name()`.
pub struct LoadGuard {
    pub target: Target,
}

impl LoadGuard {
    pub fn new(
        alg: &'static NativeAlg,
        user: &[(String, String)],
    ) -> Result<LoadGuard, ManageError> {
        LoadGuard::with_target(Target::private(alg), user)
    }

    /// Registers `target` held by this process (others cannot unload it without force).
    pub fn with_target(
        target: Target,
        user: &[(String, String)],
    ) -> Result<LoadGuard, ManageError> {
        load_target(&target, user, Owner::this_process(true))?;
        Ok(LoadGuard { target })
    }

    /// The name sockets select (setsockopt TCP_CONGESTION).
    pub fn name(&self) -> &str {
        &self.target.name
    }

    pub fn stats(&self) -> Result<Stats, ManageError> {
        stats(&self.target)
    }

    pub fn set_param(
        &self,
        name: &str,
        value: &str,
        cookie: Option<u64>,
    ) -> Result<Values, ManageError> {
        set_param(&self.target, name, value, cookie)
    }
}

impl Drop for LoadGuard {
    fn drop(&mut self) {
        if let Err(e) = unload_target(&self.target, Force::No) {
            eprintln!("warning: unloading {} failed: {e}", self.target.name);
        }
    }
}

/// Callers that still carry errors as text (the testbed's run loop) take these with `?`.
impl From<ManageError> for String {
    fn from(e: ManageError) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn management_errors_keep_their_messages() {
        assert_eq!(
            ManageError::LoadNeedsRoot.to_string(),
            "registering a BPF congestion control needs root (CAP_BPF + CAP_NET_ADMIN); run as root"
        );
        assert_eq!(
            ManageError::UnloadNeedsRoot.to_string(),
            "unregistering needs root"
        );
        let t = Target::shared(find("yield").unwrap());
        let e = t
            .open_pinned("nothing-pinned-here")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("scv_yield is not loaded (cannot open /sys/fs/bpf/scavenger/scv_yield/nothing-pinned-here: ")
                && e.ends_with("run `scavenger kernel load scv_yield`"),
            "{e}"
        );
        let e = ManageError::AlreadyRegistered {
            name: "scv_yield".into(),
            owner: None,
        };
        assert_eq!(
            e.to_string(),
            "scv_yield is already registered; `scavenger kernel unload scv_yield` first"
        );
        let e = ManageError::Held {
            name: "scv_yd_1_0".into(),
            owner: Owner::this_process(true),
        }
        .to_string();
        assert!(e.contains("held by pid") && e.contains("--force"), "{e}");
        let e = Target::by_name("cubic").unwrap_err().to_string();
        assert!(
            e.starts_with("unknown kernel algorithm `cubic`; known: scv_ledbat, scv_yield")
                && e.ends_with("private registrations listed by `scavenger kernel status`"),
            "{e}"
        );
    }
}
