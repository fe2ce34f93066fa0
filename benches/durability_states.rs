//! Crash states explored per minute by `durability` under a recorded power-loss model: a
//! recording of TXNS transactions (LMDB `sync=full`, and SQLite WAL `synchronous=full`) is
//! made once, then each crash state is rebuilt from it, written out and opened by the engine
//! in a process of its own. The rate is the difference between a run of 1 crash point and a
//! run of 1 + STATES, so the recording and the preparation are left out. One state at a time:
//! the figure is per core.
//!
//! Run: `cargo bench --bench durability_states [-- TXNS STATES]` (defaults 10000 300).

mod common;

use std::process::Command;
use std::time::Instant;

fn timed(engine: &str, config: &[&str], model: &str, txns: u64, crashes: u64) -> f64 {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pocketbench"));
    cmd.args([
        "durability",
        "--engine",
        engine,
        "--model",
        model,
        "--states",
        "1",
    ])
    .args(["--no-speed", "-q", "--json", "--txns", &txns.to_string()])
    .args(["--crashes", &crashes.to_string(), "--dir"])
    .arg(dir.path())
    .arg("--results")
    .arg(dir.path().join("r.db"));
    for c in config {
        cmd.args(["--config", c]);
    }
    let t = Instant::now();
    let out = cmd.output().expect("running pocketbench durability");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    t.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<u64> = common::numbers();
    let txns = args.first().copied().unwrap_or(10_000);
    let states = args.get(1).copied().unwrap_or(300);
    println!("durability crash states: recordings of {txns} transactions, {states} states each");
    println!(
        "{:<34}{:>14}{:>12}{:>16}",
        "engine, configuration", "model", "s / state", "states / min"
    );
    let cases: [(&str, &[&str]); 2] = [
        ("lmdb", &["sync=full"]),
        ("sqlite", &["journal_mode=wal", "synchronous=full"]),
    ];
    for (engine, config) in cases {
        for model in ["strict", "ext4-ordered"] {
            let base = timed(engine, config, model, txns, 1);
            let all = timed(engine, config, model, txns, 1 + states);
            let per = (all - base).max(1e-9) / states as f64;
            println!(
                "{:<34}{:>14}{:>12.4}{:>16.0}",
                format!("{engine} {}", config.join(" ")),
                model,
                per,
                60.0 / per
            );
        }
    }
}
