//! `report --trace app.pbt` draws an imported trace beside the runs: the arrival timeline
//! (statements per slice of the recorded time, per connection) and the top statements by
//! count and by the log's time, with the hand-worked counts of a four-statement log; an export
//! format with --trace is refused.

mod common;

use common::{arg, Sandbox};

// Offsets 0, 0.5 ms, 2 ms on connection a (0) and 59 ms on b (1): 60 slices of
// 59 ms / 60 + 1 ns = 983 334 ns, so a's statements fall in slices 0, 0 and 2, b's in 59.
const LOG: &str = r#"{"statement":{"t_ns":1000000,"dur_ns":100,"conn":"a","db":"a.db","sql":"CREATE TABLE t(a)"}}
{"statement":{"t_ns":1500000,"dur_ns":300,"conn":"a","db":"a.db","sql":"INSERT INTO t VALUES(1)"}}
{"statement":{"t_ns":3000000,"dur_ns":500,"conn":"a","db":"a.db","sql":"INSERT INTO t VALUES(2)"}}
{"statement":{"t_ns":60000000,"dur_ns":2000000,"conn":"b","db":"a.db","sql":"SELECT a FROM t"}}
"#;

#[test]
fn the_report_draws_an_imported_traces_arrivals_and_top_statements() {
    let sb = Sandbox::new();
    let trace = sb.import_log(LOG);
    sb.replay_on_sqlite(&trace, "replay");
    let (results, figs) = (sb.results(), sb.path("figs"));
    sb.pb([
        "report",
        "--results",
        arg(&results),
        "--format",
        "svg",
        "-o",
        arg(&figs),
        "--trace",
        arg(&trace),
    ])
    .expect_ok();

    let arrivals = std::fs::read_to_string(figs.join("trace-arrivals.svg")).unwrap();
    for want in [
        "<title>conn 0: 2 statement(s) from 0 s</title>",
        "<title>conn 0: 1 statement(s) from 0.00197 s</title>",
        "<title>conn 1: 1 statement(s) from 0.058 s</title>",
        "conn 0 (3)",
        "conn 1 (1)",
    ] {
        assert!(arrivals.contains(want), "{want} not in\n{arrivals}");
    }
    // Slices 0 and 2 of connection 0 and slice 59 of connection 1 hold statements.
    assert_eq!(arrivals.matches("<circle").count(), 3);

    let top = std::fs::read_to_string(figs.join("trace-top.svg")).unwrap();
    for want in [
        "<title>INSERT INTO T VALUES(?): 2 statement(s), 0.0008 ms</title>",
        "<title>SELECT A FROM T: 1 statement(s), 2 ms</title>",
        "<title>CREATE TABLE T(A): 1 statement(s), 0.0001 ms</title>",
    ] {
        assert!(top.contains(want), "{want} not in\n{top}");
    }
    // By count, the INSERT shape comes first; by time, the SELECT.
    let by_time = &top[top.find("by time").unwrap()..];
    assert!(top.find("INSERT INTO T VALUES(?)").unwrap() < top.find("by time").unwrap());
    assert!(by_time.find("SELECT A FROM T").unwrap() < by_time.find("INSERT INTO T").unwrap());

    let refused = sb
        .pb([
            "report",
            "--results",
            arg(&results),
            "--format",
            "json",
            "-o",
            arg(&sb.path("r.json")),
            "--trace",
            arg(&trace),
        ])
        .expect_code(2);
    assert!(
        refused.stderr.contains("--trace: draws figures"),
        "{}",
        refused.stderr
    );
}
