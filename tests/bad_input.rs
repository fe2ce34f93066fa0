//! Bad input: every refusal exits with status 2, prints nothing on stdout and one line on
//! stderr naming the flag, file or field at fault, and leaves the results store alone — no
//! store is created, and an existing one gets no run.

mod common;

use common::{arg, fixture, stored_runs, words, Outcome, Sandbox};
use std::path::Path;

/// The refusal every bad input must produce.
fn assert_refused(out: &Outcome, needles: &[&str]) {
    let args = out.args.join(" ");
    assert_eq!(
        out.code,
        Some(2),
        "pocketbench {args}: expected status 2\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout.is_empty(),
        "pocketbench {args}: stdout {:?}",
        out.stdout
    );
    let lines = out.stderr_lines();
    assert_eq!(
        lines.len(),
        1,
        "pocketbench {args}: stderr {:?}",
        out.stderr
    );
    assert!(
        lines[0].starts_with("pocketbench: error: "),
        "pocketbench {args}: {}",
        lines[0]
    );
    for needle in needles {
        assert!(
            lines[0].contains(needle),
            "pocketbench {args}: error does not mention {needle:?}: {}",
            lines[0]
        );
    }
}

/// `run ARGS --results PATH`.
fn run_args<'a>(args: &[&'a str], results: &'a Path) -> Vec<&'a str> {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend(["--results", arg(results)]);
    all
}

/// `pocketbench run ARGS` is refused, naming every one of `needles`, both when no results
/// store exists (none is created) and when one holding a run exists (no run is added).
fn assert_bad_run(sb: &Sandbox, args: &[&str], needles: &[&str]) {
    let fresh = sb.path("fresh.db");
    assert_refused(&sb.pb(run_args(args, &fresh)), needles);
    assert!(!fresh.exists(), "a refused run created {}", fresh.display());

    let existing = sb.results();
    sb.run_json(&words(
        "--engine null --records 5 --ops 5 --delay zero --no-overhead",
    ));
    assert_eq!(stored_runs(&existing), 1);
    assert_refused(&sb.pb(run_args(args, &existing)), needles);
    assert_eq!(stored_runs(&existing), 1, "a refused run was stored");
}

/// Generated operations, small and fast, for cases where the workload is not the point.
const SMALL: [&str; 6] = ["--records", "10", "--ops", "10", "--delay", "zero"];

fn small_with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all = SMALL.to_vec();
    all.extend_from_slice(extra);
    all
}

#[test]
fn unknown_workload() {
    let sb = Sandbox::new();
    assert_bad_run(
        &sb,
        &["--workload", "no-such-workload", "--delay", "zero"],
        &["--workload", "no-such-workload"],
    );
}

#[test]
fn unknown_engine() {
    let sb = Sandbox::new();
    assert_bad_run(
        &sb,
        &small_with(&["--engine", "nosuchengine"]),
        &["--engine", "nosuchengine"],
    );
    // A near miss is named, as clap names a near-miss subcommand.
    assert_bad_run(
        &Sandbox::new(),
        &small_with(&["--engine", "sqlit"]),
        &["unknown engine \"sqlit\"; did you mean 'sqlite'?"],
    );
}

#[test]
fn a_mistyped_subcommand_is_named_with_the_one_meant() {
    let sb = Sandbox::new();
    // A transposition, which clap's own similarity does not catch, at the top and one down.
    for (args, meant) in [
        (&["rnu"][..], "did you mean 'run'?"),
        (&["trace", "gne"][..], "did you mean 'gen'?"),
        (&["reprot"][..], "'report'"),
    ] {
        assert_refused(&sb.pb(args), &["unrecognized subcommand", meant]);
    }
}

#[test]
fn unknown_engine_option() {
    let sb = Sandbox::new();
    assert_bad_run(&sb, &small_with(&["-o", "nope=1"]), &["-o nope", "sqlite"]);
}

#[test]
fn bad_engine_option_value() {
    let sb = Sandbox::new();
    assert_bad_run(
        &sb,
        &small_with(&["-o", "synchronous=sometimes"]),
        &["synchronous=sometimes"],
    );
    // A JVM engine's option is checked before any JVM starts (Nitrite's commit mode).
    assert_bad_run(
        &Sandbox::new(),
        &small_with(&["--engine", "nitrite", "-o", "commit=never"]),
        &["commit=never"],
    );
}

#[test]
fn bad_durability_config_for_a_jvm_engine() {
    let sb = Sandbox::new();
    let results = sb.results();
    for (args, needles) in [
        (
            "--engine bdb-je --config durability=fsync",
            &["--config durability", "fsync"][..],
        ),
        (
            "--engine nitrite --config sync=on",
            &["--config", "sync"][..],
        ),
    ] {
        let mut all = vec!["durability", "--results", arg(&results)];
        all.extend(words(args));
        assert_refused(&sb.pb(all), needles);
        assert!(
            !results.exists(),
            "a refused durability run created the store"
        );
    }
}

#[test]
fn malformed_toml_spec() {
    let sb = Sandbox::new();
    sb.write("broken.toml", "name = \"x\"\n[ycsb\nrecordcount = 10\n");
    assert_bad_run(
        &sb,
        &["--workload", "broken.toml", "--delay", "zero"],
        &["broken.toml:2"],
    );
}

#[test]
fn toml_spec_with_unknown_field() {
    let sb = Sandbox::new();
    sb.write(
        "typo.toml",
        "name = \"x\"\nnmae = \"y\"\n[ycsb]\nrecordcount = 10\noperationcount = 10\n",
    );
    assert_bad_run(
        &sb,
        &["--workload", "typo.toml", "--delay", "zero"],
        &["typo.toml", "nmae"],
    );
}

#[test]
fn malformed_properties_value() {
    let sb = Sandbox::new();
    sb.write(
        "workloadx",
        "recordcount=10\noperationcount=10\nreadproportion=abc\nupdateproportion=0\n",
    );
    assert_bad_run(
        &sb,
        &["--workload", "workloadx", "--delay", "zero"],
        &["workloadx", "readproportion"],
    );
}

#[test]
fn malformed_pocketdata_json() {
    let sb = Sandbox::new();
    sb.write("broken.json", r#"{"init": [}"#);
    assert_bad_run(
        &sb,
        &["--workload", "broken.json"],
        &["broken.json", "malformed JSON"],
    );
}

#[test]
fn pocketdata_json_with_unknown_op() {
    let sb = Sandbox::new();
    sb.write(
        "unknown-op.json",
        r#"{"init": [], "benchmark": [{"op": "query", "sql": "SELECT 1"}, {"op": "sleep"}]}"#,
    );
    assert_bad_run(
        &sb,
        &["--workload", "unknown-op.json"],
        &["unknown-op.json", "benchmark[1]", "sleep"],
    );
}

#[test]
fn pocketdata_json_with_negative_break() {
    let sb = Sandbox::new();
    sb.write(
        "negative.json",
        r#"{"init": [], "benchmark": [{"op": "query", "sql": "SELECT 1"},
                                      {"op": "break", "delta": -5}]}"#,
    );
    assert_bad_run(
        &sb,
        &["--workload", "negative.json"],
        &["negative.json", "benchmark[1]", "negative"],
    );
}

#[test]
fn a_trace_given_as_workload_names_trace() {
    let sb = Sandbox::new();
    let trace = sb.trace_gen("app.pbt", &words("--records 5 --ops 5 --delay zero"));
    assert_bad_run(
        &sb,
        &["--workload", arg(&trace)],
        &["--workload", "app.pbt", "is a trace", "--trace"],
    );
}

/// A valid trace's bytes, big enough to span several blocks.
fn trace_bytes(sb: &Sandbox) -> Vec<u8> {
    let path = sb.trace_gen(
        "good.pbt",
        &words("--workload ycsb-a --records 100 --ops 2000 --delay zero"),
    );
    std::fs::read(path).expect("reading the trace")
}

/// Both `run --trace FILE` and `trace show FILE` refuse a damaged trace, naming it.
fn assert_bad_trace(sb: &Sandbox, name: &str, bytes: &[u8]) {
    sb.write(name, bytes);
    assert_bad_run(sb, &["--trace", name, "--engine", "null"], &[name]);
    assert_refused(&sb.pb(["trace", "show", name]), &[name]);
}

#[test]
fn truncated_trace() {
    let sb = Sandbox::new();
    let bytes = trace_bytes(&sb);
    assert_bad_trace(&sb, "half.pbt", &bytes[..bytes.len() / 2]);
}

#[test]
fn corrupt_trace() {
    let sb = Sandbox::new();
    let mut bytes = trace_bytes(&sb);
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    assert_bad_trace(&sb, "flipped.pbt", &bytes);
}

#[test]
fn file_that_is_not_a_trace() {
    let sb = Sandbox::new();
    assert_bad_trace(
        &sb,
        "notes.pbt",
        "this is not a trace\n".repeat(20).as_bytes(),
    );
}

#[test]
fn negative_delay() {
    let sb = Sandbox::new();
    assert_bad_run(&sb, &["--delay", "fixed:-1ms"], &["--delay", "-1ms"]);
}

#[test]
fn unparsable_delay() {
    let sb = Sandbox::new();
    assert_bad_run(&sb, &["--delay", "fixed:abc"], &["--delay", "abc"]);
}

#[test]
fn unknown_delay_model() {
    let sb = Sandbox::new();
    assert_bad_run(
        &sb,
        &["--delay", "sometimes:1ms"],
        &["--delay", "sometimes"],
    );
}

#[test]
fn unknown_pacing() {
    let sb = Sandbox::new();
    assert_bad_run(
        &sb,
        &small_with(&["--pacing", "sideways"]),
        &["--pacing", "sideways"],
    );
}

#[test]
fn miss_ratio_out_of_range() {
    let sb = Sandbox::new();
    assert_bad_run(
        &sb,
        &small_with(&["--workload", "pocketdata-a", "--miss-ratio", "2"]),
        &["--miss-ratio"],
    );
}

#[test]
fn raw_into_a_missing_directory() {
    let sb = Sandbox::new();
    assert_bad_run(
        &sb,
        &small_with(&["--engine", "null", "--raw", "no-such-dir/ops.csv"]),
        &["--raw", "no-such-dir"],
    );
    assert!(!sb.path("no-such-dir").exists());
}

#[test]
fn raw_into_a_folder_that_takes_no_file_is_refused_before_the_run() {
    if !common::mounts::is_root() {
        eprintln!("skipped: a read-only mount needs root");
        return;
    }
    let sb = Sandbox::new();
    let media = common::mounts::Tmpfs::mount(sb.path("media"), "1m");
    media.read_only();
    let raw = media.0.join("ops.csv");
    assert_bad_run(
        &sb,
        &small_with(&["--engine", "null", "--raw", arg(&raw)]),
        &["--raw", "is not writable"],
    );
}

#[test]
fn a_run_folder_with_files_of_someone_else_is_refused_and_left_alone() {
    let sb = Sandbox::new();
    std::fs::create_dir(sb.path("mine")).unwrap();
    std::fs::write(sb.path("mine/notes.txt"), b"keep me").unwrap();
    assert_bad_run(
        &sb,
        &small_with(&["--dir", arg(&sb.path("mine"))]),
        &["--dir", "did not put there"],
    );
    let left: Vec<_> = std::fs::read_dir(sb.path("mine"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(left.len(), 1);
    assert_eq!(
        std::fs::read(sb.path("mine/notes.txt")).unwrap(),
        b"keep me"
    );
}

#[test]
fn records_override_on_a_pocketdata_json_file() {
    let sb = Sandbox::new();
    let json = fixture("pocketdata/workload_a_0ms.json");
    assert_bad_run(
        &sb,
        &["--workload", arg(&json), "--records", "10"],
        &["--records"],
    );
}

#[test]
fn unwritable_results_path() {
    let sb = Sandbox::new();
    let results = sb.path("no-such-dir/x.db");
    let mut args = small_with(&["--engine", "null"]);
    args.insert(0, "run");
    args.extend(["--results", arg(&results)]);
    assert_refused(&sb.pb(&args), &["--results", "no-such-dir/x.db"]);
    assert!(!sb.path("no-such-dir").exists());
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let sb = Sandbox::new();
    let results = sb.results();
    let out = sb.pb(run_args(&["--no-such-flag"], &results));
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(out.stderr.contains("--no-such-flag"), "{out:?}");
    assert!(!results.exists());
}

#[test]
fn trace_gen_refuses_bad_input_without_writing_a_file() {
    let sb = Sandbox::new();
    let cases: [(&[&str], &str); 3] = [
        (&["--workload", "no-such-workload"], "no-such-workload"),
        (&["--delay", "fixed:-1ms"], "--delay"),
        (
            &["--workload", "pocketdata-a", "--miss-ratio", "2"],
            "--miss-ratio",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec!["trace", "gen", "-o", "out.pbt"];
        all.extend_from_slice(args);
        assert_refused(&sb.pb(all), &[needle]);
        assert!(!sb.path("out.pbt").exists(), "{args:?} left a trace behind");
    }
}

#[test]
fn trace_import_and_capture_refuse_bad_input_without_writing_a_file() {
    let sb = Sandbox::new();
    let log = sb.write(
        "app.jsonl",
        r#"{"statement":{"t_ns":1,"db":"/data/a.db","sql":"SELECT 1"}}"#,
    );
    sb.write("notes.txt", "no statements here\n");
    let cases: [(&[&str], &str); 7] = [
        (
            &["notes.txt"],
            "notes.txt: nothing importable found (tried as jsonl",
        ),
        (
            &["app.jsonl", "--format", "csv"],
            "invalid value 'csv' for '--format <FORMAT>'",
        ),
        (&["app.jsonl", "--db", "/data/b.db"], "--db \"/data/b.db\""),
        (&["app.jsonl", "--window", "5s"], "--window"),
        (
            &["app.jsonl", "--window", "5s..1s"],
            "TO must be after FROM",
        ),
        (&["app.jsonl", "--speed", "0"], "--speed"),
        (
            &["app.jsonl", "--schema", "missing.sql"],
            "--schema missing.sql",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec!["trace", "import", "-o", "out.pbt"];
        all.extend_from_slice(args);
        assert_refused(&sb.pb(all), &[needle]);
        assert!(!sb.path("out.pbt").exists(), "{args:?} left a trace behind");
    }
    assert!(log.exists());
    let out = sb.pb(["capture", "-o", "cap.jsonl", "--", "/no/such/program"]);
    assert_refused(&out, &["capture: cannot run \"/no/such/program\""]);
    assert!(!sb.path("cap.jsonl").exists());
}

#[test]
fn advise_refuses_bad_input_before_any_work() {
    let sb = Sandbox::new();
    let sql = sb.trace_gen(
        "app.pbt",
        &words("--workload pocketdata-a --records 10 --ops 10 --delay zero"),
    );
    let kv = sb.trace_gen("kv.pbt", &words("--records 5 --ops 5 --delay zero"));
    sb.write("notes.txt", "not a trace\n");
    let (sql, kv) = (arg(&sql), arg(&kv));
    let cases: [(&[&str], &[&str]); 11] = [
        (&["missing.pbt"], &["missing.pbt", "no such trace file"]),
        (&["notes.txt"], &["notes.txt"]),
        (&[kv], &["kv.pbt", "a key-value trace"]),
        (
            &[sql, "--budget", "10"],
            &["--budget", "expected e.g. 90s, 10m or 1h"],
        ),
        (&[sql, "--budget", "0"], &["--budget", "more than 0"]),
        (
            &[sql, "--budget", "400h"],
            &["--budget", "400h", "at most a week"],
        ),
        (
            &[sql, "--repeats", "1"],
            &["--repeats 1", "expected 2 to 100"],
        ),
        (
            &[sql, "--try", "cache_size"],
            &["--try", "cache_size", "KEY=VALUE"],
        ),
        (
            &[sql, "--try", "journal_mode=bogus"],
            &["--try", "journal_mode"],
        ),
        (&[sql, "--set", "nosuch=1"], &["--set", "nosuch"]),
        (
            &[sql, "-o", "no/such/dir/advice.sql"],
            &["-o", "does not exist"],
        ),
    ];
    let results = sb.path("advise.db");
    for (args, needles) in cases {
        let mut all = vec!["advise"];
        all.extend_from_slice(args);
        all.extend(["--results", arg(&results)]);
        assert_refused(&sb.pb(all), needles);
        assert!(!results.exists(), "{args:?} created the results store");
    }
}

#[test]
fn bad_shared_trace_flags() {
    // Publishing and fetching a shared trace: every refusal comes before any connection (the
    // server named is not listening).
    let sb = Sandbox::new();
    sb.trace_gen(
        "gen.pbt",
        &["--records", "5", "--ops", "5", "--delay", "zero"],
    );
    sb.write("broken.pbt", b"PBTRACE\nnot a trace");
    let long = "t".repeat(201);
    let server = "http://127.0.0.1:9";
    let submit = |extra: &[&str]| {
        let mut all = vec!["submit", "--server", server, "--token", "t"];
        all.extend_from_slice(extra);
        all.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (submit(&["--trace", "gen.pbt", "--title", " "]), "--title: a published trace needs a title"),
        (submit(&["--trace", "gen.pbt", "--title", &long]), "--title: 201 bytes, more than 200"),
        (submit(&["--trace", "gen.pbt", "--title", "a\u{7}b"]), "--title \"a\\u{7}b\""),
        (submit(&["--trace", "missing.pbt", "--title", "x"]), "missing.pbt: cannot open trace"),
        (submit(&["--trace", "broken.pbt", "--title", "x"]), "broken.pbt: trace format version 28526 is not supported"),
        (
            ["run", "--trace", "http://127.0.0.1:9/traces/abc", "--results", "r.db"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            "--trace \"http://127.0.0.1:9/traces/abc\": expected http[s]://HOST[:PORT]/traces/SHA256",
        ),
    ];
    for (args, needle) in cases {
        assert_refused(&sb.pb(&args), &[needle]);
    }
    assert!(!sb.path("r.db").exists());
}
