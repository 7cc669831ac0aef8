//! The dumbbell as namespaces (kernel-and-testbed notes §2.2, extended to several hosts
//! per side):
//!
//! ```text
//!  [host ns] eth0 ─veth─ [router-S ns] tunS ═(emulator)═ tunC [router-C ns] ─veth─ eth0 [host ns]
//!  10.1.k.2/24          10.1.k.1           forward ⇒ / ⇐ reverse          10.2.k.1   10.2.k.2/24
//! ```
//!
//! Server-side hosts (which send downloads) hang off router S, client-side hosts off
//! router C. The bottleneck is the emulator between the two TUN devices, so it is in
//! neither the sender's nor the receiver's namespace (the notes' TSQ pitfall). Offloads
//! are off on every veth, so every packet is at most one MTU.

use crate::error::TestbedError;
use crate::netns::{self, Namespaces};
use crate::sys;
use scavenger_lab::scenario::Side;
use std::net::Ipv4Addr;
use std::os::fd::OwnedFd;

#[derive(Clone, Debug)]
pub struct HostNode {
    pub name: String,
    pub side: Side,
    pub ns: String,
    pub addr: Ipv4Addr,
}

pub struct Topology {
    pub id: String,
    pub hosts: Vec<HostNode>,
    pub router_server: String,
    pub router_client: String,
    /// The TUN devices' fds (server-side router, client-side router) until the emulator
    /// takes them; the devices vanish when they are closed.
    pub tuns: Option<(OwnedFd, OwnedFd)>,
    /// Last field: dropped after everything that lives in the namespaces.
    pub namespaces: Namespaces,
}

/// Subnet octet for each side: server hosts 10.1.k.0/24, client hosts 10.2.k.0/24.
fn side_octet(side: Side) -> u8 {
    match side {
        Side::Server => 1,
        Side::Client => 2,
    }
}

fn has_ethtool() -> bool {
    std::process::Command::new("ethtool")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Topology {
    /// Builds namespaces, links and TUN devices for `hosts` (name, side). On any error
    /// everything built so far is torn down before returning.
    pub fn build(hosts: &[(String, Side)]) -> Result<Topology, TestbedError> {
        if !sys::is_root() {
            return Err(TestbedError::NotRoot);
        }
        if !has_ethtool() {
            return Err(TestbedError::Missing {
                program: "ethtool",
                why: "needed to turn off TSO/GSO/GRO on the veths",
                install: ETHTOOL_INSTALL,
            });
        }
        let id = netns::unique_id();
        let namespaces = Namespaces::new();
        let router_server = format!("{id}-rs");
        let router_client = format!("{id}-rc");
        let mut topo = Topology {
            id: id.clone(),
            hosts: Vec::new(),
            router_server: router_server.clone(),
            router_client: router_client.clone(),
            tuns: None,
            namespaces,
        };
        for r in [&router_server, &router_client] {
            topo.namespaces.add(r)?;
            netns::sysctl(r, "net.ipv4.ip_forward", "1")?;
            for k in [
                "net.ipv4.conf.all.rp_filter",
                "net.ipv4.conf.default.rp_filter",
            ] {
                netns::sysctl(r, k, "0")?;
            }
        }
        let mut per_side = [0u8; 2];
        let mut init_cmds = Vec::new();
        for (i, (name, side)) in hosts.iter().enumerate() {
            let k = &mut per_side[side_octet(*side) as usize - 1];
            if *k == 250 {
                return Err(TestbedError::TooManyHosts {
                    side: if *side == Side::Server {
                        "server"
                    } else {
                        "client"
                    },
                    hosts: hosts.iter().filter(|(_, s)| s == side).count(),
                    max: 250,
                });
            }
            let ns = format!("{id}-h{i}");
            topo.namespaces.add(&ns)?;
            let router = if *side == Side::Server {
                &router_server
            } else {
                &router_client
            };
            init_cmds.push(format!(
                "link add name eth0 netns {ns} type veth peer name v{i} netns {router}"
            ));
            let o = side_octet(*side);
            topo.hosts.push(HostNode {
                name: name.clone(),
                side: *side,
                ns,
                addr: Ipv4Addr::new(10, o, *k, 2),
            });
            *k += 1;
        }
        netns::ip_batch(None, &init_cmds)?;
        let mut router_cmds: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        for (i, h) in topo.hosts.iter().enumerate() {
            let o = side_octet(h.side);
            let k = h.addr.octets()[2];
            netns::ip_batch(
                Some(&h.ns),
                &[
                    format!("addr add 10.{o}.{k}.2/24 dev eth0"),
                    "link set eth0 up".into(),
                    format!("route add default via 10.{o}.{k}.1"),
                ],
            )?;
            router_cmds[o as usize - 1].extend([
                format!("addr add 10.{o}.{k}.1/24 dev v{i}"),
                format!("link set v{i} up"),
            ]);
            for (ns, dev) in [
                (h.ns.clone(), "eth0".to_string()),
                (
                    (if h.side == Side::Server {
                        &router_server
                    } else {
                        &router_client
                    })
                    .clone(),
                    format!("v{i}"),
                ),
            ] {
                offloads_off(&ns, &dev)?;
            }
        }
        // TUN devices are created by opening /dev/net/tun inside each router's namespace
        // (notes §2.2: the fd stays bound to the namespace it was opened in).
        let tun = |ns: &str, dev: &'static str| {
            let what = format!("cannot create TUN device {dev} in {ns}");
            netns::run_in(ns, move || {
                sys::open_tun(dev).map_err(|e| TestbedError::io(what, e))
            })
        };
        let tun_s = tun(&router_server, "tunS")?;
        let tun_c = tun(&router_client, "tunC")?;
        topo.tuns = Some((tun_s, tun_c));
        router_cmds[0].extend([
            "link set tunS mtu 1500 txqueuelen 1000 up".to_string(),
            "route add 10.2.0.0/16 dev tunS".to_string(),
        ]);
        router_cmds[1].extend([
            "link set tunC mtu 1500 txqueuelen 1000 up".to_string(),
            "route add 10.1.0.0/16 dev tunC".to_string(),
        ]);
        netns::ip_batch(Some(&router_server), &router_cmds[0])?;
        netns::ip_batch(Some(&router_client), &router_cmds[1])?;
        Ok(topo)
    }

    pub fn host(&self, name: &str) -> Option<&HostNode> {
        self.hosts.iter().find(|h| h.name == name)
    }

    /// Tears everything down now (also done on drop): TUN fds closed, namespaces deleted.
    pub fn teardown(&mut self) -> Result<(), TestbedError> {
        self.tuns = None;
        self.namespaces.delete_all()
    }
}

const ETHTOOL_INSTALL: &str = "apt-get install -y ethtool";

fn offloads_off(ns: &str, dev: &str) -> Result<(), TestbedError> {
    let out = std::process::Command::new("ip")
        .args([
            "netns", "exec", ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off",
        ])
        .output()
        .map_err(|source| TestbedError::Spawn {
            program: "ethtool",
            install: ETHTOOL_INSTALL,
            source,
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(TestbedError::Command {
            command: format!("ethtool -K {dev} tso off gso off gro off in {ns}"),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}
