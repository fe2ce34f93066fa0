//! The flashbench figures (after the flash study): per-request response time, throughput and
//! the modelled flash reads, programs and erased pages per KB, each against request count
//! with one line per record size and one panel per request type. Drawn from the latest
//! flashbench run in the results store; absent when the store holds none.

use super::svg::{axes, color, Scale, Svg};
use super::Figure;
use crate::bench_suites::flashbench::{CellResult, FlashbenchRun, Request};

/// One figure: its id, title, y-axis title and how to read a cell's value.
struct Metric {
    id: &'static str,
    title: &'static str,
    y_title: &'static str,
    value: fn(&CellResult) -> Option<f64>,
    meaning: &'static str,
}

const METRICS: &[Metric] = &[
    Metric {
        id: "flashbench-response-time",
        title: "flashbench: response time per request",
        y_title: "mean per request (µs)",
        value: |c| Some(c.request_us.mean),
        meaning: "the mean service time of one request (BEGIN and END are timed apart and not included)",
    },
    Metric {
        id: "flashbench-throughput",
        title: "flashbench: throughput",
        y_title: "KB/s",
        value: |c| Some(c.throughput_kb_s),
        meaning: "request data (count × record size) over the whole transaction, BEGIN to END",
    },
    Metric {
        id: "flashbench-reads-per-kb",
        title: "flashbench: flash page reads per KB (modelled)",
        y_title: "page reads per KB",
        value: |c| c.flash_per_kb.reads_per_kb,
        meaning: "NAND page reads of the flash model per KB of request data, garbage collection included",
    },
    Metric {
        id: "flashbench-programs-per-kb",
        title: "flashbench: flash page writes per KB (modelled)",
        y_title: "page programs per KB",
        value: |c| c.flash_per_kb.programs_per_kb,
        meaning: "NAND page programs (writes) of the flash model per KB of request data, garbage collection included",
    },
    Metric {
        id: "flashbench-erases-per-kb",
        title: "flashbench: flash erases per KB (modelled)",
        y_title: "erased pages per KB",
        value: |c| c.flash_per_kb.erased_pages_per_kb,
        meaning: "block erases of the flash model per KB of request data, counted in pages (erases × pages per block) as in the study",
    },
];

const PW: f64 = 430.0;
const PH: f64 = 250.0;

/// The flashbench figures of `run` (`stored` runs in the store, the latest drawn).
pub fn figures(run: &FlashbenchRun, stored: usize) -> Vec<Figure> {
    METRICS.iter().map(|m| figure(run, stored, m)).collect()
}

fn figure(run: &FlashbenchRun, stored: usize, m: &Metric) -> Figure {
    let requests: Vec<Request> = run
        .settings
        .requests
        .iter()
        .copied()
        .filter(|r| run.cells.iter().any(|c| c.request == *r))
        .collect();
    let sizes = &run.settings.record_sizes;
    let cols = if requests.len() > 1 { 2 } else { 1 };
    let rows = requests.len().div_ceil(cols).max(1);
    let mut svg = Svg::new(PW * cols as f64 + 20.0, PH * rows as f64 + 72.0);
    for (k, &req) in requests.iter().enumerate() {
        let (ox, oy) = (10.0 + PW * (k % cols) as f64, PH * (k / cols) as f64);
        let cells: Vec<&CellResult> = run.cells.iter().filter(|c| c.request == req).collect();
        let x = Scale::fit(
            cells.iter().map(|c| f64::from(c.count)),
            ox + 65.0,
            ox + PW - 15.0,
            false,
        );
        let y = Scale::fit(
            cells.iter().filter_map(|c| (m.value)(c)),
            oy + PH - 45.0,
            oy + 24.0,
            false,
        );
        axes(&mut svg, &x, &y, "requests in the transaction", m.y_title);
        svg.text(
            ox + 10.0,
            oy + 14.0,
            "start",
            r#"font-weight="bold""#,
            &req.name().to_uppercase(),
        );
        for (i, &size) in sizes.iter().enumerate() {
            let mut line: Vec<(u32, f64)> = cells
                .iter()
                .filter(|c| c.record_size == size)
                .filter_map(|c| Some((c.count, (m.value)(c)?)))
                .collect();
            line.sort_by_key(|p| p.0);
            let px: Vec<(f64, f64)> = line
                .iter()
                .map(|&(n, v)| (x.map(f64::from(n)), y.map(v)))
                .collect();
            svg.path(&px, color(i));
            // Markers (not counted again), larger for earlier sizes so that lines lying on
            // each other (zero erases) stay visible; hover shows the value.
            let r = (4.0 - i as f64).max(1.5);
            for (&(n, v), &(cx, cy)) in line.iter().zip(&px) {
                svg.raw(&format!(
                    r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="{r}" fill="{}"><title>{size} B × {n}: {}</title></circle>"#,
                    color(i),
                    super::svg::num(v)
                ));
            }
        }
    }
    let legend: Vec<(String, String)> = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| (color(i).to_string(), format!("{s}-byte records")))
        .collect();
    svg.legend(75.0, PH * rows as f64 + 20.0, &legend);
    // The figure alone (PNG, SVG) says what it is: which run, and that flash counts are the
    // model's.
    let caption = [
        format!(
            "flashbench run #{}, flash model preset {}:",
            run.id, run.settings.model.preset
        ),
        "flash reads, programs and erases are modelled, not measured".to_string(),
    ];
    for (i, line) in caption.iter().enumerate() {
        let y = PH * rows as f64 + 48.0 + 14.0 * i as f64;
        svg.text(10.0, y, "start", r##"fill="#555555""##, line);
    }
    let note = (stored > 1).then(|| {
        format!(
            "Drawn from flashbench run #{}, the latest of {stored} in the store.",
            run.id
        )
    });
    Figure {
        id: m.id,
        title: m.title.into(),
        how_to_read: format!(
            "One panel per request type, one line per record size: {} (y, each panel its own scale) against the number of requests in the transaction (x). Each point is one cell of the grid, run on a fresh database. Flash figures come from the NAND flash model ({}), not from the device.",
            m.meaning, run.model
        ),
        note,
        svg: svg.finish(m.id, m.title),
    }
}
