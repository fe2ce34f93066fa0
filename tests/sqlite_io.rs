//! Every SQLite I/O lands in the run's summary, in the right place: directory syncs as `dir`,
//! the WAL checkpoint made when the engine closes after the last operation under
//! `io_phases.close`, the WAL index maps under `io_phases.open` as `shm`, and the sync system
//! call (`fdatasync` as Android builds SQLite, or `fsync` on request) recorded and shown.

mod common;

use common::{uint, words, Sandbox};

#[test]
fn wal_checkpoint_at_close_and_shm_maps_at_open_are_reported() {
    let sb = Sandbox::new();
    let s = sb.run_json(&words(
        "--workload ycsb-a --records 50 --ops 40 --delay zero --no-overhead -o journal_mode=wal",
    ));
    // In WAL mode the operations write only the WAL; the database file gets its pages when
    // the closing connection checkpoints.
    assert_eq!(uint(&s, "/io/main/writes"), 0, "{:#}", s["io"]);
    assert!(uint(&s, "/io/wal/writes") > 0);
    assert!(
        uint(&s, "/io_phases/close/io/main/writes") > 0,
        "{:#}",
        s["io_phases"]
    );
    assert!(uint(&s, "/io_phases/close/io/main/syncs") >= 1);
    assert!(
        uint(&s, "/io_phases/open/io/shm/reads") + uint(&s, "/io_phases/open/io/shm/writes") >= 1
    );
    assert_eq!(s["engine"]["options"]["sync_call"], "fdatasync");
}

#[test]
fn delete_mode_directory_syncs_are_their_own_class_and_the_sync_call_is_shown() {
    let sb = Sandbox::new();
    let s = sb.run_json(&words(
        "--workload ycsb-a --records 50 --ops 40 --delay zero --no-overhead -o sync_call=fsync",
    ));
    let updates = uint(&s, "/latency_us/update/count");
    assert!(updates > 0);
    // One directory sync per transaction (the new journal's), two journal syncs, one main.
    assert_eq!(uint(&s, "/io/dir/syncs"), updates, "{:#}", s["io"]);
    assert_eq!(uint(&s, "/io/journal/syncs"), 2 * updates);
    assert_eq!(uint(&s, "/io/main/syncs"), updates);
    assert_eq!(s["engine"]["options"]["sync_call"], "fsync");
    let text = sb.pb([
        "results",
        "show",
        &s["id"].to_string(),
        "--results",
        common::arg(&sb.results()),
    ]);
    let out = text.expect_ok().stdout;
    assert!(out.contains("syncs call fsync"), "{out}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("dir ")),
        "{out}"
    );
}
