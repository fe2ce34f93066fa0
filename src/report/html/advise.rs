//! The advice figure: the latest `advise` run in the store, one bar per measured candidate —
//! the app's busy time it saved (right of zero) or cost (left), with its 95% interval as a
//! whisker; green where proposed (the interval excludes zero, answers equal), grey where the
//! interval includes zero, red where slower; the proposed changes together last. Absent when
//! the store holds no advice.

use super::svg::{Scale, Svg};
use super::Figure;
use crate::error::{Result, ResultExt};
use crate::results::store::Store;
use serde_json::Value;

const ROW: f64 = 24.0;
const LABEL: f64 = 380.0;
const PANEL: f64 = 420.0;
const PROPOSED: &str = "#4c9a5b";
const NO_GAIN: &str = "#9a9a9a";
const SLOWER: &str = "#c8553d";

/// One bar: label, saved ms, interval half-width, colour.
type Bar = (String, f64, f64, &'static str);

fn bar(row: &Value, label: String) -> Option<Bar> {
    let c = &row["gain"]["comparison"];
    let saved = -c["diff"].as_f64()?;
    let half = c["diff_ci_half"].as_f64().unwrap_or(0.0);
    let colour = match row["verdict"]["verdict"].as_str() {
        Some("proposed") => PROPOSED,
        Some("slower") => SLOWER,
        _ if label.starts_with("together") && saved - half > 0.0 => PROPOSED,
        _ => NO_GAIN,
    };
    Some((label, saved, half, colour))
}

/// The figure, or `None` without an advice.
pub fn figure(store: &Store) -> Result<Option<Figure>> {
    let what = "results store: advice";
    let mut stmt = store
        .conn()
        .prepare("SELECT id, summary FROM runs WHERE kind = ?1 ORDER BY id DESC LIMIT 1")
        .run_err(what)?;
    let mut rows = stmt.query([crate::advise::SUITE]).run_err(what)?;
    let Some(row) = rows.next().run_err(what)? else {
        return Ok(None);
    };
    let (id, text): (i64, String) = (row.get(0).run_err(what)?, row.get(1).run_err(what)?);
    let advice: Value = serde_json::from_str(&text).run_err(what)?;
    let mut bars: Vec<Bar> = advice["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| bar(r, r["candidate"]["change"].as_str()?.to_string()))
        .collect();
    bars.extend(bar(
        &advice["combined"],
        "together: the proposed changes".into(),
    ));
    if bars.is_empty() {
        return Ok(None);
    }
    let top = 40.0;
    let height = top + ROW * bars.len() as f64 + 40.0;
    let mut svg = Svg::new(LABEL + PANEL + 120.0, height);
    let ends = bars.iter().flat_map(|(_, s, h, _)| [s - h, s + h, 0.0]);
    let x = Scale::fit(ends, LABEL, LABEL + PANEL, false);
    svg.text(
        LABEL,
        top - 16.0,
        "start",
        r#"font-weight="bold""#,
        "busy time saved, ms (95% interval)",
    );
    for (i, (label, saved, half, colour)) in bars.iter().enumerate() {
        let y = top + ROW * i as f64;
        svg.label(
            LABEL - 8.0,
            y + ROW * 0.6,
            "end",
            &super::svg::clip(label, 60),
        );
        svg.points += 1;
        let (a, b) = (x.map(0.0), x.map(*saved));
        let title = format!("{label}: saves {saved:.3} ms ± {half:.3}");
        svg.rect(
            a.min(b),
            y + 5.0,
            (b - a).abs().max(1.0),
            ROW - 10.0,
            colour,
            &title,
        );
        let (lo, hi) = (x.map(saved - half), x.map(saved + half));
        let mid = y + ROW / 2.0;
        svg.line(lo, mid, hi, mid, r##"stroke="#222222""##);
        svg.line(lo, mid - 4.0, lo, mid + 4.0, r##"stroke="#222222""##);
        svg.line(hi, mid - 4.0, hi, mid + 4.0, r##"stroke="#222222""##);
        svg.label(
            LABEL + PANEL + 8.0,
            y + ROW * 0.6,
            "start",
            &format!("{saved:.1} ± {half:.1}"),
        );
    }
    let bottom = top + ROW * bars.len() as f64;
    let zero = x.map(0.0);
    svg.line(zero, top - 4.0, zero, bottom, r##"stroke="#444444""##);
    for (v, t) in x.ticks() {
        svg.label(x.map(v), bottom + 16.0, "middle", &t);
    }
    Ok(Some(Figure {
        id: "advise",
        title: format!(
            "advise run #{id}: what each candidate change saved on {}",
            advice["trace"].as_str().unwrap_or("the trace")
        ),
        how_to_read: "One bar per candidate measured against the app's own baseline (interleaved replays): the app's busy time it saved (right of zero) or cost (left), with its 95% interval. Green: proposed (the interval excludes zero and every answer was the baseline's); grey: the interval includes zero; red: slower. The last bar is the proposed changes measured together. Candidates rejected for changing answers or not measured are not drawn (docs/advise.md).".into(),
        note: None,
        svg: svg.finish("advise", "advise: busy time saved per candidate"),
    }))
}
