//! The server's TLS (`serve --tls-cert FILE --tls-key FILE`): rustls with the ring provider,
//! the certificate chain and private key read from PEM files, and read again on SIGHUP (a
//! renewed certificate applies to new connections without a restart; a pair that no longer
//! loads is reported and the one in use kept).

use crate::error::{Error, Result};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The TLS configuration in use, and where it was read from.
#[derive(Clone)]
pub struct Reloadable {
    current: Arc<RwLock<Arc<rustls::ServerConfig>>>,
    cert: PathBuf,
    key: PathBuf,
}

/// A server configuration from the PEM files `cert` (the chain, leaf first) and `key`.
pub fn load(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>> {
    let bad = |flag: &str, p: &Path, e: &dyn std::fmt::Display| {
        Error::input(format!(
            "{flag} {}: {}",
            crate::limits::escape(&p.display().to_string()),
            crate::limits::one_line(&e.to_string())
        ))
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| bad("--tls-cert", cert, &e))?
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| bad("--tls-cert", cert, &e))?;
    if chain.is_empty() {
        return Err(bad("--tls-cert", cert, &"no certificate in it"));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| bad("--tls-key", key, &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::failed(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| {
            bad(
                "--tls-key",
                key,
                &format!("does not fit the certificate: {e}"),
            )
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

impl Reloadable {
    pub fn new(cert: &Path, key: &Path) -> Result<Reloadable> {
        Ok(Reloadable {
            current: Arc::new(RwLock::new(load(cert, key)?)),
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
        })
    }

    /// An acceptor with the configuration in use now.
    pub fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        let c = self.current.read().unwrap_or_else(|e| e.into_inner());
        tokio_rustls::TlsAcceptor::from(c.clone())
    }

    /// Read the files again; on failure the configuration in use stays.
    pub fn reload(&self) -> Result<()> {
        let fresh = load(&self.cert, &self.key)?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = fresh;
        Ok(())
    }

    /// Reload on every SIGHUP, saying so on standard error (a task on the current runtime).
    pub fn reload_on_sighup(&self) -> Result<()> {
        use tokio::signal::unix::{signal, SignalKind};
        let mut hup = signal(SignalKind::hangup())
            .map_err(|e| Error::failed(format!("listening for SIGHUP: {e}")))?;
        let me = self.clone();
        tokio::spawn(async move {
            while hup.recv().await.is_some() {
                match me.reload() {
                    Ok(()) => eprintln!(
                        "pocketbench serve: SIGHUP: TLS certificate {} reloaded",
                        me.cert.display()
                    ),
                    Err(e) => {
                        eprintln!("pocketbench serve: SIGHUP: {e}; the certificate in use is kept")
                    }
                }
            }
        });
        Ok(())
    }
}
