//! Horizontal bar charts, one row per configuration: the stacked split of time per operation
//! (on-CPU, off-CPU/blocked, delay slept) and the I/O operations (reads, writes, syncs) per run
//! side by side, ordered by workload.

use super::scatter::label_width;
use super::svg::{color, num, Scale, Svg};
use super::Figure;
use crate::results::dataset::Dataset;
use crate::results::metrics::Metric;

/// One bar: label and segments (value, colour, name).
struct Row {
    name: String,
    segments: Vec<f64>,
}

/// One bar per group (in `order`), one segment per metric: the metric's mean over repeats
/// (0 where it was not measured).
fn mean_rows(data: &Dataset, order: &[usize], parts: &[Metric], level: f64) -> Vec<Row> {
    order
        .iter()
        .map(|&i| {
            let g = &data.groups[i];
            Row {
                name: g.name.clone(),
                segments: parts
                    .iter()
                    .map(|m| m.estimate(data, g, level).map_or(0.0, |e| e.mean))
                    .collect(),
            }
        })
        .collect()
}

pub fn time_split(data: &Dataset, level: f64) -> Figure {
    let order: Vec<usize> = (0..data.groups.len()).collect();
    let rows = mean_rows(
        data,
        &order,
        &[Metric::OnCpu, Metric::OffCpu, Metric::Delay],
        level,
    );
    let names = ["on-CPU", "off-CPU (blocked)", "delay slept"];
    Figure {
        id: "time-split",
        title: "Where the time goes: on-CPU, off-CPU and delay per operation".into(),
        how_to_read: "Each bar is one configuration's mean time per operation (µs) over its repeats, split into time on a CPU inside the operation, time off the CPU inside it (blocked on I/O, locks or waiting for a CPU), and the think-time delay actually slept after it. A long delay segment with a short operation is the phone-like regime where the CPU idles and the governor lowers the frequency; hover a segment for its value.".into(),
        note: None,
        svg: draw("time-split", "Time per operation (µs)", &rows, &names, true),
    }
}

pub fn io_counts(data: &Dataset, level: f64) -> Figure {
    let mut order: Vec<usize> = (0..data.groups.len()).collect();
    order.sort_by_key(|&i| (data.label(&data.groups[i], "workload"), i));
    let rows = mean_rows(
        data,
        &order,
        &[Metric::Reads, Metric::Writes, Metric::Syncs],
        level,
    );
    let names = ["reads", "writes", "syncs"];
    Figure {
        id: "io-counts",
        title: "I/O operations per run, by workload".into(),
        how_to_read: "For each configuration (sorted by workload), the mean number of file reads, writes and syncs per run as the engine issued them (SQLite: counted by the VFS shim). Syncs are the expensive ones on flash; engines without an I/O hook show none.".into(),
        note: None,
        svg: draw("io-counts", "Operations per run", &rows, &names, false),
    }
}

/// Stacked (or grouped) horizontal bars.
fn draw(id: &str, x_title: &str, rows: &[Row], names: &[&str], stacked: bool) -> String {
    let per = if stacked {
        20.0
    } else {
        8.0 * names.len() as f64 + 8.0
    };
    let left = label_width(rows.iter().map(|r| r.name.as_str()));
    let w = 860.0;
    let top = 20.0;
    let bottom = top + per * rows.len().max(1) as f64;
    let h = bottom + 70.0;
    let mut svg = Svg::new(w, h);
    let max = rows
        .iter()
        .map(|r| {
            if stacked {
                r.segments.iter().sum::<f64>()
            } else {
                r.segments.iter().copied().fold(0.0, f64::max)
            }
        })
        .fold(0.0, f64::max);
    let x = Scale::fit([0.0, max].into_iter(), left, w - 30.0, false);
    let grid = r##"stroke="#e5e5e5" stroke-width="1""##;
    for (v, label) in x.ticks() {
        svg.line(x.map(v), bottom, x.map(v), top, grid);
        svg.text(x.map(v), bottom + 15.0, "middle", "", &label);
    }
    svg.line(left, bottom, left, top, r##"stroke="#333333""##);
    svg.line(left, bottom, w - 30.0, bottom, r##"stroke="#333333""##);
    svg.text(
        (left + w - 30.0) / 2.0,
        bottom + 32.0,
        "middle",
        r#"font-weight="bold""#,
        x_title,
    );
    for (i, r) in rows.iter().enumerate() {
        let y0 = top + per * i as f64;
        svg.label(left - 8.0, y0 + per / 2.0 + 4.0, "end", &r.name);
        let mut acc = 0.0;
        for (j, v) in r.segments.iter().enumerate() {
            let title = format!("{}: {} {}", r.name, names[j], num(*v));
            if stacked {
                let (a, b) = (x.map(acc), x.map(acc + v));
                svg.rect(a, y0 + 3.0, b - a, per - 6.0, color(j), &title);
                acc += v;
            } else {
                let y = y0 + 4.0 + 8.0 * j as f64;
                svg.rect(left, y, x.map(*v) - left, 7.0, color(j), &title);
            }
            svg.points += 1;
        }
    }
    let legend: Vec<(String, String)> = names
        .iter()
        .enumerate()
        .map(|(j, n)| (color(j).to_string(), n.to_string()))
        .collect();
    svg.legend(left, h - 12.0, &legend);
    svg.finish(id, x_title)
}

/// Per operation kind, each configuration's median service time and mean CPU time per
/// operation, from the stored samples of all its repeats: the cost of a binding (native SQLite
/// beside SQLite through JDBC) or of an engine, kind by kind. `None` with fewer than two
/// configurations, or without stored samples.
pub fn per_kind(
    data: &Dataset,
    store: &crate::results::store::Store,
) -> crate::error::Result<Option<Figure>> {
    use crate::error::ResultExt;
    if data.groups.len() < 2 {
        return Ok(None);
    }
    let mut rows = Vec::new();
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT kind, count(*), avg(cpu_ns) FROM op_samples WHERE run_id = ?1 GROUP BY kind ORDER BY kind",
        )
        .run_err("results store: op_samples")?;
    let mut by_kind: std::collections::BTreeMap<String, Vec<Row>> = Default::default();
    for g in &data.groups {
        // Mean CPU per operation over every stored sample of the group's runs, per kind.
        let mut cpu: std::collections::BTreeMap<String, (f64, f64)> = Default::default();
        for r in data.of(g) {
            let found = stmt
                .query_map([r.id], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, f64>(1)?,
                        row.get::<_, f64>(2)?,
                    ))
                })
                .run_err("results store: op_samples")?;
            for f in found {
                let (kind, n, mean) = f.run_err("results store: op_samples")?;
                let e = cpu.entry(kind).or_default();
                e.0 += n;
                e.1 += n * mean;
            }
        }
        for (kind, (n, total)) in cpu {
            let p50: Vec<f64> = data
                .of(g)
                .filter_map(|r| r.summary.latency_us.get(&kind).map(|l| l.p50))
                .collect();
            let p50 = p50.iter().sum::<f64>() / p50.len().max(1) as f64;
            by_kind.entry(kind.clone()).or_default().push(Row {
                name: format!("{kind} · {}", g.name),
                segments: vec![p50, total / n.max(1.0) / 1e3],
            });
        }
    }
    for (_, mut r) in by_kind {
        if r.len() >= 2 {
            rows.append(&mut r);
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let names = ["median service time", "mean CPU time"];
    Ok(Some(Figure {
        id: "per-kind",
        title: "Per operation kind: service time and CPU time per configuration".into(),
        how_to_read: "For each operation kind two or more configurations ran, one pair of bars per configuration: the median service time (µs, the mean of its repeats' medians) and the mean CPU time per operation (µs, over every stored sample). Side by side, native SQLite and SQLite through JDBC with the same settings show what the managed-runtime binding costs each kind of query; any two engines compare the same way.".into(),
        note: None,
        svg: draw("per-kind", "µs per operation", &rows, &names, false),
    }))
}
