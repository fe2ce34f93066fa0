//! Quick mode (`POCKETBENCH_QUICK=1`, what the examples test runs every example under): a
//! measuring command shortens itself to the documented caps (src/quick.rs), says each cap on
//! stderr once, and stores what it actually ran; without the variable the same command runs
//! at full size.

mod common;

use common::{arg, pb_with, Outcome, Sandbox};

fn quick(sb: &Sandbox, args: &[&str]) -> Outcome {
    pb_with(args, |c| {
        c.current_dir(sb.path("")).env("POCKETBENCH_QUICK", "1");
    })
}

#[test]
fn a_run_is_cut_to_100_records_and_100_operations_and_says_so() {
    let sb = Sandbox::new();
    let store = sb.results();
    let args = [
        "run",
        "--records",
        "1000",
        "--ops",
        "5000",
        "--delay",
        "zero",
        "--no-overhead",
        "--json",
        "--results",
        arg(&store),
    ];
    let out = quick(&sb, &args).expect_ok();
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(summary["ops"], 100);
    assert_eq!(summary["workload"]["load_ops"], 100);
    for line in [
        "quick mode (POCKETBENCH_QUICK): --records 1000 → 100",
        "quick mode (POCKETBENCH_QUICK): --ops 5000 → 100",
    ] {
        assert_eq!(out.stderr.matches(line).count(), 1, "{}", out.stderr);
    }
    // Small enough already: nothing to say. Without the variable: the size asked for.
    let small = quick(
        &sb,
        &[
            "run",
            "--records",
            "50",
            "--ops",
            "60",
            "--delay",
            "zero",
            "--no-overhead",
            "--json",
            "--results",
            arg(&store),
        ],
    )
    .expect_ok();
    assert!(!small.stderr.contains("quick mode"), "{}", small.stderr);
    let full = sb
        .pb([
            "run",
            "--records",
            "150",
            "--ops",
            "300",
            "--delay",
            "zero",
            "--no-overhead",
            "--json",
            "--results",
            arg(&store),
        ])
        .expect_ok();
    let full: serde_json::Value = serde_json::from_str(&full.stdout).unwrap();
    assert_eq!(full["ops"], 300);
}

#[test]
fn a_workload_file_that_takes_no_sizes_has_its_run_phase_cut_and_its_breaks_capped() {
    // A PocketData recording (its own operations and recorded breaks, minutes of them).
    let sb = Sandbox::new();
    let recording = common::fixture("pocketdata/workload_a_0ms.json");
    let out = quick(
        &sb,
        &[
            "trace",
            "gen",
            "--workload",
            arg(&recording),
            "-o",
            arg(&sb.path("t.pbt")),
        ],
    )
    .expect_ok();
    assert!(
        out.stderr
            .contains("quick mode (POCKETBENCH_QUICK): operations "),
        "{}",
        out.stderr
    );
    let shown = sb
        .pb(["trace", "show", arg(&sb.path("t.pbt")), "--json"])
        .expect_ok();
    let shown: serde_json::Value = serde_json::from_str(&shown.stdout).unwrap();
    // The recording's 501 load statements stay (the schema and data the queries need).
    assert_eq!(shown["header"]["workload"]["run_ops"], 100);
    assert_eq!(shown["header"]["workload"]["load_ops"], 501);
    assert!(
        out.stderr.contains("operations 1800 → 100"),
        "{}",
        out.stderr
    );
}
