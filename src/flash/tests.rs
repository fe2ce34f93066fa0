//! Hand-checked traces through the FTL and the device: program, copy and erase counts worked
//! out on paper (the comments follow each step), the write buffer, read-modify-write, trims,
//! the trace file format, and capture from a real SQLite connection.

use super::config::{ModelConfig, VictimPolicy};
use super::counters::FlashCounters;
use super::device::Device;
use super::ftl::Ftl;
use crate::engine::io::trace::{self, IoOp, IoRecord, TraceInfo, TraceWriter};
use crate::engine::io::FileKind;

/// 8 logical pages, 4 blocks of 4 pages (two spare blocks), GC when no block is free.
fn tiny(gc: VictimPolicy) -> Ftl {
    Ftl::with_geometry(8, 4, 4, gc, 1)
}

fn writes(f: &mut Ftl, lpns: &[u32]) {
    for &l in lpns {
        f.write(l);
    }
}

#[test]
fn greedy_gc_copies_the_emptiest_block_and_erases_it() {
    let mut f = tiny(VictimPolicy::Greedy);
    // Fill: B0 = 0..3, B1 = 4..7 (free: B2, B3).
    writes(&mut f, &[0, 1, 2, 3, 4, 5, 6, 7]);
    // 0,1,2 → B2 (B0 keeps only 3); 4 → B2 (B1: 5,6,7).
    writes(&mut f, &[0, 1, 2, 4]);
    assert_eq!((f.counters.host_programs, f.counters.erases), (12, 0));
    // 5: B2 full, B3 opened, no free block left → GC: greedy victim B0 (1 valid page: 3),
    // copy 3 → B3, erase B0; then 5 → B3.
    f.write(5);
    let c = f.counters;
    assert_eq!(
        (c.host_programs, c.gc_reads, c.gc_programs, c.erases),
        (13, 1, 1, 1)
    );
    // 6, 7 → B3 (B1 now holds nothing valid). 0: B3 full, B0 (erased once) opened → GC:
    // victim B1 with 0 valid pages: erased without copies.
    writes(&mut f, &[6, 7, 0]);
    let c = f.counters;
    assert_eq!((c.host_programs, c.gc_programs, c.erases), (16, 1, 2));
    assert_eq!(f.erase_counts(), vec![1, 1, 0, 0]);
    // flash time: 17 programs × 300 µs + 1 GC read × 25 µs + 2 erases × 500 µs.
    assert_eq!(c.flash_ns, 17 * 300_000 + 25_000 + 2 * 500_000);
}

#[test]
fn fifo_and_greedy_choose_different_victims() {
    let run = |gc| {
        let mut f = tiny(gc);
        writes(&mut f, &[0, 1, 2, 3, 4, 5, 6, 7]);
        // 4,5,6 → B2 (B1 keeps 7), 0 → B2 (B0 keeps 1,2,3).
        writes(&mut f, &[4, 5, 6, 0]);
        // 1 invalidates B0's copy (B0 keeps 2,3), B3 opened → GC.
        f.write(1);
        f.counters
    };
    // Greedy: B1 has 1 valid page (7) → 1 copy.
    let g = run(VictimPolicy::Greedy);
    assert_eq!((g.gc_programs, g.erases), (1, 1));
    // FIFO: B0 was closed first → copies 2 and 3.
    let q = run(VictimPolicy::Fifo);
    assert_eq!((q.gc_programs, q.erases), (2, 1));
    // Cost-benefit: B1 (u = 1/4, age 4) beats B0 (u = 1/2, age 8): 7.5 vs 4.5.
    let cb = run(VictimPolicy::CostBenefit);
    assert_eq!((cb.gc_programs, cb.erases), (1, 1));
}

#[test]
fn trims_make_pages_free_to_collect() {
    let mut f = tiny(VictimPolicy::Greedy);
    writes(&mut f, &[0, 1, 2, 3, 4, 5, 6, 7]);
    for l in 0..4 {
        f.trim(l);
    }
    assert_eq!(f.counters.trimmed_pages, 4);
    // B2, B3 take 8 more writes of 4..7 twice; every GC finds B0 empty first.
    writes(&mut f, &[4, 5, 6, 7, 4, 5, 6, 7]);
    assert_eq!(
        f.counters.gc_programs, 0,
        "trimmed and overwritten data needs no copies"
    );
    assert!(f.counters.erases >= 1);
}

/// slc-2k geometry, 1 MiB logical (512 pages, 12 blocks with 50% OP), fresh, 4-page buffer.
fn small_device(buffer: &str) -> Device {
    let pairs: Vec<(String, String)> = [
        ("capacity_mib", "1"),
        ("op", "0.5"),
        ("precondition", "fresh"),
        ("write_buffer", buffer),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    Device::new(&ModelConfig::build("slc-2k", &pairs, "test").unwrap())
}

fn apply(d: &mut Device, records: &[IoRecord]) -> FlashCounters {
    for r in records {
        d.apply(r).unwrap();
    }
    d.counters()
}

#[test]
fn write_buffer_read_modify_write_and_trims() {
    use FileKind::{Journal, Main};
    let mut d = small_device("4");
    let c = apply(
        &mut d,
        &[
            IoRecord::untimed(Main, IoOp::Write, 0, 4096), // pages 0, 1 whole, buffered
            IoRecord::untimed(Main, IoOp::Write, 4096, 1024), // half of page 2, buffered
            IoRecord::untimed(Main, IoOp::Read, 0, 2048),  // page 0 from the buffer: no flash read
            IoRecord::untimed(Main, IoOp::Sync, 0, 0), // 3 programs; page 2 had no old data to merge
        ],
    );
    assert_eq!((c.host_reads, c.rmw_reads, c.host_programs), (0, 0, 3));
    let c = apply(
        &mut d,
        &[
            IoRecord::untimed(Main, IoOp::Write, 5120, 1024), // other half of page 2: merge with flash copy
            IoRecord::untimed(Main, IoOp::Sync, 0, 0),
            IoRecord::untimed(Main, IoOp::Read, 0, 6144), // pages 0..2 from flash
            IoRecord::untimed(Journal, IoOp::Write, 0, 512),
            IoRecord::untimed(Journal, IoOp::Sync, 0, 0),
            IoRecord::untimed(Journal, IoOp::Delete, 0, 0), // trims the journal's page
            IoRecord::untimed(Main, IoOp::Truncate, 2048, 0), // trims pages 1 and 2
        ],
    );
    assert_eq!(
        (c.host_reads, c.rmw_reads, c.host_programs, c.trimmed_pages),
        (3, 1, 5, 3)
    );
    assert_eq!(
        (c.user_write_bytes, c.user_read_bytes, c.syncs),
        (6656, 8192, 3)
    );
    assert_eq!((c.gc_programs, c.erases), (0, 0));
    assert_eq!(c.flash_ns, 4 * 25_000 + 5 * 300_000);
    assert_eq!(d.file_pages(), 1);
}

#[test]
fn a_full_buffer_flushes_and_write_through_merges_every_partial_write() {
    let mut d = small_device("4");
    let five: Vec<IoRecord> = (0..5)
        .map(|p| IoRecord::untimed(FileKind::Main, IoOp::Write, p * 2048, 2048))
        .collect();
    assert_eq!(
        apply(&mut d, &five).host_programs,
        4,
        "the fifth write flushed four"
    );
    d.flush();
    assert_eq!(d.counters().host_programs, 5);

    let mut w = small_device("0");
    let half = IoRecord::untimed(FileKind::Main, IoOp::Write, 0, 1024);
    let c = apply(&mut w, &[half, half]);
    assert_eq!((c.host_programs, c.rmw_reads), (2, 1));
}

#[test]
fn aged_devices_collect_garbage_and_report_erases() {
    let cfg = ModelConfig::parse_spec("slc-2k,capacity_mib=8,fill=0.9,frag=2", "test").unwrap();
    let mut d = Device::new(&cfg);
    assert_eq!(
        d.counters(),
        FlashCounters::default(),
        "preconditioning is not counted"
    );
    assert!(d.erase_distribution().max > 0, "aging wore the blocks");
    // Rewrite 100 KiB of a small file ten times with syncs: GC must run.
    for _ in 0..10 {
        for p in 0..50 {
            d.apply(&IoRecord::untimed(
                FileKind::Main,
                IoOp::Write,
                p * 2048,
                2048,
            ))
            .unwrap();
        }
        d.apply(&IoRecord::untimed(FileKind::Main, IoOp::Sync, 0, 0))
            .unwrap();
    }
    let c = d.counters();
    assert_eq!(c.host_programs, 500);
    assert!(c.erases > 0 && c.gc_programs > 0, "{c:?}");
    let derived = c.derived(2048, 64, None);
    assert!(derived.write_amplification_gc.unwrap() > 1.0);
}

#[test]
fn a_full_device_is_reported() {
    let cfg =
        ModelConfig::parse_spec("slc-2k,capacity_mib=1,op=0.5,fill=0.99,frag=0", "test").unwrap();
    let mut d = Device::new(&cfg);
    let big = IoRecord::untimed(FileKind::Main, IoOp::Write, 0, 64 * 2048);
    let e = d.apply(&big).unwrap_err();
    assert!(e.contains("device is full"), "{e}");
}

#[test]
fn trace_files_round_trip_and_reject_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pbft");
    let records = vec![
        IoRecord::mark(trace::MARK_LOAD, 1_000),
        IoRecord {
            time_ns: 1_500,
            duration_ns: 30,
            kind: FileKind::Main,
            op: IoOp::Write,
            offset: 4096,
            len: 4096,
        },
        IoRecord {
            time_ns: 2_000,
            duration_ns: 9,
            kind: FileKind::Journal,
            op: IoOp::Truncate,
            offset: 512,
            len: 0,
        },
        IoRecord {
            time_ns: 2_100,
            duration_ns: 7,
            kind: FileKind::Wal,
            op: IoOp::Sync,
            offset: 0,
            len: 0,
        },
    ];
    let mut w = TraceWriter::create(&path, &TraceInfo::default()).unwrap();
    w.write(&records).unwrap();
    assert_eq!(w.finish().unwrap(), 4);
    let t = trace::read(&path).unwrap();
    assert_eq!(t.records, records);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 8] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let e = trace::read(&path).unwrap_err().to_string();
    assert!(e.contains("checksum mismatch"), "{e}");
}

#[test]
fn sqlite_io_is_captured_only_while_enabled() {
    use crate::engine::io::capture;
    let dir = tempfile::tempdir().unwrap();
    let mut engine = crate::engine::open("sqlite", &[], dir.path()).unwrap();
    engine.begin_load().unwrap();
    engine.end_load().unwrap();
    assert!(!capture::enabled());
    capture::start(None);
    let sql = crate::workload::op::Op::Sql {
        sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)".into(),
    };
    let req = crate::engine::Request {
        op: &sql,
        key: b"",
        values: &[],
        keep_read: true,
    };
    engine.execute(&req).unwrap();
    let records = capture::stop().unwrap();
    let has = |kind, op| records.iter().any(|r| r.kind == kind && r.op == op);
    assert!(has(FileKind::Main, IoOp::Write), "{records:?}");
    assert!(has(FileKind::Main, IoOp::Sync));
    assert!(
        has(FileKind::Journal, IoOp::Delete),
        "the rollback journal's delete is a trim"
    );
    engine.execute(&req).unwrap_err();
    assert!(capture::take().is_empty(), "nothing captured once stopped");
}

#[test]
fn records_beyond_the_device_are_refused_not_allocated() {
    // A checksummed trace whose write lies near 2^62: decoding accepts it (the file is whole),
    // replay refuses it by the device's capacity instead of growing a page map to 2^50 entries
    // or walking 2^50 pages.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("far.pbft");
    let far = IoRecord::untimed(FileKind::Main, IoOp::Write, 1 << 62, 1 << 40);
    let mut w = TraceWriter::create(&path, &TraceInfo::default()).unwrap();
    w.write(&[far]).unwrap();
    w.finish().unwrap();
    let t = trace::read(&path).unwrap();
    let cfg = crate::flash::config::ModelConfig::preset("slc-2k").unwrap();
    let e = crate::flash::replay(&cfg, &t.records, "--flash-model", |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("lies beyond the modelled device's 67108864 bytes"),
        "{e}"
    );
    // Offset plus length overflowing u64 is refused the same way.
    let wrap = IoRecord::untimed(FileKind::Main, IoOp::Read, u64::MAX, 2);
    assert!(crate::flash::replay(&cfg, &[wrap], "--flash-model", |_, _| {}).is_err());
}
