//! Turning the user's `--workload` value into a [`Workload`]: a built-in name or a workload
//! file, chosen by extension (`.json` PocketData recording, `.toml` spec, anything else a YCSB
//! properties file), with the overrides' sizes checked against the limits.

use crate::error::{Error, Result};
use crate::limits;
use crate::workload::overrides::{FIELD_COUNT, FIELD_LENGTH, OPS, RECORDS};
use crate::workload::{pocketdata, spec_toml, ycsb, Overrides, Workload, WorkloadInfo};
use std::path::Path;

/// Built-in YCSB core workloads.
const YCSB_NAMES: [&str; 6] = ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f"];

/// Every built-in workload name, YCSB first.
pub fn builtin_names() -> Vec<&'static str> {
    YCSB_NAMES
        .iter()
        .chain(pocketdata::NAMES.iter())
        .copied()
        .collect()
}

/// Resolve `spec` — a built-in name or a path to a workload file — into a workload with the
/// overrides applied. Built-in names win over files of the same name (write `./ycsb-a` for
/// the file).
pub fn resolve(spec: &str, o: &Overrides, seed: u64) -> Result<Workload> {
    check_override_limits(o)?;
    let w = resolve_unchecked(spec, o, seed)?;
    // The size asked for is checked, also when quick mode then runs less of it.
    crate::workload::bounds::check_info(
        &w.info,
        &format!("--workload {}: ", limits::escape(spec)),
    )?;
    if crate::quick::active() {
        return shorten(spec, o, seed, w);
    }
    Ok(w)
}

/// What [`resolve`] makes outside quick mode: the workload at the size asked for, which quick
/// mode checks every environment limit against (free space) before running less of it.
pub fn full_size(spec: &str, o: &Overrides, seed: u64) -> Result<WorkloadInfo> {
    check_override_limits(o)?;
    Ok(resolve_unchecked(spec, o, seed)?.info)
}

fn resolve_unchecked(spec: &str, o: &Overrides, seed: u64) -> Result<Workload> {
    if let Some(w) = ycsb::builtin(spec, o, seed)? {
        return Ok(w);
    }
    if let Some(w) = pocketdata::builtin(spec, o, seed)? {
        return Ok(w);
    }
    let path = Path::new(spec);
    if path.is_file() {
        return load_file(path, o, seed);
    }
    Err(not_found(spec, path))
}

/// Quick mode ([`crate::quick`]): a workload that takes size overrides is made again with its
/// records and operations capped; any other (a recording, a TOML spec) keeps its load and has
/// its run phase cut after the first operations; recorded delays are capped.
fn shorten(spec: &str, o: &Overrides, seed: u64, w: Workload) -> Result<Workload> {
    use crate::quick;
    let (records, ops) = (w.info.load_ops, w.info.run_ops);
    let asked = format!(
        "{ENV}: {records} load and {ops} run operations asked",
        ENV = quick::ENV
    );
    let sized = YCSB_NAMES.contains(&spec)
        || pocketdata::NAMES.contains(&spec)
        || !matches!(
            Path::new(spec)
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .as_deref(),
            Some("json" | "toml")
        );
    let mut w = if sized && (records > quick::RECORDS || ops > quick::OPS) {
        let capped = Overrides {
            records: Some(quick::cap(RECORDS, records, quick::RECORDS)),
            ops: Some(quick::cap(OPS, ops, quick::OPS)),
            ..o.clone()
        };
        resolve_unchecked(spec, &capped, seed)?
    } else {
        w
    };
    if !sized && w.info.run_ops > quick::OPS {
        w.info.run_ops = quick::cap("operations", w.info.run_ops, quick::OPS);
        w.run = Box::new(w.run.take(quick::OPS as usize));
    }
    if (w.info.load_ops, w.info.run_ops) != (records, ops) {
        // Stored with the trace and every result (workload.params): a shortened run says so.
        w.info.params.insert("quick".into(), asked);
    }
    if w.info.recorded_delays {
        let max = quick::DELAY_NS;
        quick::note("recorded delays", "as recorded", "at most 1 ms");
        w.info.initial_delay_ns = w.info.initial_delay_ns.min(max);
        w.run = Box::new(w.run.map(move |mut t| {
            t.delay_ns = t.delay_ns.min(max);
            t
        }));
    }
    Ok(w)
}

/// Every size override within its documented limit (docs/limits.md), named by its flag.
fn check_override_limits(o: &Overrides) -> Result<()> {
    if o.ops == Some(0) {
        return Err(Error::input(format!("{OPS}: must be at least 1")));
    }
    if let Some(n) = o.records {
        limits::at_most(RECORDS, n, limits::MAX_RECORDS)?;
    }
    if let Some(n) = o.ops {
        limits::at_most(OPS, n, limits::MAX_OPS)?;
    }
    if let Some(n) = o.field_count {
        limits::at_most(FIELD_COUNT, n, limits::MAX_FIELD_COUNT)?;
    }
    if let Some(n) = o.field_length {
        limits::at_most(FIELD_LENGTH, n, limits::MAX_FIELD_LENGTH)?;
    }
    Ok(())
}

/// Load a workload file, choosing its format by extension.
fn load_file(path: &Path, o: &Overrides, seed: u64) -> Result<Workload> {
    if crate::workload::trace::is_trace(path) {
        return Err(Error::input(format!(
            "--workload {}: is a trace; replay it with --trace",
            limits::escape(&path.display().to_string())
        )));
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("json") => pocketdata::json::load(path, o),
        Some("toml") => spec_toml::load(path, o, seed),
        _ => ycsb::from_properties_file(path, o, seed),
    }
}

fn not_found(spec: &str, path: &Path) -> Error {
    let hint = format!(
        "built-in: {}; or a path to a .properties, .json or .toml file",
        builtin_names().join(", ")
    );
    if path.is_dir() {
        Error::input(format!(
            "--workload: '{spec}' is a directory, not a workload file"
        ))
    } else if spec.contains(['/', '\\']) || path.extension().is_some() {
        Error::input(format!("--workload: no such file '{spec}' ({hint})"))
    } else {
        Error::input(format!("--workload: unknown workload '{spec}' ({hint})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::model::DataModel;
    use std::io::Write;

    fn input_message(r: Result<Workload>) -> String {
        match r {
            Err(Error::Input(m)) => m,
            Err(e) => panic!("expected bad input, got {e}"),
            Ok(w) => panic!("expected an error, got workload {}", w.info.name),
        }
    }

    fn temp_file(suffix: &str, text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn builtin_names_resolve() {
        let names = builtin_names();
        assert!(names.contains(&"ycsb-a") && names.contains(&"ycsb-f"));
        assert!(names.iter().any(|n| n.starts_with("pocketdata-")));
        for name in names {
            let w = resolve(name, &Overrides::default(), 1).unwrap();
            assert_eq!(w.info.name, name);
        }
    }

    #[test]
    fn files_are_chosen_by_extension() {
        let json = temp_file(
            ".json",
            r#"{"init": [], "benchmark": [{"op": "query", "sql": "SELECT 1"}]}"#,
        );
        let w = resolve(json.path().to_str().unwrap(), &Overrides::default(), 1).unwrap();
        assert_eq!(w.info.source, "pocketdata-json");

        let toml = temp_file(
            ".toml",
            "[sql]\nrecords = 3\noperations = 4\n[[sql.statement]]\nsql = \"SELECT {key}\"\n",
        );
        let w = resolve(toml.path().to_str().unwrap(), &Overrides::default(), 1).unwrap();
        assert_eq!((w.info.source.as_str(), w.info.run_ops), ("toml", 4));

        let props = temp_file(
            "",
            "recordcount=10\noperationcount=20\nreadproportion=1\nupdateproportion=0\n",
        );
        let w = resolve(props.path().to_str().unwrap(), &Overrides::default(), 1).unwrap();
        assert!(matches!(w.info.model, DataModel::KeyValue(_)));
        assert_eq!((w.info.load_ops, w.info.run_ops), (10, 20));
    }

    #[test]
    fn unknown_names_and_missing_files_are_bad_input() {
        let msg = input_message(resolve("ycsb-z", &Overrides::default(), 1));
        assert!(
            msg.starts_with("--workload: unknown workload 'ycsb-z' (built-in: ycsb-a, "),
            "{msg}"
        );
        assert!(
            msg.ends_with("; or a path to a .properties, .json or .toml file)"),
            "{msg}"
        );
        let msg = input_message(resolve("/no/such/spec.toml", &Overrides::default(), 1));
        assert!(
            msg.starts_with("--workload: no such file '/no/such/spec.toml'"),
            "{msg}"
        );
        let dir = tempfile::tempdir().unwrap();
        let msg = input_message(resolve(
            dir.path().to_str().unwrap(),
            &Overrides::default(),
            1,
        ));
        assert!(
            msg.ends_with("is a directory, not a workload file"),
            "{msg}"
        );
    }
}
