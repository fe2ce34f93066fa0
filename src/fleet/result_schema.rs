//! The full schema of each kind's result, as the results server holds a submission to it: the
//! result is read into the very type `results show` and the server's report page read it with
//! (`run`: [`RunSummary`], `storage`, `flashbench`, `durability`, `models`: their runs), so
//! every field is typed (a string where a number belongs is a 400 naming its JSON path), and
//! what is stored is that type written back compactly. Fields the type does not know are
//! **dropped**, not refused: a newer or older pocketbench may carry a field this server has
//! never heard of, and refusing it would lose the whole result; dropping it means nothing the
//! server cannot read is ever stored. One field beside the type is kept: a `run`'s
//! `latency_hlog` (the HdrHistogram log `submit` adds). The written-back result must be at most
//! [`MAX_RESULT_BYTES`] long and at most [`MAX_DEPTH`] deep (the types nest far less; the bound
//! holds for the few free-form values inside them, such as a run's `environment`).

use super::submission::{from_json_at, Refusal};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest result stored, in bytes of compact JSON.
pub const MAX_RESULT_BYTES: usize = 2 << 20;
/// The deepest nesting of arrays and objects in a stored result.
pub const MAX_DEPTH: usize = 32;

fn refuse(field: &str, message: String) -> Refusal {
    Refusal {
        field: field.to_string(),
        message,
    }
}

/// `raw` (a result's JSON text) read as a `T` and written back.
fn typed<T: DeserializeOwned + Serialize>(raw: &str) -> Result<Value, Refusal> {
    let t: T = from_json_at(raw.as_bytes(), "result")?;
    serde_json::to_value(&t).map_err(|e| refuse("result", e.to_string()))
}

/// The fields kept beside a run's type.
#[derive(Deserialize)]
struct RunExtras {
    #[serde(default)]
    latency_hlog: Option<String>,
}

/// Result `raw` of `kind` (one of [`super::submission::KINDS`]) checked against its kind's
/// type and written back: what the server stores.
pub fn normalise(kind: &str, raw: &str) -> Result<Value, Refusal> {
    let v = match kind {
        "run" => {
            let mut v = typed::<crate::results::summary::RunSummary>(raw)?;
            let extras: RunExtras = from_json_at(raw.as_bytes(), "result")?;
            if let (Some(log), Some(o)) = (extras.latency_hlog, v.as_object_mut()) {
                o.insert("latency_hlog".into(), log.into());
            }
            v
        }
        "storage" => typed::<crate::bench_suites::storage::StorageRun>(raw)?,
        "flashbench" => typed::<crate::bench_suites::flashbench::FlashbenchRun>(raw)?,
        crate::durability::SUITE => typed::<crate::durability::DurabilityRun>(raw)?,
        "models" => typed::<crate::models::ModelsRun>(raw)?,
        other => {
            return Err(refuse(
                "kind",
                format!("{} has no result schema", crate::limits::escape(other)),
            ))
        }
    };
    let d = depth(&v);
    if d > MAX_DEPTH {
        return Err(refuse(
            "result",
            format!("nested {d} deep, more than {MAX_DEPTH}"),
        ));
    }
    let len = serde_json::to_string(&v).map_or(usize::MAX, |s| s.len());
    if len > MAX_RESULT_BYTES {
        return Err(refuse(
            "result",
            format!("{len} bytes once written compactly, more than {MAX_RESULT_BYTES}"),
        ));
    }
    Ok(v)
}

/// How deep arrays and objects nest in `v` (a scalar: 0), without recursion.
pub fn depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        deepest = deepest.max(d + 1);
        stack.extend(children.map(|c| (c, d + 1)));
    }
    deepest
}

#[cfg(test)]
mod tests {
    //! Depth is counted by hand-worked nesting; an unknown kind names `kind`.
    use super::*;

    #[test]
    fn depth_counts_nesting() {
        let v: Value = serde_json::from_str(r#"{"a":[1,[2,{"b":[]}]],"c":3}"#).unwrap();
        // object → array → array → object → array: 5.
        assert_eq!(depth(&v), 5);
        assert_eq!(depth(&Value::from(1)), 0);
        assert_eq!(normalise("nope", "{}").unwrap_err().field, "kind");
    }
}
