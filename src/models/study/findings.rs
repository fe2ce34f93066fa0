//! The study's five findings as the paper states them ([`FINDINGS`]: the claim, the tests it
//! names, the paper's own figures) and their verdicts on one relational, one document and one
//! object engine at one scale ([`at_scale`]). Finding 4's claimed order depends on the scale:
//! the paper claims relational < document < object from [`ORDER_FROM`] tuples, and its own
//! Table 1 gives relational < object < document below.

use super::{plan, times, Verdict, STARVED_BELOW};
use crate::models::query::{Test, EXECUTIONS};
use crate::models::{Counters, EngineScale};

/// One of the study's findings, as the paper states it.
#[derive(Clone, Copy, Debug)]
pub struct Finding {
    pub number: usize,
    pub claim: &'static str,
    /// What it is decided on.
    pub on: &'static str,
    /// The paper's own figures for it ("not given" where we have none to quote).
    pub paper: &'static str,
}

/// The scales the paper ran, in tuples: a verdict outside them extends its claim.
pub const PAPER_SCALES: (u32, u32) = (10, 5_000);
/// Finding 4's claimed order holds from this many tuples in the paper.
pub const ORDER_FROM: u32 = 200;

/// The five findings.
pub const FINDINGS: [Finding; 5] = [
    Finding {
        number: 1,
        claim: "group-by aggregate: relational far ahead of the document and object stores",
        on: "test 5's mean time per execution",
        paper: "not given",
    },
    Finding {
        number: 2,
        claim: "indexed lookup: relational 3-5x faster than the document store",
        on: "test 1's mean time per execution",
        paper: "3-5x",
    },
    Finding {
        number: 3,
        claim: "object store quickest at create, insert and simple lookups",
        on: "create, insert and test 1 (not test 2: the paper's object store grows \"exponentially\" at its non-indexed lookup)",
        paper: "not given",
    },
    Finding {
        number: 4,
        claim: "total time: relational < document < object from 200 tuples; relational < object < document at 10-100",
        on: "create, insert and every test run",
        paper: "Table 1 at 10-100 tuples: relational 0.0199, object 0.0274, document 0.0793 min; its figures from 200 tuples not given",
    },
    Finding {
        number: 5,
        claim: "document store's database creation about 5x slower than relational",
        on: "create",
        paper: "about 5x",
    },
];

/// One finding judged at one scale.
#[derive(Clone, Debug)]
pub struct Judged {
    pub number: usize,
    pub verdict: Verdict,
    pub figures: String,
    pub cause: Option<String>,
    pub warmup: Option<String>,
}

/// Work on one thread: its wall time, and its CPU time and storage bytes where recorded.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    wall: u64,
    cpu: Option<u64>,
    storage: u64,
}

impl Span {
    fn of(wall: u64, c: Option<Counters>) -> Span {
        Span {
            wall,
            cpu: c.map(|c| c.cpu_ns),
            storage: c.map_or(0, |c| c.io.read_bytes + c.io.write_bytes),
        }
    }

    fn add(self, o: Span) -> Span {
        Span {
            wall: self.wall + o.wall,
            cpu: self.cpu.zip(o.cpu).map(|(a, b)| a + b),
            storage: self.storage + o.storage,
        }
    }

    /// The share of the wall time on a CPU, where it was recorded, when it is under
    /// [`STARVED_BELOW`] and nothing went to or from storage.
    fn starved(self) -> Option<f64> {
        let share = self.cpu? as f64 / self.wall.max(1) as f64;
        (self.wall > 0 && self.storage == 0 && share < STARVED_BELOW).then_some(share)
    }
}

fn test_span(e: &EngineScale, test: Test) -> Option<Span> {
    let t = e.tests.iter().find(|t| t.test == test)?;
    Some(t.executions.iter().fold(
        Span {
            cpu: Some(0),
            ..Span::default()
        },
        |s, x| {
            s.add(Span {
                wall: x.wall_ns,
                cpu: Some(x.cpu_ns),
                storage: x.io.read_bytes + x.io.write_bytes,
            })
        },
    ))
}

fn create_span(e: &EngineScale) -> Span {
    Span::of(e.create_ns, e.create_counters)
}

fn insert_span(e: &EngineScale) -> Span {
    Span::of(e.insert_ns, e.insert_counters)
}

fn total_span(e: &EngineScale) -> Span {
    e.tests
        .iter()
        .filter_map(|t| test_span(e, t.test))
        .fold(create_span(e).add(insert_span(e)), Span::add)
}

/// The first of `spans` (engine, what, span) that was CPU-starved, said.
fn starved(spans: &[(&str, &str, Span)]) -> Option<String> {
    spans.iter().find_map(|(engine, what, s)| {
        let share = s.starved()?;
        Some(format!(
            "{engine} {what}: on a CPU {:.0}% of {}, nothing read or written on storage: waiting for a CPU (under {:.0}%)",
            100.0 * share,
            ms(s.wall as f64),
            100.0 * STARVED_BELOW
        ))
    })
}

fn mean(e: &EngineScale, test: Test) -> Option<f64> {
    e.tests
        .iter()
        .find(|t| t.test == test && !t.executions.is_empty())
        .map(|t| t.mean_ns as f64)
}

/// " (K of N in the budget)" when `test` ran past its budget on `e`, else nothing.
fn over(e: &EngineScale, test: Test) -> String {
    e.tests
        .iter()
        .find(|t| t.test == test && t.exceeded_budget.is_some())
        .map(|t| format!(" ({} of {EXECUTIONS} in the budget)", t.executions.len()))
        .unwrap_or_default()
}

fn ms(ns: f64) -> String {
    crate::output::units::ns(ns.round() as u64)
}

/// Where an engine's time in `test` went: the CPU share of its wall time, bytes read.
fn spent(e: &EngineScale, test: Test) -> String {
    let Some(s) = test_span(e, test) else {
        return String::new();
    };
    let share = 100.0 * s.cpu.unwrap_or(0) as f64 / s.wall.max(1) as f64;
    format!(
        "{share:.0}% CPU, {} bytes read or written on storage",
        s.storage
    )
}

fn side(e: &EngineScale, test: Test) -> String {
    format!(
        "{}: {}; {}",
        e.engine,
        plan(&e.engine, Some(test)),
        spent(e, test)
    )
}

/// The warm-up in `test`'s figures: each engine's first execution against the mean of the
/// rest (none with fewer than two executions).
fn warmup(engines: &[&EngineScale], test: Test) -> Option<String> {
    let parts: Vec<String> = engines
        .iter()
        .filter_map(|e| {
            let t = e.tests.iter().find(|t| t.test == test)?;
            let (first, rest) = t.executions.split_first()?;
            if rest.is_empty() {
                return None;
            }
            let rest_mean = rest.iter().map(|x| x.wall_ns).sum::<u64>() / rest.len() as u64;
            Some(format!(
                "{} {} then {}",
                e.engine,
                ms(first.wall_ns as f64),
                ms(rest_mean as f64)
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "test {} first execution, then the mean of the rest: {}",
            test.number(),
            parts.join(", ")
        )
    })
}

/// How many times faster `fast` is than `slow`: `slow / fast`.
fn ratio(fast: f64, slow: f64) -> f64 {
    if fast > 0.0 {
        slow / fast
    } else {
        0.0
    }
}

/// A verdict, withheld when a side was CPU-starved (the starved side becomes the cause).
fn judged(
    number: usize,
    verdict: Verdict,
    figures: String,
    cause: String,
    starving: Option<String>,
    warmup: Option<String>,
) -> Judged {
    let (verdict, cause) = match starving {
        Some(s) => (Verdict::CpuStarved, Some(s)),
        None => (verdict, (verdict != Verdict::Holds).then_some(cause)),
    };
    Judged {
        number,
        verdict,
        figures,
        cause,
        warmup,
    }
}

/// The order finding 4 claims at `tuples`, as roles: relational (`r`), document (`d`),
/// object (`o`), quickest first.
pub fn claimed_order(tuples: u32) -> [char; 3] {
    if tuples >= ORDER_FROM {
        ['r', 'd', 'o']
    } else {
        ['r', 'o', 'd']
    }
}

/// The five findings on the relational, document and object engines' results at one scale.
pub fn at_scale(r: &EngineScale, d: &EngineScale, o: &EngineScale, tuples: u32) -> Vec<Judged> {
    let mut out = Vec::new();
    // 1: test 5, relational against both.
    if let (Some(rt), Some(dt), Some(ot)) = (
        mean(r, Test::GroupBuyer),
        mean(d, Test::GroupBuyer),
        mean(o, Test::GroupBuyer),
    ) {
        let v = Verdict::all(&[Verdict::faster(rt, dt), Verdict::faster(rt, ot)]);
        let figures = format!(
            "test 5 mean: {} {}{}, {} {}{} ({}), {} {}{} ({})",
            r.engine,
            ms(rt),
            over(r, Test::GroupBuyer),
            d.engine,
            ms(dt),
            over(d, Test::GroupBuyer),
            times(ratio(rt, dt)),
            o.engine,
            ms(ot),
            over(o, Test::GroupBuyer),
            times(ratio(rt, ot))
        );
        let cause = [r, d, o].map(|e| side(e, Test::GroupBuyer)).join(" | ");
        let spans = [r, d, o].map(|e| {
            (
                e.engine.as_str(),
                "test 5",
                test_span(e, Test::GroupBuyer).unwrap_or_default(),
            )
        });
        out.push(judged(
            1,
            v,
            figures,
            cause,
            starved(&spans),
            warmup(&[r, d, o], Test::GroupBuyer),
        ));
    }
    // 2: test 1, relational against the document store.
    if let (Some(rt), Some(dt)) = (mean(r, Test::LookupId), mean(d, Test::LookupId)) {
        let figures = format!(
            "test 1 mean: {} {}, {} {} ({}; the paper: 3-5x)",
            r.engine,
            ms(rt),
            d.engine,
            ms(dt),
            times(ratio(rt, dt))
        );
        let cause = [r, d].map(|e| side(e, Test::LookupId)).join(" | ");
        let spans = [r, d].map(|e| {
            (
                e.engine.as_str(),
                "test 1",
                test_span(e, Test::LookupId).unwrap_or_default(),
            )
        });
        out.push(judged(
            2,
            Verdict::faster(rt, dt),
            figures,
            cause,
            starved(&spans),
            warmup(&[r, d], Test::LookupId),
        ));
    }
    out.push(quickest_object(r, d, o));
    out.push(totals(r, d, o, tuples));
    // 5: the document store's creation against the relational one's.
    let (rc, dc) = (r.create_ns as f64, d.create_ns as f64);
    let figures = format!(
        "create: {} {}, {} {} ({}; the paper: about 5x)",
        r.engine,
        ms(rc),
        d.engine,
        ms(dc),
        times(ratio(rc, dc))
    );
    let cause = format!(
        "{}: {} | {}: {}",
        r.engine,
        plan(&r.engine, None),
        d.engine,
        plan(&d.engine, None)
    );
    let spans = [r, d].map(|e| (e.engine.as_str(), "create", create_span(e)));
    out.push(judged(
        5,
        Verdict::faster(rc, dc),
        figures,
        cause,
        starved(&spans),
        None,
    ));
    out
}

/// "objectbox 1.00 ms, sqlite 2.00 ms, …": each engine's figure.
fn each(figures: &[(&EngineScale, f64)]) -> String {
    figures
        .iter()
        .map(|(e, ns)| format!("{} {}", e.engine, ms(*ns)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A figure read off an engine's results (ns), and the span that measured it.
type Measure = fn(&EngineScale) -> Option<(f64, Span)>;

/// 3: the object store quickest at create, insert and test 1; test 2 shown, not judged.
fn quickest_object(r: &EngineScale, d: &EngineScale, o: &EngineScale) -> Judged {
    let phases: [(&str, Measure); 3] = [
        ("create", |e| Some((e.create_ns as f64, create_span(e)))),
        ("insert", |e| Some((e.insert_ns as f64, insert_span(e)))),
        ("test 1", |e| {
            Some((mean(e, Test::LookupId)?, test_span(e, Test::LookupId)?))
        }),
    ];
    let mut verdicts = Vec::new();
    let mut figures = Vec::new();
    let mut slower = Vec::new();
    let mut spans = Vec::new();
    for (name, f) in phases {
        let (Some((ot, os)), Some((rt, rs)), Some((dt, ds))) = (f(o), f(r), f(d)) else {
            continue;
        };
        let best_other = rt.min(dt);
        // Quickest is enough here: the study claims no margin.
        let v = match Verdict::faster(ot, best_other) {
            Verdict::DoesNotHold if ot < best_other => Verdict::Holds,
            v => v,
        };
        if v != Verdict::Holds {
            slower.push(name);
        }
        verdicts.push(v);
        spans.extend([
            (o.engine.as_str(), name, os),
            (r.engine.as_str(), name, rs),
            (d.engine.as_str(), name, ds),
        ]);
        figures.push(format!("{name}: {}", each(&[(o, ot), (r, rt), (d, dt)])));
    }
    let t2 = [o, r, d].map(|e| mean(e, Test::LookupName));
    if let [Some(ot), Some(rt), Some(dt)] = t2 {
        figures.push(format!(
            "test 2, not judged: {}",
            each(&[(o, ot), (r, rt), (d, dt)])
        ));
    }
    let cause = format!(
        "not quickest at {}; {} | create: {} {}",
        slower.join(", "),
        side(o, Test::LookupId),
        o.engine,
        plan(&o.engine, None)
    );
    let spans: Vec<_> = spans.iter().map(|(e, w, s)| (*e, *w, *s)).collect();
    judged(
        3,
        Verdict::all(&verdicts),
        figures.join("; "),
        cause,
        starved(&spans),
        warmup(&[o, r, d], Test::LookupId),
    )
}

/// 4: the total time's order against the order the paper gives at this scale.
fn totals(r: &EngineScale, d: &EngineScale, o: &EngineScale, tuples: u32) -> Judged {
    let mut measured = [('r', r), ('d', d), ('o', o)];
    measured.sort_by_key(|(_, e)| e.total_ns());
    let order = measured.map(|(c, _)| c);
    let claimed = claimed_order(tuples);
    let mut reverse = claimed;
    reverse.reverse();
    let v = if order == claimed {
        Verdict::Holds
    } else if order == reverse {
        Verdict::Reversed
    } else {
        Verdict::DoesNotHold
    };
    let word = |c: char| match c {
        'r' => "relational",
        'd' => "document",
        _ => "object",
    };
    let said = |o: [char; 3]| o.map(word).join(" < ");
    let figures = format!(
        "total: {} {}, {} {}, {} {}; measured {}, the paper at {tuples} tuples {}",
        r.engine,
        ms(r.total_ns() as f64),
        d.engine,
        ms(d.total_ns() as f64),
        o.engine,
        ms(o.total_ns() as f64),
        said(order),
        said(claimed)
    );
    let largest = |e: &EngineScale| {
        e.tests
            .iter()
            .max_by_key(|t| t.total_ns)
            .map(|t| {
                format!(
                    "{}'s largest share: test {} ({})",
                    e.engine,
                    t.test.number(),
                    ms(t.total_ns as f64)
                )
            })
            .unwrap_or_default()
    };
    let spans = [r, d, o].map(|e| (e.engine.as_str(), "in all", total_span(e)));
    judged(
        4,
        v,
        figures,
        [r, d, o].map(largest).join(" | "),
        starved(&spans),
        None,
    )
}
