//! Traces: the operation mix of every built-in workload, reproducibility for a seed, replay of
//! a pre-generated trace, and the recorded delays of the original PocketData files.

mod common;

use common::{arg, fixture, text, uint, words, Sandbox};
use serde_json::Value;
use std::collections::BTreeMap;

/// Operations generated for the mix checks.
const OPS: u64 = 20_000;
/// Largest accepted difference between a kind's share and the expected one. With 20 000
/// draws one standard deviation is at most 0.35 percentage points.
const TOLERANCE: f64 = 0.015;

/// The original IA trace's 1 800 statements: 722 key-range scans and 745 value selects are
/// SELECTs, 183 updates, 150 inserts.
const INDEXED: [(&str, f64); 3] = [
    ("select", 1467.0 / 1800.0),
    ("update", 183.0 / 1800.0),
    ("insert", 150.0 / 1800.0),
];

/// Run-phase statement count and per-kind counts of `workload` with `OPS` operations.
fn mix_of(workload: &str) -> (u64, BTreeMap<String, u64>) {
    let sb = Sandbox::new();
    let ops = OPS.to_string();
    let trace = sb.trace_gen(
        "mix.pbt",
        &["--workload", workload, "--ops", &ops, "--delay", "zero"],
    );
    let show = sb.trace_show(&trace);
    let run_ops = uint(&show, "/totals/run_ops");
    let mix: BTreeMap<String, u64> = show["run_mix"]
        .as_object()
        .unwrap_or_else(|| panic!("{workload}: no run_mix in {show:#}"))
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().expect("a count")))
        .collect();
    assert_eq!(
        mix.values().sum::<u64>(),
        run_ops,
        "{workload}: run_mix {mix:?} does not add up to run_ops"
    );
    (run_ops, mix)
}

/// Every kind in `mix` is expected, and every expected share is met within `TOLERANCE`.
fn assert_shares(
    workload: &str,
    total: u64,
    mix: &BTreeMap<String, u64>,
    expected: &[(&str, f64)],
) {
    for kind in mix.keys() {
        assert!(
            expected.iter().any(|(k, _)| k == kind),
            "{workload}: unexpected kind '{kind}' in {mix:?}"
        );
    }
    for &(kind, share) in expected {
        let actual = mix.get(kind).copied().unwrap_or(0) as f64 / total as f64;
        assert!(
            (actual - share).abs() <= TOLERANCE,
            "{workload}: {kind} is {:.2}% of {total}, expected {:.2}% (mix {mix:?})",
            actual * 100.0,
            share * 100.0
        );
    }
}

macro_rules! mix_tests {
    ($($test:ident: $workload:literal => $expected:expr;)+) => {$(
        #[test]
        fn $test() {
            let (run_ops, mix) = mix_of($workload);
            assert_eq!(run_ops, OPS, "{}: one statement per operation", $workload);
            assert_shares($workload, run_ops, &mix, &$expected);
        }
    )+};
}

mix_tests! {
    mix_ycsb_a: "ycsb-a" => [("read", 0.5), ("update", 0.5)];
    mix_ycsb_b: "ycsb-b" => [("read", 0.95), ("update", 0.05)];
    mix_ycsb_c: "ycsb-c" => [("read", 1.0)];
    mix_ycsb_d: "ycsb-d" => [("read", 0.95), ("insert", 0.05)];
    mix_ycsb_e: "ycsb-e" => [("scan", 0.95), ("insert", 0.05)];
    mix_ycsb_f: "ycsb-f" => [("read", 0.5), ("readmodifywrite", 0.5)];
    mix_pocketdata_a: "pocketdata-a" => [("select", 0.5), ("update", 0.5)];
    mix_pocketdata_b: "pocketdata-b" => [("select", 0.95), ("update", 0.05)];
    mix_pocketdata_c: "pocketdata-c" => [("select", 1.0)];
    mix_pocketdata_d: "pocketdata-d" => [("select", 0.95), ("insert", 0.05)];
    // Scans are `SELECT … WHERE key > k ORDER BY key LIMIT n`.
    mix_pocketdata_e: "pocketdata-e" => [("select", 0.95), ("insert", 0.05)];
    mix_pocketdata_ia: "pocketdata-ia" => INDEXED;
    mix_pocketdata_ib: "pocketdata-ib" => INDEXED;
    mix_pocketdata_ic: "pocketdata-ic" => INDEXED;
}

/// PocketData F is 50% reads and 50% read-modify-writes, and a read-modify-write is emitted as
/// a SELECT followed by an UPDATE: every operation has exactly one SELECT, half of them an
/// UPDATE as well.
#[test]
fn mix_pocketdata_f() {
    let (run_ops, mix) = mix_of("pocketdata-f");
    assert_eq!(mix.get("select"), Some(&OPS), "{mix:?}");
    let updates = mix.get("update").copied().unwrap_or(0);
    assert_eq!(run_ops, OPS + updates);
    let rmw_share = updates as f64 / OPS as f64;
    assert!(
        (rmw_share - 0.5).abs() <= TOLERANCE,
        "read-modify-writes are {rmw_share} of the operations"
    );
    assert_shares(
        "pocketdata-f",
        run_ops,
        &mix,
        &[("select", 2.0 / 3.0), ("update", 1.0 / 3.0)],
    );
}

#[test]
fn one_seed_gives_byte_identical_traces_and_another_seed_does_not() {
    let sb = Sandbox::new();
    for workload in ["ycsb-a", "pocketdata-ia"] {
        let gen = |name: &str, seed: &str| {
            let path = sb.trace_gen(
                name,
                &[
                    "--workload",
                    workload,
                    "--records",
                    "200",
                    "--ops",
                    "2000",
                    "--seed",
                    seed,
                ],
            );
            std::fs::read(path).expect("reading the trace")
        };
        let first = gen("first.pbt", "7");
        let again = gen("again.pbt", "7");
        let other = gen("other.pbt", "8");
        assert!(
            first.len() > 1000,
            "{workload}: trace of {} bytes",
            first.len()
        );
        assert!(
            first == again,
            "{workload}: seed 7 gave two different traces"
        );
        assert!(
            first != other,
            "{workload}: seeds 7 and 8 gave the same trace"
        );
    }
}

#[test]
fn run_replays_a_pregenerated_trace() {
    let sb = Sandbox::new();
    let trace = sb.trace_gen(
        "b.pbt",
        &words("--workload ycsb-b --records 100 --ops 300 --delay zero"),
    );
    let show = sb.trace_show(&trace);
    let s = sb.run_json(&["--trace", arg(&trace), "-o", "synchronous=off", "--quiet"]);
    assert_eq!(uint(&s, "/ops"), 300);
    assert_eq!(uint(&s, "/errors"), 0);
    assert_eq!(text(&s, "/trace/digest"), text(&show, "/digest"));
    assert_eq!(uint(&s, "/trace/load_ops"), 100);
    assert_eq!(text(&s, "/workload/name"), "ycsb-b");
    assert_eq!(text(&s, "/delay"), "zero");
    // The replay executed exactly the trace's operations, kind by kind.
    for (kind, n) in show["run_mix"].as_object().expect("run_mix") {
        assert_eq!(
            s.pointer(&format!("/latency_us/{kind}/count"))
                .and_then(Value::as_u64),
            n.as_u64(),
            "{kind}"
        );
    }
}

/// `trace gen` of an original PocketData file keeps its statements and the sum of its breaks.
fn fixture_trace(name: &str) -> Value {
    let sb = Sandbox::new();
    let json = fixture(&format!("pocketdata/{name}"));
    let trace = sb.trace_gen("fixture.pbt", &["--workload", arg(&json)]);
    let show = sb.trace_show(&trace);
    assert_eq!(text(&show, "/header/delay"), "recorded");
    assert_eq!(text(&show, "/header/workload/name"), name);
    assert_eq!(uint(&show, "/totals/load_ops"), 501);
    assert_eq!(uint(&show, "/totals/run_ops"), 1800);
    show
}

#[test]
fn ia_log_fixture_sums_its_recorded_breaks() {
    let show = fixture_trace("workload_ia_log.json");
    assert_eq!(uint(&show, "/totals/total_delay_ns"), 11_544_000_000);
    assert_eq!(uint(&show, "/header/workload/initial_delay_ns"), 0);
    assert_eq!(uint(&show, "/delay_max_ns"), 7_000_000);
}

#[test]
fn a_0ms_fixture_has_no_delay() {
    let show = fixture_trace("workload_a_0ms.json");
    assert_eq!(uint(&show, "/totals/total_delay_ns"), 0);
    assert_eq!(uint(&show, "/delay_max_ns"), 0);
}
