//! The platform lines of a run's terminal summary: governor (set or observed, and why),
//! frequency residency and latency by frequency, energy, battery and thermal readings,
//! background load. Runs stored before these sections existed fall back to the environment's
//! observations.

use crate::output::units::ns;
use crate::platform::cpufreq::khz_text;
use crate::platform::cpufreq::residency::{FrequencyReport, PolicyResidency};
use crate::platform::environment::Observed;
use crate::results::summary::RunSummary;
use std::fmt::Write as _;

pub fn render(o: &mut String, s: &RunSummary) {
    match &s.governor {
        Some(g) => {
            let _ = writeln!(o, "governor   {}", g.text());
            for n in &g.notices {
                let _ = writeln!(o, "           note: {n}");
            }
        }
        None => environment_line(o, s, "governor"),
    }
    match &s.frequency {
        Some(f) => frequency(o, f),
        None => environment_line(o, s, "cpu_frequency"),
    }
    match &s.energy {
        Some(e) => {
            let _ = writeln!(o, "energy     {}", e.text());
        }
        None => environment_line(o, s, "energy"),
    }
    if let Some(t) = &s.thermal {
        let _ = writeln!(o, "thermal    {}", t.text());
    }
    if let Some(b) = &s.background {
        let mut line = format!(
            "background {}: {} thread(s) kept {:.2} CPUs busy over {}",
            if b.loads.is_empty() {
                "command".to_string()
            } else {
                b.loads.join(" + ")
            },
            b.threads,
            b.cpus_busy,
            ns(b.wall_ns)
        );
        if b.io_ops > 0 {
            let _ = write!(line, ", {} I/Os", b.io_ops);
        }
        if let Some(c) = &b.command {
            let _ = write!(
                line,
                "; `{}` used {} CPU, {}",
                c.command,
                c.cpu_ns.map_or("unknown".into(), ns),
                c.ended
            );
        }
        let _ = writeln!(o, "{line}");
    }
}

fn environment_line(o: &mut String, s: &RunSummary, key: &str) {
    if let Some(v) = s
        .environment
        .get(key)
        .and_then(|v| serde_json::from_value::<Observed>(v.clone()).ok())
    {
        let label = if key == "cpu_frequency" {
            "frequency"
        } else {
            key
        };
        let _ = writeln!(o, "{label:<10} {}", v.text());
    }
}

fn frequency(o: &mut String, f: &FrequencyReport) {
    let Some(src) = &f.source else {
        let _ = writeln!(
            o,
            "frequency  null: {}",
            f.reason.as_deref().unwrap_or("not observed")
        );
        return;
    };
    let table = f.best_residency();
    let _ = writeln!(o, "frequency  {src}");
    for p in table {
        let _ = writeln!(o, "           {}", residency(p));
    }
    if let Some(c) = &f.sampler {
        let _ = writeln!(
            o,
            "           sampler every {}: {} readings, {} CPU each ({:.3}% of one CPU)",
            ns(c.period_ns),
            c.samples,
            ns(c.cpu_ns_per_sample),
            c.cpu_share * 100.0
        );
    }
    if let Some(per) = &f.per_op {
        if !per.latency_us_by_start_khz.is_empty() {
            let parts: Vec<String> = per
                .latency_us_by_start_khz
                .iter()
                .map(|(k, l)| {
                    format!(
                        "{} ×{}: p50 {:.1} µs, p95 {:.1} µs",
                        khz_text(*k),
                        l.count,
                        l.p50,
                        l.p95
                    )
                })
                .collect();
            let _ = writeln!(o, "           by frequency at start: {}", parts.join("; "));
        }
    }
}

fn residency(p: &PolicyResidency) -> String {
    let states: Vec<String> = p
        .states
        .iter()
        .filter(|s| s.share >= 0.005)
        .map(|s| format!("{} {:.0}%", khz_text(s.khz), s.share * 100.0))
        .collect();
    format!(
        "{} (cpus {}): mean {}; {}{}",
        p.policy,
        crate::platform::cpufreq::format_cpu_list(&p.cpus),
        p.mean_khz.map_or("-".into(), khz_text),
        if states.is_empty() {
            "no time recorded".into()
        } else {
            states.join(", ")
        },
        p.transitions
            .map(|t| format!("; {t} changes"))
            .unwrap_or_default()
    )
}
