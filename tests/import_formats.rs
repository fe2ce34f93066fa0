//! The import front ends on real-format samples (`tests/fixtures/import/`, see its README):
//! each sample's statements, times, durations, arguments, transactions and what was dropped
//! and why, worked out by hand from the sample's lines; and auto-detection picking each
//! sample's format.

use pocketbench::workload::import::source::{self, LineCounts};
use pocketbench::workload::import::{
    sql::lexer, ArgValue, LogRecord, SchemaRecord, Stamp, StatementRecord,
};
use std::path::Path;

const DIR: &str = "tests/fixtures/import";
const MS: u64 = 1_000_000;

fn import(format: &str, file: &str) -> (Vec<LogRecord>, LineCounts) {
    let path = Path::new(DIR).join(file);
    let fe = source::choose(&path, format).unwrap();
    let mut records = Vec::new();
    let counts = source::read(&path, fe, &mut |r| {
        records.push(r);
        Ok(())
    })
    .unwrap();
    (records, counts)
}

fn dropped_total(c: &LineCounts) -> u64 {
    c.dropped.values().sum()
}

fn statements(records: &[LogRecord]) -> Vec<&StatementRecord> {
    records
        .iter()
        .filter_map(|r| match r {
            LogRecord::Statement(s) => Some(s),
            LogRecord::Schema(_) => None,
        })
        .collect()
}

fn dropped(c: &LineCounts) -> Vec<(&str, u64)> {
    c.dropped.iter().map(|(k, v)| (k.as_str(), *v)).collect()
}

#[test]
fn logcat_statement_and_time_tags_pair_up_per_thread() {
    let (records, counts) = import("android-logcat", "logcat-threadtime-usec.txt");
    let s = statements(&records);
    let sql: Vec<&str> = s.iter().map(|r| r.sql.as_str()).collect();
    assert_eq!(
        sql,
        [
            "BEGIN EXCLUSIVE;",
            "INSERT INTO notes(title, body) VALUES(?, ?)",
            "SELECT _id, title FROM notes WHERE title LIKE ?",
            "COMMIT;",
            "DELETE FROM notes WHERE _id = ?",
        ]
    );
    // The statement line was split over two logcat lines (a newline in the SQL).
    assert_eq!(
        s[1].expanded.as_deref(),
        Some("INSERT INTO notes(title, body) VALUES('groceries', 'milk\neggs')")
    );
    assert_eq!(s[0].expanded, None, "same text as prepared: not repeated");
    // Started at the SQLiteStatements line, lasting what SQLiteTime says.
    let t0 = s[0].t_ns;
    let offsets: Vec<u64> = s.iter().map(|r| r.t_ns - t0).collect();
    assert_eq!(offsets, [0, MS, 3 * MS, 4 * MS, 110 * MS]);
    let durs: Vec<u64> = s.iter().map(|r| r.dur_ns.unwrap()).collect();
    assert_eq!(durs, [350_000, 1_500_000, 800_000, 5 * MS, MS]);
    assert!(s
        .iter()
        .all(|r| r.stamp == Stamp::Start && r.pid == Some(4242)));
    let tids: Vec<u32> = s.iter().map(|r| r.tid.unwrap()).collect();
    assert_eq!(tids, [4260, 4260, 4242, 4260, 4260]);
    assert_eq!(
        s[0].db.as_deref(),
        Some("/data/user/0/com.example.notes/databases/notes.db")
    );
    assert_eq!(counts.lines, 16);
    assert_eq!(
        counts.skipped, 3,
        "beginning-of-main, ActivityManager, Choreographer"
    );
    assert_eq!(
        dropped(&counts),
        [
            ("SQLiteStatements line without `label: \"sql\"`", 1),
            ("statement cut at logcat's line limit", 1),
        ]
    );
}

#[test]
fn logcat_lines_copied_without_time_or_pid_keep_their_statements_in_order() {
    // A real app's lines (Room's invalidation check), without times: the statements in file
    // order on the one database, nothing measured, nothing dropped.
    let (records, counts) = import("android-logcat", "logcat-studio-nopid.txt");
    let s = statements(&records);
    let sql: Vec<&str> = s.iter().map(|r| r.sql.as_str()).collect();
    assert_eq!(
        sql,
        [
            "BEGIN EXCLUSIVE;",
            "SELECT * FROM room_table_modification_log WHERE invalidated = 1;",
            "COMMIT;",
        ]
    );
    assert!(s.iter().all(|r| r.db.as_deref()
        == Some("/data/user/0/com.krossovochkin.test/databases/locations.db")
        && r.pid.is_none()
        && r.dur_ns.is_none()));
    assert_eq!(
        (counts.lines, counts.skipped, dropped_total(&counts)),
        (3, 0, 0)
    );
}

#[test]
fn logcat_operation_log_gives_typed_bind_arguments() {
    let (records, counts) = import("android-logcat", "logcat-studio-operations.txt");
    let s = statements(&records);
    assert_eq!(s.len(), 3);
    assert_eq!(
        s[0].args.as_deref().unwrap(),
        [
            ArgValue::Text("groceries".into()),
            ArgValue::Text("milk, eggs".into())
        ]
    );
    assert_eq!(
        s[1].args.as_deref().unwrap(),
        [ArgValue::Integer(3), ArgValue::Integer(1)]
    );
    assert_eq!(s[1].rows, Some(4), "countedRows");
    assert_eq!(
        s[2].args.as_deref().unwrap(),
        [ArgValue::Null, ArgValue::Real(2.5), ArgValue::Integer(12)]
    );
    assert_eq!((s[0].status, s[2].status), (Some(0), Some(1)));
    // Stamped at the end: the start is the line's time less the duration.
    assert!(s.iter().all(|r| r.stamp == Stamp::End));
    assert_eq!(s[1].t_ns - s[0].t_ns, 3 * MS);
    assert_eq!(s[1].start_ns() - s[0].start_ns(), 4 * MS);
    assert_eq!((s[0].pid, s[0].tid), (Some(4242), Some(4260)));
    assert_eq!(counts.skipped, 1, "the WAL truncation note");
    assert_eq!(
        dropped(&counts),
        [("operation log line cut at logcat's line limit", 1)]
    );
}

#[test]
fn sqlite_shell_trace_without_and_with_profile_times() {
    let (records, counts) = import("sqlite-trace", "sqlite-trace-plain.sql");
    let s = statements(&records);
    assert_eq!(s.len(), 8);
    assert_eq!(
        s[4].sql,
        "INSERT INTO notes(title, body, img) VALUES('groceries', 'milk\neggs', x'00ff')"
    );
    assert_eq!(
        s[5].sql,
        "INSERT INTO notes(title, body) VALUES('it''s; fine', NULL)"
    );
    let verbs: Vec<String> = s.iter().map(|r| lexer::verb(&r.sql)).collect();
    assert_eq!(
        verbs,
        ["CREATE", "CREATE", "CREATE", "BEGIN", "INSERT", "INSERT", "COMMIT", "SELECT"]
    );
    assert!(s.iter().all(|r| r.t_ns == 0 && r.dur_ns.is_none()));
    assert_eq!(
        dropped(&counts),
        [("a trigger's statement (printed as a comment)", 4)]
    );

    let (records, counts) = import("sqlite-trace", "sqlite-trace-profile.sql");
    let s = statements(&records);
    let got: Vec<(&str, u64, u64)> = s
        .iter()
        .map(|r| (r.sql.as_str(), r.t_ns, r.dur_ns.unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("UPDATE notes SET body = 'bread' WHERE id = 1", 0, 11 * MS),
            ("SELECT id, title FROM notes ORDER BY id", 11 * MS, 0),
            ("DELETE FROM log", 11 * MS, MS),
        ]
    );
    assert_eq!(dropped_total(&counts), 0);
}

#[test]
fn phonelab_statements_arguments_and_schema_records() {
    let (records, counts) = import("phonelab", "phonelab.tsv");
    assert_eq!(
        records[0],
        LogRecord::Schema(SchemaRecord {
            db: None,
            kind: "table".into(),
            name: "sqlite_sequence".into(),
            sql: "CREATE TABLE \"sqlite_sequence\"(\"name\", \"seq\")".into(),
        })
    );
    let s = statements(&records);
    assert_eq!(s.len(), 3);
    assert!(s[0].sql.starts_with("SELECT _id FROM view_raw_contacts"));
    assert_eq!(s[0].args, None, "`[]`: no arguments");
    assert_eq!((s[0].dur_ns, s[0].rows), (Some(1_089_583), Some(0)));
    assert_eq!(s[0].stamp, Stamp::End);
    let hashed = s[1].args.as_deref().unwrap();
    assert_eq!(hashed.len(), 19);
    assert_eq!(hashed[4], ArgValue::Integer(-1_630_285_132));
    assert_eq!(
        s[2].sql,
        "SELECT data1 FROM data WHERE raw_contact_id=? AND mimetype_id=?"
    );
    assert_eq!(
        s[2].args.as_deref().unwrap(),
        [ArgValue::Integer(2), ArgValue::Integer(2_111_834_650)]
    );
    assert_eq!(s[1].t_ns - s[0].t_ns, 76 * MS);
    assert_eq!((s[1].pid, s[1].tid), (Some(810), Some(812)));
    assert_eq!(counts.skipped, 1, "the battery line");
    assert_eq!(
        dropped(&counts),
        [("message is not a JSON object (cut short?)", 1)]
    );
}

#[test]
fn dumpsys_recent_operations_oldest_first_per_connection() {
    let (records, counts) = import("dumpsys-dbinfo", "dumpsys-dbinfo.txt");
    let s = statements(&records);
    let db = "/data/user_de/0/com.android.settings/databases/homepage_cards.db";
    assert_eq!(s.len(), 2, "the prepare is not an execution");
    assert!(s[0].sql.starts_with("INSERT INTO cards("));
    assert_eq!(s[1].sql, "COMMIT;");
    assert_eq!(s[1].t_ns - s[0].t_ns, MS);
    assert_eq!((s[0].dur_ns, s[1].dur_ns), (Some(0), Some(15 * MS)));
    assert_eq!(s[1].conn.as_deref(), Some(format!("{db}#0").as_str()));
    assert_eq!(s[1].db.as_deref(), Some(db));
    assert_eq!(dropped_total(&counts), 0);
}

#[test]
fn detection_names_each_samples_format() {
    for (file, format) in [
        ("logcat-threadtime-usec.txt", "android-logcat"),
        ("logcat-studio-operations.txt", "android-logcat"),
        ("logcat-studio-nopid.txt", "android-logcat"),
        ("sqlite-trace-plain.sql", "sqlite-trace"),
        ("sqlite-trace-profile.sql", "sqlite-trace"),
        ("phonelab.tsv", "phonelab"),
        ("dumpsys-dbinfo.txt", "dumpsys-dbinfo"),
    ] {
        let fe = source::choose(&Path::new(DIR).join(file), "auto").unwrap();
        assert_eq!(fe.name, format, "{file}");
    }
    let Err(e) = source::choose(&Path::new(DIR).join("README.md"), "auto") else {
        panic!("the README detected as a log");
    };
    assert!(e.to_string().contains("nothing importable"), "{e}");
}

#[test]
fn import_anonymises_under_the_salt_and_the_header_says_what() {
    let dir = tempfile::tempdir().unwrap();
    let import = |salt: &str, out: &str| {
        let out = dir.path().join(out);
        let st = std::process::Command::new(env!("CARGO_BIN_EXE_pocketbench"))
            .args([
                "trace",
                "import",
                "--anonymize",
                "literals,paths",
                "--salt",
                salt,
                "-o",
            ])
            .arg(&out)
            .arg(Path::new(DIR).join("logcat-studio-operations.txt"))
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        let r = pocketbench::workload::trace::TraceReader::open(&out).unwrap();
        let info = r.header().import.clone().unwrap();
        let sql: Vec<String> = r
            .filter_map(|i| match i.unwrap() {
                pocketbench::workload::trace::TraceItem::Run(t) => Some(format!("{:?}", t.op)),
                _ => None,
            })
            .collect();
        (info, sql)
    };
    let (a, sa) = import("one", "a.pbt");
    let (b, sb) = import("one", "b.pbt");
    let (_, sc) = import("two", "c.pbt");
    assert_eq!(a.anonymized, ["literals", "paths"]);
    assert_eq!(sa, sb, "the same salt maps alike");
    assert_ne!(sa, sc, "another salt maps otherwise");
    assert!(!sa.concat().contains("groceries"));
    assert!(!a.db.contains("example") && a.db.ends_with(".db"));
    assert_eq!(a.db, b.db);
    // No salt: refused by the flag parser, exit 2.
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_pocketbench"))
        .args([
            "trace",
            "import",
            "--anonymize",
            "literals",
            "-o",
            "x.pbt",
            "y.log",
        ])
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
}

#[test]
fn stats_of_a_shell_trace_classify_by_sqlite_itself() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pocketbench"))
        .args(["trace", "stats", "--json"])
        .arg(Path::new(DIR).join("sqlite-trace-plain.sql"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["source"]["format"], "sqlite-trace");
    assert_eq!(s["statements"], 8);
    // The CREATEs are run on the in-memory database, so the later statements prepare.
    assert_eq!(
        s["read_write"],
        serde_json::json!({"read": 1, "transaction": 2, "write": 5})
    );
    assert_eq!(s["mix"]["CREATE"], 3);
    assert_eq!(s["transactions"]["count"], 1);
    assert_eq!(s["transactions"]["statements_max"], 4);
    assert_eq!(
        s["dropped"]["a trigger's statement (printed as a comment)"],
        4
    );
    assert_eq!(s["lines"], 13);
    // A missing file: one line, exit 2.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pocketbench"))
        .args(["trace", "stats", "no/such.log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn phonelab_a_millisecond_column_past_u64_nanoseconds_is_no_time() {
    // 18 446 744 073 710 ms is 1 ms past what u64 nanoseconds hold; no date column either.
    let line = "0ee9\t18446744073710\tx\tx\t810\t810\tI\tSQLite-Query-PhoneLab\t{\"Results\":\"SELECT 1\"}\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("far.tsv");
    std::fs::write(&path, line).unwrap();
    let fe = source::choose(&path, "phonelab").unwrap();
    let mut records = Vec::new();
    let counts = source::read(&path, fe, &mut |r| {
        records.push(r);
        Ok(())
    })
    .unwrap();
    assert!(records.is_empty());
    assert_eq!(
        dropped(&counts),
        [("line without a time (date or UNIX ms column)", 1)]
    );
}

/// A duration of exactly 24 hours is kept, one a millisecond (or nanosecond) longer is a
/// corrupt line: dropped and counted, in each format that gives durations (docs/limits.md).
#[test]
fn a_duration_past_a_day_is_dropped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let op = |ms: u64| {
        format!(
            "05-14 10:11:12.201  4242  4260 D SQLiteConnection: execute took {ms}ms - succeeded, sql=\"SELECT {ms}\"\n"
        )
    };
    let json = |ns: u64| {
        format!("{{\"statement\":{{\"t_ns\":1,\"dur_ns\":{ns},\"conn\":\"0x1\",\"sql\":\"SELECT {ns}\"}}}}\n")
    };
    let day_ms = 86_400_000;
    let cases = [
        (
            "android-logcat",
            op(day_ms) + &op(day_ms + 1) + &op(u64::MAX / 1000),
        ),
        (
            "jsonl",
            json(day_ms * MS) + &json(day_ms * MS + 1) + &json(u64::MAX),
        ),
    ];
    for (format, text) in cases {
        let path = dir.path().join(format);
        std::fs::write(&path, text).unwrap();
        let mut records = Vec::new();
        let fe = source::choose(&path, format).unwrap();
        let counts = source::read(&path, fe, &mut |r| {
            records.push(r);
            Ok(())
        })
        .unwrap();
        let durs: Vec<u64> = statements(&records)
            .iter()
            .map(|r| r.dur_ns.unwrap())
            .collect();
        assert_eq!(durs, [day_ms * MS], "{format}");
        assert_eq!(
            dropped(&counts),
            [("statement duration over 24 hours", 2)],
            "{format}"
        );
    }
}
