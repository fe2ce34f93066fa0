//! Crash states explored per minute by `durability` under a recorded power-loss model: a
//! recording of TXNS transactions (each native engine of the build at its safest setting:
//! LMDB `sync=full`, SQLite WAL `synchronous=full`, redb `durability=immediate`, and with
//! their features RocksDB, LevelDB and BerkeleyDB `sync=on`) is made once, then each crash state is rebuilt from it, written out and opened by the engine
//! in the configuration's checker process. The rate is the difference between a run of 1 crash point and a
//! run of 1 + STATES, so the recording and the preparation are left out. One state at a time,
//! so it is per core: shown both as wall-clock time and as the CPU time (user + system) of
//! pocketbench and every process it started, which a machine busy with other work does not
//! inflate.
//!
//! Run: `cargo bench --bench durability_states [-- TXNS STATES] [ENGINE…] [MODEL…]` (defaults
//! 10000 300, every engine above, the models `strict` and `ext4-ordered`); engine and model
//! names given choose among them.

mod common;

use std::process::Command;
use std::time::Instant;

/// CPU seconds (user + system) of the terminated, waited-for descendants so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

/// Wall-clock and CPU seconds of one `durability` run.
fn timed(engine: &str, config: &[&str], model: &str, txns: u64, crashes: u64) -> (f64, f64) {
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
    let (t, cpu) = (Instant::now(), children_cpu());
    let out = cmd.output().expect("running pocketbench durability");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (t.elapsed().as_secs_f64(), children_cpu() - cpu)
}

/// The first three fields of /proc/loadavg (the machine's load, which the CPU figures do not
/// depend on and the wall-clock ones do); "unknown" where there is none.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or("unknown".into(), |s| {
        s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    })
}

fn main() {
    let args: Vec<u64> = common::numbers();
    let txns = args.first().copied().unwrap_or(10_000);
    let states = args.get(1).copied().unwrap_or(300);
    println!("durability crash states: recordings of {txns} transactions, {states} states each");
    println!("load average at the start: {}", load_average());
    println!(
        "{:<42}  {:>12}  {:>10}  {:>13}  {:>10}  {:>13}",
        "engine, configuration", "model", "wall s/st", "wall st/min", "CPU s/st", "CPU st/min"
    );
    let mut cases: Vec<(&str, &[&str])> = vec![
        ("lmdb", &["sync=full"]),
        ("sqlite", &["journal_mode=wal", "synchronous=full"]),
        ("redb", &["durability=immediate"]),
    ];
    if cfg!(feature = "rocksdb") {
        cases.push(("rocksdb", &["sync=on"]));
    }
    if cfg!(feature = "leveldb") {
        cases.push(("leveldb", &["sync=on"]));
    }
    if cfg!(feature = "berkeleydb") {
        cases.push(("berkeleydb", &["sync=on"]));
    }
    let words: Vec<String> = std::env::args().skip(1).collect();
    let chosen = |name: &str, among: &[&str]| {
        let named: Vec<&String> = words
            .iter()
            .filter(|w| among.contains(&w.as_str()))
            .collect();
        named.is_empty() || named.iter().any(|w| *w == name)
    };
    let engines: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let models = ["strict", "ext4-ordered"];
    for (engine, config) in cases.iter().filter(|c| chosen(c.0, &engines)) {
        for model in models.into_iter().filter(|m| chosen(m, &models)) {
            let base = timed(engine, config, model, txns, 1);
            let all = timed(engine, config, model, txns, 1 + states);
            let wall = (all.0 - base.0).max(1e-9) / states as f64;
            let cpu = (all.1 - base.1).max(1e-9) / states as f64;
            println!(
                "{:<42}  {:>12}  {:>10.4}  {:>13.0}  {:>10.4}  {:>13.0}",
                format!("{engine} {}", config.join(" ")),
                model,
                wall,
                60.0 / wall,
                cpu,
                60.0 / cpu
            );
        }
    }
    println!("load average at the end: {}", load_average());
}
