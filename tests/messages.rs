//! Messages that blame the right thing, as a user pasting the docs' examples meets them: a
//! missing file given to `results import` is named as that file (not `--results`), a missing
//! `storage --dir` is said not to exist, `device run NAME` with no devices file says there is
//! no ssh target NAME either and where targets are configured, and `serve --db postgres://…`
//! to a host that does not resolve gives the cause. Each is one line and exit status 2.
//!
//! And the wordings the docs' examples showed terse, each as it reads now: a flash replay names
//! its trace's engine and options in words (not `sqlite []`), the idle baseline's length is in
//! the run's units (not `12.056488767s`), `results list` names the engines of a models study
//! and of a durability run (not an empty column), and the server's ranking page counts "1
//! model" (not "1 models"). The comparison's small factors as percentages ("B is 0.3% ± …
//! lower", not "1 ± 0.003×") are tested where they are worded, in src/report/compare.rs.

mod common;

use common::fake_device::Devices;
use common::{arg, Sandbox};

#[test]
fn each_message_names_what_is_wrong() {
    let sb = Sandbox::new();
    sb.expect_refused(&[
        (
            "results import nofile.db",
            "results import: nofile.db: no such file",
        ),
        ("storage --dir nothere", "--dir nothere: no such directory"),
    ]);
    std::fs::write(sb.path("afile"), "").unwrap();
    let out = sb.pb(["storage", "--dir", "afile"]).expect_code(2);
    assert!(
        out.stderr.contains("--dir afile: not a directory"),
        "{}",
        out.stderr
    );
}

#[cfg(feature = "server")]
#[test]
fn an_unresolvable_database_host_is_named_with_the_cause() {
    let sb = Sandbox::new();
    // `.invalid` never resolves (RFC 2606). Port 0: the default port may be taken on the
    // machine running the tests, and the address is bound before the store is opened.
    let out = sb
        .pb([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--db",
            "postgres://pb@db.invalid:5432/pocketbench",
        ])
        .expect_code(2);
    assert_eq!(out.stderr_lines().len(), 1, "{}", out.stderr);
    let line = out.stderr_lines()[0];
    assert!(
        line.contains("cannot connect: error connecting to server: "),
        "{line}"
    );
    // The cause follows the driver's own words.
    assert!(
        line.len() > line.find("error connecting to server: ").unwrap() + 30,
        "{line}"
    );
}

#[test]
fn a_target_that_is_neither_configured_nor_attached_says_where_targets_come_from() {
    let d = Devices::new();
    let out = d
        .pb(&["device", "run", "pi", "--", "storage"])
        .expect_code(2);
    assert_eq!(out.stderr_lines().len(), 1, "{}", out.stderr);
    let config = d.path("home/.config/pocketbench/devices.toml");
    assert!(
        out.stderr.contains(&format!(
            "device \"pi\": neither an ssh target of {} (there is none there: docs/device.md says how to configure one) nor an attached adb device: adb device \"pi\" is not attached",
            config.display()
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn a_flash_replay_names_the_engine_and_its_options_in_words() {
    let sb = Sandbox::new();
    let db = sb.results();
    let trace = sb.path("run.pbft");
    for (options, label) in [
        (&[][..], "sqlite with its default options"),
        (
            &["-o", "journal_mode=wal"][..],
            "sqlite -o journal_mode=wal",
        ),
    ] {
        let mut args = vec![
            "run",
            "--ops",
            "20",
            "--records",
            "20",
            "--delay",
            "zero",
            "--quiet",
        ];
        args.extend(options);
        args.extend(["--flash-trace", arg(&trace), "--results", arg(&db)]);
        sb.pb(&args).expect_ok();
        let out = sb.pb(["flash", "replay", arg(&trace)]).expect_ok();
        assert_eq!(
            out.stdout.lines().next(),
            Some(format!("trace      {}: {label}", trace.display()).as_str()),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn the_idle_baseline_is_announced_in_the_run_s_units() {
    let sb = Sandbox::new();
    // A meter run has no internal source but still takes the idle-baseline window.
    let out = sb
        .pb([
            "run",
            "--ops",
            "20",
            "--records",
            "20",
            "--delay",
            "zero",
            "--energy",
            "meter",
            "--idle-baseline",
            "150ms",
            "--results",
            arg(&sb.results()),
        ])
        .expect_ok();
    assert!(
        out.stderr
            .contains("· idle baseline for 150.00 ms (energy without the database work)\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn results_list_names_the_engines_of_every_kind() {
    let sb = Sandbox::new();
    let db = sb.results();
    let db = arg(&db);
    sb.pb([
        "models",
        "--tuples",
        "10",
        "--engines",
        "sqlite,lmdb",
        "--tests",
        "1",
        "--budget",
        "1s",
        "--results",
        db,
    ])
    .expect_ok();
    sb.pb(["durability", "--crashes", "2", "--results", db])
        .expect_ok();
    let list = sb
        .pb(["results", "list", "--results", db, "--json"])
        .expect_ok();
    let rows: Vec<(String, String)> = list
        .json()
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (s("kind"), s("engine"))
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("models".to_string(), "sqlite,lmdb".to_string()),
            ("durability".to_string(), "sqlite".to_string()),
        ]
    );
}

#[cfg(feature = "server")]
#[test]
fn a_ranking_counts_one_model_in_the_singular() {
    use common::server::{backends, post, storage_result, submission, Server};
    let b = backends().remove(0);
    let s = Server::start(&b, &[]);
    let c = s.client(Some(&s.token("lab")));
    let page = |s: &Server| {
        let r = s.client(None).get("/rankings/seq-read").unwrap();
        assert_eq!(r.status, 200);
        String::from_utf8(r.body).unwrap()
    };
    for (model, n) in [("Pixel 7", 1), ("Pixel 8", 2)] {
        let r = post(
            &c,
            "/api/v1/results",
            &submission(model, "KLUDG4U", storage_result(800.0 + n as f64, n)),
        );
        assert_eq!(r.status, 201, "{}", r.message());
        let want = if n == 1 {
            "1 model with results in this category."
        } else {
            "2 models with results in this category."
        };
        let html = page(&s);
        assert!(html.contains(want), "{html}");
    }
}
