//! The summary of a set of runs, one row per configuration: repeats, each main metric's mean
//! with its confidence interval and coefficient of variation, and percentiles pooled over all
//! repeats' operations. Rendered for the terminal, as Markdown (for issues) and as CSV (for
//! spreadsheets), and as JSON rows.

use crate::results::dataset::Dataset;
use crate::results::metrics::Metric;
use crate::results::repeats::Estimate;
use crate::results::stats::LatencySummary;
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Serialize)]
pub struct Row {
    pub configuration: String,
    pub labels: Vec<(String, String)>,
    pub runs: Vec<i64>,
    /// Metric key → estimate over repeats.
    pub metrics: Vec<(&'static str, Option<Estimate>)>,
    /// Percentiles of every operation of every repeat together, µs.
    pub pooled_us: LatencySummary,
}

pub fn rows(data: &Dataset, level: f64) -> Vec<Row> {
    data.groups
        .iter()
        .map(|g| Row {
            configuration: g.name.clone(),
            labels: g.labels.clone(),
            runs: data.of(g).map(|r| r.id).collect(),
            metrics: Metric::MAIN
                .iter()
                .map(|m| (m.key(), m.estimate(data, g, level)))
                .collect(),
            pooled_us: g.pooled.summary(),
        })
        .collect()
}

fn est(row: &Row, key: &str) -> Option<Estimate> {
    row.metrics
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, e)| *e)
}

fn cell(e: Option<Estimate>) -> String {
    e.map_or("-".into(), |e| super::units::estimate(&e))
}

fn cv(e: Option<Estimate>) -> String {
    e.and_then(|e| e.cv)
        .map_or("-".into(), |c| format!("{:.1}%", c * 100.0))
}

/// Columns shared by the text and Markdown tables.
fn columns(level: f64) -> Vec<String> {
    let ci = format!("±{:.0}% CI", level * 100.0);
    vec![
        "configuration".into(),
        "n".into(),
        format!("p50 µs {ci}"),
        format!("p95 µs {ci}"),
        format!("p99 µs {ci}"),
        format!("ops/s {ci}"),
        "CV p50".into(),
        "pooled p50/p99 µs".into(),
    ]
}

fn values(r: &Row) -> Vec<String> {
    vec![
        r.configuration.clone(),
        r.runs.len().to_string(),
        cell(est(r, "p50_us")),
        cell(est(r, "p95_us")),
        cell(est(r, "p99_us")),
        cell(est(r, "throughput_ops_per_s")),
        cv(est(r, "p50_us")),
        format!(
            "{} / {}",
            super::units::sig(r.pooled_us.p50),
            super::units::sig(r.pooled_us.p99)
        ),
    ]
}

/// An aligned terminal table.
pub fn text(data: &Dataset, level: f64) -> String {
    let rows = rows(data, level);
    if rows.is_empty() {
        return "no runs\n".into();
    }
    let mut table = vec![columns(level)];
    table.extend(rows.iter().map(values));
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut o = String::new();
    for r in &table {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (v, w))| {
                let pad = w - v.chars().count();
                if i == 0 {
                    format!("{v}{}", " ".repeat(pad))
                } else {
                    format!("{}{v}", " ".repeat(pad))
                }
            })
            .collect();
        let _ = writeln!(o, "{}", line.join("  ").trim_end());
    }
    o
}

/// A GitHub-flavoured Markdown table.
pub fn markdown(data: &Dataset, level: f64) -> String {
    let rows = rows(data, level);
    let mut o = String::new();
    let head = columns(level);
    let _ = writeln!(o, "| {} |", head.join(" | "));
    let _ = writeln!(
        o,
        "|{}",
        head.iter()
            .enumerate()
            .map(|(i, _)| if i == 0 { " --- |" } else { " ---: |" })
            .collect::<String>()
    );
    for r in &rows {
        let v: Vec<String> = values(r).iter().map(|s| s.replace('|', "\\|")).collect();
        let _ = writeln!(o, "| {} |", v.join(" | "));
    }
    let _ = writeln!(
        o,
        "\nMean over repeats ± half-width of the {:.0}% Student-t confidence interval; CV = sd / mean; pooled = all operations of all repeats.",
        level * 100.0
    );
    o
}

/// CSV: one row per configuration, mean/sd/ci_low/ci_high/cv per metric, pooled percentiles.
pub fn csv(data: &Dataset, level: f64) -> String {
    let rows = rows(data, level);
    let mut head = vec!["configuration".to_string(), "runs".into(), "n".into()];
    for m in Metric::MAIN {
        for part in ["mean", "sd", "ci_low", "ci_high", "cv"] {
            head.push(format!("{}_{part}", m.key()));
        }
    }
    for p in ["p50", "p95", "p99", "max"] {
        head.push(format!("pooled_{p}_us"));
    }
    let mut o = head.join(",") + "\n";
    let num = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x}"));
    for r in &rows {
        let ids: Vec<String> = r.runs.iter().map(i64::to_string).collect();
        let mut line = vec![
            quote(&r.configuration),
            ids.join(" "),
            r.runs.len().to_string(),
        ];
        for m in Metric::MAIN {
            let e = est(r, m.key());
            line.push(num(e.map(|e| e.mean)));
            line.push(num(e.and_then(|e| e.sd)));
            line.push(num(e.and_then(|e| e.ci()).map(|c| c.0)));
            line.push(num(e.and_then(|e| e.ci()).map(|c| c.1)));
            line.push(num(e.and_then(|e| e.cv)));
        }
        let p = &r.pooled_us;
        for v in [p.p50, p.p95, p.p99, p.max] {
            line.push(format!("{v}"));
        }
        o.push_str(&line.join(","));
        o.push('\n');
    }
    o
}

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
