//! The SQLite back end: a file in WAL mode (readers beside the one writer), statements cached
//! per connection, `$N` placeholders read as `?N`.

use super::{Dialect, Row, Sql, Value};
use crate::error::{Error, Result, ResultExt};
use rusqlite::types::{ToSqlOutput, ValueRef};
use std::path::Path;

pub struct Sqlite {
    conn: rusqlite::Connection,
    path: String,
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Value::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Value::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

impl Sqlite {
    pub fn open(path: &Path) -> Result<Sqlite> {
        let shown = path.display().to_string();
        let conn = rusqlite::Connection::open(path)
            .input_err(format!("--db {}", crate::limits::escape(&shown)))?;
        // WAL: readers never wait for the writer. synchronous=NORMAL: a commit is durable
        // against a crash of the server process; a power loss may take the last commits
        // (never corrupts). busy_timeout covers other processes sharing the file.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 10000;
             PRAGMA foreign_keys = ON;",
        )
        .map_err(|e| {
            Error::input(format!(
                "--db {}: not a usable SQLite database: {e}",
                crate::limits::escape(&shown)
            ))
        })?;
        Ok(Sqlite { conn, path: shown })
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        Error::failed(format!("server database {}: {e}", self.path))
    }
}

/// `$1` → `?1` (no statement here has a `$` inside a string literal).
fn placeholders(sql: &str) -> String {
    sql.replace('$', "?")
}

impl Sql for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        let mut st = self
            .conn
            .prepare_cached(&placeholders(sql))
            .map_err(|e| self.err(e))?;
        let n = st
            .execute(rusqlite::params_from_iter(params.iter()))
            .map_err(|e| Error::failed(format!("server database: {e}")))?;
        Ok(n as u64)
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        let mut st = self
            .conn
            .prepare_cached(&placeholders(sql))
            .map_err(|e| self.err(e))?;
        let cols = st.column_count();
        let mut rows = st
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(|e| Error::failed(format!("server database: {e}")))?;
        let mut out = Vec::new();
        while let Some(r) = rows
            .next()
            .map_err(|e| Error::failed(format!("server database: {e}")))?
        {
            let mut row = Vec::with_capacity(cols);
            for i in 0..cols {
                row.push(match r.get_ref(i) {
                    Ok(ValueRef::Integer(v)) => Value::Int(v),
                    Ok(ValueRef::Real(v)) => Value::Real(v),
                    Ok(ValueRef::Text(t)) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                    Ok(ValueRef::Blob(b)) => Value::Blob(b.to_vec()),
                    _ => Value::Null,
                });
            }
            out.push(Row(row));
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        self.conn.execute_batch(sql).map_err(|e| self.err(e))
    }
}
