//! Quick mode (`POCKETBENCH_QUICK=1`, what the examples test runs every example under): a
//! measuring command shortens itself to the documented caps (src/quick.rs), says each cap on
//! stderr once, and stores what it actually ran; without the variable the same command runs
//! at full size.

mod common;

use common::{arg, pb_with, words, Outcome, Sandbox};
use serde_json::Value;

fn quick(sb: &Sandbox, args: &[&str]) -> Outcome {
    pb_with(args, |c| {
        c.current_dir(sb.path("")).env("POCKETBENCH_QUICK", "1");
    })
}

/// `run` of `records` and `ops` with zero delay into `store`, with quick mode or not: its
/// JSON summary and what it said on stderr.
fn run(sb: &Sandbox, store: &str, records: u64, ops: u64, quick_mode: bool) -> (Value, String) {
    let args = format!("run --records {records} --ops {ops} --delay zero --no-overhead --json");
    let args = [words(&args), vec!["--results", store]].concat();
    let out = pb_with(&args, |c| {
        c.current_dir(sb.path(""));
        if quick_mode {
            c.env("POCKETBENCH_QUICK", "1");
        }
    })
    .expect_ok();
    (serde_json::from_str(&out.stdout).unwrap(), out.stderr)
}

#[test]
fn a_run_is_cut_to_100_records_and_100_operations_and_says_so() {
    let sb = Sandbox::new();
    let store = sb.results();
    let (summary, said) = run(&sb, arg(&store), 1000, 5000, true);
    assert_eq!(summary["ops"], 100);
    assert_eq!(summary["workload"]["load_ops"], 100);
    assert_eq!(
        summary["workload"]["params"]["quick"],
        "POCKETBENCH_QUICK: 1000 load and 5000 run operations asked"
    );
    for line in [
        "quick mode (POCKETBENCH_QUICK): --records 1000 → 100",
        "quick mode (POCKETBENCH_QUICK): --ops 5000 → 100",
    ] {
        assert_eq!(said.matches(line).count(), 1, "{said}");
    }
    // Small enough already: nothing to say. Without the variable: the size asked for.
    let (small, said) = run(&sb, arg(&store), 50, 60, true);
    assert_eq!(small["ops"], 60);
    assert!(!said.contains("quick mode"), "{said}");
    let (full, _) = run(&sb, arg(&store), 150, 300, false);
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
