//! The decision grid: rows are configurations other than the workload (governor × load in the
//! built-in plans), columns are workloads, and each cell is coloured good / warning / bad for
//! throughput, median and p95 latency by how far it is from the best row of its column.

use super::scatter::label_width;
use super::svg::{num, Svg};
use super::Figure;
use crate::results::dataset::Dataset;
use crate::results::metrics::Metric;

/// Within this factor of the column's best: good.
pub const GOOD: f64 = 1.10;
/// Within this factor: warning; beyond it: bad.
pub const WARNING: f64 = 1.25;

const GOOD_FILL: &str = "#a6d96a";
const WARNING_FILL: &str = "#fee08b";
const BAD_FILL: &str = "#f46d43";

/// How far `v` is from `best` (≥ 1), whichever direction is better.
pub fn factor(v: f64, best: f64, higher_is_better: bool) -> f64 {
    let f = if higher_is_better { best / v } else { v / best };
    if f.is_finite() {
        f.max(1.0)
    } else if v == best {
        1.0
    } else {
        f64::INFINITY
    }
}

/// good / warning / bad for a factor.
pub fn verdict(f: f64) -> &'static str {
    if f <= GOOD {
        "good"
    } else if f <= WARNING {
        "warning"
    } else {
        "bad"
    }
}

pub fn decision_grid(data: &Dataset, level: f64) -> Figure {
    let mut cols: Vec<String> = Vec::new();
    let mut rows: Vec<String> = Vec::new();
    let mut cells: Vec<(usize, usize, usize)> = Vec::new(); // (row, col, group)
    for (gi, g) in data.groups.iter().enumerate() {
        let col = data.label(g, "workload");
        let row: Vec<&str> = g
            .name
            .split(' ')
            .filter(|t| !t.starts_with("workload="))
            .collect();
        let row = if row.is_empty() {
            "all".to_string()
        } else {
            row.join(" ")
        };
        let c = index_of(&mut cols, col);
        let r = index_of(&mut rows, row);
        cells.push((r, c, gi));
    }
    let metrics = [Metric::Throughput, Metric::P50, Metric::P95];
    let left = label_width(rows.iter().map(String::as_str));
    let cw = 96.0;
    let rh = 22.0;
    let panel_h = 40.0 + rh * rows.len() as f64 + 14.0;
    let w = (left + cw * cols.len() as f64 + 20.0).max(760.0);
    let h = panel_h * metrics.len() as f64 + 34.0;
    let mut svg = Svg::new(w, h);
    for (k, m) in metrics.iter().enumerate() {
        let oy = panel_h * k as f64;
        let title = format!("{} ({})", m.name(), m.unit());
        svg.text(10.0, oy + 16.0, "start", r#"font-weight="bold""#, &title);
        for (c, name) in cols.iter().enumerate() {
            svg.text(left + cw * (c as f64 + 0.5), oy + 34.0, "middle", "", name);
        }
        for (r, name) in rows.iter().enumerate() {
            let y = oy + 40.0 + rh * (r as f64 + 0.5) + 4.0;
            svg.label(left - 8.0, y, "end", name);
        }
        let values: Vec<(usize, usize, f64)> = cells
            .iter()
            .filter_map(|&(r, c, gi)| {
                let e = m.estimate(data, &data.groups[gi], level)?;
                Some((r, c, e.mean))
            })
            .collect();
        for &(r, c, v) in &values {
            let column = values.iter().filter(|x| x.1 == c).map(|x| x.2);
            let best = if m.higher_is_better() {
                column.fold(f64::NEG_INFINITY, f64::max)
            } else {
                column.fold(f64::INFINITY, f64::min)
            };
            let f = factor(v, best, m.higher_is_better());
            let verdict = verdict(f);
            let fill = match verdict {
                "good" => GOOD_FILL,
                "warning" => WARNING_FILL,
                _ => BAD_FILL,
            };
            let (x, y) = (left + cw * c as f64, oy + 40.0 + rh * r as f64);
            let tip = format!(
                "{} / {}: {} {} — {verdict} ({:.2}× the best)",
                rows[r],
                cols[c],
                num(v),
                m.unit(),
                f
            );
            svg.rect(x + 1.0, y + 1.0, cw - 2.0, rh - 2.0, fill, &tip);
            svg.text(x + cw / 2.0, y + rh / 2.0 + 4.0, "middle", "", &num(v));
            svg.points += 1;
        }
    }
    let legend = [
        (
            GOOD_FILL.to_string(),
            format!("good: within {:.0}% of the best", (GOOD - 1.0) * 100.0),
        ),
        (
            WARNING_FILL.to_string(),
            format!(
                "warning: {:.0}–{:.0}% worse",
                (GOOD - 1.0) * 100.0,
                (WARNING - 1.0) * 100.0
            ),
        ),
        (
            BAD_FILL.to_string(),
            format!("bad: more than {:.0}% worse", (WARNING - 1.0) * 100.0),
        ),
    ];
    svg.legend(10.0, h - 14.0, &legend);
    Figure {
        id: "decision-grid",
        title: "Decision grid: is the configuration (governor, load, …) what hurts?".into(),
        how_to_read: format!(
            "Columns are workloads, rows the other settings (governor × background load in the built-in plans). Each cell holds the mean over repeats and is coloured against the best row of its column: green within {:.0}% of the best, yellow {:.0}–{:.0}% worse, red more than {:.0}% worse (for throughput, worse means lower; for latency, higher). A row that is red across workloads (e.g. one governor) is hurting the app; red in one column only points at that workload.",
            (GOOD - 1.0) * 100.0,
            (GOOD - 1.0) * 100.0,
            (WARNING - 1.0) * 100.0,
            (WARNING - 1.0) * 100.0
        ),
        note: None,
        svg: svg.finish("decision-grid", "Decision grid"),
    }
}

fn index_of(list: &mut Vec<String>, v: String) -> usize {
    match list.iter().position(|x| *x == v) {
        Some(i) => i,
        None => {
            list.push(v);
            list.len() - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert_eq!(verdict(factor(105.0, 100.0, false)), "good");
        assert_eq!(verdict(factor(120.0, 100.0, false)), "warning");
        assert_eq!(verdict(factor(130.0, 100.0, false)), "bad");
        // Throughput: 80 ops/s against a best of 100 is 1.25× worse.
        assert_eq!(verdict(factor(80.0, 100.0, true)), "warning");
        assert_eq!(verdict(factor(0.0, 0.0, false)), "good");
    }
}
