//! Every import front end keeps statements whole or drops them whole: `dumpsys dbinfo` as
//! older Android releases and other wrappers of the framework's connection print it (no
//! `path=`, `tid=` and `bindArgs=`, a time without its year, a vendor's `[Pid:(N)]`) is read
//! with the values worked out by hand from `tests/fixtures/import/dumpsys-dbinfo-older.txt`;
//! a NUL byte inside one statement drops that statement, counted under its reason, in every
//! format (and in arguments written into the SQL), while the others are imported; an error
//! never names the import's internal work file, and one about a log read with `--format X`
//! says it was read as X.

mod common;

use common::{arg, Sandbox};
use pocketbench::workload::import::source::{self, LineCounts};
use pocketbench::workload::import::{ArgValue, LogRecord, StatementRecord};
use std::path::Path;

const MS: u64 = 1_000_000;
const NUL_REASON: &str = "SQL statement contains a NUL byte";

fn read(path: &Path, format: &str) -> (Vec<StatementRecord>, LineCounts) {
    let fe = source::choose(path, format).unwrap();
    let mut s = Vec::new();
    let counts = source::read(path, fe, &mut |r| {
        if let LogRecord::Statement(r) = r {
            s.push(r);
        }
        Ok(())
    })
    .unwrap();
    (s, counts)
}

#[test]
fn dumpsys_of_older_releases_and_wrappers_is_read() {
    let path = common::fixture("import/dumpsys-dbinfo-older.txt");
    assert_eq!(
        source::choose(&path, "auto").unwrap().name,
        "dumpsys-dbinfo"
    );
    let (s, counts) = read(&path, "dumpsys-dbinfo");
    let sql: Vec<&str> = s.iter().map(|r| r.sql.as_str()).collect();
    assert_eq!(
        sql,
        [
            // legacy.db, oldest first; the prepare is no execution.
            "BEGIN EXCLUSIVE;",
            "INSERT INTO notes(title) VALUES (?)",
            "COMMIT;",
            // wrapped.db.
            "SELECT _id FROM notes WHERE title=?",
            "UPDATE notes SET title=? WHERE _id=?",
            // s.db; the running operation is not a statement yet.
            "SELECT 1",
        ]
    );
    let legacy = "/data/data/com.example.legacy/databases/legacy.db";
    let wrapped = "/data/data/com.example.legacy/databases/wrapped.db";
    // Without `path=`, the pool names the database; the connection is POOL#N.
    assert!(s[..3].iter().all(|r| r.db.as_deref() == Some(legacy)));
    assert_eq!(s[0].conn.as_deref(), Some(format!("{legacy}#0").as_str()));
    assert_eq!(
        (s[1].t_ns - s[0].t_ns, s[2].t_ns - s[1].t_ns),
        (40 * MS, 10 * MS)
    );
    assert_eq!(
        (s[0].dur_ns, s[1].dur_ns, s[2].dur_ns),
        (Some(2 * MS), Some(MS), Some(4 * MS))
    );
    assert_eq!(
        s[1].args.as_deref(),
        Some(&[ArgValue::Text("milk, eggs".into())][..])
    );
    assert_eq!(s[0].pid, Some(2222));

    // tid= and bindArgs= after the SQL, and a time without its year: half a second apart.
    assert_eq!((s[3].tid, s[4].tid), (Some(2240), Some(2240)));
    assert_eq!(s[4].t_ns - s[3].t_ns, 500 * MS);
    assert_eq!(
        s[3].args.as_deref(),
        Some(&[ArgValue::Text("a]b".into())][..])
    );
    assert_eq!(
        s[4].args.as_deref(),
        Some(&[ArgValue::Text("x".into()), ArgValue::Integer(7)][..])
    );
    assert_eq!((s[3].rows, s[3].status), (Some(2), Some(0)));
    assert_eq!(s[4].status, Some(1), "failed in the app");
    assert!(s[3..5].iter().all(|r| r.db.as_deref() == Some(wrapped)));

    // The vendor's `[Pid:(N)]` names the calling process.
    assert_eq!((s[5].pid, s[5].rows), (Some(3334), Some(1)));
    assert_eq!(
        counts.dropped.get("operation still running when dumped"),
        Some(&1)
    );
    assert_eq!(counts.dropped.values().sum::<u64>(), 1);
}

/// One small log per format: three statements, the second with a NUL byte in its SQL.
fn logs_with_a_nul() -> Vec<(&'static str, &'static str, String)> {
    let phonelab = |n: u32, sql: &str| {
        format!(
            "0ee9\t142702592{n}000\t142702592{n}000.0\t2015-03-22 12:05:2{n}.000000\t810\t810\tI\tSQLite-Query-PhoneLab\t{{\"Counter\":{n},\"LogFormat\":\"1.0\",\"Time\":1000,\"Arguments\":\"[]\",\"Results\":\"{sql}\",\"Action\":\"SELECT\",\"Rows returned\":0}}\n"
        )
    };
    let logcat = |n: u32, sql: &str| {
        format!("05-14 10:11:1{n}.000000  4242  4260 V SQLiteTime: /data/app.db: \"{sql}\" took 0.350 ms\n")
    };
    let dumpsys = |n: u32, sql: &str| {
        format!(
            "        {}: [2024-05-14 10:11:1{n}.000] execute took 1ms - succeeded, sql=\"{sql}\", path=/data/app.db\n",
            3 - n
        )
    };
    vec![
        (
            "jsonl",
            "app.jsonl",
            [1, 2, 3]
                .iter()
                .map(|n| {
                    let sql = if *n == 2 { "SELECT \\u0000 2" } else { "SELECT 1" };
                    format!("{{\"statement\":{{\"t_ns\":{n},\"sql\":\"{sql}\"}}}}\n")
                })
                .collect(),
        ),
        (
            "android-logcat",
            "logcat.txt",
            logcat(1, "SELECT 1") + &logcat(2, "SELECT \0 2") + &logcat(3, "SELECT 3"),
        ),
        (
            "sqlite-trace",
            "trace.sql",
            "SELECT 1;\nSELECT '\0\n2';\nSELECT 3;\n".to_string(),
        ),
        (
            "phonelab",
            "phonelab.tsv",
            phonelab(1, "SELECT 1") + &phonelab(2, "SELECT \\u0000 2") + &phonelab(3, "SELECT 3"),
        ),
        (
            "dumpsys-dbinfo",
            "dumpsys.txt",
            "Connection pool for /data/app.db:\n    Connection #0:\n      Most recently executed operations:\n"
                .to_string()
                + &dumpsys(3, "SELECT 3")
                + &dumpsys(2, "SELECT \0 2")
                + &dumpsys(1, "SELECT 1"),
        ),
    ]
}

#[test]
fn a_nul_byte_drops_only_its_statement_in_every_format() {
    let sb = Sandbox::new();
    for (format, name, log) in logs_with_a_nul() {
        let log = sb.write(name, log);
        let out = sb.path(&format!("{name}.pbt"));
        for chosen in ["auto", format] {
            let v = sb
                .pb([
                    "trace",
                    "import",
                    arg(&log),
                    "--format",
                    chosen,
                    "-o",
                    arg(&out),
                    "--json",
                ])
                .expect_ok()
                .json();
            assert_eq!(v["format"], format, "{name}");
            assert_eq!(v["run_ops"], 2, "{name}: {v}");
            assert_eq!(v["dropped"][NUL_REASON], 1, "{name}: {v}");
        }
    }
}

#[test]
fn an_argument_with_a_nul_written_into_the_sql_drops_its_statement() {
    let sb = Sandbox::new();
    let log = sb.write(
        "app.jsonl",
        concat!(
            "{\"statement\":{\"t_ns\":1,\"sql\":\"SELECT ?\",\"args\":[\"a\"]}}\n",
            "{\"statement\":{\"t_ns\":2,\"sql\":\"SELECT ?\",\"args\":[\"a\\u0000b\"]}}\n",
        ),
    );
    let out = sb.path("app.pbt");
    let v = sb
        .pb([
            "trace",
            "import",
            arg(&log),
            "-o",
            arg(&out),
            "--args",
            "inline",
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(v["run_ops"], 1, "{v}");
    assert_eq!(v["dropped"][NUL_REASON], 1, "{v}");
}

#[test]
fn errors_name_the_log_and_its_format_never_the_work_file() {
    let sb = Sandbox::new();
    let trace = sb.write("trace.sql", "SELECT 1;\nSELECT 2;\n");
    let out = sb.path("t.pbt");
    let wrong_format = sb
        .pb([
            "trace",
            "import",
            arg(&trace),
            "--format",
            "dumpsys-dbinfo",
            "-o",
            arg(&out),
        ])
        .expect_code(2);
    assert_eq!(
        wrong_format.stderr_lines().len(),
        1,
        "{}",
        wrong_format.stderr
    );
    assert!(
        wrong_format
            .stderr
            .contains("trace.sql: nothing importable found when read as dumpsys-dbinfo"),
        "{}",
        wrong_format.stderr
    );
    // Every statement of a log dropped: refused as a log with nothing to import, naming it.
    let all_nul = sb.write("nul.sql", "SELECT '\0';\n");
    let all_dropped = sb
        .pb(["trace", "import", arg(&all_nul), "-o", arg(&out)])
        .expect_code(2);
    assert!(
        all_dropped.stderr.contains(
            "nul.sql: nothing importable found when read as sqlite-trace (1 dropped: SQL statement contains a NUL byte)"
        ),
        "{}",
        all_dropped.stderr
    );
    for out in [&wrong_format, &all_dropped] {
        assert!(
            !out.stderr.contains(".pocketbench-import"),
            "{}",
            out.stderr
        );
        assert!(!out.stderr.contains("work.pbt"), "{}", out.stderr);
    }
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(sb.path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".pocketbench-import"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
