//! BerkeleyDB's SQL front end (`libdb_sql`, the SQLite-compatible API PocketData's "BDB"
//! driver used): SQLite's parser and VDBE over BerkeleyDB btrees, so both PocketData SQL
//! workloads (and the original JSON files) and key-value workloads (on YCSB's JDBC schema, via
//! the SQL session shared with the SQLite engine) run on it.
//!
//! **Linking.** `libdb_sql` exports the same `sqlite3_*` symbols as the SQLite bundled into
//! this binary, and its own copy of BerkeleyDB's `db_*`/`__db_*` symbols, which the key-value
//! engine's `libdb` also exports. Linking it normally would bind one library's calls to the
//! other's functions. So it is opened at run time with `dlopen(RTLD_NOW | RTLD_LOCAL |
//! RTLD_DEEPBIND)`: `RTLD_LOCAL` keeps its symbols out of the global scope (nothing else binds
//! to them), `RTLD_DEEPBIND` makes its own internal calls prefer its own definitions over
//! anything already loaded (the executable's SQLite is not exported anyway; `libdb`'s `db_*`
//! would be). Every function this engine calls is looked up by `dlsym` on that handle into the
//! same function table the bundled SQLite fills ([`crate::engine::sqlite::api::Api`]).
//!
//! **Options** go where BerkeleyDB reads them: cache size and commit sync into `DB_CONFIG` in
//! the database's `-journal` environment directory (written before every open, so load and
//! replay agree), page size as `PRAGMA page_size` before the schema exists. The front end is
//! always transactional; each statement outside the load is its own transaction.
//!
//! **I/O** is measured through the library's own I/O hooks ([`super::iohooks`]), installed in
//! `libdb_sql`'s copy of the hook table.

use super::iohooks::{self, Setters};
use crate::engine::kv;
use crate::engine::options::{EngineOptions, OptionSpec};
use crate::engine::sqlite::api::{Api, Db};
use crate::engine::sqlite::session::SqlSession;
use crate::engine::{Engine, EngineDescriptor, EngineInfo, LastRead, Outcome, Request};
use crate::error::{Error, Result, ResultExt};
use crate::workload::model::DataModel;
use libloading::os::unix::Library;
use std::ffi::{c_char, c_int, CStr, CString};
use std::path::Path;
use std::sync::OnceLock;

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "berkeleydb-sql",
    summary: "BerkeleyDB 5.3 SQL front end (libdb_sql, loaded with dlopen), I/O measured per operation by its I/O hooks",
    options: SPECS,
    supports_sql: true,
    open,
    version,
};

const SPECS: &[OptionSpec] = &[super::CACHE_SIZE, super::PAGE_SIZE, super::SYNC];

/// The library, by its run-time name (package libdb5.3-sql).
pub const LIBRARY: &str = "libdb_sql-5.3.so";
/// File name of the database inside the engine's directory.
pub const DB_FILE: &str = "pocketbench.bdbsql";

/// `libdb_sql`, opened once and kept for the life of the process.
struct Loaded {
    api: Api,
    open_v2: unsafe extern "C" fn(*const c_char, *mut *mut Db, c_int, *const c_char) -> c_int,
    close: unsafe extern "C" fn(*mut Db) -> c_int,
    libversion: unsafe extern "C" fn() -> *const c_char,
    db_version: unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int) -> *const c_char,
}

fn load() -> std::result::Result<&'static Loaded, String> {
    static LOADED: OnceLock<std::result::Result<Loaded, String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let flags = libloading::os::unix::RTLD_NOW
                | libloading::os::unix::RTLD_LOCAL
                | libc::RTLD_DEEPBIND;
            // SAFETY: loading a C library whose initialisers have no preconditions.
            let lib = unsafe { Library::open(Some(LIBRARY), flags) }.map_err(|e| {
                format!("{e} (install Debian's libdb5.3-sql to use berkeleydb-sql)")
            })?;
            // The library stays loaded for the life of the process: its symbols are copied into
            // tables used until exit.
            let lib: &'static Library = Box::leak(Box::new(lib));
            macro_rules! sym {
                ($name:literal) => {
                    // SAFETY: the symbol is a C function with the signature of the field it
                    // fills (the SQLite C API and db.h).
                    *unsafe { lib.get($name) }.map_err(|e| format!("{LIBRARY}: {e}"))?
                };
            }
            let loaded = Loaded {
                api: Api {
                    prepare_v2: sym!("sqlite3_prepare_v2"),
                    step: sym!("sqlite3_step"),
                    reset: sym!("sqlite3_reset"),
                    finalize: sym!("sqlite3_finalize"),
                    bind_text: sym!("sqlite3_bind_text"),
                    bind_int64: sym!("sqlite3_bind_int64"),
                    bind_double: sym!("sqlite3_bind_double"),
                    bind_null: sym!("sqlite3_bind_null"),
                    bind_blob: sym!("sqlite3_bind_blob"),
                    clear_bindings: sym!("sqlite3_clear_bindings"),
                    column_count: sym!("sqlite3_column_count"),
                    column_blob: sym!("sqlite3_column_blob"),
                    column_bytes: sym!("sqlite3_column_bytes"),
                    stmt_readonly: sym!("sqlite3_stmt_readonly"),
                    changes: sym!("sqlite3_changes"),
                    errmsg: sym!("sqlite3_errmsg"),
                    set_authorizer: sym!("sqlite3_set_authorizer"),
                    progress_handler: sym!("sqlite3_progress_handler"),
                },
                open_v2: sym!("sqlite3_open_v2"),
                close: sym!("sqlite3_close"),
                libversion: sym!("sqlite3_libversion"),
                db_version: sym!("db_version"),
            };
            let setters = Setters {
                pread: sym!("db_env_set_func_pread"),
                pwrite: sym!("db_env_set_func_pwrite"),
                write: sym!("db_env_set_func_write"),
                fsync: sym!("db_env_set_func_fsync"),
                ftruncate: sym!("db_env_set_func_ftruncate"),
                close: sym!("db_env_set_func_close"),
            };
            // SAFETY: libdb_sql's own setters, before it opens any environment.
            unsafe { iohooks::install(&setters) }?;
            Ok(loaded)
        })
        .as_ref()
        .map_err(Clone::clone)
}

pub fn version() -> String {
    match load() {
        // SAFETY: both return static strings.
        Ok(l) => unsafe {
            let bdb = CStr::from_ptr((l.db_version)(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            ))
            .to_string_lossy()
            .into_owned();
            let sqlite = CStr::from_ptr((l.libversion)()).to_string_lossy();
            let short = bdb.split(':').next().unwrap_or(&bdb).to_string();
            format!("{short} (SQLite {sqlite} API)")
        },
        Err(_) => format!("not loadable ({LIBRARY} missing)"),
    }
}

/// `DB_CONFIG` lines for the options.
fn db_config(options: &EngineOptions) -> String {
    let cache = kv::option_u64(options, "cache_size", 262_144);
    let mut text = format!(
        "set_cachesize {} {} 1\n",
        cache >> 30,
        cache & ((1 << 30) - 1)
    );
    match super::sync_mode(options) {
        1 => text.push_str("set_flags DB_TXN_WRITE_NOSYNC\n"),
        2 => text.push_str("set_flags DB_TXN_NOSYNC\n"),
        _ => {}
    }
    text
}

pub struct BdbSql {
    // Statements must be finalized before the connection closes: keep the session first.
    session: SqlSession,
    db: *mut Db,
    lib: &'static Loaded,
    options: std::collections::BTreeMap<String, String>,
}

fn open(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>> {
    let page = super::page_size(options);
    let lib = load().map_err(|e| Error::failed(format!("berkeleydb-sql: {e}")))?;
    let path = dir.join(DB_FILE);
    let env_dir = dir.join(format!("{DB_FILE}-journal"));
    std::fs::create_dir_all(&env_dir).run_err(format!("creating {}", env_dir.display()))?;
    std::fs::write(env_dir.join("DB_CONFIG"), db_config(options))
        .run_err(format!("writing {}/DB_CONFIG", env_dir.display()))?;
    let cpath = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::input(format!("{}: path contains NUL", path.display())))?;
    let mut db = std::ptr::null_mut();
    let flags = rusqlite::ffi::SQLITE_OPEN_READWRITE | rusqlite::ffi::SQLITE_OPEN_CREATE;
    // SAFETY: valid path; the handle is closed by Drop (also after a failed open).
    let rc = unsafe { (lib.open_v2)(cpath.as_ptr(), &mut db, flags, std::ptr::null()) };
    let mut session = SqlSession::new(&lib.api, db);
    session.guard(dir, crate::engine::sqlite::guard::DEFAULT_MAX_STEPS);
    let engine = BdbSql {
        session,
        db,
        lib,
        options: kv::effective_options(SPECS, options),
    };
    if rc != rusqlite::ffi::SQLITE_OK {
        let msg = crate::engine::sqlite::stmt::errmsg(&lib.api, db);
        return Err(Error::failed(format!(
            "berkeleydb-sql: cannot open {}: {msg}",
            path.display()
        )));
    }
    if page != 0 {
        engine
            .session
            .exec_sql(&format!("PRAGMA page_size = {page}"))
            .map_err(|e| Error::failed(format!("berkeleydb-sql: PRAGMA page_size: {e}")))?;
    }
    Ok(Box::new(engine))
}

impl Engine for BdbSql {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: DESCRIPTOR.name.into(),
            version: version(),
            options: self.options.clone(),
            io_method: iohooks::METHOD.into(),
        }
    }

    fn create_schema(&mut self, model: &DataModel) -> Result<()> {
        if let DataModel::KeyValue(m) = model {
            self.session.create_kv(m, DESCRIPTOR.name)?;
        }
        Ok(())
    }

    fn begin_load(&mut self) -> Result<()> {
        self.session
            .exec_sql("BEGIN")
            .map_err(|e| Error::failed(format!("berkeleydb-sql: BEGIN: {e}")))
            .map(|_| ())
    }

    fn end_load(&mut self) -> Result<()> {
        self.session
            .exec_sql("COMMIT")
            .map_err(|e| Error::failed(format!("berkeleydb-sql: COMMIT: {e}")))
            .map(|_| ())
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

impl Drop for BdbSql {
    fn drop(&mut self) {
        // Finalize the statements first, then close the connection.
        self.session = SqlSession::new(&self.lib.api, std::ptr::null_mut());
        if !self.db.is_null() {
            // SAFETY: closed once, after its statements.
            unsafe { (self.lib.close)(self.db) };
        }
    }
}
