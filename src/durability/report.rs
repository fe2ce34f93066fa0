//! The terminal rendering of a durability run: one row per configuration with its speed beside
//! its safety, then each configuration's first finding with the flag that replays it (and,
//! for a replay, everything the crash point found).

use super::DurabilityRun;
use crate::output::units::ns;
use std::fmt::Write as _;

/// The table: one row per configuration, speed beside safety; then the first finding of each.
pub fn render(run: &DurabilityRun) -> String {
    let reports = &run.configurations;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "durability: {}, {} transactions of {} rows ({}), seed {}{}",
        run.engine,
        run.txns,
        run.rows_per_txn,
        run.workload.name(),
        run.seed,
        if run.id > 0 {
            format!(" (stored as #{})", run.id)
        } else {
            String::new()
        }
    );
    if let Some(r) = reports.first() {
        let _ = writeln!(o, "model: {}", r.model);
    }
    let named = |r: &super::ConfigReport| {
        r.config
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let width = reports
        .iter()
        .map(|r| named(r).len())
        .max()
        .unwrap_or(0)
        .max(13)
        + 2;
    let _ = writeln!(
        o,
        "\n{:<width$}{:>9}{:>8}{:>9}{:>8}{:>11}{:>11}{:>11}  recovery p50 / max",
        "configuration",
        "txns/s",
        "events",
        "crashes",
        "losing",
        "lost (max)",
        "integrity",
        "atomicity"
    );
    for r in reports {
        let _ = writeln!(
            o,
            "{:<width$}{:>9}{:>8}{:>9}{:>8}{:>11}{:>11}{:>11}  {} / {}",
            named(r),
            r.txns_per_s.map_or("-".into(), |t| format!("{t:.0}")),
            r.events,
            r.crashes,
            r.crashes_losing_commits,
            format!("{} ({})", r.acknowledged_lost, r.most_lost_at_once),
            r.integrity_failures,
            r.atomicity_violations,
            ns(r.recovery_p50_ns),
            ns(r.recovery_max_ns)
        );
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
