//! A real `pocketbench serve` process for the server tests, on each back end the machine has:
//! a SQLite file always, and PostgreSQL when POCKETBENCH_TEST_POSTGRES names a server (a fresh
//! database is created for each server and dropped afterwards; scripts/test.sh starts a
//! throw-away cluster and sets it, with POCKETBENCH_REQUIRE_POSTGRES=1 so that a missing one
//! fails instead of being skipped).

use super::BIN;
use pocketbench::fleet::client::{Client, Response};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A database for one server.
pub struct Backend {
    pub name: &'static str,
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    pg_drop: Option<(String, String)>,
}

impl Drop for Backend {
    fn drop(&mut self) {
        if let Some((admin, db)) = &self.pg_drop {
            if let Ok(mut c) = postgres::Client::connect(admin, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
            }
        }
    }
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

fn sqlite() -> Backend {
    let dir = tempfile::tempdir().unwrap();
    Backend {
        name: "sqlite",
        url: dir.path().join("server.db").to_str().unwrap().to_string(),
        _dir: Some(dir),
        pg_drop: None,
    }
}

fn postgres(admin: &str) -> Backend {
    let db = format!(
        "pbtest_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut c = postgres::Client::connect(admin, postgres::NoTls)
        .unwrap_or_else(|e| panic!("POCKETBENCH_TEST_POSTGRES={admin}: {e}"));
    c.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
    let (base, _) = admin.rsplit_once('/').expect("a URL ending in /DATABASE");
    Backend {
        name: "postgres",
        url: format!("{base}/{db}"),
        _dir: None,
        pg_drop: Some((admin.to_string(), db)),
    }
}

/// Every back end to test: SQLite, and PostgreSQL when there is one.
pub fn backends() -> Vec<Backend> {
    let mut v = vec![sqlite()];
    match std::env::var("POCKETBENCH_TEST_POSTGRES") {
        Ok(admin) if !admin.is_empty() => v.push(postgres(&admin)),
        _ => {
            assert!(
                std::env::var_os("POCKETBENCH_REQUIRE_POSTGRES").is_none(),
                "POCKETBENCH_REQUIRE_POSTGRES is set but POCKETBENCH_TEST_POSTGRES is not"
            );
            eprintln!("no POCKETBENCH_TEST_POSTGRES: the PostgreSQL back end is not tested here");
        }
    }
    v
}

/// A running server; killed when dropped.
pub struct Server {
    child: Child,
    pub url: String,
    pub db: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Start `pocketbench serve` on `backend` on a free port with `extra` flags; returns once
    /// it has printed the address it listens on.
    pub fn start(backend: &Backend, extra: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args([
                "serve",
                "--db",
                &backend.url,
                "--listen",
                "127.0.0.1:0",
                "--workers",
                "4",
            ])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let url = loop {
            let mut line = String::new();
            assert!(
                out.read_line(&mut line).unwrap() > 0,
                "serve ended before listening"
            );
            if let Some(rest) = line.strip_prefix("listening on ") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in out.lines() {});
        Server {
            child,
            url,
            db: backend.url.clone(),
        }
    }

    /// The server process's id (to signal it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Add an API token `name` to the server's database (the command line way).
    pub fn token(&self, name: &str) -> String {
        let out = Command::new(BIN)
            .args(["serve", "token", "add", name, "--db", &self.db])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    pub fn client(&self, token: Option<&str>) -> Client {
        Client::new(&self.url, token).unwrap()
    }

    /// GET `path` as JSON (status must be 200).
    pub fn get_json(&self, path: &str) -> Value {
        let r = self.client(None).get(path).unwrap();
        assert_eq!(r.status, 200, "GET {path}: {}", r.message());
        serde_json::from_slice(&r.body).unwrap()
    }

    /// Results stored, by the API.
    pub fn healthy_count(&self) -> i64 {
        self.get_json("/healthz")["results"].as_i64().unwrap()
    }
}

/// A storage result (whole, as `results show --json` prints one) whose sequential read is
/// `mib_s`; `n` makes it distinct.
pub fn storage_result(mib_s: f64, n: usize) -> Value {
    let stat =
        |x: f64| json!({"mean": x, "min": x, "max": x, "stddev": 0.0, "cv": 0.0, "runs": [x]});
    json!({
        "id": n, "created_at": format!("2026-01-01T00:00:{:02}Z", n % 60),
        "tool_version": "pocketbench 0.1.0", "sqlite_version": "3.46.0",
        "settings": {"dir": "/data/local/tmp", "parts": ["seq-read"], "seq_read_size": 1048576,
                     "seq_write_size": 1048576, "buffer": 524288, "rand_ops": null,
                     "modes": ["direct"], "threads": [1], "runs": 1,
                     "tx": {"txns": 100, "journal_mode": "wal", "synchronous": "normal"}, "seed": n},
        "file_system": "f2fs",
        "files": [{"test": {"pattern": "seq-read", "mode": "direct", "file_size": 1048576,
                            "io_size": 524288, "ops": 2, "threads": 1},
                   "mib_s": stat(mib_s), "iops": stat(2.0 * mib_s), "method": "pread"}],
        "sqlite": [], "calibration": null
    })
}

/// A submission of `result` from a device `model` with storage `disk_model`.
pub fn submission(model: &str, disk_model: &str, result: Value) -> Value {
    json!({
        "schema": 1, "kind": "storage",
        "device": {"model": model, "os": "Android 14", "storage": {"disk_model": disk_model, "file_system": "f2fs"}},
        "result": result
    })
}

/// Send `GET /healthz` on the kept-alive connection `c` and read its whole answer: its status
/// line.
pub fn health_on(c: &mut std::net::TcpStream) -> String {
    use std::io::{Read, Write};
    c.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        c.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap())
        })
        .unwrap();
    let mut body = vec![0u8; length];
    c.read_exact(&mut body).unwrap();
    head.lines().next().unwrap().to_string()
}

/// A sandbox holding one stored `run` result (id 1), and its results store.
pub fn one_stored_run() -> (super::Sandbox, std::path::PathBuf) {
    let sb = super::Sandbox::new();
    let results = sb.results();
    sb.pb(
        super::words("run --engine null --records 5 --ops 5 --delay zero --no-overhead --quiet")
            .into_iter()
            .chain(["--results", super::arg(&results)]),
    )
    .expect_ok();
    (sb, results)
}

pub fn post(c: &Client, path: &str, body: &Value) -> Response {
    c.post(path, body.to_string().as_bytes()).unwrap()
}
