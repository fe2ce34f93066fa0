//! Two `pocketbench serve` processes on one PostgreSQL database, as behind a load balancer:
//! results submitted through either give identical rankings, pages and device analyses from
//! both; agents claiming through both at once never get the same cell; a token's writes per
//! minute are counted across the two (its allowance spent through one is spent for the other).
//! PostgreSQL only (SQLite is one process's file); skipped without POCKETBENCH_TEST_POSTGRES.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, post, storage_result, submission, Server};
use serde_json::{json, Value};
use std::collections::BTreeSet;

const PLAN: &str = r#"
name = "shared"
repeats = 3
[run]
records = 50
ops = 30
delay = "zero"
no-overhead = true
[axes]
workload = ["ycsb-a", "ycsb-c"]
"#;

#[test]
fn two_servers_on_one_postgres_agree_share_cells_and_rate_limits() {
    let Some(b) = backends().into_iter().find(|b| b.name == "postgres") else {
        return;
    };
    let flags = ["--rate-limit", "4", "--min-results", "2"];
    let (one, two) = (Server::start(&b, &flags), Server::start(&b, &flags));
    let servers = [&one, &two];
    // Results through both, each token within its four writes a minute.
    let mut n = 0;
    for (t, values) in [
        ("t1", [100.0, 102.0, 120.0, 118.0]),
        ("t2", [101.0, 119.0, 500.0, 13.0]),
    ] {
        let token = one.token(t);
        for (i, v) in values.into_iter().enumerate() {
            n += 1;
            let model = ["Alpha", "Alpha", "Beta", "Beta"][i];
            let via = servers[n % 2].client(Some(&token));
            let r = post(
                &via,
                "/api/v1/results",
                &submission(model, "", storage_result(v, n)),
            );
            assert_eq!(r.status, 201, "{}", r.message());
        }
        // The fifth write of the minute is refused by either server.
        for s in servers {
            let r = post(
                &s.client(Some(&token)),
                "/api/v1/results",
                &submission("Gamma", "", storage_result(7.0, 100 + n)),
            );
            assert_eq!(r.status, 429, "{t}: {}", r.message());
        }
    }
    // Identical answers from both.
    for path in [
        "/api/v1/rankings/seq-read",
        "/api/v1/devices/Alpha",
        "/api/v1/trends/seq-read",
        "/",
        "/rankings/seq-read",
        "/devices/Beta",
    ] {
        let a = one.client(None).get(path).unwrap();
        let b = two.client(None).get(path).unwrap();
        assert_eq!(a.status, 200, "{path}");
        assert_eq!(a.body, b.body, "{path} differs between the servers");
    }
    let ranking = one.get_json("/api/v1/rankings/seq-read");
    let models: Vec<&str> = ranking["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["Beta", "Alpha"]);
    // 6 cells (2 workloads × 3 repeats), four agents per server claiming at once.
    let token = one.token("fleet");
    let r = post(
        &two.client(Some(&token)),
        "/api/v1/plans",
        &json!({"plan": PLAN}),
    );
    assert_eq!(r.status, 201, "{}", r.message());
    let claimed: Vec<i64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|a| {
                let c = servers[a % 2].client(Some(&token));
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
    assert_eq!((claimed.len(), distinct.len()), (6, 6), "{claimed:?}");
}
