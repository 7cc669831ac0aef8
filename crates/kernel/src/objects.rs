//! The BPF objects build.rs compiled, embedded in the binary. When clang or bpftool were
//! missing at build time there are none, and every operation that needs them says so.

/// Why the objects are missing, as build.rs recorded it.
const STATUS: &str = include_str!(concat!(env!("OUT_DIR"), "/bpf_status.txt"));

#[cfg(scv_bpf_built)]
static OBJECTS: &[(&str, &[u8])] = &[
    (
        "scv_ledbat",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_ledbat.bpf.o")),
    ),
    (
        "scv_yield",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_yield.bpf.o")),
    ),
    (
        "scv_ledbatpp",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_ledbatpp.bpf.o")),
    ),
    (
        "scv_shim",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_shim.bpf.o")),
    ),
];
#[cfg(not(scv_bpf_built))]
static OBJECTS: &[(&str, &[u8])] = &[];

/// Ok when the objects were built, else the message users see.
pub fn built() -> Result<(), String> {
    if OBJECTS.is_empty() {
        Err(format!(
            "BPF objects were not built: install clang llvm libbpf-dev bpftool (see docs/kernel.md) and rebuild (build said: {})",
            STATUS.trim()
        ))
    } else {
        Ok(())
    }
}

pub fn object(name: &str) -> Result<&'static [u8], String> {
    built()?;
    OBJECTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
        .ok_or_else(|| format!("no BPF object named {name}"))
}
