//! SQLite (bundled), measured through a VFS shim that attributes every file I/O to the
//! operation that caused it. Key-value workloads use YCSB's JDBC schema (`usertable` with a
//! `YCSB_KEY` primary key and `FIELDn` text columns) through prepared statements; SQL
//! workloads run their statements as written (both in [`session`], shared with BerkeleyDB's
//! SQL front end).

pub mod api;
pub mod guard;
pub mod options;
pub mod passthrough;
pub mod session;
pub mod stmt;
pub mod vfs;

use super::options::EngineOptions;
use super::{Engine, EngineDescriptor, EngineInfo, LastRead, Outcome, Request};
use crate::error::{Error, Result, ResultExt};
use crate::workload::model::DataModel;
use rusqlite::{Connection, OpenFlags};
use session::SqlSession;
use std::path::Path;

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "sqlite",
    summary: "SQLite (bundled), I/O measured per operation by a VFS shim",
    options: options::SPECS,
    supports_sql: true,
    open,
    version,
};

/// File name of the database inside the engine's directory.
pub const DB_FILE: &str = "pocketbench.sqlite";

pub fn version() -> String {
    rusqlite::version().to_string()
}

pub struct SqliteEngine {
    // Statements must be finalized before the connection closes: keep the session first.
    session: SqlSession,
    conn: Connection,
    pragmas: Vec<(&'static str, String)>,
}

fn open(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>> {
    if !vfs::register() {
        return Err(Error::failed("sqlite: no default VFS to wrap"));
    }
    let path = dir.join(DB_FILE);
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let vfs_name = match options::sync_call(options) {
        "fsync" => vfs::VFS_NAME_FSYNC,
        _ => vfs::VFS_NAME,
    };
    let conn = Connection::open_with_flags_and_vfs(&path, flags, vfs_name)
        .run_err(format!("sqlite: cannot open {}", path.display()))?;
    let mut pragmas = options::effective(options);
    for (name, value) in &pragmas {
        // journal_mode returns a row; query_row handles both kinds of PRAGMA.
        let sql = format!("PRAGMA {name} = {value}");
        let mut stmt = conn.prepare(&sql).run_err(format!("sqlite: {sql}"))?;
        let mut rows = stmt.query([]).run_err(format!("sqlite: {sql}"))?;
        while rows.next().run_err(format!("sqlite: {sql}"))?.is_some() {}
    }
    // Recorded in every result, whether chosen or not.
    pragmas.push(("sync_call", options::sync_call(options).to_string()));
    // SAFETY: the handle is used by the session only while `conn` is alive (field order).
    let mut session = SqlSession::new(&api::BUNDLED, unsafe { conn.handle() });
    session.guard(dir, options::max_steps(options));
    Ok(Box::new(SqliteEngine {
        session,
        conn,
        pragmas,
    }))
}

impl Engine for SqliteEngine {
    fn io_total(&self) -> crate::engine::io::IoStats {
        crate::engine::io::thread_total()
    }

    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "sqlite".into(),
            version: version(),
            options: self
                .pragmas
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            io_method: "VFS shim over the default VFS (xRead/xWrite/xSync/xTruncate per operation)"
                .into(),
        }
    }

    fn create_schema(&mut self, model: &DataModel) -> Result<()> {
        if let DataModel::KeyValue(m) = model {
            self.session.create_kv(m, "sqlite")?;
        }
        Ok(())
    }

    fn begin_load(&mut self) -> Result<()> {
        self.conn.execute_batch("BEGIN").run_err("sqlite: BEGIN")
    }

    fn end_load(&mut self) -> Result<()> {
        self.conn.execute_batch("COMMIT").run_err("sqlite: COMMIT")
    }

    #[inline]
    fn execute(&mut self, req: &Request<'_>) -> std::result::Result<Outcome, String> {
        self.session.execute(req)
    }

    fn last_read(&self) -> LastRead<'_> {
        self.session.last_read()
    }

    fn as_sql(&mut self) -> Option<&mut SqlSession> {
        Some(&mut self.session)
    }
}

#[cfg(test)]
mod io_tests;

#[cfg(test)]
mod build_tests {
    /// The bundled SQLite is compiled with the options `.cargo/config.toml` gives it (as
    /// Android compiles it): no memory statistics, multi-thread mode.
    #[test]
    fn the_bundled_sqlite_counts_no_memory_and_is_multi_thread() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        let mut st = c.prepare("PRAGMA compile_options").unwrap();
        let options: Vec<String> = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        for want in ["DEFAULT_MEMSTATUS=0", "THREADSAFE=2"] {
            assert!(options.iter().any(|o| o == want), "{want}: {options:?}");
        }
        // SAFETY: a plain query of how the library was compiled.
        assert_eq!(unsafe { rusqlite::ffi::sqlite3_threadsafe() }, 2);
    }
}
