//! The results server speaks TLS itself: with `--tls-cert`/`--tls-key` (a self-signed pair
//! made here) it answers HTTPS with that certificate, and after the files are replaced and the
//! process gets SIGHUP, new connections get the new certificate; without TLS on an address that
//! is not loopback, `serve` warns that tokens would travel in clear; `submit` reaches it over
//! HTTPS when the certificate is trusted (the bundle `SSL_CERT_FILE` names) and the run is
//! stored there, and refuses it, storing nothing, when the certificate is not trusted.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, Server};
use common::{arg, pb_with, BIN};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// A self-signed certificate for localhost: (its DER, certificate PEM, key PEM).
fn self_signed() -> (Vec<u8>, String, String) {
    let c = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    (
        c.cert.der().to_vec(),
        c.cert.pem(),
        c.key_pair.serialize_pem(),
    )
}

/// GET /healthz over TLS trusting `roots`: the answer's text and the certificate the server
/// showed.
fn https_health(addr: &str, roots: &[Vec<u8>]) -> (String, Vec<u8>) {
    let mut store = rustls::RootCertStore::empty();
    for r in roots {
        store
            .add(rustls_pki_types::CertificateDer::from(r.clone()))
            .unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(store)
        .with_no_client_auth();
    let name = rustls_pki_types::ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, TcpStream::connect(addr).unwrap());
    tls.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = Vec::new();
    // The server may close without a TLS close_notify: what arrived is the answer.
    let _ = tls.read_to_end(&mut answer);
    let shown = tls.conn.peer_certificates().unwrap()[0].to_vec();
    (String::from_utf8_lossy(&answer).to_string(), shown)
}

#[test]
fn https_with_the_given_certificate_and_a_new_one_after_sighup() {
    let dir = tempfile::tempdir().unwrap();
    let (cert_file, key_file) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let (first, cert, key) = self_signed();
    std::fs::write(&cert_file, cert).unwrap();
    std::fs::write(&key_file, key).unwrap();
    let b = backends().remove(0);
    let s = Server::start(
        &b,
        &[
            "--tls-cert",
            cert_file.to_str().unwrap(),
            "--tls-key",
            key_file.to_str().unwrap(),
        ],
    );
    let addr = s.url.strip_prefix("https://").expect("an https:// URL");
    let (answer, shown) = https_health(addr, std::slice::from_ref(&first));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"status\": \"ok\""), "{answer}");
    assert_eq!(shown, first);
    // Plain HTTP on the TLS port gets no answer.
    let mut plain = TcpStream::connect(addr).unwrap();
    plain
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut got = Vec::new();
    let _ = plain.read_to_end(&mut got);
    assert!(!got.starts_with(b"HTTP/1.1 200"));
    // A renewed pair, then SIGHUP: new connections get it (the signal is handled as it
    // arrives, so the first connections may still see the old one).
    let (second, cert, key) = self_signed();
    std::fs::write(&cert_file, cert).unwrap();
    std::fs::write(&key_file, key).unwrap();
    assert_eq!(unsafe { libc::kill(s.pid() as i32, libc::SIGHUP) }, 0);
    let roots = [first.clone(), second.clone()];
    let renewed = (0..10_000).any(|_| https_health(addr, &roots).1 == second);
    assert!(renewed, "the renewed certificate was never shown");
    let (answer, shown) = https_health(addr, &roots);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(shown, second);
}

#[test]
fn submit_over_https_trusting_the_servers_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let (cert_file, key_file) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let (der, cert, key) = self_signed();
    std::fs::write(&cert_file, &cert).unwrap();
    std::fs::write(&key_file, key).unwrap();
    let b = backends().remove(0);
    let s = Server::start(
        &b,
        &["--tls-cert", arg(&cert_file), "--tls-key", arg(&key_file)],
    );
    let token = s.token("phone");
    let addr = s.url.strip_prefix("https://").unwrap();
    // The results the server holds, from its health answer.
    let stored = || {
        let (answer, _) = https_health(addr, std::slice::from_ref(&der));
        let body = &answer[answer.find('{').unwrap()..=answer.rfind('}').unwrap()];
        serde_json::from_str::<serde_json::Value>(body).unwrap()["results"].clone()
    };
    // The certificate names localhost, so the URL does too.
    let port = s.url.rsplit_once(':').unwrap().1;
    let url = format!("https://localhost:{port}");
    let (_sb, results) = common::server::one_stored_run();
    let submit = |trusted: &std::path::Path| {
        let args = ["submit", "--server", &url, "--token", &token, "--json"];
        let args = args.into_iter().chain(["--results", arg(&results), "1"]);
        pb_with(args, |c| {
            c.env("SSL_CERT_FILE", trusted).env_remove("SSL_CERT_DIR");
        })
    };
    // A bundle without the server's certificate: the handshake fails, nothing is stored.
    let other = dir.path().join("other.pem");
    std::fs::write(&other, self_signed().1).unwrap();
    let refused = submit(&other).expect_code(1);
    assert!(
        refused.stderr.contains("--server https://localhost")
            && refused.stderr.contains("certificate"),
        "{}",
        refused.stderr
    );
    assert_eq!(stored(), 0);
    // Trusted: the run is stored on the server.
    let out = submit(&cert_file).expect_ok().json();
    assert_eq!(out[0]["created"], true, "{out}");
    assert_eq!(stored(), 1);
}

#[test]
fn plain_http_on_a_public_address_warns_that_tokens_travel_in_clear() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--listen",
            "0.0.0.0:0",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.contains("warning") && line.contains("travel in clear"),
        "{line}"
    );
}

#[test]
fn a_missing_or_unreadable_certificate_is_bad_input_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate").unwrap();
    for (cert, key) in [
        (dir.path().join("missing.pem"), junk.clone()),
        (junk.clone(), junk.clone()),
    ] {
        let out = Command::new(BIN)
            .args([
                "serve",
                "--db",
                db.to_str().unwrap(),
                "--listen",
                "127.0.0.1:0",
            ])
            .arg("--tls-cert")
            .arg(&cert)
            .arg("--tls-key")
            .arg(&key)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("--tls-cert"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!db.exists());
    }
}
