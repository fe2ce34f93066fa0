//! A thin owner of a raw prepared statement. The hot path binds, steps and resets statements
//! through the C API directly (via the [`Api`] table): no statement cache lookup, no per-row
//! allocation, so the harness stays close to a hand-written C loop.

use super::api::{Api, Db, Stmt};
use rusqlite::ffi;
use std::ffi::{c_int, CStr};

pub(crate) struct RawStmt {
    stmt: *mut Stmt,
    db: *mut Db,
    api: &'static Api,
}

/// The connection's current error message.
pub(crate) fn errmsg(api: &Api, db: *mut Db) -> String {
    // SAFETY: db is a valid open connection; errmsg returns a NUL-terminated string it owns.
    unsafe {
        CStr::from_ptr((api.errmsg)(db))
            .to_string_lossy()
            .into_owned()
    }
}

impl RawStmt {
    /// Prepare `sql` (one statement) on `db`.
    pub(crate) fn prepare(api: &'static Api, db: *mut Db, sql: &str) -> Result<Self, String> {
        Self::prepare_first(api, db, sql).map(|(stmt, _)| stmt)
    }

    /// Prepare the first statement of `sql` on `db`, and say whether it is the only one
    /// (nothing but spaces and semicolons after it).
    pub(crate) fn prepare_first(
        api: &'static Api,
        db: *mut Db,
        sql: &str,
    ) -> Result<(Self, bool), String> {
        let mut stmt = std::ptr::null_mut();
        let mut tail = std::ptr::null();
        // SAFETY: db is open; sql pointer/length describe valid UTF-8; tail points into it.
        let rc = unsafe {
            (api.prepare_v2)(
                db,
                sql.as_ptr().cast(),
                sql.len() as c_int,
                &mut stmt,
                &mut tail,
            )
        };
        if rc != ffi::SQLITE_OK {
            return Err(errmsg(api, db));
        }
        if stmt.is_null() {
            return Err("empty statement".into());
        }
        // SAFETY: tail points into `sql`, at or before its end.
        let consumed = unsafe { (tail as *const u8).offset_from(sql.as_ptr()) } as usize;
        let rest = sql.get(consumed..).unwrap_or("");
        let only = rest.chars().all(|c| c.is_whitespace() || c == ';');
        Ok((RawStmt { stmt, db, api }, only))
    }

    /// Take ownership of an already prepared statement.
    pub(crate) fn from_raw(api: &'static Api, stmt: *mut Stmt, db: *mut Db) -> Self {
        RawStmt { stmt, db, api }
    }

    #[inline]
    pub fn bind_text(&mut self, index: c_int, value: &[u8]) -> Result<(), String> {
        // SAFETY: SQLITE_TRANSIENT makes SQLite copy the bytes before returning.
        let rc = unsafe {
            (self.api.bind_text)(
                self.stmt,
                index,
                value.as_ptr().cast(),
                value.len() as c_int,
                ffi::SQLITE_TRANSIENT(),
            )
        };
        self.check(rc)
    }

    #[inline]
    pub fn bind_int(&mut self, index: c_int, value: i64) -> Result<(), String> {
        // SAFETY: valid statement.
        let rc = unsafe { (self.api.bind_int64)(self.stmt, index, value) };
        self.check(rc)
    }

    /// Bind one typed value (SQLite copies text and blobs before returning).
    pub fn bind_value(
        &mut self,
        index: c_int,
        value: &crate::workload::op::SqlValue,
    ) -> Result<(), String> {
        use crate::workload::op::SqlValue;
        let rc = match value {
            SqlValue::Null => unsafe { (self.api.bind_null)(self.stmt, index) },
            SqlValue::Integer(v) => return self.bind_int(index, *v),
            SqlValue::Real(v) => unsafe { (self.api.bind_double)(self.stmt, index, *v) },
            SqlValue::Text(t) => return self.bind_text(index, t.as_bytes()),
            // SAFETY: SQLITE_TRANSIENT makes SQLite copy the bytes before returning.
            SqlValue::Blob(b) => unsafe {
                (self.api.bind_blob)(
                    self.stmt,
                    index,
                    b.as_ptr().cast(),
                    b.len() as c_int,
                    ffi::SQLITE_TRANSIENT(),
                )
            },
        };
        self.check(rc)
    }

    /// Unbind every parameter (each becomes NULL).
    pub fn clear_bindings(&mut self) {
        // SAFETY: valid statement.
        unsafe { (self.api.clear_bindings)(self.stmt) };
    }

    /// Step to completion, touching every column of every row (as an application reading the
    /// result would). Returns rows produced, or rows changed for a statement without results.
    /// The statement is reset afterwards, also on error.
    #[inline]
    pub fn run(&mut self) -> Result<u64, String> {
        self.run_capture(None)
    }

    /// Like [`RawStmt::run`]; with `capture`, the first row's columns from the second on (the
    /// fields after the key) are copied into it as a key-value record
    /// ([`crate::engine::kv::encode_record`]'s layout), cleared first.
    #[inline]
    pub fn run_capture(&mut self, mut capture: Option<&mut Vec<u8>>) -> Result<u64, String> {
        let mut rows = 0u64;
        if let Some(out) = capture.as_deref_mut() {
            out.clear();
        }
        let result = loop {
            // SAFETY: valid statement.
            match unsafe { (self.api.step)(self.stmt) } {
                ffi::SQLITE_ROW => {
                    match capture.as_deref_mut() {
                        Some(out) if rows == 0 => self.copy_row(out),
                        _ => self.touch_row(),
                    }
                    rows += 1;
                }
                ffi::SQLITE_DONE => {
                    // SAFETY: valid statement and connection.
                    let readonly = unsafe { (self.api.stmt_readonly)(self.stmt) } != 0;
                    break Ok(if rows == 0 && !readonly {
                        // SAFETY: valid connection.
                        unsafe { (self.api.changes)(self.db) as u64 }
                    } else {
                        rows
                    });
                }
                _ => break Err(errmsg(self.api, self.db)),
            }
        };
        // SAFETY: valid statement; reset returns the last error again, already reported.
        unsafe { (self.api.reset)(self.stmt) };
        result
    }

    /// Step to completion, handing each row to `visit` as its first column's bytes and the
    /// others encoded as [`RawStmt::run_capture`] captures a row; how many rows. The statement
    /// is reset afterwards.
    pub fn each_row(&mut self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<u64, String> {
        let mut record = Vec::new();
        self.step_rows(|s| {
            record.clear();
            s.copy_row(&mut record);
            // SAFETY: `step_rows` calls this on a row.
            visit(unsafe { s.column(0) }, &record);
        })
    }

    /// Step to completion and return every row's columns as bytes (as `sqlite3_column_blob`
    /// gives them: numbers in their text form). The statement is reset afterwards.
    pub fn rows(&mut self) -> Result<Vec<Vec<Vec<u8>>>, String> {
        let mut out = Vec::new();
        self.step_rows(|s| {
            // SAFETY: valid statement; `step_rows` calls this on a row.
            let n = unsafe { (s.api.column_count)(s.stmt) };
            out.push((0..n).map(|i| unsafe { s.column(i) }.to_vec()).collect());
        })?;
        Ok(out)
    }

    /// Step to completion, calling `on_row` on each row; how many rows. The statement is reset
    /// afterwards, whether it completed or failed.
    fn step_rows(&mut self, mut on_row: impl FnMut(&Self)) -> Result<u64, String> {
        let mut rows = 0u64;
        let result = loop {
            // SAFETY: valid statement.
            match unsafe { (self.api.step)(self.stmt) } {
                ffi::SQLITE_ROW => {
                    on_row(self);
                    rows += 1;
                }
                ffi::SQLITE_DONE => break Ok(rows),
                _ => break Err(errmsg(self.api, self.db)),
            }
        };
        // SAFETY: valid statement.
        unsafe { (self.api.reset)(self.stmt) };
        result
    }

    /// Column `i` of the current row as `sqlite3_column_blob` gives it.
    ///
    /// # Safety
    /// The statement is positioned on a row; the bytes are valid until the next step (reading
    /// other columns does not move them), which `&self` cannot take.
    #[inline]
    unsafe fn column(&self, i: c_int) -> &[u8] {
        let p = (self.api.column_blob)(self.stmt, i) as *const u8;
        let len = (self.api.column_bytes)(self.stmt, i).max(0) as usize;
        if len == 0 || p.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(p, len)
        }
    }

    #[inline]
    fn touch_row(&self) {
        // SAFETY: valid statement positioned on a row.
        unsafe {
            let n = (self.api.column_count)(self.stmt);
            let mut sum = 0usize;
            for i in 0..n {
                let p = (self.api.column_blob)(self.stmt, i);
                sum = sum.wrapping_add((self.api.column_bytes)(self.stmt, i) as usize + p as usize);
            }
            std::hint::black_box(sum);
        }
    }

    #[inline]
    fn copy_row(&self, out: &mut Vec<u8>) {
        // SAFETY: valid statement positioned on a row.
        unsafe {
            let n = (self.api.column_count)(self.stmt);
            for i in 1..n {
                let value = self.column(i);
                out.extend_from_slice(&(value.len() as u32).to_le_bytes());
                out.extend_from_slice(value);
            }
        }
    }

    #[inline]
    fn check(&self, rc: c_int) -> Result<(), String> {
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(errmsg(self.api, self.db))
        }
    }
}

impl Drop for RawStmt {
    fn drop(&mut self) {
        // SAFETY: finalize exactly once; the connection outlives its statements (the engine
        // drops statements before the connection).
        unsafe { (self.api.finalize)(self.stmt) };
    }
}
