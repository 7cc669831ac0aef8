//! `scavenger testbed doctor`: checks what the testbed needs and says what is missing.

use crate::error::TestbedError;
use crate::netns;
use crate::run::kernel_ccs;
use crate::sys;
use scavenger_kernel::manage;

pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

impl Check {
    /// What was found.
    fn found(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            ok: true,
            detail: detail.into(),
        }
    }

    /// What is missing and how to get it: a line of the report, not an error to
    /// propagate (the doctor runs every check).
    fn missing(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            ok: false,
            detail: detail.into(),
        }
    }

    /// A probe's outcome: what it found, or its error with `hint` (what to install or
    /// set) turned into the report's line.
    fn probe<E>(name: &'static str, r: Result<String, E>, hint: impl FnOnce(E) -> String) -> Check {
        match r {
            Ok(detail) => Check::found(name, detail),
            Err(e) => Check::missing(name, hint(e)),
        }
    }
}

/// A program's `--version` line, or why it did not run.
fn version(program: &str, flag: &str) -> std::io::Result<String> {
    std::process::Command::new(program)
        .arg(flag)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// Runs every check (creating and deleting one scratch namespace).
pub fn run_checks() -> Vec<Check> {
    let mut out = Vec::new();
    let root = sys::is_root();
    out.push(if root {
        Check::found("root", "running as root")
    } else {
        Check::missing(
            "root",
            "not root: namespaces, veth and TUN need root (sudo)",
        )
    });
    out.push(Check::probe("iproute2", version("ip", "-V"), |e| {
        format!("`ip` not found ({e}): apt-get install -y iproute2")
    }));
    out.push(Check::probe(
        "ethtool",
        version("ethtool", "--version"),
        |e| format!("`ethtool` not found ({e}): apt-get install -y ethtool"),
    ));
    let ns = netns::Namespaces::new();
    let name = format!("{}-doctor", netns::unique_id());
    let made = root && ns.add(&name).is_ok();
    out.push(if made {
        Check::found("netns", format!("created and deleted {name}"))
    } else if root {
        Check::missing("netns", "`ip netns add` failed: is CONFIG_NET_NS set?")
    } else {
        Check::missing("netns", "skipped (not root)")
    });
    if made {
        out.push(Check::probe(
            "veth",
            netns::ip(&[
                "-n", &name, "link", "add", "a0", "type", "veth", "peer", "name", "b0",
            ])
            .map(|_| "veth pair created".to_string()),
            |e| e.to_string(),
        ));
        // Inside the namespace: the outer error is the thread's, the inner the probe's.
        let tun = netns::run_in(&name, || {
            Ok::<_, TestbedError>(sys::open_tun("tun0").map(drop))
        });
        out.push(match tun {
            Ok(Ok(())) => Check::found("tun", "opened /dev/net/tun inside a namespace"),
            Ok(Err(e)) => Check::missing(
                "tun",
                format!("{e} (is CONFIG_TUN set? does /dev/net/tun exist?)"),
            ),
            Err(e) => Check::missing("tun", e.to_string()),
        });
        let icmp = netns::run_in(&name, || {
            Ok::<_, TestbedError>(sys::IcmpSocket::open().map(drop))
        });
        out.push(match icmp {
            Ok(Ok(())) => Check::found("raw ICMP socket", "ok"),
            Ok(Err(e)) => Check::missing("raw ICMP socket", e.to_string()),
            Err(e) => Check::missing("raw ICMP socket", e.to_string()),
        });
    }
    drop(ns);
    let rt = std::thread::spawn(|| sys::set_realtime(50)).join();
    out.push(match rt {
        Ok(Ok(())) => Check::found("realtime", "SCHED_FIFO allowed for the emulator thread"),
        Ok(Err(e)) => Check::missing(
            "realtime",
            format!("SCHED_FIFO refused ({e}); the emulator runs at normal priority with larger timing error"),
        ),
        Err(_) => Check::missing("realtime", "panicked"),
    });
    let ccs = kernel_ccs();
    let missing: Vec<&str> = ["reno", "cubic", "bbr"]
        .into_iter()
        .filter(|c| !ccs.iter().any(|x| x == c))
        .collect();
    let name = "congestion controls";
    out.push(if missing.is_empty() {
        Check::found(name, format!("kernel offers: {}", ccs.join(" ")))
    } else {
        Check::missing(
            name,
            format!(
                "kernel offers: {}; missing: {} (flows using them will be refused)",
                ccs.join(" "),
                missing.join(" ")
            ),
        )
    });
    let l = Leftovers::find();
    out.push(
        if l.stale_namespaces.is_empty() && l.dead_registrations.is_empty() {
            Check::found("leftovers", "nothing left behind by runs that are gone")
        } else {
            Check::missing(
                "leftovers",
                format!(
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
                ),
            )
        },
    );
    out.push(Check::found(
        "registrations",
        if l.live_registrations.is_empty() {
            "no BPF congestion control of ours registered".into()
        } else {
            format!(
                "in use (left alone by `testbed clean`): {}",
                l.live_registrations.join("; ")
            )
        },
    ));
    out.push(Check::found("orphaned sockets", l.describe_orphans()));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_that_fails_is_a_missing_line_with_its_hint() {
        let c = Check::probe("ip", version("scavenger-no-such-program", "-V"), |e| {
            format!("not found ({e}): install it")
        });
        assert!(!c.ok);
        assert!(c.detail.starts_with("not found (") && c.detail.ends_with("install it"));
        let c = Check::probe("x", Ok::<_, std::io::Error>("1.0".into()), |e| {
            e.to_string()
        });
        assert!(c.ok && c.detail == "1.0");
    }
}
