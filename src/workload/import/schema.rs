//! Where an imported trace's schema (and initial rows) come from: a `.sql` file, an app's
//! database file (`--schema-from`, `--data-from`), or the schema records of the log; each
//! becomes load-phase statements. Also splits SQL text into statements (SQLite's own
//! `sqlite3_complete` decides where one ends, so triggers stay whole).

use super::sql::sqltext::created_object;
use crate::error::{Error, Result, ResultExt};
use crate::limits::{escape, MAX_SCHEMA_OBJECTS, MAX_WORKLOAD_FILE_BYTES};
use crate::workload::op::{Op, SqlValue};
use std::path::Path;

/// Split `text` into complete statements (without the empty ones).
pub fn split_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices(';') {
        let candidate = &text[start..=i];
        let Ok(c) = std::ffi::CString::new(candidate) else {
            continue;
        };
        // SAFETY: a NUL-terminated string that lives across the call.
        if unsafe { rusqlite::ffi::sqlite3_complete(c.as_ptr()) } != 0 {
            let s = candidate.trim().trim_end_matches(';').trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            start = i + 1;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// The statements of a `.sql` file (`--schema FILE.sql`).
pub fn from_file(path: &Path) -> Result<Vec<String>> {
    let len = std::fs::metadata(path)
        .input_err(format!("--schema {}: cannot read", path.display()))?
        .len();
    if len > MAX_WORKLOAD_FILE_BYTES {
        return Err(Error::input(format!(
            "--schema {}: {len} bytes is above the limit of {MAX_WORKLOAD_FILE_BYTES} (see docs/limits.md)",
            path.display()
        )));
    }
    let text = std::fs::read_to_string(path).input_err(format!(
        "--schema {}: cannot read as UTF-8 text",
        path.display()
    ))?;
    let mut statements = split_statements(&text);
    // `sqlite3 DB .schema` prints SQLite's own tables; SQLite creates them itself.
    statements.retain(|s| !created_object(s).is_some_and(|(_, name)| internal(&name)));
    for s in &statements {
        crate::limits::check_sql(s, &format!("--schema {}", path.display()))?;
    }
    Ok(statements)
}

fn open(path: &Path, flag: &str) -> Result<rusqlite::Connection> {
    let c = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .input_err(format!("{flag} {}: cannot open", path.display()))?;
    c.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
        .input_err(format!("{flag} {}: not a SQLite database", path.display()))?;
    Ok(c)
}

/// Order schema objects as they must be created: tables, then indexes, views, triggers.
pub fn order_objects(objects: &mut [(String, String, String)]) {
    let rank = |k: &str| match k {
        "table" => 0,
        "index" => 1,
        "view" => 2,
        _ => 3,
    };
    objects.sort_by_key(|(k, _, _)| rank(k));
}

/// The CREATE statements of an app's database (`--schema-from app.db`), tables first.
pub fn from_database(path: &Path) -> Result<Vec<String>> {
    let c = open(path, "--schema-from")?;
    let mut stmt = c
        .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        .run_err("--schema-from")?;
    let mut objects: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .and_then(|rows| rows.take(MAX_SCHEMA_OBJECTS as usize).collect())
        .input_err(format!("--schema-from {}", path.display()))?;
    order_objects(&mut objects);
    Ok(objects.into_iter().map(|(_, _, sql)| sql).collect())
}

/// Every row of every table of `path` (`--data-from app.db`) as an `INSERT` with bound
/// values (or literals when `inline`), handed to `f` one at a time.
pub fn each_row(path: &Path, inline: bool, f: &mut dyn FnMut(Op) -> Result<()>) -> Result<()> {
    let c = open(path, "--data-from")?;
    let tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .input_err(format!("--data-from {}", path.display()))?;
    for t in tables {
        let quoted = format!("\"{}\"", t.replace('"', "\"\""));
        let mut stmt = c
            .prepare(&format!("SELECT * FROM {quoted}"))
            .input_err(format!(
                "--data-from {}: table {}",
                path.display(),
                escape(&t)
            ))?;
        let n = stmt.column_count();
        let insert = format!("INSERT INTO {quoted} VALUES({})", vec!["?"; n].join(","));
        let mut rows = stmt.query([]).run_err("--data-from")?;
        while let Some(row) = rows.next().run_err("--data-from")? {
            let args: Vec<SqlValue> = (0..n)
                .map(|i| {
                    row.get_ref(i).map(|v| match v {
                        rusqlite::types::ValueRef::Null => SqlValue::Null,
                        rusqlite::types::ValueRef::Integer(i) => SqlValue::Integer(i),
                        rusqlite::types::ValueRef::Real(r) => SqlValue::Real(r),
                        rusqlite::types::ValueRef::Text(t) => {
                            SqlValue::Text(String::from_utf8_lossy(t).into_owned())
                        }
                        rusqlite::types::ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
                    })
                })
                .collect::<std::result::Result<_, _>>()
                .run_err("--data-from")?;
            f(if inline {
                Op::Sql {
                    sql: super::sql::sqltext::inline_args(&insert, &args).unwrap_or_default(),
                }
            } else {
                Op::SqlArgs {
                    sql: insert.clone(),
                    args,
                }
            })?;
        }
    }
    Ok(())
}

/// Whether `name` is one of SQLite's own objects (`sqlite_sequence`, `sqlite_stat1`, …), which
/// SQLite creates itself and refuses to have created (“reserved for internal use”).
pub fn internal(name: &str) -> bool {
    name.get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("sqlite_"))
}

/// The (kind, name) of every object the statements create.
pub fn objects_of(statements: &[String]) -> std::collections::HashSet<(String, String)> {
    statements
        .iter()
        .filter_map(|s| created_object(s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_split_where_sqlite_says_they_end() {
        let text = "CREATE TABLE t(a); -- x;\nCREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; SELECT ';'; END;\nINSERT INTO t VALUES(';')";
        assert_eq!(
            split_statements(text),
            [
                "CREATE TABLE t(a)",
                "-- x;\nCREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; SELECT ';'; END",
                "INSERT INTO t VALUES(';')"
            ]
        );
    }
}
