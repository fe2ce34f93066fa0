//! Latency vs. energy per configuration, coloured by governor, with confidence-interval error
//! bars in both directions. Without an energy source the energy axis is omitted (with a note
//! saying why) and the figure becomes a dot plot of latency with its interval.

use super::svg::{axes, color, num, Scale, Svg};
use super::Figure;
use crate::results::dataset::Dataset;
use crate::results::metrics::Metric;

pub fn latency_energy(data: &Dataset, level: f64) -> Figure {
    let governors = distinct(data, "governor");
    let pct = format!("{:.0}%", level * 100.0);
    let points: Vec<Point> = data
        .groups
        .iter()
        .filter_map(|g| {
            let lat = Metric::LatencyMean.estimate(data, g, level)?;
            let energy = Metric::Energy.estimate(data, g, level);
            let gov = data.label(g, "governor");
            let c = governors.iter().position(|x| *x == gov).unwrap_or(0);
            Some(Point {
                name: g.name.clone(),
                lat: (lat.mean, lat.ci_half.unwrap_or(0.0)),
                energy: energy.map(|e| (e.mean, e.ci_half.unwrap_or(0.0))),
                color: color(c),
            })
        })
        .collect();
    let with_energy = !points.is_empty() && points.iter().all(|p| p.energy.is_some());
    let legend: Vec<(String, String)> = governors
        .iter()
        .enumerate()
        .map(|(i, g)| (color(i).to_string(), format!("governor {g}")))
        .collect();
    let (svg, note) = if with_energy {
        (xy(&points, &legend, &pct), None)
    } else {
        let why = data
            .runs
            .first()
            .and_then(|r| r.summary.environment.pointer("/energy/unavailable"))
            .and_then(|v| v.as_str())
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        (
            dots(&points, &legend, &pct),
            Some(format!(
                "Energy axis omitted: no energy source measured these runs{why}. Latency is shown alone."
            )),
        )
    };
    Figure {
        id: "latency-energy",
        title: "Latency vs. energy per configuration".into(),
        how_to_read: format!(
            "Each mark is one configuration: its mean service time over repeats (and, with an energy source, mean energy per run), with {pct} Student-t confidence intervals as error bars. Colour is the governor. Marks further left (and lower) are better; overlapping bars mean the difference may be noise."
        ),
        note,
        svg,
    }
}

struct Point {
    name: String,
    lat: (f64, f64),
    energy: Option<(f64, f64)>,
    color: &'static str,
}

fn distinct(data: &Dataset, key: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in &data.groups {
        let v = data.label(g, key);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

fn log_wanted(values: &[f64]) -> bool {
    let pos: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0).collect();
    let (lo, hi) = pos
        .iter()
        .fold((f64::INFINITY, 0f64), |(a, b), &v| (a.min(v), b.max(v)));
    pos.len() == values.len() && hi / lo > 100.0
}

/// Latency on x, energy on y, error bars both ways.
fn xy(points: &[Point], legend: &[(String, String)], pct: &str) -> String {
    let (w, h) = (860.0, 460.0);
    let mut svg = Svg::new(w, h);
    let lats: Vec<f64> = points.iter().map(|p| p.lat.0).collect();
    let x = Scale::fit(
        points
            .iter()
            .flat_map(|p| [p.lat.0 - p.lat.1, p.lat.0 + p.lat.1]),
        80.0,
        w - 30.0,
        log_wanted(&lats),
    );
    let y = Scale::fit(
        points.iter().flat_map(|p| {
            let (e, ci) = p.energy.unwrap_or((0.0, 0.0));
            [e - ci, e + ci]
        }),
        h - 90.0,
        20.0,
        false,
    );
    axes(
        &mut svg,
        &x,
        &y,
        "mean latency (µs)",
        &format!("energy per run (J), ±{pct} CI"),
    );
    for p in points {
        let (e, eci) = p.energy.unwrap_or((0.0, 0.0));
        let (px, py) = (x.map(p.lat.0), y.map(e));
        let bar = format!(r#"stroke="{}" stroke-width="1.5""#, p.color);
        svg.line(
            x.map(p.lat.0 - p.lat.1),
            py,
            x.map(p.lat.0 + p.lat.1),
            py,
            &bar,
        );
        svg.line(px, y.map(e - eci), px, y.map(e + eci), &bar);
        let title = format!(
            "{}: latency {} ± {} µs, energy {} ± {} J",
            p.name,
            num(p.lat.0),
            num(p.lat.1),
            num(e),
            num(eci)
        );
        svg.circle(px, py, 4.0, p.color, Some(&title));
    }
    svg.legend(80.0, h - 22.0, legend);
    svg.finish("latency-energy", "Latency vs. energy per configuration")
}

/// One row per configuration: latency with its interval.
fn dots(points: &[Point], legend: &[(String, String)], pct: &str) -> String {
    let row = 20.0;
    let left = label_width(points.iter().map(|p| p.name.as_str()));
    let w = 860.0;
    let h = 20.0 + row * points.len().max(1) as f64 + 64.0;
    let mut svg = Svg::new(w, h);
    let lats: Vec<f64> = points.iter().map(|p| p.lat.0).collect();
    let x = Scale::fit(
        points
            .iter()
            .flat_map(|p| [(p.lat.0 - p.lat.1).max(p.lat.0 * 0.5), p.lat.0 + p.lat.1]),
        left,
        w - 30.0,
        log_wanted(&lats),
    );
    let top = 20.0;
    let bottom = top + row * points.len().max(1) as f64;
    let grid = r##"stroke="#e5e5e5" stroke-width="1""##;
    for (v, label) in x.ticks() {
        svg.line(x.map(v), bottom, x.map(v), top, grid);
        svg.text(x.map(v), bottom + 15.0, "middle", "", &label);
    }
    svg.line(left, bottom, w - 30.0, bottom, r##"stroke="#333333""##);
    svg.text(
        (left + w - 30.0) / 2.0,
        bottom + 32.0,
        "middle",
        r#"font-weight="bold""#,
        &format!("mean latency (µs), ±{pct} CI"),
    );
    for (i, p) in points.iter().enumerate() {
        let py = top + row * (i as f64 + 0.5);
        svg.label(left - 8.0, py + 4.0, "end", &p.name);
        let bar = format!(r#"stroke="{}" stroke-width="2""#, p.color);
        let lo = (p.lat.0 - p.lat.1).max(x.lo);
        svg.line(x.map(lo), py, x.map(p.lat.0 + p.lat.1), py, &bar);
        let title = format!("{}: {} ± {} µs", p.name, num(p.lat.0), num(p.lat.1));
        svg.circle(x.map(p.lat.0), py, 4.0, p.color, Some(&title));
    }
    svg.legend(left, h - 10.0, legend);
    svg.finish(
        "latency-energy",
        "Latency per configuration (no energy source)",
    )
}

/// Pixels for the longest label (capped).
pub fn label_width<'a>(names: impl Iterator<Item = &'a str>) -> f64 {
    let longest = names
        .map(|n| n.chars().count().min(super::svg::LABEL_CHARS))
        .max()
        .unwrap_or(10);
    (longest as f64 * 6.5 + 16.0).clamp(80.0, 480.0)
}
