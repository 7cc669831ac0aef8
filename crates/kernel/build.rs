//! Builds the BPF objects (clang -target bpf against a vmlinux.h that bpftool generates
//! from the build machine's /sys/kernel/btf/vmlinux into OUT_DIR) and the host copy of the
//! algorithm cores for the parity tests. Missing clang or bpftool is not a build error:
//! the crate then carries no objects and says so at run time (see docs/kernel.md).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const OBJECTS: &[&str] = &[
    "scv_ledbat",
    "scv_yield",
    "scv_ledbatpp",
    "scv_ebb",
    "scv_shim",
];

fn find_tool(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = env::var_os("PATH")
        .map(|p| env::split_paths(&p).collect())
        .unwrap_or_default();
    // Debian installs bpftool in /usr/sbin, which is not on a normal user's PATH.
    dirs.extend(
        ["/usr/sbin", "/sbin", "/usr/local/sbin"]
            .iter()
            .map(PathBuf::from),
    );
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn build_bpf(out: &Path) -> Result<(), String> {
    let clang = find_tool("clang").ok_or("clang not found")?;
    let bpftool = find_tool("bpftool").ok_or("bpftool not found")?;
    let btf = Path::new("/sys/kernel/btf/vmlinux");
    if !btf.exists() {
        return Err(
            "/sys/kernel/btf/vmlinux not found (kernel without CONFIG_DEBUG_INFO_BTF)".into(),
        );
    }
    let libbpf_headers = [
        "/usr/include/bpf/bpf_helpers.h",
        "/usr/local/include/bpf/bpf_helpers.h",
    ];
    if !libbpf_headers.iter().any(|h| Path::new(h).exists()) {
        return Err("libbpf headers (bpf/bpf_helpers.h) not found: install libbpf-dev".into());
    }
    let vmlinux = Command::new(&bpftool)
        .args(["btf", "dump", "file"])
        .arg(btf)
        .args(["format", "c"])
        .output()
        .map_err(|e| format!("running bpftool: {e}"))?;
    if !vmlinux.status.success() {
        return Err(format!(
            "bpftool btf dump failed: {}",
            String::from_utf8_lossy(&vmlinux.stderr)
        ));
    }
    fs::write(out.join("vmlinux.h"), &vmlinux.stdout).map_err(|e| e.to_string())?;
    for name in OBJECTS {
        let src = Path::new("bpf").join(format!("{name}.bpf.c"));
        let obj = out.join(format!("{name}.bpf.o"));
        let res = Command::new(&clang)
            .args([
                "-O2",
                "-g",
                "-target",
                "bpf",
                "-D__TARGET_ARCH_x86",
                "-Wall",
                "-Wno-unused-function",
            ])
            .arg(format!("-I{}", out.display()))
            .arg("-Ibpf")
            .arg("-c")
            .arg(&src)
            .arg("-o")
            .arg(&obj)
            .output()
            .map_err(|e| format!("running clang: {e}"))?;
        if !res.status.success() {
            return Err(format!(
                "clang failed on {}: {}",
                src.display(),
                String::from_utf8_lossy(&res.stderr)
            ));
        }
    }
    Ok(())
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo::rustc-check-cfg=cfg(scv_bpf_built)");
    println!("cargo::rerun-if-changed=bpf");
    println!("cargo::rerun-if-changed=/sys/kernel/btf/vmlinux");
    println!("cargo::rerun-if-env-changed=SCAVENGER_SKIP_BPF");
    // find_tool searches PATH: installing clang or bpftool into a PATH directory after a
    // first build must rebuild the objects (issue 23 item 11). Installing into a directory
    // already on PATH does not change PATH, so the tools' locations are watched as well.
    println!("cargo::rerun-if-env-changed=PATH");
    for tool in ["clang", "bpftool"] {
        match find_tool(tool) {
            Some(p) => println!("cargo::rerun-if-changed={}", p.display()),
            None => {
                for d in ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"] {
                    if Path::new(d).is_dir() {
                        println!("cargo::rerun-if-changed={d}");
                    }
                }
            }
        }
    }
    for h in ["/usr/include/bpf", "/usr/local/include/bpf"] {
        if Path::new(h).is_dir() {
            println!("cargo::rerun-if-changed={h}");
        }
    }
    let skip = env::var_os("SCAVENGER_SKIP_BPF").is_some();
    let status = if skip {
        Err("SCAVENGER_SKIP_BPF is set".to_string())
    } else {
        build_bpf(&out)
    };
    match status {
        Ok(()) => {
            println!("cargo::rustc-cfg=scv_bpf_built");
            fs::write(out.join("bpf_status.txt"), "built").unwrap();
        }
        Err(why) => {
            println!("cargo::warning=BPF objects were not built ({why}); install clang llvm libbpf-dev bpftool (see docs/kernel.md)");
            fs::write(out.join("bpf_status.txt"), why).unwrap();
        }
    }
    cc::Build::new()
        .file("bpf/host_core.c")
        .include("bpf")
        .warnings(true)
        .compile("scv_core_host");
}
