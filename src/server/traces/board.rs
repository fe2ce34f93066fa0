//! A published trace's results and rankings. A `run` result whose `trace.digest` is a
//! published trace's digest is linked to it as it is stored ([`link`], in the submission's
//! transaction): its engine setup ([`setup`]: the engine and the options it set away from their
//! defaults), busy time (time inside the trace's operations, on and off the CPU, in ms) and p95
//! (µs, all operations) become `trace_runs` and `trace_setups` rows, the trace's run and device
//! counts move, and the two figures are `metrics` of the categories `trace:ID:SETUP:busy` and
//! `trace:ID:SETUP:p95`. Those are ranked by [`crate::server::rankings`] exactly like the
//! storage categories: the 3σ rule per model, the minimum count of kept results, the top 10,
//! lower is better ([`boards`]).

use crate::error::Result;
use crate::server::categories::Category;
use crate::server::db::{Db, Sql};
use crate::server::rankings::{self, Ranked};
use serde::Serialize;
use serde_json::Value;

/// The longest busy time and p95 accepted as ranked figures (an hour, in ms and in µs).
pub const MAX_BUSY_MS: f64 = 3.6e6;
pub const MAX_P95_US: f64 = 3.6e9;
/// Setups shown per trace, most replayed first.
pub const MAX_SETUPS: i64 = 20;

/// The engine setup of a run result: the engine's name, then each option whose value is not
/// the engine's default (`sqlite journal_mode=wal`), in name order.
pub fn setup(result: &Value) -> String {
    let engine = result.get("engine");
    let name = engine
        .and_then(|e| e.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let specs = crate::engine::descriptor(name).map_or(&[][..], |d| d.options);
    let mut out = name.to_string();
    if let Some(options) = engine
        .and_then(|e| e.get("options"))
        .and_then(Value::as_object)
    {
        for (k, v) in options {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            let default = specs.iter().find(|s| s.name == k).map(|s| s.default);
            if default != Some(v.as_str()) {
                out.push_str(&format!(" {k}={v}"));
            }
        }
    }
    crate::limits::cut_bytes(&out, 200).to_string()
}

/// The category of `trace`'s `setup` for `figure` (`busy` or `p95`).
pub fn category(trace: i64, setup: &str, figure: &str) -> Category {
    let (title, unit, max) = match figure {
        "busy" => ("busy time", "ms", MAX_BUSY_MS),
        _ => ("p95 latency", "µs", MAX_P95_US),
    };
    Category {
        id: format!("trace:{trace}:{setup}:{figure}"),
        title: format!("{setup}, {title}"),
        unit,
        higher_is_better: false,
        max,
    }
}

/// A run result's busy time (ms) and p95 (µs), when both are figures in range.
fn figures(result: &Value) -> Option<(f64, f64)> {
    let time = result.get("time")?;
    let ns = time.get("on_cpu_ns")?.as_f64()? + time.get("off_cpu_ns")?.as_f64()?;
    let busy = ns / 1e6;
    let p95 = result.pointer("/latency_us/all/p95")?.as_f64()?;
    let ok = |x: f64, max: f64| x.is_finite() && x > 0.0 && x <= max;
    (ok(busy, MAX_BUSY_MS) && ok(p95, MAX_P95_US)).then_some((busy, p95))
}

/// Link run result `id` of device `model` to the published trace it replayed, if any: its rows
/// and counters, and the ranked figures to store with it (none when it replayed no published
/// trace or its figures are not in range).
pub fn link(c: &mut dyn Sql, id: i64, model: &str, result: &Value) -> Result<Vec<(String, f64)>> {
    let Some(digest) = result.pointer("/trace/digest").and_then(Value::as_str) else {
        return Ok(Vec::new());
    };
    let Some((busy, p95)) = figures(result) else {
        return Ok(Vec::new());
    };
    let Some(trace) = crate::server::db::scalar(
        c,
        "SELECT id FROM traces WHERE digest = $1 ORDER BY id LIMIT 1",
        &[digest.into()],
    )?
    else {
        return Ok(Vec::new());
    };
    let setup = setup(result);
    c.execute(
        "INSERT INTO trace_runs (result_id, trace_id, model, setup, busy_ms, p95_us)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            id.into(),
            trace.into(),
            model.into(),
            setup.as_str().into(),
            busy.into(),
            p95.into(),
        ],
    )?;
    let new_model = c.execute(
        "INSERT INTO trace_models (trace_id, model) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        &[trace.into(), model.into()],
    )?;
    c.execute(
        "INSERT INTO trace_setups (trace_id, setup, runs, busy_sum, p95_sum)
         VALUES ($1, $2, 1, $3, $4)
         ON CONFLICT (trace_id, setup) DO UPDATE SET runs = trace_setups.runs + 1,
             busy_sum = trace_setups.busy_sum + excluded.busy_sum,
             p95_sum = trace_setups.p95_sum + excluded.p95_sum",
        &[trace.into(), setup.as_str().into(), busy.into(), p95.into()],
    )?;
    c.execute(
        "UPDATE traces SET runs = runs + 1, devices = devices + $2 WHERE id = $1",
        &[trace.into(), (new_model as i64).into()],
    )?;
    Ok(vec![
        (category(trace, &setup, "busy").id, busy),
        (category(trace, &setup, "p95").id, p95),
    ])
}

/// One engine setup's results of a trace: counts, means, and its two rankings.
#[derive(Clone, Debug, Serialize)]
pub struct Board {
    pub setup: String,
    pub runs: i64,
    /// Device models with results (ranked or not).
    pub devices: i64,
    /// Means over every result, before the 3σ rule.
    pub mean_busy_ms: f64,
    pub mean_p95_us: f64,
    /// The top [`rankings::TOP`] models by busy time and by p95, lower first.
    pub busy: Vec<Ranked>,
    pub p95: Vec<Ranked>,
}

/// Trace `trace`'s setups (most replayed first, at most [`MAX_SETUPS`]), each with its
/// rankings of models with at least `min_results` kept results.
pub fn boards(db: &Db, trace: i64, min_results: i64) -> Result<Vec<Board>> {
    let setups = db.read()?.query(
        "SELECT setup, runs, busy_sum, p95_sum FROM trace_setups WHERE trace_id = $1
         ORDER BY runs DESC, setup LIMIT $2",
        &[trace.into(), MAX_SETUPS.into()],
    )?;
    let mut out = Vec::with_capacity(setups.len());
    for s in &setups {
        let setup = s.text(0);
        let runs = s.int(1).max(1);
        let busy_cat = category(trace, &setup, "busy");
        let p95_cat = category(trace, &setup, "p95");
        let busy = rankings::top(db, &busy_cat, min_results, rankings::TOP)?;
        let p95 = rankings::top(db, &p95_cat, min_results, rankings::TOP)?;
        let devices = crate::server::db::scalar(
            &mut **db.read()?,
            "SELECT COUNT(*) FROM model_stats WHERE category = $1",
            &[busy_cat.id.as_str().into()],
        )?
        .unwrap_or(0);
        out.push(Board {
            runs: s.int(1),
            devices,
            mean_busy_ms: s.real(2) / runs as f64,
            mean_p95_us: s.real(3) / runs as f64,
            busy,
            p95,
            setup,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    //! A setup names the engine and only the options set away from their defaults; figures
    //! come from the busy time and p95 of a run, in range.
    use super::*;
    use serde_json::json;

    #[test]
    fn setups_and_figures() {
        let r = json!({"engine": {"name": "sqlite", "options": {"journal_mode": "wal", "synchronous": "full"}},
            "time": {"on_cpu_ns": 2_000_000, "off_cpu_ns": 500_000},
            "latency_us": {"all": {"p95": 120.0}}});
        let default_sync = crate::engine::descriptor("sqlite")
            .unwrap()
            .options
            .iter()
            .find(|o| o.name == "synchronous")
            .unwrap()
            .default;
        let s = setup(&r);
        assert!(s.starts_with("sqlite"), "{s}");
        assert_eq!(
            s.contains("synchronous=full"),
            default_sync != "full",
            "{s}"
        );
        assert_eq!(figures(&r), Some((2.5, 120.0)));
        assert_eq!(
            setup(&json!({"engine": {"name": "null", "options": {}}})),
            "null"
        );
        assert_eq!(
            figures(&json!({"time": {"on_cpu_ns": 0, "off_cpu_ns": 0},
            "latency_us": {"all": {"p95": 1.0}}})),
            None
        );
        assert_eq!(category(7, "null", "p95").id, "trace:7:null:p95");
    }
}
