//! Latency and CPU frequency over time within a run: one panel per configuration, drawn from
//! its first repeat — each operation's service time as a dot at the time it started, and,
//! right below on the same time axis, the frequency of every cpufreq policy as a step line
//! (from the `frequency_samples` timeline the sampler stored). When no run shown has a
//! frequency timeline the strip is left out and a one-line note says why.

use super::svg::{axes, color, Scale, Svg};
use super::Figure;
use crate::error::{Result, ResultExt};
use crate::results::dataset::{self, Dataset, FreqReading, Group};
use crate::results::store::Store;

/// Most points drawn per panel (evenly spaced, plus the slowest operations).
const POINTS_PER_PANEL: usize = 1500;
const SLOWEST_KEPT: usize = 100;
/// Most frequency changes drawn per policy and panel.
const STEPS_PER_POLICY: usize = 1000;
/// Most panels drawn; the rest are named in a note.
const MAX_PANELS: usize = 24;
/// Panel size; the frequency strip adds `STRIP` to the height.
const PW: f64 = 420.0;
const PH: f64 = 210.0;
const STRIP: f64 = 105.0;

/// What one panel shows.
struct Panel<'a> {
    group: &'a Group,
    run: Option<i64>,
    /// (seconds since start, latency µs).
    ops: Vec<(f64, f64)>,
    /// Per policy: (seconds since start, MHz), changes only.
    freq: Vec<(String, Vec<(f64, f64)>)>,
}

pub fn timeline(data: &Dataset, store: &Store) -> Result<Figure> {
    let mut panels = Vec::new();
    for g in data.groups.iter().take(MAX_PANELS) {
        let run = g.runs.first().map(|&i| data.runs[i].id);
        let (ops, freq) = match run {
            Some(id) => (
                samples(store, id)?,
                steps(&dataset::frequency_timeline(store, id)?),
            ),
            None => (Vec::new(), Vec::new()),
        };
        panels.push(Panel {
            group: g,
            run,
            ops,
            freq,
        });
    }
    let with_freq = panels.iter().any(|p| !p.freq.is_empty());
    let strip = if with_freq { STRIP } else { 0.0 };
    let cols = if panels.len() > 1 { 2 } else { 1 };
    let rows = panels.len().div_ceil(cols).max(1);
    let mut svg = Svg::new(PW * cols as f64 + 20.0, (PH + strip) * rows as f64 + 10.0);
    let lat = Scale::fit(
        panels.iter().flat_map(|p| p.ops.iter().map(|o| o.1)),
        0.0,
        1.0,
        true,
    );
    let mhz = Scale::fit(
        panels
            .iter()
            .flat_map(|p| p.freq.iter().flat_map(|f| f.1.iter().map(|s| s.1))),
        0.0,
        1.0,
        false,
    );
    for (k, p) in panels.iter().enumerate() {
        let ox = 10.0 + PW * (k % cols) as f64;
        let oy = (PH + strip) * (k / cols) as f64;
        draw_panel(&mut svg, p, k, (ox, oy), (lat, mhz), with_freq);
    }
    let mut notes = Vec::new();
    if data.groups.len() > MAX_PANELS {
        notes.push(format!(
            "Only the first {MAX_PANELS} of {} configurations are drawn; use --filter to choose.",
            data.groups.len()
        ));
    }
    if !with_freq {
        let why = dataset::frequency_missing_reasons(data.runs.iter());
        notes.push(format!(
            "No CPU frequency over time: no run shown has a frequency timeline ({}).",
            why.join("; ")
        ));
    }
    Ok(Figure {
        id: "latency-over-time",
        title: "Per-operation latency and CPU frequency over time".into(),
        how_to_read: format!(
            "One panel per configuration, from its first repeat: each dot is one operation, at the time it started (since the run began) and its service time (log scale, same for every panel). Bands show operation kinds; vertical stripes show stalls (a checkpoint, a sync, the CPU clocking down). Below it, on the same time axis, each cpufreq policy's frequency as the sampler read it (MHz, same scale for every panel): a latency band that moves with a frequency step is the governor at work. At most {POINTS_PER_PANEL} evenly spaced operations are drawn per panel, plus the {SLOWEST_KEPT} slowest."
        ),
        note: (!notes.is_empty()).then(|| notes.join(" ")),
        svg: svg.finish(
            "latency-over-time",
            "Per-operation latency and CPU frequency over time",
        ),
    })
}

fn draw_panel(
    svg: &mut Svg,
    p: &Panel<'_>,
    k: usize,
    (ox, oy): (f64, f64),
    (lat, mhz): (Scale, Scale),
    with_freq: bool,
) {
    let t_max = p
        .ops
        .iter()
        .map(|o| o.0)
        .chain(p.freq.iter().flat_map(|f| f.1.iter().map(|s| s.0)))
        .fold(0.0, f64::max);
    // Short runs read better in milliseconds.
    let (unit, k_t) = if t_max < 1.0 { ("ms", 1e3) } else { ("s", 1.0) };
    let x = Scale::fit(
        [0.0, t_max * k_t].into_iter(),
        ox + 60.0,
        ox + PW - 15.0,
        false,
    );
    let y = Scale {
        px_lo: oy + PH - 45.0,
        px_hi: oy + 22.0,
        ..lat
    };
    let x_title = format!("time since run start ({unit})");
    axes(
        svg,
        &x,
        &y,
        if with_freq { "" } else { &x_title },
        "latency (µs)",
    );
    let title = match p.run {
        Some(id) => format!("run {id}: {}", p.group.name),
        None => p.group.name.clone(),
    };
    let shown = super::svg::clip(&title, 60);
    svg.text(
        ox + 10.0,
        oy + 14.0,
        "start",
        r#"font-weight="bold""#,
        &shown,
    );
    for o in &p.ops {
        svg.circle(x.map(o.0 * k_t), y.map(o.1), 1.6, color(k), None);
    }
    if p.ops.is_empty() {
        svg.text(
            ox + PW / 2.0,
            oy + PH / 2.0,
            "middle",
            "",
            "no stored samples",
        );
    }
    if !with_freq {
        return;
    }
    let f = Scale {
        px_lo: oy + PH + STRIP - 40.0,
        px_hi: oy + PH - 5.0,
        ..mhz
    };
    axes(svg, &x, &f, &x_title, "MHz");
    let mut legend = Vec::new();
    for (i, (policy, pts)) in p.freq.iter().enumerate() {
        let shade = FREQ_SHADES[i % FREQ_SHADES.len()];
        let px: Vec<(f64, f64)> = pts.iter().map(|s| (x.map(s.0 * k_t), f.map(s.1))).collect();
        svg.path(&px, shade);
        legend.push((shade, policy.as_str()));
    }
    if p.freq.is_empty() {
        svg.text(
            ox + PW / 2.0,
            f.px_hi + 25.0,
            "middle",
            "",
            "no frequency timeline for this run",
        );
    }
    let mut lx = x.px_hi;
    for (shade, policy) in legend.iter().rev() {
        svg.text(
            lx,
            f.px_hi - 4.0,
            "end",
            &format!(r#"fill="{shade}""#),
            policy,
        );
        lx -= 8.0 + 6.2 * policy.chars().count() as f64;
    }
}

/// Policy line colours: dark, so they read apart from the panels' latency dots.
const FREQ_SHADES: [&str; 4] = ["#333333", "#b0413e", "#2f6b9a", "#6a8f3c"];

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

/// Each policy's readings (from the run's start on) as the corners of a step line in
/// (seconds, MHz): a point where the frequency changes, one just before it holding the old
/// value, and the last reading; at most [`STEPS_PER_POLICY`] changes (evenly chosen).
fn steps(readings: &[FreqReading]) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut policies: Vec<(String, Vec<(i64, u32)>)> = Vec::new();
    for r in readings.iter().filter(|r| r.t_ns >= 0) {
        let i = match policies.iter().position(|(p, _)| *p == r.policy) {
            Some(i) => i,
            None => {
                policies.push((r.policy.clone(), Vec::new()));
                policies.len() - 1
            }
        };
        policies[i].1.push((r.t_ns, r.khz));
    }
    policies.sort_by(|a, b| a.0.cmp(&b.0));
    policies
        .into_iter()
        .map(|(policy, all)| {
            let mut changes: Vec<usize> = (0..all.len())
                .filter(|&i| i == 0 || all[i].1 != all[i - 1].1)
                .collect();
            if changes.len() > STEPS_PER_POLICY {
                let step = changes.len().div_ceil(STEPS_PER_POLICY);
                changes = changes.into_iter().step_by(step).collect();
            }
            let point = |t: i64, khz: u32| (t as f64 / 1e9, f64::from(khz) / 1e3);
            let mut pts = Vec::with_capacity(changes.len() * 2 + 1);
            for &i in &changes {
                if i > 0 {
                    pts.push(point(all[i].0, all[i - 1].1));
                }
                pts.push(point(all[i].0, all[i].1));
            }
            if let Some(&(t, khz)) = all.last() {
                pts.push(point(t, khz));
            }
            (policy, pts)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_spacing_and_the_slowest() {
        let all: Vec<(i64, i64)> = (0..10_000)
            .map(|i| (i, if i == 7777 { 1_000_000 } else { i % 10 }))
            .collect();
        let kept = thin(&all);
        assert!(kept.len() <= POINTS_PER_PANEL + SLOWEST_KEPT);
        assert!(kept.contains(&(7777, 1_000_000)));
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn frequency_readings_become_step_lines_per_policy() {
        let r = |t: i64, policy: &str, khz: u32| FreqReading {
            t_ns: t * 1_000_000_000,
            policy: policy.into(),
            khz,
        };
        let readings = [
            r(-1, "policy0", 100_000),
            r(0, "policy4", 2_000_000),
            r(0, "policy0", 300_000),
            r(1, "policy0", 300_000),
            r(2, "policy0", 900_000),
            r(3, "policy0", 900_000),
        ];
        let s = steps(&readings);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].0, "policy0");
        assert_eq!(
            s[0].1,
            [(0.0, 300.0), (2.0, 300.0), (2.0, 900.0), (3.0, 900.0)],
            "readings before the start dropped; a step holds the old value until the change"
        );
        assert_eq!(s[1].1, [(0.0, 2000.0), (0.0, 2000.0)]);
    }
}
