//! `scavenger testbed doctor`: checks what the testbed needs and says what is missing.

use crate::netns;
use crate::run::kernel_ccs;
use crate::sys;
use scavenger_kernel::manage;

pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

/// A check's outcome: what was found (`Ok`) or what is missing and how to get it (`Err`);
/// both are text for the report, not errors to propagate.
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
            .map(|_| "veth pair created".to_string())
            .map_err(String::from),
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
    let l = Leftovers::find();
    out.push(check(
        "leftovers",
        if l.stale_namespaces.is_empty() && l.dead_registrations.is_empty() {
            Ok("nothing left behind by runs that are gone".into())
        } else {
            Err(format!(
                "left behind by runs that are gone (remove with `scavenger testbed clean`): {}",
                l.stale_namespaces
                    .iter()
                    .map(|n| format!("namespace {n}"))
                    .chain(
                        l.dead_registrations
                            .iter()
                            .map(|r| format!("registration {r}"))
                    )
                    .collect::<Vec<_>>()
                    .join("; ")
            ))
        },
    ));
    out.push(check(
        "registrations",
        Ok(if l.live_registrations.is_empty() {
            "no BPF congestion control of ours registered".into()
        } else {
            format!(
                "in use (left alone by `testbed clean`): {}",
                l.live_registrations.join("; ")
            )
        }),
    ));
    out.push(check("orphaned sockets", Ok(l.describe_orphans())));
    out
}

/// Everything runs leave on the machine: namespaces and BPF registrations (with pins) of
/// processes that are gone, registrations in use, and struct_ops maps that orphaned
/// sockets still hold.
#[derive(Clone, Debug, Default)]
pub struct Leftovers {
    pub stale_namespaces: Vec<String>,
    /// Registrations or pins whose holder is gone (`manage::Found::describe`).
    pub dead_registrations: Vec<String>,
    /// Held by a running process, or persistent (`scavenger kernel load`).
    pub live_registrations: Vec<String>,
    pub lingering: Vec<manage::Lingering>,
    /// Orphaned TCP sockets on the machine (/proc/net/sockstat).
    pub orphans: u64,
}

impl Leftovers {
    pub fn find() -> Leftovers {
        let (dead, live): (Vec<_>, Vec<_>) = manage::discover()
            .into_iter()
            .partition(|f| f.is_dead_leftover());
        Leftovers {
            stale_namespaces: netns::list_stale(),
            dead_registrations: dead.iter().map(manage::Found::describe).collect(),
            live_registrations: live.iter().map(manage::Found::describe).collect(),
            lingering: manage::lingering(),
            orphans: manage::orphaned_tcp_sockets(),
        }
    }

    /// Orphaned sockets, and the unregistered struct_ops maps of ours they keep alive.
    pub fn describe_orphans(&self) -> String {
        let mut s = format!("{} orphaned TCP sockets on the machine", self.orphans);
        if !self.lingering.is_empty() {
            s.push_str(&format!(
                "; unregistered but still held by sockets (FIN-WAIT-1/LAST-ACK with unsent data, or a dying namespace's; the kernel frees them when those sockets time out, nothing to remove): {}",
                self.lingering
                    .iter()
                    .map(|l| format!("{} (struct_ops map id {})", l.cc_name, l.map_id))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        s
    }
}

/// What `testbed clean` did.
#[derive(Clone, Debug, Default)]
pub struct Cleaned {
    pub namespaces: Vec<String>,
    pub kernel: manage::Cleaned,
    /// What stays after cleaning (orphaned sockets cannot be removed, only reported).
    pub after: Leftovers,
}

/// Removes what runs that are gone left: their namespaces first (their sockets go with
/// them), then their BPF registrations and pins. Never a running process's, nor a
/// persistent registration (`scavenger kernel load`).
pub fn clean() -> Result<Cleaned, crate::error::TestbedError> {
    let namespaces = netns::clean_stale()?;
    let kernel = if sys::is_root() {
        manage::clean_dead()
    } else {
        manage::Cleaned::default()
    };
    Ok(Cleaned {
        namespaces,
        kernel,
        after: Leftovers::find(),
    })
}
