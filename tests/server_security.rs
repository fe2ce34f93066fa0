//! The results server under hostile input, on each back end: missing, wrong and revoked
//! tokens, malformed JSON, wrong types, oversized bodies, unknown fields, SQL and HTML
//! injection strings, too many writes per minute. Each gets a clear 4xx JSON error naming the
//! field where one is at fault; nothing is stored; the server keeps answering; injected text is
//! stored verbatim and shown escaped. A `--private` server's browser sign-in: a token exchanged
//! at `/login` for an HttpOnly, SameSite session cookie that reads but never writes, and
//! `/logout` (a button on every page) ending that session.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, post, storage_result, submission, Server};
use common::BIN;
use serde_json::json;

fn field(r: &pocketbench::fleet::client::Response) -> String {
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    v["error"]["field"].as_str().unwrap_or("").to_string()
}

#[test]
fn bad_requests_are_refused_and_nothing_is_stored() {
    for b in backends() {
        let s = Server::start(&b, &["--max-body", "64K"]);
        let token = s.token("lab");
        let c = s.client(Some(&token));
        let good = submission("Pixel 7", "", storage_result(100.0, 1));
        // No token, a wrong token.
        assert_eq!(post(&s.client(None), "/api/v1/results", &good).status, 401);
        assert_eq!(
            post(&s.client(Some("pbt_0000")), "/api/v1/results", &good).status,
            403
        );
        // Malformed JSON, wrong types, unknown fields, bad values.
        let r = c
            .post("/api/v1/results", b"{\"schema\": 1, \"kind\": ")
            .unwrap();
        assert_eq!(r.status, 400, "{}", b.name);
        let mut wrong = good.clone();
        wrong["device"]["model"] = json!(42);
        let r = post(&c, "/api/v1/results", &wrong);
        assert_eq!(
            (r.status, field(&r).as_str()),
            (400, "device.model"),
            "{}",
            r.message()
        );
        let mut kind = good.clone();
        kind["kind"] = json!("benchmark");
        assert_eq!(field(&post(&c, "/api/v1/results", &kind)), "kind");
        let mut extra = good.clone();
        extra["device"]["colour"] = json!("red");
        assert_eq!(post(&c, "/api/v1/results", &extra).status, 400);
        let mut no_result = good.clone();
        no_result["result"] = json!("fast");
        assert_eq!(field(&post(&c, "/api/v1/results", &no_result)), "result");
        // Over --max-body (64 KiB): 413 before it is read.
        let mut big = good.clone();
        big["result"]["padding"] = json!("x".repeat(70_000));
        let r = post(&c, "/api/v1/results", &big);
        assert_eq!((r.status, field(&r).as_str()), (413, "body"));
        // Unknown endpoints and methods.
        assert_eq!(c.get("/api/v1/nothing").unwrap().status, 404);
        assert_eq!(
            s.healthy_count(),
            0,
            "{}: a refused request stored something",
            b.name
        );
        // A revoked token stops working.
        assert_eq!(post(&c, "/api/v1/results", &good).status, 201);
        let out = std::process::Command::new(BIN)
            .args(["serve", "token", "revoke", "lab", "--db", &s.db])
            .output()
            .unwrap();
        assert!(out.status.success());
        let r = post(
            &c,
            "/api/v1/results",
            &submission("Pixel 7", "", storage_result(1.0, 2)),
        );
        assert_eq!(r.status, 403);
        assert_eq!(s.healthy_count(), 1);
    }
}

#[test]
fn injection_strings_are_stored_verbatim_and_shown_escaped() {
    for b in backends() {
        let s = Server::start(&b, &[]);
        let c = s.client(Some(&s.token("lab")));
        let evil = "x'); DROP TABLE results; --<script>alert(1)</script>";
        let r = post(
            &c,
            "/api/v1/results",
            &submission(evil, "<b>disk</b>", storage_result(5.0, 1)),
        );
        assert_eq!(r.status, 201, "{}", r.message());
        let list = s.get_json("/api/v1/results");
        assert_eq!(list[0]["model"], evil, "{}", b.name);
        assert_eq!(list[0]["storage_model"], "<b>disk</b>");
        for path in ["/", "/results/1", "/devices/x%27%29%3B%20DROP%20TABLE%20results%3B%20--%3Cscript%3Ealert%281%29%3C%2Fscript%3E"] {
            let page = String::from_utf8(c.get(path).unwrap().body).unwrap();
            assert!(!page.contains("<script>"), "{path}: unescaped");
            assert!(!page.contains("<b>disk"), "{path}: unescaped");
        }
        let page = String::from_utf8(c.get("/results/1").unwrap().body).unwrap();
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        // The tables are intact and the query string is a value, not SQL.
        assert_eq!(s.healthy_count(), 1);
        let q = s.get_json("/api/v1/results?model=%27%20OR%201%3D1%20--");
        assert_eq!(q.as_array().unwrap().len(), 0);
    }
}

#[test]
fn writes_are_rate_limited_per_token() {
    for b in backends() {
        let s = Server::start(&b, &["--rate-limit", "2"]);
        let (a, other) = (s.client(Some(&s.token("a"))), s.client(Some(&s.token("b"))));
        // A refused submission (400) spends nothing: the allowance is spent in the
        // transaction that stores a result.
        let mut bad = submission("M", "", storage_result(1.0, 9));
        bad["device"]["model"] = json!(42);
        assert_eq!(post(&a, "/api/v1/results", &bad).status, 400);
        for n in 0..2 {
            assert_eq!(
                post(
                    &a,
                    "/api/v1/results",
                    &submission("M", "", storage_result(1.0, n))
                )
                .status,
                201
            );
        }
        // The third write within the minute is refused with Retry-After; another token is not.
        let r = post(
            &a,
            "/api/v1/results",
            &submission("M", "", storage_result(1.0, 3)),
        );
        assert_eq!(r.status, 429, "{}", b.name);
        assert!(r.retry_after.is_some_and(|s| (1..=60).contains(&s)));
        assert_eq!(
            post(
                &other,
                "/api/v1/results",
                &submission("M", "", storage_result(1.0, 4))
            )
            .status,
            201
        );
        assert_eq!(s.healthy_count(), 3);
    }
}

#[test]
fn private_servers_need_a_token_to_read() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--private"]);
    let t = s.token("reader");
    assert_eq!(s.client(None).get("/api/v1/results").unwrap().status, 401);
    assert_eq!(s.client(None).get("/").unwrap().status, 401);
    assert_eq!(
        s.client(Some(&t)).get("/api/v1/results").unwrap().status,
        200
    );
    assert_eq!(s.client(None).get("/healthz").unwrap().status, 200);
}

/// One raw HTTP/1.1 exchange: the whole answer as text.
fn raw(s: &Server, request: &str) -> String {
    use std::io::{Read, Write};
    let mut c = std::net::TcpStream::connect(s.url.strip_prefix("http://").unwrap()).unwrap();
    c.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    c.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn a_browser_signs_in_to_a_private_server_with_a_session_cookie() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--private"]);
    let t = s.token("reader");
    let get = |path: &str, cookie: &str| {
        raw(
            &s,
            &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{cookie}\r\n"),
        )
    };
    // Without a session: 401 with the sign-in form.
    let page = get("/", "");
    assert!(page.starts_with("HTTP/1.1 401"), "{page}");
    assert!(page.contains("<form id=\"login\" method=\"post\" action=\"/login\">"));
    let login = |token: &str| {
        let body = format!("token={}", token.replace('_', "%5F"));
        raw(
            &s,
            &format!("POST /login HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}", body.len()),
        )
    };
    assert!(login("pbt_nope").starts_with("HTTP/1.1 403"));
    let ok = login(&t);
    assert!(ok.starts_with("HTTP/1.1 303"), "{ok}");
    assert!(ok.to_ascii_lowercase().contains("location: /\r\n"), "{ok}");
    let cookie_line = ok
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap();
    assert!(
        cookie_line.contains("HttpOnly") && cookie_line.contains("SameSite=Strict"),
        "{cookie_line}"
    );
    let pair = cookie_line
        .split_once(':')
        .unwrap()
        .1
        .trim()
        .split(';')
        .next()
        .unwrap();
    let cookie = format!("Cookie: {pair}\r\n");
    // With it: pages and reads, but never writes.
    assert!(get("/", &cookie).starts_with("HTTP/1.1 200"));
    assert!(get("/api/v1/results", &cookie).starts_with("HTTP/1.1 200"));
    let body = submission("M", "", storage_result(1.0, 1)).to_string();
    let write = raw(
        &s,
        &format!("POST /api/v1/results HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{cookie}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()),
    );
    assert!(write.starts_with("HTTP/1.1 401"), "{write}");
    // The pages offer signing out, which ends the session on the server, not only the cookie.
    assert!(get("/", &cookie).contains("<form id=\"logout\" method=\"post\" action=\"/logout\">"));
    let out = raw(
        &s,
        &format!("POST /logout HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{cookie}Content-Length: 0\r\n\r\n"),
    );
    assert!(out.starts_with("HTTP/1.1 303"), "{out}");
    assert!(
        out.contains("Max-Age=0") && out.to_ascii_lowercase().contains("location: /login\r\n"),
        "{out}"
    );
    assert!(get("/", &cookie).starts_with("HTTP/1.1 401"));
    // Signed in again; revoking the token ends its sessions.
    let again = login(&t);
    let pair = again
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().split(';').next().unwrap().to_string())
        .unwrap();
    let cookie = format!("Cookie: {pair}\r\n");
    assert!(get("/", &cookie).starts_with("HTTP/1.1 200"));
    let out = std::process::Command::new(BIN)
        .args(["serve", "token", "revoke", "reader", "--db", &s.db])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(get("/", &cookie).starts_with("HTTP/1.1 401"));
}
