//! Counting durability barriers per thread: this binary defines `fsync`, `fdatasync` and
//! `msync` itself, so every call to them — from Rust code, from C code compiled into the
//! binary (LMDB) and from the system libraries linked against it (RocksDB, LevelDB, which the
//! linker binds to the executable's definition because the executable exports symbols that
//! shared libraries on its link line reference) — lands here, is counted and timed on the
//! calling thread, and is forwarded to the kernel with the raw system call.
//!
//! The kernel's per-thread I/O counters ([`super::threadio`]) have no sync count; this fills
//! the gap for the engines measured that way. SQLite and BerkeleyDB count their syncs through
//! their own hooks and do not read these counters.
//!
//! Two things only this layer can see, for SQLite's VFS shim: a sync of a *directory* (SQLite
//! syncs the directory inside the xSync or xDelete that follows creating or deleting a
//! journal), counted as its own file kind ([`FileKind::Dir`]) and reported so the shim can
//! take its time out of the enclosing call; and which call SQLite's data syncs make. The
//! bundled SQLite is built with `HAVE_FDATASYNC` as Android builds it, so it calls
//! `fdatasync`; inside [`sqlite_sync`] for a connection opened with `sync_call=fsync`, that call becomes
//! `fsync`. [`thread_sync_calls`] counts the calls the kernel actually received.

use super::io::{self, FileKind};
use std::cell::Cell;
use std::ffi::{c_int, c_long, c_void};

thread_local! {
    static SYNCS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    /// fsync and fdatasync system calls made (after any substitution).
    static CALLS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    /// Nanoseconds spent syncing directories.
    static DIR_NS: Cell<u64> = const { Cell::new(0) };
    /// Inside a SQLite sync whose fdatasync must become fsync.
    static FORCE_FSYNC: Cell<bool> = const { Cell::new(false) };
}

/// Run a SQLite VFS call that may sync; with `fsync`, its fdatasync calls become fsync.
#[inline]
pub fn sqlite_sync<R>(fsync: bool, f: impl FnOnce() -> R) -> R {
    if !fsync {
        return f();
    }
    FORCE_FSYNC.with(|c| c.set(true));
    let r = f();
    FORCE_FSYNC.with(|c| c.set(false));
    r
}

/// (fsync, fdatasync) system calls the calling thread has made.
pub fn thread_sync_calls() -> (u64, u64) {
    CALLS.with(Cell::get)
}

/// Nanoseconds the calling thread has spent syncing directories.
#[inline]
pub fn thread_dir_sync_ns() -> u64 {
    DIR_NS.with(Cell::get)
}

fn is_dir(fd: c_int) -> bool {
    // SAFETY: fstat fills a plain struct; a bad descriptor just fails.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    unsafe { libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFDIR }
}

/// The hook of `durability`'s file-system recorder (`pocketbench_rec_sync`), when it is
/// preloaded: this binary's own `fsync` and `fdatasync` shadow the recorder's, so they tell it
/// of each sync. It records the sync and returns 1 when the recording run needs no real one.
fn recorder_hook() -> Option<unsafe extern "C" fn(c_int) -> c_int> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static HOOK: AtomicUsize = AtomicUsize::new(0);
    let mut h = HOOK.load(Ordering::Relaxed);
    if h == 0 {
        // SAFETY: dlsym with a NUL-terminated name; the result is a function of that type or
        // null.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"pocketbench_rec_sync".as_ptr()) };
        h = if p.is_null() { 1 } else { p as usize };
        HOOK.store(h, Ordering::Relaxed);
    }
    // SAFETY: `h` is the address of the recorder's `int pocketbench_rec_sync(int)`.
    (h > 1)
        .then(|| unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(c_int) -> c_int>(h) })
}

/// A sync system call on `fd`, counted; `fsync` says which call it is.
fn sync_call(fd: c_int, fsync: bool) -> c_int {
    // SAFETY: the recorder's hook takes any descriptor.
    if recorder_hook().is_some_and(|hook| unsafe { hook(fd) } == 1) {
        return 0;
    }
    let dir = is_dir(fd);
    let nr = if fsync {
        libc::SYS_fsync
    } else {
        libc::SYS_fdatasync
    };
    // SAFETY: forwards the caller's descriptor to the system call unchanged.
    let (rc, ns) = counted(|| unsafe { libc::syscall(nr, fd) });
    let _ = CALLS.try_with(|c| {
        let (f, d) = c.get();
        c.set(if fsync { (f + 1, d) } else { (f, d + 1) });
    });
    if dir {
        let _ = DIR_NS.try_with(|c| c.set(c.get() + ns));
        io::try_record(FileKind::Dir, |s| s.add_sync(ns));
    }
    rc
}

/// Sync calls made by the calling thread so far, and the nanoseconds they blocked.
#[inline]
pub fn thread_syncs() -> (u64, u64) {
    SYNCS.with(Cell::get)
}

/// Make the call, count it and its time on this thread; returns its result and the time.
#[inline]
fn counted(call: impl FnOnce() -> c_long) -> (c_int, u64) {
    let t0 = crate::platform::clock::mono_ns();
    let rc = call();
    let ns = crate::platform::clock::mono_ns().saturating_sub(t0);
    // `try_with`: a sync during thread teardown must still reach the kernel.
    let _ = SYNCS.try_with(|c| {
        let (n, t) = c.get();
        c.set((n + 1, t + ns));
    });
    (rc as c_int, ns)
}

/// `fsync(2)`, counted.
///
/// # Safety
/// Same contract as the C library's `fsync`.
#[no_mangle]
pub unsafe extern "C" fn fsync(fd: c_int) -> c_int {
    sync_call(fd, true)
}

/// `fdatasync(2)`, counted.
///
/// # Safety
/// Same contract as the C library's `fdatasync`.
#[no_mangle]
pub unsafe extern "C" fn fdatasync(fd: c_int) -> c_int {
    let fsync = FORCE_FSYNC.try_with(Cell::get).unwrap_or(false);
    sync_call(fd, fsync)
}

/// `msync(2)`; counted when it waits for the data (`MS_SYNC`).
///
/// # Safety
/// Same contract as the C library's `msync`.
#[no_mangle]
pub unsafe extern "C" fn msync(addr: *mut c_void, len: libc::size_t, flags: c_int) -> c_int {
    // SAFETY: forwards the caller's arguments to the system call unchanged.
    let call = || unsafe { libc::syscall(libc::SYS_msync, addr, len, flags) };
    if flags & libc::MS_SYNC != 0 {
        counted(call).0
    } else {
        call() as c_int
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn syncs_from_std_are_counted_on_this_thread() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"x").unwrap();
        let (n0, _) = thread_syncs();
        f.sync_all().unwrap();
        f.sync_data().unwrap();
        let (n1, _) = thread_syncs();
        assert_eq!(n1 - n0, 2);
        let other = std::thread::spawn(thread_syncs).join().unwrap();
        assert_eq!(other.0, 0);
    }
}
