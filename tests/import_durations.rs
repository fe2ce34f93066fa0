//! `trace stats TRACE --run ID` (and `compare TRACE run=ID`): an imported trace's original statement durations (as the log
//! timed them) beside a replay's, per statement shape: the counts and the original p50 and
//! mean are the hand-worked ones of the log, the replay's come from the run's samples, and a
//! run of another trace is refused naming --run.

mod common;

use common::{arg, Sandbox};

const LOG: &str = r#"{"statement":{"t_ns":1000,"dur_ns":1000,"db":"a.db","sql":"CREATE TABLE t(a)"}}
{"statement":{"t_ns":3000,"dur_ns":300,"db":"a.db","sql":"INSERT INTO t VALUES(?)","args":[1]}}
{"statement":{"t_ns":4000,"dur_ns":500,"db":"a.db","sql":"INSERT INTO t VALUES(?)","args":[2]}}
{"statement":{"t_ns":5000,"dur_ns":200,"db":"a.db","sql":"SELECT a FROM t WHERE a = 1"}}
{"statement":{"t_ns":6000,"dur_ns":400,"db":"a.db","sql":"SELECT a FROM t WHERE a = 2"}}
"#;

#[test]
fn original_durations_sit_beside_the_replay_per_statement_shape() {
    let sb = Sandbox::new();
    let trace = sb.import_log(LOG);
    sb.replay_on_sqlite(&trace, "replay");
    let results = sb.results();

    let b = sb
        .pb([
            "trace",
            "stats",
            arg(&trace),
            "--run",
            "1",
            "--results",
            arg(&results),
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(b["statements"], 5);
    assert_eq!(b["engine"], "sqlite");
    // `compare TRACE RUN` gives the same, beside the one replay B selects.
    let c = sb
        .pb([
            "compare",
            arg(&trace),
            "run=1",
            "--results",
            arg(&results),
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(c, b);
    // Beside the log's durations, B must name one replay.
    sb.replay_on_sqlite(&trace, "replay2");
    let two = sb
        .pb([
            "compare",
            arg(&trace),
            "engine=sqlite",
            "--results",
            arg(&results),
        ])
        .expect_code(2);
    assert!(
        two.stderr
            .contains("compare B 'engine=sqlite': selects 2 runs"),
        "{}",
        two.stderr
    );
    let shapes = b["shapes"].as_array().unwrap();
    let names: Vec<&str> = shapes
        .iter()
        .map(|s| s["fingerprint"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "INSERT INTO T VALUES(?)",
            "SELECT A FROM T WHERE A = ?",
            "CREATE TABLE T(A)"
        ]
    );
    // INSERT: 300 and 500 ns; SELECT: 200 and 400 ns; CREATE: 1000 ns.
    for (s, count, p50, mean) in [
        (&shapes[0], 2, 300, 400.0),
        (&shapes[1], 2, 200, 300.0),
        (&shapes[2], 1, 1000, 1000.0),
    ] {
        assert_eq!(s["count"], count);
        assert_eq!(s["original"]["count"], count);
        assert_eq!(s["original"]["p50_ns"], p50);
        assert_eq!(s["original"]["mean_ns"], mean);
        assert_eq!(s["replay"]["count"], count);
        let replay_mean = s["replay"]["mean_ns"].as_f64().unwrap();
        assert!(replay_mean > 0.0);
        let ratio = s["ratio"].as_f64().unwrap();
        assert!(
            (ratio - replay_mean / mean).abs() <= 1e-12 * ratio,
            "{ratio}"
        );
    }

    let text = sb
        .pb([
            "trace",
            "stats",
            arg(&trace),
            "--run",
            "1",
            "--results",
            arg(&results),
        ])
        .expect_ok()
        .stdout;
    assert!(text.contains("beside run 1 (sqlite)"), "{text}");

    // The same log at twice the speed is another trace.
    let fast = sb.path("fast.pbt");
    sb.pb([
        "trace",
        "import",
        arg(&sb.path("app.jsonl")),
        "-o",
        arg(&fast),
        "--speed",
        "2",
    ])
    .expect_ok();
    let refused = sb
        .pb([
            "trace",
            "stats",
            arg(&fast),
            "--run",
            "1",
            "--results",
            arg(&results),
        ])
        .expect_code(2);
    assert!(
        refused
            .stderr
            .contains("--run 1: the run replayed the trace with digest"),
        "{}",
        refused.stderr
    );
}
