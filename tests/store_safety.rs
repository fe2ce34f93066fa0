//! A finished measurement is never lost and nothing is left behind: a reader is never blocked
//! by a writer; a run finishing while another process holds the store's write lock waits and
//! stores, or, past its wait budget, is spooled beside the store and `results import` brings
//! it in; foreign, newer, corrupt or unusable stores are refused before anything is measured
//! (and another application's database gets no tables); SIGINT and SIGTERM remove a command's
//! temporary files; `report` on an empty store creates no directory; two concurrent
//! `matrix --resume` split the missing runs between them.

mod common;

use common::{arg, count, pb, pb_with, stored_runs, words, Sandbox, BIN};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// Hold `path`'s write lock (as another process's long transaction would) until dropped.
fn hold_write_lock(path: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE; INSERT OR REPLACE INTO meta VALUES ('held', '1');")
        .unwrap();
    conn
}

const SMALL: &str = "run --engine sqlite --records 10 --ops 25 --delay zero --no-overhead --quiet";

fn small_run(sb: &Sandbox) {
    let out = sb.pb([&words(SMALL)[..], &["--results", arg(&sb.results())]].concat());
    out.expect_ok();
}

#[test]
fn readers_are_never_blocked_by_a_writer() {
    let sb = Sandbox::new();
    small_run(&sb);
    let lock = hold_write_lock(&sb.results());
    let out = sb
        .pb(["results", "list", "--results", arg(&sb.results())])
        .expect_ok();
    assert!(out.stdout.contains("sqlite"), "{}", out.stdout);
    sb.pb(["results", "show", "1", "--results", arg(&sb.results())])
        .expect_ok();
    drop(lock);
}

#[test]
fn a_finishing_run_waits_for_a_busy_store_then_stores() {
    let sb = Sandbox::new();
    small_run(&sb);
    let lock = hold_write_lock(&sb.results());
    let mut child = Command::new(BIN)
        .args(words(SMALL))
        .args(["--results", arg(&sb.results())])
        .current_dir(sb.path(""))
        .env("POCKETBENCH_STORE_WAIT_S", "600")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The run says it is waiting (the synchronisation point), then the lock goes away.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("results store busy") {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the run ended without waiting"
        );
    }
    lock.execute_batch("ROLLBACK").unwrap();
    drop(lock);
    assert!(child.wait().unwrap().success());
    assert_eq!(stored_runs(&sb.results()), 2);
}

#[test]
fn a_run_the_store_cannot_take_is_spooled_then_imported() {
    let sb = Sandbox::new();
    small_run(&sb);
    let store = sb.results();
    let lock = hold_write_lock(&store);
    let out = pb_with(
        [&words(SMALL)[..], &["--results", arg(&store)]].concat(),
        |c| {
            c.current_dir(sb.path(""))
                .env("POCKETBENCH_STORE_WAIT_S", "0");
        },
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let spool = common::spool_named(&out);
    assert!(Path::new(&spool).is_file(), "{spool}");
    assert!(
        spool.starts_with(arg(&store)),
        "spooled beside the store: {spool}"
    );
    drop(lock);
    assert_eq!(stored_runs(&store), 1);
    let out = sb
        .pb(["results", "import", &spool, "--results", arg(&store)])
        .expect_ok();
    assert!(
        out.stdout.contains("imported 1 result(s)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("spool file removed"), "{}", out.stdout);
    assert!(!Path::new(&spool).exists());
    assert_eq!(stored_runs(&store), 2);
    // The run came in whole: all 25 samples, and its summary carries its new id.
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM op_samples WHERE run_id = 2",
            []
        ),
        25
    );
    assert_eq!(
        count(
            &store,
            "SELECT json_extract(summary, '$.id') FROM runs WHERE id = 2",
            []
        ),
        2
    );
    // Importing a store into itself, or a file with no runs, is refused.
    let o = sb.pb(["results", "import", arg(&store), "--results", arg(&store)]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
}

#[test]
fn unusable_stores_are_refused_before_measuring() {
    let sb = Sandbox::new();
    let other = sb.path("contacts.db");
    {
        let c = rusqlite::Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('a');")
            .unwrap();
    }
    let newer = sb.path("newer.db");
    pocketbench::results::store::Store::open(&newer).unwrap();
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute(
            "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    let text = sb.write("notes.db", "just some text, not a database at all............................................................................................");
    std::fs::create_dir(sb.path("dir.db")).unwrap();
    let corrupt = sb.path("corrupt.db");
    let sb2 = Sandbox::new();
    small_run(&sb2);
    // Checkpoint into the main file, then damage the middle of the B-tree pages.
    rusqlite::Connection::open(sb2.results())
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
        .unwrap();
    let mut bytes = std::fs::read(sb2.results()).unwrap();
    let n = bytes.len();
    for b in &mut bytes[4096..n.min(4096 * 6)] {
        *b = 0x5A;
    }
    std::fs::write(&corrupt, bytes).unwrap();
    for (path, needle) in [
        (&other, "another application's SQLite database"),
        (&newer, "written by a newer pocketbench (store schema 99"),
        (&text, "not a SQLite database"),
        (&sb.path("dir.db"), "is a directory"),
        (&corrupt, "corrupt"),
        (&sb.path("missing/dir/r.db"), "does not exist"),
    ] {
        let out = sb.pb([
            &words(SMALL)[..],
            &["--raw", "ops.csv", "--results", arg(path)],
        ]
        .concat());
        assert_eq!(out.code, Some(2), "{}: {}", path.display(), out.stderr);
        assert!(
            out.stderr.contains(needle),
            "{}: {}",
            path.display(),
            out.stderr
        );
        assert!(
            !sb.path("ops.csv").exists(),
            "measured before refusing {}",
            path.display()
        );
    }
    // The other application's database is as it was: no tables added, not marked.
    let c = rusqlite::Connection::open(&other).unwrap();
    let tables: i64 = c
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .unwrap();
    let app: i64 = c
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!((tables, app), (1, 0));
    // Readers refuse it too.
    let out = sb.pb(["results", "list", "--results", arg(&other)]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
}

/// Start `args` in `sb` with its temporary directory inside the sandbox, wait until `ready`
/// holds, send `signal`, and return how the process ended.
fn interrupted(
    sb: &Sandbox,
    args: &[&str],
    ready: impl Fn() -> bool,
    signal: i32,
) -> std::process::ExitStatus {
    let tmp = sb.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(sb.path(""))
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Polls a condition on the file system (what the command has created so far).
    while !ready() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before it was interrupted"
        );
        std::thread::yield_now();
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    child.wait().unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigint_and_sigterm_leave_no_temporary_files() {
    use std::os::unix::process::ExitStatusExt;
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let sb = Sandbox::new();
        let tmp = sb.path("tmp");
        // A run in its replay: the work directory holds the replay's sample spool.
        let status = interrupted(
            &sb,
            &words("run --ops 100000 --delay fixed:1ms --engine sqlite --quiet"),
            || {
                entries(&tmp)
                    .iter()
                    .any(|d| entries(&tmp.join(d)).iter().any(|f| f.contains("samples")))
            },
            signal,
        );
        assert_eq!(status.signal(), Some(signal));
        assert_eq!(entries(&tmp), Vec::<String>::new(), "left in TMPDIR");
        assert!(!sb.results().exists());
        // A trace being written: its partial file goes.
        let status = interrupted(
            &sb,
            &words("trace gen --ops 50000000 --records 10 -o big.pbt"),
            || sb.path("big.pbt.partial").exists(),
            signal,
        );
        assert_eq!(status.signal(), Some(signal));
        assert!(!sb.path("big.pbt.partial").exists() && !sb.path("big.pbt").exists());
    }
}

#[test]
fn report_on_an_empty_store_creates_no_output_directory() {
    let sb = Sandbox::new();
    pocketbench::results::store::Store::open(&sb.results()).unwrap();
    let out = sb.pb([
        "report",
        "--format",
        "svg",
        "-o",
        "figs",
        "--results",
        arg(&sb.results()),
    ]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("no runs stored"), "{}", out.stderr);
    assert!(!sb.path("figs").exists());
}

/// 6 cells, each a few hundred paced operations, so two processes overlap.
const PLAN: &str = r#"
name = "split"
repeats = 1
[run]
records = 20
ops = 150
no-overhead = true
engine = "null"
delay = "fixed:1ms"
[axes]
workload = ["ycsb-a", "ycsb-b", "ycsb-c"]
seed = ["1", "2"]
"#;

#[test]
fn two_concurrent_resumes_split_the_missing_runs() {
    let sb = Sandbox::new();
    let plan = sb.write("split.toml", PLAN);
    let store = sb.results();
    let matrix = |extra: &[&str]| {
        let mut a = vec!["matrix", arg(&plan), "--results", arg(&store)];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    pb(matrix(&[])).expect_ok();
    // Forget five of the six runs, as if the study had been interrupted after the first.
    {
        let c = rusqlite::Connection::open(&store).unwrap();
        c.execute_batch(
            "DELETE FROM matrix_cells WHERE run_id > 1; DELETE FROM op_samples WHERE run_id > 1;
             DELETE FROM runs WHERE id > 1;",
        )
        .unwrap();
    }
    let dry = pb(matrix(&["--resume", "--dry-run"])).expect_ok();
    assert!(
        dry.stdout.contains("holds 1 of 6 runs; 5 would run"),
        "{}",
        dry.stdout
    );
    assert_eq!(
        dry.stdout
            .lines()
            .filter(|l| l.contains("repeat 1/1"))
            .count(),
        5
    );
    let spawn = || {
        Command::new(BIN)
            .args(matrix(&["--resume", "--json"]))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let mut stored = 0;
    for o in &outs {
        assert!(o.status.success(), "a resume failed");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["outcome"]["failed"].as_array().map(Vec::len), Some(0));
        stored += v["outcome"]["stored"].as_u64().unwrap();
    }
    assert_eq!(
        stored, 5,
        "each missing run made exactly once between the two"
    );
    assert_eq!(count(&store, "SELECT count(*) FROM matrix_cells", []), 6);
    assert_eq!(
        count(
            &store,
            "SELECT count(DISTINCT cell_id) FROM matrix_cells",
            []
        ),
        6
    );
    assert_eq!(count(&store, "SELECT count(*) FROM matrix_claims", []), 0);
}
