//! An advice as people read it: the ranked table on the terminal, and the advice file (the
//! CREATE INDEX and PRAGMA lines, each under a comment giving its measured gain).

use super::measure::{Gain, Side};
use super::shapes::Shapes;
use super::{Advice, Row, Verdict};
use crate::output::units::{format_duration, sig};
use serde::Serialize;
use std::fmt::Write as _;

/// Shapes shown per candidate at most.
const SHAPES_SHOWN: usize = 3;

/// One statement shape, baseline beside variant.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeBeside {
    pub shape: String,
    pub count: u64,
    /// Mean over the replays of the p50 and p95 service time, µs: baseline, variant.
    pub p50_us: (f64, f64),
    pub p95_us: (f64, f64),
}

/// The shapes whose time changed most (p50 change times the statement count).
pub fn shapes_beside(base: &Side, var: &Side, shapes: &Shapes) -> Vec<ShapeBeside> {
    let a = base.shape_means();
    let b = var.shape_means();
    let mut out: Vec<(f64, ShapeBeside)> = a
        .iter()
        .filter_map(|(id, (p50a, p95a))| {
            let (p50b, p95b) = b.get(id)?;
            let s = shapes.get(*id);
            let weight = (p50a - p50b).abs() * s.count as f64;
            Some((
                weight,
                ShapeBeside {
                    shape: s.fingerprint.clone(),
                    count: s.count,
                    p50_us: (p50a / 1e3, p50b / 1e3),
                    p95_us: (p95a / 1e3, p95b / 1e3),
                },
            ))
        })
        .collect();
    out.sort_by(|x, y| y.0.total_cmp(&x.0));
    out.into_iter().take(SHAPES_SHOWN).map(|(_, s)| s).collect()
}

/// "saves 640 ms ± 20 (79%)" or "costs 3.1 ms ± 0.4 (2%)".
pub fn gain_text(g: &Gain) -> String {
    let (saved, half) = g.saved();
    let word = if saved >= 0.0 { "saves" } else { "costs" };
    let half = half.map(|h| format!(" ± {}", sig(h))).unwrap_or_default();
    format!(
        "{word} {} ms{half} ({}%)",
        sig(saved.abs()),
        sig(g.share().abs() * 100.0)
    )
}

fn verdict_text(r: &Row) -> String {
    match &r.verdict {
        Verdict::Proposed => "proposed".into(),
        Verdict::NoGain => "no gain: the interval includes zero".into(),
        Verdict::Slower => "slower".into(),
        Verdict::ChangesAnswers(how) => format!("rejected, answers differ: {how}"),
        Verdict::NotMeasured(why) => format!("not measured: {why}"),
    }
}

/// The terminal table.
pub fn text(a: &Advice) -> String {
    let mut o = String::new();
    let opts: Vec<String> = a
        .baseline_options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let _ = writeln!(
        o,
        "advise {}: {} statements in {} shapes on {} (as the app ran: {})",
        a.trace,
        a.statements,
        a.shapes,
        a.engine,
        if opts.is_empty() {
            "defaults".to_string()
        } else {
            opts.join(" ")
        }
    );
    let _ = writeln!(
        o,
        "busy time of the app's statements, {:.0}% intervals, {} (the baseline, then each candidate); budget {}, used {}",
        a.level * 100.0,
        rounds(a),
        format_duration(a.budget_ns),
        format_duration(a.elapsed_ns / 1_000_000 * 1_000_000)
    );
    if let Some(b) = &a.baseline_busy {
        let _ = writeln!(o, "baseline: {} ms", b.sig_text());
    }
    let proposed: Vec<&Row> = a.proposed().collect();
    if proposed.is_empty() {
        let _ = writeln!(
            o,
            "\nnothing to propose: no candidate made the app faster beyond its interval with equal answers"
        );
    } else {
        let _ = writeln!(
            o,
            "\n{:<3} {:<48} {:<28} {:<26} {:<8} why",
            "#", "change", "gain (busy time)", "on writes", "answers"
        );
        for (i, r) in proposed.iter().enumerate() {
            let _ = writeln!(
                o,
                "{:<3} {:<48} {:<28} {:<26} {:<8} {}",
                i + 1,
                r.candidate.change,
                r.gain.as_ref().map(gain_text).unwrap_or_default(),
                r.writes.as_ref().map(gain_text).unwrap_or("-".into()),
                "equal",
                r.candidate.why
            );
            if let Some(d) = &r.durability {
                let _ = writeln!(o, "{:<3} durability: {}", "", d.text());
            }
        }
        if let Some(c) = &a.combined {
            let g = c.gain.as_ref().map(gain_text);
            let _ = writeln!(
                o,
                "\ntogether: {}: {}",
                c.candidate.change,
                g.unwrap_or_else(|| verdict_text(c))
            );
        }
    }
    let others: Vec<&Row> = a
        .rows
        .iter()
        .filter(|r| r.verdict != Verdict::Proposed)
        .collect();
    if !others.is_empty() {
        let _ = writeln!(o, "\nnot proposed:");
        for r in others {
            let g = r
                .gain
                .as_ref()
                .map(|g| format!(" ({})", gain_text(g)))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "- {}: {}{g}; proposed because {}",
                r.candidate.change,
                verdict_text(r),
                r.candidate.why
            );
            if let Some(d) = &r.durability {
                let _ = writeln!(o, "  durability: {}", d.text());
            }
        }
    }
    for n in &a.notes {
        let _ = writeln!(o, "note: {n}");
    }
    o
}

/// The advice file: each proposed change's lines under a comment with its measured gain.
pub fn advice_sql(a: &Advice) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "-- pocketbench advise {} ({} statements, trace {}), {} {}",
        a.trace, a.statements, a.trace_digest, a.engine, a.created_at
    );
    let _ = writeln!(
        o,
        "-- gains: the app's busy time over {} of replays (the baseline, then each candidate), {:.0}% intervals",
        rounds(a),
        a.level * 100.0
    );
    let mut any = false;
    for r in a.proposed() {
        any = true;
        let g = r.gain.as_ref().map(gain_text).unwrap_or_default();
        let _ = writeln!(o, "-- {g}: {}", r.candidate.why);
        for line in &r.candidate.sql {
            let _ = writeln!(o, "{line}");
        }
    }
    if !any {
        let _ = writeln!(o, "-- nothing to propose: no candidate made the app faster beyond its interval with equal answers");
    }
    o
}

/// "5 rounds", or "4 rounds (of 5 asked: the budget)".
fn rounds(a: &Advice) -> String {
    if a.rounds < a.repeats {
        format!("{} rounds (of {} asked: the budget)", a.rounds, a.repeats)
    } else {
        format!("{} rounds", a.rounds)
    }
}
