//! Latency CDFs per configuration (all repeats' operations pooled), one curve each, with
//! each curve's p99 marked.

use super::svg::{axes, color, num, Scale, Svg};
use super::Figure;
use crate::results::dataset::Dataset;

pub fn cdf(data: &Dataset) -> Figure {
    let (w, h) = (860.0, 440.0);
    let mut svg = Svg::new(w, h);
    let qs: Vec<f64> = (0..100)
        .map(|i| i as f64 / 100.0)
        .chain([0.995, 0.999, 0.9999, 1.0])
        .collect();
    let curves: Vec<Vec<(f64, f64)>> = data
        .groups
        .iter()
        .map(|g| {
            if g.pooled.count() == 0 {
                return Vec::new();
            }
            qs.iter()
                .map(|&q| ((g.pooled.quantile_ns(q).max(1) as f64) / 1e3, q))
                .collect()
        })
        .collect();
    let x = Scale::fit(curves.iter().flatten().map(|p| p.0), 70.0, w - 30.0, true);
    let y = Scale {
        lo: 0.0,
        hi: 1.0,
        px_lo: h - 110.0,
        px_hi: 20.0,
        log: false,
    };
    axes(
        &mut svg,
        &x,
        &y,
        "latency (µs, log scale)",
        "fraction of operations ≤ x",
    );
    let mut legend = Vec::new();
    for (i, (g, c)) in data.groups.iter().zip(&curves).enumerate() {
        let px: Vec<(f64, f64)> = c.iter().map(|(l, q)| (x.map(*l), y.map(*q))).collect();
        svg.path(&px, color(i));
        if let Some(p99) = c.iter().find(|p| p.1 >= 0.99) {
            let title = format!("{}: p99 {} µs", g.name, num(p99.0));
            svg.raw(&format!(
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{}"><title>{}</title></circle>"#,
                x.map(p99.0),
                y.map(p99.1),
                color(i),
                super::svg::esc(&title)
            ));
        }
        legend.push((color(i).to_string(), g.name.clone()));
    }
    svg.legend(70.0, h - 62.0, &legend);
    Figure {
        id: "latency-cdf",
        title: "Latency CDF per configuration (all repeats pooled)".into(),
        how_to_read: "For each configuration, the fraction of operations (y) that finished within a latency (x, log scale), over every operation of every repeat. Curves to the left are faster; a curve that bends right at the top has a heavy tail (read p99 where the curve crosses 0.99, marked with a dot).".into(),
        note: None,
        svg: svg.finish("latency-cdf", "Latency CDF per configuration"),
    }
}
