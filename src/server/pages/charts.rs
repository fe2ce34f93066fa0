//! The dashboard's SVG charts, drawn with the report's chart kit: a model's results over time,
//! every model's mean by first-seen date, and horizontal bars with ±1 sd whiskers (rankings and
//! comparisons).

use crate::report::html::svg::{axes, clip, color, num, Scale, Svg};

const DAY_MS: f64 = 86_400_000.0;

/// Values over time: x is days since the first point.
pub fn over_time(id: &str, title: &str, unit: &str, points: &[(i64, f64)]) -> String {
    let t0 = points.iter().map(|p| p.0).min().unwrap_or(0);
    let days = |t: i64| (t - t0) as f64 / DAY_MS;
    let mut svg = Svg::new(640.0, 280.0);
    let x = Scale::fit(points.iter().map(|p| days(p.0)), 70.0, 620.0, false);
    let y = Scale::fit(points.iter().map(|p| p.1), 230.0, 20.0, false);
    axes(&mut svg, &x, &y, "days since the first result", unit);
    for (t, v) in points {
        let tip = format!("{} {unit}", num(*v));
        svg.circle(x.map(days(*t)), y.map(*v), 2.5, color(0), Some(&tip));
    }
    svg.finish(id, title)
}

/// One point per model: x its first-seen date (days since the earliest), y its mean.
pub fn by_first_seen(id: &str, title: &str, unit: &str, models: &[(String, i64, f64)]) -> String {
    let t0 = models.iter().map(|m| m.1).min().unwrap_or(0);
    let days = |t: i64| (t - t0) as f64 / DAY_MS;
    let mut svg = Svg::new(640.0, 280.0);
    let x = Scale::fit(models.iter().map(|m| days(m.1)), 70.0, 620.0, false);
    let y = Scale::fit(models.iter().map(|m| m.2), 230.0, 20.0, false);
    axes(
        &mut svg,
        &x,
        &y,
        "model first seen (days since the first model)",
        unit,
    );
    for (i, (model, t, v)) in models.iter().enumerate() {
        let tip = format!("{model}: {} {unit}", num(*v));
        svg.circle(x.map(days(*t)), y.map(*v), 3.5, color(i), Some(&tip));
    }
    svg.finish(id, title)
}

/// Horizontal bars (mean) with ±1 sd whiskers, one per labelled row.
pub fn bars(id: &str, title: &str, unit: &str, rows: &[(String, f64, f64)]) -> String {
    let row_h = 22.0;
    let left = 200.0;
    let height = 50.0 + row_h * rows.len() as f64;
    let mut svg = Svg::new(640.0, height);
    let x = Scale::fit(rows.iter().map(|r| r.1 + r.2), left, 620.0, false);
    for (v, label) in x.ticks() {
        let px = x.map(v);
        svg.line(px, 10.0, px, height - 30.0, r##"stroke="#e5e5e5""##);
        svg.text(px, height - 16.0, "middle", "", &label);
    }
    for (i, (label, mean, sd)) in rows.iter().enumerate() {
        let y = 12.0 + row_h * i as f64;
        let w = (x.map(*mean) - x.map(0.0)).max(0.0);
        let tip = format!("{label}: {} ± {} {unit}", num(*mean), num(*sd));
        svg.rect(x.map(0.0), y, w, row_h - 6.0, color(i), &tip);
        let (lo, hi) = (x.map((mean - sd).max(0.0)), x.map(mean + sd));
        let cy = y + (row_h - 6.0) / 2.0;
        svg.line(lo, cy, hi, cy, r##"stroke="#333333""##);
        svg.text(left - 6.0, cy + 4.0, "end", "", &clip(label, 30));
    }
    svg.text(
        (left + 620.0) / 2.0,
        height - 2.0,
        "middle",
        r#"font-weight="bold""#,
        unit,
    );
    svg.finish(id, title)
}
