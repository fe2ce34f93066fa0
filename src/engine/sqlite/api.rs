//! The SQLite C functions the engine calls, as a table of function pointers. The bundled
//! SQLite fills it at compile time ([`BUNDLED`]); BerkeleyDB's SQL front end, which exports the
//! same `sqlite3_*` functions from its own library, fills it from `dlsym`
//! (`engine::berkeleydb::sql`). Statements and the key-value mapping ([`super::session`]) are
//! written once against this table.

use rusqlite::ffi;
use std::ffi::{c_char, c_int, c_void};

pub type Db = ffi::sqlite3;
pub type Stmt = ffi::sqlite3_stmt;

/// Every function the engine uses, with the C signatures both libraries share (the subset of
/// the API that SQLite 3.7 already had, as BerkeleyDB 5.3's front end is 3.7.6).
pub struct Api {
    pub prepare_v2: unsafe extern "C" fn(
        *mut Db,
        *const c_char,
        c_int,
        *mut *mut Stmt,
        *mut *const c_char,
    ) -> c_int,
    pub step: unsafe extern "C" fn(*mut Stmt) -> c_int,
    pub reset: unsafe extern "C" fn(*mut Stmt) -> c_int,
    pub finalize: unsafe extern "C" fn(*mut Stmt) -> c_int,
    pub bind_text: unsafe extern "C" fn(
        *mut Stmt,
        c_int,
        *const c_char,
        c_int,
        Option<unsafe extern "C" fn(*mut c_void)>,
    ) -> c_int,
    pub bind_int64: unsafe extern "C" fn(*mut Stmt, c_int, i64) -> c_int,
    pub bind_double: unsafe extern "C" fn(*mut Stmt, c_int, f64) -> c_int,
    pub bind_null: unsafe extern "C" fn(*mut Stmt, c_int) -> c_int,
    pub bind_blob: unsafe extern "C" fn(
        *mut Stmt,
        c_int,
        *const c_void,
        c_int,
        Option<unsafe extern "C" fn(*mut c_void)>,
    ) -> c_int,
    pub clear_bindings: unsafe extern "C" fn(*mut Stmt) -> c_int,
    pub column_count: unsafe extern "C" fn(*mut Stmt) -> c_int,
    pub column_blob: unsafe extern "C" fn(*mut Stmt, c_int) -> *const c_void,
    pub column_bytes: unsafe extern "C" fn(*mut Stmt, c_int) -> c_int,
    pub stmt_readonly: unsafe extern "C" fn(*mut Stmt) -> c_int,
    pub changes: unsafe extern "C" fn(*mut Db) -> c_int,
    pub errmsg: unsafe extern "C" fn(*mut Db) -> *const c_char,
    pub set_authorizer: unsafe extern "C" fn(*mut Db, Option<Authorizer>, *mut c_void) -> c_int,
    pub progress_handler: unsafe extern "C" fn(
        *mut Db,
        c_int,
        Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
        *mut c_void,
    ),
}

/// SQLite's authorizer callback (`sqlite3_set_authorizer`).
pub type Authorizer = unsafe extern "C" fn(
    *mut c_void,
    c_int,
    *const c_char,
    *const c_char,
    *const c_char,
    *const c_char,
) -> c_int;

/// The bundled SQLite.
pub static BUNDLED: Api = Api {
    prepare_v2: ffi::sqlite3_prepare_v2,
    step: ffi::sqlite3_step,
    reset: ffi::sqlite3_reset,
    finalize: ffi::sqlite3_finalize,
    bind_text: ffi::sqlite3_bind_text,
    bind_int64: ffi::sqlite3_bind_int64,
    bind_double: ffi::sqlite3_bind_double,
    bind_null: ffi::sqlite3_bind_null,
    bind_blob: ffi::sqlite3_bind_blob,
    clear_bindings: ffi::sqlite3_clear_bindings,
    column_count: ffi::sqlite3_column_count,
    column_blob: ffi::sqlite3_column_blob,
    column_bytes: ffi::sqlite3_column_bytes,
    stmt_readonly: ffi::sqlite3_stmt_readonly,
    changes: ffi::sqlite3_changes,
    errmsg: ffi::sqlite3_errmsg,
    set_authorizer: ffi::sqlite3_set_authorizer,
    progress_handler: ffi::sqlite3_progress_handler,
};
