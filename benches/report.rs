//! How long `pocketbench report` takes over a results store holding one million per-operation
//! samples (the target is under 2 seconds for the HTML report).
//!
//! The store is made by the real binary: `pocketbench matrix` on a plan of 2 key distributions
//! × 2 engines (null, SQLite) × 3 repeats of saturated YCSB C, 1/12 of the samples per run.
//! Then the HTML report is written in this process through the library (the same call the
//! command makes) and by the binary end to end, ROUNDS times each; medians are printed.
//!
//! Run: `cargo bench --bench report [-- SAMPLES ROUNDS]` (defaults 1000000 5).

mod common;

use pocketbench::report::output::{self, Format, Request};
use pocketbench::results::store::Store;
use std::process::Command;
use std::time::Instant;

fn main() {
    let args: Vec<u64> = common::numbers();
    let samples = args.first().copied().unwrap_or(1_000_000);
    let rounds = args.get(1).copied().unwrap_or(5).max(1);
    let bin = env!("CARGO_BIN_EXE_pocketbench");
    let dir = tempfile::tempdir().expect("temp dir");
    let store_path = dir.path().join("million.db");
    let ops = samples.div_ceil(12);
    let plan = format!(
        "name = \"million\"\nrepeats = 3\n[run]\nworkload = \"ycsb-c\"\nrecords = 1000\nops = {ops}\ndelay = \"zero\"\nno-overhead = true\n[axes]\ndistribution = [\"uniform\", \"zipfian\"]\nengine = [\"null\", \"sqlite\"]\n"
    );
    let plan_path = dir.path().join("million.toml");
    std::fs::write(&plan_path, plan).expect("plan");
    let t = Instant::now();
    let status = Command::new(bin)
        .args(["matrix", "--quiet"])
        .arg(&plan_path)
        .arg("--results")
        .arg(&store_path)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("pocketbench matrix");
    assert!(status.success(), "matrix failed");
    let store = Store::open(&store_path).expect("store");
    let stored: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM op_samples", [], |r| r.get(0))
        .expect("count");
    let runs: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .expect("count");
    let size = std::fs::metadata(&store_path).map(|m| m.len()).unwrap_or(0);
    println!(
        "results store: {runs} runs, {stored} per-operation samples, {:.1} MiB (made in {:.1} s)",
        size as f64 / 1048576.0,
        t.elapsed().as_secs_f64()
    );

    let html = dir.path().join("report.html");
    let mut library = Vec::new();
    let mut binary = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        output::write(&Request {
            store: &store,
            filter: None,
            format: Format::Html,
            output: &html,
            level: 0.90,
            trace: None,
        })
        .expect("report");
        library.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let status = Command::new(bin)
            .arg("report")
            .arg("--results")
            .arg(&store_path)
            .arg("-o")
            .arg(&html)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("pocketbench report");
        assert!(status.success(), "report failed");
        binary.push(t.elapsed().as_secs_f64());
    }
    let bytes = std::fs::metadata(&html).map(|m| m.len()).unwrap_or(0);
    let (lib, exe) = (common::median(library), common::median(binary));
    println!(
        "HTML report ({:.0} KiB): library {lib:.3} s, `pocketbench report` end to end {exe:.3} s (median of {rounds}); target < 2 s: {}",
        bytes as f64 / 1024.0,
        if exe < 2.0 { "met" } else { "MISSED" }
    );
}
