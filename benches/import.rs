//! Import rate: log lines per second the `android-logcat` front end reads (the line loop, the
//! threadtime prefix, statement/time pairing, multi-line joins) from a generated logcat of
//! about MB megabytes (default 1024), on one core, and the process's peak resident memory
//! before and after (constant memory: the peak does not grow with the log).
//!
//! The log mixes what a real capture holds: statement lines with their `SQLiteTime` lines on
//! four threads, a statement split over two lines, and other apps' lines (skipped).
//!
//! Run: `cargo bench --bench import [-- MB]`.

mod common;

use pocketbench::workload::import::{source, LogRecord};
use std::io::{BufWriter, Write};
use std::time::Instant;

/// Peak resident set size of this process, in KiB (`VmHWM`), where the platform says.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let mb: u64 = common::numbers().first().copied().unwrap_or(1024);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("logcat.txt");
    let db = "/data/user/0/com.example.notes/databases/notes.db";
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
    let (mut bytes, mut lines, mut i) = (0u64, 0u64, 0u64);
    while bytes < mb << 20 {
        let tid = 4260 + i % 4;
        let us = i * 250;
        let stamp = |us: u64| {
            format!(
                "05-14 {:02}:{:02}:{:02}.{:06}",
                us / 3_600_000_000 % 24,
                us / 60_000_000 % 60,
                us / 1_000_000 % 60,
                us % 1_000_000
            )
        };
        let mut block = String::new();
        let t0 = stamp(us);
        let t1 = stamp(us + 120);
        if i % 16 == 0 {
            block += &format!("{t0}  4242  {tid} V SQLiteStatements: {db}: \"INSERT INTO notes(title, body) VALUES('n{i}', 'line one\n");
            block += &format!("{t0}  4242  {tid} V SQLiteStatements: line two')\"\n");
            block += &format!("{t1}  4242  {tid} V SQLiteTime: {db}: \"INSERT INTO notes(title, body) VALUES(?, ?)\" took 0.120 ms\n");
        } else {
            block += &format!("{t0}  4242  {tid} V SQLiteStatements: {db}: \"SELECT _id, title, body FROM notes WHERE _id = {i}\"\n");
            block += &format!("{t1}  4242  {tid} V SQLiteTime: {db}: \"SELECT _id, title, body FROM notes WHERE _id = ?\" took 0.120 ms\n");
        }
        block += &format!("{t1}  1000  1012 D ActivityManager: some other app's line number {i}\n");
        lines += block.matches('\n').count() as u64;
        bytes += block.len() as u64;
        w.write_all(block.as_bytes()).unwrap();
        i += 1;
    }
    w.flush().unwrap();
    drop(w);
    let rss_before = peak_rss_kib();
    let fe = source::choose(&path, "android-logcat").unwrap();
    let t = Instant::now();
    let mut statements = 0u64;
    let counts = source::read(&path, fe, &mut |r| {
        if let LogRecord::Statement(_) = r {
            statements += 1;
        }
        Ok(())
    })
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(counts.lines, lines);
    assert_eq!(statements, i);
    let kib =
        |v: Option<u64>| v.map_or("?".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
    println!(
        "import android-logcat: {} lines ({:.0} MiB, {} statements) in {:.2} s: {:.2} M lines/s, {:.0} MiB/s; peak RSS {} before, {} after",
        lines,
        bytes as f64 / 1048576.0,
        statements,
        secs,
        lines as f64 / secs / 1e6,
        bytes as f64 / 1048576.0 / secs,
        kib(rss_before),
        kib(peak_rss_kib())
    );
}
