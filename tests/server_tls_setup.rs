//! TLS that people can set up: `serve --tls-self-signed localhost 127.0.0.1` makes a server
//! certificate (CA:FALSE, both hosts as subjectAltNames, for TLS server authentication, as
//! OpenSSL reads it back), keeps it for the next start, and `submit` trusting the printed file
//! stores a run by name and by address; a CA-style self-signed certificate as `openssl req
//! -x509` makes it (CA:TRUE) is accepted by `submit` when `SSL_CERT_FILE` names exactly it, and
//! when it is not trusted, or names another host, `submit` says so in a sentence — never a
//! debug dump of the TLS library's error.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, one_stored_run, Server};
use common::{arg, pb_with};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Run `openssl` with `args`, which must succeed: its output.
fn openssl(args: &[&str]) -> String {
    let out = Command::new("openssl").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `openssl x509 -text` of a certificate file.
fn openssl_text(cert: &Path) -> String {
    openssl(&["x509", "-noout", "-text", "-in", arg(cert)])
}

/// A CA-style self-signed certificate for `host` in `dir` (OpenSSL's defaults for `req
/// -x509`): (certificate, key).
fn openssl_self_signed(dir: &Path, host: &str) -> (PathBuf, PathBuf) {
    let (cert, key) = (
        dir.join(format!("{host}.pem")),
        dir.join(format!("{host}.key")),
    );
    let (subject, san) = (format!("/CN={host}"), format!("subjectAltName=DNS:{host}"));
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "30",
        "-subj",
        &subject,
        "-addext",
        &san,
        "-keyout",
        arg(&key),
        "-out",
        arg(&cert),
    ]);
    (cert, key)
}

/// `submit` of result 1 of `results` to `url` trusting `bundle`.
fn submit(url: &str, token: &str, results: &Path, bundle: &Path) -> common::Outcome {
    let args = ["submit", "--server", url, "--token", token, "--json"];
    let args = args.into_iter().chain(["--results", arg(results), "1"]);
    pb_with(args, |c| {
        c.env("SSL_CERT_FILE", bundle).env_remove("SSL_CERT_DIR");
    })
}

#[test]
fn tls_self_signed_makes_a_server_certificate_that_submit_trusts() {
    let dir = tempfile::tempdir().unwrap();
    let b = backends().remove(0);
    let flags = [
        "--tls-self-signed",
        "localhost",
        "127.0.0.1",
        "--tls-dir",
        arg(dir.path()),
    ];
    let s = Server::start(&b, &flags);
    let cert = dir.path().join("pocketbench-tls-cert.pem");
    let text = openssl_text(&cert);
    assert!(text.contains("CA:FALSE"), "{text}");
    assert!(
        text.contains("DNS:localhost, IP Address:127.0.0.1"),
        "{text}"
    );
    assert!(text.contains("TLS Web Server Authentication"), "{text}");
    let token = s.token("phone");
    let port = s.url.rsplit_once(':').unwrap().1.to_string();
    let (_sb, results) = one_stored_run();
    let by_name = submit(
        &format!("https://localhost:{port}"),
        &token,
        &results,
        &cert,
    )
    .expect_ok()
    .json();
    assert_eq!(by_name[0]["created"], true, "{by_name}");
    let by_address = submit(
        &format!("https://127.0.0.1:{port}"),
        &token,
        &results,
        &cert,
    )
    .expect_ok()
    .json();
    assert_eq!(by_address[0]["created"], false, "{by_address}");
    // The next start for the same hosts keeps the certificate clients already trust.
    let before = std::fs::read(&cert).unwrap();
    drop(s);
    let _again = Server::start(&b, &flags);
    assert_eq!(std::fs::read(&cert).unwrap(), before);
}

#[test]
fn a_ca_style_self_signed_certificate_works_when_trusted_and_is_explained_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = openssl_self_signed(dir.path(), "localhost");
    assert!(openssl_text(&cert).contains("CA:TRUE"));
    let b = backends().remove(0);
    let s = Server::start(&b, &["--tls-cert", arg(&cert), "--tls-key", arg(&key)]);
    let token = s.token("phone");
    let port = s.url.rsplit_once(':').unwrap().1.to_string();
    let url = format!("https://localhost:{port}");
    let (_sb, results) = one_stored_run();
    // Another CA-style certificate trusted, not the server's: refused, in a sentence.
    let (other, _) = openssl_self_signed(dir.path(), "elsewhere");
    let refused = submit(&url, &token, &results, &other).expect_code(1);
    let err = refused.stderr;
    assert!(err.contains("certificate authority's (CA:TRUE)"), "{err}");
    assert!(err.contains("--tls-self-signed localhost"), "{err}");
    assert!(
        !err.contains("Other(") && !err.contains("CaUsedAsEndEntity"),
        "{err}"
    );
    // The server's own certificate trusted: stored.
    let out = submit(&url, &token, &results, &cert).expect_ok().json();
    assert_eq!(out[0]["created"], true, "{out}");
    // Trusted but for another name: the sentence says which.
    let wrong = submit(
        &format!("https://127.0.0.1:{port}"),
        &token,
        &results,
        &cert,
    )
    .expect_code(1)
    .stderr;
    assert!(wrong.contains("does not name 127.0.0.1"), "{wrong}");
    assert!(!wrong.contains("Other("), "{wrong}");
}
