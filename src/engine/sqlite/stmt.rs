//! A thin owner of a raw prepared statement. The hot path binds, steps and resets statements
//! through the C API directly: no statement cache lookup, no per-row allocation, so the harness
//! stays close to a hand-written C loop.

use rusqlite::ffi;
use std::ffi::{c_int, CStr};

pub(super) struct RawStmt {
    stmt: *mut ffi::sqlite3_stmt,
    db: *mut ffi::sqlite3,
}

/// The connection's current error message.
pub(super) fn errmsg(db: *mut ffi::sqlite3) -> String {
    // SAFETY: db is a valid open connection; errmsg returns a NUL-terminated string it owns.
    unsafe {
        CStr::from_ptr(ffi::sqlite3_errmsg(db))
            .to_string_lossy()
            .into_owned()
    }
}

impl RawStmt {
    /// Prepare `sql` (one statement) on `db`.
    pub(super) fn prepare(db: *mut ffi::sqlite3, sql: &str) -> Result<Self, String> {
        let mut stmt = std::ptr::null_mut();
        // SAFETY: db is open; sql pointer/length describe valid UTF-8.
        let rc = unsafe {
            ffi::sqlite3_prepare_v2(
                db,
                sql.as_ptr().cast(),
                sql.len() as c_int,
                &mut stmt,
                std::ptr::null_mut(),
            )
        };
        if rc != ffi::SQLITE_OK {
            return Err(errmsg(db));
        }
        if stmt.is_null() {
            return Err("empty statement".into());
        }
        Ok(RawStmt { stmt, db })
    }

    /// Take ownership of an already prepared statement.
    pub(super) fn from_raw(stmt: *mut ffi::sqlite3_stmt, db: *mut ffi::sqlite3) -> Self {
        RawStmt { stmt, db }
    }

    #[inline]
    pub fn bind_text(&mut self, index: c_int, value: &[u8]) -> Result<(), String> {
        // SAFETY: SQLITE_TRANSIENT makes SQLite copy the bytes before returning.
        let rc = unsafe {
            ffi::sqlite3_bind_text(
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
        let rc = unsafe { ffi::sqlite3_bind_int64(self.stmt, index, value) };
        self.check(rc)
    }

    /// Step to completion, touching every column of every row (as an application reading the
    /// result would). Returns rows produced, or rows changed for a statement without results.
    /// The statement is reset afterwards, also on error.
    #[inline]
    pub fn run(&mut self) -> Result<u64, String> {
        let mut rows = 0u64;
        let result = loop {
            // SAFETY: valid statement.
            match unsafe { ffi::sqlite3_step(self.stmt) } {
                ffi::SQLITE_ROW => {
                    rows += 1;
                    self.touch_row();
                }
                ffi::SQLITE_DONE => {
                    // SAFETY: valid statement and connection.
                    let readonly = unsafe { ffi::sqlite3_stmt_readonly(self.stmt) } != 0;
                    break Ok(if rows == 0 && !readonly {
                        // SAFETY: valid connection.
                        unsafe { ffi::sqlite3_changes64(self.db) as u64 }
                    } else {
                        rows
                    });
                }
                _ => break Err(errmsg(self.db)),
            }
        };
        // SAFETY: valid statement; reset returns the last error again, already reported.
        unsafe { ffi::sqlite3_reset(self.stmt) };
        result
    }

    #[inline]
    fn touch_row(&self) {
        // SAFETY: valid statement positioned on a row.
        unsafe {
            let n = ffi::sqlite3_column_count(self.stmt);
            let mut sum = 0usize;
            for i in 0..n {
                let p = ffi::sqlite3_column_blob(self.stmt, i);
                sum =
                    sum.wrapping_add(ffi::sqlite3_column_bytes(self.stmt, i) as usize + p as usize);
            }
            std::hint::black_box(sum);
        }
    }

    #[inline]
    fn check(&self, rc: c_int) -> Result<(), String> {
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(errmsg(self.db))
        }
    }
}

impl Drop for RawStmt {
    fn drop(&mut self) {
        // SAFETY: finalize exactly once; the connection outlives its statements (the engine
        // drops statements before the connection).
        unsafe { ffi::sqlite3_finalize(self.stmt) };
    }
}
