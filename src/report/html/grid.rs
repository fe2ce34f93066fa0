//! The decision grid: rows are configurations other than the workload (governor × load in the
//! built-in plans), columns are workloads, and each cell is coloured good / warning / bad for
//! throughput, median and p95 latency by how far it is from the best row of its column.

use super::scatter::label_width;
use super::svg::{num, Svg};
use super::Figure;
use crate::error::{Result, ResultExt};
use crate::report::decision::{self, factors, verdict, GridSpec, Layout, GOOD, WARNING};
use crate::results::dataset::Dataset;
use crate::results::metrics::Metric;
use crate::results::store::Store;

const GOOD_FILL: &str = "#a6d96a";
const WARNING_FILL: &str = "#fee08b";
const BAD_FILL: &str = "#f46d43";

/// The grid the runs' study declares (its plan's `[grid]`), when every run belongs to one
/// study; otherwise workloads as columns and every other varying setting as rows.
fn spec(data: &Dataset, store: &Store) -> Result<GridSpec> {
    let mut studies = data.runs.iter().map(|r| r.study.as_ref().map(|t| t.id));
    let first = studies.next().flatten();
    let Some(id) = first.filter(|_| studies.all(|s| s == first)) else {
        return Ok(GridSpec::default());
    };
    let plan: String = store
        .conn()
        .query_row("SELECT plan FROM studies WHERE id = ?1", [id], |r| r.get(0))
        .run_err("results store: studies")?;
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap_or_default();
    Ok(serde_json::from_value(plan["grid"].clone()).unwrap_or_default())
}

pub fn decision_grid(data: &Dataset, store: &Store, level: f64) -> Result<Figure> {
    let spec = spec(data, store)?;
    let configs: Vec<Vec<(String, String)>> = data
        .groups
        .iter()
        .map(|g| {
            let mut keys = data.keys.clone();
            for k in ["engine", "workload"] {
                if !keys.iter().any(|x| x == k) {
                    keys.push(k.to_string());
                }
            }
            keys.into_iter()
                .map(|k| {
                    let v = data.label(g, &k);
                    (k, v)
                })
                .collect()
        })
        .collect();
    Ok(match decision::layout(&configs, &spec) {
        Ok(layout) => draw(data, &layout, &spec, level),
        Err(why) => refused(why),
    })
}

/// The figure in place of a grid that would mix settings.
fn refused(why: String) -> Figure {
    let mut svg = Svg::new(760.0, 40.0);
    svg.text(10.0, 24.0, "start", "", "Not drawn: see the note above.");
    Figure {
        id: "decision-grid",
        title: "Decision grid".into(),
        how_to_read: "Rows are configurations, columns workloads, each cell coloured against the best cell of its column.".into(),
        note: Some(why),
        svg: svg.finish("decision-grid", "Decision grid"),
    }
}

fn draw(data: &Dataset, layout: &Layout, spec: &GridSpec, level: f64) -> Figure {
    let (rows, cols, cells) = (&layout.rows, &layout.cols, &layout.cells);
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
        let fs = factors(&values, m.higher_is_better());
        for (&(r, c, v), &f) in values.iter().zip(&fs) {
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
            "Columns are {cols} values, rows {rows} (governor × system load in the built-in mdperf plan, as MDPerf draws it). Each cell holds the mean over repeats and is coloured against the best cell of its column: green within {good:.0}% of the best, yellow {good:.0}–{warn:.0}% worse, red more than {warn:.0}% worse (for throughput, worse means lower; for latency, higher). A row that is red across workloads (e.g. one governor) is hurting the app; red in one column only points at that workload.",
            cols = spec.columns,
            rows = if spec.rows.is_empty() {
                "the other settings that vary".to_string()
            } else {
                spec.rows.join(" × ")
            },
            good = (GOOD - 1.0) * 100.0,
            warn = (WARNING - 1.0) * 100.0,
        ),
        note: (!layout.baselines.is_empty()).then(|| {
            format!(
                "{} null-engine configuration(s) left out: the null engine measures the harness, it is not a choice",
                layout.baselines.len()
            )
        }),
        svg: svg.finish("decision-grid", "Decision grid"),
    }
}
