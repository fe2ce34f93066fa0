//! The VFS shim's I/O accounting for one transaction in DELETE mode and one in WAL mode,
//! compared with counts worked out by hand from how SQLite commits (see each test), without
//! strace: directory syncs as their own class, the WAL index as `shm`, and which system call
//! the syncs made.

use crate::engine::io::{thread_counters, FileKind, IoCounters};
use crate::engine::syncs::thread_sync_calls;
use crate::engine::{Engine, Request};
use crate::workload::op::Op;

fn sql(engine: &mut dyn Engine, text: &str) {
    let op = Op::Sql { sql: text.into() };
    let req = Request {
        op: &op,
        key: b"",
        values: &[],
        keep_read: true,
    };
    engine.execute(&req).unwrap();
}

/// The I/O and sync system calls of running `text` on `engine`.
fn measured(engine: &mut dyn Engine, text: &str) -> (IoCounters, (u64, u64)) {
    let (io0, calls0) = (thread_counters(), thread_sync_calls());
    sql(engine, text);
    let (io1, calls1) = (thread_counters(), thread_sync_calls());
    (io1.minus(&io0), (calls1.0 - calls0.0, calls1.1 - calls0.1))
}

fn open(options: &[(&str, &str)]) -> (tempfile::TempDir, Box<dyn Engine>) {
    let dir = tempfile::tempdir().unwrap();
    let raw: Vec<(String, String)> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let engine = crate::engine::open("sqlite", &raw, dir.path()).unwrap();
    (dir, engine)
}

/// DELETE mode, synchronous=full, one INSERT into a one-page table. SQLite journals the two
/// pages it changes (page 1, whose change counter every commit bumps, and the table's leaf),
/// then: syncs the new journal (and, because the file is new, its directory: the `dir` sync),
/// writes the journal header's record count and syncs the journal again (full), writes both
/// pages to the database and syncs it, and deletes the journal (counted as its truncate).
/// So: journal 2 syncs, dir 1, main 1 sync and 2 × 4096 bytes written, 1 delete; 4 sync
/// system calls, all fdatasync as built — or all fsync with `sync_call=fsync`.
#[test]
fn delete_mode_transaction_by_hand() {
    for (call, want_calls) in [("fdatasync", (0, 4)), ("fsync", (4, 0))] {
        let (_dir, mut e) = open(&[
            ("journal_mode", "delete"),
            ("synchronous", "full"),
            ("sync_call", call),
        ]);
        sql(e.as_mut(), "CREATE TABLE t (a INTEGER)");
        let (io, calls) = measured(e.as_mut(), "INSERT INTO t VALUES (1)");
        let k = |kind| *io.kind(kind);
        assert_eq!(k(FileKind::Journal).syncs, 2, "{io:?}");
        assert_eq!(k(FileKind::Dir).syncs, 1, "{io:?}");
        assert_eq!(k(FileKind::Main).syncs, 1);
        assert_eq!(k(FileKind::Main).write_bytes, 2 * 4096);
        assert_eq!(k(FileKind::Journal).truncates, 1);
        assert_eq!((k(FileKind::Wal).writes, k(FileKind::Shm).writes), (0, 0));
        assert_eq!(calls, want_calls, "{call}");
        // The directory's time is its own, not the journal's.
        assert!(k(FileKind::Dir).sync_ns > 0);
    }
}

/// WAL mode, synchronous=full. An INSERT into a one-page table writes one frame — a 24-byte
/// frame header and the 4096-byte page, two writes (only the table's leaf changes: WAL mode
/// does not bump page 1's change counter) — and syncs the WAL once at commit. Nothing goes to
/// the database file until a checkpoint; no directory is synced, no journal touched.
/// The first write transaction of a fresh database also creates the WAL: it writes the WAL
/// header and, with synchronous=full, syncs it before the frames (`syncHeader`), then syncs
/// at commit (2 WAL syncs), syncs the directory once because the WAL file is new, and maps
/// the WAL index (`-shm`).
#[test]
fn wal_mode_transaction_by_hand() {
    let (_dir, mut e) = open(&[("journal_mode", "wal"), ("synchronous", "full")]);
    let (_, _) = measured(e.as_mut(), "CREATE TABLE t (a INTEGER)");
    let (io, calls) = measured(e.as_mut(), "INSERT INTO t VALUES (1)");
    let k = |kind| *io.kind(kind);
    assert_eq!(
        (k(FileKind::Wal).writes, k(FileKind::Wal).write_bytes),
        (2, 24 + 4096),
        "{io:?}"
    );
    assert_eq!(k(FileKind::Wal).syncs, 1);
    assert_eq!(k(FileKind::Dir).syncs, 0);
    assert_eq!((k(FileKind::Main).writes, k(FileKind::Main).syncs), (0, 0));
    assert_eq!(k(FileKind::Journal), Default::default());
    assert_eq!(calls, (0, 1));

    // A fresh database: the first transaction creates the WAL file.
    let (_dir, mut e) = open(&[("journal_mode", "wal"), ("synchronous", "full")]);
    let (io, _) = measured(e.as_mut(), "CREATE TABLE t (a INTEGER)");
    let k = |kind| *io.kind(kind);
    assert_eq!(k(FileKind::Dir).syncs, 1, "{io:?}");
    assert_eq!(k(FileKind::Wal).syncs, 2);
    assert!(
        k(FileKind::Shm).reads + k(FileKind::Shm).writes >= 1,
        "{io:?}"
    );
}
