//! What the census receiver speaks over its own TCP byte stream (sans-IO): plain HTTP/1.1,
//! or HTTP/1.1 inside TLS driven through rustls's `ClientConnection` (bytes in with
//! `read_tls`, records out with `write_tls`). The receiver counts the server's TCP
//! segments for the window trace either way; a session only says what to send and when
//! the request (not the TLS handshake) is on its way, so that the trace starts with the
//! response.

use super::receiver::{parse_head, HttpInfo};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection};
use scavenger_quic::transfer::tls::{self, AnyCertProvenKey};
use serde::Serialize;
use std::io::{Read, Write};
use std::sync::Arc;

/// Why a TLS session could not be set up or went wrong. The probe records its text.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no CA bundle for https:// (SSL_CERT_FILE unset, none of {}); give --insecure or --pin SHA256", CA_BUNDLES.join(", "))]
    NoCaBundle,
    #[error("pin = {text:?}: must be the SHA-256 of the server's certificate, 64 hex digits")]
    BadPin { text: String },
    #[error("TLS configuration: {0}")]
    Config(#[source] rustls::Error),
    #[error("cannot read the CA bundle {file}: {source}")]
    CaBundle {
        file: String,
        source: rustls::pki_types::pem::Error,
    },
    #[error("the CA bundle {file} holds no usable certificate")]
    EmptyCaBundle { file: String },
    #[error("{host}: not a TLS server name: {source}")]
    ServerName {
        host: String,
        source: rustls::pki_types::InvalidDnsNameError,
    },
    /// rustls refused the peer's records (an alert, a certificate not trusted).
    #[error("TLS: {0}")]
    Tls(#[from] rustls::Error),
    #[error("TLS: {0}")]
    Io(#[from] std::io::Error),
}

/// Bytes the session wants sent, and whether they carry the HTTP request.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Send {
    pub bytes: Vec<u8>,
    pub request: bool,
}

/// The application over the census's TCP stream.
pub trait Session: std::marker::Send {
    /// What to send once the TCP handshake is done.
    fn start(&mut self) -> Result<Send, SessionError>;
    /// In-order stream bytes from the server; what to send in reply (an error ends the
    /// probe, e.g. a TLS alert or a certificate that is not trusted).
    fn on_bytes(&mut self, bytes: &[u8]) -> Result<Send, SessionError>;
    /// The response's status line and length, once its head has arrived.
    fn http(&self) -> &HttpInfo;
    /// Whether the whole response (head and Content-Length bytes) has arrived.
    fn page_complete(&self) -> bool;
}

/// Headers longer than this are not parsed (the body is still counted).
const HEAD_MAX: usize = 32 << 10;

/// The response as HTTP/1.1 bytes: the head is parsed, the body only counted.
#[derive(Debug, Default)]
struct Response {
    head: Vec<u8>,
    http: HttpInfo,
    bytes: u64,
}

impl Response {
    fn feed(&mut self, bytes: &[u8]) {
        if self.http.header_bytes.is_none() && self.head.len() < HEAD_MAX {
            let take = bytes.len().min(HEAD_MAX - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            if let Some(i) = self.head.windows(4).position(|w| w == b"\r\n\r\n") {
                self.http = parse_head(&self.head[..i + 4]);
            }
        }
        self.bytes += bytes.len() as u64;
    }

    fn complete(&self) -> bool {
        match (self.http.header_bytes, self.http.content_length) {
            (Some(h), Some(c)) => self.bytes >= h + c,
            _ => false,
        }
    }
}

/// HTTP/1.1 on plain TCP: the request goes with the handshake's ACK.
pub struct PlainHttp {
    request: Vec<u8>,
    response: Response,
}

impl PlainHttp {
    pub fn new(request: Vec<u8>) -> PlainHttp {
        PlainHttp {
            request,
            response: Response::default(),
        }
    }
}

impl Session for PlainHttp {
    fn start(&mut self) -> Result<Send, SessionError> {
        Ok(Send {
            bytes: std::mem::take(&mut self.request),
            request: true,
        })
    }
    fn on_bytes(&mut self, bytes: &[u8]) -> Result<Send, SessionError> {
        self.response.feed(bytes);
        Ok(Send::default())
    }
    fn http(&self) -> &HttpInfo {
        &self.response.http
    }
    fn page_complete(&self) -> bool {
        self.response.complete()
    }
}

/// Which server certificates the census accepts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Trust {
    /// The system's CA bundle (a PEM file of roots) and the URL's host name.
    Roots { file: String },
    /// Any certificate (`--insecure`): the handshake's signature is still checked, so the
    /// peer holds the key of the certificate it shows, but not who it is. The census
    /// reads only the response's status and length and sends nothing secret.
    Insecure,
    /// Exactly the certificate whose SHA-256 is this (64 hex digits; `--pin`).
    Pinned { sha256: String },
}

/// Where the system's CA bundle usually is (SSL_CERT_FILE first).
const CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
];

impl Trust {
    /// The system's roots: `SSL_CERT_FILE`, else the first CA bundle that exists.
    pub fn system() -> Result<Trust, SessionError> {
        let env = std::env::var("SSL_CERT_FILE").ok();
        env.iter()
            .map(String::as_str)
            .chain(CA_BUNDLES.iter().copied())
            .find(|p| std::path::Path::new(p).is_file())
            .map(|f| Trust::Roots { file: f.into() })
            .ok_or(SessionError::NoCaBundle)
    }
}

/// SHA-256 of a certificate, as 64 lowercase hex digits (what `--pin` takes).
pub use scavenger_quic::transfer::tls::fingerprint;

/// Parses a `--pin` value: 64 hex digits, with or without `:` and a `sha256:` prefix.
pub fn parse_pin(s: &str) -> Result<String, SessionError> {
    let t: String = s
        .trim()
        .trim_start_matches("sha256:")
        .chars()
        .filter(|c| *c != ':')
        .collect::<String>()
        .to_ascii_lowercase();
    if t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(t)
    } else {
        Err(SessionError::BadPin {
            text: s.to_string(),
        })
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The client configuration for `trust` (TLS 1.2 and 1.3, ALPN http/1.1).
pub fn client_config(trust: &Trust) -> Result<Arc<ClientConfig>, SessionError> {
    let p = provider();
    let b = ClientConfig::builder_with_provider(p.clone())
        .with_safe_default_protocol_versions()
        .map_err(SessionError::Config)?;
    let mut c = match trust {
        Trust::Roots { file } => {
            use rustls::pki_types::pem::PemObject;
            let mut roots = rustls::RootCertStore::empty();
            let certs = CertificateDer::pem_file_iter(file)
                .map_err(|source| SessionError::CaBundle {
                    file: file.clone(),
                    source,
                })?
                .filter_map(Result::ok);
            let (ok, _) = roots.add_parsable_certificates(certs);
            if ok == 0 {
                return Err(SessionError::EmptyCaBundle { file: file.clone() });
            }
            b.with_root_certificates(roots).with_no_client_auth()
        }
        Trust::Insecure | Trust::Pinned { .. } => b
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(match trust {
                Trust::Pinned { sha256 } => AnyCertProvenKey::new(p).pinned(
                    tls::parse_fingerprint(sha256).map_err(|_| SessionError::BadPin {
                        text: sha256.clone(),
                    })?,
                ),
                _ => AnyCertProvenKey::new(p),
            }))
            .with_no_client_auth(),
    };
    c.alpn_protocols = vec![b"http/1.1".to_vec()];
    // No session resumption: every probe is a full handshake, like the first visit.
    c.resumption = rustls::client::Resumption::disabled();
    Ok(Arc::new(c))
}

/// HTTP/1.1 inside TLS: the ClientHello goes with the handshake's ACK, the request with
/// the client's Finished once the server's handshake flight is in.
pub struct TlsHttp {
    conn: ClientConnection,
    request: Option<Vec<u8>>,
    response: Response,
}

impl TlsHttp {
    pub fn new(
        config: Arc<ClientConfig>,
        host: &str,
        request: Vec<u8>,
    ) -> Result<TlsHttp, SessionError> {
        let name =
            ServerName::try_from(host.to_string()).map_err(|source| SessionError::ServerName {
                host: host.to_string(),
                source,
            })?;
        let conn = ClientConnection::new(config, name)?;
        Ok(TlsHttp {
            conn,
            request: Some(request),
            response: Response::default(),
        })
    }

    /// Records rustls wants to send, and whether the request went in with them.
    fn outgoing(&mut self) -> Result<Send, SessionError> {
        let mut request = false;
        if !self.conn.is_handshaking() {
            if let Some(r) = self.request.take() {
                self.conn.writer().write_all(&r)?;
                request = true;
            }
        }
        let mut bytes = Vec::new();
        while self.conn.wants_write() {
            self.conn.write_tls(&mut bytes)?;
        }
        Ok(Send { bytes, request })
    }
}

impl Session for TlsHttp {
    fn start(&mut self) -> Result<Send, SessionError> {
        self.outgoing()
    }

    fn on_bytes(&mut self, mut bytes: &[u8]) -> Result<Send, SessionError> {
        let mut plain = [0u8; 16 << 10];
        while !bytes.is_empty() {
            self.conn.read_tls(&mut bytes)?;
            let state = self.conn.process_new_packets()?;
            let mut left = state.plaintext_bytes_to_read();
            while left > 0 {
                let n = self.conn.reader().read(&mut plain[..left.min(16 << 10)])?;
                if n == 0 {
                    break;
                }
                self.response.feed(&plain[..n]);
                left -= n;
            }
        }
        self.outgoing()
    }

    fn http(&self) -> &HttpInfo {
        &self.response.http
    }

    fn page_complete(&self) -> bool {
        self.response.complete()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    use rustls::{ServerConfig, ServerConnection};

    fn server(cert: &rcgen::CertifiedKey) -> ServerConnection {
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_pair.serialize_der()));
        let cfg = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert.cert.der().clone()], key)
            .unwrap();
        ServerConnection::new(Arc::new(cfg)).unwrap()
    }

    fn flush(s: &mut ServerConnection) -> Vec<u8> {
        let mut out = Vec::new();
        while s.wants_write() {
            s.write_tls(&mut out).unwrap();
        }
        out
    }

    fn feed(s: &mut ServerConnection, mut b: &[u8]) -> Vec<u8> {
        while !b.is_empty() {
            s.read_tls(&mut b).unwrap();
            s.process_new_packets().unwrap();
        }
        let mut got = Vec::new();
        let _ = s.reader().read_to_end(&mut got);
        got
    }

    /// A whole exchange in memory, the server's bytes delivered one small "segment" at a
    /// time as the receiver would: the request leaves with the client's Finished, and
    /// the page is counted from the plaintext.
    #[test]
    fn https_request_and_response_in_memory_with_a_pinned_certificate() {
        let cert = rcgen::generate_simple_self_signed(vec!["census".into()]).unwrap();
        let pin = fingerprint(cert.cert.der());
        let cfg = client_config(&Trust::Pinned { sha256: pin }).unwrap();
        let mut c = TlsHttp::new(cfg, "10.1.0.2", b"GET / HTTP/1.1\r\n\r\n".to_vec()).unwrap();
        let mut s = server(&cert);
        let hello = c.start().unwrap();
        assert!(!hello.request && !hello.bytes.is_empty());
        assert!(feed(&mut s, &hello.bytes).is_empty());
        let flight = flush(&mut s);
        let mut fin = Send::default();
        for chunk in flight.chunks(200) {
            let o = c.on_bytes(chunk).unwrap();
            fin.bytes.extend(o.bytes);
            fin.request |= o.request;
        }
        assert!(fin.request, "the request goes with the client's Finished");
        assert_eq!(feed(&mut s, &fin.bytes), b"GET / HTTP/1.1\r\n\r\n");
        let page = b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n";
        s.writer().write_all(page).unwrap();
        s.writer().write_all(&[b'x'; 4000]).unwrap();
        for chunk in flush(&mut s).chunks(200) {
            c.on_bytes(chunk).unwrap();
        }
        assert_eq!(c.http().status, Some(200));
        assert_eq!(c.http().content_length, Some(5000));
        assert!(!c.page_complete());
        s.writer().write_all(&[b'x'; 1000]).unwrap();
        c.on_bytes(&flush(&mut s)).unwrap();
        assert!(c.page_complete());
    }

    #[test]
    fn a_certificate_other_than_the_pinned_one_is_refused() {
        let cert = rcgen::generate_simple_self_signed(vec!["census".into()]).unwrap();
        let cfg = client_config(&Trust::Pinned {
            sha256: "00".repeat(32),
        })
        .unwrap();
        let mut c = TlsHttp::new(cfg, "census", b"GET /\r\n\r\n".to_vec()).unwrap();
        let mut s = server(&cert);
        feed(&mut s, &c.start().unwrap().bytes);
        let e = c.on_bytes(&flush(&mut s)).unwrap_err().to_string();
        assert!(e.contains("not the pinned 0000"), "{e}");
    }

    #[test]
    fn pins_parse_with_colons_and_prefix() {
        let h = "ab".repeat(32);
        assert_eq!(parse_pin(&h).unwrap(), h);
        let colons = vec!["AB"; 32].join(":");
        assert_eq!(parse_pin(&format!("sha256:{colons}")).unwrap(), h);
        assert!(parse_pin("abc")
            .unwrap_err()
            .to_string()
            .starts_with("pin = \"abc\""));
    }
}
