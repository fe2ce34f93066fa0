//! The results store as a file others may touch: deleted or replaced while a run measures (the
//! `POCKETBENCH_TEST_BEFORE_STORE` hook does it just before the run is stored), the run goes to
//! the file now at the path or to a spool file, saying which, never into a file that is gone;
//! and reading (`results list/show`, `report`, `compare`, `diagnose --from-results` and every
//! suite's `--show`) never needs write access; an empty file reads as an empty store.

mod common;

use common::mounts::{is_root, Tmpfs};
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
    let spool = &common::spool_named(&out);
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

/// The reading commands on `store`, run with `configure`: each must succeed.
fn read_everything(sb: &Sandbox, store: &Path, configure: impl Fn(&mut std::process::Command)) {
    let out = sb.path("out/out.csv");
    let s = arg(store);
    for args in [
        vec!["results", "list", "--results", s],
        vec!["results", "show", "1", "--results", s],
        vec!["report", "--format", "csv", "-o", arg(&out), "--results", s],
        vec!["compare", "run=1", "run=2", "--results", s],
        vec!["diagnose", "--from-results", "1,2", "--results", s],
    ] {
        let o = pb_with(&args, |c| {
            c.current_dir(sb.path(""));
            configure(c);
        })
        .expect_ok();
        assert!(o.stderr.contains("may not show"), "{args:?}: {}", o.stderr);
    }
    // The stored-run views of the other suites read the store the same way: the store holds
    // no run of theirs, so each says exactly that (and nothing about writing).
    for suite in ["flashbench", "storage", "durability", "models"] {
        let o = pb_with([suite, "--show", "--results", s], |c| {
            c.current_dir(sb.path(""));
            configure(c);
        })
        .expect_code(2);
        assert!(
            o.stderr.contains("may not show") && o.stderr.contains(&format!("no {suite} run in")),
            "{suite} --show: {}",
            o.stderr
        );
    }
}

#[test]
fn a_store_on_read_only_media_or_another_users_is_read_saying_it_may_be_stale() {
    if !is_root() {
        eprintln!("skipped: mounting a read-only file system and switching user need root");
        return;
    }
    let sb = Sandbox::new();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(sb.path(""), std::fs::Permissions::from_mode(0o755)).unwrap();

    // Another user's store, in a directory that user cannot write.
    let store = sb.results();
    for _ in 0..2 {
        sb.pb([&RUN[..], &["--results", arg(&store)]].concat())
            .expect_ok();
    }
    std::fs::create_dir(sb.path("out")).unwrap();
    std::fs::set_permissions(sb.path("out"), std::fs::Permissions::from_mode(0o777)).unwrap();
    read_everything(&sb, &store, |c| {
        std::os::unix::process::CommandExt::uid(c, 65534);
        std::os::unix::process::CommandExt::gid(c, 65534);
    });

    // Read-only media.
    let media = Tmpfs::mount(sb.path("media"), "8m");
    let ro_store = media.0.join("s.db");
    for _ in 0..2 {
        sb.pb([&RUN[..], &["--results", arg(&ro_store)]].concat())
            .expect_ok();
    }
    media.read_only();
    read_everything(&sb, &ro_store, |_| {});
}

#[test]
fn an_empty_file_is_an_empty_store_to_every_reader_and_run_fills_it() {
    // What `sqlite3 pocketbench.db "…"` leaves behind before any run: a 0-byte file.
    let sb = Sandbox::new();
    let store = sb.path("pocketbench.db");
    std::fs::write(&store, b"").unwrap();
    let s = arg(&store);
    let list = sb.pb(["results", "list", "--results", s]).expect_ok();
    assert!(list.stdout.starts_with("no runs yet"), "{}", list.stdout);
    let json = sb
        .pb(["results", "list", "--json", "--results", s])
        .expect_ok();
    assert_eq!(json.stdout.trim(), "[]");
    let report = sb
        .pb(["report", "--format", "csv", "--results", s])
        .expect_code(2);
    assert!(
        report.stderr.contains("no runs stored"),
        "{}",
        report.stderr
    );
    // Reading changed nothing: still the empty file, which `run` then makes a store.
    assert_eq!(std::fs::metadata(&store).unwrap().len(), 0);
    sb.pb([&RUN[..], &["--results", s]].concat()).expect_ok();
    assert_eq!(stored_runs(&store), 1);
}
