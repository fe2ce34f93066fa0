//! A durability study through `pocketbench matrix` (plans with `suite = "durability"`): a
//! 2 × 2 plan (journal mode × torn writes) stores four durability runs, each with its study
//! cell, and prints each run's speed-and-safety table; SQLite's documented finding shows in
//! every cell (synchronous=off loses acknowledged commits, full loses none); `--resume` then
//! finds nothing left, and `--resume --dry-run` lists nothing. The built-in `durability` plan
//! lists one cell per engine of this build. Plans that mix the suites' flags, set a flag a
//! study may not set, or ask for a decision grid are refused with one line and exit 2, the
//! store untouched.

mod common;

use common::study::count;
use common::{arg, pb, pb_with};

const PLAN: &str = r#"
name = "sqlite-safety"
suite = "durability"
repeats = 1
[durability]
crashes = 12
txns = 6
no_speed = true
[axes]
config = [["journal_mode=delete"], ["journal_mode=wal"]]
torn = [false, true]
"#;

#[test]
fn a_durability_plan_stores_one_run_per_cell_and_resumes_to_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("study.db");
    let plan = dir.path().join("plan.toml");
    std::fs::write(&plan, PLAN).unwrap();
    let out = pb(["matrix", arg(&plan), "--results", arg(&store), "-q"]).expect_ok();
    let stdout = &out.stdout;
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM runs WHERE kind = 'durability'"
        ),
        4
    );
    assert_eq!(count(&store, "SELECT count(*) FROM matrix_cells"), 4);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM matrix_cells m JOIN runs r ON r.id = m.run_id WHERE r.kind = 'durability'"
        ),
        4
    );
    for cell in [
        "== config=journal_mode=delete torn=false",
        "== config=journal_mode=delete torn=true",
        "== config=journal_mode=wal torn=false",
        "== config=journal_mode=wal torn=true",
    ] {
        assert!(stdout.contains(cell), "{cell}: {stdout}");
    }
    assert!(stdout.contains("4 of 4 in all"), "{stdout}");

    // Every cell: synchronous=off lost commits at some crash point, full at none.
    let v = pb([
        "matrix",
        arg(&plan),
        "--results",
        arg(&store),
        "--resume",
        "--json",
    ])
    .expect_ok()
    .json();
    assert_eq!(v["outcome"]["stored"], 0);
    assert_eq!(v["outcome"]["already_done"], 4);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for r in runs {
        let configs = r["run"]["configurations"].as_array().unwrap();
        assert_eq!(configs.len(), 3, "{r}");
        let losing = |sync: &str| {
            configs.iter().find(|c| c["config"][1][1] == sync).unwrap()["crashes_losing_commits"]
                .as_u64()
                .unwrap()
        };
        assert!(losing("off") > 0, "{r}");
        assert_eq!(losing("full"), 0, "{r}");
        assert_eq!(
            r["run"]["torn"],
            r["cell"].as_str().unwrap().ends_with("true")
        );
    }
    let dry = pb([
        "matrix",
        arg(&plan),
        "--results",
        arg(&store),
        "--resume",
        "--dry-run",
    ])
    .expect_ok();
    assert!(
        dry.stdout.contains("holds 4 of 4 runs; 0 would run"),
        "{}",
        dry.stdout
    );
}

#[test]
fn the_built_in_durability_plan_has_a_cell_per_engine() {
    let v = pb(["matrix", "--plan", "durability", "--dry-run", "--json"]).json();
    let cells = v["cells"].as_array().unwrap();
    let names: Vec<&str> = cells.iter().map(|c| c["name"].as_str().unwrap()).collect();
    for engine in ["sqlite", "redb", "lmdb"] {
        assert!(
            names.contains(&format!("engine={engine}").as_str()),
            "{names:?}"
        );
    }
    assert_eq!(cells[0]["args"][0], "--crashes");
    let text = pb(["matrix", "--plan", "durability", "--dry-run"]).expect_ok();
    assert!(
        text.stdout
            .contains("engine=sqlite  →  durability --crashes 200 --engine sqlite"),
        "{}",
        text.stdout
    );
}

#[test]
fn bad_durability_plans_exit_2_with_one_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("never.db");
    let cases = [
        ("suite = \"fio\"\n[axes]\ntorn = [true]", "bad.toml: suite: expected one of: run, durability"),
        (
            "suite = \"durability\"\n[run]\nops = 5\n[axes]\ntorn = [true]",
            "bad.toml: run: this plan's cells are `durability` runs (suite)",
        ),
        (
            "suite = \"durability\"\n[axes]\nrecords = [5]",
            "unknown axis 'records': not a `pocketbench durability` flag",
        ),
        (
            "suite = \"durability\"\n[axes]\nreplay_crash = [\"1:2\"]",
            "--replay-crash cannot be set in a plan",
        ),
        (
            "suite = \"durability\"\n[axes]\ncrashes = [0]",
            "cell crashes=0: --crashes 0: must be 1 to 100000",
        ),
        (
            "suite = \"durability\"\n[axes]\nconfig = [[\"journal_mode=fast\"]]",
            "--config journal_mode: \"fast\" is not one of",
        ),
        (
            "suite = \"durability\"\n[axes]\ntorn = [true]\nengine = [\"sqlite\"]\n[grid]\ncolumns = \"engine\"",
            "bad.toml: grid: the decision grid compares run measurements",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(dir.path().join("bad.toml"), text).unwrap();
        let out = pb_with(["matrix", "bad.toml", "--results", arg(&store)], |c| {
            c.current_dir(dir.path());
        });
        let stderr = &out.stderr;
        assert_eq!(out.code, Some(2), "{text}: {stderr}");
        assert!(stderr.contains(expected), "{text}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(!store.exists(), "{text} created the results store");
    }
}
