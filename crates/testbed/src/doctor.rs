//! `scavenger testbed doctor`: checks what the testbed needs and says what is missing.

use crate::netns;
use crate::run::kernel_ccs;
use crate::sys;

pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

fn check(name: &'static str, r: Result<String, String>) -> Check {
    match r {
        Ok(detail) => Check {
            name,
            ok: true,
            detail,
        },
        Err(detail) => Check {
            name,
            ok: false,
            detail,
        },
    }
}

/// Runs every check (creating and deleting one scratch namespace).
pub fn run_checks() -> Vec<Check> {
    let mut out = Vec::new();
    let root = sys::is_root();
    out.push(check(
        "root",
        if root {
            Ok("running as root".into())
        } else {
            Err("not root: namespaces, veth and TUN need root (sudo)".into())
        },
    ));
    out.push(check(
        "iproute2",
        std::process::Command::new("ip")
            .arg("-V")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .map_err(|e| format!("`ip` not found ({e}): apt-get install -y iproute2")),
    ));
    out.push(check(
        "ethtool",
        std::process::Command::new("ethtool")
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .map_err(|e| format!("`ethtool` not found ({e}): apt-get install -y ethtool")),
    ));
    let ns = netns::Namespaces::new();
    let name = format!("{}-doctor", netns::unique_id());
    let made = root && ns.add(&name).is_ok();
    out.push(check(
        "netns",
        if made {
            Ok(format!("created and deleted {name}"))
        } else if root {
            Err("`ip netns add` failed: is CONFIG_NET_NS set?".into())
        } else {
            Err("skipped (not root)".into())
        },
    ));
    if made {
        out.push(check(
            "veth",
            netns::ip(&[
                "-n", &name, "link", "add", "a0", "type", "veth", "peer", "name", "b0",
            ])
            .map(|_| "veth pair created".to_string()),
        ));
        out.push(check(
            "tun",
            netns::run_in(&name, || {
                sys::open_tun("tun0")
                    .map(|_| "opened /dev/net/tun inside a namespace".to_string())
                    .map_err(|e| format!("{e} (is CONFIG_TUN set? does /dev/net/tun exist?)"))
            }),
        ));
        out.push(check(
            "raw ICMP socket",
            netns::run_in(&name, || {
                sys::IcmpSocket::open()
                    .map(|_| "ok".to_string())
                    .map_err(|e| e.to_string())
            }),
        ));
    }
    drop(ns);
    let rt = std::thread::spawn(|| {
        sys::set_realtime(50)
            .map(|_| "SCHED_FIFO allowed for the emulator thread".to_string())
            .map_err(|e| format!("SCHED_FIFO refused ({e}); the emulator runs at normal priority with larger timing error"))
    })
    .join()
    .unwrap_or_else(|_| Err("panicked".into()));
    out.push(check("realtime", rt));
    let ccs = kernel_ccs();
    let missing: Vec<&str> = ["reno", "cubic", "bbr"]
        .into_iter()
        .filter(|c| !ccs.iter().any(|x| x == c))
        .collect();
    out.push(check(
        "congestion controls",
        if missing.is_empty() {
            Ok(format!("kernel offers: {}", ccs.join(" ")))
        } else {
            Err(format!(
                "kernel offers: {}; missing: {} (flows using them will be refused)",
                ccs.join(" "),
                missing.join(" ")
            ))
        },
    ));
    let stale = netns::list_stale();
    out.push(check(
        "leftovers",
        if stale.is_empty() {
            Ok("no testbed namespaces left behind".into())
        } else {
            Err(format!(
                "namespaces left behind: {} (remove with `scavenger testbed clean`)",
                stale.join(" ")
            ))
        },
    ));
    out
}
