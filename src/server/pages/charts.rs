//! The dashboard's SVG charts, drawn with the report's chart kit: a model's results over time,
//! every model's mean by first-seen date, and horizontal bars with ±1 sd whiskers (rankings and
//! comparisons).

use crate::report::html::svg::{axes, clip, color, num, Scale, Svg};

/// The time unit an x axis of `span_ms` reads best in: (milliseconds per unit, its name).
fn time_unit(span_ms: i64) -> (f64, &'static str) {
    match span_ms {
        s if s >= 2 * 86_400_000 => (86_400_000.0, "days"),
        s if s >= 2 * 3_600_000 => (3_600_000.0, "hours"),
        s if s >= 2 * 60_000 => (60_000.0, "minutes"),
        _ => (1000.0, "seconds"),
    }
}

/// Times (Unix ms) as offsets from the earliest, in a unit that suits their span.
fn offsets(times: &[i64]) -> (Vec<f64>, &'static str) {
    let t0 = times.iter().copied().min().unwrap_or(0);
    let t1 = times.iter().copied().max().unwrap_or(0);
    let (per, name) = time_unit(t1 - t0);
    (times.iter().map(|t| (t - t0) as f64 / per).collect(), name)
}

/// Values over time: x is the time since the first point.
pub fn over_time(id: &str, title: &str, unit: &str, points: &[(i64, f64)]) -> String {
    let (xs, name) = offsets(&points.iter().map(|p| p.0).collect::<Vec<_>>());
    let mut svg = Svg::new(640.0, 280.0);
    let x = Scale::fit(xs.iter().copied(), 70.0, 620.0, false);
    let y = Scale::fit(points.iter().map(|p| p.1), 230.0, 20.0, false);
    axes(
        &mut svg,
        &x,
        &y,
        &format!("{name} since the first result"),
        unit,
    );
    for (px, (_, v)) in xs.iter().zip(points) {
        let tip = format!("{} {unit}", num(*v));
        svg.circle(x.map(*px), y.map(*v), 2.5, color(0), Some(&tip));
    }
    svg.finish(id, title)
}

/// One point per model: x its first-seen date (since the earliest), y its mean.
pub fn by_first_seen(id: &str, title: &str, unit: &str, models: &[(String, i64, f64)]) -> String {
    let (xs, name) = offsets(&models.iter().map(|m| m.1).collect::<Vec<_>>());
    let mut svg = Svg::new(640.0, 280.0);
    let x = Scale::fit(xs.iter().copied(), 70.0, 620.0, false);
    let y = Scale::fit(models.iter().map(|m| m.2), 230.0, 20.0, false);
    let title_x = format!("model first seen ({name} since the first model)");
    axes(&mut svg, &x, &y, &title_x, unit);
    // Each point labelled with its model (the first 40, so that a crowded chart stays legible;
    // every point keeps its tooltip).
    for (i, (px, (model, _, v))) in xs.iter().zip(models).enumerate() {
        let tip = format!("{model}: {} {unit}", num(*v));
        svg.circle(x.map(*px), y.map(*v), 3.5, color(i), Some(&tip));
        if i < 40 {
            let extra = r#"class="point-label" font-size="10""#;
            svg.text(
                x.map(*px) + 5.0,
                y.map(*v) - 5.0,
                "start",
                extra,
                &clip(model, 24),
            );
        }
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
