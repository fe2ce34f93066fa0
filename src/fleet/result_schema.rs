//! A submission as the results server accepts it ([`parse`], its whole check, with a fuzz
//! target), and the full schema of each kind's result: the result is read into the very type
//! `results show` and the server's report page read it with (`run`:
//! [`crate::results::summary::RunSummary`]; `storage`, `flashbench`, `durability`, `models`:
//! their runs), so every field is typed (a string where a number belongs is a 400 naming its
//! JSON path), and what is stored is that type written back compactly. Fields the type does not know are
//! **dropped**, not refused: a newer or older pocketbench may carry a field this server has
//! never heard of, and refusing it would lose the whole result; dropping it means nothing the
//! server cannot read is ever stored. One field beside the type is kept: a `run`'s
//! `latency_hlog` (the HdrHistogram log `submit` adds). The written-back result must be at most
//! [`MAX_RESULT_BYTES`] long and at most [`MAX_DEPTH`] deep (the types nest far less; the bound
//! holds for the few free-form values inside them, such as a run's `environment`).

use super::submission::{
    check, check_kind, from_json, from_json_at, refuse, Device, Refusal, Submission,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest result stored, in bytes of compact JSON.
pub const MAX_RESULT_BYTES: usize = 2 << 20;
/// The deepest nesting of arrays and objects in a stored result.
pub const MAX_DEPTH: usize = 32;

/// A submission as it arrives: its result kept as text until its kind's type reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Incoming {
    schema: u32,
    kind: String,
    device: Device,
    result: Box<serde_json::value::RawValue>,
}

/// Parse and check a submission's JSON body; its result is read into its kind's type and
/// written back ([`normalise`]).
pub fn parse(body: &[u8]) -> Result<Submission, Refusal> {
    let i: Incoming = from_json(body)?;
    let mut s = Submission {
        schema: i.schema,
        kind: i.kind,
        device: i.device,
        result: serde_json::Value::Null,
    };
    check_kind(&s)?;
    if !i.result.get().trim_start().starts_with('{') {
        return Err(refuse("result", "expected a JSON object (a stored result)"));
    }
    s.result = normalise(&s.kind, i.result.get())?;
    check(&s)?;
    Ok(s)
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
    //! The schema check names the field at fault, below the ranked figures too, and drops what
    //! a result's type does not know; depth is counted by hand-worked nesting.
    use super::*;

    fn body(device: &str, result: &str) -> Vec<u8> {
        format!(r#"{{"schema":1,"kind":"storage","device":{device},"result":{result}}}"#)
            .into_bytes()
    }

    /// A whole storage run (no file tests), its version and date as given.
    fn storage(tool_version: &str, created_at: &str) -> String {
        format!(
            r#"{{"id":3,"created_at":{created_at},"tool_version":{tool_version},"sqlite_version":"3.46.0",
            "settings":{{"dir":"/data","parts":[],"seq_read_size":1,"seq_write_size":1,"buffer":1,
              "rand_ops":null,"modes":[],"threads":[],"runs":1,
              "tx":{{"txns":1,"journal_mode":"wal","synchronous":"normal"}},"seed":1}},
            "file_system":"f2fs","files":[],"sqlite":[],"calibration":null}}"#
        )
    }

    #[test]
    fn wrong_types_and_missing_fields_are_named() {
        let ok = storage(r#""pocketbench 0.1.0""#, r#""2026-01-01""#);
        let ok_result = ok.as_str();
        let e = parse(&body(r#"{"model":5}"#, ok_result)).unwrap_err();
        assert_eq!(e.field, "device.model");
        assert!(e.message.contains("expected a string"), "{e}");
        let e = parse(&body(r#"{"model":"X","storage":{"disk":[]}}"#, ok_result)).unwrap_err();
        assert_eq!(e.field, "device.storage.disk");
        let e = parse(&body(r#"{"model":" "}"#, ok_result)).unwrap_err();
        assert_eq!(e.field, "device.model");
        let e = parse(&body(r#"{"model":"X"}"#, "[]")).unwrap_err();
        assert_eq!(e.field, "result");
        let e = parse(&body(r#"{"model":"X"}"#, "{}")).unwrap_err();
        assert_eq!(e.field, "result");
        assert!(e.message.contains("missing field `id`"), "{e}");
        // Every field is typed, below the ranked figures too.
        let e = parse(&body(
            r#"{"model":"X"}"#,
            &ok.replace(r#""id":3"#, r#""id":"3""#),
        ))
        .unwrap_err();
        assert_eq!(e.field, "result.id");
        let e = parse(&body(
            r#"{"model":"X"}"#,
            &ok.replace(r#""seed":1"#, r#""seed":"1""#),
        ))
        .unwrap_err();
        assert_eq!(e.field, "result.settings.seed");
        let e = parse(&body(
            r#"{"model":"X"}"#,
            &storage(r#""0.1.0""#, r#""2026-01-01""#),
        ))
        .unwrap_err();
        assert_eq!(e.field, "result.tool_version");
        // Cut short: no field to blame, the body is.
        let e = parse(b"{\"schema\":1").unwrap_err();
        assert_eq!(e.field, "body");
        let e = parse(b"[1]").unwrap_err();
        assert_eq!(e.field, "body");
        let long = format!(r#"{{"model":"X","soc":"{}"}}"#, "s".repeat(257));
        assert_eq!(
            parse(&body(&long, ok_result)).unwrap_err().field,
            "device.soc"
        );
        let e = parse(&body(r#"{"model":"X","colour":"red"}"#, ok_result)).unwrap_err();
        assert!(e.message.contains("unknown field"), "{e}");
        let e = parse(&body(r#"{"model":"X\u0000Y"}"#, ok_result)).unwrap_err();
        assert_eq!(e.field, "device.model");
        let e = parse(&body(
            r#"{"model":"X","storage":{"file_system":"f2\u0000"}}"#,
            ok_result,
        ))
        .unwrap_err();
        assert_eq!(e.field, "device.storage.file_system");
        let nul_version = storage(r#""pocketbench \u0000""#, r#""2026-01-01""#);
        assert_eq!(
            parse(&body(r#"{"model":"X"}"#, &nul_version))
                .unwrap_err()
                .field,
            "result.tool_version"
        );
        let bad_date = storage(r#""pocketbench 0.1.0""#, "5");
        assert_eq!(
            parse(&body(r#"{"model":"X"}"#, &bad_date))
                .unwrap_err()
                .field,
            "result.created_at"
        );
        // A field the result's type does not know is dropped, however deep, and the same
        // result without it hashes alike.
        let junk = ok.replacen('{', r#"{"junk":[[[0,0]]],"#, 1);
        let with = parse(&body(r#"{"model":"X"}"#, &junk)).unwrap();
        let without = parse(&body(r#"{"model":"X"}"#, &ok)).unwrap();
        assert!(with.result.get("junk").is_none());
        assert_eq!(with.result, without.result);
        assert_eq!(with.result["settings"]["tx"]["journal_mode"], "wal");
        // Any other Unicode is kept.
        assert!(parse(&body(r#"{"model":"Ωmega 📱 \u0007"}"#, ok_result)).is_ok());
    }

    #[test]
    fn depth_counts_nesting() {
        let v: Value = serde_json::from_str(r#"{"a":[1,[2,{"b":[]}]],"c":3}"#).unwrap();
        // object → array → array → object → array: 5.
        assert_eq!(depth(&v), 5);
        assert_eq!(depth(&Value::from(1)), 0);
        assert_eq!(normalise("nope", "{}").unwrap_err().field, "kind");
    }
}
