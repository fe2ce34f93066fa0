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

use std::cell::Cell;
use std::ffi::{c_int, c_long, c_void};

thread_local! {
    static SYNCS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Sync calls made by the calling thread so far, and the nanoseconds they blocked.
#[inline]
pub fn thread_syncs() -> (u64, u64) {
    SYNCS.with(Cell::get)
}

#[inline]
fn counted(call: impl FnOnce() -> c_long) -> c_int {
    let t0 = crate::platform::clock::mono_ns();
    let rc = call();
    let ns = crate::platform::clock::mono_ns().saturating_sub(t0);
    // `try_with`: a sync during thread teardown must still reach the kernel.
    let _ = SYNCS.try_with(|c| {
        let (n, t) = c.get();
        c.set((n + 1, t + ns));
    });
    rc as c_int
}

/// `fsync(2)`, counted.
///
/// # Safety
/// Same contract as the C library's `fsync`.
#[no_mangle]
pub unsafe extern "C" fn fsync(fd: c_int) -> c_int {
    // SAFETY: forwards the caller's arguments to the system call unchanged.
    counted(|| unsafe { libc::syscall(libc::SYS_fsync, fd) })
}

/// `fdatasync(2)`, counted.
///
/// # Safety
/// Same contract as the C library's `fdatasync`.
#[no_mangle]
pub unsafe extern "C" fn fdatasync(fd: c_int) -> c_int {
    // SAFETY: forwards the caller's arguments to the system call unchanged.
    counted(|| unsafe { libc::syscall(libc::SYS_fdatasync, fd) })
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
        counted(call)
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
