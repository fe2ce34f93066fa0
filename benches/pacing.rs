//! Pacing: how close `pocketbench run`'s sleeps come to their deadlines, beside a bare loop of
//! absolute-deadline `clock_nanosleep` calls asking for the same delays (same model, same seed),
//! measured in this process, interleaved round by round so load on the machine hits both.
//! For each delay model it prints the sleep overshoot p99 of each side (median of the rounds)
//! and the median of the per-round ratios. The bare loop lowers its timer slack to 1 ns, as
//! the replay does, so the comparison is with the best a program can get from the kernel.
//!
//! Run: `cargo bench --bench pacing [-- OPS ROUNDS]` (defaults 1000 5).

#[path = "common/mod.rs"]
mod common;

use pocketbench::platform::clock::{mono_ns, set_timer_slack};
use pocketbench::workload::delay::DelayModel;
use std::process::Command;

const MODELS: [&str; 2] = ["fixed:1ms", "lognormal:6.67ms"];

fn main() {
    let args: Vec<u64> = common::numbers();
    let ops = args.first().copied().unwrap_or(1_000);
    let rounds = args.get(1).copied().unwrap_or(5);
    let dir = tempfile::tempdir().expect("temp dir");
    println!("sleep overshoot p99 (µs), {ops} delays per round, {rounds} rounds (median)");
    for model in MODELS {
        let (mut run, mut bare, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let r = run_p99_us(model, ops, &dir.path().join(format!("r{round}.db")));
            let b = bare_p99_us(model, ops);
            run.push(r);
            bare.push(b);
            ratios.push(r / b);
        }
        println!(
            "  {model:<18} pocketbench run {:>9.1}   bare clock_nanosleep {:>9.1}   ratio {:.3}   rounds {:?}",
            common::median(run),
            common::median(bare),
            common::median(ratios.clone()),
            ratios
                .iter()
                .map(|r| (r * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>()
        );
    }
}

/// `pocketbench run` on SQLite with `--delay MODEL`: the overshoot p99 it reports.
fn run_p99_us(model: &str, ops: u64, results: &std::path::Path) -> f64 {
    let out = Command::new(env!("CARGO_BIN_EXE_pocketbench"))
        .args(["run", "--records", "100", "--ops", &ops.to_string()])
        .args([
            "--delay",
            model,
            "--seed",
            "1",
            "--no-overhead",
            "--json",
            "--quiet",
        ])
        .arg("--results")
        .arg(results)
        .output()
        .expect("pocketbench run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("run --json");
    v["sleep_overshoot_us"]["p99"].as_f64().expect("p99")
}

/// The bare loop: the same delays slept with `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`
/// from the moment the previous sleep ended; overshoot = wake-up time − deadline.
fn bare_p99_us(model: &str, ops: u64) -> f64 {
    let mut delays = DelayModel::parse(model).unwrap().sampler(1).unwrap();
    let over = std::thread::spawn(move || {
        set_timer_slack(1);
        let mut over = Vec::with_capacity(ops as usize);
        // The run sleeps after every operation but the last.
        for i in 0..ops.saturating_sub(1) {
            let deadline = mono_ns() + delays.next(i);
            let ts = libc::timespec {
                tv_sec: (deadline / 1_000_000_000) as libc::time_t,
                tv_nsec: (deadline % 1_000_000_000) as libc::c_long,
            };
            // SAFETY: a valid timespec; no remaining-time pointer with TIMER_ABSTIME.
            while unsafe {
                libc::clock_nanosleep(
                    libc::CLOCK_MONOTONIC,
                    libc::TIMER_ABSTIME,
                    &ts,
                    std::ptr::null_mut(),
                )
            } == libc::EINTR
            {}
            over.push(mono_ns().saturating_sub(deadline) as f64 / 1e3);
        }
        over
    })
    .join()
    .expect("bare loop");
    let mut h = hdrhistogram::Histogram::<u64>::new(3).expect("histogram");
    for us in over {
        h.record((us * 1e3) as u64).expect("record");
    }
    h.value_at_quantile(0.99) as f64 / 1e3
}
