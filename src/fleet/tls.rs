//! HTTPS for `submit` and `agent` in builds with the results server: rustls on ring (the
//! server's own TLS stack), trusting the system's root certificates as OpenSSL-based clients
//! find them (`rustls-native-certs`: the distribution's bundle, or the file `SSL_CERT_FILE`
//! and the directory `SSL_CERT_DIR` name, for a lab's own certificate authority). The roots are
//! loaded once per process.

use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use std::net::TcpStream;
use std::sync::{Arc, OnceLock};

/// The client configuration, built on first use; why it could not be, otherwise.
fn config() -> Result<Arc<ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let found = rustls_native_certs::load_native_certs();
            let mut roots = RootCertStore::empty();
            let (added, _) = roots.add_parsable_certificates(found.certs);
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
            let config = ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| e.to_string())?
                .with_root_certificates(roots)
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
    let name = rustls_pki_types::ServerName::try_from(host.to_string())
        .map_err(|e| format!("{host}: not a server name ({e})"))?;
    let conn = ClientConnection::new(config()?, name).map_err(|e| e.to_string())?;
    Ok(StreamOwned::new(conn, tcp))
}
