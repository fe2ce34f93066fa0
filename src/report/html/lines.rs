//! Per-operation figures: latency over time within a run (a scatter, one panel per
//! configuration, drawn from the stored samples of its first repeat) and latency CDFs per
//! configuration (all repeats' operations pooled).

use super::svg::{axes, color, num, Scale, Svg};
use super::Figure;
use crate::error::{Result, ResultExt};
use crate::results::dataset::Dataset;
use crate::results::store::Store;

/// Most points drawn per panel (evenly spaced, plus the slowest operations).
const POINTS_PER_PANEL: usize = 1500;
const SLOWEST_KEPT: usize = 100;
/// Most panels drawn; the rest are named in a note.
const MAX_PANELS: usize = 24;

pub fn timeline(data: &Dataset, store: &Store) -> Result<Figure> {
    let (pw, ph) = (420.0, 210.0);
    let panels: Vec<_> = data.groups.iter().take(MAX_PANELS).collect();
    let cols = 2usize;
    let rows = panels.len().div_ceil(cols).max(1);
    let mut svg = Svg::new(pw * cols as f64 + 20.0, ph * rows as f64 + 10.0);
    let mut series = Vec::new();
    for g in &panels {
        let run = g.runs.first().map(|&i| &data.runs[i]);
        let pts = match run {
            Some(r) => samples(store, r.id)?,
            None => Vec::new(),
        };
        series.push((g, run.map(|r| r.id), pts));
    }
    let lat = Scale::fit(
        series.iter().flat_map(|s| s.2.iter().map(|p| p.1)),
        0.0,
        1.0,
        true,
    );
    for (k, (g, run, pts)) in series.iter().enumerate() {
        let ox = 10.0 + pw * (k % cols) as f64;
        let oy = ph * (k / cols) as f64;
        let t_max = pts.iter().map(|p| p.0).fold(0.0, f64::max);
        // Short runs read better in milliseconds.
        let (unit, k_t) = if t_max < 1.0 { ("ms", 1e3) } else { ("s", 1.0) };
        let x = Scale::fit(
            [0.0, t_max * k_t].into_iter(),
            ox + 60.0,
            ox + pw - 15.0,
            false,
        );
        let y = Scale {
            px_lo: oy + ph - 45.0,
            px_hi: oy + 22.0,
            ..lat
        };
        axes(
            &mut svg,
            &x,
            &y,
            &format!("time since run start ({unit})"),
            "latency (µs)",
        );
        let title = match run {
            Some(id) => format!("run {id}: {}", g.name),
            None => g.name.clone(),
        };
        let shown = super::svg::clip(&title, 60);
        svg.text(
            ox + 10.0,
            oy + 14.0,
            "start",
            r#"font-weight="bold""#,
            &shown,
        );
        for p in pts {
            svg.circle(x.map(p.0 * k_t), y.map(p.1), 1.6, color(k), None);
        }
        if pts.is_empty() {
            svg.text(
                ox + pw / 2.0,
                oy + ph / 2.0,
                "middle",
                "",
                "no stored samples",
            );
        }
    }
    let note = (data.groups.len() > MAX_PANELS).then(|| {
        format!(
            "Only the first {MAX_PANELS} of {} configurations are drawn; use --filter to choose.",
            data.groups.len()
        )
    });
    Ok(Figure {
        id: "latency-over-time",
        title: "Per-operation latency over time".into(),
        how_to_read: format!(
            "One panel per configuration, from its first repeat: each dot is one operation, at the time it started (since the run began) and its service time (log scale, same for every panel). Bands show operation kinds; vertical stripes show stalls (a checkpoint, a sync, the CPU clocking down). At most {POINTS_PER_PANEL} evenly spaced operations are drawn per panel, plus the {SLOWEST_KEPT} slowest."
        ),
        note,
        svg: svg.finish("latency-over-time", "Per-operation latency over time"),
    })
}

/// (seconds since start, latency µs) of run `id`, thinned for drawing.
fn samples(store: &Store, id: i64) -> Result<Vec<(f64, f64)>> {
    let mut stmt = store
        .conn()
        .prepare_cached(
            "SELECT start_ns, end_ns - start_ns FROM op_samples WHERE run_id = ?1 ORDER BY seq",
        )
        .run_err("results store: samples")?;
    let all: Vec<(i64, i64)> = stmt
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .run_err("results store: samples")?
        .collect::<std::result::Result<_, _>>()
        .run_err("results store: samples")?;
    Ok(thin(&all)
        .into_iter()
        .map(|(t, l)| (t as f64 / 1e9, (l.max(1) as f64) / 1e3))
        .collect())
}

/// Every k-th point, plus the slowest, in time order.
fn thin(all: &[(i64, i64)]) -> Vec<(i64, i64)> {
    if all.len() <= POINTS_PER_PANEL + SLOWEST_KEPT {
        return all.to_vec();
    }
    let step = all.len().div_ceil(POINTS_PER_PANEL);
    let mut keep: Vec<usize> = (0..all.len()).step_by(step).collect();
    let mut by_latency: Vec<usize> = (0..all.len()).collect();
    by_latency.select_nth_unstable_by_key(SLOWEST_KEPT, |&i| std::cmp::Reverse(all[i].1));
    keep.extend_from_slice(&by_latency[..SLOWEST_KEPT]);
    keep.sort_unstable();
    keep.dedup();
    keep.into_iter().map(|i| all[i]).collect()
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn thinning_keeps_spacing_and_the_slowest() {
        let all: Vec<(i64, i64)> = (0..10_000)
            .map(|i| (i, if i == 7777 { 1_000_000 } else { i % 10 }))
            .collect();
        let kept = super::thin(&all);
        assert!(kept.len() <= super::POINTS_PER_PANEL + super::SLOWEST_KEPT);
        assert!(kept.contains(&(7777, 1_000_000)));
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
