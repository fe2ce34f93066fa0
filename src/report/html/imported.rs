//! The figures of an imported trace (`report --trace app.pbt`): its arrival timeline
//! (statements started per time slice, one line per connection, from the run records' recorded
//! offsets) and its top statements by count and by original time (the fingerprints
//! `trace stats` gives).

use super::svg::{axes, clip, color, num, Scale, Svg};
use super::Figure;
use crate::error::Result;
use crate::workload::import::stats::file as stats_file;
use crate::workload::import::stats::Top;
use crate::workload::trace::{TraceItem, TraceReader};
use std::path::Path;

/// Time slices of the arrival timeline.
pub const SLICES: usize = 60;
/// Connections drawn (the busiest); the others are named in the note.
const LINES: usize = 8;
/// Statements of each top list.
const TOP: usize = 10;

/// Statements started per slice, per connection: (slice width in ns, counts[conn][slice]).
pub fn arrivals(trace: &Path) -> Result<(u64, Vec<Vec<u64>>)> {
    let mut starts: Vec<(u32, u64)> = Vec::new();
    let mut clock = 0u64;
    for item in TraceReader::open(trace)? {
        if let TraceItem::Run(t) = item? {
            let (conn, at) = match t.recorded {
                Some(r) => (r.conn, r.offset_ns),
                None => (0, clock),
            };
            clock = clock.saturating_add(t.delay_ns);
            starts.push((conn, at));
        }
    }
    let span = starts.iter().map(|s| s.1).max().unwrap_or(0);
    let width = (span / SLICES as u64 + 1).max(1);
    let conns = starts.iter().map(|s| s.0 as usize + 1).max().unwrap_or(0);
    let mut counts = vec![vec![0u64; SLICES]; conns];
    for (conn, at) in starts {
        counts[conn as usize][((at / width) as usize).min(SLICES - 1)] += 1;
    }
    Ok((width, counts))
}

/// Both figures of the trace at `path`.
pub fn figures(path: &Path) -> Result<Vec<Figure>> {
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let (width, counts) = arrivals(path)?;
    let stats = stats_file::of_file(path, "auto")?;
    Ok(vec![
        timeline(&name, width, &counts),
        top(&name, &stats.top_by_count, &stats.top_by_time),
    ])
}

fn timeline(name: &str, width: u64, counts: &[Vec<u64>]) -> Figure {
    let (w, h) = (860.0, 420.0);
    let mut svg = Svg::new(w, h);
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(counts[c].iter().sum::<u64>()));
    let shown: Vec<usize> = order.iter().copied().take(LINES).collect();
    let secs = |slice: usize| (slice as u64 * width) as f64 / 1e9;
    let x = Scale::fit([0.0, secs(SLICES)].into_iter(), 70.0, w - 30.0, false);
    let y = Scale::fit(
        shown
            .iter()
            .flat_map(|&c| counts[c].iter().map(|&n| n as f64))
            .chain([0.0]),
        h - 100.0,
        20.0,
        false,
    );
    axes(
        &mut svg,
        &x,
        &y,
        "time since the first statement (s)",
        &format!("statements started per {} s", num(width as f64 / 1e9)),
    );
    let mut legend = Vec::new();
    for (i, &c) in shown.iter().enumerate() {
        let pts: Vec<(f64, f64)> = counts[c]
            .iter()
            .enumerate()
            .map(|(s, &n)| (x.map(secs(s)), y.map(n as f64)))
            .collect();
        svg.path(&pts, color(i));
        for (s, &n) in counts[c].iter().enumerate().filter(|(_, n)| **n > 0) {
            let title = format!("conn {c}: {n} statement(s) from {} s", num(secs(s)));
            svg.circle(x.map(secs(s)), y.map(n as f64), 2.0, color(i), Some(&title));
        }
        legend.push((
            color(i).to_string(),
            format!("conn {c} ({})", counts[c].iter().sum::<u64>()),
        ));
    }
    svg.legend(70.0, h - 52.0, &legend);
    let hidden = counts.len().saturating_sub(shown.len());
    Figure {
        id: "trace-arrivals",
        title: format!("Arrivals of the imported trace {name}, per connection"),
        how_to_read: format!("Statements of the trace started in each of {SLICES} equal slices of its recorded time (x: seconds since its first statement), one line per connection (the app's threads and connections, as the log named them). Bursts are peaks; flat stretches at zero are the app's idle gaps; lines that rise together show connections racing for the database."),
        note: (hidden > 0).then(|| format!("{hidden} quieter connection(s) not drawn")),
        svg: svg.finish("trace-arrivals", "Arrivals of the imported trace"),
    }
}

fn top(name: &str, by_count: &[Top], by_time: &[Top]) -> Figure {
    let rows = TOP.min(by_count.len().max(by_time.len()));
    let (w, row_h) = (860.0, 22.0);
    let h = 70.0 + 2.0 * (rows as f64 * row_h + 40.0);
    let mut svg = Svg::new(w, h);
    let mut y0 = 30.0;
    for (panel, (list, value)) in [
        (by_count, (|t: &Top| t.count as f64) as fn(&Top) -> f64),
        (by_time, |t: &Top| t.total_ns as f64 / 1e6),
    ]
    .into_iter()
    .enumerate()
    {
        let heading = if panel == 0 {
            "by count (statements)"
        } else {
            "by time (ms, as the log timed them)"
        };
        svg.text(20.0, y0, "start", r#"font-weight="bold""#, heading);
        let max = list.iter().take(TOP).map(value).fold(0.0, f64::max);
        for (i, t) in list.iter().take(TOP).enumerate() {
            let y = y0 + 10.0 + i as f64 * row_h;
            let v = value(t);
            let bar = if max > 0.0 { v / max * 380.0 } else { 0.0 };
            let title = format!(
                "{}: {} statement(s), {} ms",
                t.fingerprint,
                t.count,
                num(t.total_ns as f64 / 1e6)
            );
            svg.rect(420.0, y, bar.max(1.0), row_h - 6.0, color(panel), &title);
            svg.label(410.0, y + row_h - 9.0, "end", &clip(&t.fingerprint, 60));
            svg.label(424.0 + bar, y + row_h - 9.0, "start", &num(v));
        }
        y0 += rows as f64 * row_h + 40.0;
    }
    Figure {
        id: "trace-top",
        title: format!("Top statements of the imported trace {name}"),
        how_to_read: format!("The trace's {TOP} most frequent statement shapes (literals as ?, as trace stats prints them) and the {TOP} that took most time in the app, by their durations as the log recorded them. A shape high on time but low on count is a slow statement; high on count, a chatty one."),
        note: None,
        svg: svg.finish("trace-top", "Top statements of the imported trace"),
    }
}
