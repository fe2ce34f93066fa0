//! The terminal rendering of a durability run: one row per configuration with its speed beside
//! its safety (crash points, the crash states tried at them, and per class the states that
//! found it), then each configuration's first finding and first ordering violation with the
//! flags that replay them (and, for a replay, everything the crash point found).

use super::DurabilityRun;
use crate::output::units::ns;
use std::fmt::Write as _;

/// The table: one row per configuration, speed beside safety; then the first finding of each.
pub fn render(run: &DurabilityRun) -> String {
    let reports = &run.configurations;
    let mut o = String::new();
    let stored = if run.id > 0 {
        format!(" (stored as #{})", run.id)
    } else {
        String::new()
    };
    let _ = match &run.trace {
        Some(t) => writeln!(
            o,
            "durability: {}, the first {} operations of workload {t}, seed {}{stored}",
            run.engine, run.txns, run.seed
        ),
        None => writeln!(
            o,
            "durability: {}, {} transactions of {} rows ({}), seed {}{stored}",
            run.engine,
            run.txns,
            run.rows_per_txn,
            run.workload.name(),
            run.seed
        ),
    };
    if let Some(r) = reports.first() {
        let _ = writeln!(o, "model: {}", r.model);
    }
    let named = super::ConfigReport::label;
    // Every column as wide as its widest cell, two spaces apart, so figures never run
    // together.
    let header = [
        "configuration",
        "txns/s",
        "events",
        "points",
        "states",
        "states losing",
        "lost (max)",
        "integrity",
        "atomicity",
        "ordering",
        "recovery p50 / max",
    ];
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            vec![
                named(r),
                r.txns_per_s.map_or("-".into(), |t| format!("{t:.0}")),
                r.events.to_string(),
                // Runs stored before points were counted apart: unknown.
                if r.points > 0 {
                    r.points.to_string()
                } else {
                    "-".into()
                },
                r.crashes.to_string(),
                r.crashes_losing_commits.to_string(),
                format!("{} ({})", r.acknowledged_lost, r.most_lost_at_once),
                r.integrity_failures.to_string(),
                r.atomicity_violations.to_string(),
                r.ordering_violations.to_string(),
                format!("{} / {}", ns(r.recovery_p50_ns), ns(r.recovery_max_ns)),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (c, cell) in cells.iter().enumerate() {
            let w = widths[c];
            match c {
                0 => l.push_str(&format!("{cell:<w$}")),
                10 => l.push_str(&format!("  {cell}")),
                _ => l.push_str(&format!("  {cell:>w$}")),
            }
        }
        l
    };
    let _ = writeln!(o, "\n{}", line(header.to_vec()));
    for r in &rows {
        let _ = writeln!(o, "{}", line(r.iter().map(String::as_str).collect()));
    }
    let findings: Vec<String> = reports
        .iter()
        .filter_map(|r| {
            let f = r.first_finding.as_ref()?;
            Some(format!("  {}: {f}", named(r)))
        })
        .collect();
    if findings.is_empty() {
        let _ = writeln!(
            o,
            "\nno configuration lost an acknowledged commit or its integrity"
        );
    } else {
        let _ = writeln!(o, "\nfirst finding per configuration:");
        for f in findings {
            let _ = writeln!(o, "{f}");
        }
    }
    let ordering: Vec<String> = reports
        .iter()
        .filter_map(|r| Some(format!("  {}: {}", named(r), r.first_ordering.as_ref()?)))
        .collect();
    if !ordering.is_empty() {
        let _ = writeln!(
            o,
            "\nordering violations (a commit present while an earlier acknowledged one is missing), the first per configuration:"
        );
        for f in ordering {
            let _ = writeln!(o, "{f}");
        }
    }
    if let Some(point) = run.replay {
        for r in reports {
            for p in &r.findings {
                let _ = writeln!(
                    o,
                    "\ncrash point {point} of {} (a replay: not stored):\n{}",
                    named(r),
                    serde_json::to_string_pretty(p).unwrap_or_default()
                );
            }
        }
    }
    o
}

impl super::ConfigReport {
    /// The configuration as `key=value` pairs; an engine without sync options (objectbox)
    /// runs one configuration, its own: "library defaults".
    pub fn label(&self) -> String {
        if self.config.is_empty() {
            return "library defaults".to_string();
        }
        self.config
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durability::{ConfigReport, Workload};

    /// Large figures stay apart: 92 states losing commits beside 13 985 commits lost; the
    /// ordering violations get a column and their first, with its replay, a line.
    #[test]
    fn large_figures_do_not_run_together() {
        let c = ConfigReport {
            engine: "sqlite".into(),
            config: vec![("synchronous".into(), "off".into())],
            model: "m".into(),
            events: 123_456,
            points: 25_000,
            crashes: 100_000,
            crashes_losing_commits: 92,
            acknowledged_lost: 13_985,
            most_lost_at_once: 10_000,
            integrity_failures: 100_000,
            atomicity_violations: 0,
            ordering_violations: 7,
            recovery_p50_ns: 0,
            recovery_max_ns: 0,
            txns_per_s: Some(123_456_789.0),
            first_finding: None,
            first_ordering: Some(
                "transaction 2 (acknowledged) is missing (replay: --replay-crash 1:9)".into(),
            ),
            findings: vec![],
        };
        let run = DurabilityRun {
            id: 0,
            created_at: String::new(),
            tool_version: String::new(),
            engine: "sqlite".into(),
            txns: 1,
            rows_per_txn: 1,
            workload: Workload::Append,
            trace: None,
            seed: 1,
            torn: false,
            replay: None,
            configurations: vec![c],
        };
        let text = render(&run);
        let row = text
            .lines()
            .find(|l| l.starts_with("synchronous=off"))
            .unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cells[..11],
            [
                "synchronous=off",
                "123456789",
                "123456",
                "25000",
                "100000",
                "92",
                "13985",
                "(10000)",
                "100000",
                "0",
                "7"
            ]
        );
        let header = text
            .lines()
            .find(|l| l.starts_with("configuration"))
            .unwrap();
        assert!(
            header.contains("  points  states  states losing  "),
            "{header}"
        );
        assert!(text.contains(
            "the first per configuration:\n  synchronous=off: transaction 2 (acknowledged) is missing (replay: --replay-crash 1:9)\n"
        ), "{text}");
    }
}
