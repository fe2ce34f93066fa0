//! The server's database: one small SQL interface ([`Sql`]) with two back ends — SQLite
//! (`sqlite.rs`, the zero-setup default) and PostgreSQL (`postgres.rs`, for a fleet or a public
//! service, through tokio-postgres and deadpool-postgres) — and the connections the request
//! handlers share ([`Db`]). Every statement is
//! written once, in PostgreSQL's `$1` placeholder style, and run unchanged by both back ends
//! (SQLite reads `$N` as `?N`); the few places where the two differ ask [`Sql::dialect`].
//! Parameters are always bound, never formatted into SQL.

mod postgres;
pub mod schema;
mod sqlite;

use crate::error::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Which SQL the database speaks where the two differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A value bound to a statement or read from a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    /// Bytes (SQLite BLOB, PostgreSQL BYTEA): a stored trace's chunks.
    Blob(Vec<u8>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// One row of a query's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Row(pub Vec<Value>);

impl Row {
    pub fn int(&self, i: usize) -> i64 {
        match self.0.get(i) {
            Some(Value::Int(v)) => *v,
            Some(Value::Real(v)) => *v as i64,
            _ => 0,
        }
    }
    pub fn real(&self, i: usize) -> f64 {
        match self.0.get(i) {
            Some(Value::Real(v)) => *v,
            Some(Value::Int(v)) => *v as f64,
            _ => 0.0,
        }
    }
    pub fn text(&self, i: usize) -> String {
        match self.0.get(i) {
            Some(Value::Text(s)) => s.clone(),
            Some(Value::Int(v)) => v.to_string(),
            Some(Value::Real(v)) => v.to_string(),
            _ => String::new(),
        }
    }
    /// A BLOB/BYTEA column's bytes (a text column's UTF-8).
    pub fn blob(&self, i: usize) -> Vec<u8> {
        match self.0.get(i) {
            Some(Value::Blob(b)) => b.clone(),
            Some(Value::Text(s)) => s.clone().into_bytes(),
            _ => Vec::new(),
        }
    }
}

/// A connection to the server's database.
pub trait Sql: Send {
    fn dialect(&self) -> Dialect;
    /// Run one statement; returns the rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64>;
    /// Run one query; returns all its rows.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>>;
    /// Run several statements with no parameters (schema).
    fn batch(&mut self, sql: &str) -> Result<()>;
}

/// Run `f` in one transaction on `c`: committed when it returns Ok, rolled back otherwise.
/// SQLite takes its write lock at the start (`BEGIN IMMEDIATE`), so a transaction that reads
/// and then writes never fails half-way on a lock.
pub fn transaction<T>(c: &mut dyn Sql, f: impl FnOnce(&mut dyn Sql) -> Result<T>) -> Result<T> {
    let begin = match c.dialect() {
        Dialect::Sqlite => "BEGIN IMMEDIATE",
        Dialect::Postgres => "BEGIN",
    };
    c.batch(begin)?;
    match f(c) {
        Ok(v) => {
            c.batch("COMMIT")?;
            Ok(v)
        }
        Err(e) => {
            let _ = c.batch("ROLLBACK");
            Err(e)
        }
    }
}

/// The first row's first column as an integer, if there is a row.
pub fn scalar(c: &mut dyn Sql, sql: &str, params: &[Value]) -> Result<Option<i64>> {
    Ok(c.query(sql, params)?.first().map(|r| r.int(0)))
}

/// Connections shared by the server's handlers. With PostgreSQL, a pool ([`postgres::PgPool`])
/// whose every connection reads and writes; with SQLite, writes go through one connection
/// (SQLite has one writer at a time, and waiting on a mutex is cheaper than SQLite's busy-retry
/// sleeps) and reads through the others (WAL lets them run beside the writer).
pub struct Db {
    dialect: Dialect,
    pool: Pool,
    /// What the URL names, for messages (a PostgreSQL password is never shown).
    pub describe: String,
}

enum Pool {
    Sqlite {
        readers: Vec<Mutex<Box<dyn Sql>>>,
        writer: Mutex<Box<dyn Sql>>,
        next: AtomicUsize,
    },
    Postgres(postgres::PgPool),
}

/// A connection taken from the pool, given back when dropped.
pub enum Conn<'a> {
    Shared(MutexGuard<'a, Box<dyn Sql>>),
    Own(Box<dyn Sql>),
}

impl std::ops::Deref for Conn<'_> {
    type Target = Box<dyn Sql>;
    fn deref(&self) -> &Box<dyn Sql> {
        match self {
            Conn::Shared(c) => c,
            Conn::Own(c) => c,
        }
    }
}

impl std::ops::DerefMut for Conn<'_> {
    fn deref_mut(&mut self) -> &mut Box<dyn Sql> {
        match self {
            Conn::Shared(c) => c,
            Conn::Own(c) => c,
        }
    }
}

/// The default database: a SQLite file in the working directory.
pub const DEFAULT_DB: &str = "pocketbench-server.db";

impl Db {
    /// Open the database at `url` (`postgres://…`/`postgresql://…`, `sqlite:PATH` or a plain
    /// path) with `connections` connections, creating or upgrading its schema. Its connections
    /// are used from blocking threads (a command's, or tokio's blocking tasks), never from an
    /// async task.
    pub fn open(url: &str, connections: usize) -> Result<Db> {
        let connections = connections.max(1);
        let db = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Db {
                dialect: Dialect::Postgres,
                pool: Pool::Postgres(postgres::PgPool::connect(url, connections)?),
                describe: postgres::describe(url),
            }
        } else {
            let path = std::path::PathBuf::from(url.strip_prefix("sqlite:").unwrap_or(url));
            let writer = sqlite::Sqlite::open(&path)?;
            let mut readers = Vec::with_capacity(connections);
            for _ in 0..connections {
                readers.push(Mutex::new(
                    Box::new(sqlite::Sqlite::open(&path)?) as Box<dyn Sql>
                ));
            }
            Db {
                dialect: Dialect::Sqlite,
                pool: Pool::Sqlite {
                    readers,
                    writer: Mutex::new(Box::new(writer)),
                    next: AtomicUsize::new(0),
                },
                describe: format!("SQLite {}", path.display()),
            }
        };
        schema::create(&mut **db.write()?)?;
        Ok(db)
    }

    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// A connection for reading: with SQLite a free one if there is one, else the next in turn.
    pub fn read(&self) -> Result<Conn<'_>> {
        match &self.pool {
            Pool::Sqlite { readers, next, .. } => {
                let start = next.fetch_add(1, Ordering::Relaxed);
                let n = readers.len();
                for i in 0..n {
                    if let Ok(c) = readers[(start + i) % n].try_lock() {
                        return Ok(Conn::Shared(c));
                    }
                }
                lock(&readers[start % n])
            }
            Pool::Postgres(p) => Ok(Conn::Own(Box::new(p.conn()?))),
        }
    }

    /// A connection for a write transaction.
    pub fn write(&self) -> Result<Conn<'_>> {
        match &self.pool {
            Pool::Sqlite { writer, .. } => lock(writer),
            Pool::Postgres(_) => self.read(),
        }
    }
}

/// Lock a connection. One left behind by a panicking handler is taken back, with whatever
/// transaction it had open rolled back.
fn lock(m: &Mutex<Box<dyn Sql>>) -> Result<Conn<'_>> {
    match m.lock() {
        Ok(c) => Ok(Conn::Shared(c)),
        Err(poisoned) => {
            m.clear_poison();
            let mut c = poisoned.into_inner();
            let _ = c.batch("ROLLBACK");
            Ok(Conn::Shared(c))
        }
    }
}
