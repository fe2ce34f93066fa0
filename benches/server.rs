//! The results server under load, on SQLite and (with POCKETBENCH_TEST_POSTGRES set, as
//! scripts/postgres.sh prints it) on PostgreSQL, each a real `pocketbench serve` process on
//! loopback:
//!
//! 1. CLIENTS concurrent clients × SUBMISSIONS distinct submissions each (a storage result of
//!    about 1 KiB, one token per client, no rate limit): submissions/s, p50 and p99 latency,
//!    and lost submissions (acknowledged minus stored; must be 0).
//! 2. The ranking of one category over RESULTS stored results (bulk-loaded into the database,
//!    200 device models): the first request (every model stale: the 3σ statistics are computed
//!    for all of them), then requests with nothing new (the kept statistics are read), then a
//!    submission followed by a ranking (one model recomputed), ROUNDS times each; medians.
//! 3. IDLE kept-alive connections held open (each made one request and then waits): 1 000
//!    `/healthz` requests and 100 submissions on fresh connections meanwhile (p50, p99), then
//!    one more request on every held connection (all must still be served).
//! 4. The largest result a submission can make (a storage run whose longest text fills it to
//!    just under the stored-result bound): 32 clients fetching it at once (wall time), then
//!    READERS clients that ask for it and never read their answer, held while 1 000 `/healthz`
//!    requests are timed on fresh connections (p50, p99); the server's resident memory then
//!    and at its peak (VmRSS, VmHWM). Targets: `/healthz` p99 under 50 ms, RSS under 256 MB.
//! 5. The trace gallery and one trace's ranking over TRACES published traces and
//!    TRACE_RESULTS results replaying them ([`gallery`]). Target: every page under 50 ms.
//!
//! Run: `cargo bench --bench server [-- CLIENTS SUBMISSIONS RESULTS ROUNDS READERS TRACES
//! TRACE_RESULTS]` (defaults 8 1000 1000000 20 100 10000 1000000).

mod common;
#[path = "server/gallery.rs"]
mod gallery;

use pocketbench::fleet::client::Client;
use pocketbench::server::db::{Db, Dialect};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_pocketbench");

struct Serve(Child, String);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(db: &str) -> Serve {
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--db",
            db,
            "--listen",
            "127.0.0.1:0",
            "--rate-limit",
            "0",
            "--workers",
            "8",
            "--max-connections-per-client",
            "5000",
            // Idle kept-alive connections are closed after the header timeout: long enough
            // that the held ones of part 3 stay open however slow the machine.
            "--header-timeout",
            "600s",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("pocketbench serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .nth(2)
        .expect("listening on URL")
        .to_string();
    std::thread::spawn(move || for _ in out.lines() {});
    Serve(child, url)
}

fn token(db: &str, name: &str) -> String {
    let out = Command::new(BIN)
        .args(["serve", "token", "add", name, "--db", db])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A whole storage run (as `results show --json` prints one): a sequential read and a random
/// write test, distinct by `client` and `n`.
fn storage_run(client: usize, n: usize) -> serde_json::Value {
    let stat = |mean: f64| {
        json!({"mean": mean, "min": mean - 1.0, "max": mean + 1.0,
                                  "stddev": 1.0, "cv": 0.01, "runs": [mean - 1.0, mean, mean + 1.0]})
    };
    let test = |pattern: &str| {
        json!({"pattern": pattern, "mode": "direct", "file_size": 33554432,
                                      "io_size": 4096, "ops": 8192, "threads": 1})
    };
    let (seq, rand) = (100.0 + (n % 97) as f64, 1000.0 + (n % 89) as f64);
    json!({"id": n, "created_at": "2026-01-01T00:00:00Z", "tool_version": "pocketbench 0.1.0",
        "sqlite_version": "3.46.0",
        "settings": {"dir": "/data/local/tmp", "parts": ["seq-read", "rand-write"],
                     "seq_read_size": 33554432, "seq_write_size": 33554432, "buffer": 524288,
                     "layout": "androbench", "rand_ops": null, "modes": ["direct"], "threads": [1],
                     "runs": 3, "tx": {"txns": 100, "journal_mode": "wal", "synchronous": "normal"},
                     "seed": client},
        "file_system": "f2fs",
        "files": [{"test": test("seq-read"), "mib_s": stat(seq), "iops": stat(seq * 256.0), "method": "pread"},
                  {"test": test("rand-write"), "mib_s": stat(rand / 256.0), "iops": stat(rand), "method": "pwrite"}],
        "sqlite": [], "calibration": null})
}

fn submission(client: usize, n: usize) -> Vec<u8> {
    json!({"schema": 1, "kind": "storage",
        "device": {"model": format!("model-{}", (client * 7 + n) % 50), "os": "Android 14",
                   "storage": {"disk_model": "KLUDG4U", "file_system": "f2fs"}},
        "result": storage_run(client, n)})
    .to_string()
    .into_bytes()
}

fn pct(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn submissions(name: &str, db: &str, clients: usize, per_client: usize) {
    let s = serve(db);
    let tokens: Vec<String> = (0..clients)
        .map(|c| token(db, &format!("client{c}")))
        .collect();
    let t0 = Instant::now();
    let (mut lat, acked): (Vec<f64>, usize) = std::thread::scope(|scope| {
        let handles: Vec<_> = tokens
            .iter()
            .enumerate()
            .map(|(c, t)| {
                let client = Client::new(&s.1, Some(t)).unwrap();
                scope.spawn(move || {
                    let mut lat = Vec::with_capacity(per_client);
                    let mut acked = 0;
                    for n in 0..per_client {
                        let body = submission(c, n);
                        let t = Instant::now();
                        let r = client.post("/api/v1/results", &body).unwrap();
                        lat.push(t.elapsed().as_secs_f64() * 1e6);
                        acked += usize::from(r.status == 201);
                    }
                    (lat, acked)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).fold(
            (Vec::new(), 0),
            |(mut l, a), (l2, a2)| {
                l.extend(l2);
                (l, a + a2)
            },
        )
    });
    let secs = t0.elapsed().as_secs_f64();
    let stored = Client::new(&s.1, None).unwrap().get("/healthz").unwrap();
    let stored: serde_json::Value = stored.json().unwrap();
    let stored = stored["results"].as_u64().unwrap() as usize;
    println!(
        "{name:<9} submissions: {clients} clients × {per_client}: {:.0}/s, p50 {:.0} µs, p99 {:.0} µs, acknowledged {acked}, stored {stored}, lost {}",
        (clients * per_client) as f64 / secs,
        pct(&mut lat, 0.5),
        pct(&mut lat, 0.99),
        acked.saturating_sub(stored)
    );
}

/// RESULTS results of 200 models in `seq-read`, written by SQL (the server's schema).
fn bulk_load(db: &str, results: u64) {
    let d = Db::open(db, 1).unwrap();
    let mut c = d.write().unwrap();
    let series = match d.dialect() {
        Dialect::Sqlite => format!(
            "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {results})"
        ),
        Dialect::Postgres => format!("WITH s(n) AS (SELECT generate_series(1, {results}::bigint))"),
    };
    c.batch("BEGIN").unwrap();
    c.batch(&format!(
        "INSERT INTO results (id, hash, submitted_at, kind, model, manufacturer, soc, os, kernel, core_layout,
             storage_model, file_system, mount_options, tool_version, created_at, submitter, device, result)
         {series} SELECT n, 'bulk-' || n, 1700000000000 + n * 1000, 'storage', 'model-' || (n % 200), '', '',
             'Android 14', '', '', CASE WHEN n % 2 = 0 THEN 'A' ELSE 'B' END, 'f2fs', '',
             'pocketbench 0.1.0', '', 'bulk', '{{}}', '{{\"tool_version\":\"pocketbench 0.1.0\"}}' FROM s;
         INSERT INTO metrics (result_id, category, model, value, submitted_at)
         SELECT id, 'seq-read', model, 100 + (id * 7919 % 1000) / 10.0 + (id % 200), submitted_at FROM results
         WHERE submitter = 'bulk';
         INSERT INTO model_stats (category, model, version, computed, first_seen, total, kept, mean, stddev)
         SELECT 'seq-read', model, 1, 0, MIN(submitted_at), 0, 0, 0, 0 FROM metrics GROUP BY model;"
    ))
    .unwrap();
    if d.dialect() == Dialect::Postgres {
        c.batch("SELECT setval('results_id_seq', (SELECT MAX(id) FROM results))")
            .unwrap();
    }
    c.batch("COMMIT").unwrap();
    if d.dialect() == Dialect::Postgres {
        c.batch("ANALYZE").unwrap();
    }
}

fn ranking(name: &str, db: &str, results: u64, rounds: usize) {
    let t = Instant::now();
    bulk_load(db, results);
    let load = t.elapsed().as_secs_f64();
    let s = serve(db);
    let tok = token(db, "bench");
    let reader = Client::new(&s.1, None).unwrap();
    let writer = Client::new(&s.1, Some(&tok)).unwrap();
    let rank = || {
        let t = Instant::now();
        let r = reader.get("/api/v1/rankings/seq-read").unwrap();
        assert_eq!(r.status, 200);
        t.elapsed().as_secs_f64() * 1e3
    };
    let first = rank();
    let warm: Vec<f64> = (0..rounds).map(|_| rank()).collect();
    let after: Vec<f64> = (0..rounds)
        .map(|n| {
            let r = writer
                .post("/api/v1/results", &submission(1000, n))
                .unwrap();
            assert_eq!(r.status, 201);
            rank()
        })
        .collect();
    println!(
        "{name:<9} ranking over {results} results (loaded in {load:.1} s): first {first:.1} ms, then {:.2} ms, after a submission {:.2} ms (medians of {rounds})",
        common::median(warm),
        common::median(after)
    );
}

/// One `GET /healthz` on a kept-alive connection, read to its end.
fn health_on(c: &mut std::net::TcpStream) {
    c.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        c.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let n: usize = head
        .lines()
        .find_map(|l| {
            let l = l.to_ascii_lowercase();
            l.strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap())
        })
        .unwrap();
    c.read_exact(&mut vec![0u8; n]).unwrap();
}

/// 1 000 `/healthz` requests, each on a fresh connection: their times in ms.
fn health_times(reader: &Client) -> Vec<f64> {
    (0..1000)
        .map(|_| {
            let t = Instant::now();
            assert_eq!(reader.get("/healthz").unwrap().status, 200);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

fn idle(name: &str, db: &str, held: usize) {
    // SAFETY: reading and raising this process's open-file limit.
    unsafe {
        let mut r = std::mem::zeroed::<libc::rlimit>();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 {
            r.rlim_cur = r.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
    let s = serve(db);
    let tok = token(db, "idle");
    let addr = s.1.strip_prefix("http://").unwrap().to_string();
    let mut conns: Vec<std::net::TcpStream> = (0..held)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(&addr).unwrap();
            health_on(&mut c);
            c
        })
        .collect();
    let reader = Client::new(&s.1, None).unwrap();
    let mut lat = health_times(&reader);
    let writer = Client::new(&s.1, Some(&tok)).unwrap();
    let mut sub: Vec<f64> = (0..100)
        .map(|n| {
            let t = Instant::now();
            let r = writer
                .post("/api/v1/results", &submission(2000, n))
                .unwrap();
            assert_eq!(r.status, 201);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    for c in &mut conns {
        health_on(c);
    }
    println!(
        "{name:<9} {held} idle kept-alive connections held: /healthz p50 {:.2} ms, p99 {:.2} ms; submission p50 {:.2} ms, p99 {:.2} ms; all {held} still served",
        pct(&mut lat, 0.5),
        pct(&mut lat, 0.99),
        pct(&mut sub, 0.5),
        pct(&mut sub, 0.99)
    );
}

/// Resident memory of process `pid` now and at its peak, in MB (VmRSS, VmHWM).
fn rss_mb(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
}

fn non_readers(name: &str, db: &str, readers: usize) {
    let s = serve(db);
    let tok = token(db, "large");
    // The largest result: its longest text grown until the stored result is just under the
    // bound (the server writes it back compactly, as measured by the answer below).
    let mut run = storage_run(0, 0);
    let room = pocketbench::fleet::result_schema::MAX_RESULT_BYTES - run.to_string().len() - 64;
    run["sqlite_version"] = json!("x".repeat(room));
    let body = json!({"schema": 1, "kind": "storage",
        "device": {"model": "large", "storage": {"file_system": "f2fs"}}, "result": run});
    let writer = Client::new(&s.1, Some(&tok)).unwrap();
    let r = writer
        .post("/api/v1/results", body.to_string().as_bytes())
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.message());
    let id = r.json::<serde_json::Value>().unwrap()["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/v1/results/{id}");
    let reader = Client::new(&s.1, None).unwrap();
    let whole = reader.get(&path).unwrap().body.len();
    let t = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..32 {
            scope.spawn(|| assert_eq!(reader.get(&path).unwrap().body.len(), whole));
        }
    });
    let parallel = t.elapsed().as_secs_f64();
    let addr = s.1.strip_prefix("http://").unwrap().to_string();
    let held: Vec<std::net::TcpStream> = (0..readers)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(&addr).unwrap();
            write!(c, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
            c
        })
        .collect();
    let mut lat = health_times(&reader);
    let open = reader
        .get("/healthz")
        .unwrap()
        .json::<serde_json::Value>()
        .unwrap()["connections"]
        .clone();
    let stored = Db::open(db, 1)
        .and_then(|d| {
            let rows = d.read()?.query(
                "SELECT length(result) FROM results WHERE id = $1",
                &[id.into()],
            )?;
            Ok(rows[0].int(0))
        })
        .unwrap();
    let (rss, peak) = rss_mb(s.0.id());
    println!(
        "{name:<9} largest result {stored} bytes stored, {whole} answered: 32 parallel GETs {:.2} s; {readers} clients not reading it ({open} connections open): /healthz p50 {:.2} ms, p99 {:.2} ms; RSS {rss:.0} MB, peak {peak:.0} MB",
        parallel,
        pct(&mut lat, 0.5),
        pct(&mut lat, 0.99)
    );
    drop(held);
}

fn main() {
    let a: Vec<u64> = common::numbers();
    let clients = a.first().copied().unwrap_or(8) as usize;
    let per_client = a.get(1).copied().unwrap_or(1000) as usize;
    let results = a.get(2).copied().unwrap_or(1_000_000);
    let rounds = a.get(3).copied().unwrap_or(20).max(1) as usize;
    let readers = a.get(4).copied().unwrap_or(100) as usize;
    let traces = a.get(5).copied().unwrap_or(10_000).max(2);
    let trace_results = a.get(6).copied().unwrap_or(1_000_000).max(1);
    let dir = tempfile::tempdir().unwrap();
    let mut backends = vec![(
        "sqlite",
        dir.path().join("sub.db").display().to_string(),
        dir.path().join("rank.db").display().to_string(),
        dir.path().join("gallery.db").display().to_string(),
    )];
    if let Ok(admin) = std::env::var("POCKETBENCH_TEST_POSTGRES") {
        let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
        let base = admin.rsplit_once('/').unwrap().0.to_string();
        for db in ["pbbench_sub", "pbbench_rank", "pbbench_gallery"] {
            c.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
                .unwrap();
            c.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
        }
        backends.push((
            "postgres",
            format!("{base}/pbbench_sub"),
            format!("{base}/pbbench_rank"),
            format!("{base}/pbbench_gallery"),
        ));
    }
    // `-- gallery`: part 5 only.
    let only_gallery = std::env::args().any(|a| a == "gallery");
    for (name, sub, rank, gallery) in &backends {
        gallery::gallery(name, gallery, traces, trace_results, rounds);
        if only_gallery {
            continue;
        }
        submissions(name, sub, clients, per_client);
        ranking(name, rank, results, rounds);
        idle(name, sub, 1000);
        non_readers(name, sub, readers);
    }
}
