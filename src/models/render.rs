//! The terminal rendering of a `models` run: one table per scale (engines × create time,
//! insert rate and each test's mean time per execution), the study's summary table (scales ×
//! engines, total time), the fastest engine per test at the largest scale, and the answers'
//! cross-check.

use super::query::Test;
use super::{EngineScale, ModelsRun};
use crate::output::units::ns;
use std::fmt::Write as _;

fn test_cell(r: &EngineScale, test: Test) -> String {
    match r.tests.iter().find(|t| t.test == test) {
        None => "-".into(),
        Some(t) if t.exceeded_budget.is_some() => format!("budget ({})", t.executions.len()),
        Some(t) => ns(t.mean_ns),
    }
}

/// The tests the run has, in order.
fn tests_of(run: &ModelsRun) -> Vec<Test> {
    Test::ALL
        .into_iter()
        .filter(|t| {
            run.results
                .iter()
                .any(|r| r.tests.iter().any(|x| x.test == *t))
        })
        .collect()
}

pub fn render(run: &ModelsRun) -> String {
    let mut o = String::new();
    let tests = tests_of(run);
    let _ = writeln!(
        o,
        "models: {} engines, {} transactions per person, seed {}, budget {} per test{}",
        run.engines.len(),
        run.per_person,
        run.seed,
        ns(run.budget_ns),
        if run.id > 0 {
            format!(" (stored as #{})", run.id)
        } else {
            String::new()
        }
    );
    if !run.think.is_empty() {
        let _ = writeln!(o, "think time between executions: {}", run.think);
    }
    if let Some(g) = &run.governor {
        let _ = writeln!(o, "governor: {}", g.text());
    }
    let width = run
        .engines
        .iter()
        .map(|e| e.len())
        .max()
        .unwrap_or(6)
        .max(6)
        + 2;
    for &tuples in &run.scales {
        let rows: Vec<&EngineScale> = run.results.iter().filter(|r| r.tuples == tuples).collect();
        let Some(first) = rows.first() else { continue };
        let _ = writeln!(
            o,
            "\n{tuples} tuples ({} people, {} transactions); mean time per execution",
            tuples,
            first.rows - u64::from(tuples)
        );
        let _ = write!(
            o,
            "{:<width$}{:<12}{:>11}{:>12}",
            "engine", "kind", "create", "inserts/s"
        );
        for t in &tests {
            let _ = write!(o, "{:>14}", format!("{} {}", t.number(), t.name()));
        }
        let _ = writeln!(o, "{:>11}", "total");
        for r in rows {
            let _ = write!(
                o,
                "{:<width$}{:<12}{:>11}{:>12.0}",
                r.engine,
                r.kind.name(),
                ns(r.create_ns),
                r.inserts_per_s
            );
            for t in &tests {
                let _ = write!(o, "{:>14}", test_cell(r, *t));
            }
            let _ = writeln!(o, "{:>11}", ns(r.total_ns()));
        }
    }
    let _ = writeln!(o, "\nsummary: total time (create, insert and every test)");
    let _ = write!(o, "{:>8}", "tuples");
    for e in &run.engines {
        let _ = write!(o, "{:>w$}", e, w = e.len().max(10) + 2);
    }
    let _ = writeln!(o);
    for &tuples in &run.scales {
        let _ = write!(o, "{tuples:>8}");
        for e in &run.engines {
            let cell = run
                .results
                .iter()
                .find(|r| r.tuples == tuples && r.engine == *e)
                .map(|r| {
                    let over = r.tests.iter().any(|t| t.exceeded_budget.is_some());
                    format!("{}{}", ns(r.total_ns()), if over { "*" } else { "" })
                })
                .unwrap_or_else(|| "-".into());
            let _ = write!(o, "{:>w$}", cell, w = e.len().max(10) + 2);
        }
        let _ = writeln!(o);
    }
    if run
        .results
        .iter()
        .any(|r| r.tests.iter().any(|t| t.exceeded_budget.is_some()))
    {
        let _ = writeln!(
            o,
            "  * a test exceeded its budget: its time counts only the executions made"
        );
    }
    if let Some(&largest) = run.scales.iter().max() {
        let _ = writeln!(
            o,
            "\nfastest per test at {largest} tuples (mean per execution):"
        );
        for t in &tests {
            let best = run
                .results
                .iter()
                .filter(|r| r.tuples == largest)
                .filter_map(|r| {
                    let x = r.tests.iter().find(|x| x.test == *t)?;
                    x.exceeded_budget
                        .is_none()
                        .then_some((x.mean_ns, &r.engine))
                })
                .min();
            if let Some((mean, engine)) = best {
                let _ = writeln!(
                    o,
                    "  {} {:<12} {engine} ({})",
                    t.number(),
                    t.name(),
                    ns(mean)
                );
            }
        }
    }
    let executions: usize = run
        .results
        .iter()
        .map(|r| r.tests.iter().map(|t| t.executions.len()).sum::<usize>())
        .sum();
    if run.mismatches.is_empty() {
        let _ = writeln!(
            o,
            "\nanswers: every engine gave the same answer to every execution ({executions} executions compared by checksum)"
        );
    } else {
        let _ = writeln!(o, "\nanswers: {} MISMATCHES", run.mismatches.len());
        for m in run.mismatches.iter().take(10) {
            let _ = writeln!(
                o,
                "  {} tuples, test {} ({}) execution {}: {} gave {}, {} gave {}",
                m.tuples,
                m.test.number(),
                m.test.name(),
                m.execution,
                m.engines.0,
                m.answers.0,
                m.engines.1,
                m.answers.1
            );
        }
    }
    o
}

/// One CSV row per engine, scale and test (RFC 4180, written whole or not at all).
pub fn write_csv(run: &ModelsRun, path: &std::path::Path) -> crate::error::Result<()> {
    let fail = |e: std::io::Error| crate::error::Error::failed(format!("{}: {e}", path.display()));
    let mut out = crate::platform::atomic_file::AtomicCsv::create(
        path,
        &[
            "engine",
            "kind",
            "tuples",
            "rows",
            "create_ns",
            "insert_ns",
            "inserts_per_s",
            "test",
            "test_name",
            "executions",
            "total_ns",
            "mean_ns",
            "queries_per_s",
            "p50_ns",
            "p95_ns",
            "cpu_ns",
            "read_bytes",
            "write_bytes",
            "exceeded_budget",
        ],
    )
    .map_err(fail)?;
    for r in &run.results {
        for t in &r.tests {
            let cpu: u64 = t.executions.iter().map(|e| e.cpu_ns).sum();
            let read: u64 = t.executions.iter().map(|e| e.io.read_bytes).sum();
            let written: u64 = t.executions.iter().map(|e| e.io.write_bytes).sum();
            out.row([
                r.engine.clone(),
                r.kind.name().to_string(),
                r.tuples.to_string(),
                r.rows.to_string(),
                r.create_ns.to_string(),
                r.insert_ns.to_string(),
                format!("{:.1}", r.inserts_per_s),
                t.test.number().to_string(),
                t.test.name().to_string(),
                t.executions.len().to_string(),
                t.total_ns.to_string(),
                t.mean_ns.to_string(),
                format!("{:.1}", t.queries_per_s),
                t.p50_ns.to_string(),
                t.p95_ns.to_string(),
                cpu.to_string(),
                read.to_string(),
                written.to_string(),
                t.exceeded_budget.clone().unwrap_or_default(),
            ])
            .map_err(fail)?;
        }
    }
    out.commit().map_err(fail)
}
