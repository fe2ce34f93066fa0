//! The results server against hostile values, on each back end alike: ranked figures that are
//! not finite numbers inside their category's range (1e308, 1.7e308, 0, −50, a string) are
//! refused with 400 naming the figure, and the device page still answers afterwards; a body
//! not declared JSON is refused with 415; a NUL in a device field is the same 400 on SQLite and
//! PostgreSQL, while other Unicode is stored as sent; one wild value does not merge a model's
//! two clusters; the index counts every ranked model, not just the ten shown in a table.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, post, storage_result, submission, Server};
use serde_json::{json, Value};
use std::io::{Read, Write};

fn error_field(r: &pocketbench::fleet::client::Response) -> String {
    let v: Value = serde_json::from_slice(&r.body).unwrap_or_default();
    v["error"]["field"].as_str().unwrap_or("").to_string()
}

/// POST `body` with the Content-Type `content_type` (the project's client always says JSON):
/// the status line's code.
fn post_as(s: &Server, token: &str, content_type: &str, body: &str) -> u16 {
    let addr = s.url.strip_prefix("http://").unwrap();
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    write!(
        c,
        "POST /api/v1/results HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {token}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    c.read_to_string(&mut answer).unwrap();
    answer.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn figures_outside_their_range_and_wrong_types_are_refused_naming_the_figure() {
    for b in backends() {
        let s = Server::start(&b, &["--min-results", "1"]);
        let c = s.client(Some(&s.token("lab")));
        for n in 0..3 {
            let ok = submission("Huge", "", storage_result(100.0 + n as f64, n));
            assert_eq!(post(&c, "/api/v1/results", &ok).status, 201, "{}", b.name);
        }
        for (n, bad) in [
            json!(1e308),
            json!(1.7e308),
            json!(0),
            json!(-50),
            json!("fast"),
            json!(100_001),
        ]
        .into_iter()
        .enumerate()
        {
            let r = post(
                &c,
                "/api/v1/results",
                &submission("Huge", "", storage_result(1.0, 10 + n)).tap(bad.clone()),
            );
            assert_eq!(
                (r.status, error_field(&r).as_str()),
                (400, "result.files[0].mib_s.mean"),
                "{}: {bad}: {}",
                b.name,
                r.message()
            );
        }
        assert_eq!(
            s.healthy_count(),
            3,
            "{}: a refused figure was stored",
            b.name
        );
        // The device page and its API answer with the three good results.
        let page = c.get("/devices/Huge").unwrap();
        assert_eq!(page.status, 200, "{}", b.name);
        let api = s.get_json("/api/v1/devices/Huge");
        assert_eq!(api["categories"][0]["stats"]["kept"], 3);
        assert_eq!(api["categories"][0]["stats"]["mean"], 101.0);
        // Not declared JSON: 415, whatever the body.
        let body = submission("Huge", "", storage_result(5.0, 99)).to_string();
        let token = s.token("raw");
        assert_eq!(post_as(&s, &token, "text/plain", &body), 415, "{}", b.name);
        assert_eq!(
            post_as(&s, &token, "application/json; charset=utf-8", &body),
            201
        );
    }
}

/// Set the submission's sequential read figure.
trait Tap {
    fn tap(self, mib_s: Value) -> Value;
}

impl Tap for Value {
    fn tap(mut self, mib_s: Value) -> Value {
        self["result"]["files"][0]["mib_s"]["mean"] = mib_s;
        self
    }
}

#[test]
fn nul_is_refused_alike_and_other_unicode_is_kept_on_both_back_ends() {
    let mut answers = Vec::new();
    for b in backends() {
        let s = Server::start(&b, &[]);
        let c = s.client(Some(&s.token("lab")));
        let nul_model = post(
            &c,
            "/api/v1/results",
            &submission("Pixel\u{0}7", "", storage_result(5.0, 1)),
        );
        let nul_disk = post(
            &c,
            "/api/v1/results",
            &submission("Pixel 7", "KLM\u{0}", storage_result(5.0, 2)),
        );
        let mut nul_date = submission("Pixel 7", "", storage_result(5.0, 3));
        nul_date["result"]["created_at"] = json!("2026\u{0}");
        let nul_date = post(&c, "/api/v1/results", &nul_date);
        let claim = c
            .post("/api/v1/agent/claim", br#"{"agent":"a\u0000"}"#)
            .unwrap();
        let unicode = "Ωmega 📱 \u{7}ü";
        let kept = post(
            &c,
            "/api/v1/results",
            &submission(unicode, "ディスク", storage_result(5.0, 4)),
        );
        let list = s.get_json("/api/v1/results");
        assert_eq!(list[0]["model"], unicode, "{}", b.name);
        assert_eq!(list[0]["storage_model"], "ディスク");
        answers.push((
            (nul_model.status, error_field(&nul_model)),
            (nul_disk.status, error_field(&nul_disk)),
            (nul_date.status, error_field(&nul_date)),
            (claim.status, error_field(&claim)),
            kept.status,
        ));
    }
    let expected = (
        (400, "device.model".to_string()),
        (400, "device.storage.disk_model".to_string()),
        (400, "result.created_at".to_string()),
        (400, "agent".to_string()),
        201,
    );
    for a in answers {
        assert_eq!(a, expected);
    }
}

#[test]
fn one_outlier_does_not_merge_two_clusters_and_the_index_counts_every_ranked_model() {
    for b in backends() {
        let s = Server::start(&b, &["--min-results", "1"]);
        let c = s.client(Some(&s.token("lab")));
        let mut n = 0;
        let mut send = |model: &str, disk: &str, v: f64| {
            n += 1;
            let r = post(
                &c,
                "/api/v1/results",
                &submission(model, disk, storage_result(v, n)),
            );
            assert_eq!(r.status, 201, "{}", r.message());
        };
        // Two vendors (13 and 18 MiB/s, ten each) and one wild 1000: 3σ drops it first.
        for _ in 0..10 {
            send("GT-I9000", "MAG4F", 13.0);
            send("GT-I9000", "KLM8G", 18.0);
        }
        send("GT-I9000", "KLM8G", 1000.0);
        let d = s.get_json("/api/v1/devices/GT-I9000");
        let sizes: Vec<i64> = d["categories"][0]["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["results"].as_i64().unwrap())
            .collect();
        assert_eq!(sizes, [10, 10], "{}", b.name);
        // Twelve models ranked: the index says 13 (with GT-I9000), the table shows ten.
        for m in 0..12 {
            send(&format!("Model {m:02}"), "", 50.0 + f64::from(m));
        }
        let page = String::from_utf8(c.get("/").unwrap().body).unwrap();
        let row = page
            .lines()
            .find(|l| l.contains("data-category=\"seq-read\""))
            .unwrap();
        assert!(
            row.contains("<td class=\"num\">13</td>"),
            "{}: {row}",
            b.name
        );
        let ranking = s.get_json("/api/v1/rankings/seq-read");
        assert_eq!(ranking["top"].as_array().unwrap().len(), 10);
    }
}
