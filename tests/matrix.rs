//! `pocketbench matrix`, `compare` and `report` through the real binary: a 2 × 2 × 2 plan with
//! 3 repeats runs to completion; the same plan killed with SIGKILL half-way resumes to exactly
//! the full set; bad input exits 2 and writes nothing; reports come out in every format.

mod common;

use common::study::{count, plan_file, study_store};
use common::{arg, pb, pb_with, BIN};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// The distinct (cell, repeat) pairs stored.
const CELL_REPEATS: &str = "SELECT count(DISTINCT cell_id || ':' || repeat) FROM matrix_cells";

#[test]
fn plan_runs_to_completion_with_statistics() {
    let (dir, store) = study_store();
    assert_eq!(count(&store, "SELECT count(*) FROM runs"), 24);
    assert_eq!(count(&store, "SELECT count(*) FROM matrix_cells"), 24);
    assert_eq!(count(&store, CELL_REPEATS), 24);
    assert_eq!(
        count(&store, "SELECT count(DISTINCT cell_id) FROM matrix_cells"),
        8
    );
    let log = std::fs::read_to_string(dir.join("full.out")).unwrap();
    assert!(log.contains("configuration"), "{log}");
    assert!(log.contains("24 of 24 in all"), "{log}");
}

#[test]
fn killed_half_way_then_resumed_to_exactly_the_full_set() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan_file(dir.path());
    let store = dir.path().join("killed.db");
    let mut child = Command::new(BIN)
        .args(["matrix", arg(&plan), "--results", arg(&store)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Progress says "[11/24] …" as the eleventh run starts, after ten are stored: then kill -9
    // (a run is in flight).
    let mut progress = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("[11/24]") {
        line.clear();
        assert!(
            progress.read_line(&mut line).unwrap() > 0,
            "the study ended before its eleventh run"
        );
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = count(&store, "SELECT count(*) FROM matrix_cells");
    assert!((10..24).contains(&before), "{before}");
    // Nothing half-written: every stored run has its cell row, and vice versa.
    assert_eq!(count(&store, "SELECT count(*) FROM runs"), before);

    let resume = || pb(["matrix", arg(&plan), "--results", arg(&store), "--resume"]);
    let out = resume().expect_ok();
    assert!(
        out.stderr
            .contains(&format!("{before} stored, {} to run", 24 - before)),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("24 of 24 in all"), "{}", out.stdout);
    assert_eq!(count(&store, "SELECT count(*) FROM runs"), 24);
    assert_eq!(count(&store, "SELECT count(*) FROM studies"), 1);
    assert_eq!(count(&store, CELL_REPEATS), 24);
    // Every stored sample belongs to a stored run.
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM op_samples WHERE run_id NOT IN (SELECT id FROM runs)"
        ),
        0
    );
    // Resuming a finished study runs nothing.
    assert!(resume().stderr.contains("24 stored, 0 to run"));
    assert_eq!(count(&store, "SELECT count(*) FROM runs"), 24);
}

#[test]
fn bad_input_exits_2_with_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("never.db");
    let cases = [
        ("[axes\nworkload = 1", "bad.toml:1:"),
        (
            "[axes]\ncolour = [\"red\"]",
            "bad.toml: axes.colour[1]: unknown axis 'colour'",
        ),
        (
            "[axes]\nworkload = [\"ycsb-a\", \"no-such-workload\"]",
            "cell workload=no-such-workload",
        ),
        (
            "[axes]\nengine = [\"sqlite\", \"nope\"]",
            "unknown engine \"nope\"",
        ),
        ("[axes]\ndelay = [\"sometimes\"]", "--delay"),
        (
            "repeats = \"three\"\n[axes]\nops = [5]",
            "bad.toml: repeats:",
        ),
    ];
    for (text, expected) in cases {
        let plan = dir.path().join("bad.toml");
        std::fs::write(&plan, text).unwrap();
        let out = pb_with(["matrix", "bad.toml", "--results", arg(&store)], |c| {
            c.current_dir(dir.path());
        });
        let stderr = &out.stderr;
        assert_eq!(out.code, Some(2), "{text}: {stderr}");
        assert!(stderr.contains(expected), "{text}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(!store.exists(), "{text} created the results store");
    }
    let missing = pb(["matrix", "/no/such/plan.toml"]).expect_code(2);
    assert!(missing.stderr.contains("/no/such/plan.toml"));
}

#[test]
fn built_in_plans_collapse_the_governor_axis_honestly() {
    let out = pb(["matrix", "--plan", "pocketdata", "--dry-run"]).expect_ok();
    let stdout = &out.stdout;
    assert!(stdout.contains("governor"), "{stdout}");
    assert!(stdout.contains("× 3 repeats"), "{stdout}");
    assert!(stdout.contains("--records 500 --ops 1800"), "{stdout}");
    if stdout.contains("notice: governor axis collapsed") {
        assert!(stdout.contains("governor=observed"), "{stdout}");
        assert!(stdout.contains("8 cells × 3 repeats = 24 runs"), "{stdout}");
    }
    let v = pb(["matrix", "--plan", "mdperf", "--dry-run", "--json"]).json();
    assert_eq!(v["repeats"], 3);
    pb(["matrix", "--plan", "nope"]).expect_code(2);
}

#[test]
fn compare_reports_significance_and_size() {
    let (_, store) = study_store();
    let compare = |a: &str, b: &str, extra: &[&str]| {
        let mut args = vec!["compare", a, b, "--results", arg(&store)];
        args.extend_from_slice(extra);
        pb(args)
    };
    let v = compare(
        "engine=null,workload=ycsb-a,delay=zero",
        "engine=sqlite,workload=ycsb-a,delay=zero",
        &["--json"],
    )
    .expect_ok()
    .json();
    assert_eq!(v["a"]["runs"].as_array().unwrap().len(), 3);
    let p50 = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "p50_us")
        .unwrap();
    // SQLite's point operations take far longer than the null engine's.
    assert!(p50["comparison"]["ratio"].as_f64().unwrap() > 2.0, "{p50}");
    assert!(p50["verdict"].as_str().unwrap().contains("higher (worse)"));
    let t = compare("engine=null", "engine=sqlite", &[]).stdout;
    assert!(t.contains("B/A") && t.contains("Welch"), "{t}");
    compare("engine=null", "nonsense", &[]).expect_code(2);
}

#[test]
fn report_writes_every_format_and_refuses_bad_input() {
    let (_, store) = study_store();
    let out_dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["report", "--results", arg(&store)];
        all.extend_from_slice(args);
        pb(all)
    };
    let figs = out_dir.path().join("figs");
    run(&["--format", "svg", "-o", arg(&figs)]).expect_ok();
    let svgs: Vec<_> = std::fs::read_dir(&figs)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("svg".as_ref()))
        .collect();
    // The six figures of runs, and per-kind (every configuration ran the same kinds); beside
    // them the list of the figures pocketbench wrote there.
    assert_eq!(svgs.len(), 7);
    assert!(figs.join(".pocketbench-figures").is_file());
    assert!(figs.join("per-kind.svg").is_file());
    let cdf = std::fs::read_to_string(figs.join("latency-cdf.svg")).unwrap();
    assert!(cdf.starts_with("<svg") && cdf.contains("data-points"));
    let md = out_dir.path().join("s.md");
    run(&["--format", "md", "-o", arg(&md)]).expect_ok();
    let md = std::fs::read_to_string(md).unwrap();
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| workload=")).count(),
        8
    );
    let csv = out_dir.path().join("s.csv");
    run(&[
        "--format",
        "csv",
        "--filter",
        "engine=sqlite",
        "-o",
        arg(&csv),
    ])
    .expect_ok();
    assert_eq!(std::fs::read_to_string(csv).unwrap().lines().count(), 5);
    for (args, expected) in [
        (vec!["--filter", "colour=red"], "unknown key 'colour'"),
        (vec!["--filter", "engine"], "not key=value"),
        (vec!["--filter", "engine=rocksdb"], "no runs match"),
        (vec!["-o", "/no/such/dir/r.html"], "-o /no/such/dir/r.html"),
        (vec!["--format", "gif"], "invalid value 'gif' for '--format"),
    ] {
        let o = run(&args).expect_code(2);
        assert!(o.stderr.contains(expected), "{args:?}: {}", o.stderr);
    }
}

#[test]
fn runs_made_one_by_one_group_by_settings_and_compare_across_stores() {
    let dir = tempfile::tempdir().unwrap();
    let store = |name: &str| dir.path().join(name);
    for (db, engine) in [
        ("a.db", "null"),
        ("a.db", "null"),
        ("b.db", "sqlite"),
        ("b.db", "sqlite"),
    ] {
        let db = store(db);
        pb([
            "run",
            "--quiet",
            "--engine",
            engine,
            "--records",
            "10",
            "--ops",
            "20",
            "--delay",
            "zero",
            "--no-overhead",
            "--results",
            arg(&db),
        ])
        .expect_ok();
    }
    let (a, b) = (store("a.db"), store("b.db"));
    let v = pb(["compare", arg(&a), arg(&b), "--json"])
        .expect_ok()
        .json();
    assert_eq!(v["a"]["runs"].as_array().unwrap().len(), 2);
    assert_eq!(v["b"]["runs"].as_array().unwrap().len(), 2);
    let md = store("a.md");
    pb([
        "report",
        "--format",
        "md",
        "--results",
        arg(&a),
        "-o",
        arg(&md),
    ])
    .expect_ok();
    let text = std::fs::read_to_string(md).unwrap();
    // Two runs with the same settings are two repeats of one configuration.
    assert!(text.contains("| all runs | 2 |"), "{text}");
}

#[test]
fn a_plan_of_more_than_ten_thousand_cells_is_refused_before_expanding() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("never.db");
    // 101 × 100 = 10 100 cells; with 2^40 more the product would overflow a naive count.
    let values = |n: u32| {
        (1..=n)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let plan = dir.path().join("huge.toml");
    std::fs::write(
        &plan,
        format!(
            "[axes]\nops = [{}]\nrecords = [{}]\n",
            values(101),
            values(100)
        ),
    )
    .unwrap();
    let out = pb(["matrix", arg(&plan), "--results", arg(&store)]).expect_code(2);
    assert!(
        out.stderr
            .contains("axes: the axes make more than 10000 cells, the limit"),
        "{}",
        out.stderr
    );
    assert!(!store.exists());
}
