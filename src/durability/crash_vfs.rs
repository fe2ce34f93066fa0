//! A simulated power failure under SQLite: a VFS that wraps the default one and keeps every
//! write, truncate and new file in a volatile cache until the file is synced, as a disk's
//! page cache and write cache do. Reads see the cache (the process sees its own writes);
//! `xSync` moves the file's cached changes to the real file, which plays the durable medium
//! (no real fsync is needed: what is in the real file is by definition what survived).
//!
//! Every write, truncate, sync and delete is an I/O event, numbered from 1. When the event
//! numbered `crash_at` is reached the power fails: that event and every later call fails with
//! an I/O error (the device is gone), so the transaction in flight is never acknowledged.
//! [`Disk::power_fail`] then decides what the medium holds: by default none of the unsynced
//! changes (the strictest model); with torn writes, a random half of the unsynced 512-byte
//! sectors in order (SQLite's own crash tests do the like). A file created since its last sync
//! loses its directory entry (SQLite's unix VFS syncs the directory on a new journal's first
//! sync, so a synced file's entry is durable). Deletes are durable at once (file systems that
//! journal metadata in order, e.g. ext4 `data=ordered`; where they are not, SQLite's
//! `synchronous=EXTRA` is the answer and this model does not show the difference).
//!
//! One [`Disk`] per simulated device, registered under its own VFS name, so concurrent
//! simulations (tests run in threads) never share state.

use super::volatile::{Change, Volatile};
use crate::engine::sqlite::passthrough::{self, Wrapped};
use rusqlite::ffi;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// One simulated device: the volatile cache of every file, the event counter and the crash
/// point.
pub struct Disk {
    files: Mutex<HashMap<String, Volatile>>,
    events: AtomicU64,
    crash_at: u64,
    vfs: *mut ffi::sqlite3_vfs,
    /// The wrapped (default) VFS.
    root: *mut ffi::sqlite3_vfs,
    name: CString,
}

// SAFETY: the raw VFS pointer is only registered/unregistered by the owner; all shared state
// is behind the mutex or atomic.
unsafe impl Send for Disk {}
unsafe impl Sync for Disk {}

#[repr(C)]
struct CrashFile {
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
    disk: *const Disk,
    /// `None` for temporary files, which need no durability.
    path: Option<String>,
}

impl Wrapped for CrashFile {
    unsafe fn real(file: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
        (*(file as *mut CrashFile)).real
    }
}

static SERIAL: AtomicU64 = AtomicU64::new(0);

impl Disk {
    /// A device that fails at I/O event `crash_at` (`u64::MAX`: never), registered as a VFS.
    pub fn new(crash_at: u64) -> Option<Box<Disk>> {
        // SAFETY: sqlite3_vfs_find(NULL) returns the default VFS or null.
        let root = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
        if root.is_null() {
            return None;
        }
        let n = SERIAL.fetch_add(1, Ordering::Relaxed);
        let name = CString::new(format!("pocketbench-crash-{n}")).ok()?;
        let mut disk = Box::new(Disk {
            files: Mutex::new(HashMap::new()),
            events: AtomicU64::new(0),
            crash_at: crash_at.max(1),
            vfs: std::ptr::null_mut(),
            root,
            name,
        });
        // SAFETY: copying the default VFS struct; our methods replace open and delete; the
        // struct is freed in Drop after unregistering, and the Disk outlives it.
        unsafe {
            let mut vfs: ffi::sqlite3_vfs = *root;
            vfs.szOsFile = std::mem::size_of::<CrashFile>() as c_int + (*root).szOsFile;
            vfs.zName = disk.name.as_ptr();
            vfs.pNext = std::ptr::null_mut();
            vfs.pAppData = (&*disk as *const Disk).cast_mut().cast();
            vfs.xOpen = Some(x_open);
            vfs.xDelete = Some(x_delete);
            disk.vfs = Box::into_raw(Box::new(vfs));
            ffi::sqlite3_vfs_register(disk.vfs, 0);
        }
        Some(disk)
    }

    /// The VFS name to open connections with.
    pub fn vfs_name(&self) -> &str {
        self.name.to_str().unwrap_or_default()
    }

    /// I/O events so far.
    pub fn events(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }

    /// Whether the power has failed.
    pub fn failed(&self) -> bool {
        self.events() >= self.crash_at
    }

    /// Count one event; false once the power has failed (this event included).
    fn event(&self) -> bool {
        let n = self.events.fetch_add(1, Ordering::Relaxed) + 1;
        n < self.crash_at
    }

    fn cached<R>(&self, path: &str, f: impl FnOnce(&mut Volatile) -> R) -> R {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        f(files.entry(path.to_string()).or_default())
    }

    /// Decide what the medium holds after the failure (call once every connection is closed).
    /// `torn`: a `keep(sector)` choice per unsynced sector, in order; `None` drops them all.
    pub fn power_fail(&self, mut keep: Option<&mut dyn FnMut() -> bool>) -> std::io::Result<()> {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let mut paths: Vec<String> = files.keys().cloned().collect();
        paths.sort();
        for path in paths {
            let v = files.remove(&path).unwrap_or_default();
            v.power_fail(std::path::Path::new(&path), keep.as_deref_mut())?;
        }
        Ok(())
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        // SAFETY: registered in new(); no connection uses it any more (the owner closes them
        // first), so it can be unregistered and freed.
        unsafe {
            ffi::sqlite3_vfs_unregister(self.vfs);
            drop(Box::from_raw(self.vfs));
        }
    }
}

/// The Disk behind a VFS registered by [`Disk::new`] (its `pAppData`).
unsafe fn disk_of(vfs: *mut ffi::sqlite3_vfs) -> &'static Disk {
    &*((*vfs).pAppData as *const Disk)
}

unsafe extern "C" fn x_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let cf = file as *mut CrashFile;
    let real = (file as *mut u8).add(std::mem::size_of::<CrashFile>()) as *mut ffi::sqlite3_file;
    let disk = disk_of(vfs);
    let durable = flags
        & (ffi::SQLITE_OPEN_MAIN_DB | ffi::SQLITE_OPEN_MAIN_JOURNAL | ffi::SQLITE_OPEN_WAL)
        != 0;
    let path =
        (durable && !name.is_null()).then(|| CStr::from_ptr(name).to_string_lossy().into_owned());
    let existed = path
        .as_ref()
        .is_some_and(|p| std::path::Path::new(p).exists());
    std::ptr::write(
        cf,
        CrashFile {
            base: ffi::sqlite3_file {
                pMethods: std::ptr::null(),
            },
            real,
            disk,
            path,
        },
    );
    let root = disk.root;
    let rc = match (*root).xOpen {
        Some(open) => open(root, name, real, flags, out_flags),
        None => ffi::SQLITE_CANTOPEN,
    };
    if (*real).pMethods.is_null() {
        std::ptr::drop_in_place(cf);
        return rc;
    }
    if let Some(p) = &(*cf).path {
        if !existed && rc == ffi::SQLITE_OK {
            disk.cached(p, |c| c.created = true);
        }
    }
    (*cf).base.pMethods = &CRASH_METHODS;
    rc
}

unsafe extern "C" fn x_delete(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    sync_dir: c_int,
) -> c_int {
    let disk = disk_of(vfs);
    if !disk.event() {
        return ffi::SQLITE_IOERR_DELETE;
    }
    let root = disk.root;
    if !name.is_null() {
        let path = CStr::from_ptr(name).to_string_lossy().into_owned();
        disk.files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&path);
    }
    (*root)
        .xDelete
        .map_or(ffi::SQLITE_IOERR_DELETE, |f| f(root, name, sync_dir))
}

unsafe fn parts(file: *mut ffi::sqlite3_file) -> (&'static Disk, Option<&'static str>) {
    let cf = file as *mut CrashFile;
    (&*(*cf).disk, (*cf).path.as_deref())
}

unsafe extern "C" fn x_close(file: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = passthrough::real::<CrashFile>(file);
    let rc = m.xClose.map_or(ffi::SQLITE_OK, |f| f(r));
    std::ptr::drop_in_place(file as *mut CrashFile);
    rc
}

/// The real file's size.
unsafe fn real_size(file: *mut ffi::sqlite3_file) -> Result<u64, c_int> {
    let (r, m) = passthrough::real::<CrashFile>(file);
    let mut size: i64 = 0;
    match m
        .xFileSize
        .map_or(ffi::SQLITE_IOERR_FSTAT, |f| f(r, &mut size))
    {
        ffi::SQLITE_OK => Ok(size.max(0) as u64),
        rc => Err(rc),
    }
}

unsafe extern "C" fn x_read(
    file: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    amt: c_int,
    off: i64,
) -> c_int {
    let (disk, path) = parts(file);
    if disk.failed() {
        return ffi::SQLITE_IOERR_READ;
    }
    let (r, m) = passthrough::real::<CrashFile>(file);
    let rc = m
        .xRead
        .map_or(ffi::SQLITE_IOERR_READ, |f| f(r, buf, amt, off));
    let Some(path) = path else {
        return rc;
    };
    if rc != ffi::SQLITE_OK && rc != ffi::SQLITE_IOERR_SHORT_READ {
        return rc;
    }
    let Ok(real) = real_size(file) else {
        return ffi::SQLITE_IOERR_READ;
    };
    let out = std::slice::from_raw_parts_mut(buf as *mut u8, amt.max(0) as usize);
    let start = off.max(0) as u64;
    let size = disk.cached(path, |v| v.overlay(real, start, out));
    if size < start + out.len() as u64 {
        return ffi::SQLITE_IOERR_SHORT_READ;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_write(
    file: *mut ffi::sqlite3_file,
    buf: *const c_void,
    amt: c_int,
    off: i64,
) -> c_int {
    let (disk, path) = parts(file);
    if !disk.event() {
        return ffi::SQLITE_IOERR_WRITE;
    }
    let Some(path) = path else {
        let (r, m) = passthrough::real::<CrashFile>(file);
        return m
            .xWrite
            .map_or(ffi::SQLITE_IOERR_WRITE, |f| f(r, buf, amt, off));
    };
    let data = std::slice::from_raw_parts(buf as *const u8, amt.max(0) as usize).to_vec();
    disk.cached(path, |c| {
        c.changes.push(Change::Write {
            off: off.max(0) as u64,
            data,
        })
    });
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    let (disk, path) = parts(file);
    if !disk.event() {
        return ffi::SQLITE_IOERR_TRUNCATE;
    }
    let Some(path) = path else {
        let (r, m) = passthrough::real::<CrashFile>(file);
        return m
            .xTruncate
            .map_or(ffi::SQLITE_IOERR_TRUNCATE, |f| f(r, size));
    };
    disk.cached(path, |c| {
        c.changes.push(Change::Truncate(size.max(0) as u64))
    });
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_sync(file: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    let (disk, path) = parts(file);
    if !disk.event() {
        return ffi::SQLITE_IOERR_FSYNC;
    }
    let Some(path) = path else {
        return ffi::SQLITE_OK;
    };
    let (r, m) = passthrough::real::<CrashFile>(file);
    let changes = disk.cached(path, |c| {
        c.created = false;
        std::mem::take(&mut c.changes)
    });
    for change in changes {
        let rc = match change {
            Change::Write { off, data } => m.xWrite.map_or(ffi::SQLITE_IOERR_WRITE, |f| {
                f(r, data.as_ptr().cast(), data.len() as c_int, off as i64)
            }),
            Change::Truncate(size) => m
                .xTruncate
                .map_or(ffi::SQLITE_IOERR_TRUNCATE, |f| f(r, size as i64)),
        };
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_file_size(file: *mut ffi::sqlite3_file, out: *mut i64) -> c_int {
    let (disk, path) = parts(file);
    let real = match real_size(file) {
        Ok(s) => s,
        Err(rc) => return rc,
    };
    let size = match path {
        Some(p) => disk.cached(p, |v| v.size(real)),
        None => real,
    };
    *out = size as i64;
    ffi::SQLITE_OK
}

/// Version 2: no memory-mapped fetches, which would read the medium past the cache.
static CRASH_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 2,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(passthrough::x_lock::<CrashFile>),
    xUnlock: Some(passthrough::x_unlock::<CrashFile>),
    xCheckReservedLock: Some(passthrough::x_check_reserved_lock::<CrashFile>),
    xFileControl: Some(passthrough::x_file_control::<CrashFile>),
    xSectorSize: Some(passthrough::x_sector_size::<CrashFile>),
    xDeviceCharacteristics: Some(passthrough::x_device_characteristics::<CrashFile>),
    xShmMap: Some(passthrough::x_shm_map::<CrashFile>),
    xShmLock: Some(passthrough::x_shm_lock::<CrashFile>),
    xShmBarrier: Some(passthrough::x_shm_barrier::<CrashFile>),
    xShmUnmap: Some(passthrough::x_shm_unmap::<CrashFile>),
    xFetch: None,
    xUnfetch: None,
};
