//! The `sqlite3_io_methods` that a wrapping VFS hands straight to the wrapped file: locks, file
//! controls, sector size, device characteristics, the WAL index's shared memory, memory-mapped
//! fetches. Generic over the wrapper's file object ([`Wrapped`]), so the measuring shim
//! (`vfs`) and the power-loss simulator (`durability::crash_vfs`) share one copy and write only
//! the methods they change.
//!
//! Safety, for every function here: it is an `sqlite3_io_methods` entry, called by SQLite with a
//! file object that the wrapping VFS opened and whose real file is open.
#![allow(clippy::missing_safety_doc)]

use rusqlite::ffi;
use std::ffi::{c_int, c_void};

/// A wrapping VFS's file object: it knows where the wrapped (real) file object is.
pub trait Wrapped {
    /// # Safety
    /// `file` must be a file object opened by the wrapping VFS, whose real file is open.
    unsafe fn real(file: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file;
}

/// The real file object and its methods.
///
/// # Safety
/// As [`Wrapped::real`].
#[inline]
pub unsafe fn real<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
) -> (*mut ffi::sqlite3_file, &'static ffi::sqlite3_io_methods) {
    let r = W::real(file);
    (r, &*(*r).pMethods)
}

pub unsafe extern "C" fn x_lock<W: Wrapped>(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    let (r, m) = real::<W>(file);
    m.xLock.map_or(ffi::SQLITE_OK, |f| f(r, level))
}

pub unsafe extern "C" fn x_unlock<W: Wrapped>(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    let (r, m) = real::<W>(file);
    m.xUnlock.map_or(ffi::SQLITE_OK, |f| f(r, level))
}

pub unsafe extern "C" fn x_check_reserved_lock<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
    out: *mut c_int,
) -> c_int {
    let (r, m) = real::<W>(file);
    m.xCheckReservedLock.map_or(ffi::SQLITE_OK, |f| f(r, out))
}

pub unsafe extern "C" fn x_file_control<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
    op: c_int,
    arg: *mut c_void,
) -> c_int {
    let (r, m) = real::<W>(file);
    m.xFileControl
        .map_or(ffi::SQLITE_NOTFOUND, |f| f(r, op, arg))
}

pub unsafe extern "C" fn x_sector_size<W: Wrapped>(file: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = real::<W>(file);
    m.xSectorSize.map_or(4096, |f| f(r))
}

pub unsafe extern "C" fn x_device_characteristics<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
) -> c_int {
    let (r, m) = real::<W>(file);
    m.xDeviceCharacteristics.map_or(0, |f| f(r))
}

pub unsafe extern "C" fn x_shm_map<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
    region: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    let (r, m) = real::<W>(file);
    m.xShmMap.map_or(ffi::SQLITE_IOERR_SHMMAP, |f| {
        f(r, region, size, extend, out)
    })
}

pub unsafe extern "C" fn x_shm_lock<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
    offset: c_int,
    n: c_int,
    flags: c_int,
) -> c_int {
    let (r, m) = real::<W>(file);
    m.xShmLock
        .map_or(ffi::SQLITE_IOERR_SHMLOCK, |f| f(r, offset, n, flags))
}

pub unsafe extern "C" fn x_shm_barrier<W: Wrapped>(file: *mut ffi::sqlite3_file) {
    let (r, m) = real::<W>(file);
    if let Some(f) = m.xShmBarrier {
        f(r)
    }
}

pub unsafe extern "C" fn x_shm_unmap<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
    delete: c_int,
) -> c_int {
    let (r, m) = real::<W>(file);
    m.xShmUnmap.map_or(ffi::SQLITE_OK, |f| f(r, delete))
}

pub unsafe extern "C" fn x_fetch<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
    off: i64,
    amt: c_int,
    out: *mut *mut c_void,
) -> c_int {
    let (r, m) = real::<W>(file);
    match m.xFetch {
        Some(f) => f(r, off, amt, out),
        None => {
            *out = std::ptr::null_mut();
            ffi::SQLITE_OK
        }
    }
}

pub unsafe extern "C" fn x_unfetch<W: Wrapped>(
    file: *mut ffi::sqlite3_file,
    off: i64,
    p: *mut c_void,
) -> c_int {
    let (r, m) = real::<W>(file);
    m.xUnfetch.map_or(ffi::SQLITE_OK, |f| f(r, off, p))
}
