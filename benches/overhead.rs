//! Harness overhead and the physical limit: saturated SQLite point reads through pocketbench's
//! real replay path (trace decode, materialise, pacer, clocks, VFS shim, spool) beside a minimal
//! loop over the same prepared statement written directly against the SQLite C API (default
//! VFS, no clocks), on the same database file and the same key sequence, in this process.
//!
//! Run: `cargo bench --bench overhead [-- OPS RECORDS ROUNDS]` (defaults 200000 1000 5).

mod common;

use pocketbench::engine;
use pocketbench::run::child::{replay_with, ReplaySpec};
use pocketbench::run::load::load;
use pocketbench::run::overhead;
use pocketbench::run::pacer::Pacing;
use pocketbench::workload::delay::DelayModel;
use pocketbench::workload::op::Op;
use pocketbench::workload::trace::{self, TraceItem, TraceReader};
use pocketbench::workload::{resolve, Overrides};
use rusqlite::ffi;
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<u64> = common::numbers();
    let ops = args.first().copied().unwrap_or(200_000);
    let records = args.get(1).copied().unwrap_or(1_000);
    let rounds = args.get(2).copied().unwrap_or(5);
    let dir = tempfile::tempdir().expect("temp dir");
    let trace_path = dir.path().join("reads.pbt");
    let db_dir = dir.path().join("db");
    std::fs::create_dir_all(&db_dir).expect("db dir");

    let overrides = Overrides {
        records: Some(records),
        ops: Some(ops),
        ..Overrides::default()
    };
    let workload = resolve::resolve("ycsb-c", &overrides, 1).expect("workload");
    trace::generate(workload, &DelayModel::Zero, 1, &trace_path).expect("trace");
    let mut engine = engine::open("sqlite", &[], &db_dir).expect("sqlite");
    load(
        engine.as_mut(),
        &mut TraceReader::open(&trace_path).expect("trace"),
    )
    .expect("load");
    drop(engine);
    let keys = key_texts(&trace_path);

    println!("saturated point reads, ycsb-c, {records} records, {ops} reads per round, {rounds} rounds (median)");
    let mut harness = Vec::new();
    let mut bare = Vec::new();
    let mut null = Vec::new();
    for round in 0..rounds {
        harness.push(harness_rate(&trace_path, &db_dir, dir.path(), round));
        bare.push(bare_rate(&db_dir.join(engine::sqlite::DB_FILE), &keys));
        null.push(overhead::measure(&trace_path).expect("null replay"));
    }
    let h = common::median(harness.clone());
    let b = common::median(bare.clone());
    println!(
        "  pocketbench replay (sqlite)   {:>12.0} ops/s   rounds {:?}",
        h,
        rounded(&harness)
    );
    println!(
        "  bare C-API loop               {:>12.0} ops/s   rounds {:?}",
        b,
        rounded(&bare)
    );
    println!("  harness / bare                {:>12.1} %", 100.0 * h / b);
    let lat = common::median(null.iter().map(|o| o.latency_ns_per_op).collect());
    let lp = common::median(null.iter().map(|o| o.loop_ns_per_op).collect());
    println!("  null engine: {lat:.0} ns/op inside the timed window, {lp:.0} ns/op whole loop");
}

/// The production replay path, in this process (warm), samples spooled to a file.
fn harness_rate(trace_path: &Path, db_dir: &Path, work: &Path, round: u64) -> f64 {
    let spec = ReplaySpec {
        trace: trace_path.to_path_buf(),
        data_dir: db_dir.to_path_buf(),
        engine: "sqlite".into(),
        options: vec![],
        pacing: Pacing::Think,
        delay: Some("zero".into()),
        seed: 1,
        spool: work.join(format!("spool-{round}")),
        report: work.join(format!("report-{round}.json")),
        observe: Default::default(),
        flash_trace: None,
    };
    let mut engine = engine::open("sqlite", &[], db_dir).expect("sqlite");
    let mut reader = TraceReader::open(trace_path).expect("trace");
    engine
        .create_schema(&reader.header().workload.model.clone())
        .expect("schema");
    let r = replay_with(engine.as_mut(), &mut reader, &spec, 0, 0).expect("replay");
    let _ = std::fs::remove_file(&spec.spool);
    r.ops as f64 * 1e9 / (r.run_end_ns - r.run_start_ns) as f64
}

/// Key text of every run-phase read, materialised up front (the bare loop does no key work).
fn key_texts(trace_path: &Path) -> Vec<Vec<u8>> {
    let mut reader = TraceReader::open(trace_path).expect("trace");
    let pocketbench::workload::model::DataModel::KeyValue(model) =
        reader.header().workload.model.clone()
    else {
        panic!("ycsb-c is key-value")
    };
    let mut keys = Vec::new();
    while let Some(item) = reader.next_item().expect("trace") {
        if let TraceItem::Run(t) = item {
            if let Op::Read { key } = t.op {
                let mut k = Vec::new();
                model.key_text(key, &mut k);
                keys.push(k);
            }
        }
    }
    keys
}

/// sqlite3_open_v2 on the default VFS, one prepared SELECT, bind/step/read columns/reset.
fn bare_rate(db: &Path, keys: &[Vec<u8>]) -> f64 {
    let path = std::ffi::CString::new(db.to_string_lossy().as_bytes()).expect("path");
    let sql = "SELECT * FROM usertable WHERE YCSB_KEY = ?";
    // SAFETY: straightforward C API use; every pointer comes from SQLite itself.
    unsafe {
        let mut conn = std::ptr::null_mut();
        assert_eq!(
            ffi::sqlite3_open_v2(
                path.as_ptr(),
                &mut conn,
                ffi::SQLITE_OPEN_READWRITE,
                std::ptr::null()
            ),
            0
        );
        let mut stmt = std::ptr::null_mut();
        assert_eq!(
            ffi::sqlite3_prepare_v2(
                conn,
                sql.as_ptr().cast(),
                sql.len() as i32,
                &mut stmt,
                std::ptr::null_mut()
            ),
            0
        );
        let start = Instant::now();
        let mut sink = 0usize;
        for k in keys {
            ffi::sqlite3_bind_text(
                stmt,
                1,
                k.as_ptr().cast(),
                k.len() as i32,
                ffi::SQLITE_TRANSIENT(),
            );
            while ffi::sqlite3_step(stmt) == ffi::SQLITE_ROW {
                for c in 0..ffi::sqlite3_column_count(stmt) {
                    let p = ffi::sqlite3_column_blob(stmt, c);
                    sink =
                        sink.wrapping_add(ffi::sqlite3_column_bytes(stmt, c) as usize + p as usize);
                }
            }
            ffi::sqlite3_reset(stmt);
        }
        let secs = start.elapsed().as_secs_f64();
        std::hint::black_box(sink);
        ffi::sqlite3_finalize(stmt);
        ffi::sqlite3_close(conn);
        keys.len() as f64 / secs
    }
}

fn rounded(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| *x as u64).collect()
}
