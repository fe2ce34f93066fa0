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

/// One key-value statement: its text, prepared on first use and kept (as YCSB's JDBC client
/// and Android's per-connection cache do). Statements a workload never runs are never
/// prepared: each prepared statement holds some of the connection's lookaside memory (a few
/// dozen small-allocation slots in all), and fifteen of them prepared up front left none for
/// the reads' column copies, which then went to malloc.
struct Lazy {
    sql: String,
    stmt: Option<RawStmt>,
}

impl Lazy {
    fn new(sql: String) -> Self {
        Lazy { sql, stmt: None }
    }

    #[inline]
    fn get(&mut self, api: &'static Api, db: *mut Db) -> std::result::Result<&mut RawStmt, String> {
        if self.stmt.is_none() {
            let s =
                RawStmt::prepare(api, db, &self.sql).map_err(|e| format!("{}: {e}", self.sql))?;
            self.stmt = Some(s);
        }
        Ok(self.stmt.as_mut().expect("prepared above"))
    }
}

/// The key-value operations' statements.
struct KvStatements {
    api: &'static Api,
    db: *mut Db,
    read: Lazy,
    scan: Lazy,
    insert: Lazy,
    update_all: Lazy,
    /// One `UPDATE … SET FIELDi = ?` per field.
    update_one: Vec<Lazy>,
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
    /// What a workload's statements may not do ([`super::guard`]), once installed.
    guard: Option<Box<super::guard::Guard>>,
}

impl Drop for SqlSession {
    fn drop(&mut self) {
        if self.guard.is_some() {
            super::guard::Guard::remove(self.api, self.db);
        }
    }
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
            guard: None,
        }
    }

    /// Treat every statement from here on as untrusted ([`super::guard`]): the run's database
    /// lives in `folder`; each operation takes at most `max_steps` steps (0: no bound).
    pub fn guard(&mut self, folder: &std::path::Path, max_steps: u64) {
        if !self.db.is_null() {
            self.guard = Some(super::guard::Guard::install(
                self.api, self.db, folder, max_steps,
            ));
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
        let t = &m.table;
        let fields: Vec<String> = (0..m.field_count).map(KeyValueModel::field_name).collect();
        let placeholders = vec!["?"; fields.len()].join(", ");
        let set_all: Vec<String> = fields.iter().map(|f| format!("{f} = ?")).collect();
        let mut kv = KvStatements {
            api: self.api,
            db: self.db,
            read: Lazy::new(format!("SELECT * FROM {t} WHERE YCSB_KEY = ?")),
            scan: Lazy::new(format!(
                "SELECT * FROM {t} WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"
            )),
            insert: Lazy::new(format!(
                "INSERT INTO {t} (YCSB_KEY, {}) VALUES (?, {placeholders})",
                fields.join(", ")
            )),
            update_all: Lazy::new(format!(
                "UPDATE {t} SET {} WHERE YCSB_KEY = ?",
                set_all.join(", ")
            )),
            update_one: fields
                .iter()
                .map(|f| Lazy::new(format!("UPDATE {t} SET {f} = ? WHERE YCSB_KEY = ?")))
                .collect(),
            field_count: m.field_count,
        };
        // The read is checked now, so a table the engine cannot query fails here, naming it.
        kv.read
            .get(kv.api, kv.db)
            .map_err(|e| Error::failed(format!("{name}: {e}")))?;
        self.kv = Some(kv);
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
        match self.bound(sql, args, false)? {
            Some(stmt) => stmt.run(),
            None => Err(format!("{sql}: more than one statement")),
        }
    }

    /// The statement `sql`, prepared once per text and kept (as Android's per-connection
    /// statement cache does), with `args` bound; `None` when `whole` and the text holds more
    /// than one statement (then nothing is kept).
    fn bound(
        &mut self,
        sql: &str,
        args: &[SqlValue],
        whole: bool,
    ) -> std::result::Result<Option<&mut RawStmt>, String> {
        if !self.prepared.contains_key(sql) {
            let (stmt, only) = RawStmt::prepare_first(self.api, self.db, sql)?;
            if whole && !only {
                return Ok(None);
            }
            if self.prepared.len() >= STATEMENT_CACHE {
                self.prepared.clear();
            }
            self.prepared.insert(sql.to_string(), stmt);
        }
        let stmt = self.prepared.get_mut(sql).expect("prepared above");
        stmt.clear_bindings();
        for (i, v) in args.iter().enumerate() {
            stmt.bind_value(i as std::ffi::c_int + 1, v)?;
        }
        Ok(Some(stmt))
    }

    /// Run one SQL operation and give the rows it returned (columns as bytes, numbers in their
    /// text form), for comparing the answers of two replays of a trace; a text holding several
    /// statements is run with [`SqlSession::exec_sql`] and gives `None` (its rows are not kept).
    /// The statement is prepared once per text and kept, as [`SqlSession::exec_bound`] does.
    pub fn answer(&mut self, op: &Op) -> std::result::Result<Option<Vec<Vec<Vec<u8>>>>, String> {
        if let Some(g) = &self.guard {
            g.start();
        }
        let (sql, args) = match op {
            Op::Sql { sql } => (sql.as_str(), &[][..]),
            Op::SqlArgs { sql, args } => (sql.as_str(), args.as_slice()),
            _ => return Err("not a SQL operation".into()),
        };
        match (self.answer_of(sql, args), &self.guard) {
            (Err(e), Some(g)) => Err(g.explain(e)),
            (r, _) => r,
        }
    }

    fn answer_of(
        &mut self,
        sql: &str,
        args: &[SqlValue],
    ) -> std::result::Result<Option<Vec<Vec<Vec<u8>>>>, String> {
        match self.bound(sql, args, true)? {
            Some(stmt) => stmt.rows().map(Some),
            None => self.exec_sql(sql).map(|_| None),
        }
    }

    /// Execute one operation.
    #[inline]
    pub fn execute(&mut self, req: &Request<'_>) -> std::result::Result<Outcome, String> {
        self.last_found = None;
        if let Some(g) = &self.guard {
            g.start();
        }
        let rows = match (req.op, self.kv.as_mut()) {
            (Op::Sql { sql }, _) => self.exec_sql(sql),
            (Op::SqlArgs { sql, args }, _) => self.exec_bound(sql, args),
            (_, Some(kv)) => exec_kv(kv, req, &mut self.last, &mut self.last_found),
            (_, None) => return Err("key-value operation before the schema was created".into()),
        };
        match (rows, &self.guard) {
            (Ok(rows), _) => Ok(Outcome { rows }),
            (Err(e), Some(g)) => Err(g.explain(e)),
            (Err(e), None) => Err(e),
        }
    }

    /// The key-value table's records from key `start` on, in key order (through the key's
    /// index, as a point read finds them), each handed to `visit` as (key, record as
    /// [`SqlSession::last_read`] gives one); `None` before the table exists.
    pub fn scan_records(
        &mut self,
        start: &[u8],
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Option<std::result::Result<u64, String>> {
        let kv = self.kv.as_mut()?;
        Some((|| {
            let stmt = kv.scan.get(kv.api, kv.db)?;
            stmt.bind_text(1, start)?;
            stmt.bind_int(2, i64::MAX)?;
            stmt.each_row(visit)
        })())
    }

    pub fn last_read(&self) -> LastRead<'_> {
        match self.last_found {
            None => LastRead::Unsupported,
            Some(false) => LastRead::NotFound,
            Some(true) => LastRead::Record(&self.last),
        }
    }
}

/// A private in-memory SQLite that statements run on once (`trace import --check`).
pub struct MemoryDb {
    // The session's statements are finalized before the connection closes (field order).
    session: SqlSession,
    _conn: rusqlite::Connection,
}

impl MemoryDb {
    pub fn open() -> Result<MemoryDb> {
        let conn = rusqlite::Connection::open_in_memory()
            .map_err(|e| Error::failed(format!("in-memory SQLite: {e}")))?;
        // SAFETY: the handle stays valid while `conn` lives, which outlives the session.
        let mut session = SqlSession::new(&super::api::BUNDLED, unsafe { conn.handle() });
        // Statements checked here come from a log: no file may be attached or written.
        session.guard(
            std::path::Path::new("/nonexistent/no-file-may-be-attached"),
            10_000_000,
        );
        Ok(MemoryDb {
            session,
            _conn: conn,
        })
    }
}

impl crate::workload::import::pipeline::StatementCheck for MemoryDb {
    fn run(&mut self, op: &Op) -> std::result::Result<(), String> {
        if let Some(g) = &self.session.guard {
            g.start();
        }
        match op {
            Op::Sql { sql } => self.session.exec_sql(sql).map(drop),
            Op::SqlArgs { sql, args } => self.session.exec_bound(sql, args).map(drop),
            _ => Ok(()),
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
    let stmt = kv.read.get(kv.api, kv.db)?;
    stmt.bind_text(1, key)?;
    let rows = stmt.run_capture(last)?;
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
            let stmt = kv.scan.get(kv.api, kv.db)?;
            stmt.bind_text(1, req.key)?;
            stmt.bind_int(2, i64::from(*len))?;
            stmt.run()
        }
        Op::Insert { .. } => {
            let stmt = kv.insert.get(kv.api, kv.db)?;
            stmt.bind_text(1, req.key)?;
            for f in 0..kv.field_count {
                stmt.bind_text(i32::from(f) + 2, &req.values[usize::from(f)])?;
            }
            stmt.run()
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
                .ok_or_else(|| format!("field{f} does not exist"))?
                .get(kv.api, kv.db)?;
            s.bind_text(1, &req.values[usize::from(f)])?;
            s.bind_text(2, req.key)?;
            s.run()
        }
        None => {
            let stmt = kv.update_all.get(kv.api, kv.db)?;
            for f in 0..kv.field_count {
                stmt.bind_text(i32::from(f) + 1, &req.values[usize::from(f)])?;
            }
            stmt.bind_text(i32::from(kv.field_count) + 1, req.key)?;
            stmt.run()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{exec_in_memory, SqlSession};
    use crate::engine::Request;
    use crate::workload::model::KeyValueModel;
    use crate::workload::op::Op;

    /// Statements prepared on the connection (SQLite's own list of them).
    fn prepared(db: *mut rusqlite::ffi::sqlite3) -> usize {
        let mut n = 0;
        // SAFETY: db is open; the list is only walked.
        let mut s = unsafe { rusqlite::ffi::sqlite3_next_stmt(db, std::ptr::null_mut()) };
        while !s.is_null() {
            n += 1;
            s = unsafe { rusqlite::ffi::sqlite3_next_stmt(db, s) };
        }
        n
    }

    #[test]
    fn only_the_statements_a_workload_runs_are_prepared() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        // SAFETY: the connection outlives the session (dropped first below).
        let db = unsafe { conn.handle() };
        let mut session = SqlSession::new(&super::super::api::BUNDLED, db);
        let m = KeyValueModel {
            field_count: 3,
            ..KeyValueModel::default()
        };
        session.create_kv(&m, "sqlite").unwrap();
        assert_eq!(prepared(db), 1, "the read, checked at creation");
        let values = vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()];
        let mut exec = |op: Op| {
            let req = Request {
                op: &op,
                key: b"user1",
                values: &values,
                keep_read: true,
            };
            session.execute(&req).unwrap().rows
        };
        assert_eq!(exec(Op::Insert { key: 1, seed: 1 }), 1);
        assert_eq!(exec(Op::Read { key: 1 }), 1);
        assert_eq!(exec(Op::Read { key: 1 }), 1);
        assert_eq!(
            prepared(db),
            2,
            "read and insert; not the scan and the updates"
        );
        drop(session);
        assert_eq!(prepared(db), 0, "finalized with the session");
    }

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
