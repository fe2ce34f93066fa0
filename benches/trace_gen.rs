//! Trace-generation rate: operations per second the YCSB generators produce (the workload
//! stream alone, and written as a trace file), for YCSB A, D and E at 500 records and E at as
//! many records as operations (its zipfian redraws reject most early draws over a key space
//! sized for the expected inserts, as YCSB's do).
//!
//! Run: `cargo bench --bench trace_gen [-- OPS ROUNDS]` (defaults 10000000 3).

mod common;

use pocketbench::workload::delay::DelayModel;
use pocketbench::workload::{resolve, trace, Overrides};
use std::time::Instant;

fn main() {
    let args: Vec<u64> = common::numbers();
    let n = args.first().copied().unwrap_or(10_000_000);
    let rounds = args.get(1).copied().unwrap_or(3) as usize;
    let dir = tempfile::tempdir().expect("temporary directory");
    println!("trace generation: {n} operations per round, median of {rounds} rounds");
    for (name, records) in [
        ("ycsb-a", 500),
        ("ycsb-d", 500),
        ("ycsb-e", 500),
        ("ycsb-e", n),
    ] {
        let o = Overrides {
            records: Some(records),
            ops: Some(n),
            ..Overrides::default()
        };
        let (mut stream, mut written) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let w = resolve::resolve(name, &o, 1).expect("workload");
            let t = Instant::now();
            let count = w.run.count() as f64;
            stream.push(count / t.elapsed().as_secs_f64());
            let w = resolve::resolve(name, &o, 1).expect("workload");
            let path = dir.path().join("bench.pbt");
            let t = Instant::now();
            let (totals, _) = trace::generate(w, &DelayModel::Zero, 1, &path).expect("trace");
            written.push((totals.load_ops + totals.run_ops) as f64 / t.elapsed().as_secs_f64());
        }
        println!(
            "  {name:<7} {records:>9} records: stream {:>6.2} M ops/s, trace file {:>6.2} M ops/s",
            common::median(stream) / 1e6,
            common::median(written) / 1e6
        );
    }
}
