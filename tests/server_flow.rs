//! The README's server flow in a fresh directory after one result of every kind (run, study,
//! storage, flashbench, durability, models): `serve token add` and `serve`, then `submit
//! --all-new` sends every result, to a server on each back end. Every kind stores
//! `tool_version` as "pocketbench VERSION" and an older store's bare "0.1.0" is sent in that
//! form; `results show ID --json` carries the real id for every kind and `results list` names
//! each one's engine; a result the server refuses is reported and the others still go, with
//! exit status 1 at the end.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, Server};
use common::{words, Sandbox};

/// Rewrite stored result `id`'s `tool_version` as an older or broken store has it.
fn set_version(sb: &Sandbox, id: i64, sql_value: &str) {
    rusqlite::Connection::open(sb.path("pocketbench.db"))
        .unwrap()
        .execute(
            &format!("UPDATE runs SET summary = json_set(summary, '$.tool_version', {sql_value}) WHERE id = ?1"),
            [id],
        )
        .unwrap();
}

/// One small result of every kind into ./pocketbench.db; returns their kinds by id.
fn every_kind(sb: &Sandbox) -> Vec<&'static str> {
    std::fs::create_dir(sb.path("io")).unwrap();
    let plan = sb.write(
        "tiny.toml",
        "name = \"tiny\"\nrepeats = 1\n[run]\nrecords = 20\nops = 20\ndelay = \"zero\"\nno-overhead = true\n[axes]\nworkload = [\"ycsb-c\"]\n",
    );
    let runs: [(&str, &str); 6] = [
        ("run", "run --ops 20 --records 20 --delay zero --no-overhead -q"),
        ("run", "matrix PLAN"),
        ("storage", "storage --dir io --tests seq-read --read-size 1M --runs 1 --quiet"),
        ("flashbench", "flashbench --sizes 64 --counts 10 --dir io"),
        (
            "durability",
            "durability --crashes 3 --txns 3 --config journal_mode=wal --config synchronous=full --no-speed -q",
        ),
        ("models", "models --tuples 10 --tests 1 --engines sqlite -q"),
    ];
    for (_, args) in runs {
        let args: Vec<&str> = words(args)
            .into_iter()
            .map(|w| {
                if w == "PLAN" {
                    plan.to_str().unwrap()
                } else {
                    w
                }
            })
            .collect();
        sb.pb(args).expect_ok();
    }
    runs.iter().map(|(k, _)| *k).collect()
}

#[test]
fn the_readme_server_flow_submits_every_kind() {
    let sb = Sandbox::new();
    let kinds = every_kind(&sb);
    // Every kind stores one version form, and shows its real id.
    for (i, kind) in kinds.iter().enumerate() {
        let id = (i + 1).to_string();
        let shown = sb.pb(["results", "show", &id, "--json"]).expect_ok().json();
        assert_eq!(shown["id"], i + 1, "{kind}: {shown}");
        let version = shown["tool_version"]
            .as_str()
            .or_else(|| shown["summary"]["tool_version"].as_str())
            .or_else(|| shown["environment"]["tool_version"].as_str());
        if let Some(v) = version {
            assert!(v.starts_with("pocketbench "), "{kind}: {v}");
        }
    }
    // `results list` names every kind's engine (a suite's is in its summary).
    let list = sb.pb(["results", "list", "--json"]).expect_ok().json();
    let engines: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["engine"].as_str().unwrap())
        .collect();
    assert_eq!(engines, ["sqlite"; 6]);
    // An older store's durability result: the bare version, as it was written then.
    set_version(&sb, 5, "'0.1.0'");
    let old = sb.pb(["results", "show", "5", "--json"]).expect_ok().json();
    assert_eq!(old["tool_version"], "pocketbench 0.1.0");

    // The same store to a server on each back end: everything goes to each.
    for b in backends() {
        let s = Server::start(&b, &[]);
        let token = s.token("my-phone");
        let out = sb
            .pb([
                "submit",
                "--server",
                &s.url,
                "--token",
                &token,
                "--all-new",
                "--json",
            ])
            .expect_ok()
            .json();
        let sent: Vec<&str> = out
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["kind"].as_str().unwrap())
            .collect();
        assert_eq!(sent, kinds, "{}", b.name);
        assert!(out.as_array().unwrap().iter().all(|r| r["created"] == true));
        let again = sb
            .pb(["submit", "--server", &s.url, "--token", &token, "--all-new"])
            .expect_ok();
        assert!(again.stdout.contains("nothing to send"), "{}", again.stdout);
    }
}

#[test]
fn a_refused_result_does_not_stop_the_others() {
    for b in backends() {
        refused_on(&b);
    }
}

fn refused_on(b: &common::server::Backend) {
    let sb = Sandbox::new();
    for _ in 0..3 {
        sb.pb(words(
            "run --ops 10 --records 10 --delay zero --no-overhead -q",
        ))
        .expect_ok();
    }
    // Result 2 as no server takes it: its tool_version is not text.
    set_version(&sb, 2, "7");
    let s = Server::start(b, &[]);
    let token = s.token("my-phone");
    let out = sb
        .pb(["submit", "--server", &s.url, "--token", &token, "--all-new"])
        .expect_code(1);
    assert!(out.stdout.contains("result 1 (run)"), "{}", out.stdout);
    assert!(out.stdout.contains("result 3 (run)"), "{}", out.stdout);
    let err = out.stderr_lines();
    assert_eq!(err.len(), 2, "{}", out.stderr);
    assert!(
        err[0].contains("result 2 (run): the server answered 400: result.tool_version"),
        "{}",
        out.stderr
    );
    assert!(err[1].contains("refused 1 of 3"), "{}", out.stderr);
    assert_eq!(s.healthy_count(), 2);
    // What went is remembered: the next --all-new offers only the refused one again.
    let out = sb
        .pb(["submit", "--server", &s.url, "--token", &token, "--all-new"])
        .expect_code(1);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains("refused 1 of 1"), "{}", out.stderr);
}
