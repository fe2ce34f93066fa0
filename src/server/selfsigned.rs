//! `serve --tls-self-signed HOST…`: a proper server certificate made on the spot with rcgen — not
//! a certificate authority (CA:FALSE), for server authentication, naming every HOST as a
//! subjectAltName (an IP address as an address, anything else as a DNS name) — kept with its
//! key in a directory so that clients that trust it keep trusting it across restarts. The
//! certificate file's first line records the hosts it was made for; asked for other hosts, a
//! new pair replaces it.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The files in `--tls-dir`.
pub const CERT_FILE: &str = "pocketbench-tls-cert.pem";
pub const KEY_FILE: &str = "pocketbench-tls-key.pem";

/// The first line of a certificate file made for `hosts`.
fn stamp(hosts: &[String]) -> String {
    format!(
        "# pocketbench serve --tls-self-signed {}\n",
        hosts.join(" ")
    )
}

/// This year, by the system clock.
fn this_year() -> i32 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    1970 + (secs / 31_556_952) as i32
}

/// A certificate (PEM, after its stamp) and key (PEM) for `hosts`.
fn make(hosts: &[String]) -> std::result::Result<(String, String), rcgen::Error> {
    let mut p = rcgen::CertificateParams::new(hosts.to_vec())?;
    p.is_ca = rcgen::IsCa::ExplicitNoCa;
    p.distinguished_name = rcgen::DistinguishedName::new();
    p.distinguished_name
        .push(rcgen::DnType::CommonName, hosts[0].as_str());
    p.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
    p.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let year = this_year();
    p.not_before = rcgen::date_time_ymd(year - 1, 1, 1);
    p.not_after = rcgen::date_time_ymd(year + 10, 1, 1);
    let key = rcgen::KeyPair::generate()?;
    let cert = p.self_signed(&key)?;
    Ok((stamp(hosts) + &cert.pem(), key.serialize_pem()))
}

/// The certificate and key for `hosts` in `dir`, made now unless the ones there were made for
/// the same hosts; prints which, and how clients trust it.
pub fn ensure(hosts: &[String], dir: &Path) -> Result<(PathBuf, PathBuf)> {
    for h in hosts {
        if h.is_empty() || h.len() > 253 || h.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(Error::input(format!(
                "--tls-self-signed {}: expected a host name or an IP address",
                crate::limits::escape(h)
            )));
        }
    }
    let (cert, key) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
    let flag = |p: &Path, e: &dyn std::fmt::Display| {
        Error::input(format!(
            "--tls-dir {}: {e}",
            crate::limits::escape(&p.display().to_string())
        ))
    };
    let kept =
        std::fs::read_to_string(&cert).is_ok_and(|t| t.starts_with(&stamp(hosts))) && key.exists();
    if !kept {
        let (c, k) = make(hosts).map_err(|e| {
            Error::input(format!(
                "--tls-self-signed {}: {e}",
                crate::limits::escape(&hosts.join(" "))
            ))
        })?;
        std::fs::create_dir_all(dir).map_err(|e| flag(dir, &e))?;
        // The key first, readable by its owner only; then the certificate naming it.
        write_private(&key, k.as_bytes()).map_err(|e| flag(&key, &e))?;
        std::fs::write(&cert, c).map_err(|e| flag(&cert, &e))?;
    }
    println!(
        "TLS: self-signed certificate for {} in {} ({}); clients trust it with\n  SSL_CERT_FILE={} pocketbench submit --server https://{}:PORT …",
        hosts.join(", "),
        cert.display(),
        if kept { "kept from before" } else { "made now" },
        cert.display(),
        hosts[0]
    );
    Ok((cert, key))
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)
}
