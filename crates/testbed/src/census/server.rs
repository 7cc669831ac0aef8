//! A small HTTP/1.1 server for the census evaluation: it listens in a namespace with the
//! congestion control set on the listening socket (TCP_CONGESTION, inherited by every
//! accepted connection) and serves generated pages:
//!
//! - `GET /bytes/N`: N bytes;
//! - `GET /close-after/N`: announces 10·N bytes, sends N, then closes (a server that
//!   closes early);
//! - anything else: 404 with a short body.
//!
//! With a TLS configuration it serves the same over TLS (rustls on the accepted socket):
//! the census over https://.

use super::session::SessionError;
use crate::error::{InsideError, TestbedError};
use crate::netns;
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A running server; stop it with `stop` (also on drop) before its namespace goes.
pub struct HttpServer {
    stop: Arc<AtomicBool>,
    join: Option<JoinHandle<Result<(), TestbedError>>>,
    pub addr: Ipv4Addr,
    pub port: u16,
    pub cc: String,
    /// Whether it serves HTTPS.
    pub tls: bool,
    /// The congestion control each accepted connection reported (TCP_CONGESTION).
    pub seen_cc: Arc<Mutex<Vec<String>>>,
}

impl HttpServer {
    /// Starts a server on `addr:port` inside namespace `ns` with congestion control `cc`
    /// (the kernel's name: reno, cubic, bbr, …), over TLS with `tls`.
    pub fn start(
        ns: &str,
        addr: Ipv4Addr,
        port: u16,
        cc: &str,
        tls: Option<Arc<ServerConfig>>,
    ) -> Result<HttpServer, TestbedError> {
        let is_tls = tls.is_some();
        let stop = Arc::new(AtomicBool::new(false));
        let seen_cc = Arc::new(Mutex::new(Vec::new()));
        let (s, seen, cc_s) = (stop.clone(), seen_cc.clone(), cc.to_string());
        let join = netns::spawn_listening(
            ns,
            "scv-census-srv",
            move || {
                crate::sys::tcp_listen(addr, port, &cc_s).map_err(|source| {
                    TestbedError::from(InsideError::Listen {
                        addr,
                        port,
                        cc: cc_s.clone(),
                        source,
                    })
                })
            },
            move |l| serve(l, s, seen, tls),
            || InsideError::ServerNotStarted { addr, port }.into(),
        )?;
        Ok(HttpServer {
            stop,
            join: Some(join),
            addr,
            port,
            cc: cc.to_string(),
            tls: is_tls,
            seen_cc,
        })
    }

    /// Stops accepting, ends every connection and joins the threads.
    pub fn stop(&mut self) -> Result<(), TestbedError> {
        self.stop.store(true, Ordering::SeqCst);
        match self.join.take().map(|j| j.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(InsideError::ServerPanicked.into()),
            None => Ok(()),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

fn serve(
    l: TcpListener,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<String>>>,
    tls: Option<Arc<ServerConfig>>,
) -> Result<(), TestbedError> {
    let mut conns: Vec<JoinHandle<()>> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        match l.accept() {
            Ok((c, _)) => {
                if let Ok(cc) = crate::sys::tcp_congestion(&c) {
                    seen.lock().unwrap_or_else(|p| p.into_inner()).push(cc);
                }
                let s = stop.clone();
                let tls = tls.clone();
                conns.push(std::thread::spawn(move || {
                    let _ = match tls {
                        Some(cfg) => handle_tls(c, cfg, &s),
                        None => handle_plain(c, &s),
                    };
                }));
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(TestbedError::io("census server accept", e)),
        }
        conns.retain(|j| !j.is_finished());
    }
    for j in conns {
        let _ = j.join();
    }
    Ok(())
}

/// What a request path asks for: (announced length, bytes actually sent, status).
pub fn route(path: &str) -> (u64, u64, u16) {
    let num = |p: &str| p.parse::<u64>().ok();
    if let Some(n) = path.strip_prefix("/bytes/").and_then(num) {
        (n, n, 200)
    } else if let Some(n) = path.strip_prefix("/close-after/").and_then(num) {
        (n.saturating_mul(10), n, 200)
    } else {
        (10, 10, 404)
    }
}

/// A TLS configuration with a fresh self-signed certificate (rcgen, ECDSA P-256) for
/// the evaluation's HTTPS servers, and the certificate's SHA-256 for the census's pin.
pub fn self_signed() -> Result<(Arc<ServerConfig>, String), SessionError> {
    let c = rcgen::generate_simple_self_signed(vec!["scavenger-census".to_string()])
        .map_err(SessionError::Certificate)?;
    let pin = super::session::fingerprint(c.cert.der());
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(rustls::pki_types::PrivatePkcs8KeyDer::from(
        c.key_pair.serialize_der(),
    ));
    let cfg =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(SessionError::Config)?
            .with_no_client_auth()
            .with_single_cert(vec![c.cert.der().clone()], key)
            .map_err(SessionError::Config)?;
    Ok((Arc::new(cfg), pin))
}

/// Blocking with timeouts: reads wait up to 10 s, writes wake every 200 ms to look at
/// `stop`.
fn blocking(c: &TcpStream) -> std::io::Result<()> {
    c.set_nonblocking(false)?;
    c.set_read_timeout(Some(Duration::from_secs(10)))?;
    c.set_write_timeout(Some(Duration::from_millis(200)))
}

fn handle_plain(mut c: TcpStream, stop: &AtomicBool) -> std::io::Result<()> {
    blocking(&c)?;
    handle(&mut c, stop)?;
    c.shutdown(std::net::Shutdown::Write)
}

fn handle_tls(c: TcpStream, cfg: Arc<ServerConfig>, stop: &AtomicBool) -> std::io::Result<()> {
    blocking(&c)?;
    let conn = ServerConnection::new(cfg).map_err(std::io::Error::other)?;
    let mut s = StreamOwned::new(conn, c);
    handle(&mut s, stop)?;
    s.conn.send_close_notify();
    while s.conn.wants_write() {
        if stop.load(Ordering::SeqCst) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        match s.conn.write_tls(&mut s.sock) {
            Ok(_) => {}
            Err(e) if crate::sys::retry_later(&e) => {}
            Err(e) => return Err(e),
        }
    }
    s.sock.shutdown(std::net::Shutdown::Write)
}

/// Reads the request and writes the response (the caller closes).
fn handle<S: Read + Write>(c: &mut S, stop: &AtomicBool) -> std::io::Result<()> {
    let mut req = Vec::new();
    let mut b = [0u8; 2048];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = c.read(&mut b)?;
        if n == 0 || req.len() > 16 << 10 {
            return Ok(());
        }
        req.extend_from_slice(&b[..n]);
    }
    let line = String::from_utf8_lossy(&req);
    let path = line.split(' ').nth(1).unwrap_or("/").to_string();
    let (announced, send, status) = route(&path);
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Length: {announced}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
    );
    write_all(c, head.as_bytes(), stop)?;
    let chunk: Vec<u8> = b"scavenger census page\n"
        .iter()
        .copied()
        .cycle()
        .take(16 << 10)
        .collect();
    let mut left = send;
    while left > 0 && !stop.load(Ordering::SeqCst) {
        let n = left.min(chunk.len() as u64) as usize;
        write_all(c, &chunk[..n], stop)?;
        left -= n as u64;
    }
    // Over TLS, records still buffered go out here.
    loop {
        if stop.load(Ordering::SeqCst) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        match c.flush() {
            Ok(()) => return Ok(()),
            Err(e) if crate::sys::retry_later(&e) => {}
            Err(e) => return Err(e),
        }
    }
}

/// write_all that gives up when asked to stop (a blocked write wakes every 200 ms).
fn write_all<S: Write>(c: &mut S, mut buf: &[u8], stop: &AtomicBool) -> std::io::Result<()> {
    while !buf.is_empty() {
        if stop.load(Ordering::SeqCst) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        match c.write(buf) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e) if crate::sys::retry_later(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(route("/bytes/1000"), (1000, 1000, 200));
        assert_eq!(route("/close-after/100"), (1000, 100, 200));
        assert_eq!(route("/nope"), (10, 10, 404));
    }
}
