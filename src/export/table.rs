//! The summary of a set of runs, one row per configuration: repeats, each main metric's mean
//! with its confidence interval and coefficient of variation, and percentiles pooled over all
//! repeats' operations, and its aligned terminal rendering (the exporters in `export/` render
//! the same rows as Markdown, CSV and JSON).

use crate::results::dataset::Dataset;
use crate::results::metrics::Metric;
use crate::results::repeats::Estimate;
use crate::stats::LatencySummary;
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

pub fn est(row: &Row, key: &str) -> Option<Estimate> {
    row.metrics
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, e)| *e)
}

fn cell(e: Option<Estimate>) -> String {
    e.map_or("-".into(), |e| e.sig_text())
}

fn cv(e: Option<Estimate>) -> String {
    e.and_then(|e| e.cv)
        .map_or("-".into(), |c| format!("{:.1}%", c * 100.0))
}

/// Columns shared by the text and Markdown tables.
pub fn columns(level: f64) -> Vec<String> {
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

/// One row's cells under [`columns`].
pub fn values(r: &Row) -> Vec<String> {
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
            crate::output::units::sig(r.pooled_us.p50),
            crate::output::units::sig(r.pooled_us.p99)
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
