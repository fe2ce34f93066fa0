//! File I/O accounting shared by every engine: counts, bytes and time blocked in reads, writes,
//! syncs and truncates, split by the kind of file (main database, rollback journal, WAL, other,
//! directory, WAL index).
//!
//! Engines with a VFS hook (SQLite) add to the calling thread's counters from inside the hook;
//! the replayer snapshots them around each operation. Thread-local, because the engine runs on
//! the replaying thread and the hot path must not pay for atomics.

pub mod capture;
pub mod trace;

use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// Which file an I/O went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    Main,
    Journal,
    Wal,
    Other,
    /// A directory: SQLite syncs the directory after creating a journal or WAL file (and
    /// after deleting one with `synchronous=extra`).
    Dir,
    /// SQLite's WAL index (`-shm`): mapping its regions (reads) and growing it (writes); its
    /// use afterwards is memory access and makes no system call.
    Shm,
}

impl FileKind {
    pub const ALL: [FileKind; 6] = [
        FileKind::Main,
        FileKind::Journal,
        FileKind::Wal,
        FileKind::Other,
        FileKind::Dir,
        FileKind::Shm,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FileKind::Main => "main",
            FileKind::Journal => "journal",
            FileKind::Wal => "wal",
            FileKind::Other => "other",
            FileKind::Dir => "dir",
            FileKind::Shm => "shm",
        }
    }
}

/// Counters for one kind of file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoStats {
    pub reads: u64,
    pub read_bytes: u64,
    pub read_ns: u64,
    pub writes: u64,
    pub write_bytes: u64,
    pub write_ns: u64,
    pub syncs: u64,
    pub sync_ns: u64,
    pub truncates: u64,
    pub truncate_ns: u64,
}

impl IoStats {
    /// Count one read of `bytes` that blocked for `ns`.
    #[inline]
    pub fn add_read(&mut self, bytes: u64, ns: u64) {
        self.reads += 1;
        self.read_bytes += bytes;
        self.read_ns += ns;
    }

    /// Count one write of `bytes` that blocked for `ns`.
    #[inline]
    pub fn add_write(&mut self, bytes: u64, ns: u64) {
        self.writes += 1;
        self.write_bytes += bytes;
        self.write_ns += ns;
    }

    /// Count one sync that blocked for `ns`.
    #[inline]
    pub fn add_sync(&mut self, ns: u64) {
        self.syncs += 1;
        self.sync_ns += ns;
    }

    /// Count one truncate that blocked for `ns`.
    #[inline]
    pub fn add_truncate(&mut self, ns: u64) {
        self.truncates += 1;
        self.truncate_ns += ns;
    }

    pub fn blocked_ns(&self) -> u64 {
        self.read_ns + self.write_ns + self.sync_ns + self.truncate_ns
    }

    /// The counters in declaration order (the order of the spool and CSV columns).
    #[inline]
    pub fn to_array(&self) -> [u64; 10] {
        [
            self.reads,
            self.read_bytes,
            self.read_ns,
            self.writes,
            self.write_bytes,
            self.write_ns,
            self.syncs,
            self.sync_ns,
            self.truncates,
            self.truncate_ns,
        ]
    }

    /// The inverse of [`IoStats::to_array`].
    #[inline]
    pub fn from_array(a: [u64; 10]) -> IoStats {
        let [reads, read_bytes, read_ns, writes, write_bytes, write_ns, syncs, sync_ns, truncates, truncate_ns] =
            a;
        IoStats {
            reads,
            read_bytes,
            read_ns,
            writes,
            write_bytes,
            write_ns,
            syncs,
            sync_ns,
            truncates,
            truncate_ns,
        }
    }

    pub fn add(&mut self, o: &IoStats) {
        let (a, b) = (self.to_array(), o.to_array());
        *self = IoStats::from_array(std::array::from_fn(|i| a[i] + b[i]));
    }

    pub fn minus(&self, o: &IoStats) -> IoStats {
        let (a, b) = (self.to_array(), o.to_array());
        IoStats::from_array(std::array::from_fn(|i| a[i] - b[i]))
    }
}

/// Counters for every kind of file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoCounters {
    pub by_kind: [IoStats; FileKind::ALL.len()],
}

impl IoCounters {
    pub fn total(&self) -> IoStats {
        let mut t = IoStats::default();
        for s in &self.by_kind {
            t.add(s);
        }
        t
    }

    pub fn kind(&self, k: FileKind) -> &IoStats {
        &self.by_kind[k as usize]
    }

    pub fn minus(&self, o: &IoCounters) -> IoCounters {
        let mut d = IoCounters::default();
        for i in 0..FileKind::ALL.len() {
            d.by_kind[i] = self.by_kind[i].minus(&o.by_kind[i]);
        }
        d
    }

    pub fn add(&mut self, o: &IoCounters) {
        for i in 0..FileKind::ALL.len() {
            self.by_kind[i].add(&o.by_kind[i]);
        }
    }
}

thread_local! {
    static THREAD_IO: RefCell<ThreadIo> = RefCell::new(ThreadIo::default());
}

/// The calling thread's counters by kind, and their sum kept beside them so the replay's
/// per-operation snapshot copies one [`IoStats`] instead of one per kind.
#[derive(Default)]
struct ThreadIo {
    counters: IoCounters,
    total: IoStats,
}

impl ThreadIo {
    fn apply(&mut self, kind: FileKind, f: impl FnOnce(&mut IoStats)) {
        let mut delta = IoStats::default();
        f(&mut delta);
        self.counters.by_kind[kind as usize].add(&delta);
        self.total.add(&delta);
    }
}

/// Add to the calling thread's counters for `kind`.
#[inline]
pub fn record(kind: FileKind, f: impl FnOnce(&mut IoStats)) {
    THREAD_IO.with(|c| c.borrow_mut().apply(kind, f));
}

/// [`record`], doing nothing once the thread's counters are gone (thread teardown).
#[inline]
pub fn try_record(kind: FileKind, f: impl FnOnce(&mut IoStats)) {
    let _ = THREAD_IO.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.apply(kind, f);
        }
    });
}

/// The calling thread's counters summed over all kinds (what [`thread_counters`]`().total()`
/// returns, without the sum).
#[inline]
pub fn thread_total() -> IoStats {
    THREAD_IO.with(|c| c.borrow().total)
}

/// The calling thread's counters so far.
#[inline]
pub fn thread_counters() -> IoCounters {
    THREAD_IO.with(|c| c.borrow().counters)
}
