//! HTTPS for `submit` and `agent` in builds with the results server: rustls on ring (the
//! server's own TLS stack), trusting the system's root certificates as OpenSSL-based clients
//! find them (`rustls-native-certs`: the distribution's bundle, or the file `SSL_CERT_FILE`
//! and the directory `SSL_CERT_DIR` name, for a lab's own certificate authority). The roots are
//! loaded once per process.
//!
//! A server whose certificate is itself one of the trusted roots — a CA-style self-signed
//! certificate (`openssl req -x509` marks it CA:TRUE), trusted by pointing `SSL_CERT_FILE` at
//! it — is accepted as the anchor it is, for the names it carries (WebPKI alone refuses a CA
//! certificate as a server's own). A certificate refused for any reason is explained in a
//! sentence saying what to do ([`explain`]).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::{
    CertificateError, ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore,
    SignatureScheme, StreamOwned,
};
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
use std::net::TcpStream;
use std::sync::{Arc, OnceLock};

/// WebPKI's verification, and a trusted root presented as the server's own certificate.
#[derive(Debug)]
struct RootsAsServers {
    webpki: Arc<WebPkiServerVerifier>,
    roots: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
}

/// Whether `e` is WebPKI's refusal of a CA certificate in a server's place.
fn ca_as_server(e: &rustls::Error) -> bool {
    matches!(e, rustls::Error::InvalidCertificate(CertificateError::Other(o))
        if o.0.downcast_ref::<webpki::Error>() == Some(&webpki::Error::CaUsedAsEndEntity))
}

impl ServerCertVerifier for RootsAsServers {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .webpki
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(e) if ca_as_server(&e) && self.roots.iter().any(|r| r == end_entity) => {
                let cert = webpki::EndEntityCert::try_from(end_entity).map_err(|_| {
                    rustls::Error::InvalidCertificate(CertificateError::BadEncoding)
                })?;
                cert.verify_is_valid_for_subject_name(server_name)
                    .map_err(|_| {
                        rustls::Error::InvalidCertificate(CertificateError::NotValidForName)
                    })?;
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

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
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The client configuration, built on first use; why it could not be, otherwise.
fn config() -> Result<Arc<ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let found = rustls_native_certs::load_native_certs();
            let mut roots = RootCertStore::empty();
            let (added, _) = roots.add_parsable_certificates(found.certs.iter().cloned());
            if added == 0 {
                let why = found
                    .errors
                    .first()
                    .map_or("none found".to_string(), ToString::to_string);
                return Err(format!(
                    "no trusted root certificates ({why}); SSL_CERT_FILE can name a PEM bundle"
                ));
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                    .build()
                    .map_err(|e| e.to_string())?;
            let verifier = RootsAsServers {
                webpki,
                roots: found.certs,
                provider: provider.clone(),
            };
            let config = ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| e.to_string())?
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth();
            Ok(Arc::new(config))
        })
        .clone()
}

/// A TLS session over `tcp` with the server named `host` (a name or an IP address, which the
/// server's certificate must carry). The handshake happens on the first write.
pub fn stream(
    host: &str,
    tcp: TcpStream,
) -> Result<StreamOwned<ClientConnection, TcpStream>, String> {
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| format!("{host}: not a server name ({e})"))?;
    let conn = ClientConnection::new(config()?, name).map_err(|e| e.to_string())?;
    Ok(StreamOwned::new(conn, tcp))
}

/// A sentence for a TLS failure inside `e` (the server's certificate refused, and what to do),
/// or None when `e` is not one.
pub fn explain(e: &std::io::Error, host: &str) -> Option<String> {
    let tls = e.get_ref()?.downcast_ref::<rustls::Error>()?;
    let fix = format!(
        "`pocketbench serve --tls-self-signed {host}` makes one that works (then point SSL_CERT_FILE at it)"
    );
    let why = match tls {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer | CertificateError::BadSignature => {
                "the server's certificate is not signed by a certificate this machine trusts: \
                 point SSL_CERT_FILE at the server's certificate (or its authority's)"
                    .into()
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!("the server's certificate does not name {host}; {fix}")
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                "the server's certificate has expired; the server needs a renewed one".into()
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "the server's certificate is not valid yet (check both machines' clocks)".into()
            }
            CertificateError::Other(_) if ca_as_server(tls) => format!(
                "the server's certificate is a certificate authority's (CA:TRUE) that this \
                 machine does not trust as it is; point SSL_CERT_FILE at exactly that \
                 certificate, or give the server a certificate with CA:FALSE and {host} in its \
                 subjectAltName: {fix}"
            ),
            _ => format!("the server's certificate was refused ({c:?}); {fix}"),
        },
        other => format!("TLS failed: {other}"),
    };
    Some(why)
}
