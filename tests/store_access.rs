//! The results store as a file others may touch: deleted or replaced while a run measures (the
//! `POCKETBENCH_TEST_BEFORE_STORE` hook does it just before the run is stored), the run goes to
//! the file now at the path or to a spool file, saying which, never into a file that is gone;
//! and reading (`results list/show`, `report`, `compare`) never needs write access.

mod common;

use common::{arg, pb_with, stored_runs, Outcome, Sandbox};
use std::path::Path;

const RUN: [&str; 7] = ["run", "--records", "10", "--ops", "20", "--delay", "zero"];

/// `run --results STORE`, with `hook` run by the shell just before the run is stored.
fn run_with_hook(sb: &Sandbox, store: &Path, hook: &str) -> Outcome {
    pb_with([&RUN[..], &["--results", arg(store)]].concat(), |c| {
        c.current_dir(sb.path(""))
            .env("POCKETBENCH_TEST_BEFORE_STORE", hook);
    })
}

#[test]
fn a_store_deleted_during_the_run_is_not_reported_stored_the_run_is_spooled() {
    let sb = Sandbox::new();
    let store = sb.results();
    sb.pb([&RUN[..], &["--results", arg(&store)]].concat())
        .expect_ok();
    let out = run_with_hook(&sb, &store, &format!("rm -f '{}'", arg(&store)));
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("was deleted during the run"),
        "{}",
        out.stderr
    );
    let line = out
        .stderr_lines()
        .into_iter()
        .find(|l| l.contains("kept in"))
        .unwrap()
        .to_string();
    let spool = line
        .split("kept in ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    assert_eq!(stored_runs(Path::new(spool)), 1, "{spool}");
    assert!(!out.stdout.contains("stored"), "{}", out.stdout);
}

#[test]
fn a_store_replaced_during_the_run_gets_the_run_and_it_is_said() {
    let sb = Sandbox::new();
    let store = sb.results();
    let other = sb.path("other.db");
    for s in [&store, &other] {
        sb.pb([&RUN[..], &["--results", arg(s)]].concat())
            .expect_ok();
    }
    sb.pb([&RUN[..], &["--results", arg(&other)]].concat())
        .expect_ok();
    // The store (1 run) is replaced by another (2 runs): the run becomes the other's third.
    let hook = format!("mv '{}' '{}'", arg(&other), arg(&store));
    let out = run_with_hook(&sb, &store, &hook).expect_ok();
    assert!(
        out.stderr.contains("was replaced during the run"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("run #3"), "{}", out.stdout);
    assert_eq!(stored_runs(&store), 3);
}
