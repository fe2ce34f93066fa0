//! One SQL connection as an engine sees it, whichever library provides it (the bundled SQLite
//! or BerkeleyDB's SQL front end, through [`Api`]): key-value workloads on YCSB's JDBC schema
//! (`usertable` with a `YCSB_KEY` primary key and `FIELDn` text columns) through prepared
//! statements, and SQL workloads' statements run as written.

use super::api::{Api, Db};
use super::stmt::{self, RawStmt};
use crate::engine::{LastRead, Outcome, Request};
use crate::error::{Error, Result};
use crate::workload::model::KeyValueModel;
use crate::workload::op::{Op, SqlValue};

/// Statements kept prepared per connection; beyond it the cache starts over.
const STATEMENT_CACHE: usize = 1024;

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

/// Statements and state over an open connection; the owner keeps the connection open longer
/// than the session (statements are finalized when the session drops).
pub struct SqlSession {
    api: &'static Api,
    db: *mut Db,
    kv: Option<KvStatements>,
    /// The row the last point read returned, as a key-value record, for the read-your-writes
    /// check; `None` when the last operation made no point read.
    last: Vec<u8>,
    last_found: Option<bool>,
    /// Statements [`SqlSession::query`] prepared, by their text.
    prepared: std::collections::HashMap<String, RawStmt>,
}

/// A value bound to a `?` of [`SqlSession::query`].
#[derive(Clone, Debug)]
pub enum SqlParam {
    Int(i64),
    Text(String),
}

impl SqlSession {
    pub fn new(api: &'static Api, db: *mut Db) -> Self {
        SqlSession {
            api,
            db,
            prepared: std::collections::HashMap::new(),
            kv: None,
            last: Vec::with_capacity(2048),
            last_found: None,
        }
    }

    /// Create YCSB's table (if missing) and prepare the key-value statements.
    pub fn create_kv(&mut self, m: &KeyValueModel, name: &str) -> Result<()> {
        let cols: Vec<String> = (0..m.field_count)
            .map(|i| format!("{} TEXT", KeyValueModel::field_name(i)))
            .collect();
        let sql = format!(
            "CREATE TABLE IF NOT EXISTS {} (YCSB_KEY VARCHAR(255) PRIMARY KEY, {})",
            m.table,
            cols.join(", ")
        );
        self.exec_sql(&sql)
            .map_err(|e| Error::failed(format!("{name}: {sql}: {e}")))?;
        let (api, db) = (self.api, self.db);
        let t = &m.table;
        let fields: Vec<String> = (0..m.field_count).map(KeyValueModel::field_name).collect();
        let placeholders = vec!["?"; fields.len()].join(", ");
        let set_all: Vec<String> = fields.iter().map(|f| format!("{f} = ?")).collect();
        let prep = |sql: String| {
            RawStmt::prepare(api, db, &sql)
                .map_err(|e| Error::failed(format!("{name}: {sql}: {e}")))
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

    /// Run `sql`, which may hold several statements separated by ';'. Returns rows produced or
    /// changed.
    pub fn exec_sql(&self, sql: &str) -> std::result::Result<u64, String> {
        let (api, db) = (self.api, self.db);
        if let Some(i) = sql.find('\0') {
            return Err(format!("SQL text contains a NUL byte at offset {i}"));
        }
        let mut rest = sql.trim();
        let mut total = 0;
        while !rest.is_empty() {
            let len = i32::try_from(rest.len())
                .map_err(|_| format!("SQL text of {} bytes is too long", rest.len()))?;
            let mut raw = std::ptr::null_mut();
            let mut tail = std::ptr::null();
            // SAFETY: db open; rest is valid UTF-8 with the given length.
            let rc =
                unsafe { (api.prepare_v2)(db, rest.as_ptr().cast(), len, &mut raw, &mut tail) };
            if rc != rusqlite::ffi::SQLITE_OK {
                return Err(stmt::errmsg(api, db));
            }
            // SAFETY: tail points into `rest`.
            let consumed = unsafe { (tail as *const u8).offset_from(rest.as_ptr()) } as usize;
            if raw.is_null() {
                if consumed == 0 {
                    // Nothing SQLite could read, and no progress: never loop on it.
                    return Err(format!(
                        "cannot parse SQL near {}",
                        crate::limits::escape(rest)
                    ));
                }
                rest = rest.get(consumed..).unwrap_or("").trim_start();
                continue; // whitespace or a comment
            }
            rest = rest.get(consumed..).unwrap_or("").trim_start();
            total += RawStmt::from_raw(api, raw, db).run()?;
        }
        Ok(total)
    }

    /// Run one statement with `params` bound to its `?`s and return its rows (columns as
    /// bytes); the statement is prepared once per text and kept.
    pub fn query(
        &mut self,
        sql: &str,
        params: &[SqlParam],
    ) -> std::result::Result<Vec<Vec<Vec<u8>>>, String> {
        if !self.prepared.contains_key(sql) {
            let stmt = RawStmt::prepare(self.api, self.db, sql)?;
            self.prepared.insert(sql.to_string(), stmt);
        }
        let stmt = self.prepared.get_mut(sql).expect("prepared above");
        for (i, p) in params.iter().enumerate() {
            let index = i as std::ffi::c_int + 1;
            match p {
                SqlParam::Int(v) => stmt.bind_int(index, *v)?,
                SqlParam::Text(t) => stmt.bind_text(index, t.as_bytes())?,
            }
        }
        stmt.rows()
    }

    /// Run one statement with typed `args` bound to its parameters, prepared once per text
    /// and kept (as Android's per-connection statement cache does). Returns rows produced or
    /// changed.
    pub fn exec_bound(&mut self, sql: &str, args: &[SqlValue]) -> std::result::Result<u64, String> {
        if !self.prepared.contains_key(sql) {
            if self.prepared.len() >= STATEMENT_CACHE {
                self.prepared.clear();
            }
            let stmt = RawStmt::prepare(self.api, self.db, sql)?;
            self.prepared.insert(sql.to_string(), stmt);
        }
        let stmt = self.prepared.get_mut(sql).expect("prepared above");
        stmt.clear_bindings();
        for (i, v) in args.iter().enumerate() {
            stmt.bind_value(i as std::ffi::c_int + 1, v)?;
        }
        stmt.run()
    }

    /// Execute one operation.
    #[inline]
    pub fn execute(&mut self, req: &Request<'_>) -> std::result::Result<Outcome, String> {
        self.last_found = None;
        let rows = match (req.op, self.kv.as_mut()) {
            (Op::Sql { sql }, _) => self.exec_sql(sql)?,
            (Op::SqlArgs { sql, args }, _) => self.exec_bound(sql, args)?,
            (_, Some(kv)) => exec_kv(kv, req, &mut self.last, &mut self.last_found)?,
            (_, None) => return Err("key-value operation before the schema was created".into()),
        };
        Ok(Outcome { rows })
    }

    pub fn last_read(&self) -> LastRead<'_> {
        match self.last_found {
            None => LastRead::Unsupported,
            Some(false) => LastRead::NotFound,
            Some(true) => LastRead::Record(&self.last),
        }
    }
}

/// Run `sql` — any text, as a workload file could hold — through [`SqlSession::exec_sql`] on a
/// private in-memory database that cannot attach files and stops after about ten million
/// virtual-machine steps. The fuzz target of the statement splitter drives it.
pub fn exec_in_memory(sql: &str) -> std::result::Result<u64, String> {
    use rusqlite::ffi;
    unsafe extern "C" fn stop_after(steps: *mut std::ffi::c_void) -> std::ffi::c_int {
        // SAFETY: `steps` is the counter below, alive while the connection runs statements.
        let n = unsafe { &mut *steps.cast::<u32>() };
        *n += 1;
        std::ffi::c_int::from(*n > 10_000)
    }
    let conn = rusqlite::Connection::open_in_memory().map_err(|e| e.to_string())?;
    let mut steps = 0u32;
    // SAFETY: the handle stays valid while `conn` lives, which outlives the session and the
    // counter's use; the handler is removed before `steps` goes out of scope.
    unsafe {
        let db = conn.handle();
        ffi::sqlite3_limit(db, ffi::SQLITE_LIMIT_ATTACHED, 0);
        ffi::sqlite3_progress_handler(db, 1000, Some(stop_after), (&raw mut steps).cast());
    }
    let session = SqlSession::new(&super::api::BUNDLED, unsafe { conn.handle() });
    let result = session.exec_sql(sql);
    drop(session);
    // SAFETY: as above.
    unsafe { ffi::sqlite3_progress_handler(conn.handle(), 0, None, std::ptr::null_mut()) };
    result
}

#[inline]
fn read(
    kv: &mut KvStatements,
    key: &[u8],
    last: Option<&mut Vec<u8>>,
    found: &mut Option<bool>,
) -> std::result::Result<u64, String> {
    kv.read.bind_text(1, key)?;
    let rows = kv.read.run_capture(last)?;
    *found = Some(rows > 0);
    Ok(rows)
}

fn exec_kv(
    kv: &mut KvStatements,
    req: &Request<'_>,
    last: &mut Vec<u8>,
    found: &mut Option<bool>,
) -> std::result::Result<u64, String> {
    match req.op {
        Op::Read { .. } => read(kv, req.key, req.keep_read.then_some(last), found),
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
            read(kv, req.key, req.keep_read.then_some(last), found)?;
            update(kv, req, *field)
        }
        Op::Sql { .. } | Op::SqlArgs { .. } => Err("SQL statement on a key-value schema".into()),
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

#[cfg(test)]
mod tests {
    use super::exec_in_memory;

    #[test]
    fn any_sql_text_runs_or_fails_but_never_loops() {
        // A NUL byte ends SQLite's reading of the text; it used to leave the splitter stuck.
        let e = exec_in_memory("SELECT 1;\0SELECT 2").unwrap_err();
        assert_eq!(e, "SQL text contains a NUL byte at offset 9");
        assert_eq!(exec_in_memory("-- only a comment"), Ok(0));
        assert_eq!(exec_in_memory("  /* a comment */ ;; "), Ok(0));
        assert_eq!(exec_in_memory(""), Ok(0));
        // Three rows changed, then the garbage after them is an error, not a hang.
        let e = exec_in_memory("CREATE TABLE t(a); INSERT INTO t VALUES (1),(2),(3); garbage")
            .unwrap_err();
        assert!(e.contains("syntax error"), "{e}");
        assert_eq!(
            exec_in_memory("CREATE TABLE t(a); INSERT INTO t VALUES (1),(2),(3);"),
            Ok(3)
        );
        // An endless query is stopped by the step budget.
        let endless =
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
        assert!(exec_in_memory(endless).unwrap_err().contains("interrupt"));
        // ATTACH cannot create files.
        assert!(exec_in_memory("ATTACH 'x.db' AS x").is_err());
    }
}
