//! Saturation: how close pocketbench's saturated runs come to the physical limit. Saturated
//! SQLite point reads (YCSB C, zero delay, warm) through pocketbench's real replay path (trace
//! decode, materialise, pacer, clocks, CPU accounting, VFS shim, spool) beside a bare C loop
//! over the same prepared statement (`bare_loop.c`: the SQLite C API of the same bundled
//! amalgamation, default VFS, no clocks), on the same database file and the same key sequence,
//! in this process, interleaved round by round so drift hits both; prints each side's median
//! and the median of the per-round ratios.
//!
//! Run: `cargo bench --bench saturation [-- OPS RECORDS ROUNDS]` (defaults 200000 500 5).
//!
//! `cargo bench --bench saturation -- e2e [OPS ROUNDS]` (defaults 100000 5) measures the whole
//! command instead (see [`e2e`]), at 500 and 10 000 records.

#[path = "../common/mod.rs"]
mod common;
mod e2e;

use pocketbench::engine;
use pocketbench::run::child::{replay_with, ReplaySpec};
use pocketbench::run::load::load;
use pocketbench::run::overhead;
use pocketbench::run::pacer::Pacing;
use pocketbench::workload::delay::DelayModel;
use pocketbench::workload::op::Op;
use pocketbench::workload::trace::{self, TraceItem, TraceReader};
use pocketbench::workload::{resolve, Overrides};
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<u64> = common::numbers();
    if std::env::args().any(|a| a == "e2e") {
        let ops = args.first().copied().unwrap_or(100_000);
        let rounds = args.get(1).copied().unwrap_or(5);
        return e2e::main(ops, &[500, 10_000], rounds);
    }
    let ops = args.first().copied().unwrap_or(200_000);
    let records = args.get(1).copied().unwrap_or(500);
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

    println!(
        "saturated point reads, ycsb-c, {records} records, {ops} reads per round, {rounds} rounds (median)"
    );
    let mut harness = Vec::new();
    let mut bare = Vec::new();
    let mut ratios = Vec::new();
    let mut null = Vec::new();
    for round in 0..rounds {
        let h = harness_rate(&trace_path, &db_dir, dir.path(), round);
        let b = bare_rate(&db_dir.join(engine::sqlite::DB_FILE), &keys);
        harness.push(h);
        bare.push(b);
        ratios.push(h / b);
        null.push(overhead::measure(&trace_path).expect("null replay"));
    }
    println!(
        "  pocketbench replay (sqlite)   {:>12.0} ops/s   rounds {:?}",
        common::median(harness.clone()),
        rounded(&harness)
    );
    println!(
        "  bare C loop                   {:>12.0} ops/s   rounds {:?}",
        common::median(bare.clone()),
        rounded(&bare)
    );
    println!(
        "  pocketbench / bare C          {:>12.3}      rounds {:?}",
        common::median(ratios.clone()),
        ratios
            .iter()
            .map(|r| (r * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>()
    );
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
        merge_connections: false,
        order: Default::default(),
        spool: work.join(format!("spool-{round}")),
        report: work.join(format!("report-{round}.json")),
        spill: vec![],
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

#[link(name = "pocketbench_bare_loop", kind = "static")]
extern "C" {
    fn pb_bare_loop(
        path: *const std::ffi::c_char,
        keys: *const u8,
        lens: *const i32,
        n: usize,
        sink: *mut usize,
    ) -> i32;
}

/// The bare C loop (`bare_loop.c`) over `keys`: reads per second.
fn bare_rate(db: &Path, keys: &[Vec<u8>]) -> f64 {
    let path = std::ffi::CString::new(db.to_string_lossy().as_bytes()).expect("path");
    let all: Vec<u8> = keys.concat();
    let lens: Vec<i32> = keys.iter().map(|k| k.len() as i32).collect();
    let mut sink = 0usize;
    let start = Instant::now();
    // SAFETY: the pointers and lengths describe live buffers for the whole call.
    let rc = unsafe {
        pb_bare_loop(
            path.as_ptr(),
            all.as_ptr(),
            lens.as_ptr(),
            keys.len(),
            &mut sink,
        )
    };
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(rc, 0, "bare loop: SQLite error {rc}");
    std::hint::black_box(sink);
    keys.len() as f64 / secs
}

fn rounded(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| *x as u64).collect()
}
