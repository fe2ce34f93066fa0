//! `pocketbench run` end to end: key popularity, the original PocketData files on SQLite with
//! their recorded delays, I/O accounting per SQLite option, the results store and `--raw`,
//! pacing, warm and fresh-process replays, SQL that fails in the middle of a run, and a kept
//! `--dir` used twice (the second run starts from an empty folder).

mod common;

use common::{arg, fixture, stored_runs, stored_samples, text, uint, words, Sandbox};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// A `--raw` CSV file: the header's column names and the rows, each a map column → value.
fn read_csv(path: &Path) -> (Vec<String>, Vec<HashMap<String, String>>) {
    let content =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut lines = content.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header line")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells.len(), header.len(), "row {line:?}");
            header
                .iter()
                .cloned()
                .zip(cells.iter().map(|c| c.to_string()))
                .collect()
        })
        .collect();
    (header, rows)
}

fn number(row: &HashMap<String, String>, column: &str) -> u64 {
    row[column]
        .parse()
        .unwrap_or_else(|e| panic!("{column} = {:?}: {e}", row[column]))
}

/// Share of the operations that went to the most popular 10% of 500 keys, ycsb-c, 20 000 ops.
fn top_decile_share(extra: &[&str]) -> f64 {
    let sb = Sandbox::new();
    let mut args = words("--engine null --workload ycsb-c --records 500 --ops 20000 --delay zero --raw ops.csv --no-samples --no-overhead");
    args.extend_from_slice(extra);
    let s = sb.run_json(&args);
    assert_eq!(uint(&s, "/ops"), 20_000);
    let (_, rows) = read_csv(&sb.path("ops.csv"));
    assert_eq!(rows.len(), 20_000);
    let mut per_key: HashMap<u64, u64> = HashMap::new();
    for row in &rows {
        assert_eq!(row["kind"], "read");
        *per_key.entry(number(row, "key")).or_default() += 1;
    }
    assert!(per_key.len() <= 500, "{} distinct keys", per_key.len());
    let mut counts: Vec<u64> = per_key.into_values().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    counts.iter().take(50).sum::<u64>() as f64 / rows.len() as f64
}

#[test]
fn scrambled_zipfian_keys_are_skewed() {
    let share = top_decile_share(&[]);
    // YCSB's scrambled zipfian over 500 keys sends about 25% of requests to the top 10%.
    assert!(share > 0.18, "top 10% of keys drew {:.1}%", share * 100.0);
}

#[test]
fn uniform_keys_are_not_skewed() {
    let share = top_decile_share(&["--distribution", "uniform"]);
    assert!(share < 0.14, "top 10% of keys drew {:.1}%", share * 100.0);
}

#[test]
fn a_0ms_fixture_runs_on_sqlite() {
    let sb = Sandbox::new();
    let json = fixture("pocketdata/workload_a_0ms.json");
    // synchronous=off keeps the suite fast; the statements and their outcome are the same.
    let s = sb.run_json(&[
        "--workload",
        arg(&json),
        "-o",
        "synchronous=off",
        "--no-overhead",
    ]);
    assert_eq!(text(&s, "/engine/name"), "sqlite");
    assert_eq!(text(&s, "/workload/source"), "pocketdata-json");
    assert_eq!(text(&s, "/delay"), "recorded");
    assert_eq!(uint(&s, "/ops"), 1800);
    assert_eq!(uint(&s, "/errors"), 0, "first error: {}", s["first_error"]);
    assert_eq!(uint(&s, "/trace/load_ops"), 501);
    assert_eq!(uint(&s, "/time/delay_requested_ns"), 0);
    assert_eq!(uint(&s, "/time/sleeps"), 0);
    assert!(uint(&s, "/latency_us/update/count") > 0);
    assert!(uint(&s, "/io/total/writes") > 0, "updates wrote nothing");
}

#[test]
fn ia_log_fixture_replays_its_recorded_delays() {
    const RECORDED_NS: u64 = 11_544_000_000;
    let sb = Sandbox::new();
    let json = fixture("pocketdata/workload_ia_log.json");
    let mut args = words("-o synchronous=off --no-overhead --no-samples");
    args.extend(["--workload", arg(&json)]);
    let s = sb.run_json(&args);
    assert_eq!(text(&s, "/delay"), "recorded");
    assert_eq!(uint(&s, "/ops"), 1800);
    assert_eq!(uint(&s, "/errors"), 0, "first error: {}", s["first_error"]);
    // The pacer asks for the deadline minus now, after the harness's own work between
    // operations, so the request never exceeds the recording and falls short by that work.
    let requested = uint(&s, "/time/delay_requested_ns");
    let slept = uint(&s, "/time/delay_slept_ns");
    assert!(requested <= RECORDED_NS, "requested {requested} ns");
    assert!(slept >= 11_400_000_000, "slept {slept} ns of {RECORDED_NS}");
    assert!(slept >= requested, "slept {slept} < requested {requested}");
    assert!(uint(&s, "/time/sleeps") > 1700);
    let wall = uint(&s, "/wall_ns");
    assert!(wall >= RECORDED_NS, "wall {wall} ns < recorded delays");
}

/// ycsb-a (half updates) on SQLite with `-o OPTION`, 100 operations back to back; the
/// summary and the `--raw` rows.
fn ycsb_a_on_sqlite(option: &str) -> (Value, Vec<HashMap<String, String>>) {
    let sb = Sandbox::new();
    let mut args = words("--workload ycsb-a --records 100 --ops 100 --delay zero --raw ops.csv");
    args.extend(["--no-samples", "--no-overhead", "-o", option]);
    let s = sb.run_json(&args);
    assert_eq!(uint(&s, "/errors"), 0, "first error: {}", s["first_error"]);
    assert!(uint(&s, "/latency_us/update/count") > 20);
    let (_, rows) = read_csv(&sb.path("ops.csv"));
    assert_eq!(rows.len(), 100);
    (s, rows)
}

#[test]
fn synchronous_off_never_syncs() {
    let (s, rows) = ycsb_a_on_sqlite("synchronous=off");
    assert_eq!(uint(&s, "/io/total/syncs"), 0);
    assert!(uint(&s, "/io/total/writes") > 0, "updates wrote nothing");
    assert!(rows.iter().all(|r| number(r, "io_syncs") == 0));
}

#[test]
fn synchronous_full_syncs_every_update() {
    let (s, rows) = ycsb_a_on_sqlite("synchronous=full");
    let updates: Vec<_> = rows.iter().filter(|r| r["kind"] == "update").collect();
    assert_eq!(updates.len() as u64, uint(&s, "/latency_us/update/count"));
    for row in &updates {
        assert!(
            number(row, "io_syncs") >= 1,
            "update without a sync: {row:?}"
        );
    }
    assert!(uint(&s, "/io/total/syncs") >= updates.len() as u64);
}

#[test]
fn wal_mode_writes_the_wal() {
    let (s, _) = ycsb_a_on_sqlite("journal_mode=wal");
    assert!(uint(&s, "/io/wal/writes") > 0, "io: {:#}", s["io"]);
    assert_eq!(uint(&s, "/io/journal/writes"), 0, "io: {:#}", s["io"]);
    assert_eq!(text(&s, "/engine/options/journal_mode"), "wal");
}

#[test]
fn results_are_kept() {
    let sb = Sandbox::new();
    let results = sb.results();
    let s = sb.run_json(&words("--workload ycsb-b --records 100 --ops 300 --delay zero -o synchronous=off --raw x.csv --no-overhead"));
    let id = uint(&s, "/id");
    assert_eq!(uint(&s, "/ops"), 300);

    let list = sb
        .pb(["results", "list", "--results", arg(&results), "--json"])
        .expect_ok()
        .json();
    let rows = list.as_array().expect("a list");
    assert_eq!(rows.len(), 1, "{list:#}");
    assert_eq!(uint(&rows[0], "/id"), id);
    assert_eq!(text(&rows[0], "/workload"), "ycsb-b");
    assert_eq!(text(&rows[0], "/engine"), "sqlite");
    assert_eq!(uint(&rows[0], "/ops"), 300);

    let shown = sb
        .pb([
            "results",
            "show",
            &id.to_string(),
            "--results",
            arg(&results),
            "--json",
        ])
        .expect_ok()
        .json();
    for at in [
        "/id",
        "/created_at",
        "/workload",
        "/engine",
        "/trace",
        "/phases",
        "/ops",
        "/errors",
        "/wall_ns",
        "/time",
        "/io",
        "/latency_us/all/count",
    ] {
        assert_eq!(shown.pointer(at), s.pointer(at), "{at}");
    }

    assert_eq!(stored_samples(&results, id as i64), 300);
    let (header, csv_rows) = read_csv(&sb.path("x.csv"));
    assert_eq!(&header[..4], ["seq", "kind", "ok", "key"]);
    assert_eq!(csv_rows.len(), 300);
    assert!(csv_rows
        .iter()
        .enumerate()
        .all(|(i, r)| number(r, "seq") == i as u64));

    let s2 = sb.run_json(&words(
        "--engine null --records 10 --ops 50 --delay zero --no-samples",
    ));
    let id2 = uint(&s2, "/id");
    assert_ne!(id2, id);
    assert_eq!(uint(&s2, "/ops"), 50);
    assert_eq!(stored_runs(&results), 2);
    assert_eq!(stored_samples(&results, id2 as i64), 0);
    assert_eq!(stored_samples(&results, id as i64), 300);
}

#[test]
fn open_pacing_reports_response_time_and_schedule() {
    let sb = Sandbox::new();
    let s = sb.run_json(&words(
        "--engine null --records 50 --ops 200 --pacing open --delay fixed:1ms --no-overhead",
    ));
    assert_eq!(text(&s, "/pacing"), "open");
    assert_eq!(uint(&s, "/response_time_us/all/count"), 200);
    let schedule = &s["schedule"];
    assert!(schedule.is_object(), "schedule: {schedule}");
    for key in ["late_ops", "max_backlog"] {
        assert!(schedule[key].is_u64(), "schedule.{key}: {schedule}");
    }
    assert!(schedule["kept_up"].is_boolean(), "{schedule}");
    assert_eq!(uint(schedule, "/lag_us/count"), 200);
    // Response time counts from the intended start, so it is never below service time.
    let mean = |at: &str| s.pointer(at).and_then(Value::as_f64).expect(at);
    assert!(mean("/response_time_us/all/mean") >= mean("/latency_us/all/mean"));
    // 199 gaps of 1 ms between the 200 intended starts.
    assert!(uint(&s, "/wall_ns") >= 199_000_000);
}

#[test]
fn think_pacing_reports_no_response_time_or_schedule() {
    let sb = Sandbox::new();
    let s = sb.run_json(&words(
        "--engine null --records 50 --ops 50 --delay fixed:1ms --no-overhead",
    ));
    assert_eq!(text(&s, "/pacing"), "think");
    assert!(s["response_time_us"].is_null(), "{}", s["response_time_us"]);
    assert!(s["schedule"].is_null(), "{}", s["schedule"]);
    assert_eq!(uint(&s, "/latency_us/all/count"), 50);
    assert!(uint(&s, "/wall_ns") >= 49_000_000);
}

/// Back-to-back operations read the thread CPU clock once per batch of 256 and share the
/// batch's CPU by wall time, so no operation gets more CPU than its own latency; with think
/// time every operation's CPU is read around it.
#[test]
fn cpu_is_read_per_batch_only_when_operations_run_back_to_back() {
    let sb = Sandbox::new();
    for (delay, ops, accounting) in [
        ("zero", "600", "batch:256"),
        ("fixed:1ms", "30", "per-operation"),
    ] {
        let raw = format!("ops-{ops}.csv");
        let s = sb.run_json(&words(&format!(
            "--workload ycsb-c --records 100 --ops {ops} --delay {delay} --no-overhead --raw {raw}"
        )));
        assert_eq!(text(&s, "/cpu_accounting"), accounting);
        let (_, rows) = read_csv(&sb.path(&raw));
        assert_eq!(rows.len(), ops.parse::<usize>().unwrap());
        if accounting.starts_with("batch") {
            for r in &rows {
                assert!(number(r, "cpu_ns") <= number(r, "latency_ns"), "{r:?}");
            }
        }
        let on_cpu = uint(&s, "/time/on_cpu_ns");
        assert!(
            on_cpu > 0 && on_cpu <= uint(&s, "/wall_ns"),
            "{}",
            s["time"]
        );
    }
    // A trace generated with zero delays is back to back too.
    let trace = sb.trace_gen("zero.pbt", &words("--records 50 --ops 300 --delay zero"));
    let s = sb.run_json(&["--trace", arg(&trace), "--no-overhead"]);
    assert_eq!(text(&s, "/cpu_accounting"), "batch:256");
}

fn small_sqlite_run(extra: &[&str]) -> Value {
    let sb = Sandbox::new();
    let mut args = words("--records 100 --ops 100 --delay zero -o synchronous=off --no-overhead");
    args.extend_from_slice(extra);
    let s = sb.run_json(&args);
    assert_eq!(uint(&s, "/ops"), 100);
    assert_eq!(uint(&s, "/errors"), 0, "first error: {}", s["first_error"]);
    s
}

#[test]
fn warm_replays_in_the_loading_process() {
    let s = small_sqlite_run(&["--warm"]);
    assert_eq!(text(&s, "/phases/mode"), "warm");
    assert_eq!(text(&s, "/phases/cache/state"), "warm");
}

#[test]
fn default_replays_cold_in_a_fresh_process() {
    let s = small_sqlite_run(&[]);
    assert_eq!(text(&s, "/phases/mode"), "fresh-process");
    assert_eq!(text(&s, "/phases/cache/state"), "cold");
}

/// A PocketData file with two statements on a table that does not exist: the run completes,
/// every operation is measured and stored, the failures are counted and the exit status is 1.
#[test]
fn failing_sql_is_counted_stored_and_reported() {
    let sb = Sandbox::new();
    let results = sb.results();
    sb.write(
        "broken.json",
        r#"{"init": [{"sql": "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)"},
                     {"sql": "INSERT INTO t VALUES (1, 'x')"}],
            "benchmark": [
              {"op": "query", "sql": "SELECT * FROM t WHERE a = 1"},
              {"op": "break", "delta": 0},
              {"op": "query", "sql": "SELECT * FROM missing_table WHERE a = 1"},
              {"op": "query", "sql": "UPDATE t SET b = 'y' WHERE a = 1"},
              {"op": "query", "sql": "UPDATE missing_table SET b = 'y'"},
              {"op": "query", "sql": "SELECT count(*) FROM t"}
            ]}"#,
    );
    let out = sb
        .pb([
            "run",
            "--workload",
            "broken.json",
            "--results",
            arg(&results),
            "--json",
            "-o",
            "synchronous=off",
        ])
        .expect_code(1);
    let errors = out.stderr_lines();
    assert_eq!(errors.len(), 1, "stderr: {}", out.stderr);
    assert!(
        errors[0].starts_with("pocketbench: error: 2 of 5 operations failed; first: operation 1: "),
        "{}",
        errors[0]
    );
    assert!(errors[0].contains("missing_table"), "{}", errors[0]);

    let s = out.json();
    assert_eq!(uint(&s, "/ops"), 5);
    assert_eq!(uint(&s, "/errors"), 2);
    assert_eq!(uint(&s, "/errors_by_kind/select"), 1);
    assert_eq!(uint(&s, "/errors_by_kind/update"), 1);
    assert!(text(&s, "/first_error").contains("missing_table"));
    // Failed operations are measured like the others.
    assert_eq!(uint(&s, "/latency_us/all/count"), 5);

    // The run is stored, failures included.
    let id = uint(&s, "/id") as i64;
    assert_eq!(stored_runs(&results), 1);
    assert_eq!(
        common::count(&results, "SELECT errors FROM runs WHERE id = ?1", [id]),
        2
    );
    assert_eq!(stored_samples(&results, id), 5);
    let failed: Vec<i64> = common::store(&results)
        .prepare("SELECT seq FROM op_samples WHERE run_id = ?1 AND ok = 0 ORDER BY seq")
        .unwrap()
        .query_map([id], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(failed, [1, 3]);
}

#[test]
fn a_run_folder_used_twice_starts_fresh() {
    let sb = Sandbox::new();
    let dir = sb.path("kept");
    let store = sb.results();
    for _ in 0..2 {
        sb.pb(words(&format!(
            "run --records 20 --ops 10 --delay zero --no-overhead --dir {} --results {}",
            arg(&dir),
            arg(&store)
        )))
        .expect_ok();
    }
    assert_eq!(stored_runs(&store), 2);
    // The second load found an empty database, not the first run's 20 rows.
    let rows: i64 = rusqlite::Connection::open(dir.join("db/pocketbench.sqlite"))
        .unwrap()
        .query_row("SELECT count(*) FROM usertable", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 20);
}
