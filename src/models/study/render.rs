//! The study's findings as text: per finding the paper's claim, what it is decided on and the
//! paper's own figures; then per scale the verdict on each runtime's line with its figures,
//! the warm-up they include and, where it does not hold, the cause; and the cross-runtime
//! line's figures apart (its warm-up is the two runtimes' lines' already).

use super::findings::{claimed_order, ORDER_FROM, PAPER_SCALES};
use super::{check, Line, FINDINGS, HOLDS_AT, REVERSED_AT, STARVED_BELOW};
use crate::models::ModelsRun;
use std::fmt::Write as _;

/// The findings checked on `run`, as text.
pub fn render(run: &ModelsRun) -> String {
    let mut o = String::new();
    let Some(study) = check(run) else {
        let _ = writeln!(
            o,
            "\nthe study's findings: not checked (the run needs a relational, a document and an object engine of one runtime)"
        );
        return o;
    };
    let _ = writeln!(
        o,
        "\nthe study's findings, checked within one runtime (holds: the claimed side at least {HOLDS_AT}x faster; reversed: the other side at least {REVERSED_AT}x faster; not measurable: a side's thread on a CPU under {:.0}% of its wall time without storage I/O)",
        100.0 * STARVED_BELOW
    );
    for l in &study.lines {
        let _ = writeln!(
            o,
            "  {:<31} relational {}, document {}, object {}",
            format!("{}:", l.line.text()),
            l.relational,
            l.document,
            l.object
        );
    }
    if study.lines.iter().any(|l| l.line == Line::Jvm) {
        let _ = writeln!(
            o,
            "  each JVM engine runs in a fresh JVM: its figures include loading and compiling its code"
        );
    }
    let (lo, hi) = PAPER_SCALES;
    for f in FINDINGS {
        let _ = writeln!(o, "  {} {}", f.number, f.claim);
        let _ = writeln!(o, "      on {}; the paper's figures: {}", f.on, f.paper);
        let checked = |tuples: u32| {
            study
                .checks
                .iter()
                .any(|c| c.number == f.number && c.tuples == tuples)
        };
        for &tuples in run.scales.iter().filter(|&&t| checked(t)) {
            let mut note = String::new();
            if !(lo..=hi).contains(&tuples) {
                let _ = write!(note, " (beyond the paper's {lo}-{hi})");
            }
            if f.number == 4 && tuples < ORDER_FROM {
                let _ = write!(
                    note,
                    " (the paper's order here: {})",
                    claimed_order(tuples)
                        .map(|c| match c {
                            'r' => "relational",
                            'd' => "document",
                            _ => "object",
                        })
                        .join(" < ")
                );
            }
            let _ = writeln!(o, "    {tuples} tuples{note}:");
            for c in study
                .checks
                .iter()
                .filter(|c| c.number == f.number && c.tuples == tuples)
            {
                match c.verdict {
                    Some(v) => {
                        let _ = writeln!(o, "      {}: {}: {}", c.line.text(), v.text(), c.figures);
                    }
                    None => {
                        let _ = writeln!(o, "      {}: {}", c.line.text(), c.figures);
                    }
                }
                if let Some(w) = c.warmup.as_ref().filter(|_| c.line.decides()) {
                    let _ = writeln!(o, "        warm-up included: {w}");
                }
                if let Some(cause) = &c.cause {
                    let _ = writeln!(o, "        cause: {cause}");
                }
            }
        }
    }
    o
}
