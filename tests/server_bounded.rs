//! No stored result can make reads expensive, and no slow client can hold the server, on each
//! back end: a result carrying an extra field of 100 nested arrays around 2 million zeros is
//! stored without it (fields a result's type does not know are dropped) and served compact,
//! streamed in chunks, never pretty; a string where a number belongs anywhere in a result is a
//! 400 naming it; a result past the stored-size bound is refused; the report page reads every
//! stored result; clients that ask for the largest result a submission can make ten times over
//! and do not read are dropped after `--send-timeout` while `/healthz` answers; a POST without
//! a valid token is answered 401/403 from its head with its body unsent; a body trickled one
//! byte at a time gets 408 at `--body-timeout` (a deadline, not a gap), and one slower than
//! `--min-body-rate` gets it before; at `--max-connections` a newcomer closes the connection
//! waiting longest on its client instead of being refused; an idle kept-alive connection is
//! closed after `--header-timeout`.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, health_on, post, storage_result, submission, Server};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::FromRawFd;

fn addr(s: &Server) -> String {
    s.url.strip_prefix("http://").unwrap().to_string()
}

/// A connection to `s` whose receive buffer is 4 KiB (a client that does not read it fills it
/// at once).
fn narrow(s: &Server) -> TcpStream {
    let a: std::net::SocketAddrV4 = addr(s).parse().unwrap();
    // SAFETY: a fresh socket is configured and connected with plain libc calls on structs of
    // the declared types; the descriptor is handed to TcpStream, which owns it from then on.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let size: libc::c_int = 4096;
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            std::ptr::addr_of!(size).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
        let mut sa: libc::sockaddr_in = std::mem::zeroed();
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_port = a.port().to_be();
        sa.sin_addr.s_addr = u32::from(*a.ip()).to_be();
        let r = libc::connect(
            fd,
            std::ptr::addr_of!(sa).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        assert_eq!(r, 0, "{}", std::io::Error::last_os_error());
        TcpStream::from_raw_fd(fd)
    }
}

/// Everything `c` receives until the server closes it (a reset counts as the end).
fn drain(c: &mut TcpStream) -> Vec<u8> {
    let mut all = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match c.read(&mut buf) {
            Ok(0) | Err(_) => return all,
            Ok(n) => all.extend_from_slice(&buf[..n]),
        }
    }
}

/// The status code of an HTTP answer.
fn status(answer: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(answer);
    text.split_whitespace()
        .nth(1)
        .unwrap_or("0")
        .parse()
        .unwrap_or(0)
}

/// The submission's JSON text with `field` (JSON text) added first to its result.
fn with_extra(body: &Value, field: &str) -> Vec<u8> {
    body.to_string()
        .replacen("\"result\":{", &format!("\"result\":{{{field},"), 1)
        .into_bytes()
}

#[test]
fn a_result_is_typed_stored_without_unknown_fields_and_served_compact() {
    for b in backends() {
        let s = Server::start(&b, &[]);
        let c = s.client(Some(&s.token("lab")));
        // 100 nested arrays around 2 000 000 zeros: 4 MB of JSON in a field no result has.
        let zeros = format!(
            "{}{}0{}",
            "[".repeat(100),
            "0,".repeat(1_999_999),
            "]".repeat(100)
        );
        let sub = submission("Pixel 7", "", storage_result(50.0, 1));
        let body = with_extra(&sub, &format!("\"junk\":{zeros}"));
        assert!(body.len() > 4_000_000);
        let r = c.post("/api/v1/results", &body).unwrap();
        assert_eq!(r.status, 201, "{}: {}", b.name, r.message());
        let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
        // The answer: chunked, compact, without the field; its result as the type holds it.
        let mut g = TcpStream::connect(addr(&s)).unwrap();
        write!(
            g,
            "GET /api/v1/results/{id} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let answer = drain(&mut g);
        let text = String::from_utf8(answer).unwrap();
        let (head, chunked) = text.split_once("\r\n\r\n").unwrap();
        assert!(
            head.to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "{head}"
        );
        assert!(text.len() < 3_000, "{}: {} bytes", b.name, text.len());
        let full = s
            .client(None)
            .get(&format!("/api/v1/results/{id}"))
            .unwrap();
        let v: Value = serde_json::from_slice(&full.body).unwrap();
        assert!(v["result"].get("junk").is_none());
        assert_eq!(v["result"]["files"][0]["mib_s"]["mean"], 50.0);
        assert_eq!(v["device"]["model"], "Pixel 7");
        assert_eq!(v["metrics"][0]["category"], "seq-read");
        assert!(!chunked.contains("\n  "), "pretty-printed: {chunked}");
        // The same result without the field is the same result.
        let again = post(&c, "/api/v1/results", &sub);
        assert_eq!(
            (again.status, again.json::<Value>().unwrap()["id"].as_i64()),
            (200, Some(id))
        );
        // The report page reads it.
        let report = c.get(&format!("/results/{id}/report")).unwrap();
        let page = String::from_utf8_lossy(&report.body);
        assert!(
            page.contains("id=\"report\"") && !page.contains("cannot be read"),
            "{page}"
        );
        // A string where a number belongs, outside the ranked figures: 400 naming it.
        for (path, field) in [
            (&["id"][..], "result.id"),
            (&["settings", "seed"][..], "result.settings.seed"),
            (
                &["files", "0", "test", "io_size"][..],
                "result.files[0].test.io_size",
            ),
            (
                &["files", "0", "iops", "runs", "0"][..],
                "result.files[0].iops.runs[0]",
            ),
        ] {
            let mut bad = submission("Pixel 7", "", storage_result(50.0, 2));
            let mut at = &mut bad["result"];
            for k in path {
                at = match k.parse::<usize>() {
                    Ok(i) => &mut at[i],
                    Err(_) => &mut at[*k],
                };
            }
            *at = Value::from("12");
            let r = post(&c, "/api/v1/results", &bad);
            let e: Value = serde_json::from_slice(&r.body).unwrap();
            assert_eq!(
                (r.status, e["error"]["field"].as_str()),
                (400, Some(field)),
                "{}",
                b.name
            );
        }
        // Past the stored-size bound (2 MiB once written compactly): refused, naming `result`.
        let mut big = submission("Pixel 7", "", storage_result(50.0, 3));
        big["result"]["sqlite_version"] = Value::from("x".repeat(2 << 20));
        let r = post(&c, "/api/v1/results", &big);
        let e: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            (r.status, e["error"]["field"].as_str()),
            (400, Some("result"))
        );
        assert!(
            e["error"]["message"].as_str().unwrap().contains("2097152"),
            "{e}"
        );
        assert_eq!(s.healthy_count(), 1, "{}", b.name);
    }
}

/// A storage result as large as a submission can make one: its longest text grown until the
/// compact result is just under 2 MiB.
fn largest(n: usize) -> Value {
    let mut r = storage_result(50.0, n);
    let base = r.to_string().len();
    r["sqlite_version"] = Value::from("x".repeat((2 << 20) - base - 16));
    submission("Pixel 7", "", r)
}

#[test]
fn clients_that_do_not_read_are_dropped_and_health_still_answers() {
    let b = backends().remove(0);
    // Idle connections are closed only after two minutes: the send deadline is what drops them.
    let s = Server::start(&b, &["--send-timeout", "300ms", "--header-timeout", "120s"]);
    let c = s.client(Some(&s.token("lab")));
    let r = post(&c, "/api/v1/results", &largest(1));
    assert_eq!(r.status, 201, "{}", r.message());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    let whole = s
        .client(None)
        .get(&format!("/api/v1/results/{id}"))
        .unwrap()
        .body
        .len();
    assert!(whole > 2_000_000, "{whole}");
    // Each asks for it 10 times in a row (pipelined): 20 MB, more than the kernel's socket
    // buffers hold, so the server's writes stall.
    let asks = 10;
    let mut held: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut t = narrow(&s);
            let one = format!("GET /api/v1/results/{id} HTTP/1.1\r\nHost: x\r\n\r\n");
            t.write_all(one.repeat(asks).as_bytes()).unwrap();
            t
        })
        .collect();
    for _ in 0..10 {
        assert_eq!(s.healthy_count(), 1);
    }
    // Wait until the server has dropped them all (its count of open connections is the
    // asking one alone), then each of them got only part of the answer.
    let started = std::time::Instant::now();
    while s.get_json("/healthz")["connections"] != 1 {
        assert!(
            started.elapsed().as_secs() < 60,
            "the readers were never dropped"
        );
        std::thread::yield_now();
    }
    for t in &mut held {
        let got = drain(t).len();
        assert!(got < asks * whole, "{got} of {} bytes", asks * whole);
    }
}

#[test]
fn a_write_without_a_valid_token_is_refused_from_its_head() {
    let b = backends().remove(0);
    let s = Server::start(&b, &[]);
    s.token("lab");
    for (auth, code) in [("", 401), ("Authorization: Bearer nope\r\n", 403)] {
        let mut t = TcpStream::connect(addr(&s)).unwrap();
        // The head only: a body of 100 000 bytes is announced and never sent.
        write!(
            t,
            "POST /api/v1/results HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        )
        .unwrap();
        let answer = drain(&mut t);
        assert_eq!(
            status(&answer),
            code,
            "{}",
            String::from_utf8_lossy(&answer)
        );
    }
}

#[test]
fn a_trickled_body_gets_408_at_its_deadline() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--body-timeout", "400ms"]);
    let token = s.token("lab");
    let mut t = TcpStream::connect(addr(&s)).unwrap();
    write!(
        t,
        "POST /api/v1/results HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    )
    .unwrap();
    // One byte every 50 ms (far inside any gap timer), until the server answers.
    let mut writer = t.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        let mut sent = 0;
        while writer.write_all(b" ").is_ok() && sent < 100_000 {
            sent += 1;
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        sent
    });
    let answer = drain(&mut t);
    assert_eq!(status(&answer), 408, "{}", String::from_utf8_lossy(&answer));
    assert!(String::from_utf8_lossy(&answer).contains("--body-timeout"));
    let sent = trickle.join().unwrap();
    assert!(sent < 100_000, "{sent}");
    assert_eq!(s.healthy_count(), 0);
}

#[test]
fn a_body_slower_than_the_minimum_rate_gets_408_before_its_deadline() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--body-timeout", "3600s", "--min-body-rate", "1K"]);
    let token = s.token("lab");
    let mut t = TcpStream::connect(addr(&s)).unwrap();
    write!(
        t,
        "POST /api/v1/results HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    )
    .unwrap();
    // 20 bytes a second, far below 1 KiB a second: refused from the first second on, long
    // before the hour.
    let mut writer = t.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        let mut sent = 0;
        while writer.write_all(b" ").is_ok() && sent < 100_000 {
            sent += 1;
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    let answer = String::from_utf8(drain(&mut t)).unwrap();
    assert_eq!(status(answer.as_bytes()), 408, "{answer}");
    assert!(
        answer.contains("--min-body-rate: 1024 bytes a second"),
        "{answer}"
    );
    trickle.join().unwrap();
}

#[test]
fn slow_clients_cannot_fill_the_connection_caps() {
    let b = backends().remove(0);
    for flags in [
        ["--max-connections", "8"],
        ["--max-connections-per-client", "8"],
    ] {
        let s = Server::start(&b, &flags);
        // Eight connections stuck in their request head fill the cap.
        let mut slow: Vec<TcpStream> = (0..8)
            .map(|_| {
                let mut t = TcpStream::connect(addr(&s)).unwrap();
                t.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nUser-Agent: sl")
                    .unwrap();
                t
            })
            .collect();
        // A newcomer is served: the longest-waiting one (the first) was closed for it.
        assert_eq!(s.healthy_count(), 0, "{flags:?}");
        assert!(drain(&mut slow[0]).is_empty(), "{flags:?}");
        // The other seven are still open and are served when they finish their heads.
        for t in &mut slow[1..] {
            t.write_all(b"ow\r\nConnection: close\r\n\r\n").unwrap();
            assert_eq!(status(&drain(t)), 200, "{flags:?}");
        }
    }
}

#[test]
fn an_idle_kept_alive_connection_closes_after_the_header_timeout() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--header-timeout", "300ms"]);
    let mut t = TcpStream::connect(addr(&s)).unwrap();
    assert_eq!(health_on(&mut t), "HTTP/1.1 200 OK");
    // Nothing more is asked: the server closes the connection (the read ends).
    assert!(drain(&mut t).is_empty());
}
