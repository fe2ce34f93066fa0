//! The mobile data-model study's five findings (SQLite, Couchbase Lite and db4o on a phone),
//! checked one by one on a run's numbers for the engines playing each role: relational
//! (`sqlite`), document (`nitrite`, which Android apps ship; else the stand-in `polodb`) and
//! object (`objectbox`; else `native_db`). Each finding is a claim that one side is faster;
//! its verdict at a scale is "holds" when the claimed side is at least [`HOLDS_AT`] times
//! faster (the study's differences are 3× and more), "reversed" when the other side is at
//! least [`REVERSED_AT`] times faster, and "does not hold" in between. The figures behind each
//! verdict are given, and where it does not hold the measured cause: each side's plan and where
//! its time went (CPU share of the wall time, bytes read from storage).

use super::query::Test;
use super::{EngineScale, ModelsRun};
use serde::Serialize;

/// A claimed side at least this many times faster: the finding holds.
pub const HOLDS_AT: f64 = 2.0;
/// The other side at least this many times faster: the finding is reversed.
pub const REVERSED_AT: f64 = 1.25;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    DoesNotHold,
    Reversed,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::Reversed => "reversed",
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
    fn all(vs: &[Verdict]) -> Verdict {
        if vs.iter().all(|v| *v == Verdict::Holds) {
            Verdict::Holds
        } else if vs.iter().all(|v| *v == Verdict::Reversed) {
            Verdict::Reversed
        } else {
            Verdict::DoesNotHold
        }
    }
}

/// The engines playing the study's three roles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Roles {
    pub relational: String,
    pub document: String,
    pub object: String,
}

impl Roles {
    /// The engines of `engines` playing each role: the ones mobile apps ship first.
    pub fn pick(engines: &[String]) -> Option<Roles> {
        let first = |names: &[&str]| {
            names
                .iter()
                .find(|n| engines.iter().any(|e| e == *n))
                .map(|n| n.to_string())
        };
        Some(Roles {
            relational: first(&["sqlite", "h2", "berkeleydb-sql"])?,
            document: first(&["nitrite", "polodb"])?,
            object: first(&["objectbox", "native_db"])?,
        })
    }
}

/// One finding checked at one scale.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub number: usize,
    /// What the study found.
    pub claim: &'static str,
    pub tuples: u32,
    pub verdict: Verdict,
    /// The figures behind the verdict.
    pub figures: String,
    /// Where it does not hold: each side's plan and where its time went.
    pub cause: Option<String>,
}

/// The study's five findings.
pub const CLAIMS: [&str; 5] = [
    "group-by aggregate (test 5): relational far ahead of the document and object stores",
    "indexed lookup (test 1): relational 3-5x faster than the document store",
    "object store quickest at create, insert and simple field lookups (tests 1, 2)",
    "total time: relational < document < object",
    "document store's database creation about 5x slower than relational",
];

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
        .map(|t| {
            format!(
                " ({} of {} in the budget)",
                t.executions.len(),
                super::query::EXECUTIONS
            )
        })
        .unwrap_or_default()
}

fn ms(ns: f64) -> String {
    crate::output::units::ns(ns.round() as u64)
}

/// Where an engine's time in `test` went: the CPU share of its wall time, bytes read.
fn spent(e: &EngineScale, test: Test) -> String {
    let Some(t) = e.tests.iter().find(|t| t.test == test) else {
        return String::new();
    };
    let wall: u64 = t.executions.iter().map(|x| x.wall_ns).sum();
    let cpu: u64 = t.executions.iter().map(|x| x.cpu_ns).sum();
    let read: u64 = t.executions.iter().map(|x| x.io.read_bytes).sum();
    let share = if wall > 0 {
        100.0 * cpu as f64 / wall as f64
    } else {
        0.0
    };
    format!("{share:.0}% CPU, {read} bytes read from storage")
}

/// An engine's plan for `test` (or a phase: `None` for create).
pub fn plan(engine: &str, test: Option<Test>) -> &'static str {
    use Test::*;
    match (engine, test) {
        ("h2", None) => "in a fresh JVM: H2's classes loaded, a file and two CREATE TABLEs",
        ("sqlite" | "berkeleydb-sql", None) => "a file and two CREATE TABLEs",
        ("sqlite" | "h2" | "berkeleydb-sql", Some(LookupId)) => "primary-key B-tree search",
        ("sqlite" | "h2" | "berkeleydb-sql", Some(GroupBuyer)) => {
            "GROUP BY over a full table scan (buyer not indexed)"
        }
        ("sqlite" | "h2" | "berkeleydb-sql", Some(_)) => "the test's SQL, prepared once",
        ("nitrite", None) => {
            "in a fresh JVM: Nitrite's and MVStore's classes loaded, a file, four indexes"
        }
        ("nitrite", Some(LookupId)) => "find on the unique index on id",
        ("nitrite", Some(GroupAge | GroupBuyer)) => {
            "every document read through find() and grouped in the app"
        }
        ("nitrite", Some(JoinAge)) => "buyers by the age index, then find(buyer in ids)",
        ("nitrite", Some(_)) => "find with a filter",
        ("objectbox", None) => {
            "in a fresh JVM: the native core unpacked and loaded (JNI), a store directory opened"
        }
        ("objectbox", Some(LookupId)) => "box.get(id)",
        ("objectbox", Some(GroupAge)) => "a property query of every age, counted in the app",
        ("objectbox", Some(GroupBuyer)) => "every sale read (getAll) and summed in the app",
        ("objectbox", Some(JoinAge)) => "sales linked to buyers by age, names through ToOne",
        ("objectbox", Some(_)) => "a query-builder query, re-run with new parameters",
        ("polodb", None) => "a database file",
        ("polodb", Some(LookupId)) => "find on _id",
        ("polodb", Some(_)) => "find with a filter, grouping and joins in the app",
        ("native_db", None) => "a redb file and the models",
        ("native_db", Some(LookupId)) => "a primary-key get",
        ("native_db", Some(_)) => "a primary scan filtered, grouped or joined in the app",
        (_, _) => "",
    }
}

fn side(e: &EngineScale, test: Test) -> String {
    format!(
        "{}: {}; {}",
        e.engine,
        plan(&e.engine, Some(test)),
        spent(e, test)
    )
}

/// The five findings at every scale of `run` where the three roles ran.
pub fn check(run: &ModelsRun) -> Option<(Roles, Vec<Check>)> {
    let roles = Roles::pick(&run.engines)?;
    let mut out = Vec::new();
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
        out.extend(at_scale(r, d, o, tuples));
    }
    Some((roles, out))
}

/// A figure read off an engine's results.
type Measure = fn(&EngineScale) -> Option<f64>;

/// The five findings on the relational, document and object engines' results at one scale.
pub fn at_scale(r: &EngineScale, d: &EngineScale, o: &EngineScale, tuples: u32) -> Vec<Check> {
    let mut out = Vec::new();
    let mut push = |number: usize, verdict: Verdict, figures: String, cause: String| {
        out.push(Check {
            number,
            claim: CLAIMS[number - 1],
            tuples,
            verdict,
            figures,
            cause: (verdict != Verdict::Holds).then_some(cause),
        });
    };
    let ratio = |a: f64, b: f64| if a > 0.0 { b / a } else { 0.0 };
    // 1: test 5, relational against both.
    if let (Some(rt), Some(dt), Some(ot)) = (
        mean(r, Test::GroupBuyer),
        mean(d, Test::GroupBuyer),
        mean(o, Test::GroupBuyer),
    ) {
        let v = Verdict::all(&[Verdict::faster(rt, dt), Verdict::faster(rt, ot)]);
        let figures = format!(
            "test 5 mean: {} {}{}, {} {}{} ({:.1}x), {} {}{} ({:.1}x)",
            r.engine,
            ms(rt),
            over(r, Test::GroupBuyer),
            d.engine,
            ms(dt),
            over(d, Test::GroupBuyer),
            ratio(rt, dt),
            o.engine,
            ms(ot),
            over(o, Test::GroupBuyer),
            ratio(rt, ot)
        );
        let cause = [r, d, o].map(|e| side(e, Test::GroupBuyer)).join(" | ");
        push(1, v, figures, cause);
    }
    // 2: test 1, relational against the document store.
    if let (Some(rt), Some(dt)) = (mean(r, Test::LookupId), mean(d, Test::LookupId)) {
        let figures = format!(
            "test 1 mean: {} {}, {} {} ({:.1}x)",
            r.engine,
            ms(rt),
            d.engine,
            ms(dt),
            ratio(rt, dt)
        );
        let cause = [r, d].map(|e| side(e, Test::LookupId)).join(" | ");
        push(2, Verdict::faster(rt, dt), figures, cause);
    }
    // 3: the object store quickest at create, insert, tests 1 and 2.
    let phases: [(&str, Measure); 4] = [
        ("create", |e| Some(e.create_ns as f64)),
        ("insert", |e| Some(e.insert_ns as f64)),
        ("test 1", |e| mean(e, Test::LookupId)),
        ("test 2", |e| mean(e, Test::LookupName)),
    ];
    let mut verdicts = Vec::new();
    let mut figures = Vec::new();
    let mut slower = Vec::new();
    for (name, f) in phases {
        let (Some(ot), Some(rt), Some(dt)) = (f(o), f(r), f(d)) else {
            continue;
        };
        let best_other = rt.min(dt);
        let v = Verdict::faster(ot, best_other);
        // Quickest is enough here: the study claims no margin.
        let v = if v == Verdict::DoesNotHold && ot < best_other {
            Verdict::Holds
        } else {
            v
        };
        if v != Verdict::Holds {
            slower.push(name);
        }
        verdicts.push(v);
        figures.push(format!(
            "{name}: {} {}, {} {}, {} {}",
            o.engine,
            ms(ot),
            r.engine,
            ms(rt),
            d.engine,
            ms(dt)
        ));
    }
    if !verdicts.is_empty() {
        let cause = format!(
            "not quickest at {}; {} | {}",
            slower.join(", "),
            side(o, Test::LookupId),
            format_args!("create: {} {}", o.engine, plan(&o.engine, None))
        );
        push(3, Verdict::all(&verdicts), figures.join("; "), cause);
    }
    // 4: total time, relational < document < object.
    let (rt, dt, ot) = (
        r.total_ns() as f64,
        d.total_ns() as f64,
        o.total_ns() as f64,
    );
    let v = if rt < dt && dt < ot {
        Verdict::Holds
    } else if ot < dt && dt < rt {
        Verdict::Reversed
    } else {
        Verdict::DoesNotHold
    };
    let figures = format!(
        "total: {} {}, {} {}, {} {}",
        r.engine,
        ms(rt),
        d.engine,
        ms(dt),
        o.engine,
        ms(ot)
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
    push(4, v, figures, [r, d, o].map(largest).join(" | "));
    // 5: the document store's creation against the relational one's.
    let (rc, dc) = (r.create_ns as f64, d.create_ns as f64);
    let figures = format!(
        "create: {} {}, {} {} ({:.1}x)",
        r.engine,
        ms(rc),
        d.engine,
        ms(dc),
        ratio(rc, dc)
    );
    let cause = format!(
        "{}: {} | {}: {}",
        r.engine,
        plan(&r.engine, None),
        d.engine,
        plan(&d.engine, None)
    );
    push(5, Verdict::faster(rc, dc), figures, cause);
    out
}

/// The findings as text: the roles, then each finding with its verdict per scale, the figures
/// and, where it does not hold, the cause.
pub fn render(run: &ModelsRun) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let Some((roles, checks)) = check(run) else {
        let _ = writeln!(
            o,
            "\nthe study's findings: not checked (the run needs a relational, a document and an object engine)"
        );
        return o;
    };
    let _ = writeln!(
        o,
        "\nthe study's findings, checked (relational {}, document {}, object {}; holds: the claimed side at least {HOLDS_AT}x faster; reversed: the other side at least {REVERSED_AT}x faster)",
        roles.relational, roles.document, roles.object
    );
    for (i, claim) in CLAIMS.iter().enumerate() {
        let _ = writeln!(o, "  {} {claim}", i + 1);
        for c in checks.iter().filter(|c| c.number == i + 1) {
            let _ = writeln!(
                o,
                "    {:>7} tuples: {:<13} {}",
                c.tuples,
                c.verdict.text(),
                c.figures
            );
            if let Some(cause) = &c.cause {
                let _ = writeln!(o, "    {:>15} cause: {cause}", "");
            }
        }
    }
    o
}
