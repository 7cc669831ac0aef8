//! The census receiver on a TUN device: the device's kernel routes the server's packets
//! to us (our address is on the far side of the device, so the kernel's own TCP never
//! sees them) and forwards ours. Also URLs and the HTTP request.

use super::receiver::{ProbeConfig, ProbeError, ProbeOutcome, Receiver};
use super::session::{self, PlainHttp, Session, TlsHttp, Trust};
use crate::error::TestbedError;
use crate::{netns, sys};
use std::net::{Ipv4Addr, ToSocketAddrs};
use std::os::fd::{AsFd, OwnedFd};
use std::time::Instant;

/// An http:// or https:// URL, resolved to an IPv4 address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub url: String,
    /// https://: HTTP/1.1 inside TLS.
    pub https: bool,
    pub host: String,
    pub addr: Ipv4Addr,
    pub port: u16,
    pub path: String,
}

/// A URL the census cannot probe; each names the URL.
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    #[error("{url}: the URL must start with http:// or https://")]
    NotHttp { url: String },
    #[error("{url}: port {port:?} is not a number 1..=65535")]
    BadPort { url: String, port: String },
    #[error("{url}: no host (or port 0)")]
    NoHost { url: String },
    #[error("{url}: cannot resolve {host}: {source}")]
    Resolve {
        url: String,
        host: String,
        source: std::io::Error,
    },
    #[error("{url}: {host} has no IPv4 address (the census speaks IPv4 only)")]
    NoIpv4 { url: String, host: String },
}

/// Parses `url` (http[s]://HOST[:PORT][/PATH]) and resolves HOST to IPv4.
pub fn parse_url(url: &str) -> Result<Target, UrlError> {
    let u = || url.to_string();
    let (https, rest) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
        (Some(r), _) => (false, r),
        (_, Some(r)) => (true, r),
        _ => return Err(UrlError::NotHttp { url: u() }),
    };
    let (hostport, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) => (
            h,
            p.parse::<u16>().map_err(|_| UrlError::BadPort {
                url: u(),
                port: p.to_string(),
            })?,
        ),
        None => (hostport, if https { 443 } else { 80 }),
    };
    if host.is_empty() || port == 0 {
        return Err(UrlError::NoHost { url: u() });
    }
    let addr = match host.parse::<Ipv4Addr>() {
        Ok(a) => a,
        Err(_) => (host, port)
            .to_socket_addrs()
            .map_err(|source| UrlError::Resolve {
                url: u(),
                host: host.to_string(),
                source,
            })?
            .find_map(|a| match a.ip() {
                std::net::IpAddr::V4(v4) => Some(v4),
                _ => None,
            })
            .ok_or_else(|| UrlError::NoIpv4 {
                url: u(),
                host: host.to_string(),
            })?,
    };
    Ok(Target {
        url: url.to_string(),
        https,
        host: host.to_string(),
        addr,
        port,
        path: path.to_string(),
    })
}

/// The HTTP/1.1 GET of `t` (RFC 9112 §3; identity encoding, so the bytes on the wire
/// are the page).
pub fn request(t: &Target) -> Vec<u8> {
    let default_port = if t.https { 443 } else { 80 };
    let host = if t.port == default_port {
        t.host.clone()
    } else {
        format!("{}:{}", t.host, t.port)
    };
    format!(
        "GET {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: scavenger-census/{}\r\nAccept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
        t.path,
        env!("CARGO_PKG_VERSION")
    )
    .into_bytes()
}

/// A TUN device for the receiver: the receiver's address `local` is behind it.
pub struct Tun {
    pub fd: OwnedFd,
    pub local: Ipv4Addr,
}

/// Creates TUN device `name` in namespace `ns` (or the current one) with address
/// `gw`/24 up; the receiver uses `local` in the same /24. Forwarding must be on there.
pub fn open_tun(
    ns: Option<&str>,
    name: &str,
    gw: Ipv4Addr,
    local: Ipv4Addr,
) -> Result<Tun, TestbedError> {
    let dev = name.to_string();
    let what = format!("cannot create TUN device {name}");
    let fd = match ns {
        Some(ns) => netns::run_in(ns, move || {
            sys::open_tun(&dev).map_err(|e| TestbedError::io(what, e))
        })?,
        None => sys::open_tun(&dev).map_err(|e| TestbedError::io(what, e))?,
    };
    netns::ip_batch(
        ns,
        &[
            format!("addr add {gw}/24 dev {name}"),
            format!("link set {name} up"),
        ],
    )?;
    Ok(Tun { fd, local })
}

/// What the probe of `target` speaks: plain HTTP, or HTTP inside TLS trusting what
/// `cfg.trust` says (the system's roots when it says nothing).
pub fn session(target: &Target, cfg: &ProbeConfig) -> Result<Box<dyn Session>, ProbeError> {
    if !target.https {
        return Ok(Box::new(PlainHttp::new(request(target))));
    }
    let trust = match &cfg.trust {
        Some(t) => t.clone(),
        None => Trust::system().map_err(|e| ProbeError::Tls(e.to_string()))?,
    };
    let c = session::client_config(&trust).map_err(|e| ProbeError::Tls(e.to_string()))?;
    Ok(Box::new(
        TlsHttp::new(c, &target.host, request(target))
            .map_err(|e| ProbeError::Tls(e.to_string()))?,
    ))
}

/// Runs one probe of `target` from `tun` until it ends (or a stop is requested).
pub fn run(
    tun: &Tun,
    target: &Target,
    cfg: &ProbeConfig,
    local_port: u16,
) -> Result<ProbeOutcome, ProbeError> {
    let app = session(target, cfg)?;
    let t0 = Instant::now();
    let now = || t0.elapsed().as_nanos() as u64;
    // Our ISS need not be unpredictable (RFC 9293 §3.4.1 guards against off-path
    // attackers of long-lived connections; a probe lives seconds): the port is enough.
    let iss = u32::from(local_port).wrapping_mul(2_654_435_761);
    let mut rx = Receiver::new(
        cfg.clone(),
        (tun.local, local_port),
        (target.addr, target.port),
        app,
        iss,
    );
    rx.start(now());
    let fd = tun.fd.as_fd();
    let mut buf = vec![0u8; 65536];
    loop {
        let t = now();
        while let Some(p) = rx.poll_transmit(t) {
            // A full device queue loses the packet, as a network would.
            let _ = sys::write_packet(fd, &p);
        }
        if rx.is_done() {
            break;
        }
        if netns::stop_requested() {
            rx.interrupt();
            continue;
        }
        let wait = rx
            .next_wakeup()
            .map_or(100_000_000, |w| w.saturating_sub(t))
            .min(100_000_000);
        let _ = sys::wait_readable([fd], wait);
        loop {
            match sys::read_nb(fd, &mut buf) {
                Ok(Some(n)) if n > 0 => rx.on_packet(now(), &buf[..n]),
                _ => break,
            }
        }
        rx.handle_timeout(now());
    }
    rx.finish_probe(now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse() {
        let t = parse_url("http://10.1.0.2:8001/bytes/100").unwrap();
        assert_eq!(
            (t.addr, t.port, t.path.as_str()),
            (Ipv4Addr::new(10, 1, 0, 2), 8001, "/bytes/100")
        );
        let t = parse_url("http://127.0.0.1").unwrap();
        assert_eq!((t.port, t.path.as_str()), (80, "/"));
        let e = |u: &str| parse_url(u).unwrap_err().to_string();
        let t = parse_url("https://10.1.0.2/x").unwrap();
        assert_eq!((t.https, t.port, t.path.as_str()), (true, 443, "/x"));
        assert!(!parse_url("http://10.1.0.2/").unwrap().https);
        assert_eq!(
            e("ftp://x"),
            "ftp://x: the URL must start with http:// or https://"
        );
        assert_eq!(
            e("http://h:99999/"),
            "http://h:99999/: port \"99999\" is not a number 1..=65535"
        );
        assert_eq!(e("http://:80/"), "http://:80/: no host (or port 0)");
    }

    #[test]
    fn the_request_is_http_1_1_with_host() {
        let t = parse_url("http://10.1.0.2:8001/x").unwrap();
        let r = String::from_utf8(request(&t)).unwrap();
        assert!(
            r.starts_with("GET /x HTTP/1.1\r\nHost: 10.1.0.2:8001\r\n"),
            "{r}"
        );
        assert!(r.ends_with("\r\n\r\n"));
    }
}
