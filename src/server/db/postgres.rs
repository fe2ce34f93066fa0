//! The PostgreSQL back end: the asynchronous `tokio-postgres` client behind a
//! `deadpool-postgres` pool, statements prepared once per connection and cached, values bound
//! with their column's type.
//!
//! Why deadpool-postgres (and not bb8-postgres): it is the pool tokio-postgres' users most often
//! pick and is kept in step with it; a connection's statement cache comes with it
//! (`prepare_cached`), a connection found closed is replaced when next taken, and taking one is
//! one future with no locking of ours. bb8 would need the cache written here.
//!
//! Threads: the pool's connections (each a tokio-postgres `Connection` task doing the socket
//! I/O) live on a runtime of their own, one thread, owned by the pool; so `token add` and the
//! tests, which have no runtime, use the same code as `serve`. The server's handlers run on
//! tokio's blocking tasks and wait for their statements there (`Handle::block_on`): the async
//! threads that serve connections never wait on the database.

use super::{Dialect, Row, Sql, Value};
use crate::error::{Error, Result};
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use tokio_postgres::types::{IsNull, ToSql, Type};
use tokio_postgres::NoTls;

/// The URL without its password, for messages.
pub fn describe(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let user = &url[s + 3..at];
            let user = user.split(':').next().unwrap_or("");
            format!("PostgreSQL {}{user}@{}", &url[..s + 3], &url[at + 1..])
        }
        _ => format!("PostgreSQL {url}"),
    }
}

/// An error and its causes in one line: the driver's own message is only "error connecting to
/// server", the cause (a host that does not resolve, a refused connection) is its source.
fn with_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut why = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !why.contains(&s_text) {
            why = format!("{why}: {s_text}");
        }
        source = s.source();
    }
    why
}

/// A pool of up to `size` connections, and the runtime their I/O runs on.
pub struct PgPool {
    pool: Pool,
    runtime: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
}

impl PgPool {
    /// Connect to `url` (one connection made now, so that a wrong URL or an unreachable server
    /// is a message at start; the others as they are needed).
    pub fn connect(url: &str, size: usize) -> Result<PgPool> {
        let bad = |why: String| {
            Error::input(format!(
                "--db {}: cannot connect: {why}",
                crate::limits::escape(&describe(url))
            ))
        };
        let config: tokio_postgres::Config = url.parse().map_err(|e| bad(with_causes(&e)))?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A connection is checked as it is taken back (closed ones are dropped);
                // statements on a broken one fail and the next one taken is new.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("pocketbench-pg")
            .enable_all()
            .build()
            .map_err(|e| Error::failed(format!("starting the database's runtime: {e}")))?;
        let handle = runtime.handle().clone();
        let pool = Pool::builder(manager)
            .max_size(size.max(1))
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(|e| Error::failed(format!("the PostgreSQL pool: {e}")))?;
        let pg = PgPool {
            pool,
            runtime: Some(runtime),
            handle,
        };
        let first = pg.get().map_err(|e| match e {
            Taken::Backend(e) => bad(with_causes(&e)),
            Taken::Other(m) => bad(m),
        })?;
        drop(first);
        Ok(pg)
    }

    /// Take a connection, waiting on this thread (never an async task's: see the module doc).
    fn get(&self) -> std::result::Result<Object, Taken> {
        self.handle.block_on(self.pool.get()).map_err(|e| match e {
            deadpool_postgres::PoolError::Backend(e) => Taken::Backend(e),
            other => Taken::Other(other.to_string()),
        })
    }

    /// A connection, for as long as the returned value lives.
    pub fn conn(&self) -> Result<Pg> {
        let client = self.get().map_err(|e| match e {
            Taken::Backend(e) => err(e),
            Taken::Other(m) => Error::failed(format!("server database (PostgreSQL): {m}")),
        })?;
        Ok(Pg {
            client: Some(client),
            handle: self.handle.clone(),
            in_transaction: false,
        })
    }
}

impl Drop for PgPool {
    fn drop(&mut self) {
        self.pool.close();
        // Dropping a runtime may not block inside another runtime's async context.
        if let Some(r) = self.runtime.take() {
            r.shutdown_background();
        }
    }
}

enum Taken {
    Backend(tokio_postgres::Error),
    Other(String),
}

/// One pooled connection, given back to the pool when dropped.
pub struct Pg {
    client: Option<Object>,
    handle: tokio::runtime::Handle,
    /// A `BEGIN` not yet followed by `COMMIT` or `ROLLBACK`: if the connection is dropped so
    /// (a panicking handler), it is closed rather than given back mid-transaction.
    in_transaction: bool,
}

impl Drop for Pg {
    fn drop(&mut self) {
        if self.in_transaction {
            if let Some(c) = self.client.take() {
                // Detached from the pool and dropped: the server rolls the transaction back.
                drop(Object::take(c));
            }
        }
    }
}

fn err(e: tokio_postgres::Error) -> Error {
    Error::failed(format!("server database (PostgreSQL): {e}"))
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut tokio_postgres::types::private::BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) if *ty == Type::INT4 => (*v as i32).to_sql(ty, out),
            Value::Int(v) if *ty == Type::FLOAT8 => (*v as f64).to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(s) => s.as_str().to_sql(ty, out),
            Value::Blob(b) => b.as_slice().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

fn column(row: &tokio_postgres::Row, i: usize) -> Value {
    let ty = row.columns()[i].type_();
    let v = if *ty == Type::INT8 {
        row.get::<_, Option<i64>>(i).map(Value::Int)
    } else if *ty == Type::INT4 {
        row.get::<_, Option<i32>>(i).map(|v| Value::Int(v.into()))
    } else if *ty == Type::INT2 {
        row.get::<_, Option<i16>>(i).map(|v| Value::Int(v.into()))
    } else if *ty == Type::FLOAT8 {
        row.get::<_, Option<f64>>(i).map(Value::Real)
    } else if *ty == Type::FLOAT4 {
        row.get::<_, Option<f32>>(i).map(|v| Value::Real(v.into()))
    } else if *ty == Type::BOOL {
        row.get::<_, Option<bool>>(i).map(|v| Value::Int(v.into()))
    } else if *ty == Type::BYTEA {
        row.get::<_, Option<Vec<u8>>>(i).map(Value::Blob)
    } else {
        row.try_get::<_, Option<String>>(i)
            .ok()
            .flatten()
            .map(Value::Text)
    };
    v.unwrap_or(Value::Null)
}

impl Pg {
    fn client(&self) -> &Object {
        self.client.as_ref().expect("a connection until dropped")
    }

    /// Run `f` against the connection, waiting on this (blocking) thread.
    fn wait<T>(
        &self,
        f: impl std::future::Future<Output = std::result::Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        self.handle.block_on(f).map_err(err)
    }
}

impl Sql for Pg {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        let c = self.client();
        let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        self.wait(async {
            let st = c.prepare_cached(sql).await?;
            c.execute(&st, &p).await
        })
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        let c = self.client();
        let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        let rows = self.wait(async {
            let st = c.prepare_cached(sql).await?;
            c.query(&st, &p).await
        })?;
        Ok(rows
            .iter()
            .map(|r| Row((0..r.len()).map(|i| column(r, i)).collect()))
            .collect())
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        let c = self.client();
        self.wait(c.batch_execute(sql))?;
        match sql.trim() {
            "BEGIN" => self.in_transaction = true,
            "COMMIT" | "ROLLBACK" => self.in_transaction = false,
            _ => {}
        }
        Ok(())
    }
}
