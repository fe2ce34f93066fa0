//! The server's commands end to end and their bad input: `pocketbench storage` then
//! `pocketbench submit` shows the result ranked (the two-terminal walkthrough of
//! docs/server.md), `--all-new` sends only what the server lacks, and bad flags, unknown ids,
//! a missing token and an unreachable server are refused with one line (exit 2 for bad input,
//! 1 for a server that cannot be reached) with nothing sent or created.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, Server};
use common::{arg, Sandbox};

#[test]
fn storage_then_submit_is_ranked() {
    for b in backends() {
        let s = Server::start(&b, &["--min-results", "1"]);
        let token = s.token("phone");
        let sb = Sandbox::new();
        let results = sb.results();
        let dir = sb.path("io");
        std::fs::create_dir(&dir).unwrap();
        sb.pb([
            "storage",
            "--dir",
            arg(&dir),
            "--tests",
            "seq-read,rand-write,androbench",
            "--read-size",
            "1M",
            "--write-size",
            "1M",
            "--runs",
            "1",
            "--results",
            arg(&results),
            "--quiet",
        ])
        .expect_ok();
        let out = sb
            .pb([
                "submit",
                "--server",
                &s.url,
                "--token",
                &token,
                "--all-new",
                "--results",
                arg(&results),
                "--json",
            ])
            .expect_ok()
            .json();
        assert_eq!(out[0]["created"], true, "{}", b.name);
        let ranking = s.get_json("/api/v1/rankings/seq-read");
        let top = &ranking["top"][0];
        assert_eq!(top["kept"], 1);
        assert!(top["mean"].as_f64().unwrap() > 0.0);
        // The submitted result carries this machine's identity and the full result.
        let full = s.get_json(&format!("/api/v1/results/{}", out[0]["remote_id"]));
        assert_eq!(full["model"], top["model"]);
        assert!(!full["file_system"].as_str().unwrap().is_empty(), "{full}");
        assert!(full["result"]["sqlite"].as_array().unwrap().len() >= 3);
        let cats: Vec<&str> = full["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["category"].as_str().unwrap())
            .collect();
        assert_eq!(
            cats,
            [
                "rand-write",
                "seq-read",
                "sqlite-delete",
                "sqlite-insert",
                "sqlite-update"
            ]
        );
        // Nothing new: nothing sent. The same id again: the server had it.
        let again = sb
            .pb([
                "submit",
                "--server",
                &s.url,
                "--token",
                &token,
                "--all-new",
                "--results",
                arg(&results),
            ])
            .expect_ok();
        assert!(again.stdout.contains("nothing to send"), "{}", again.stdout);
        let twice = sb
            .pb([
                "submit",
                "--server",
                &s.url,
                "--token",
                &token,
                "1",
                "--results",
                arg(&results),
            ])
            .expect_ok();
        assert!(
            twice.stdout.contains("the server had it"),
            "{}",
            twice.stdout
        );
        assert_eq!(s.healthy_count(), 1);
        // A workload run goes with its histograms: one tagged HdrHistogram per operation kind.
        sb.pb([
            "run",
            "--ops",
            "50",
            "--records",
            "50",
            "--delay",
            "zero",
            "--no-overhead",
            "--quiet",
            "--results",
            arg(&results),
        ])
        .expect_ok();
        let sent = sb
            .pb([
                "submit",
                "--server",
                &s.url,
                "--token",
                &token,
                "2",
                "--results",
                arg(&results),
                "--json",
            ])
            .expect_ok()
            .json();
        // (PostgreSQL's ids are not dense: the duplicate's insert attempt used one.)
        let run = s.get_json(&format!("/api/v1/results/{}", sent[0]["remote_id"]));
        let log = run["result"]["latency_hlog"].as_str().unwrap();
        assert!(
            log.starts_with("#[Histogram log format version 1.3]"),
            "{log}"
        );
        assert_eq!(
            log.lines().filter(|l| l.starts_with("Tag=read,")).count(),
            1,
            "{log}"
        );
    }
}

#[test]
fn bad_flags_are_refused_with_one_line() {
    let b = backends().remove(0);
    let s = Server::start(&b, &[]);
    let token = s.token("phone");
    let sb = Sandbox::new();
    sb.pb([
        "run",
        "--ops",
        "20",
        "--records",
        "20",
        "--delay",
        "zero",
        "--no-overhead",
        "--quiet",
        "--results",
        "pocketbench.db",
    ])
    .expect_ok();
    let url = s.url.as_str();
    let cases: Vec<(String, &str)> = vec![
        (
            format!("submit --server https://h:port --token {token} 1"),
            "expected http://HOST:PORT or https://HOST:PORT",
        ),
        (
            format!("submit --server ftp://x --token {token} 1"),
            "expected http://HOST:PORT",
        ),
        (format!("submit --server {url} 1"), "--token"),
        (
            format!("submit --server {url} --token {token} 99"),
            "RUN_ID 99",
        ),
        (
            format!("submit --server {url} --token wrong 1"),
            "--token: the server refused it",
        ),
        ("serve --max-body 0".into(), "--max-body"),
        ("serve --max-body 1G".into(), "--max-body"),
        ("serve --listen nonsense --db x.db".into(), "--listen"),
        ("serve --lease forever --db x.db".into(), "--lease"),
        (
            "serve --min-body-rate 2G --db x.db".into(),
            "--min-body-rate",
        ),
        (
            "serve --send-timeout 7200s --db x.db".into(),
            "--send-timeout",
        ),
        (
            "serve --tls-self-signed bad\u{7}host --db x.db".into(),
            "--tls-self-signed",
        ),
        ("serve --plan missing.toml --db x.db".into(), "missing.toml"),
        ("serve token add bad/name --db x.db".into(), "token name"),
        (
            "serve token add phone --token short --db x.db".into(),
            "--token \"short\": expected 16 to 128",
        ),
        (
            "serve token add phone --token not/a/token/at/all --db x.db".into(),
            "--token",
        ),
        (
            "serve token revoke nobody --db x.db".into(),
            "no server database there",
        ),
        (
            format!("serve token revoke nobody --db {}", s.db),
            "no such token",
        ),
        (
            "agent --server https:// --token t".into(),
            "expected http://HOST:PORT or https://HOST:PORT",
        ),
        (
            "agent --server http://127.0.0.1:1 --token t --poll soon".into(),
            "--poll",
        ),
    ];
    for (args, needle) in &cases {
        let out = sb.pb(args.split_whitespace()).expect_code(2);
        assert_eq!(out.stderr_lines().len(), 1, "{args}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{args}: {}", out.stderr);
        assert!(!sb.path("x.db").exists(), "{args} created its database");
    }
    assert_eq!(s.healthy_count(), 0, "a refused submit sent something");
    // A server that cannot be reached is a failure, not bad input.
    let out = sb
        .pb([
            "submit",
            "--server",
            "http://127.0.0.1:1",
            "--token",
            &token,
            "1",
        ])
        .expect_code(1);
    assert_eq!(out.stderr_lines().len(), 1, "{}", out.stderr);
}

#[test]
fn flashbench_and_study_results_submit_and_report() {
    for b in backends() {
        let s = Server::start(&b, &[]);
        let token = s.token("lab");
        let sb = Sandbox::new();
        let results = sb.results();
        let dir = sb.path("fb");
        std::fs::create_dir(&dir).unwrap();
        sb.pb([
            "flashbench",
            "--sizes",
            "64",
            "--counts",
            "10",
            "--dir",
            arg(&dir),
            "--results",
            arg(&results),
        ])
        .expect_ok();
        let plan = sb.write(
            "study.toml",
            "name = \"tiny\"\nrepeats = 1\n[run]\nrecords = 20\nops = 20\ndelay = \"zero\"\nno-overhead = true\n[axes]\nworkload = [\"ycsb-a\", \"ycsb-c\"]\n",
        );
        sb.pb(["matrix", arg(&plan), "--results", arg(&results)])
            .expect_ok();
        let sent = sb
            .pb([
                "submit",
                "--server",
                &s.url,
                "--token",
                &token,
                "--all-new",
                "--results",
                arg(&results),
                "--json",
            ])
            .expect_ok()
            .json();
        let kinds: Vec<&str> = sent
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["flashbench", "run", "run"], "{}", b.name);
        // Each result's full report renders as its kind (not the raw-JSON fallback).
        for r in sent.as_array().unwrap() {
            let page = s
                .client(None)
                .get(&format!("/results/{}/report", r["remote_id"]))
                .unwrap();
            let page = String::from_utf8(page.body).unwrap();
            assert!(page.contains("id=\"report\""), "{page}");
            assert!(!page.contains("cannot be read"), "{page}");
        }
    }
}
