//! The data-model study's figures, from the latest `models` run in the store: create time,
//! inserts per second, and each test's mean time per execution against the number of tuples
//! (log scales, one line per engine), and the study's summary table (tuples × engine, total
//! time). Absent when the store holds no models run.

use super::svg::{axes, color, Scale, Svg};
use super::Figure;
use crate::error::{Result, ResultExt};
use crate::models::query::Test;
use crate::models::{EngineScale, ModelsRun, SUITE};
use crate::output::units::ns;
use crate::results::store::Store;

/// The latest models run, if any.
pub fn latest(store: &Store) -> Result<Option<ModelsRun>> {
    let what = "results store: models runs";
    let mut stmt = store
        .conn()
        .prepare("SELECT id, summary FROM runs WHERE kind = ?1 ORDER BY id DESC LIMIT 1")
        .run_err(what)?;
    let mut rows = stmt.query([SUITE]).run_err(what)?;
    let Some(row) = rows.next().run_err(what)? else {
        return Ok(None);
    };
    let id: i64 = row.get(0).run_err(what)?;
    let text: String = row.get(1).run_err(what)?;
    let mut run: ModelsRun = serde_json::from_str(&text).run_err(what)?;
    run.id = id;
    Ok(Some(run))
}

/// One line per engine of `value` against tuples (both log scales).
fn lines(
    run: &ModelsRun,
    id: &'static str,
    title: String,
    y_title: &str,
    how_to_read: &str,
    value: impl Fn(&EngineScale) -> Option<f64>,
) -> Figure {
    let (w, h) = (760.0, 420.0);
    let mut svg = Svg::new(w, h);
    let series: Vec<(String, Vec<(f64, f64)>)> = run
        .engines
        .iter()
        .map(|e| {
            let pts = run
                .results
                .iter()
                .filter(|r| &r.engine == e)
                .filter_map(|r| Some((f64::from(r.tuples), value(r)?.max(1e-3))))
                .collect();
            (e.clone(), pts)
        })
        .collect();
    let all = || series.iter().flat_map(|(_, p)| p.iter().copied());
    let x = Scale::fit(all().map(|p| p.0), 80.0, w - 30.0, true);
    let y = Scale::fit(all().map(|p| p.1), h - 100.0, 20.0, true);
    axes(&mut svg, &x, &y, "tuples (people; log scale)", y_title);
    let mut legend = Vec::new();
    for (i, (engine, pts)) in series.iter().enumerate() {
        let px: Vec<(f64, f64)> = pts.iter().map(|(a, b)| (x.map(*a), y.map(*b))).collect();
        svg.path(&px, color(i));
        for (a, b) in pts {
            svg.circle(
                x.map(*a),
                y.map(*b),
                2.5,
                color(i),
                Some(&format!("{engine}, {a} tuples: {b:.3}")),
            );
        }
        legend.push((color(i).to_string(), engine.clone()));
    }
    svg.legend(80.0, h - 40.0, &legend);
    let svg = svg.finish(id, &title);
    Figure {
        id,
        title,
        how_to_read: format!("{how_to_read} From models run #{}.", run.id),
        note: None,
        svg,
    }
}

const TEST_IDS: [&str; 6] = [
    "models-test-1",
    "models-test-2",
    "models-test-3",
    "models-test-4",
    "models-test-5",
    "models-test-6",
];

/// The summary table as a figure: a row per scale, a column per engine, total time.
fn summary(run: &ModelsRun) -> Figure {
    let col = 110.0;
    let (w, row) = (90.0 + col * run.engines.len() as f64 + 20.0, 22.0);
    let mut svg = Svg::new(w, 40.0 + row * (run.scales.len() as f64 + 1.0));
    svg.text(80.0, 28.0, "end", r#"font-weight="bold""#, "tuples");
    for (j, e) in run.engines.iter().enumerate() {
        svg.text(
            90.0 + col * (j as f64 + 1.0),
            28.0,
            "end",
            r#"font-weight="bold""#,
            e,
        );
    }
    for (i, tuples) in run.scales.iter().enumerate() {
        let y = 28.0 + row * (i as f64 + 1.0);
        svg.text(80.0, y, "end", "", &tuples.to_string());
        for (j, e) in run.engines.iter().enumerate() {
            let cell = run
                .results
                .iter()
                .find(|r| r.tuples == *tuples && &r.engine == e)
                .map(|r| {
                    let over = r.tests.iter().any(|t| t.exceeded_budget.is_some());
                    svg.points += 1;
                    format!("{}{}", ns(r.total_ns()), if over { " *" } else { "" })
                })
                .unwrap_or_else(|| "-".into());
            svg.text(90.0 + col * (j as f64 + 1.0), y, "end", "", &cell);
        }
    }
    Figure {
        id: "models-summary",
        title: "data models: total time per scale and engine".into(),
        how_to_read: format!(
            "The study's summary table: for each number of tuples (rows) and engine (columns), the time to create the database, insert every tuple and run every test's executions. * marks a test that exceeded its budget (its time counts only the executions made). From models run #{}.",
            run.id
        ),
        note: None,
        svg: svg.finish("models-summary", "data models: total time"),
    }
}

/// The study's five findings checked at the run's largest scale where a runtime's three roles
/// ran: a row per finding and line, its verdict and the figures behind it.
fn study(run: &ModelsRun) -> Option<Figure> {
    use crate::models::study::{check, FINDINGS, HOLDS_AT, REVERSED_AT};
    let study = check(run)?;
    let largest = study.checks.iter().map(|c| c.tuples).max()?;
    let rows: Vec<_> = study
        .checks
        .iter()
        .filter(|c| c.tuples == largest)
        .collect();
    let row = 34.0;
    let mut svg = Svg::new(1100.0, 40.0 + row * rows.len() as f64);
    for (i, c) in rows.iter().enumerate() {
        let y = 28.0 + row * i as f64;
        svg.text(
            10.0,
            y,
            "start",
            r#"font-weight="bold""#,
            &format!(
                "{} {} ({})",
                c.number,
                FINDINGS[c.number - 1].claim,
                c.line.text()
            ),
        );
        let verdict = c
            .verdict
            .map(|v| format!("{}: ", v.text()))
            .unwrap_or_default();
        svg.text(
            10.0,
            y + 14.0,
            "start",
            "",
            &format!("{verdict}{}", c.figures),
        );
        svg.points += 1;
    }
    let lines: Vec<String> = study
        .lines
        .iter()
        .map(|l| {
            format!(
                "{}: relational {}, document {}, object {}",
                l.line.text(),
                l.relational,
                l.document,
                l.object
            )
        })
        .collect();
    Some(Figure {
        id: "models-study",
        title: format!("data models: the study's findings at {largest} tuples"),
        how_to_read: format!(
            "Each finding of the mobile data-model study (SQLite, Couchbase Lite, db4o in one Java runtime) checked on this run within one runtime ({}): holds when the claimed side is at least {HOLDS_AT}x faster, reversed when the other side is at least {REVERSED_AT}x faster, does not hold in between, not measurable when a side waited for a CPU; the cross-runtime line is shown, never a verdict. `pocketbench models --study` gives every scale, the paper's figures and the causes. From models run #{}.",
            lines.join("; "),
            run.id
        ),
        note: None,
        svg: svg.finish("models-study", "data models: the study's findings"),
    })
}

/// Every figure of the latest models run (none without one).
pub fn figures(store: &Store) -> Result<Vec<Figure>> {
    let Some(run) = latest(store)? else {
        return Ok(Vec::new());
    };
    let mut out = vec![
        summary(&run),
        lines(
            &run,
            "models-create",
            "data models: time to create the database".into(),
            "create (ms, log scale)",
            "Time to create each engine's files and schema, per scale.",
            |r| Some(r.create_ns as f64 / 1e6),
        ),
        lines(
            &run,
            "models-insert",
            "data models: tuples inserted per second".into(),
            "inserts/s (log scale)",
            "People and transactions inserted per second (one transaction or bulk load), per scale.",
            |r| Some(r.inserts_per_s),
        ),
    ];
    out.extend(study(&run));
    for test in Test::ALL {
        if !run
            .results
            .iter()
            .any(|r| r.tests.iter().any(|t| t.test == test))
        {
            continue;
        }
        out.push(lines(
            &run,
            TEST_IDS[test.number() - 1],
            format!("data models: test {} ({})", test.number(), test.name()),
            "mean per execution (ms, log scale)",
            &format!(
                "Mean time of the test's executions, per scale ({}). A test past its budget is left out at that scale.",
                test.sql()
            ),
            move |r| {
                let t = r.tests.iter().find(|t| t.test == test)?;
                (t.exceeded_budget.is_none() && !t.executions.is_empty())
                    .then_some(t.mean_ns as f64 / 1e6)
            },
        ));
    }
    Ok(out)
}
