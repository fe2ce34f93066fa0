//! The entry points of the fuzz targets (`fuzz/`, run with `cargo fuzz` on nightly) and of the
//! deterministic regression test that replays their seed corpora and every input that once
//! crashed or hung (`tests/fuzz_regressions.rs`). Each takes arbitrary bytes and drives one
//! input parser the way a command would, as far as its first operations; the only failure is
//! a panic, an abort or a hang — every `Err` is a correct refusal.

use std::io::Write;

/// How many operations of each phase a workload target draws: enough to exercise every
/// generator, few enough that a legal but huge workload is not a hang.
const OPS_DRAWN: usize = 2_000;

fn temp_file(suffix: &str, data: &[u8]) -> Option<tempfile::NamedTempFile> {
    let mut f = tempfile::Builder::new()
        .prefix("pocketbench-fuzz-")
        .suffix(suffix)
        .tempfile()
        .ok()?;
    f.write_all(data).ok()?;
    Some(f)
}

/// A trace file: open, check its header, read every record, and plan its replay in the app's
/// order across connections (`run --order recorded`) under both journal kinds.
pub fn trace_reader(data: &[u8]) {
    let Some(f) = temp_file(".pbt", data) else {
        return;
    };
    if let Ok(reader) = crate::workload::trace::TraceReader::open(f.path()) {
        for item in reader {
            if item.is_err() {
                return;
            }
        }
        for rollback in [false, true] {
            let _ = crate::run::order::Plan::of(f.path(), rollback);
        }
    }
}

/// A flash I/O trace: decode it and replay it on the smallest preset device.
pub fn flash_trace(data: &[u8]) {
    let Ok(trace) = crate::engine::io::trace::decode(data) else {
        return;
    };
    if let Ok(cfg) = crate::flash::config::ModelConfig::preset("slc-2k") {
        let _ = crate::flash::replay(&cfg, &trace.records, "--flash-model", |_, _| {});
    }
}

/// A workload file of the given extension: resolve it (parse, check, build the generators)
/// and draw its first operations.
fn workload_file(suffix: &str, data: &[u8]) {
    let Some(f) = temp_file(suffix, data) else {
        return;
    };
    let Some(spec) = f.path().to_str() else {
        return;
    };
    let overrides = crate::workload::Overrides::default();
    if let Ok(w) = crate::workload::resolve::resolve(spec, &overrides, 1) {
        w.load.take(OPS_DRAWN).for_each(drop);
        w.run.take(OPS_DRAWN).for_each(drop);
    }
}

/// A TOML workload spec.
pub fn spec_toml(data: &[u8]) {
    workload_file(".toml", data);
}

/// A PocketData JSON recording.
pub fn spec_json(data: &[u8]) {
    workload_file(".json", data);
}

/// A YCSB `.properties` file.
pub fn spec_properties(data: &[u8]) {
    workload_file(".properties", data);
}

/// SQL text as a workload's statement holds it, split and run on an in-memory database, and
/// read by the JVM engines' screen of untrusted statements.
pub fn sql_splitter(data: &[u8]) {
    if let Ok(sql) = std::str::from_utf8(data) {
        let _ = crate::engine::sqlite::session::exec_in_memory(sql);
        let _ = crate::run::screen::refusal(sql);
    }
}

/// A trace's statement as `advise` reads it (its constraints for an index, its literals bound
/// as parameters, a plan's detail lines), and `advise --budget`'s text.
pub fn advise_text(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::advise::constraints::constraints(text);
        let _ = crate::advise::variant::bind_literals(text);
        let _ = crate::advise::parse_budget(text);
        let details: Vec<String> = text.lines().map(String::from).collect();
        let _ = crate::advise::indexes::read_plan(&details);
    }
}

/// An energy meter's CSV, placed on a run's clock.
pub fn meter_csv(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let align = crate::platform::energy::meter::Alignment {
            meter_start_unix_ns: Some(1_700_000_000_000_000_000),
            offset_ns: 0,
            fixed_voltage: Some(3.8),
        };
        if let Ok(trace) = crate::platform::energy::meter::parse(text, "meter.csv", &align) {
            let w = crate::platform::energy::Window {
                start_mono_ns: 0,
                end_mono_ns: 1_000_000_000,
                start_unix_ns: 1_700_000_000_000_000_000,
                end_unix_ns: 1_700_000_001_000_000_000,
            };
            let _ = trace.energy_uj(&w);
        }
    }
}

/// A study plan (`pocketbench matrix FILE`): parse it, expand its cells and check every cell's
/// flags as `matrix` does before measuring (nothing runs).
pub fn study_plan(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(plan) = crate::study::plan::Plan::parse(text, "plan.toml", "plan") {
            if let Ok(cells) = crate::study::cells::expand(&plan) {
                if cells.len() <= 64 {
                    let _ = crate::study::runner::requests(&plan, &cells);
                }
            }
        }
    }
}

/// What the results server reads from a client: the first byte chooses a submission's JSON
/// body (parsed and checked as `POST /api/v1/results` does, then hashed) or a request target
/// (split into path segments and query parameters).
pub fn submission(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        if let Ok(s) = crate::fleet::result_schema::parse(rest) {
            let _ = crate::fleet::submission::content_hash(&s.kind, &s.result);
        }
    } else {
        let _ = crate::fleet::url::split_url(&String::from_utf8_lossy(rest));
    }
}

/// What `/login` and a `--private` server read from a browser: the first byte chooses a
/// form-encoded body (its `token` field) or a `Cookie` header (its session cookie). A field
/// comes back trimmed; a cookie's value never holds the header's separator.
pub fn login_form(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        if let Some(v) = crate::fleet::url::form_value(rest, "token") {
            assert_eq!(v.trim(), v);
        }
    } else {
        let header = String::from_utf8_lossy(rest);
        if let Some(v) = crate::fleet::url::cookie_value(&header, "pb_session") {
            assert!(!v.contains(';'));
        }
    }
}

/// A log fed through the import front end `format` (as `trace import` reads it), each
/// statement fingerprinted as `trace stats` does and read by `--infer-schema`'s inference,
/// and each record anonymised with every part; then auto-detection over the same lines.
fn import_log(format: &str, data: &[u8]) {
    use crate::workload::import::anonymize::{Anonymizer, Scope};
    use crate::workload::import::{infer, source, sql::lexer, LogRecord};
    let Some(f) = temp_file(".log", data) else {
        return;
    };
    let Ok(fe) = source::choose(f.path(), format) else {
        return;
    };
    let mut inference = infer::Inference::new(&Default::default());
    let scope = Scope {
        literals: true,
        integers: true,
        identifiers: true,
        paths: true,
    };
    let anonymizer = Anonymizer::new("fuzz", scope);
    let _ = source::read(f.path(), fe, &mut |mut r| {
        if let LogRecord::Statement(s) = &r {
            let _ = lexer::fingerprint(&s.sql);
            inference.feed(s);
        }
        anonymizer.apply(&mut r);
        Ok(())
    });
    let _ = inference.finish(false);
    let _ = source::choose(f.path(), "auto");
}

/// A logcat (`android-logcat`).
pub fn import_logcat(data: &[u8]) {
    import_log("android-logcat", data);
}

/// The sqlite3 shell's `.trace` output (`sqlite-trace`).
pub fn import_sqlite_trace(data: &[u8]) {
    import_log("sqlite-trace", data);
}

/// PhoneLab's `SQLite-Query-PhoneLab` lines (`phonelab`).
pub fn import_phonelab(data: &[u8]) {
    import_log("phonelab", data);
}

/// `dumpsys dbinfo` output (`dumpsys-dbinfo`).
pub fn import_dumpsys(data: &[u8]) {
    import_log("dumpsys-dbinfo", data);
}

/// pocketbench's own statement log (`jsonl`), imported all the way to a trace: the parser,
/// the conversion rules (arguments bound, then inline and merged), and the trace written.
/// Each line the fast reader of the capture's line shape reads, it reads as serde_json does.
pub fn import_jsonl(data: &[u8]) {
    use crate::workload::import::convert::{ArgsMode, Dangling, Rules};
    use crate::workload::import::formats::jsonl_scan;
    use crate::workload::import::pipeline::{import, ImportRequest};
    use crate::workload::import::{LogRecord, StatementRecord};
    for line in String::from_utf8_lossy(data).lines() {
        if let Some(fast) = jsonl_scan::statement(line.trim()) {
            let slow = serde_json::from_str::<LogRecord>(line.trim()).ok();
            // As an import reads it: the same, or without an expanded text that has bound
            // arguments beside it and no NUL.
            let bound = jsonl_scan::statement_bound(line.trim()).expect("read the same");
            let left_out = fast.expanded.is_some() && bound.expanded.is_none();
            assert!(
                !left_out
                    || (fast.args.as_ref().is_some_and(|a| !a.is_empty())
                        && !fast.expanded.as_deref().unwrap_or("").contains('\0')),
                "{line}"
            );
            let expanded = if left_out {
                None
            } else {
                fast.expanded.clone()
            };
            assert_eq!(
                bound,
                StatementRecord {
                    expanded,
                    ..fast.clone()
                },
                "{line}"
            );
            assert_eq!(slow, Some(LogRecord::Statement(fast)), "{line}");
        }
    }
    let Some(f) = temp_file(".jsonl", data) else {
        return;
    };
    let Ok(out) = tempfile::Builder::new()
        .prefix("pocketbench-fuzz-")
        .tempdir()
    else {
        return;
    };
    for (args, merge) in [(ArgsMode::Bind, false), (ArgsMode::Inline, true)] {
        let req = ImportRequest {
            input: f.path().to_path_buf(),
            output: out.path().join("out.pbt"),
            format: "jsonl".into(),
            db: None,
            rules: Rules {
                args,
                dangling: Dangling::Commit,
                merge_connections: merge,
                window: None,
                max_gap_ns: Some(1_000_000_000),
                speed: 2.0,
            },
            schema_file: None,
            schema_from: None,
            data_from: None,
            check: false,
            drop_failing: false,
            infer_schema: merge,
            anonymize: None,
        };
        if import::<crate::engine::sqlite::session::MemoryDb>(&req, None).is_ok() {
            trace_reader(&std::fs::read(out.path().join("out.pbt")).unwrap_or_default());
        }
    }
}

/// A fuzz target's entry point.
pub type Target = fn(&[u8]);

/// Every target by name, as the fuzz script and the regression test name them.
/// What a device prints back to `pocketbench device`: the first byte chooses the parser —
/// `adb devices -l` output, the probe's `key=value` lines (then its description, as `device
/// list` prints it), a devices file (TOML), `device capture`'s listing of an app's databases,
/// the end of a binary `exec-out` stream with its exit status, or a job's outputs manifest —
/// and the rest is its text.
pub fn device_text(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match which % 6 {
        0 => {
            for d in crate::device::adb::parse_devices(&text) {
                let _ = d.problem();
            }
        }
        1 => {
            let info = crate::device::probe::parse(&text);
            let _ = info.describe();
        }
        2 => {
            let _ = crate::device::config::parse(&text);
        }
        3 => {
            if let Some((_, files)) = crate::device::capture::parse_listing(&text) {
                for f in files {
                    let _ = crate::device::capture::sidecar(&f.name);
                }
            }
        }
        4 => {
            let _ = crate::device::transport::trailing_status(rest);
        }
        _ => {
            let _ = crate::device::outputs::parse_manifest(&text);
        }
    }
}

/// A file-system call recording (`durability`'s recorder log): parse it on top of one small
/// file, then build every model's first crash states at a few points, in memory. Files are
/// kept small here (the format allows 4 GiB) so an input is not an out-of-memory.
pub fn fs_recording(data: &[u8]) {
    use crate::durability::fsrec::{model::Model, state::Builder, Op, Recording};
    let start = Recording::new(vec![("db".into(), vec![1; 600])], vec!["sub".into()]);
    let Ok(rec) = start.parse(data, "fuzz") else {
        return;
    };
    let big = rec.ops.iter().any(|o| match o {
        Op::Write { off, data, .. } => off + data.len() as u64 > 1 << 20,
        Op::Trunc { len, .. } => *len > 1 << 20,
        _ => false,
    });
    if big {
        return;
    }
    let _ = rec.workload_start();
    for m in [
        Model::Strict,
        Model::Ext4Ordered,
        Model::F2fsPosix,
        Model::F2fsStrict,
    ] {
        let mut b = Builder::new(rec.clone(), m);
        let n = b.rec.ops.len();
        for point in [n / 3, n / 2, n] {
            let space = b.space(point);
            for v in 0..space.states(3) {
                let choice = space.choice(&b.rec, v, 3, 1);
                let _ = b.state(&space, &choice);
            }
            for k in space.first_open..point {
                let _ = b.rec.describe(k);
            }
        }
    }
}

/// What the results server reads of a published trace, and what `run --trace` reads of an
/// address: the first byte chooses the upload's check (its bytes as a trace, read whole with its
/// statistics and the anonymisation rule, either way of the publisher's flag) or a shared
/// trace's address.
pub fn trace_upload(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        if let Some(f) = temp_file(".pbt", rest) {
            let _ = crate::fleet::trace_check::check(f.path(), which % 4 == 0);
        }
    } else {
        let _ = crate::fleet::traces::parse_address(&String::from_utf8_lossy(rest));
    }
}

pub const TARGETS: [(&str, Target); 19] = [
    ("trace_reader", trace_reader),
    ("flash_trace", flash_trace),
    ("spec_toml", spec_toml),
    ("spec_json", spec_json),
    ("spec_properties", spec_properties),
    ("sql_splitter", sql_splitter),
    ("advise_text", advise_text),
    ("meter_csv", meter_csv),
    ("device_text", device_text),
    ("study_plan", study_plan),
    ("submission", submission),
    ("login_form", login_form),
    ("import_logcat", import_logcat),
    ("import_sqlite_trace", import_sqlite_trace),
    ("import_phonelab", import_phonelab),
    ("import_dumpsys", import_dumpsys),
    ("import_jsonl", import_jsonl),
    ("fs_recording", fs_recording),
    ("trace_upload", trace_upload),
];
