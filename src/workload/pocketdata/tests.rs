//! Tests of the PocketData SQL workloads: mixes, statement shapes, every statement run on
//! SQLite, miss ratio, indexes and refused overrides. Also [`statements`], shared by the SQL
//! workload modules' tests.

use super::statements::{write_decimal, write_text, INSERT_HEAD};
use super::*;
use crate::workload::ycsb::tests::{assert_refused, overrides};
use rusqlite::Connection;

fn with(records: u64, ops: u64) -> Overrides {
    Overrides {
        records: Some(records),
        ops: Some(ops),
        ..Overrides::default()
    }
}

fn workload(name: &str, o: &Overrides, seed: u64) -> Workload {
    builtin(name, o, seed).expect("valid").expect("known")
}

/// The SQL text of each operation. Shared by the SQL workload modules' tests.
pub(crate) fn statements(ops: impl Iterator<Item = Op>) -> Vec<String> {
    ops.map(|op| match op {
        Op::Sql { sql } => sql,
        other => panic!("not SQL: {other:?}"),
    })
    .collect()
}

fn run(name: &str, o: &Overrides, seed: u64) -> Vec<String> {
    statements(workload(name, o, seed).run.map(|t| t.op))
}

/// The statement kind, by the shapes of the original files.
fn classify(sql: &str) -> &'static str {
    if sql.starts_with("INSERT INTO YCSBDATA(key, DAT_INT_0,") {
        "insert"
    } else if sql.contains("+1 WHERE key=") {
        "increment"
    } else if sql.starts_with("UPDATE YCSBDATA SET DAT_INT_0=") {
        "update"
    } else if sql.contains(" ORDER BY key ASC LIMIT ") {
        "scan"
    } else if sql.starts_with("SELECT * FROM YCSBDATA WHERE key = ") {
        "read"
    } else if sql.starts_with("SELECT * FROM YCSBDATA WHERE (DAT_INT_") {
        "intequality"
    } else if sql.contains("(DAT_FLT_1 > ") {
        "floatrange2"
    } else if sql.starts_with("SELECT * FROM YCSBDATA WHERE (DAT_FLT_0 > ") {
        "floatrange1"
    } else {
        panic!("unexpected statement {sql}")
    }
}

#[test]
fn mixes_match_ycsb_and_the_ia_trace() {
    let ia = |select| {
        [
            ("scan", 0.401),
            (select, 0.414),
            ("increment", 0.102),
            ("insert", 0.083),
        ]
    };
    let expected: [(&str, Vec<(&str, f64)>); 9] = [
        ("pocketdata-a", vec![("read", 0.5), ("update", 0.5)]),
        ("pocketdata-b", vec![("read", 0.95), ("update", 0.05)]),
        ("pocketdata-c", vec![("read", 1.0)]),
        ("pocketdata-d", vec![("read", 0.95), ("insert", 0.05)]),
        ("pocketdata-e", vec![("scan", 0.95), ("insert", 0.05)]),
        // Every operation reads; half of them then write.
        ("pocketdata-f", vec![("read", 1.0), ("update", 0.5)]),
        ("pocketdata-ia", ia("intequality").to_vec()),
        ("pocketdata-ib", ia("floatrange1").to_vec()),
        ("pocketdata-ic", ia("floatrange2").to_vec()),
    ];
    let ops = 20_000;
    for (name, mix) in expected {
        let w = workload(name, &with(500, ops), 1);
        let run_ops = w.info.run_ops;
        let sql = statements(w.run.map(|t| t.op));
        assert_eq!(
            sql.len() as u64,
            run_ops,
            "{name}: run_ops counts statements"
        );
        let total: f64 = mix.iter().map(|m| m.1).sum();
        assert!(
            (sql.len() as f64 / ops as f64 - total).abs() < 0.02,
            "{name}"
        );
        for (kind, share) in mix {
            let n = sql.iter().filter(|s| classify(s) == kind).count();
            let got = n as f64 / ops as f64;
            assert!(
                (got - share).abs() <= 0.02,
                "{name} {kind}: {got} vs {share}"
            );
        }
    }
}

#[test]
fn init_creates_the_table_and_loads_keys_from_records() {
    let w = workload("pocketdata-a", &Overrides::default(), 1);
    assert_eq!((w.info.load_ops, w.info.run_ops), (501, 1800));
    assert_eq!(w.info.model, DataModel::Sql);
    assert_eq!(w.info.params["records"], "500");
    let init = statements(w.load);
    assert_eq!(init.len(), 501);
    assert_eq!(init[0], CREATE_TABLE);
    for (i, sql) in init[1..].iter().enumerate() {
        let head = format!("{INSERT_HEAD}{}, ", 500 + i);
        assert!(sql.starts_with(&head), "{sql}");
    }
    let small = statements(workload("pocketdata-ia", &with(20, 5), 1).load);
    assert_eq!(small.len(), 21);
    assert!(small[20].starts_with(&format!("{INSERT_HEAD}39, ")));
}

#[test]
fn statements_have_the_original_shapes() {
    let a = run("pocketdata-a", &Overrides::default(), 3);
    let upd = a
        .iter()
        .find(|s| s.starts_with("UPDATE"))
        .expect("an update");
    let prefix = "UPDATE YCSBDATA SET DAT_INT_0=";
    assert!(
        upd.starts_with(prefix) && upd.contains(", DAT_FLT_0="),
        "{upd}"
    );
    assert!(
        upd.contains(", DAT_STR_1='") && upd.contains("' WHERE key = "),
        "{upd}"
    );
    let ia = run("pocketdata-ia", &Overrides::default(), 3);
    assert!(ia.iter().any(|s| s.contains(") AND (DAT_INT_")));
    let ib = run("pocketdata-ib", &Overrides::default(), 3);
    let range = ib
        .iter()
        .find(|s| s.contains("DAT_FLT_0 >"))
        .expect("a range");
    assert!(
        range.starts_with("SELECT * FROM YCSBDATA WHERE (DAT_FLT_0 > 0.0"),
        "{range}"
    );
    assert!(
        range.contains(" AND DAT_FLT_0 < 0.0") && range.ends_with(')'),
        "{range}"
    );
    let mut s = String::new();
    for (t, text) in [
        (150_187, "15.0187"),
        (692_910, "69.291"),
        (0, "0.0"),
        (90, "0.009"),
    ] {
        s.clear();
        write_decimal(&mut s, t);
        assert_eq!(s, text);
    }
}

/// Executes `sql`; returns the rows a query returned or the rows a statement changed.
fn execute(db: &Connection, sql: &str) -> usize {
    let mut stmt = db.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    if stmt.column_count() == 0 {
        return stmt.execute([]).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let mut rows = stmt.query([]).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut n = 0;
    while rows
        .next()
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .is_some()
    {
        n += 1;
    }
    n
}

fn is_point(sql: &str) -> bool {
    matches!(classify(sql), "read" | "update" | "increment")
}

/// Loads `w` into a fresh database and runs it; returns (point statements, misses).
fn replay(w: Workload) -> (usize, usize) {
    let db = Connection::open_in_memory().expect("sqlite");
    db.execute_batch("BEGIN").expect("begin");
    for sql in statements(w.load) {
        execute(&db, &sql);
    }
    db.execute_batch("COMMIT").expect("commit");
    let (mut points, mut misses) = (0, 0);
    for sql in statements(w.run.map(|t| t.op)) {
        let n = execute(&db, &sql);
        if is_point(&sql) {
            points += 1;
            misses += usize::from(n == 0);
        }
    }
    (points, misses)
}

#[test]
fn every_statement_runs_on_sqlite_and_point_statements_hit() {
    let o = Overrides {
        indexes: vec!["key".into(), "dat_flt_0".into()],
        ..with(500, 3000)
    };
    for name in NAMES {
        let (points, misses) = replay(workload(name, &o, 7));
        assert_eq!(
            misses, 0,
            "{name}: {misses} of {points} point statements missed"
        );
    }
}

#[test]
fn narrow_values_make_selects_match_rows() {
    let db = Connection::open_in_memory().expect("sqlite");
    let w = workload("pocketdata-ic", &Overrides::default(), 2);
    for sql in statements(w.load) {
        execute(&db, &sql);
    }
    let w = workload("pocketdata-ib", &Overrides::default(), 2);
    let selects: Vec<String> = statements(w.run.map(|t| t.op))
        .into_iter()
        .filter(|s| classify(s) == "floatrange1")
        .collect();
    let hits = selects.iter().filter(|s| execute(&db, s) > 0).count();
    assert!(hits * 10 > selects.len() * 9, "{hits} of {}", selects.len());
}

#[test]
fn miss_ratio_is_honoured() {
    let o = Overrides {
        miss_ratio: Some(0.3),
        ..with(500, 4000)
    };
    for name in ["pocketdata-a", "pocketdata-ia"] {
        let (points, misses) = replay(workload(name, &o, 8));
        let ratio = misses as f64 / points as f64;
        assert!((ratio - 0.3).abs() < 0.04, "{name}: {ratio}");
    }
}

#[test]
fn same_seed_same_statements() {
    for name in NAMES {
        let a = run(name, &with(100, 500), 4);
        assert_eq!(a, run(name, &with(100, 500), 4), "{name}");
        assert_ne!(a, run(name, &with(100, 500), 5), "{name}");
    }
}

#[test]
fn text_is_word_salad_within_sixty_characters() {
    let mut rng = Rng::new(1);
    let mut s = String::new();
    for _ in 0..1000 {
        s.clear();
        write_text(&mut s, &mut rng);
        assert!((30..=49).contains(&s.len()), "{s}");
        assert!(!s.contains('\''));
    }
}

#[test]
fn indexes_are_validated_and_created() {
    let o = Overrides {
        indexes: vec!["Dat_Int_0".into(), "key".into(), "DAT_INT_0".into()],
        ..with(10, 10)
    };
    let w = workload("pocketdata-ia", &o, 1);
    assert_eq!(w.info.load_ops, 13);
    assert_eq!(w.info.params["indexes"], "DAT_INT_0,key");
    let init = statements(w.load);
    assert_eq!(
        init[11],
        "CREATE INDEX IDX_YCSBDATA_DAT_INT_0 ON YCSBDATA(DAT_INT_0)"
    );
    assert_eq!(init[12], "CREATE INDEX IDX_YCSBDATA_key ON YCSBDATA(key)");
    let bad = overrides(|o| o.indexes = vec!["nope".into()]);
    let err = builtin("pocketdata-a", &bad, 1).err().expect("refused");
    assert!(
        err.to_string()
            .starts_with("--index: YCSBDATA has no column \"nope\""),
        "{err}"
    );
}

#[test]
fn unsupported_overrides_and_bad_values_name_the_flag() {
    let cases = [
        (overrides(|o| o.miss_ratio = Some(1.5)), "--miss-ratio"),
        (overrides(|o| o.miss_ratio = Some(f64::NAN)), "--miss-ratio"),
        (overrides(|o| o.field_count = Some(3)), "--field-count"),
        (overrides(|o| o.field_length = Some(3)), "--field-length"),
        (
            overrides(|o| o.distribution = Some("uniform".into())),
            "--distribution",
        ),
        (overrides(|o| o.records = Some(0)), "--records"),
    ];
    for (o, flag) in cases {
        assert_refused(builtin("pocketdata-b", &o, 1), flag);
    }
    for other in ["pocketdata-g", "ycsb-a"] {
        assert!(builtin(other, &Overrides::default(), 1)
            .expect("ok")
            .is_none());
    }
}
