//! The anonymiser by hand-worked examples: what each value becomes (equality, length, type,
//! distinctness), what is never changed (integers unless asked, the schema's literals,
//! PRAGMAs), and an anonymised schema and query selecting the same rows on SQLite.

use super::*;

fn all() -> Anonymizer {
    Anonymizer::new(
        "pepper",
        Scope::parse("literals,identifiers,paths").unwrap(),
    )
}

#[test]
fn values_keep_equality_length_and_type() {
    let a = Anonymizer::new("pepper", Scope::parse("literals").unwrap());
    let t = a.text("Alice Smith, 42 Main St. café");
    assert_eq!(t, a.text("Alice Smith, 42 Main St. café"));
    assert_ne!(t, "Alice Smith, 42 Main St. café");
    assert_eq!(t.len(), "Alice Smith, 42 Main St. café".len());
    assert_eq!((&t[5..6], &t[11..13]), (" ", ", "), "punctuation kept");
    assert!(t.as_bytes()[0].is_ascii_uppercase() && t.as_bytes()[1].is_ascii_lowercase());
    // Distinct short texts of one shape stay distinct (a permutation of the shape).
    let two_letters: std::collections::HashSet<String> = (b'a'..=b'z')
        .flat_map(|x| (b'a'..=b'z').map(move |y| format!("{}{}", x as char, y as char)))
        .map(|s| a.text(&s))
        .collect();
    assert_eq!(two_letters.len(), 26 * 26);
    assert!(two_letters
        .iter()
        .all(|s| s.len() == 2 && s.bytes().all(|b| b.is_ascii_lowercase())));
    assert_eq!(a.text("Ab-0"), a.text("Ab-0"));
    assert!(a.text("Ab-0").ends_with("-0"));
    // A text SQLite reads as an integer is that integer: kept unless `integers`.
    assert_eq!(
        (a.text("42"), a.text("-7")),
        ("42".to_string(), "-7".to_string())
    );
    assert_eq!(a.int_value(42), 42);
    assert_ne!(a.text("042"), "042");
    let ints = Anonymizer::new("pepper", Scope::parse("integers").unwrap());
    assert_eq!(ints.text("42"), ints.integer(42).to_string());
    assert_eq!(ints.int_value(42), ints.integer(42));
    assert!((1000..10000).contains(&a.integer(1205)));
    assert!(a.integer(-7) < 0 && a.integer(-7) > -10);
    // A permutation: the hundred two-digit integers map onto themselves.
    let mut two: Vec<i64> = (10..100).map(|i| a.integer(i)).collect();
    two.sort();
    assert_eq!(two, (10..100).collect::<Vec<i64>>());
    assert_eq!(a.integer(i64::MAX).to_string().len(), 19);
    assert_eq!(a.blob_hex("00ff10").len(), 6);
    assert_ne!(a.text("xy"), Anonymizer::new("salt2", a.scope).text("xy"));
    let p = a.path("/data/user/0/com.example/databases/x.db");
    assert_eq!(p.len(), "/data/user/0/com.example/databases/x.db".len());
    assert!(p.ends_with(".db") && p.matches('/').count() == 6);
}

#[test]
fn a_literal_in_the_sql_and_the_same_bound_value_stay_equal() {
    let a = Anonymizer::new("pepper", Scope::parse("literals").unwrap());
    let query =
        "SELECT * FROM t WHERE a = 'it''s' AND b = -12 AND r = 2.5 AND c = x'00ff' LIMIT 10 OFFSET 5";
    let expect = format!(
        "SELECT * FROM t WHERE a = '{}' AND b = -12 AND r = {} AND c = x'{}' LIMIT 10 OFFSET 5",
        a.text("it's").replace('\'', "''"),
        a.real(2.5),
        a.blob_hex("00ff")
    );
    assert_eq!(a.sql(query), expect, "integers kept without `integers`");
    let ints = Anonymizer::new("pepper", Scope::parse("literals,integers").unwrap());
    assert!(ints
        .sql(query)
        .contains(&format!("b = {} AND", ints.integer(-12))));
    assert_eq!(
        ints.sql("SELECT 1 LIMIT 10"),
        format!("SELECT {} LIMIT 10", ints.integer(1))
    );
    let mut r = LogRecord::Statement(StatementRecord {
        sql: "UPDATE t SET a = ?, b = ? WHERE c = 'x' AND d = 7".into(),
        args: Some(vec![
            ArgValue::Text("it's".into()),
            ArgValue::Integer(7),
            ArgValue::Null,
        ]),
        ..Default::default()
    });
    a.apply(&mut r);
    let LogRecord::Statement(s) = r else { panic!() };
    assert_eq!(
        s.args.unwrap(),
        [
            ArgValue::Text(a.text("it's")),
            ArgValue::Integer(7),
            ArgValue::Null
        ]
    );
    assert_eq!(
        s.sql,
        format!(
            "UPDATE t SET a = ?, b = ? WHERE c = '{}' AND d = 7",
            a.text("x")
        )
    );
}

#[test]
fn the_schemas_literals_and_pragmas_are_never_changed() {
    let a = all();
    let literals = Anonymizer::new("pepper", Scope::parse("literals,integers").unwrap());
    for ddl in [
        "CREATE TABLE t(price REAL CHECK (price >= 0), s TEXT DEFAULT 'new', b BLOB DEFAULT x'00')",
        "ALTER TABLE t ADD COLUMN n INTEGER DEFAULT 5",
        "CREATE VIEW v AS SELECT * FROM t WHERE s = 'open'",
        "CREATE TRIGGER g AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('added', 1.5); END",
        "DROP TABLE IF EXISTS t",
    ] {
        assert_eq!(literals.sql(ddl), ddl);
        // With `identifiers`, the names change as the schema's do; the literals stay.
        assert_eq!(a.sql(ddl), a.schema_sql(ddl), "{ddl}");
    }
    assert_eq!(
        a.sql("CREATE TABLE t(price REAL CHECK (price >= 0))"),
        format!(
            "CREATE TABLE {t}({p} REAL CHECK ({p} >= 0))",
            t = a.ident("t"),
            p = a.ident("price")
        )
    );
    for pragma in [
        "PRAGMA journal_mode = WAL",
        "PRAGMA main.synchronous=NORMAL",
        "PRAGMA foreign_keys=ON",
        "PRAGMA user_version = 3",
        "pragma cache_size(-2000)",
        "PRAGMA table_info(sqlite_master)",
    ] {
        assert_eq!(a.sql(pragma), pragma);
        assert_eq!(literals.sql(pragma), pragma);
    }
    // A value the schema fills in (a DEFAULT) stays equal to the literal that looks for it,
    // in the SQL and as an argument; other values are mapped.
    let fresh = Anonymizer::new("pepper", Scope::parse("literals").unwrap());
    let query = "DELETE FROM t WHERE note = 'none' OR note = 'other'";
    assert_ne!(fresh.sql(query), query);
    fresh.sql("CREATE TABLE t(note TEXT DEFAULT 'none', r REAL DEFAULT 0.5)");
    assert_eq!(
        fresh.sql(query),
        format!(
            "DELETE FROM t WHERE note = 'none' OR note = '{}'",
            fresh.text("other")
        )
    );
    let mut r = LogRecord::Statement(StatementRecord {
        sql: "SELECT * FROM t WHERE note = ? AND r = ?".into(),
        args: Some(vec![ArgValue::Text("none".into()), ArgValue::Real(0.5)]),
        ..Default::default()
    });
    fresh.apply(&mut r);
    let LogRecord::Statement(s) = r else { panic!() };
    assert_eq!(
        s.args.unwrap(),
        [ArgValue::Text("none".into()), ArgValue::Real(0.5)]
    );
    // A pragma naming a table names it as the renamed schema does.
    assert_eq!(
        a.sql("PRAGMA main.table_info('Notes')"),
        format!("PRAGMA main.table_info('{}')", a.ident("Notes"))
    );
    assert_eq!(
        a.sql("PRAGMA index_list(notes)"),
        format!("PRAGMA index_list({})", a.ident("notes"))
    );
}

#[test]
fn an_anonymised_schema_and_workload_select_the_same_rows_on_sqlite() {
    let a = all();
    let schema = "CREATE TABLE Notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score REAL)";
    let rows = [
        (1, "groceries", 2.5),
        (2, "groceries", 1.0),
        (3, "work", 2.5),
    ];
    let query =
        "SELECT count(*), max(n.id) FROM notes AS n WHERE n.title = 'groceries' AND score = 2.5";
    let run = |schema: &str, insert: &dyn Fn(i64, &str, f64) -> String, q: &str| {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(schema).unwrap();
        for (id, t, s) in rows {
            db.execute_batch(&insert(id, t, s)).unwrap();
        }
        db.query_row(q, [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
            .unwrap()
    };
    let plain = run(
        schema,
        &|i, t, s| format!("INSERT INTO notes VALUES({i}, '{t}', {s})"),
        query,
    );
    let mut sch = LogRecord::Schema(crate::workload::import::SchemaRecord {
        db: Some("/data/user/0/com.example.notes/databases/notes.db".into()),
        kind: "table".into(),
        name: "Notes".into(),
        sql: schema.into(),
    });
    a.apply(&mut sch);
    let LogRecord::Schema(sch) = sch else {
        panic!()
    };
    assert!(!sch.sql.contains("title") && sch.sql.contains("INTEGER PRIMARY KEY"));
    assert!(sch.db.as_deref().unwrap().ends_with(".db") && !sch.db.unwrap().contains("example"));
    let anon = run(
        &sch.sql,
        &|i, t, s| a.sql(&format!("INSERT INTO notes VALUES({i}, '{t}', {s})")),
        &a.sql(query),
    );
    assert_eq!(plain.0, 1);
    assert_eq!(anon.0, plain.0, "same rows selected");
    assert_eq!(
        anon.1, plain.1,
        "an integer key stays the key SQLite generated"
    );
}

#[test]
fn bad_scopes_are_named() {
    let e = Scope::parse("literals,names").unwrap_err().to_string();
    assert!(e.contains("--anonymize") && e.contains("names"), "{e}");
    assert_eq!(
        Scope::parse("paths,literals").unwrap().to_string(),
        "literals,paths"
    );
    assert_eq!(
        Scope::parse("integers").unwrap().to_string(),
        "literals,integers"
    );
}
