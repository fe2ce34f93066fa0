//! Ranking categories, as AndroBench and Mobibench published them plus pocketbench's own, and
//! how each result kind contributes to them:
//!
//! * `storage` results: `seq-read`/`seq-write` (MiB/s) and `rand-read`/`rand-write` (IOPS) from
//!   the single-threaded file tests (O_DIRECT preferred when both modes ran), `sqlite-insert`,
//!   `sqlite-update`, `sqlite-delete` (transactions/s of AndroBench's SQLite test) and
//!   `mobibench-insert`/`-update`/`-delete` (Mobibench's);
//! * `run` results of a built-in workload on SQLite at the default pacing (think time,
//!   `lognormal:6.67ms`, or the workload's recorded delays): `WORKLOAD.ops` (operations/s) and
//!   `WORKLOAD.p95` (µs, lower is better).
//!
//! Other kinds (`flashbench`, `durability`, `models`) are stored and shown but not ranked.
//!
//! Every ranked figure a submission carries must be a finite number inside its unit's physical
//! range ([`range`]: above 0 and at most a ceiling no phone or board reaches), else the whole
//! submission is refused naming the figure's JSON path ([`extract`]).

use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Category {
    pub id: String,
    pub title: String,
    pub unit: &'static str,
    pub higher_is_better: bool,
    /// The largest value accepted (values must also be above 0).
    pub max: f64,
}

/// The largest accepted value of a figure in `unit`: 100 000 MiB/s (100 GB/s, past any
/// storage bus), 100 million IOPS, 10 million SQLite transactions/s, 100 million operations/s,
/// and latencies up to an hour (3.6·10⁹ µs). Every unit's smallest accepted value is just above 0.
pub fn range(unit: &str) -> f64 {
    match unit {
        "MiB/s" => 1e5,
        "IOPS" => 1e8,
        "TPS" => 1e7,
        "ops/s" => 1e8,
        "µs" => 3.6e9,
        _ => 0.0,
    }
}

fn cat(id: &str, title: &str, unit: &'static str, higher: bool) -> Category {
    Category {
        id: id.to_string(),
        title: title.to_string(),
        unit,
        higher_is_better: higher,
        max: range(unit),
    }
}

/// Every category, in the order pages list them (built once).
pub fn all() -> &'static [Category] {
    static ALL: std::sync::OnceLock<Vec<Category>> = std::sync::OnceLock::new();
    ALL.get_or_init(build)
}

fn build() -> Vec<Category> {
    let mut v = vec![
        cat("seq-read", "Sequential read", "MiB/s", true),
        cat("seq-write", "Sequential write", "MiB/s", true),
        cat("rand-read", "Random read (4 KiB)", "IOPS", true),
        cat("rand-write", "Random write (4 KiB)", "IOPS", true),
    ];
    for (suite, name) in [
        ("sqlite", "SQLite (AndroBench)"),
        ("mobibench", "SQLite (Mobibench)"),
    ] {
        for phase in ["insert", "update", "delete"] {
            v.push(cat(
                &format!("{suite}-{phase}"),
                &format!("{name} {phase}"),
                "TPS",
                true,
            ));
        }
    }
    for w in crate::workload::resolve::builtin_names() {
        v.push(cat(
            &format!("{w}.ops"),
            &format!("{w} on SQLite, throughput"),
            "ops/s",
            true,
        ));
        v.push(cat(
            &format!("{w}.p95"),
            &format!("{w} on SQLite, p95 latency"),
            "µs",
            false,
        ));
    }
    v
}

/// The category named `id`, if there is one.
pub fn find(id: &str) -> Option<&'static Category> {
    all().iter().find(|c| c.id == id)
}

/// A ranked figure that is not a number in its range: the JSON path and what is wrong.
pub type Refusal = crate::fleet::submission::Refusal;

/// The (category, value) pairs a result of `kind` contributes, or the first figure that is not
/// a finite number inside its category's range, named by its JSON path
/// (`result.files[0].mib_s.mean`).
pub fn extract(kind: &str, result: &Value) -> Result<Vec<(String, f64)>, Refusal> {
    let found = match kind {
        "storage" => storage(result),
        "run" => run(result),
        _ => Vec::new(),
    };
    let mut out = Vec::with_capacity(found.len());
    for (id, path, v) in found {
        let field = format!("result{path}");
        let refuse = |message: String| Refusal {
            field: field.clone(),
            message,
        };
        let c = find(&id).ok_or_else(|| refuse(format!("no category {id}")))?;
        let Some(x) = v.as_f64() else {
            return Err(refuse(format!(
                "expected a number ({} for {id}), found {}",
                c.unit,
                kind_of(v)
            )));
        };
        if !(x.is_finite() && x > 0.0 && x <= c.max) {
            return Err(refuse(format!(
                "{} {} is outside {id}'s range (above 0, at most {})",
                short(x),
                c.unit,
                c.max
            )));
        }
        out.push((id, x));
    }
    Ok(out)
}

/// `x` as a short text: as written when that is short (`-50`, `0.5`), else in scientific
/// notation with at most 6 significant digits (`1e308`, `1.23457e-300`).
pub fn short(x: f64) -> String {
    let plain = format!("{x}");
    if plain.len() <= 12 {
        return plain;
    }
    let sci = format!("{x:.5e}");
    // Trailing zeros of the mantissa off: 1.00000e308 → 1e308.
    match sci.split_once('e') {
        Some((m, e)) => {
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            format!("{m}e{e}")
        }
        None => sci,
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A figure found: its category, its JSON path below `result`, its value as submitted.
type Found<'a> = (String, String, &'a Value);

/// The value at `path` and its JSON path text (`.a.b`).
fn at<'a>(v: &'a Value, path: &[&str]) -> Option<(String, &'a Value)> {
    let found = path.iter().try_fold(v, |v, k| v.get(k))?;
    Some((path.iter().map(|k| format!(".{k}")).collect(), found))
}

fn num(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_f64()
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

fn storage(r: &Value) -> Vec<Found<'_>> {
    let mut out = Vec::new();
    let files = r.get("files").and_then(Value::as_array);
    for pattern in ["seq-read", "seq-write", "rand-read", "rand-write"] {
        let candidates: Vec<(usize, &Value)> = files
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, f)| {
                text(f, &["test", "pattern"]) == Some(pattern)
                    && num(f, &["test", "threads"]).is_none_or(|t| t == 1.0)
            })
            .collect();
        let chosen = candidates
            .iter()
            .find(|(_, f)| text(f, &["test", "mode"]) == Some("direct"))
            .or(candidates.first());
        let metric = if pattern.starts_with("seq") {
            "mib_s"
        } else {
            "iops"
        };
        if let Some((i, (path, v))) = chosen.and_then(|(i, f)| Some((i, at(f, &[metric, "mean"])?)))
        {
            out.push((pattern.to_string(), format!(".files[{i}]{path}"), v));
        }
    }
    let tests = r.get("sqlite").and_then(Value::as_array);
    for (i, t) in tests.into_iter().flatten().enumerate() {
        let suite = match text(t, &["suite"]) {
            Some("androbench") => "sqlite",
            Some("mobibench") => "mobibench",
            _ => continue,
        };
        if let (Some(phase @ ("insert" | "update" | "delete")), Some((path, tps))) =
            (text(t, &["phase"]), at(t, &["tps", "mean"]))
        {
            let id = format!("{suite}-{phase}");
            if !out.iter().any(|(c, _, _)| *c == id) {
                out.push((id, format!(".sqlite[{i}]{path}"), tps));
            }
        }
    }
    out
}

fn run(r: &Value) -> Vec<Found<'_>> {
    let workload = text(r, &["workload", "name"]).unwrap_or("");
    let builtin = text(r, &["workload", "source"]) == Some("builtin")
        && crate::workload::resolve::builtin_names().contains(&workload);
    let recorded = r
        .get("workload")
        .and_then(|w| w.get("recorded_delays"))
        .and_then(Value::as_bool)
        == Some(true);
    let delay = text(r, &["delay"]).unwrap_or("");
    let default_pacing = text(r, &["pacing"]) == Some("think")
        && (delay == crate::workload::delay::DEFAULT || (recorded && delay == "recorded"));
    if !builtin || !default_pacing || text(r, &["engine", "name"]) != Some("sqlite") {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some((path, v)) = at(r, &["throughput_ops_per_s"]) {
        out.push((format!("{workload}.ops"), path, v));
    }
    if let Some((path, v)) = at(r, &["latency_us", "all", "p95"]) {
        out.push((format!("{workload}.p95"), path, v));
    }
    out
}

#[cfg(test)]
mod tests {
    //! Which numbers of a stored result feed which category.
    use super::*;
    use serde_json::json;

    #[test]
    fn out_of_range_values_print_short() {
        assert_eq!(short(1e308), "1e308");
        assert_eq!(short(-50.0), "-50");
        assert_eq!(short(0.5), "0.5");
        assert_eq!(short(123456789.0), "123456789");
        assert_eq!(short(1.234567e-300), "1.23457e-300");
        assert_eq!(short(1e13), "1e13");
    }

    #[test]
    fn a_storage_result_gives_io_and_sqlite_categories() {
        let r = json!({"files": [
            {"test": {"pattern": "seq-read", "mode": "buffered", "threads": 1}, "mib_s": {"mean": 90.0}},
            {"test": {"pattern": "seq-read", "mode": "direct", "threads": 1}, "mib_s": {"mean": 80.0}},
            {"test": {"pattern": "seq-read", "mode": "direct", "threads": 4}, "mib_s": {"mean": 300.0}},
            {"test": {"pattern": "rand-write", "mode": "direct", "threads": 1}, "iops": {"mean": 1500.0}}],
          "sqlite": [{"suite": "androbench", "phase": "insert", "tps": {"mean": 700.0}},
                     {"suite": "mobibench", "phase": "delete", "tps": {"mean": 650.0}}]});
        assert_eq!(
            extract("storage", &r).unwrap(),
            vec![
                ("seq-read".to_string(), 80.0),
                ("rand-write".to_string(), 1500.0),
                ("sqlite-insert".to_string(), 700.0),
                ("mobibench-delete".to_string(), 650.0)
            ]
        );
    }

    #[test]
    fn only_default_paced_builtin_sqlite_runs_rank() {
        let r = json!({"workload": {"name": "ycsb-c", "source": "builtin", "recorded_delays": false},
            "engine": {"name": "sqlite"}, "pacing": "think", "delay": "lognormal:6.67ms",
            "throughput_ops_per_s": 140.5, "latency_us": {"all": {"p95": 332.0}}});
        assert_eq!(
            extract("run", &r).unwrap(),
            vec![
                ("ycsb-c.ops".to_string(), 140.5),
                ("ycsb-c.p95".to_string(), 332.0)
            ]
        );
        let mut zero = r.clone();
        zero["delay"] = json!("zero");
        assert!(extract("run", &zero).unwrap().is_empty());
        let mut lmdb = r.clone();
        lmdb["engine"]["name"] = json!("lmdb");
        assert!(extract("run", &lmdb).unwrap().is_empty());
        let mut file = r;
        file["workload"]["source"] = json!("file");
        assert!(extract("run", &file).unwrap().is_empty());
    }

    #[test]
    fn figures_outside_their_range_or_of_the_wrong_type_are_refused_by_path() {
        let file = |v: Value| {
            json!({"files": [
            {"test": {"pattern": "seq-write", "mode": "direct", "threads": 1}, "mib_s": {"mean": 5.0}},
            {"test": {"pattern": "seq-read", "mode": "direct", "threads": 1}, "mib_s": {"mean": v}}]})
        };
        for bad in [
            json!(1e308),
            json!(0),
            json!(-50),
            json!("fast"),
            json!(null),
            json!(100_001.0),
        ] {
            let e = extract("storage", &file(bad.clone())).unwrap_err();
            assert_eq!(e.field, "result.files[1].mib_s.mean", "{bad}: {e}");
        }
        assert_eq!(
            extract("storage", &file(json!(100_000))).unwrap()[0],
            ("seq-read".to_string(), 100_000.0)
        );
        let e = extract(
            "storage",
            &json!({"sqlite": [{"suite": "androbench", "phase": "insert",
            "tps": {"mean": 1e7 + 1.0}}]}),
        )
        .unwrap_err();
        assert_eq!(e.field, "result.sqlite[0].tps.mean");
        for c in all() {
            assert!(c.max > 0.0, "{}: no range", c.id);
        }
    }

    #[test]
    fn every_category_is_found_by_its_id() {
        for c in all() {
            assert_eq!(find(&c.id), Some(c));
        }
        assert!(find("ycsb-c.ops").unwrap().higher_is_better);
        assert!(!find("ycsb-c.p95").unwrap().higher_is_better);
        assert_eq!(find("nope"), None);
    }
}
