//! Part 5 of the server bench: the trace gallery and one trace's ranking over TRACES published
//! traces and TRACE_RESULTS results replaying them (bulk-loaded by SQL in the server's schema:
//! a tenth of the results replay trace 1, the rest are spread over the others; 50 device
//! models, two engine setups). Timed on a real `pocketbench serve`: the gallery's JSON (newest
//! first, most replayed first, a title search) and page, then trace 1's JSON and page — the
//! first request (every model of both setups stale), then with nothing new, then after a real
//! run result replaying it is submitted (one model recomputed); medians of ROUNDS.

use pocketbench::fleet::client::Client;
use pocketbench::server::db::{Db, Dialect};
use std::time::Instant;

/// Result ids of the bulk-loaded replays start past this (a real submission gets id 1).
const FIRST_ID: u64 = 10_000_000;

/// TRACES traces and RESULTS replays of them, written by SQL.
fn bulk_load(db: &str, traces: u64, results: u64) {
    let d = Db::open(db, 1).unwrap();
    let mut c = d.write().unwrap();
    let series = |n: u64| match d.dialect() {
        Dialect::Sqlite => {
            format!("WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {n})")
        }
        Dialect::Postgres => format!("WITH s(n) AS (SELECT generate_series(1, {n}::bigint))"),
    };
    let hex = |width: usize| match d.dialect() {
        Dialect::Sqlite => format!("printf('%0{width}x', n)"),
        Dialect::Postgres => format!("lpad(to_hex(n), {width}, '0')"),
    };
    let popular = (results / 10).max(1);
    c.batch("BEGIN").unwrap();
    c.batch(&format!(
        "INSERT INTO traces (id, sha256, digest, title, description, anonymised, source, bytes, chunks,
             statements, connections, mix, header, stats, stats_text, submitter, submitted_at, runs, devices)
         {s} SELECT n, {sha}, {digest}, 'App trace ' || n, 'bulk', 'literals',
             CASE WHEN n % 3 = 0 THEN 'android-logcat' ELSE 'jsonl' END, 1000, 1, 100, 2,
             '{{\"INSERT\":40,\"SELECT\":60}}', '{{}}', '{{}}', 'stats', 'bulk', 1700000000000 + n, 0, 0 FROM s;
         INSERT INTO trace_runs (result_id, trace_id, model, setup, busy_ms, p95_us)
         {r} SELECT {FIRST_ID} + n, CASE WHEN n <= {popular} THEN 1 ELSE 2 + n % ({traces} - 1) END,
             'model-' || (n % 50), CASE WHEN n % 2 = 0 THEN 'sqlite' ELSE 'null' END,
             10 + (n * 7919 % 1000) / 100.0 + (n % 50), 100 + (n * 104729 % 1000) + (n % 50) FROM s;
         INSERT INTO metrics (result_id, category, model, value, submitted_at)
         SELECT result_id, 'trace:' || trace_id || ':' || setup || ':busy', model, busy_ms, 1700000000000 + result_id
         FROM trace_runs;
         INSERT INTO metrics (result_id, category, model, value, submitted_at)
         SELECT result_id, 'trace:' || trace_id || ':' || setup || ':p95', model, p95_us, 1700000000000 + result_id
         FROM trace_runs;
         INSERT INTO model_stats (category, model, version, computed, first_seen, total, kept, mean, stddev)
         SELECT category, model, 1, 0, MIN(submitted_at), 0, 0, 0, 0 FROM metrics
         WHERE category LIKE 'trace:%' GROUP BY category, model;
         INSERT INTO trace_setups (trace_id, setup, runs, busy_sum, p95_sum)
         SELECT trace_id, setup, COUNT(*), SUM(busy_ms), SUM(p95_us) FROM trace_runs GROUP BY trace_id, setup;
         INSERT INTO trace_models (trace_id, model) SELECT DISTINCT trace_id, model FROM trace_runs;
         UPDATE traces SET runs = c.n FROM (SELECT trace_id, COUNT(*) AS n FROM trace_runs
             GROUP BY trace_id) c WHERE c.trace_id = traces.id;
         UPDATE traces SET devices = c.n FROM (SELECT trace_id, COUNT(*) AS n FROM trace_models
             GROUP BY trace_id) c WHERE c.trace_id = traces.id;",
        s = series(traces),
        r = series(results),
        sha = hex(64),
        digest = hex(16),
    ))
    .unwrap();
    if d.dialect() == Dialect::Postgres {
        c.batch("SELECT setval('traces_id_seq', (SELECT MAX(id) FROM traces))")
            .unwrap();
    }
    c.batch("COMMIT").unwrap();
    if d.dialect() == Dialect::Postgres {
        c.batch("ANALYZE").unwrap();
    }
}

/// A real run result (a null-engine run of a generated trace, by this pocketbench) as a
/// submission, its trace digest made trace 1's; `n` makes it distinct.
fn replay_of_trace_1(template: &serde_json::Value, n: usize) -> Vec<u8> {
    let mut r = template.clone();
    r["trace"]["digest"] = serde_json::json!(format!("{:016x}", 1));
    r["seed"] = serde_json::json!(n);
    serde_json::json!({"schema": 1, "kind": "run",
        "device": {"model": format!("model-{}", n % 50), "os": "Android 14"}, "result": r})
    .to_string()
    .into_bytes()
}

/// A run summary made by the binary.
fn template() -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(super::BIN)
        .args([
            "run",
            "--engine",
            "null",
            "--records",
            "5",
            "--ops",
            "50",
            "--delay",
            "zero",
        ])
        .args(["--no-overhead", "--json", "--results"])
        .arg(dir.path().join("r.db"))
        .output()
        .unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

pub fn gallery(name: &str, db: &str, traces: u64, results: u64, rounds: usize) {
    let t = Instant::now();
    bulk_load(db, traces, results);
    let load = t.elapsed().as_secs_f64();
    let s = super::serve(db);
    let tok = super::token(db, "bench");
    let reader = Client::new(&s.1, None).unwrap();
    let writer = Client::new(&s.1, Some(&tok)).unwrap();
    let time = |path: &str| {
        let t = Instant::now();
        let r = reader.get(path).unwrap();
        assert_eq!(r.status, 200, "{path}: {}", r.message());
        t.elapsed().as_secs_f64() * 1e3
    };
    let median = |path: &str| super::common::median((0..rounds).map(|_| time(path)).collect());
    let trace_1 = format!("{:064x}", 1);
    let api = format!("/api/v1/traces/{trace_1}");
    let first = time(&api);
    let figures = [
        ("gallery JSON", median("/api/v1/traces")),
        ("by runs", median("/api/v1/traces?sort=runs")),
        ("search", median("/api/v1/traces?q=trace%20123")),
        ("page", median("/traces")),
        ("trace JSON", median(&api)),
        ("trace page", median(&format!("/traces/{trace_1}"))),
    ];
    let run = template();
    let after: Vec<f64> = (0..rounds)
        .map(|n| {
            let r = writer
                .post("/api/v1/results", &replay_of_trace_1(&run, n))
                .unwrap();
            assert_eq!(r.status, 201, "{}", r.message());
            time(&api)
        })
        .collect();
    let linked = reader
        .get(&api)
        .unwrap()
        .json::<serde_json::Value>()
        .unwrap()["runs"]
        .clone();
    let shown: Vec<String> = figures
        .iter()
        .map(|(k, v)| format!("{k} {v:.2} ms"))
        .collect();
    println!(
        "{name:<9} gallery over {traces} traces and {results} results (loaded in {load:.1} s): {}; trace 1 ({} runs) first {first:.1} ms, after a submission {:.2} ms (medians of {rounds})",
        shown.join(", "),
        linked,
        super::common::median(after)
    );
}
