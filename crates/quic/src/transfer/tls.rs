//! TLS 1.3 for the transfer (docs/transfer.md, "Security"): the receiver's self-signed
//! certificate (rcgen), kept in `DIR/.scavenger/` so that its fingerprint stays the same
//! across restarts; the sender's verifier, which checks the handshake signature (the
//! receiver holds the key) but leaves the identity check to the caller, who compares
//! the SHA-256 fingerprint of the certificate with a pin or a trust-on-first-use record
//! before sending the token.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use super::protocol::{hex, sha256, Hash};
use super::TransferError;

/// The name in the receiver's certificate and the one the sender asks for.
pub const SERVER_NAME: &str = "scavenger-receiver";

/// A certificate's fingerprint as printed: 64 lowercase hex digits of SHA-256(DER).
pub fn fingerprint(cert_der: &[u8]) -> String {
    hex(&sha256(cert_der))
}

/// Parses a fingerprint as the user may paste it: hex with or without `:` and a
/// `sha256:` prefix.
pub fn parse_fingerprint(s: &str) -> Result<Hash, TransferError> {
    let t: String = s
        .trim()
        .trim_start_matches("sha256:")
        .chars()
        .filter(|c| *c != ':')
        .collect();
    let bad = || TransferError::BadOption {
        field: "--fingerprint",
        value: s.to_string(),
        allowed: "64 hex digits (SHA-256 of the receiver's certificate)",
    };
    if t.len() != 64 || !t.is_ascii() {
        return Err(bad());
    }
    let mut h = [0u8; 32];
    for (i, b) in h.iter_mut().enumerate() {
        *b = u8::from_str_radix(&t[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(h)
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> TransferError {
    move |source| TransferError::Io { what, source }
}

/// Writes `data` to `path` atomically (temp + rename), readable by the owner only.
fn write_private(path: &Path, data: &[u8]) -> Result<(), TransferError> {
    let tmp = path.with_extension("tmp");
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io(format!("create {}", tmp.display())))?;
    f.write_all(data)
        .and_then(|_| f.sync_all())
        .map_err(io(format!("write {}", tmp.display())))?;
    fs::rename(&tmp, path).map_err(io(format!("rename {}", tmp.display())))
}

/// The receiver's certificate and key from `state_dir`, made on first use.
pub fn receiver_identity(
    state_dir: &Path,
) -> Result<(CertificateDer<'static>, PrivateKeyDer<'static>), TransferError> {
    let cert_path = state_dir.join("receiver-cert.der");
    let key_path = state_dir.join("receiver-key.der");
    if !cert_path.exists() || !key_path.exists() {
        fs::create_dir_all(state_dir).map_err(io(format!("create {}", state_dir.display())))?;
        let c = rcgen::generate_simple_self_signed(vec![SERVER_NAME.to_string()]).map_err(|e| {
            TransferError::Tls(format!("generating the receiver's certificate: {e}"))
        })?;
        write_private(&key_path, &c.key_pair.serialize_der())?;
        write_private(&cert_path, c.cert.der())?;
    }
    let cert = fs::read(&cert_path).map_err(io(format!("read {}", cert_path.display())))?;
    let key = fs::read(&key_path).map_err(io(format!("read {}", key_path.display())))?;
    Ok((
        CertificateDer::from(cert),
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key)),
    ))
}

/// Accepts any certificate whose holder signs the handshake (or, with a pin, only the
/// certificate of that SHA-256); there is no PKI. The identity is checked elsewhere or
/// by the pin: by the sender's fingerprint check after the handshake and before anything
/// secret is sent; in the simulator (`sim.rs`) there is no one to impersonate the
/// server; the census (`--insecure`, `--pin`) wants the server's congestion control, not
/// its identity. The one rustls verifier of the workspace (issue 16).
#[derive(Debug)]
pub struct AnyCertProvenKey {
    provider: Arc<CryptoProvider>,
    /// The signature schemes offered (the ClientHello's `signature_algorithms`).
    schemes: Vec<SignatureScheme>,
    /// The only certificate accepted, by SHA-256 of its DER; `None`: any.
    pin: Option<Hash>,
}

impl AnyCertProvenKey {
    /// Offers every scheme `provider` verifies.
    pub fn new(provider: Arc<CryptoProvider>) -> AnyCertProvenKey {
        let schemes = provider
            .signature_verification_algorithms
            .supported_schemes();
        AnyCertProvenKey {
            provider,
            schemes,
            pin: None,
        }
    }

    /// Accepts only the certificate whose SHA-256 is `sha256` (the census's `--pin`).
    pub fn pinned(self, sha256: Hash) -> AnyCertProvenKey {
        AnyCertProvenKey {
            pin: Some(sha256),
            ..self
        }
    }

    /// Offers only `schemes`: the simulator offers Ed25519 alone, so that its handshake
    /// has one length (`sim.rs`, "Determinism").
    pub fn offering(
        provider: Arc<CryptoProvider>,
        schemes: &[SignatureScheme],
    ) -> AnyCertProvenKey {
        AnyCertProvenKey {
            provider,
            schemes: schemes.to_vec(),
            pin: None,
        }
    }
}

impl ServerCertVerifier for AnyCertProvenKey {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.pin {
            Some(p) if p != sha256(end_entity) => Err(rustls::Error::General(format!(
                "the server's certificate has SHA-256 {}, not the pinned {}",
                fingerprint(end_entity),
                hex(&p)
            ))),
            _ => Ok(ServerCertVerified::assertion()),
        }
    }

    /// Reached only where the config offers TLS 1.2 (the census; the transfer and the
    /// simulator offer TLS 1.3 alone).
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.schemes.clone()
    }
}

/// ALPN of the TCP transport (`--transport tcp`); QUIC offers none.
pub const TCP_ALPN: &[u8] = b"scvx-tcp";

/// The sender's rustls configuration, shared by both transports: TLS 1.3 only, ring,
/// the handshake signature checked, the identity left to the fingerprint check.
fn rustls_client(alpn: Option<&[u8]>) -> Result<rustls::ClientConfig, TransferError> {
    let p = provider();
    let mut tls = rustls::ClientConfig::builder_with_provider(p.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| TransferError::Tls(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertProvenKey::new(p)))
        .with_no_client_auth();
    tls.alpn_protocols = alpn.map(|a| vec![a.to_vec()]).unwrap_or_default();
    Ok(tls)
}

/// The receiver's rustls configuration, shared by both transports.
fn rustls_server(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    alpn: Option<&[u8]>,
) -> Result<rustls::ServerConfig, TransferError> {
    let mut tls = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| TransferError::Tls(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .map_err(|e| TransferError::Tls(e.to_string()))?;
    tls.alpn_protocols = alpn.map(|a| vec![a.to_vec()]).unwrap_or_default();
    Ok(tls)
}

/// The sender's TLS 1.3 client configuration.
pub fn client_config() -> Result<quinn::crypto::rustls::QuicClientConfig, TransferError> {
    quinn::crypto::rustls::QuicClientConfig::try_from(rustls_client(None)?)
        .map_err(|e| TransferError::Tls(e.to_string()))
}

/// The receiver's TLS 1.3 server configuration.
pub fn server_config(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
) -> Result<quinn::crypto::rustls::QuicServerConfig, TransferError> {
    quinn::crypto::rustls::QuicServerConfig::try_from(rustls_server(cert, key, None)?)
        .map_err(|e| TransferError::Tls(e.to_string()))
}

/// The sender's TLS 1.3 connector over TCP: the same configuration, ALPN `scvx-tcp`.
pub fn tcp_connector() -> Result<tokio_rustls::TlsConnector, TransferError> {
    Ok(tokio_rustls::TlsConnector::from(Arc::new(rustls_client(
        Some(TCP_ALPN),
    )?)))
}

/// The receiver's TLS 1.3 acceptor over TCP: the same certificate, ALPN `scvx-tcp`.
pub fn tcp_acceptor(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
) -> Result<tokio_rustls::TlsAcceptor, TransferError> {
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(rustls_server(
        cert,
        key,
        Some(TCP_ALPN),
    )?)))
}

/// The fingerprint of the first certificate a peer presented.
pub fn peer_fingerprint(certs: Option<&[CertificateDer<'_>]>) -> Result<String, TransferError> {
    certs
        .and_then(|c| c.first())
        .map(|c| fingerprint(c))
        .ok_or_else(|| TransferError::Tls("the receiver presented no certificate".into()))
}

/// Trust on first use: `file` holds lines `ADDRESS FINGERPRINT`. Returns Ok(true) if the
/// address was new (and is now recorded), Ok(false) if it matched, and an error if the
/// receiver at that address now shows another certificate.
pub fn trust_on_first_use(file: &Path, address: &str, seen: &str) -> Result<bool, TransferError> {
    let text = match fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(format!("read {}", file.display()))(e)),
    };
    for line in text.lines() {
        let mut it = line.split_whitespace();
        if let (Some(a), Some(f)) = (it.next(), it.next()) {
            if a == address {
                return if f == seen {
                    Ok(false)
                } else {
                    Err(TransferError::FingerprintChanged {
                        address: address.to_string(),
                        known: f.to_string(),
                        seen: seen.to_string(),
                        file: file.to_path_buf(),
                    })
                };
            }
        }
    }
    if let Some(d) = file.parent() {
        fs::create_dir_all(d).map_err(io(format!("create {}", d.display())))?;
    }
    write_private(file, format!("{text}{address} {seen}\n").as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_parse_with_or_without_colons() {
        let h = [0xabu8; 32];
        let s = hex(&h);
        assert_eq!(parse_fingerprint(&s).unwrap(), h);
        let colons = h
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(":");
        assert_eq!(parse_fingerprint(&format!("sha256:{colons}")).unwrap(), h);
        let e = parse_fingerprint("abc").unwrap_err().to_string();
        assert!(
            e.contains("--fingerprint") && e.contains("abc") && e.contains("64 hex"),
            "{e}"
        );
    }

    /// The verifier takes any certificate, or with a pin only that one, and names both
    /// fingerprints when it refuses (the census's `--pin`).
    #[test]
    fn the_verifier_takes_any_certificate_or_only_the_pinned_one() {
        let c = rcgen::generate_simple_self_signed(vec!["census".into()]).unwrap();
        let der = c.cert.der();
        let name = ServerName::try_from("census").unwrap();
        let check =
            |v: &AnyCertProvenKey| v.verify_server_cert(der, &[], &name, &[], UnixTime::now());
        assert!(check(&AnyCertProvenKey::new(provider())).is_ok());
        let pinned = AnyCertProvenKey::new(provider()).pinned(sha256(der));
        assert!(check(&pinned).is_ok());
        let other = AnyCertProvenKey::new(provider()).pinned([0; 32]);
        let e = check(&other).unwrap_err().to_string();
        assert!(
            e.contains(&fingerprint(der)) && e.contains(&"00".repeat(32)),
            "{e}"
        );
        // Every scheme the provider verifies is offered (TLS 1.2 servers included).
        assert_eq!(
            AnyCertProvenKey::new(provider()).supported_verify_schemes(),
            provider()
                .signature_verification_algorithms
                .supported_schemes()
        );
    }
}
