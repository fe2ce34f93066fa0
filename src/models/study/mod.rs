//! The mobile data-model study's five findings (SQLite, Couchbase Lite and db4o, all three in
//! one Java runtime on an Android phone) checked as the paper states them ([`findings`]): the
//! tests each names, the scales it claims it at, its own figures beside ours. A verdict is
//! decided only within one runtime — the JVM stores against SQLite through sqlite-jdbc (else
//! H2) in the JVM, the native stand-ins against native SQLite — and the native relational
//! engine against the JVM stores is shown apart, a line that decides nothing ([`Line`]). Each
//! finding is a claim that one side is faster: it "holds" when the claimed side is at least
//! [`HOLDS_AT`] times faster (the study's differences are 3x and more), is "reversed" when
//! the other side is at least [`REVERSED_AT`] times faster, and "does not hold" in between;
//! it is withheld, "not measurable: CPU-starved", when a side's measured thread was on a CPU
//! for less than [`STARVED_BELOW`] of its wall time without touching storage (it was waiting
//! for a CPU, not working). [`plan`] names each side's plan for the cause; [`render`] prints.

pub mod findings;
pub mod plan;
pub mod render;

pub use findings::{at_scale, Judged, FINDINGS};
pub use plan::plan;
pub use render::render;

use super::ModelsRun;
use serde::Serialize;

/// A claimed side at least this many times faster: the finding holds.
pub const HOLDS_AT: f64 = 2.0;
/// The other side at least this many times faster: the finding is reversed.
pub const REVERSED_AT: f64 = 1.25;
/// A side whose measured thread ran on a CPU for less than this share of its wall time, and
/// read and wrote nothing on storage, spent the rest waiting for a CPU: its figures measure
/// the machine's load, and the verdict is withheld. An in-memory query runs on a CPU for
/// 90–100 % of its wall time; a thread that waits for storage is not counted as starved.
pub const STARVED_BELOW: f64 = 0.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    DoesNotHold,
    Reversed,
    /// Withheld: a side's measured thread waited for a CPU for most of the time.
    CpuStarved,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::Reversed => "reversed",
            Verdict::CpuStarved => "not measurable: CPU-starved",
        }
    }

    /// "`fast` is faster than `slow`" on two times.
    pub fn faster(fast_ns: f64, slow_ns: f64) -> Verdict {
        if fast_ns * HOLDS_AT <= slow_ns {
            Verdict::Holds
        } else if slow_ns * REVERSED_AT <= fast_ns {
            Verdict::Reversed
        } else {
            Verdict::DoesNotHold
        }
    }

    /// Several claims together: all hold, all reversed, or it does not hold.
    pub fn all(vs: &[Verdict]) -> Verdict {
        if vs.iter().all(|v| *v == Verdict::Holds) {
            Verdict::Holds
        } else if vs.iter().all(|v| *v == Verdict::Reversed) {
            Verdict::Reversed
        } else {
            Verdict::DoesNotHold
        }
    }
}

/// Which engines a line of checks compares: one runtime (a verdict), or across runtimes (shown
/// apart, never a verdict).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Line {
    /// The JVM stores against SQLite through sqlite-jdbc (else H2), each in a fresh JVM.
    Jvm,
    /// The native stand-ins against native SQLite.
    Native,
    /// Native SQLite against the JVM stores: what differs includes the runtime.
    CrossRuntime,
}

impl Line {
    pub const ALL: [Line; 3] = [Line::Jvm, Line::Native, Line::CrossRuntime];

    pub fn text(self) -> &'static str {
        match self {
            Line::Jvm => "in the JVM",
            Line::Native => "native",
            Line::CrossRuntime => "across runtimes, not a verdict",
        }
    }

    /// Whether this line decides a verdict.
    pub fn decides(self) -> bool {
        self != Line::CrossRuntime
    }

    /// The engines that may play the relational, document and object roles on this line, the
    /// first present chosen.
    fn candidates(self) -> [&'static [&'static str]; 3] {
        match self {
            Line::Jvm => [&["sqlite-jdbc", "h2"], &["nitrite"], &["objectbox"]],
            Line::Native => [&["sqlite", "berkeleydb-sql"], &["polodb"], &["native_db"]],
            Line::CrossRuntime => [&["sqlite", "berkeleydb-sql"], &["nitrite"], &["objectbox"]],
        }
    }
}

/// The engines playing the study's three roles on one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Roles {
    pub line: Line,
    pub relational: String,
    pub document: String,
    pub object: String,
}

impl Roles {
    /// The engines of `engines` playing each role on `line`.
    pub fn pick(line: Line, engines: &[String]) -> Option<Roles> {
        let first = |names: &[&str]| {
            names
                .iter()
                .find(|n| engines.iter().any(|e| e == *n))
                .map(|n| n.to_string())
        };
        let [r, d, o] = line.candidates();
        Some(Roles {
            line,
            relational: first(r)?,
            document: first(d)?,
            object: first(o)?,
        })
    }
}

/// One finding checked at one scale on one line.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub number: usize,
    pub tuples: u32,
    pub line: Line,
    /// `None` on the cross-runtime line: its figures are shown, never judged.
    pub verdict: Option<Verdict>,
    /// The figures behind the verdict.
    pub figures: String,
    /// Where it does not hold (or is withheld): each side's plan and where its time went.
    pub cause: Option<String>,
    /// The warm-up the figures include: each side's first execution against the rest.
    pub warmup: Option<String>,
}

/// The findings checked on a run: the lines that could be formed, and every check.
#[derive(Clone, Debug, Serialize)]
pub struct Study {
    pub lines: Vec<Roles>,
    pub checks: Vec<Check>,
}

/// The five findings at every scale of `run`, on every line whose three roles ran; `None`
/// when no line could be formed.
pub fn check(run: &ModelsRun) -> Option<Study> {
    let lines: Vec<Roles> = Line::ALL
        .iter()
        .filter_map(|&l| Roles::pick(l, &run.engines))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let mut checks = Vec::new();
    for roles in &lines {
        for &tuples in &run.scales {
            let find = |name: &str| {
                run.results
                    .iter()
                    .find(|r| r.tuples == tuples && r.engine == name)
            };
            let (Some(r), Some(d), Some(o)) = (
                find(&roles.relational),
                find(&roles.document),
                find(&roles.object),
            ) else {
                continue;
            };
            checks.extend(at_scale(r, d, o, tuples).into_iter().map(|j| Check {
                number: j.number,
                tuples,
                line: roles.line,
                verdict: roles.line.decides().then_some(j.verdict),
                figures: j.figures,
                cause: j.cause.filter(|_| roles.line.decides()),
                warmup: j.warmup,
            }));
        }
    }
    Some(Study { lines, checks })
}

/// A ratio for reading: `4.0x`, `25x`, `342x`, and below 1 the other way round, `1/83x`.
pub fn times(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        "-".into()
    } else if x >= 9.95 {
        format!("{x:.0}x")
    } else if x >= 1.0 {
        format!("{x:.1}x")
    } else {
        format!("1/{}", times(1.0 / x))
    }
}
