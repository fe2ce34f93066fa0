//! Shared helpers for the integration tests: run the real `pocketbench` binary inside a
//! private temporary directory (its working directory, so relative file names and the default
//! results store stay inside it), and read back what it printed or stored.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

pub mod browser;
pub mod fake_device;
pub mod jvm;
pub mod mounts;
#[cfg(feature = "server")]
pub mod server;
pub mod study;
pub mod sysfs;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_pocketbench");

/// A file under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// Whitespace-separated command-line arguments.
pub fn words(args: &str) -> Vec<&str> {
    args.split_whitespace().collect()
}

/// `path` as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Exit status and output of one invocation.
#[derive(Debug)]
pub struct Outcome {
    pub args: Vec<String>,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// Panic, showing everything, unless the command exited with `code`.
    pub fn expect_code(self, code: i32) -> Self {
        assert_eq!(
            self.code,
            Some(code),
            "pocketbench {}\n--- stdout\n{}\n--- stderr\n{}",
            self.args.join(" "),
            self.stdout,
            self.stderr
        );
        self
    }

    pub fn expect_ok(self) -> Self {
        self.expect_code(0)
    }

    /// stdout parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "pocketbench {}: stdout is not JSON ({e}):\n{}",
                self.args.join(" "),
                self.stdout
            )
        })
    }

    /// The non-empty lines of stderr.
    pub fn stderr_lines(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect()
    }
}

/// A private working directory for one test, removed when dropped.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    pub fn new() -> Self {
        Sandbox {
            dir: tempfile::Builder::new()
                .prefix("pocketbench-test-")
                .tempdir()
                .expect("creating a temporary directory"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// This test's results store.
    pub fn results(&self) -> PathBuf {
        self.path("results.db")
    }

    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, contents).expect("writing a test file");
        path
    }

    /// Run `pocketbench ARGS` in this directory.
    pub fn pb<I, S>(&self, args: I) -> Outcome
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        pb_with(args, |c| {
            c.current_dir(self.dir.path());
        })
    }

    /// For each `(ARGS, needle)`: `pocketbench ARGS` (whitespace-separated) exits 2 with one
    /// line on stderr containing `needle`; afterwards no default results store exists here.
    pub fn expect_refused(&self, cases: &[(&str, &str)]) {
        for (args, needle) in cases {
            let out = self.pb(words(args)).expect_code(2);
            assert_eq!(out.stderr_lines().len(), 1, "{args}: {}", out.stderr);
            assert!(out.stderr.contains(needle), "{args}: {}", out.stderr);
        }
        assert!(!self.path("pocketbench.db").exists());
    }

    /// `pocketbench run ARGS --results <this test's store> --json`, which must succeed; the
    /// summary it printed.
    pub fn run_json(&self, args: &[&str]) -> Value {
        let results = self.results();
        let mut all = vec!["run", "--results", arg(&results), "--json"];
        all.extend_from_slice(args);
        self.pb(all).expect_ok().json()
    }

    /// `pocketbench trace gen ARGS -o NAME`, which must succeed; the trace's path.
    pub fn trace_gen(&self, name: &str, args: &[&str]) -> PathBuf {
        let mut all = vec!["trace", "gen", "-o", name];
        all.extend_from_slice(args);
        self.pb(all).expect_ok();
        self.path(name)
    }

    /// `pocketbench trace import` of the statement log `log` (JSON lines) written as
    /// `app.jsonl`, into `app.pbt`; the trace's path.
    pub fn import_log(&self, log: &str) -> PathBuf {
        let (log, trace) = (self.write("app.jsonl", log), self.path("app.pbt"));
        self.pb(["trace", "import", arg(&log), "-o", arg(&trace)])
            .expect_ok();
        trace
    }

    /// `pocketbench run` of `trace` on SQLite in the folder `dir`, stored in the sandbox's
    /// results; it must replay without errors. The run's summary.
    pub fn replay_on_sqlite(&self, trace: &Path, dir: &str) -> Value {
        let dir = self.path(dir);
        let run = self.run_json(&[
            "--engine",
            "sqlite",
            "--trace",
            arg(trace),
            "--dir",
            arg(&dir),
            "--no-overhead",
        ]);
        assert_eq!(run["errors"], 0, "{}", run["first_error"]);
        run
    }

    /// `pocketbench trace show FILE --json`.
    pub fn trace_show(&self, trace: &Path) -> Value {
        self.pb(["trace", "show", arg(trace), "--json"])
            .expect_ok()
            .json()
    }
}

/// Run `pocketbench ARGS`, with `configure` applied to the command first (working directory,
/// environment); `RUST_BACKTRACE` is always removed.
pub fn pb_with<I, S>(args: I, configure: impl FnOnce(&mut Command)) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    let mut cmd = Command::new(BIN);
    cmd.args(&args).env_remove("RUST_BACKTRACE");
    configure(&mut cmd);
    let out = cmd.output().expect("starting pocketbench");
    Outcome {
        args,
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run `pocketbench ARGS` in the test's own working directory.
pub fn pb<I, S>(args: I) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    pb_with(args, |_| {})
}

/// The unsigned integer at JSON pointer `at` (e.g. `/time/delay_slept_ns`).
pub fn uint(v: &Value, at: &str) -> u64 {
    v.pointer(at)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{at} is not an unsigned integer in {v:#}"))
}

/// The string at JSON pointer `at`.
pub fn text<'a>(v: &'a Value, at: &str) -> &'a str {
    v.pointer(at)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{at} is not a string in {v:#}"))
}

/// Open a results store directly (read-only; waits up to 10 s for a writer's lock).
pub fn store(path: &Path) -> rusqlite::Connection {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("opening {}: {e}", path.display()));
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{}: busy timeout: {e}", path.display()));
    conn
}

/// A single integer from a query on the results store at `path`.
pub fn count(path: &Path, sql: &str, params: impl rusqlite::Params) -> i64 {
    store(path)
        .query_row(sql, params, |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql} on {}: {e}", path.display()))
}

/// Runs stored in the results store at `path`.
pub fn stored_runs(path: &Path) -> i64 {
    count(path, "SELECT count(*) FROM runs", [])
}

/// Samples stored for run `id`.
pub fn stored_samples(path: &Path, id: i64) -> i64 {
    count(
        path,
        "SELECT count(*) FROM op_samples WHERE run_id = ?1",
        [id],
    )
}

/// The spool file a run that its store could not take names on stderr ("… kept in FILE: …").
pub fn spool_named(out: &Outcome) -> String {
    let line = out
        .stderr_lines()
        .into_iter()
        .find(|l| l.contains("kept in"))
        .unwrap_or_else(|| panic!("no spool file named: {}", out.stderr))
        .to_string();
    assert!(line.contains("pocketbench results import"), "{line}");
    line.split("kept in ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .unwrap()
        .to_string()
}

/// `pocketbench durability ARGS --no-speed --json` in a scratch store; the run.
pub fn durability_run(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("r.db");
    let mut all = vec!["durability", "--no-speed", "--json", "-q", "--results"];
    all.push(arg(&store));
    all.extend_from_slice(args);
    pb(all).expect_ok().json()
}

/// The configuration of a `durability --json` run whose settings include `value`.
pub fn durability_config<'a>(run: &'a Value, value: &str) -> &'a Value {
    run["configurations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["config"]
                .as_array()
                .unwrap()
                .iter()
                .any(|kv| kv[1] == value)
        })
        .unwrap_or_else(|| panic!("no {value} in {run}"))
}

/// Every path under `dir`, sorted (to show that nothing was created there).
pub fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            out.push(e.path().display().to_string());
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// `hostile.pbt` in `sb`, generated from [`hostile_schema_spec`] naming the new, empty folder
/// `outside`; that folder's path.
pub fn hostile_trace(sb: &Sandbox) -> PathBuf {
    let outside = sb.path("outside");
    std::fs::create_dir(&outside).unwrap();
    sb.write("hostile.toml", hostile_schema_spec(&outside));
    sb.pb([
        "trace",
        "gen",
        "--workload",
        "hostile.toml",
        "-o",
        "hostile.pbt",
    ])
    .expect_ok();
    outside
}

/// A SQL spec whose schema attaches a file in `outside`, writes a table there, vacuums into
/// another and moves the temporary directory there; one harmless statement in its run.
pub fn hostile_schema_spec(outside: &Path) -> String {
    let o = outside.display();
    format!(
        "[sql]\nrecords = 1\noperations = 1\n\
         schema = [\"CREATE TABLE t(a)\", \"ATTACH DATABASE '{o}/e.db' AS e\", \"CREATE TABLE e.x(a)\", \"VACUUM INTO '{o}/copy.db'\", \"PRAGMA temp_store_directory = '{o}'\"]\n\
         load = \"INSERT INTO t VALUES({{key}})\"\n[[sql.statement]]\nsql = \"SELECT * FROM t\"\n"
    )
}
