//! SQLite (bundled), measured through a VFS shim that attributes every file I/O to the
//! operation that caused it. Key-value workloads use YCSB's JDBC schema (`usertable` with a
//! `YCSB_KEY` primary key and `FIELDn` text columns) through prepared statements; SQL
//! workloads run their statements as written.

pub mod options;
pub mod stmt;
pub mod vfs;

use super::options::EngineOptions;
use super::{Engine, EngineDescriptor, EngineInfo, Outcome, Request};
use crate::error::{Error, Result, ResultExt};
use crate::workload::model::{DataModel, KeyValueModel};
use crate::workload::op::Op;
use rusqlite::{ffi, Connection, OpenFlags};
use std::path::Path;
use stmt::RawStmt;

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

/// Prepared statements for the key-value operations.
struct KvStatements {
    read: RawStmt,
    scan: RawStmt,
    insert: RawStmt,
    update_all: RawStmt,
    /// One `UPDATE … SET FIELDi = ?` per field.
    update_one: Vec<RawStmt>,
    field_count: u16,
}

pub struct SqliteEngine {
    // Statements must be finalized before the connection closes: keep them first.
    kv: Option<KvStatements>,
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
    let conn = Connection::open_with_flags_and_vfs(&path, flags, vfs::VFS_NAME)
        .run_err(format!("sqlite: cannot open {}", path.display()))?;
    let pragmas = options::effective(options);
    for (name, value) in &pragmas {
        // journal_mode returns a row; query_row handles both kinds of PRAGMA.
        let sql = format!("PRAGMA {name} = {value}");
        let mut stmt = conn.prepare(&sql).run_err(format!("sqlite: {sql}"))?;
        let mut rows = stmt.query([]).run_err(format!("sqlite: {sql}"))?;
        while rows.next().run_err(format!("sqlite: {sql}"))?.is_some() {}
    }
    Ok(Box::new(SqliteEngine {
        kv: None,
        conn,
        pragmas,
    }))
}

impl SqliteEngine {
    fn db(&self) -> *mut ffi::sqlite3 {
        // SAFETY: the handle is only used while `self.conn` is alive.
        unsafe { self.conn.handle() }
    }

    fn prepare_kv(&mut self, m: &KeyValueModel) -> Result<()> {
        let db = self.db();
        let t = &m.table;
        let fields: Vec<String> = (0..m.field_count).map(KeyValueModel::field_name).collect();
        let placeholders = vec!["?"; fields.len()].join(", ");
        let set_all: Vec<String> = fields.iter().map(|f| format!("{f} = ?")).collect();
        let prep = |sql: String| {
            RawStmt::prepare(db, &sql).map_err(|e| Error::failed(format!("sqlite: {sql}: {e}")))
        };
        self.kv = Some(KvStatements {
            read: prep(format!("SELECT * FROM {t} WHERE YCSB_KEY = ?"))?,
            scan: prep(format!(
                "SELECT * FROM {t} WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"
            ))?,
            insert: prep(format!(
                "INSERT INTO {t} (YCSB_KEY, {}) VALUES (?, {placeholders})",
                fields.join(", ")
            ))?,
            update_all: prep(format!(
                "UPDATE {t} SET {} WHERE YCSB_KEY = ?",
                set_all.join(", ")
            ))?,
            update_one: fields
                .iter()
                .map(|f| prep(format!("UPDATE {t} SET {f} = ? WHERE YCSB_KEY = ?")))
                .collect::<Result<_>>()?,
            field_count: m.field_count,
        });
        Ok(())
    }

    fn exec_sql(&self, sql: &str) -> std::result::Result<u64, String> {
        let db = self.db();
        let mut rest = sql.trim();
        let mut total = 0;
        // A recorded statement may hold several statements separated by ';'.
        while !rest.is_empty() {
            let mut stmt = std::ptr::null_mut();
            let mut tail = std::ptr::null();
            // SAFETY: db open; rest is valid UTF-8 with the given length.
            let rc = unsafe {
                ffi::sqlite3_prepare_v2(
                    db,
                    rest.as_ptr().cast(),
                    rest.len() as i32,
                    &mut stmt,
                    &mut tail,
                )
            };
            if rc != ffi::SQLITE_OK {
                return Err(stmt::errmsg(db));
            }
            // SAFETY: tail points into `rest`.
            let consumed = unsafe { (tail as *const u8).offset_from(rest.as_ptr()) } as usize;
            rest = rest[consumed.min(rest.len())..].trim_start();
            if stmt.is_null() {
                continue; // whitespace or a comment
            }
            total += RawStmt::from_raw(stmt, db).run()?;
        }
        Ok(total)
    }
}

fn exec_kv(kv: &mut KvStatements, req: &Request<'_>) -> std::result::Result<u64, String> {
    match req.op {
        Op::Read { .. } => {
            kv.read.bind_text(1, req.key)?;
            kv.read.run()
        }
        Op::Scan { len, .. } => {
            kv.scan.bind_text(1, req.key)?;
            kv.scan.bind_int(2, i64::from(*len))?;
            kv.scan.run()
        }
        Op::Insert { .. } => {
            kv.insert.bind_text(1, req.key)?;
            for f in 0..kv.field_count {
                kv.insert
                    .bind_text(i32::from(f) + 2, &req.values[usize::from(f)])?;
            }
            kv.insert.run()
        }
        Op::Update { field, .. } => update(kv, req, *field),
        Op::ReadModifyWrite { field, .. } => {
            kv.read.bind_text(1, req.key)?;
            kv.read.run()?;
            update(kv, req, *field)
        }
        Op::Sql { .. } => Err("SQL statement on a key-value schema".into()),
    }
}

fn update(
    kv: &mut KvStatements,
    req: &Request<'_>,
    field: Option<u16>,
) -> std::result::Result<u64, String> {
    match field {
        Some(f) => {
            let s = kv
                .update_one
                .get_mut(usize::from(f))
                .ok_or_else(|| format!("field{f} does not exist"))?;
            s.bind_text(1, &req.values[usize::from(f)])?;
            s.bind_text(2, req.key)?;
            s.run()
        }
        None => {
            for f in 0..kv.field_count {
                kv.update_all
                    .bind_text(i32::from(f) + 1, &req.values[usize::from(f)])?;
            }
            kv.update_all
                .bind_text(i32::from(kv.field_count) + 1, req.key)?;
            kv.update_all.run()
        }
    }
}

impl Engine for SqliteEngine {
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
            let cols: Vec<String> = (0..m.field_count)
                .map(|i| format!("{} TEXT", KeyValueModel::field_name(i)))
                .collect();
            let sql = format!(
                "CREATE TABLE IF NOT EXISTS {} (YCSB_KEY VARCHAR(255) PRIMARY KEY, {})",
                m.table,
                cols.join(", ")
            );
            self.conn
                .execute_batch(&sql)
                .run_err(format!("sqlite: {sql}"))?;
            self.prepare_kv(m)?;
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
        let rows = match (req.op, self.kv.as_mut()) {
            (Op::Sql { sql }, _) => self.exec_sql(sql)?,
            (_, Some(kv)) => exec_kv(kv, req)?,
            (_, None) => return Err("key-value operation before the schema was created".into()),
        };
        Ok(Outcome { rows })
    }
}
