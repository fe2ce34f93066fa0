//! `--infer-schema` on a small hand-written log: the tables, columns (in the order first
//! seen), affinities and synthesised rows worked out by hand from the statements.

use super::tokens::{reduce, T};
use super::*;
use crate::workload::import::record::{ArgValue, BlobHex, Stamp};

fn stmt(sql: &str, args: Vec<ArgValue>) -> StatementRecord {
    StatementRecord {
        t_ns: 0,
        stamp: Stamp::Start,
        dur_ns: None,
        pid: None,
        tid: None,
        conn: None,
        db: None,
        sql: sql.into(),
        expanded: None,
        args: (!args.is_empty()).then_some(args),
        rows: None,
        status: None,
    }
}

fn cols(t: &InferredTable) -> Vec<String> {
    t.columns
        .iter()
        .map(|(c, a)| format!("{c} {a}").trim_end().to_string())
        .collect()
}

#[test]
fn tables_columns_affinities_and_rows_come_from_the_statements() {
    use ArgValue as A;
    let log = [
        stmt(
            "INSERT INTO notes(_id, title, body, created) VALUES(?, ?, ?, ?)",
            vec![
                A::Integer(1),
                A::Text("shopping".into()),
                A::Text("milk".into()),
                A::Real(1.5),
            ],
        ),
        stmt(
            "INSERT INTO notes(_id, title, body, created) VALUES(2, 'todo', NULL, 17)",
            vec![],
        ),
        stmt(
            "SELECT title, body FROM notes WHERE _id = ?",
            vec![A::Integer(2)],
        ),
        stmt(
            "UPDATE notes SET body = ? WHERE _id = 1",
            vec![A::Blob(BlobHex {
                blob: "00ff".into(),
            })],
        ),
        stmt(
            "SELECT n.title, t.name FROM notes n JOIN tags AS t ON t.note_id = n._id WHERE t.name IN ('a', 'b') ORDER BY n.created DESC",
            vec![],
        ),
        stmt("DELETE FROM main.tags WHERE weight > -1.5", vec![]),
        stmt(
            "INSERT INTO log VALUES(?, 'x'), (2, 'it''s')",
            vec![A::Integer(1)],
        ),
        stmt(
            "SELECT count(*) AS n FROM notes WHERE title LIKE 'sh%' ORDER BY n",
            vec![],
        ),
        stmt("CREATE TABLE made(a)", vec![]),
        stmt("INSERT INTO made VALUES(1)", vec![]),
        stmt("SELECT name FROM sqlite_master", vec![]),
        stmt("PRAGMA user_version = 3", vec![]),
        stmt(
            "INSERT OR REPLACE INTO main.visits(date, key) VALUES(3, 'x')",
            vec![],
        ),
    ];
    let mut inf = Inference::new(&HashSet::new());
    for s in &log {
        inf.feed(s);
    }
    let (tables, ops) = inf.finish(false);
    let names: Vec<&str> = tables.iter().map(|t| t.table.as_str()).collect();
    assert_eq!(names, ["log", "notes", "tags", "visits"]);
    assert_eq!(cols(&tables[0]), ["c1 INTEGER", "c2 TEXT"]);
    // body held text and a blob: no affinity; created an integer and a real: REAL.
    assert_eq!(
        cols(&tables[1]),
        ["_id INTEGER", "title TEXT", "body", "created REAL"]
    );
    // note_id was only compared with a column.
    assert_eq!(cols(&tables[2]), ["name TEXT", "note_id", "weight REAL"]);
    // In a column list a keyword is a column too.
    assert_eq!(cols(&tables[3]), ["date INTEGER", "key TEXT"]);
    // Rows: the most distinct values of a column (title: shopping, todo, sh%).
    assert_eq!(
        tables.iter().map(|t| t.rows).collect::<Vec<_>>(),
        [2, 3, 2, 1]
    );

    let text: Vec<String> = ops
        .iter()
        .map(crate::workload::trace::show::describe)
        .collect();
    assert_eq!(
        text[0],
        "other: CREATE TABLE \"log\"(\"c1\" INTEGER, \"c2\" TEXT)"
    );
    assert_eq!(
        text[1],
        "insert: INSERT INTO \"log\"(\"c1\",\"c2\") VALUES(?,?)  [1, 'x']"
    );
    assert_eq!(
        text[3],
        "other: CREATE TABLE \"notes\"(\"_id\" INTEGER, \"title\" TEXT, \"body\", \"created\" REAL)"
    );
    // Row r takes each column's value r modulo its count.
    assert_eq!(
        text[6],
        "insert: INSERT INTO \"notes\"(\"_id\",\"title\",\"body\",\"created\") VALUES(?,?,?,?)  [1, 'sh%', 'milk', 1.5]"
    );
    assert_eq!(
        text[8],
        "insert: INSERT INTO \"tags\"(\"name\",\"note_id\",\"weight\") VALUES(?,?,?)  ['a', NULL, -1.5]"
    );
    assert_eq!(ops.len(), 3 + 4 + 3 + 2);

    let (_, inline) = {
        let mut inf = Inference::new(&HashSet::new());
        inf.feed(&log[6]);
        inf.finish(true)
    };
    assert_eq!(
        crate::workload::trace::show::describe(&inline[2]),
        "insert: INSERT INTO \"log\"(\"c1\",\"c2\") VALUES(2,'it''s')"
    );
}

#[test]
fn tables_the_schema_or_the_log_create_are_left_to_them() {
    let existing = HashSet::from([("table".to_string(), "kept".to_string())]);
    let mut inf = Inference::new(&existing);
    for sql in [
        "SELECT a FROM kept WHERE a = 1",
        "SELECT b FROM later WHERE b = 2",
        "CREATE TABLE IF NOT EXISTS later(b)",
        "SELECT c FROM other",
        "DELETE FROM bare",
    ] {
        inf.feed(&stmt(sql, vec![]));
    }
    let (tables, ops) = inf.finish(false);
    assert_eq!(tables.len(), 2);
    // A table no statement names a column of gets one.
    assert_eq!((tables[0].table.as_str(), tables[0].rows), ("bare", 0));
    assert_eq!(cols(&tables[0]), ["c1"]);
    assert_eq!((tables[1].table.as_str(), tables[1].rows), ("other", 0));
    assert_eq!(cols(&tables[1]), ["c"]);
    assert_eq!(ops.len(), 2);
}

#[test]
fn parameters_take_their_arguments_as_sqlite_numbers_them() {
    let toks = reduce(
        "SELECT * FROM t WHERE a = ?2 AND b = ? AND c = :n AND d = :n AND e = -3 AND f - 4",
        &[
            SqlValue::Integer(10),
            SqlValue::Integer(20),
            SqlValue::Integer(30),
        ],
    );
    let values: Vec<&SqlValue> = toks
        .iter()
        .filter_map(|t| match t {
            T::Value(v) => Some(v),
            _ => None,
        })
        .collect();
    // ?2 → 20, then ? is number 3, :n number 4 (no argument: NULL), -3 negative, f - 4 not.
    assert_eq!(
        values,
        [
            &SqlValue::Integer(20),
            &SqlValue::Integer(30),
            &SqlValue::Null,
            &SqlValue::Null,
            &SqlValue::Integer(-3),
            &SqlValue::Integer(4)
        ]
    );
}
