//! A VFS shim that wraps SQLite's default VFS and accounts every xRead, xWrite, xSync and
//! xTruncate (count, bytes, time blocked) to the calling thread's I/O counters, by file kind
//! (main database, rollback journal, WAL, other; directory syncs, seen by `engine::syncs`, as
//! `dir`; the WAL index's region maps as `shm`). The replayer snapshots those counters around
//! each operation, so every I/O is attributed to the operation that caused it.
//!
//! The shim is registered once per process under the name [`VFS_NAME`] (not as the default);
//! connections opened with that VFS name are measured. Memory-mapped reads (`mmap_size > 0`)
//! reach the page cache without xRead and are therefore not counted; the docs say so.
//!
//! When the flash trace is on ([`crate::engine::io::capture`]), every call is also appended to the
//! thread's flash trace (deletes as trims); when it is off, that costs one relaxed load.

use super::passthrough::{self, Wrapped};
use crate::engine::io::capture;
use crate::engine::io::trace::IoOp;
use crate::engine::io::{self, FileKind, IoStats};
use crate::engine::syncs;
use crate::platform::clock::mono_ns;
use rusqlite::ffi;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Once;

pub const VFS_NAME: &str = "pocketbench";
const VFS_NAME_C: &CStr = c"pocketbench";
/// The same shim, with every sync made by `fsync` instead of `fdatasync` (`sync_call=fsync`).
pub const VFS_NAME_FSYNC: &str = "pocketbench-fsync";
const VFS_NAME_FSYNC_C: &CStr = c"pocketbench-fsync";

/// Our file object: SQLite's base struct, the kind of file, then the wrapped VFS's own file
/// object right after it (space for it is included in `szOsFile`).
#[repr(C)]
struct ShimFile {
    base: ffi::sqlite3_file,
    kind: FileKind,
    /// Opened through [`VFS_NAME_FSYNC`].
    fsync: bool,
    real: *mut ffi::sqlite3_file,
}

impl Wrapped for ShimFile {
    unsafe fn real(file: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
        (*(file as *mut ShimFile)).real
    }
}

static REGISTER: Once = Once::new();
static mut ROOT_VFS: *mut ffi::sqlite3_vfs = std::ptr::null_mut();

/// Register the shim (idempotent). Returns false if SQLite has no default VFS to wrap.
pub fn register() -> bool {
    REGISTER.call_once(|| {
        // SAFETY: called once; sqlite3_vfs_find(NULL) returns the default VFS or null, and the
        // shim struct is leaked so it outlives every connection.
        unsafe {
            let root = ffi::sqlite3_vfs_find(std::ptr::null());
            if root.is_null() {
                return;
            }
            ROOT_VFS = root;
            for (name, fsync) in [(VFS_NAME_C, false), (VFS_NAME_FSYNC_C, true)] {
                let mut shim: ffi::sqlite3_vfs = *root;
                shim.szOsFile = (std::mem::size_of::<ShimFile>() as c_int) + (*root).szOsFile;
                shim.zName = name.as_ptr();
                shim.pNext = std::ptr::null_mut();
                shim.pAppData = usize::from(fsync) as *mut c_void;
                shim.xOpen = Some(shim_open);
                shim.xDelete = Some(shim_delete);
                ffi::sqlite3_vfs_register(Box::into_raw(Box::new(shim)), 0);
            }
        }
    });
    // SAFETY: written once inside call_once above, read-only afterwards.
    unsafe { !ROOT_VFS.is_null() }
}

fn kind_of(flags: c_int) -> FileKind {
    if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
        FileKind::Main
    } else if flags & ffi::SQLITE_OPEN_MAIN_JOURNAL != 0 {
        FileKind::Journal
    } else if flags & ffi::SQLITE_OPEN_WAL != 0 {
        FileKind::Wal
    } else {
        FileKind::Other
    }
}

/// File kind from a file name, for calls (xDelete) that carry no open flags.
unsafe fn kind_of_name(name: *const c_char) -> FileKind {
    if name.is_null() {
        return FileKind::Other;
    }
    let bytes = CStr::from_ptr(name).to_bytes();
    if bytes.ends_with(b"-journal") {
        FileKind::Journal
    } else if bytes.ends_with(b"-wal") {
        FileKind::Wal
    } else {
        FileKind::Other
    }
}

/// Whether `vfs` is the fsync variant.
unsafe fn forces_fsync(vfs: *mut ffi::sqlite3_vfs) -> bool {
    !vfs.is_null() && !(*vfs).pAppData.is_null()
}

unsafe extern "C" fn shim_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let shim = file as *mut ShimFile;
    let real = (file as *mut u8).add(std::mem::size_of::<ShimFile>()) as *mut ffi::sqlite3_file;
    (*shim).kind = kind_of(flags);
    (*shim).fsync = forces_fsync(vfs);
    (*shim).real = real;
    let root = ROOT_VFS;
    let rc = match (*root).xOpen {
        Some(open) => open(root, name, real, flags, out_flags),
        None => ffi::SQLITE_CANTOPEN,
    };
    (*shim).base.pMethods = if (*real).pMethods.is_null() {
        std::ptr::null()
    } else {
        &SHIM_METHODS
    };
    rc
}

unsafe extern "C" fn shim_delete(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    sync_dir: c_int,
) -> c_int {
    let root = ROOT_VFS;
    let dir0 = syncs::thread_dir_sync_ns();
    let t0 = mono_ns();
    let rc = syncs::sqlite_sync(forces_fsync(vfs), || {
        (*root)
            .xDelete
            .map_or(ffi::SQLITE_IOERR_DELETE, |f| f(root, name, sync_dir))
    });
    // A directory sync made inside is counted as `dir`, not as this file's time.
    let elapsed = (mono_ns() - t0).saturating_sub(syncs::thread_dir_sync_ns() - dir0);
    // Deleting the rollback journal is how a DELETE-mode transaction commits: account every
    // delete as a truncate of the file kind its name shows.
    let kind = kind_of_name(name);
    io::record(kind, |s| s.add_truncate(elapsed));
    if capture::enabled() {
        capture::io(kind, IoOp::Delete, 0, 0, elapsed);
    }
    rc
}

#[inline]
unsafe fn real(
    file: *mut ffi::sqlite3_file,
) -> (
    *mut ffi::sqlite3_file,
    &'static ffi::sqlite3_io_methods,
    FileKind,
) {
    let shim = file as *mut ShimFile;
    let r = (*shim).real;
    (r, &*(*r).pMethods, (*shim).kind)
}

/// Run `f`, time it, and add it to the counters of `kind` with `account`.
#[inline]
fn timed(
    kind: FileKind,
    f: impl FnOnce() -> c_int,
    account: impl FnOnce(&mut IoStats, u64),
) -> c_int {
    let t0 = mono_ns();
    let rc = f();
    let elapsed = mono_ns() - t0;
    io::record(kind, |s| account(s, elapsed));
    rc
}

unsafe extern "C" fn x_close(file: *mut ffi::sqlite3_file) -> c_int {
    let (r, m, _) = real(file);
    m.xClose.map_or(ffi::SQLITE_OK, |f| f(r))
}

unsafe extern "C" fn x_read(
    file: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    amt: c_int,
    off: i64,
) -> c_int {
    let (r, m, kind) = real(file);
    let read = m.xRead.expect("xRead");
    timed(
        kind,
        || read(r, buf, amt, off),
        |s, ns| {
            s.add_read(amt as u64, ns);
            if capture::enabled() {
                capture::io(kind, IoOp::Read, off as u64, amt as u64, ns);
            }
        },
    )
}

unsafe extern "C" fn x_write(
    file: *mut ffi::sqlite3_file,
    buf: *const c_void,
    amt: c_int,
    off: i64,
) -> c_int {
    let (r, m, kind) = real(file);
    let write = m.xWrite.expect("xWrite");
    timed(
        kind,
        || write(r, buf, amt, off),
        |s, ns| {
            s.add_write(amt as u64, ns);
            if capture::enabled() {
                capture::io(kind, IoOp::Write, off as u64, amt as u64, ns);
            }
        },
    )
}

unsafe extern "C" fn x_truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    let (r, m, kind) = real(file);
    let truncate = m.xTruncate.expect("xTruncate");
    timed(
        kind,
        || truncate(r, size),
        |s, ns| {
            s.add_truncate(ns);
            if capture::enabled() {
                capture::io(kind, IoOp::Truncate, size as u64, 0, ns);
            }
        },
    )
}

unsafe extern "C" fn x_sync(file: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let (r, m, kind) = real(file);
    let sync = m.xSync.expect("xSync");
    let dir0 = syncs::thread_dir_sync_ns();
    timed(
        kind,
        || syncs::sqlite_sync((*(file as *mut ShimFile)).fsync, || sync(r, flags)),
        |s, ns| {
            // The directory sync SQLite makes after creating a journal is `dir`'s.
            let ns = ns.saturating_sub(syncs::thread_dir_sync_ns() - dir0);
            s.add_sync(ns);
            if capture::enabled() {
                capture::io(kind, IoOp::Sync, 0, 0, ns);
            }
        },
    )
}

unsafe extern "C" fn x_file_size(file: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    let (r, m, _) = real(file);
    m.xFileSize.map_or(ffi::SQLITE_IOERR, |f| f(r, size))
}

unsafe extern "C" fn x_shm_map(
    file: *mut ffi::sqlite3_file,
    region: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    timed(
        FileKind::Shm,
        || passthrough::x_shm_map::<ShimFile>(file, region, size, extend, out),
        |s, ns| {
            // Growing the index writes its new region; mapping an existing one reads it.
            if extend != 0 {
                s.add_write(size as u64, ns);
            } else {
                s.add_read(size as u64, ns);
            }
        },
    )
}

static SHIM_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(passthrough::x_lock::<ShimFile>),
    xUnlock: Some(passthrough::x_unlock::<ShimFile>),
    xCheckReservedLock: Some(passthrough::x_check_reserved_lock::<ShimFile>),
    xFileControl: Some(passthrough::x_file_control::<ShimFile>),
    xSectorSize: Some(passthrough::x_sector_size::<ShimFile>),
    xDeviceCharacteristics: Some(passthrough::x_device_characteristics::<ShimFile>),
    xShmMap: Some(x_shm_map),
    xShmLock: Some(passthrough::x_shm_lock::<ShimFile>),
    xShmBarrier: Some(passthrough::x_shm_barrier::<ShimFile>),
    xShmUnmap: Some(passthrough::x_shm_unmap::<ShimFile>),
    xFetch: Some(passthrough::x_fetch::<ShimFile>),
    xUnfetch: Some(passthrough::x_unfetch::<ShimFile>),
};
