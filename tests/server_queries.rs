//! What the results server answers about stored results, on each back end: the models search
//! finds a model by any value its results ever carried (its first results' Android 13, eMMC and
//! ext4, not only its last); the rankings API takes the page's filters (`os=Android 13` ranks
//! only those results) and refuses unknown parameters with a 400 naming them; an out-of-range
//! figure is printed shortly (`1e308`); a model's first ten results are never split into
//! clusters (the 3σ rule cannot act before eleven) while eleven are; every answer carries
//! `nosniff`, `Referrer-Policy` and a Content-Security-Policy whose style hash is the page's own
//! style, and Chromium applies the pages under it without reporting a violation.
#![cfg(feature = "server")]

mod common;

use common::browser::{browse, require_chromium};
use common::server::{backends, post, storage_result, submission, Server};
use serde_json::{json, Value};
use std::io::{Read, Write};

/// A storage submission of `model` with the device's OS, storage model and file system.
fn device(model: &str, os: &str, disk: &str, fs: &str, mib_s: f64, n: usize) -> Value {
    let mut s = submission(model, disk, storage_result(mib_s, n));
    s["device"]["os"] = json!(os);
    s["device"]["storage"]["file_system"] = json!(fs);
    s
}

#[test]
fn search_filters_and_short_values() {
    for b in backends() {
        let s = Server::start(&b, &["--min-results", "1"]);
        let c = s.client(Some(&s.token("lab")));
        // Upgraded: first Android 13 on eMMC with ext4, then Android 14 on UFS with f2fs.
        let sent = [
            device("Upgraded", "Android 13", "eMMC 5.1", "ext4", 10.0, 1),
            device("Upgraded", "Android 14", "UFS 3.1", "f2fs", 30.0, 2),
            device("Other", "Android 14", "UFS 4.0", "f2fs", 50.0, 3),
        ];
        for d in &sent {
            assert_eq!(post(&c, "/api/v1/results", d).status, 201, "{}", b.name);
        }
        for (q, found) in [
            ("android%2013", &["Upgraded"][..]),
            ("emmc", &["Upgraded"]),
            ("EXT4", &["Upgraded"]),
            ("ufs", &["Other", "Upgraded"]),
            ("ufs%204", &["Other"]),
        ] {
            let page = String::from_utf8(c.get(&format!("/models?q={q}")).unwrap().body).unwrap();
            let shown: Vec<&str> = page
                .split("<tr class=\"model\" data-model=\"")
                .skip(1)
                .map(|r| r.split('"').next().unwrap())
                .collect();
            assert_eq!(shown, found, "{}: q={q}", b.name);
        }
        // The rankings API takes the page's filters: on Android 13 only Upgraded's 10.
        let r = s.get_json("/api/v1/rankings/seq-read?os=Android%2013");
        assert_eq!(r["filters"], json!({"os": "Android 13"}), "{}", b.name);
        assert_eq!(r["top"].as_array().unwrap().len(), 1);
        assert_eq!(
            (r["top"][0]["model"].as_str(), r["top"][0]["mean"].as_f64()),
            (Some("Upgraded"), Some(10.0))
        );
        let r = s.get_json("/api/v1/rankings/seq-read?fs=f2fs&min_results=1");
        assert_eq!(r["top"][0]["model"], "Other");
        assert_eq!(r["top"][1]["mean"], 30.0);
        // Unknown parameters: 400 naming each.
        let r = c
            .get("/api/v1/rankings/seq-read?os=x&filesystem=f2fs&sort=up")
            .unwrap();
        let e: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            (r.status, e["error"]["field"].as_str()),
            (400, Some("query"))
        );
        let m = e["error"]["message"].as_str().unwrap();
        assert!(
            m.contains(r#"unknown parameters "filesystem", "sort""#),
            "{m}"
        );
        // An out-of-range figure is named shortly.
        let mut huge = submission("Huge", "", storage_result(1.0, 9));
        huge["result"]["files"][0]["mib_s"]["mean"] = json!(1e308);
        let r = post(&c, "/api/v1/results", &huge);
        let e: Value = serde_json::from_slice(&r.body).unwrap();
        let m = e["error"]["message"].as_str().unwrap();
        assert!(m.starts_with("1e308 MiB/s is outside"), "{m}");
        assert!(m.len() < 100, "{m}");
    }
}

#[test]
fn no_clusters_before_the_three_sigma_rule_can_act() {
    for b in backends() {
        let s = Server::start(&b, &["--min-results", "1"]);
        let c = s.client(Some(&s.token("lab")));
        // Five results at 10 and five at 100: two clean groups, but only ten results.
        for n in 0..10 {
            let v = if n < 5 { 10.0 } else { 100.0 };
            assert_eq!(
                post(
                    &c,
                    "/api/v1/results",
                    &submission("Two", "", storage_result(v, n))
                )
                .status,
                201
            );
        }
        let clusters = |s: &Server| {
            s.get_json("/api/v1/devices/Two")["categories"][0]["clusters"]
                .as_array()
                .unwrap()
                .len()
        };
        assert_eq!(clusters(&s), 1, "{}", b.name);
        // The eleventh: from here the rule can act, and the two groups show.
        assert_eq!(
            post(
                &c,
                "/api/v1/results",
                &submission("Two", "", storage_result(100.0, 10))
            )
            .status,
            201
        );
        assert_eq!(clusters(&s), 2, "{}", b.name);
    }
}

/// The head of the answer to `GET path` (lower-cased) and its body.
fn get_raw(s: &Server, path: &str) -> (String, String) {
    let mut t = std::net::TcpStream::connect(s.url.strip_prefix("http://").unwrap()).unwrap();
    write!(
        t,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    t.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.to_ascii_lowercase(), body.to_string())
}

#[test]
fn pages_and_answers_carry_protective_headers_that_the_pages_satisfy() {
    use base64::Engine as _;
    use sha2::Digest as _;
    let exe = require_chromium();
    let b = backends().remove(0);
    let s = Server::start(&b, &["--min-results", "1"]);
    let c = s.client(Some(&s.token("lab")));
    assert_eq!(
        post(
            &c,
            "/api/v1/results",
            &submission("Pixel 7", "", storage_result(5.0, 1))
        )
        .status,
        201
    );
    for path in [
        "/",
        "/rankings/seq-read",
        "/devices/Pixel%207",
        "/models",
        "/healthz",
        "/api/v1/results/1",
    ] {
        let (head, body) = get_raw(&s, path);
        assert!(
            head.contains("x-content-type-options: nosniff"),
            "{path}: {head}"
        );
        assert!(
            head.contains("referrer-policy: no-referrer"),
            "{path}: {head}"
        );
        let csp = head
            .lines()
            .find_map(|l| l.strip_prefix("content-security-policy: "))
            .unwrap();
        assert!(
            csp.contains("default-src 'none'") && !csp.contains("unsafe-inline"),
            "{csp}"
        );
        if body.contains("<style>") {
            // The one inline style is the one the policy names.
            let style = body
                .split("<style>")
                .nth(1)
                .unwrap()
                .split("</style>")
                .next()
                .unwrap();
            let hash =
                base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(style));
            assert!(
                csp.contains(&format!("style-src 'sha256-{}'", hash.to_ascii_lowercase())),
                "{path}: {csp}"
            );
            // Chromium builds the page under the policy without reporting a violation.
            let profile = tempfile::tempdir().unwrap();
            let out = browse(
                &exe,
                profile.path(),
                &["--dump-dom", &format!("{}{path}", s.url)],
            );
            let log = String::from_utf8_lossy(&out.stderr);
            assert!(!log.contains("Content Security Policy"), "{path}: {log}");
            assert!(String::from_utf8_lossy(&out.stdout).contains("</nav>"));
        }
    }
}
