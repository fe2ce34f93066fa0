//! Flash-model throughput: how many I/O trace records per second the model applies, so that
//! modelling never dominates a run. The trace is synthetic but shaped like SQLite's (rollback
//! journal writes, 4 KiB database page writes and reads at uniformly random pages of an 8 MiB
//! database, a sync after every transaction, journal deletes), on the default aged `slc-2k`
//! device, so garbage collection runs throughout.
//!
//! Run: `cargo bench --bench flash_model [-- RECORDS ROUNDS]` (defaults 5000000 5).

mod common;

use pocketbench::engine::io::trace::{IoOp, IoRecord};
use pocketbench::engine::io::FileKind;
use pocketbench::flash::config::ModelConfig;
use pocketbench::flash::device::Device;
use pocketbench::workload::rng::Rng;
use std::time::Instant;

fn trace(n: usize) -> Vec<IoRecord> {
    let mut rng = Rng::new(42);
    let mut v = Vec::with_capacity(n);
    let rec = IoRecord::untimed;
    let db_pages = 2048u64; // 8 MiB of 4 KiB pages
                            // `count` database page I/Os of kind `op` at uniformly random pages.
    let mut pages = |v: &mut Vec<IoRecord>, op, count| {
        for _ in 0..count {
            v.push(rec(FileKind::Main, op, rng.below(db_pages) * 4096, 4096));
        }
    };
    while v.len() < n {
        // One transaction: read 3 pages, journal 2 originals, write 2 pages, sync, delete.
        pages(&mut v, IoOp::Read, 3);
        v.push(rec(FileKind::Journal, IoOp::Write, 0, 512));
        for j in 0..2u64 {
            v.push(rec(FileKind::Journal, IoOp::Write, 512 + j * 4100, 4100));
        }
        v.push(rec(FileKind::Journal, IoOp::Sync, 0, 0));
        pages(&mut v, IoOp::Write, 2);
        v.push(rec(FileKind::Main, IoOp::Sync, 0, 0));
        v.push(rec(FileKind::Journal, IoOp::Delete, 0, 0));
    }
    v.truncate(n);
    v
}

fn main() {
    let args: Vec<usize> = common::numbers();
    let n = args.first().copied().unwrap_or(5_000_000);
    let rounds = args.get(1).copied().unwrap_or(5);
    let cfg = ModelConfig::preset("slc-2k").expect("preset");
    let records = trace(n);
    let base = Device::new(&cfg);
    println!(
        "flash model: {n} SQLite-shaped records per round on {}",
        cfg.describe()
    );
    let mut rates = Vec::new();
    for _ in 0..rounds {
        let mut d = base.clone();
        let t = Instant::now();
        for r in &records {
            d.apply(r).expect("apply");
        }
        d.flush();
        let secs = t.elapsed().as_secs_f64();
        let c = d.counters();
        rates.push(n as f64 / secs);
        println!(
            "  {:>12.0} records/s  ({} host programs, {} GC copies, {} erases)",
            n as f64 / secs,
            c.host_programs,
            c.gc_programs,
            c.erases
        );
    }
    let median = common::median(rates);
    println!("  median {median:.0} records/s (target: at least 1 000 000)");
}
