//! Replay of the original PocketData workload JSON files, unchanged.
//!
//! Such a file holds the statements that build the database (`init`, each `{"sql": …}`) and
//! the recorded benchmark (`benchmark`, a list of `{"op": "query", "sql": …}` and
//! `{"op": "break", "delta": <milliseconds>}` items). This module turns one into a SQL
//! [`Workload`] whose run phase carries the recorded delays: each query is followed by the
//! sum of the breaks up to the next query, and breaks before the first query become the
//! workload's initial delay. The file fixes every parameter, so no override applies.

use crate::error::{Error, Result};
use crate::output::units::format_duration;
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use crate::workload::overrides::reject_overrides;
use crate::workload::{Overrides, Workload, WorkloadInfo};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Load a PocketData workload JSON file. Every problem with the file is a bad-input error
/// naming the file and the place in it.
pub fn load(path: &Path, o: &Overrides) -> Result<Workload> {
    reject_overrides(o, &[], "a recorded PocketData workload file")?;
    let shown = path.display();
    let text = crate::limits::read_text(
        path,
        &shown.to_string(),
        crate::limits::MAX_WORKLOAD_FILE_BYTES,
    )?;
    let recording = Recording::parse(&text).map_err(|e| e.context(&shown))?;
    let name = path
        .file_name()
        .map_or_else(|| shown.to_string(), |n| n.to_string_lossy().into_owned());
    Ok(recording.into_workload(name, path))
}

/// The contents of a PocketData file, checked and converted to operations.
#[derive(Debug, Default)]
struct Recording {
    init: Vec<String>,
    run: Vec<TimedOp>,
    initial_delay_ns: u64,
    breaks: u64,
    total_delay_ns: u64,
}

impl Recording {
    fn parse(text: &str) -> Result<Recording> {
        let mut top = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(Error::input(
                    "expected a JSON object with \"init\" and \"benchmark\"",
                ))
            }
            Err(e) => return Err(json_syntax_error(&e)),
        };
        let mut recording = Recording::default();
        for (i, item) in take_list(&mut top, "init")?.into_iter().enumerate() {
            let at = format!("init[{i}]");
            recording.init.push(take_sql(object(item, &at)?, &at)?);
        }
        for (i, item) in take_list(&mut top, "benchmark")?.into_iter().enumerate() {
            recording.push_item(item, &format!("benchmark[{i}]"))?;
        }
        if recording.run.is_empty() {
            return Err(Error::input(
                "benchmark: no \"query\" items, nothing to run",
            ));
        }
        Ok(recording)
    }

    fn push_item(&mut self, item: Value, at: &str) -> Result<()> {
        let mut item = object(item, at)?;
        match item.get("op").and_then(Value::as_str) {
            Some("query") => {
                let sql = take_sql(item, at)?;
                self.run.push(TimedOp {
                    op: Op::Sql { sql },
                    delay_ns: 0,
                    recorded: None,
                });
            }
            Some("break") => {
                let ns = delta_ns(item.remove("delta"), at)?;
                let slot = match self.run.last_mut() {
                    Some(last) => &mut last.delay_ns,
                    None => &mut self.initial_delay_ns,
                };
                *slot = add_delay(*slot, ns, at)?;
                self.total_delay_ns = add_delay(self.total_delay_ns, ns, at)?;
                self.breaks += 1;
            }
            Some(other) => {
                return Err(Error::input(format!(
                    "{at}: unknown op '{other}' (expected \"query\" or \"break\")"
                )))
            }
            None => return Err(Error::input(format!("{at}: missing \"op\" string"))),
        }
        Ok(())
    }

    fn into_workload(self, name: String, path: &Path) -> Workload {
        let params = BTreeMap::from([
            ("path".to_string(), path.display().to_string()),
            ("init_statements".into(), self.init.len().to_string()),
            ("queries".into(), self.run.len().to_string()),
            ("breaks".into(), self.breaks.to_string()),
            (
                "recorded_delay".into(),
                format_duration(self.total_delay_ns),
            ),
        ]);
        let info = WorkloadInfo {
            name,
            source: "pocketdata-json".into(),
            model: DataModel::Sql,
            load_ops: self.init.len() as u64,
            run_ops: self.run.len() as u64,
            params,
            recorded_delays: true,
            initial_delay_ns: self.initial_delay_ns,
        };
        Workload {
            info,
            load: Box::new(self.init.into_iter().map(|sql| Op::Sql { sql })),
            run: Box::new(self.run.into_iter()),
        }
    }
}

/// A JSON syntax error as one line with its `line:column`.
fn json_syntax_error(e: &serde_json::Error) -> Error {
    let full = e.to_string();
    let message = full.split(" at line ").next().unwrap_or(&full);
    Error::input(format!(
        "malformed JSON at {}:{}: {message}",
        e.line(),
        e.column()
    ))
}

fn take_list(top: &mut Map<String, Value>, key: &str) -> Result<Vec<Value>> {
    match top.remove(key) {
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(Error::input(format!("\"{key}\" must be a list"))),
        None => Err(Error::input(format!("missing \"{key}\" list"))),
    }
}

fn object(item: Value, at: &str) -> Result<Map<String, Value>> {
    match item {
        Value::Object(map) => Ok(map),
        _ => Err(Error::input(format!("{at}: expected an object"))),
    }
}

fn take_sql(mut item: Map<String, Value>, at: &str) -> Result<String> {
    match item.remove("sql") {
        Some(Value::String(sql)) => {
            crate::limits::check_sql(&sql, at)?;
            Ok(sql)
        }
        _ => Err(Error::input(format!("{at}: missing \"sql\" string"))),
    }
}

/// A break's `delta` (milliseconds, integer or fractional) in nanoseconds.
fn delta_ns(delta: Option<Value>, at: &str) -> Result<u64> {
    let number = match delta {
        Some(Value::Number(n)) => n,
        _ => {
            return Err(Error::input(format!(
                "{at}: break without a numeric \"delta\""
            )))
        }
    };
    let too_large = || Error::input(format!("{at}: delta {number} ms is too large"));
    if let Some(ms) = number.as_u64() {
        return ms.checked_mul(1_000_000).ok_or_else(too_large);
    }
    match number.as_f64() {
        Some(ms) if ms < 0.0 => Err(Error::input(format!("{at}: negative delta {number} ms"))),
        // `u64::MAX as f64` rounds up to 2^64, so the comparison is strict.
        Some(ms) if ms * 1e6 < u64::MAX as f64 => Ok((ms * 1e6).round() as u64),
        _ => Err(too_large()),
    }
}

fn add_delay(total: u64, ns: u64, at: &str) -> Result<u64> {
    total
        .checked_add(ns)
        .ok_or_else(|| Error::input(format!("{at}: accumulated delay is too large")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pocketdata")
            .join(name)
    }

    fn temp_json(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    fn load_err(text: &str) -> String {
        let f = temp_json(text);
        match load(f.path(), &Overrides::default()) {
            Err(Error::Input(m)) => {
                assert!(m.starts_with(&f.path().display().to_string()), "{m}");
                m
            }
            Err(e) => panic!("expected bad input, got {e}"),
            Ok(_) => panic!("expected an error for {text}"),
        }
    }

    fn check_fixture(name: &str, total_ms: u64) {
        let path = fixture(name);
        assert!(
            path.is_file(),
            "fixture {} is missing (it is part of the repository)",
            path.display()
        );
        let w = load(&path, &Overrides::default()).unwrap();
        assert_eq!(w.info.name, name);
        assert_eq!(w.info.source, "pocketdata-json");
        assert_eq!(w.info.model, DataModel::Sql);
        assert!(w.info.recorded_delays);
        assert_eq!((w.info.load_ops, w.info.run_ops), (501, 1800));
        assert_eq!(w.info.initial_delay_ns, 0);
        assert_eq!(w.info.params["queries"], "1800");
        assert_eq!(w.info.params["breaks"], "1799");
        let load: Vec<Op> = w.load.collect();
        assert_eq!(load.len(), 501);
        assert!(matches!(&load[0], Op::Sql { sql } if sql.starts_with("CREATE TABLE YCSBDATA")));
        let run: Vec<TimedOp> = w.run.collect();
        assert_eq!(run.len(), 1800);
        let total: u64 = run.iter().map(|t| t.delay_ns).sum();
        assert_eq!(total, total_ms * 1_000_000);
        assert_eq!(
            run.last().unwrap().delay_ns,
            0,
            "nothing follows the last query"
        );
    }

    #[test]
    fn fixtures_replay_with_their_recorded_delays() {
        check_fixture("workload_a_0ms.json", 0);
        check_fixture("workload_ia_log.json", 11_544);
    }

    #[test]
    fn breaks_are_summed_and_leading_breaks_delay_the_start() {
        let f = temp_json(
            r#"{"init":[{"sql":"CREATE TABLE t(a)"}],
                "benchmark":[{"op":"break","delta":2},
                             {"op":"query","sql":"SELECT 1"},
                             {"op":"break","delta":1},{"op":"break","delta":0.25},
                             {"op":"query","sql":"SELECT 2"},
                             {"op":"query","sql":"SELECT 3"},
                             {"op":"break","delta":4}]}"#,
        );
        let w = load(f.path(), &Overrides::default()).unwrap();
        assert_eq!(w.info.initial_delay_ns, 2_000_000);
        assert_eq!(w.info.params["recorded_delay"], "7.25ms");
        let delays: Vec<u64> = w.run.map(|t| t.delay_ns).collect();
        assert_eq!(delays, [1_250_000, 0, 4_000_000]);
    }

    #[test]
    fn malformed_files_name_the_file_and_the_place() {
        let cases = [
            ("{\"init\": [}", "malformed JSON at 1:11"),
            ("[1, 2]", "expected a JSON object"),
            (r#"{"benchmark": []}"#, "missing \"init\" list"),
            (r#"{"init": []}"#, "missing \"benchmark\" list"),
            (
                r#"{"init": {}, "benchmark": []}"#,
                "\"init\" must be a list",
            ),
            (
                r#"{"init": [{"sq": "x"}], "benchmark": []}"#,
                "init[0]: missing \"sql\"",
            ),
            (
                r#"{"init": [3], "benchmark": []}"#,
                "init[0]: expected an object",
            ),
            (
                r#"{"init": [], "benchmark": [{"op":"query","sql":"x"},{"op":"sleep"}]}"#,
                "benchmark[1]: unknown op 'sleep'",
            ),
            (
                r#"{"init": [], "benchmark": [{"sql":"x"}]}"#,
                "benchmark[0]: missing \"op\"",
            ),
            (
                r#"{"init": [], "benchmark": [{"op":"query"}]}"#,
                "benchmark[0]: missing \"sql\"",
            ),
            (
                r#"{"init": [], "benchmark": [{"op":"break","delta":"1"}]}"#,
                "benchmark[0]: break without a numeric \"delta\"",
            ),
            (
                r#"{"init": [], "benchmark": [{"op":"break"}]}"#,
                "benchmark[0]: break without a numeric \"delta\"",
            ),
            (
                r#"{"init": [], "benchmark": [{"op":"break","delta":-1}]}"#,
                "benchmark[0]: negative delta -1 ms",
            ),
            (
                r#"{"init": [], "benchmark": [{"op":"break","delta":1e300}]}"#,
                "too large",
            ),
            (
                r#"{"init": [], "benchmark": [{"op":"break","delta":18446744073709551615}]}"#,
                "too large",
            ),
            (r#"{"init": [], "benchmark": []}"#, "no \"query\" items"),
        ];
        for (text, expected) in cases {
            let msg = load_err(text);
            assert!(msg.contains(expected), "{text}: {msg}");
        }
        let msg = load_err(
            "{\n  \"init\": [],\n  \"benchmark\": [\n    {\"op\": \"query\" \"sql\": 1}\n]}",
        );
        assert!(msg.contains("malformed JSON at 4:20"), "{msg}");
    }

    #[test]
    fn unreadable_files_are_bad_input() {
        let missing = Path::new("/nonexistent/pocketdata.json");
        match load(missing, &Overrides::default()) {
            Err(Error::Input(m)) => assert!(
                m.starts_with("/nonexistent/pocketdata.json: cannot read"),
                "{m}"
            ),
            other => panic!("unexpected {:?}", other.map(|w| w.info)),
        }
    }

    #[test]
    fn overrides_are_refused_by_flag_name() {
        let f = temp_json(r#"{"init": [], "benchmark": [{"op":"query","sql":"SELECT 1"}]}"#);
        let refuse = |o: Overrides, flag: &str| match load(f.path(), &o) {
            Err(Error::Input(m)) => assert_eq!(
                m,
                format!("{flag} does not apply to a recorded PocketData workload file")
            ),
            other => panic!("{flag}: unexpected {:?}", other.map(|w| w.info)),
        };
        refuse(
            Overrides {
                records: Some(5),
                ..Default::default()
            },
            "--records",
        );
        refuse(
            Overrides {
                ops: Some(5),
                ..Default::default()
            },
            "--ops",
        );
        refuse(
            Overrides {
                field_count: Some(5),
                ..Default::default()
            },
            "--field-count",
        );
        refuse(
            Overrides {
                field_length: Some(5),
                ..Default::default()
            },
            "--field-length",
        );
        refuse(
            Overrides {
                distribution: Some("zipfian".into()),
                ..Default::default()
            },
            "--distribution",
        );
        refuse(
            Overrides {
                miss_ratio: Some(0.1),
                ..Default::default()
            },
            "--miss-ratio",
        );
        refuse(
            Overrides {
                indexes: vec!["key".into()],
                ..Default::default()
            },
            "--index",
        );
    }
}
