//! Terminal rendering of a storage run: file I/O table (MiB/s and IOPS with their spread), the
//! SQLite transaction suites (TPS), and the calibration table.

use super::{Stat, StorageRun};
use std::fmt::Write as _;

fn spread(s: &Stat) -> String {
    format!(
        "{:.1} (min {:.1}, max {:.1}, cv {:.1}%)",
        s.mean,
        s.min,
        s.max,
        s.cv * 100.0
    )
}

fn size(b: u64) -> String {
    match b {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}M", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}K", b >> 10),
        b => format!("{b}"),
    }
}

pub fn render(r: &StorageRun) -> String {
    let mut o = String::new();
    let s = &r.settings;
    let _ = writeln!(
        o,
        "{} — storage on {} ({})",
        r.tool_version,
        s.dir.display(),
        r.file_system
    );
    let _ = writeln!(
        o,
        "runs       {} per test, mean with min/max and coefficient of variation",
        s.runs
    );
    if !r.files.is_empty() {
        let _ = writeln!(o, "\nfile I/O   test        mode       thr   file   call         MiB/s                                  IOPS");
        for f in &r.files {
            let t = &f.test;
            let _ = writeln!(
                o,
                "           {:<11} {:<10} {:>3} {:>6} {:>6}   {:<38} {:.0}",
                t.pattern.name(),
                t.mode.name(),
                t.threads,
                size(t.file_size),
                size(t.io_size),
                spread(&f.mib_s),
                f.iops.mean
            );
        }
        let mut methods: Vec<(&str, &str)> = r
            .files
            .iter()
            .map(|f| (f.test.mode.name(), f.method.as_str()))
            .collect();
        methods.sort_unstable();
        methods.dedup();
        for (mode, m) in methods {
            let _ = writeln!(o, "           {mode}: {m}");
        }
    }
    if !r.sqlite.is_empty() {
        let _ = writeln!(
            o,
            "\nSQLite {}  journal_mode {}, synchronous {}, {} transactions per phase",
            r.sqlite_version, s.tx.journal_mode, s.tx.synchronous, s.tx.txns
        );
        for t in &r.sqlite {
            let _ = writeln!(
                o,
                "           {:<11} {:<7} TPS {}",
                t.suite,
                t.phase,
                spread(&t.tps)
            );
        }
    }
    if let Some(c) = &r.calibration {
        let _ = writeln!(
            o,
            "\ncalibration (one run each)        raw device   file system        SQLite"
        );
        let v = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{x:.1}"));
        for row in &c.rows {
            let _ = writeln!(
                o,
                "           {:<22} {:>13} {:>13} {:>13}",
                row.metric,
                v(row.raw_device),
                v(row.file_system),
                v(row.sqlite)
            );
        }
        let _ = writeln!(
            o,
            "           raw device {}: {}",
            c.device.as_deref().unwrap_or("(none found)"),
            c.raw_device
        );
        let _ = writeln!(o, "           file system: {}", c.file_system_method);
        if !c.sqlite_method.is_empty() {
            let _ = writeln!(o, "           SQLite: {}", c.sqlite_method);
        }
    }
    if r.id > 0 {
        let _ = writeln!(o, "stored     storage run #{}", r.id);
    }
    o
}
