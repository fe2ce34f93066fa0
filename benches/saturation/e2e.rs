//! The end-to-end mode: what a user sees. The `pocketbench` binary runs `run --delay zero`
//! (cold: load, evict, replay in a fresh process; and `--warm`: replay in the loading
//! process), each keeping its working directory, and the bare C loop then reads the same
//! keys in the same order from the database that run loaded: once after evicting it from
//! the page cache (beside the cold run, which replays after the same eviction) and once with
//! it cached (beside the warm run). Rounds interleave them so drift on the machine hits all
//! of them; the ratios are per round.

use super::{bare_rate, key_texts, rounded};
use pocketbench::engine;
use std::path::Path;
use std::process::Command;

/// Run the end-to-end comparison for each record count.
pub fn main(ops: u64, records: &[u64], rounds: u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    println!(
        "end to end: `pocketbench run --delay zero` beside the bare C loop, ycsb-c, {ops} reads, {rounds} rounds (median of per-round ratios)"
    );
    for &n in records {
        let (mut cold, mut warm) = (Vec::new(), Vec::new());
        let (mut bare_evicted, mut bare) = (Vec::new(), Vec::new());
        let (mut cold_ratio, mut warm_ratio) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let work = dir.path().join(format!("{n}-{round}"));
            let c = run_rate(&work.join("cold"), n, ops, false);
            let w = run_rate(&work.join("warm"), n, ops, true);
            let keys = key_texts(&work.join("cold").join("workload.pbt"));
            let db = work.join("cold").join("db").join(engine::sqlite::DB_FILE);
            // Each side starts as the run it is set beside: a cold run replays after the
            // database was evicted from the page cache, so the loop it is compared with does
            // too; a warm run replays with the pages cached, and so does the second loop.
            pocketbench::platform::cache::evict_file(&db).expect("evict the database");
            let b_cold = bare_rate(&db, &keys);
            let b = bare_rate(&db, &keys);
            cold_ratio.push(c / b_cold);
            warm_ratio.push(w / b);
            cold.push(c);
            warm.push(w);
            bare_evicted.push(b_cold);
            bare.push(b);
            let _ = std::fs::remove_dir_all(&work);
        }
        println!("  {n} records");
        for (name, rates, ratios) in [
            ("run (cold)", &cold, Some(&cold_ratio)),
            ("run --warm", &warm, Some(&warm_ratio)),
            ("bare C loop, evicted", &bare_evicted, None),
            ("bare C loop, cached", &bare, None),
        ] {
            let ratio = ratios.map_or(String::from("1.000"), |r| {
                format!("{:.3}", super::common::median(r.clone()))
            });
            println!(
                "    {name:<20} {:>10.0} ops/s  ratio {ratio}  rounds {:?}{}",
                super::common::median(rates.clone()),
                rounded(rates),
                ratios.map_or(String::new(), |r| format!(
                    "  ratios {:?}",
                    r.iter()
                        .map(|x| (x * 1000.0).round() / 1000.0)
                        .collect::<Vec<_>>()
                ))
            );
        }
    }
}

/// `pocketbench run --delay zero` into `work`: the throughput it prints.
fn run_rate(work: &Path, records: u64, ops: u64, warm: bool) -> f64 {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pocketbench"));
    cmd.args([
        "run",
        "--records",
        &records.to_string(),
        "--ops",
        &ops.to_string(),
    ])
    .args([
        "--delay",
        "zero",
        "--seed",
        "1",
        "--no-overhead",
        "--json",
        "--quiet",
    ])
    .arg("--dir")
    .arg(work)
    .arg("--results")
    .arg(work.with_extension("db"));
    if warm {
        cmd.arg("--warm");
    }
    let out = cmd.output().expect("pocketbench run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("run --json");
    v["throughput_ops_per_s"].as_f64().expect("throughput")
}
