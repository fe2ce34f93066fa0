//! A fleet takes its work from the server, on each back end: an uploaded plan becomes one row
//! per (cell, repeat); claims are made by the database, so agents claiming at the same time
//! never get the same cell; a claim whose lease expired (a crashed agent) is offered again and
//! the late agent's completion is refused; and a real `pocketbench agent` runs every cell of a
//! plan, submits each result and marks it done.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, post, Server};
use common::BIN;
use serde_json::{json, Value};
use std::collections::BTreeSet;

const PLAN: &str = r#"
name = "fleet"
repeats = 2
[run]
records = 50
ops = 30
delay = "zero"
no-overhead = true
[axes]
workload = ["ycsb-a", "ycsb-c"]
"#;

fn upload(s: &Server, token: &str, class: &str) -> i64 {
    let r = post(
        &s.client(Some(token)),
        "/api/v1/plans",
        &json!({"plan": PLAN, "class": class}),
    );
    assert_eq!(r.status, 201, "{}", r.message());
    let v: Value = r.json().unwrap();
    assert_eq!(
        (v["name"].as_str(), v["cells"].as_i64()),
        (Some("fleet"), Some(4))
    );
    v["id"].as_i64().unwrap()
}

#[test]
fn concurrent_claims_never_share_a_cell() {
    for b in backends() {
        let s = Server::start(&b, &["--rate-limit", "0"]);
        let t = s.token("lab");
        for _ in 0..5 {
            upload(&s, &t, "");
        }
        // 20 cells, 8 agents claiming as fast as they can: each cell handed out exactly once.
        let claimed: Vec<i64> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|a| {
                    let c = s.client(Some(&t));
                    scope.spawn(move || {
                        let mut got = Vec::new();
                        loop {
                            let r = post(
                                &c,
                                "/api/v1/agent/claim",
                                &json!({"agent": format!("a{a}")}),
                            );
                            if r.status == 204 {
                                return got;
                            }
                            assert_eq!(r.status, 200, "{}", r.message());
                            got.push(r.json::<Value>().unwrap()["cell"].as_i64().unwrap());
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let distinct: BTreeSet<i64> = claimed.iter().copied().collect();
        assert_eq!(
            (claimed.len(), distinct.len()),
            (20, 20),
            "{}: {claimed:?}",
            b.name
        );
    }
}

#[test]
fn an_expired_claim_is_offered_again() {
    for b in backends() {
        // A lease of 0 s: every claim has expired by the next request.
        let s = Server::start(&b, &["--lease", "0s"]);
        let t = s.token("lab");
        let plan = upload(&s, &t, "Pixel 7");
        let c = s.client(Some(&t));
        // Another class gets nothing from a plan for Pixel 7.
        assert_eq!(
            post(
                &c,
                "/api/v1/agent/claim",
                &json!({"agent": "x", "class": "Nexus"})
            )
            .status,
            204
        );
        let first: Value = post(
            &c,
            "/api/v1/agent/claim",
            &json!({"agent": "crashed", "class": "Pixel 7"}),
        )
        .json()
        .unwrap();
        let second: Value = post(
            &c,
            "/api/v1/agent/claim",
            &json!({"agent": "healthy", "class": "Pixel 7"}),
        )
        .json()
        .unwrap();
        assert_eq!(
            first["cell"], second["cell"],
            "{}: the expired cell is offered first",
            b.name
        );
        assert_eq!(first["args"], second["args"]);
        assert_eq!(first["suite"], "run");
        // A result to complete it with.
        let sub = common::server::submission("Pixel 7", "", common::server::storage_result(1.0, 1));
        let rid = post(&c, "/api/v1/results", &sub).json::<Value>().unwrap()["id"].clone();
        let late = post(
            &c,
            "/api/v1/agent/complete",
            &json!({"cell": first["cell"], "agent": "crashed", "result_id": rid}),
        );
        assert_eq!(late.status, 409, "{}", late.message());
        let ok = post(
            &c,
            "/api/v1/agent/complete",
            &json!({"cell": first["cell"], "agent": "healthy", "result_id": rid}),
        );
        assert_eq!(ok.status, 200, "{}", ok.message());
        let missing = post(
            &c,
            "/api/v1/agent/complete",
            &json!({"cell": 9999, "agent": "healthy", "result_id": rid}),
        );
        assert_eq!(missing.status, 404);
        let p = s.get_json(&format!("/api/v1/plans/{plan}"));
        assert_eq!((p["open"].as_i64(), p["done"].as_i64()), (Some(3), Some(1)));
        // A bad plan is refused with the reason.
        let bad = post(
            &c,
            "/api/v1/plans",
            &json!({"plan": "[axes]\nworkload = [\"nope\"]\nbogus = 1"}),
        );
        assert_eq!(bad.status, 400);
        assert!(bad.message().starts_with("plan: "), "{}", bad.message());
        assert_eq!(
            post(&s.client(None), "/api/v1/plans", &json!({"plan": PLAN})).status,
            401
        );
    }
}

#[test]
fn an_agent_runs_every_cell_and_submits_it() {
    for b in backends() {
        let s = Server::start(&b, &[]);
        let t = s.token("lab");
        let plan = upload(&s, &t, "bench-board");
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("agent.db");
        let out = std::process::Command::new(BIN)
            .args([
                "agent",
                "--server",
                &s.url,
                "--class",
                "bench-board",
                "--name",
                "board-1",
                "--exit-when-idle",
                "--results",
            ])
            .arg(&store)
            .env("POCKETBENCH_TOKEN", &t)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: {stdout}{}",
            b.name,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("4 cells run, 0 failed"), "{stdout}");
        let p = s.get_json(&format!("/api/v1/plans/{plan}"));
        assert_eq!(p["done"], 4, "{}", b.name);
        let results = s.get_json("/api/v1/results");
        assert_eq!(results.as_array().unwrap().len(), 4);
        let workloads: BTreeSet<String> = (1..=4)
            .map(|i| {
                s.get_json(&format!("/api/v1/results/{i}"))["result"]["workload"]["name"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            workloads,
            BTreeSet::from(["ycsb-a".to_string(), "ycsb-c".to_string()])
        );
    }
}
