//! The diagnosis as text: the candidates' table, the findings, and what could and could not be
//! determined.

use super::Diagnosis;
use crate::platform::cpufreq;

/// The text `pocketbench diagnose` prints.
pub fn render(d: &Diagnosis) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "Is my governor working? — workload {}", d.workload);
    let _ = writeln!(o, "load       {}", d.load);
    let _ = writeln!(o, "governor   {}\n", d.control);
    let w = d
        .candidates
        .iter()
        .map(|c| c.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    let _ = writeln!(
        o,
        "  {:<w$} {:>10} {:>10} {:>10} {:>12} {:>10}  runs",
        "candidate", "ops/s", "p50 µs", "p95 µs", "µJ/op", "mean freq"
    );
    for c in &d.candidates {
        let _ = writeln!(
            o,
            "  {:<w$} {:>10.1} {:>10.1} {:>10.1} {:>12} {:>10}  {}",
            c.label,
            c.throughput_ops_per_s,
            c.p50_us,
            c.p95_us,
            c.energy_uj_per_op.map_or("-".into(), |e| format!(
                "{e:.1} {}",
                c.energy_basis.as_deref().unwrap_or("")
            )),
            c.mean_khz.map_or("-".into(), cpufreq::khz_text),
            c.runs
                .iter()
                .map(|r| format!("#{r}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let _ = writeln!(o);
    if let Some(v) = &d.verdict {
        for f in &v.findings {
            let _ = writeln!(o, "{f}");
        }
    }
    if !d.could_determine.is_empty() {
        let _ = writeln!(o, "What pocketbench could determine:");
        for f in &d.could_determine {
            let _ = writeln!(o, "  - {f}");
        }
    }
    if !d.could_not_determine.is_empty() {
        let _ = writeln!(o, "What it could not determine:");
        for f in &d.could_not_determine {
            let _ = writeln!(o, "  - {f}");
        }
    }
    o
}
