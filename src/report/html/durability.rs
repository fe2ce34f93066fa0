//! The durability figure: speed and safety side by side, one row per configuration of the
//! latest `durability` run of each engine in the store — transactions per second with real
//! syncs (left, log scale) beside the share of simulated power failures after which an
//! acknowledged commit was missing (right), with integrity failures marked. Absent when the
//! store holds no durability run.

use super::svg::{Scale, Svg};
use super::Figure;
use crate::durability::{ConfigReport, DurabilityRun, SUITE};
use crate::error::{Result, ResultExt};
use crate::results::store::Store;

const ROW: f64 = 26.0;
const LABEL: f64 = 300.0;
const PANEL: f64 = 260.0;
const GAP: f64 = 40.0;
const SAFE: &str = "#4c9a5b";
const LOSES: &str = "#c8553d";

/// The latest durability run of each engine, newest engine first.
pub fn latest_runs(store: &Store) -> Result<Vec<DurabilityRun>> {
    let what = "results store: durability runs";
    let mut stmt = store
        .conn()
        .prepare("SELECT id, summary FROM runs WHERE kind = ?1 ORDER BY id DESC")
        .run_err(what)?;
    let rows = stmt
        .query_map([SUITE], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })
        .run_err(what)?;
    let mut runs: Vec<DurabilityRun> = Vec::new();
    for row in rows {
        let (id, text) = row.run_err(what)?;
        let mut run: DurabilityRun = serde_json::from_str(&text).run_err(what)?;
        run.id = id;
        if run.replay.is_none() && !runs.iter().any(|r| r.engine == run.engine) {
            runs.push(run);
        }
    }
    Ok(runs)
}

fn name(run: &DurabilityRun, c: &ConfigReport) -> String {
    format!("{} {}", run.engine, c.label())
}

/// The figure, or `None` without durability runs.
pub fn figure(store: &Store) -> Result<Option<Figure>> {
    let runs = latest_runs(store)?;
    let rows: Vec<(String, &ConfigReport)> = runs
        .iter()
        .flat_map(|r| r.configurations.iter().map(move |c| (name(r, c), c)))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let top = 40.0;
    let height = top + ROW * rows.len() as f64 + 20.0;
    let mut svg = Svg::new(LABEL + 2.0 * PANEL + GAP + 30.0, height);
    let speed_x0 = LABEL;
    let loss_x0 = LABEL + PANEL + GAP;
    let speeds = rows.iter().filter_map(|(_, c)| c.txns_per_s);
    let speed = Scale::fit(speeds, speed_x0, speed_x0 + PANEL, true);
    let share = Scale::fit([0.0, 100.0].into_iter(), loss_x0, loss_x0 + PANEL, false);
    svg.text(
        speed_x0,
        top - 16.0,
        "start",
        r#"font-weight="bold""#,
        "transactions/s (real syncs, log scale)",
    );
    svg.text(
        loss_x0,
        top - 16.0,
        "start",
        r#"font-weight="bold""#,
        "power failures losing acknowledged commits",
    );
    for (i, (label, c)) in rows.iter().enumerate() {
        let y = top + ROW * i as f64;
        svg.label(LABEL - 8.0, y + ROW * 0.6, "end", label);
        // One data point per configuration (its pair of bars).
        svg.points += 1;
        if let Some(t) = c.txns_per_s {
            let w = (speed.map(t) - speed_x0).max(1.0);
            svg.rect(
                speed_x0,
                y + 4.0,
                w,
                ROW - 8.0,
                "#5b7fb5",
                &format!("{label}: {t:.0} transactions/s"),
            );
            svg.label(
                speed_x0 + w + 4.0,
                y + ROW * 0.6,
                "start",
                &format!("{t:.0}"),
            );
        }
        let pct = if c.crashes == 0 {
            0.0
        } else {
            100.0 * c.crashes_losing_commits as f64 / c.crashes as f64
        };
        let lost = c.crashes_losing_commits > 0;
        let w = (share.map(pct) - loss_x0).max(if lost { 2.0 } else { 0.0 });
        let title = format!(
            "{label}: {} of {} crash states lost acknowledged commits ({} commits, at most {} at once); {} integrity failures; {} ordering violations",
            c.crashes_losing_commits, c.crashes, c.acknowledged_lost, c.most_lost_at_once, c.integrity_failures, c.ordering_violations
        );
        svg.rect(
            loss_x0,
            y + 4.0,
            w,
            ROW - 8.0,
            if lost { LOSES } else { SAFE },
            &title,
        );
        let mut text = if lost {
            format!("{pct:.0}%")
        } else {
            format!("none of {} crash states", c.crashes)
        };
        if c.integrity_failures > 0 {
            text.push_str(&format!(", {} corrupt", c.integrity_failures));
        }
        if c.ordering_violations > 0 {
            text.push_str(&format!(", {} out of order", c.ordering_violations));
        }
        svg.label(loss_x0 + w + 4.0, y + ROW * 0.6, "start", &text);
    }
    let bottom = top + ROW * rows.len() as f64 + 6.0;
    svg.line(speed_x0, top, speed_x0, bottom, r##"stroke="#444444""##);
    svg.line(loss_x0, top, loss_x0, bottom, r##"stroke="#444444""##);
    let models: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{} run #{}: {}",
                r.engine,
                r.id,
                r.configurations.first().map_or("", |c| c.model.as_str())
            )
        })
        .collect();
    Ok(Some(Figure {
        id: "durability",
        title: "durability: speed beside safety under simulated power loss".into(),
        how_to_read: format!(
            "One row per configuration. Left: the workload's transactions per second on the real device with real syncs. Right: the share of crash states (one per simulated power failure, or several where the persistence model leaves more than one outcome) after which an acknowledged commit was missing (green: none), how many left a database that failed its integrity check, and how many kept a commit while losing an earlier acknowledged one (out of order). Each failure cuts the workload at one I/O event, discards what was not synced, recovers and checks (docs/durability.md). {}",
            models.join("; ")
        ),
        note: None,
        svg: svg.finish("durability", "durability: speed beside safety"),
    }))
}
