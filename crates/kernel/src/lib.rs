//! Scavenger's congestion controls in real Linux TCP, through BPF struct_ops.
//!
//! - Native BPF versions of LEDBAT (`scv_ledbat`), Yield (`scv_yield`), LEDBAT++
//!   (`scv_ledbatpp`) and Ebb (`scv_ebb`, its default variant), whose algorithm cores
//!   (bpf/scv_core.h) follow the crates/cc implementations with the same parameter names
//!   and defaults;
//! - `scv_shim` + a userspace agent (`agent`) that runs any crates/cc algorithm per socket;
//! - a loader that registers them, pins their maps in bpffs, and changes parameters live
//!   (`manage`), used by `scavenger kernel …`.
//!
//! See docs/kernel.md for how applications use them, and docs/deviations/kernel.md for
//! the decisions taken.

pub mod agent;
pub mod cli;
pub mod host_core;
pub mod libbpf;
pub mod manage;
pub mod objects;
pub mod owner;
pub mod params;
pub mod sys;
pub mod tcp;

/// Why kernel tests cannot run here (not root, BPF objects missing, no struct_ops), or
/// `None` when they can. Tests print the reason and skip.
pub fn unavailable_reason() -> Option<String> {
    if let Err(e) = objects::built() {
        return Some(e.to_string());
    }
    if !sys::is_root() {
        return Some("not running as root: BPF struct_ops registration needs root".into());
    }
    if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
        return Some("kernel has no BTF (/sys/kernel/btf/vmlinux)".into());
    }
    None
}
