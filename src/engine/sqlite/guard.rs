//! A workload's SQL is untrusted input: a trace travels from one person's app to another
//! person's phone. Every SQL connection a workload's statements run on (the bundled SQLite
//! and BerkeleyDB's SQL front end, through [`Api`]) gets this guard once the harness's own
//! settings are applied:
//! - an authorizer refuses, at prepare time, what could touch a file outside the run's folder
//!   or load code: `ATTACH` of any file but one inside the run's database folder (SQLite
//!   reports `VACUUM INTO` as such an attach, so it is refused the same way), the PRAGMAs
//!   `writable_schema`, `temp_store_directory` and `data_store_directory`, and the functions
//!   `load_extension` and `fts3_tokenizer`;
//! - a progress handler ends any one operation after `-o max_steps` virtual-machine steps
//!   ([`DEFAULT_MAX_STEPS`] unless chosen; a recursive CTE of 2^31 rows, say), with the error
//!   "interrupted";
//! - on the bundled SQLite, `SQLITE_DBCONFIG_DEFENSIVE` (no writes to the schema or shadow
//!   tables), no trusted schema and no extension loading. BerkeleyDB's front end is SQLite
//!   3.7.6, older than those switches: there the authorizer and the step bound are the guard.
//!
//! A refused statement fails like any failing statement (counted, the run goes on), and its
//! error says what was refused and why, so each refusal is reported per statement.

use super::api::{Api, Db};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Component, Path, PathBuf};

/// Virtual-machine steps one operation may take unless `-o max_steps` says otherwise (SQLite
/// counts about 5–50 per row visited; about 5–20 s of one core).
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000_000;

/// Steps between two calls of the progress handler.
const STEP_CHUNK: c_int = 10_000;

/// PRAGMAs a workload may not run.
const PRAGMAS: [&str; 3] = [
    "writable_schema",
    "temp_store_directory",
    "data_store_directory",
];

/// SQL functions a workload may not call.
const FUNCTIONS: [&str; 2] = ["load_extension", "fts3_tokenizer"];

/// The guard's state, handed to SQLite's callbacks; lives (boxed) as long as the session.
pub struct Guard {
    /// The run's database folder: the only place an ATTACH may name.
    folder: PathBuf,
    /// Progress handler calls in the current operation.
    chunks: Cell<u64>,
    /// Progress handler calls an operation may take (0: no bound).
    max_chunks: u64,
    /// Why the authorizer refused the statement being prepared.
    refused: RefCell<Option<String>>,
}

impl Guard {
    /// Install the guard on `db` (already configured by the harness) for a run whose database
    /// lives in `folder`, bounding each operation to `max_steps` steps (0: no bound).
    pub(super) fn install(
        api: &'static Api,
        db: *mut Db,
        folder: &Path,
        max_steps: u64,
    ) -> Box<Guard> {
        let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
        let guard = Box::new(Guard {
            folder,
            chunks: Cell::new(0),
            max_chunks: max_steps.div_ceil(STEP_CHUNK as u64),
            refused: RefCell::new(None),
        });
        let ctx = (&raw const *guard).cast_mut().cast::<c_void>();
        // SAFETY: `db` is open; `ctx` points into the box, which the session keeps alive
        // until it removes the callbacks (see [`Guard::remove`]).
        unsafe {
            (api.set_authorizer)(db, Some(authorize), ctx);
            (api.progress_handler)(db, STEP_CHUNK, Some(progress), ctx);
        }
        if std::ptr::eq(api, &super::api::BUNDLED) {
            defensive(db);
        }
        guard
    }

    /// Remove the callbacks from `db` before the guard is dropped.
    pub(super) fn remove(api: &'static Api, db: *mut Db) {
        if db.is_null() {
            return;
        }
        // SAFETY: `db` is open; null callbacks remove the handlers.
        unsafe {
            (api.set_authorizer)(db, None, std::ptr::null_mut());
            (api.progress_handler)(db, 0, None, std::ptr::null_mut());
        }
    }

    /// A new operation starts: its step count starts over.
    #[inline]
    pub fn start(&self) {
        self.chunks.set(0);
    }

    /// The error of a failed operation, saying why when the guard stopped it.
    pub fn explain(&self, error: String) -> String {
        if let Some(why) = self.refused.borrow_mut().take() {
            return format!("refused: {why} (a workload may not do this)");
        }
        if self.max_chunks != 0 && self.chunks.get() > self.max_chunks {
            return format!(
                "{error}: stopped after {} virtual-machine steps (-o max_steps)",
                self.max_chunks * STEP_CHUNK as u64
            );
        }
        error
    }

    /// Whether an ATTACH of `name` stays inside the run's folder.
    fn attach_allowed(&self, name: &str) -> bool {
        if name.is_empty() || name == ":memory:" || name.starts_with("file::memory:") {
            return true;
        }
        let p = Path::new(name);
        p.is_absolute()
            && !p
                .components()
                .any(|c| matches!(c, Component::ParentDir | Component::CurDir))
            && p.starts_with(&self.folder)
    }

    fn verdict(&self, action: c_int, a: Option<&str>, b: Option<&str>) -> Option<String> {
        use rusqlite::ffi;
        match action {
            ffi::SQLITE_ATTACH => {
                let name = a.unwrap_or("");
                (!self.attach_allowed(name)).then(|| {
                    format!(
                        "ATTACH or VACUUM INTO of {}, outside the run's database folder",
                        crate::limits::escape(name)
                    )
                })
            }
            ffi::SQLITE_PRAGMA => {
                let name = a.unwrap_or("").to_ascii_lowercase();
                PRAGMAS
                    .contains(&name.as_str())
                    .then(|| format!("PRAGMA {name}"))
            }
            ffi::SQLITE_FUNCTION => {
                let name = b.unwrap_or("").to_ascii_lowercase();
                FUNCTIONS
                    .contains(&name.as_str())
                    .then(|| format!("the function {name}()"))
            }
            _ => None,
        }
    }
}

/// SQLite's defensive switches, on the bundled library.
fn defensive(db: *mut Db) {
    use rusqlite::ffi;
    for (op, on) in [
        (ffi::SQLITE_DBCONFIG_DEFENSIVE, 1),
        (ffi::SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0),
        (ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0),
    ] {
        // SAFETY: `db` is open; these options take an int and an optional int pointer.
        unsafe { ffi::sqlite3_db_config(db, op, on as c_int, std::ptr::null_mut::<c_int>()) };
    }
}

/// The text of a C string argument, if any.
///
/// # Safety
/// `p` is null or a NUL-terminated string alive for the call.
unsafe fn text<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        None
    } else {
        // SAFETY: as the caller promises.
        unsafe { CStr::from_ptr(p) }.to_str().ok()
    }
}

unsafe extern "C" fn authorize(
    ctx: *mut c_void,
    action: c_int,
    a: *const c_char,
    b: *const c_char,
    _db: *const c_char,
    _trigger: *const c_char,
) -> c_int {
    // SAFETY: `ctx` is the guard installed with this callback, alive while it is installed.
    let guard = unsafe { &*ctx.cast::<Guard>() };
    // SAFETY: SQLite passes null or NUL-terminated strings alive for the call.
    let (a, b) = unsafe { (text(a), text(b)) };
    match guard.verdict(action, a, b) {
        Some(why) => {
            guard.refused.borrow_mut().get_or_insert(why);
            rusqlite::ffi::SQLITE_DENY
        }
        None => rusqlite::ffi::SQLITE_OK,
    }
}

unsafe extern "C" fn progress(ctx: *mut c_void) -> c_int {
    // SAFETY: as in `authorize`.
    let guard = unsafe { &*ctx.cast::<Guard>() };
    let n = guard.chunks.get() + 1;
    guard.chunks.set(n);
    c_int::from(guard.max_chunks != 0 && n > guard.max_chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(folder: &str) -> Guard {
        Guard {
            folder: PathBuf::from(folder),
            chunks: Cell::new(0),
            max_chunks: 1,
            refused: RefCell::new(None),
        }
    }

    #[test]
    fn only_files_inside_the_run_folder_may_be_attached() {
        let g = guard("/run/db");
        for ok in [
            "",
            ":memory:",
            "file::memory:?cache=shared",
            "/run/db/other.sqlite",
        ] {
            assert!(g.attach_allowed(ok), "{ok}");
        }
        for no in [
            "other.sqlite",
            "/run/dbx/other.sqlite",
            "/run/db/../x.sqlite",
            "/tmp/x.db",
            "file:/tmp/x.db",
        ] {
            assert!(!g.attach_allowed(no), "{no}");
        }
    }

    #[test]
    fn refused_pragmas_and_functions_are_named() {
        use rusqlite::ffi;
        let g = guard("/run/db");
        let v = g.verdict(ffi::SQLITE_PRAGMA, Some("Writable_Schema"), Some("1"));
        assert_eq!(v.as_deref(), Some("PRAGMA writable_schema"));
        assert_eq!(
            g.verdict(ffi::SQLITE_PRAGMA, Some("journal_mode"), Some("wal")),
            None
        );
        let v = g.verdict(ffi::SQLITE_FUNCTION, None, Some("load_extension"));
        assert_eq!(v.as_deref(), Some("the function load_extension()"));
        assert_eq!(g.verdict(ffi::SQLITE_FUNCTION, None, Some("count")), None);
    }
}
