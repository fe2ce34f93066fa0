//! Slow and greedy clients cost the results server a socket, never its capacity, on each back
//! end: with 64 connections that sent a POST's head (with a token) and part of its body and 64 that
//! sent part of a request head, all held open, `/healthz`, a ranking and a submission still
//! succeed; a body not finished within `--body-timeout` gets 408; a chunked body (no
//! Content-Length) that grows past `--max-body` gets the JSON 413 naming `body`; a client at
//! `--max-connections-per-client` is served, its connection idle the longest closed for it.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, health_on, post, storage_result, submission, Server};
use std::io::{Read, Write};
use std::net::TcpStream;

fn connect(s: &Server) -> TcpStream {
    TcpStream::connect(s.url.strip_prefix("http://").unwrap()).unwrap()
}

#[test]
fn slow_bodies_and_slow_heads_do_not_stall_the_server() {
    for b in backends() {
        // No minimum rate: the slow bodies are held until --body-timeout.
        let s = Server::start(&b, &["--min-body-rate", "0"]);
        let slow = s.token("slow");
        let mut held = Vec::new();
        for i in 0..64 {
            let mut c = connect(&s);
            write!(
                c,
                "POST /api/v1/results HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {slow}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{\"schema\": 1, \"n\": {i}"
            )
            .unwrap();
            held.push(c);
        }
        for _ in 0..64 {
            let mut c = connect(&s);
            c.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nUser-Agent: sl")
                .unwrap();
            held.push(c);
        }
        // Every one of them is still waiting, and the server answers everyone else.
        assert_eq!(s.healthy_count(), 0, "{}", b.name);
        let c = s.client(Some(&s.token("lab")));
        let r = post(
            &c,
            "/api/v1/results",
            &submission("Pixel 7", "", storage_result(50.0, 1)),
        );
        assert_eq!(r.status, 201, "{}: {}", b.name, r.message());
        let ranking = s.get_json("/api/v1/rankings/seq-read?min_results=1");
        assert_eq!(ranking["top"][0]["model"], "Pixel 7", "{}", b.name);
        assert_eq!(s.healthy_count(), 1);
        assert_eq!(held.len(), 128);
    }
}

#[test]
fn an_unfinished_body_times_out_with_408() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--body-timeout", "300ms"]);
    let token = s.token("lab");
    let mut c = connect(&s);
    write!(
        c,
        "POST /api/v1/results HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n{{\"schema\""
    )
    .unwrap();
    let mut answer = String::new();
    c.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("--body-timeout"), "{answer}");
    assert_eq!(s.healthy_count(), 0);
}

#[test]
fn a_chunked_body_growing_past_max_body_gets_413() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--max-body", "64K"]);
    let token = s.token("lab");
    let mut c = connect(&s);
    write!(
        c,
        "POST /api/v1/results HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // Five chunks of 16 KiB: the limit (65 536 bytes) is passed in the fifth. The server may
    // answer and close before the last ones are sent.
    let chunk = format!("4000\r\n{}\r\n", " ".repeat(0x4000));
    for _ in 0..5 {
        let _ = c.write_all(chunk.as_bytes());
    }
    let _ = c.write_all(b"0\r\n\r\n");
    let mut answer = Vec::new();
    let _ = c.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"field\": \"body\""), "{answer}");
    assert!(answer.contains("--max-body"), "{answer}");
    assert_eq!(s.healthy_count(), 0);
}

#[test]
fn a_client_at_its_connection_cap_loses_its_longest_idle_connection() {
    let b = backends().remove(0);
    let s = Server::start(&b, &["--max-connections-per-client", "4"]);
    // Four kept-alive connections, each proven taken by an answer, then idle.
    let mut four = Vec::new();
    for _ in 0..4 {
        let mut c = connect(&s);
        assert_eq!(health_on(&mut c), "HTTP/1.1 200 OK");
        four.push(c);
    }
    // The fifth is served; the first of the four, idle the longest, is closed for it.
    let mut fifth = connect(&s);
    assert_eq!(health_on(&mut fifth), "HTTP/1.1 200 OK");
    let mut rest = Vec::new();
    let _ = four[0].read_to_end(&mut rest);
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
    // The other three still are served.
    for c in &mut four[1..] {
        assert_eq!(health_on(c), "HTTP/1.1 200 OK");
    }
}
