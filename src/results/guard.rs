//! Opening the results store safely, before anything is measured: the file must be a
//! pocketbench store (marked with [`APPLICATION_ID`]; another application's SQLite database is
//! refused and never gets our tables), of a schema this version reads, intact
//! (`PRAGMA quick_check`) and, for writing, writable with room for the result. Stores are kept
//! in WAL mode, so readers never wait for a writer; writers take the write lock up front
//! ([`begin_write`]) and wait for it with backoff, saying so, rather than failing after a run.

use crate::error::{Error, Result};
use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior};
use std::path::Path;
use std::time::Duration;

/// `PRAGMA application_id` of a pocketbench results store ("PBRS").
pub const APPLICATION_ID: i32 = 0x5042_5253;
/// The store schema this version writes and reads.
pub const SCHEMA_VERSION: i64 = 2;
/// How long a writer waits, in total, for another process to release the write lock before
/// the result is spooled instead (override: `POCKETBENCH_STORE_WAIT_S`).
pub const DEFAULT_WAIT_S: u64 = 120;

/// Free bytes a store's file system must have before it is opened for writing (room for the
/// schema, the WAL and its shared memory).
pub const MIN_ROOM: u64 = 1 << 20;

/// What the store is opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reading only: the store must exist; nothing is created or changed.
    Read,
    /// Writing results: created if missing; checked writable and intact.
    Write,
}

fn bad(path: &Path, msg: impl std::fmt::Display) -> Error {
    Error::input(format!("--results {}: {msg}", path.display()))
}

/// Open the store at `path` for `access`, refusing anything that is not a usable pocketbench
/// store of this schema. The schema itself is created by the caller when `needs_schema`
/// comes back true.
pub fn open(path: &Path, access: Access) -> Result<(Connection, bool)> {
    if path.is_dir() {
        return Err(bad(path, "is a directory, not a results store file"));
    }
    let exists = path.is_file() && path.metadata().map(|m| m.len() > 0).unwrap_or(false);
    if access == Access::Read && !path.is_file() {
        return Err(bad(path, "no results store there"));
    }
    if exists {
        check_header(path)?;
    }
    if access == Access::Write {
        check_writable(path, exists)?;
        // Before SQLite creates anything (the file, `-wal`, `-shm`): a full file system is
        // named as such, and a refused store leaves nothing behind.
        check_room(path, MIN_ROOM)?;
    }
    let flags = if access == Access::Read && !writable(path) {
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
    } else {
        OpenFlags::default()
    };
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| bad(path, format!("cannot open results store: {e}")))?;
    conn.busy_timeout(Duration::from_millis(500))
        .map_err(|e| bad(path, e))?;
    let needs_schema = if exists {
        check_contents(&conn, path, access)?
    } else {
        true
    };
    if access == Access::Write {
        // WAL lets readers go on while a run is being stored; a store another process holds
        // right now keeps its mode until next time.
        let _ = conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()));
    }
    Ok((conn, needs_schema))
}

/// The first bytes must be SQLite's, and a non-zero application id must be ours.
fn check_header(path: &Path) -> Result<()> {
    use std::io::Read;
    let mut head = [0u8; 100];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| bad(path, format!("cannot read: {e}")))?;
    if n < 100 || &head[..16] != b"SQLite format 3\0" {
        return Err(bad(
            path,
            "not a pocketbench results store (not a SQLite database)",
        ));
    }
    let app = i32::from_be_bytes([head[68], head[69], head[70], head[71]]);
    if app != 0 && app != APPLICATION_ID {
        return Err(foreign(path));
    }
    Ok(())
}

fn foreign(path: &Path) -> Error {
    bad(
        path,
        "is another application's SQLite database, not a pocketbench results store; choose another --results file",
    )
}

/// An existing store: ours (marked, or the unmarked first version with our `meta` table), a
/// schema we read, and intact. Returns whether the schema must still be created.
fn check_contents(conn: &Connection, path: &Path, access: Access) -> Result<bool> {
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| bad(path, format!("cannot read: {e}")))?;
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(|e| bad(path, format!("cannot read: {e}")))?;
    if app == 0 && !tables.is_empty() && !tables.iter().any(|t| t == "meta") {
        return Err(foreign(path));
    }
    let version: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .ok();
    match version.as_deref().map(str::parse::<i64>) {
        None if app == 0 && !tables.is_empty() => return Err(foreign(path)),
        Some(Ok(v)) if v > SCHEMA_VERSION => {
            return Err(bad(
                path,
                format!("written by a newer pocketbench (store schema {v}; this version reads {SCHEMA_VERSION}); upgrade pocketbench"),
            ))
        }
        Some(Err(_)) => return Err(bad(path, "schema_version in meta is not a number")),
        _ => {}
    }
    if access == Access::Write {
        let verdict: String = conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
            .map_err(|e| bad(path, format!("is corrupt: {e}")))?;
        if verdict != "ok" {
            return Err(bad(
                path,
                format!(
                    "is corrupt (quick_check: {})",
                    crate::limits::escape(&verdict)
                ),
            ));
        }
    }
    Ok(app != APPLICATION_ID || version.is_none())
}

/// Whether this process may write `path` (a file, or a directory to create files in).
pub fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: c is a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// The store file (if it exists) and its directory (for the file itself, WAL and journal)
/// must be writable.
fn check_writable(path: &Path, exists: bool) -> Result<()> {
    let dir = crate::limits::dir_of(path);
    if !dir.is_dir() {
        return Err(bad(
            path,
            format!("directory {} does not exist", dir.display()),
        ));
    }
    if !writable(dir) {
        return Err(bad(
            path,
            format!("directory {} is not writable", dir.display()),
        ));
    }
    if exists && !writable(path) {
        return Err(bad(path, "the results store is read-only"));
    }
    Ok(())
}

/// Whether database `schema` (`main`, or an attached one) of `conn` has table `name`.
pub fn has_table(conn: &Connection, schema: &str, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        &format!("SELECT count(*) FROM {schema}.sqlite_master WHERE type = 'table' AND name = ?1"),
        [name],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// Refuse before measuring when the store's file system cannot hold `bytes` more.
pub fn check_room(path: &Path, bytes: u64) -> Result<()> {
    let dir = crate::limits::dir_of(path);
    crate::limits::check_free_space(
        dir,
        bytes,
        &format!("--results {}: the result", path.display()),
    )
}

/// Total time a writer waits for the write lock.
pub fn wait_budget() -> Duration {
    let s = std::env::var("POCKETBENCH_STORE_WAIT_S")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(DEFAULT_WAIT_S);
    Duration::from_secs(s)
}

/// Begin a write transaction, taking the write lock now: while another process holds it,
/// wait with backoff (50 ms doubling to 2 s) up to [`wait_budget`], saying once on stderr
/// that we are waiting. Errors other than "busy" are returned at once.
pub fn begin_write(conn: &Connection) -> Result<Transaction<'_>> {
    let budget = wait_budget();
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(50);
    let mut said = false;
    loop {
        match Transaction::new_unchecked(conn, TransactionBehavior::Immediate) {
            Ok(tx) => return Ok(tx),
            Err(e) if is_busy(&e) && start.elapsed() < budget => {
                if !said {
                    eprintln!(
                        "pocketbench: results store busy (another process is writing); waiting up to {} s",
                        budget.as_secs()
                    );
                    said = true;
                }
                std::thread::sleep(pause.min(budget.saturating_sub(start.elapsed())));
                pause = (pause * 2).min(Duration::from_secs(2));
            }
            Err(e) => return Err(Error::failed(format!("results store: {e}"))),
        }
    }
}

/// Whether `e` means another connection holds the lock.
pub fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}
