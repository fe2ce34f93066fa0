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

/// Values over time: x is the time since the first point. `cluster[i]`, when given, colours
/// point i by its cluster (grey: dropped by the 3σ rule).
pub fn over_time(
    id: &str,
    title: &str,
    unit: &str,
    points: &[(i64, f64)],
    cluster: &[Option<usize>],
) -> String {
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
    for (i, (px, (_, v))) in xs.iter().zip(points).enumerate() {
        let (fill, what) = match cluster.get(i) {
            Some(Some(c)) => (color(*c), format!(" (cluster {})", c + 1)),
            Some(None) => ("#999999", " (dropped by the 3σ rule)".to_string()),
            None => (color(0), String::new()),
        };
        let tip = format!("{} {unit}{what}", num(*v));
        svg.circle(x.map(*px), y.map(*v), 2.5, fill, Some(&tip));
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

/// A box plot of `values` (a model's kept results): whiskers from the least to the greatest,
/// a box from the first to the third quartile, a line at the median and a diamond at the mean.
pub fn distribution(id: &str, title: &str, unit: &str, values: &[f64], mean: f64) -> String {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let mut svg = Svg::new(640.0, 90.0);
    if v.is_empty() {
        return svg.finish(id, title);
    }
    let q = |p: f64| {
        let at = p * (v.len() - 1) as f64;
        let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (at - lo as f64)
    };
    let (min, q1, med, q3, max) = (v[0], q(0.25), q(0.5), q(0.75), v[v.len() - 1]);
    let x = Scale::fit([min, max].into_iter(), 70.0, 620.0, false);
    for (t, label) in x.ticks() {
        let px = x.map(t);
        svg.line(px, 10.0, px, 60.0, r##"stroke="#e5e5e5""##);
        svg.text(px, 75.0, "middle", "", &label);
    }
    let tip = format!(
        "{} results: min {}, quartiles {} / {} / {}, max {}, mean {} {unit}",
        v.len(),
        num(min),
        num(q1),
        num(med),
        num(q3),
        num(max),
        num(mean)
    );
    svg.line(x.map(min), 35.0, x.map(max), 35.0, r##"stroke="#333333""##);
    let w = (x.map(q3) - x.map(q1)).max(1.0);
    svg.rect(x.map(q1), 22.0, w, 26.0, color(0), &tip);
    svg.line(
        x.map(med),
        20.0,
        x.map(med),
        50.0,
        r##"stroke="#000000" stroke-width="2" class="median""##,
    );
    svg.circle(
        x.map(mean),
        35.0,
        4.0,
        "#d62728",
        Some(&format!("mean {} {unit}", num(mean))),
    );
    svg.text(620.0, 88.0, "end", "", unit);
    svg.finish(id, title)
}
