//! Per-operation I/O for engines without an I/O hook (LMDB, RocksDB, LevelDB): the kernel's
//! I/O accounting of the replaying thread, `/proc/thread-self/io`, read before and after each
//! operation (outside the timed window), plus the sync calls the [`super::syncs`] interposer
//! saw on this thread.
//!
//! The file stays open; each snapshot is one `pread` at offset 0 (about 2–4 µs, paid between
//! operations, never inside one). What it yields, all charged to file kind `other` because the
//! kernel does not say which file:
//!
//! * `reads` / `read_bytes` — read-type system calls (`syscr`) and bytes they returned
//!   (`rchar`, page-cache hits included); `writes` / `write_bytes` — `syscw` / `wchar`.
//! * The snapshot's own `pread` is itself a read system call: it is subtracted exactly (one
//!   call and the bytes it returned per earlier snapshot), so an operation that does no I/O
//!   shows zero.
//! * Time blocked per call is not available this way (`read_ns`, `write_ns` stay 0); the
//!   operation's off-CPU time is the blocked time.
//! * I/O done by the engine's background threads (RocksDB/LevelDB flushes and compactions)
//!   is not on this thread and so not in any operation; it is in the run's process counters
//!   and the engine statistics.
//! * Reads through a memory map (LMDB) are page faults, not system calls: they do not appear.

use super::io::{FileKind, IoCounters};
use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// Describes the method, for `EngineInfo::io_method`.
pub const METHOD: &str = "thread I/O counters (/proc/thread-self/io syscr/syscw/rchar/wchar around each operation, outside the timed window) + interposed fsync/fdatasync/msync calls; all charged to 'other', no per-call time";

#[derive(Default)]
struct State {
    /// The open counters file and the thread it belongs to.
    file: Option<(libc::pid_t, File)>,
    /// Read calls and bytes made by earlier snapshots, to subtract.
    own_calls: u64,
    own_bytes: u64,
    buf: Vec<u8>,
}

/// The calling thread's kernel I/O counters.
#[derive(Default)]
pub struct ThreadIo {
    state: RefCell<State>,
}

impl ThreadIo {
    /// Cumulative counters of the calling thread (zero where the kernel has no such file).
    pub fn counters(&self) -> IoCounters {
        let mut c = IoCounters::default();
        let (syncs, sync_ns) = super::syncs::thread_syncs();
        c.by_kind[FileKind::Other as usize].syncs = syncs;
        c.by_kind[FileKind::Other as usize].sync_ns = sync_ns;
        let mut st = self.state.borrow_mut();
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        if st.file.as_ref().map(|(t, _)| *t) != Some(tid) {
            st.file = File::open("/proc/thread-self/io").ok().map(|f| (tid, f));
            st.own_calls = 0;
            st.own_bytes = 0;
        }
        let State {
            file,
            own_calls,
            own_bytes,
            buf,
        } = &mut *st;
        let Some((_, f)) = file else { return c };
        buf.resize(512, 0);
        let Ok(n) = f.read_at(buf, 0) else { return c };
        let text = std::str::from_utf8(&buf[..n]).unwrap_or("");
        let field = |name: &str| -> u64 {
            text.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0)
        };
        let other = &mut c.by_kind[FileKind::Other as usize];
        other.reads += field("syscr").saturating_sub(*own_calls);
        other.read_bytes += field("rchar").saturating_sub(*own_bytes);
        other.writes += field("syscw");
        other.write_bytes += field("wchar");
        *own_calls += 1;
        *own_bytes += n as u64;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn snapshots_cancel_themselves_and_see_writes() {
        let t = ThreadIo::default();
        let a = t.counters();
        let b = t.counters();
        let d = b.minus(&a).total();
        assert_eq!((d.reads, d.read_bytes, d.writes), (0, 0, 0), "{d:?}");
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[7u8; 1000]).unwrap();
        let c = t.counters();
        let d = c.minus(&b).total();
        if std::path::Path::new("/proc/thread-self/io").exists() {
            assert_eq!((d.writes, d.write_bytes, d.reads), (1, 1000, 0), "{d:?}");
        }
    }
}
