//! BerkeleyDB's own I/O hook: `db_env_set_func_pread`, `_pwrite`, `_write`, `_fsync`,
//! `_ftruncate` and `_close` replace the system calls the library makes on its files
//! (process-wide, set before any environment opens). `_read` is left alone: with a read hook
//! set, BerkeleyDB takes any short read (the normal end of a log file) as an error, and it
//! only uses plain `read(2)` to scan log files at open and recovery, never in an operation. Ours time each call and add it to the
//! calling thread's I/O counters, exactly as SQLite's VFS shim does, so BerkeleyDB — key-value
//! and SQL — gets per-operation I/O with time blocked, by file kind: the data file is `main`,
//! the transaction log (`log.*`) is `wal`, region files (`__db.*`) are `other`.
//!
//! The kind of a descriptor is found once (`/proc/self/fd/N`, on its first I/O) and forgotten
//! when BerkeleyDB closes it. The two libraries (libdb for the key-value engine, libdb_sql for
//! the SQL engine) each have their own copy of the hook table, so each is installed separately
//! through [`Setters`].

use crate::engine::io::{self, FileKind, IoStats};
use crate::platform::clock::mono_ns;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU8, Ordering};

pub type PreadFn = unsafe extern "C" fn(c_int, *mut c_void, usize, libc::off_t) -> isize;
pub type PwriteFn = unsafe extern "C" fn(c_int, *const c_void, usize, libc::off_t) -> isize;
pub type WriteFn = unsafe extern "C" fn(c_int, *const c_void, usize) -> isize;
pub type FdFn = unsafe extern "C" fn(c_int) -> c_int;
pub type TruncFn = unsafe extern "C" fn(c_int, libc::off_t) -> c_int;

/// One library's `db_env_set_func_*` functions.
pub struct Setters {
    pub pread: unsafe extern "C" fn(Option<PreadFn>) -> c_int,
    pub pwrite: unsafe extern "C" fn(Option<PwriteFn>) -> c_int,
    pub write: unsafe extern "C" fn(Option<WriteFn>) -> c_int,
    pub fsync: unsafe extern "C" fn(Option<FdFn>) -> c_int,
    pub ftruncate: unsafe extern "C" fn(Option<TruncFn>) -> c_int,
    pub close: unsafe extern "C" fn(Option<FdFn>) -> c_int,
}

/// Describes the method, for `EngineInfo::io_method`.
pub const METHOD: &str = "BerkeleyDB I/O hooks (db_env_set_func_pread/pwrite/write/fsync/ftruncate per operation, with time; log.* as wal)";

/// Install our hooks through `s`. Call once per library, before any environment opens.
///
/// # Safety
/// `s` must hold that library's real setter functions.
pub unsafe fn install(s: &Setters) -> Result<(), String> {
    let rcs = [
        (s.pread)(Some(h_pread)),
        (s.pwrite)(Some(h_pwrite)),
        (s.write)(Some(h_write)),
        (s.fsync)(Some(h_fsync)),
        (s.ftruncate)(Some(h_ftruncate)),
        (s.close)(Some(h_close)),
    ];
    match rcs.iter().find(|&&rc| rc != 0) {
        Some(rc) => Err(format!("berkeleydb: installing I/O hooks failed ({rc})")),
        None => Ok(()),
    }
}

const SLOTS: usize = 4096;
/// Kind of each descriptor: 0 unknown, else `FileKind as u8 + 1`.
static KINDS: [AtomicU8; SLOTS] = [const { AtomicU8::new(0) }; SLOTS];

fn classify(fd: c_int) -> FileKind {
    let name = std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    if name.starts_with("log.") {
        FileKind::Wal
    } else if name.starts_with("__db.") || name.is_empty() {
        FileKind::Other
    } else {
        FileKind::Main
    }
}

fn kind(fd: c_int) -> FileKind {
    let Some(slot) = usize::try_from(fd).ok().and_then(|i| KINDS.get(i)) else {
        return classify(fd);
    };
    match slot.load(Ordering::Relaxed) {
        0 => {
            let k = classify(fd);
            slot.store(k as u8 + 1, Ordering::Relaxed);
            k
        }
        v => FileKind::ALL[usize::from(v - 1)],
    }
}

#[inline]
fn timed<T: Copy + Into<i64>>(
    fd: c_int,
    call: impl FnOnce() -> T,
    account: impl FnOnce(&mut IoStats, u64, u64),
) -> T {
    let k = kind(fd);
    let t0 = mono_ns();
    let rc = call();
    let ns = mono_ns().saturating_sub(t0);
    let done = u64::try_from(rc.into()).unwrap_or(0);
    io::record(k, |s| account(s, done, ns));
    rc
}

unsafe extern "C" fn h_pread(fd: c_int, buf: *mut c_void, n: usize, off: libc::off_t) -> isize {
    timed(
        fd,
        || unsafe { libc::pread(fd, buf, n, off) } as i64,
        IoStats::add_read,
    ) as isize
}

unsafe extern "C" fn h_pwrite(fd: c_int, buf: *const c_void, n: usize, off: libc::off_t) -> isize {
    timed(
        fd,
        || unsafe { libc::pwrite(fd, buf, n, off) } as i64,
        IoStats::add_write,
    ) as isize
}

unsafe extern "C" fn h_write(fd: c_int, buf: *const c_void, n: usize) -> isize {
    timed(
        fd,
        || unsafe { libc::write(fd, buf, n) } as i64,
        IoStats::add_write,
    ) as isize
}

unsafe extern "C" fn h_fsync(fd: c_int) -> c_int {
    // BerkeleyDB's own default on Linux is fdatasync.
    timed(
        fd,
        || unsafe { libc::fdatasync(fd) },
        |s, _, ns| s.add_sync(ns),
    )
}

unsafe extern "C" fn h_ftruncate(fd: c_int, len: libc::off_t) -> c_int {
    timed(
        fd,
        || unsafe { libc::ftruncate(fd, len) },
        |s, _, ns| s.add_truncate(ns),
    )
}

unsafe extern "C" fn h_close(fd: c_int) -> c_int {
    if let Some(slot) = usize::try_from(fd).ok().and_then(|i| KINDS.get(i)) {
        slot.store(0, Ordering::Relaxed);
    }
    libc::close(fd)
}
