//! Schedule keeping of the connection-preserving replay (`run --trace` on an imported trace):
//! a version 2 trace of STATEMENTS statements spread round-robin over 4 connections, one every
//! GAP µs, replayed on the null engine (so the engine is never the bottleneck), each
//! connection on its own thread. Prints how late each statement started against its recorded
//! offset (p50, p99, max) and how many started more than 1 ms late; the goal is p99 ≤ 1 ms.
//! Every fifth statement is an autocommit write, so the app's order across connections
//! (`--order recorded`, the default) has write transactions to keep in order; the trace is
//! replayed with `--order time` and then `--order recorded` in the same process, so the lag
//! the order adds is the difference of the two lines.
//!
//! Run: `cargo bench --bench connection_replay [-- STATEMENTS GAP_US]` (defaults 100000 20).

mod common;

use pocketbench::engine;
use pocketbench::run::replay::SampleSink;
use pocketbench::run::sample::OpSample;
use pocketbench::run::{connections, order};
use pocketbench::stats::LatencyHistogram;
use pocketbench::workload::model::DataModel;
use pocketbench::workload::op::{Op, Recorded, SqlValue, TimedOp};
use pocketbench::workload::trace::{ImportInfo, TraceHeader, TraceReader, TraceWriter, VERSION_2};
use pocketbench::workload::WorkloadInfo;

const CONNECTIONS: u32 = 4;

struct Lag {
    hist: LatencyHistogram,
    late: u64,
}

impl SampleSink for Lag {
    fn record(&mut self, s: &OpSample) -> pocketbench::error::Result<()> {
        let lag = s.start_ns.saturating_sub(s.intended_ns);
        self.hist.record(lag);
        self.late += u64::from(lag > 1_000_000);
        Ok(())
    }
}

fn main() {
    let n = common::numbers::<u64>();
    let statements = n.first().copied().unwrap_or(100_000);
    let gap_ns = n.get(1).copied().unwrap_or(20) * 1_000;
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("app.pbt");
    let header = TraceHeader {
        workload: WorkloadInfo {
            name: "connection_replay".into(),
            source: "import".into(),
            model: DataModel::Sql,
            load_ops: 0,
            run_ops: statements,
            params: Default::default(),
            recorded_delays: true,
            initial_delay_ns: 0,
        },
        delay: "recorded".into(),
        seed: 0,
        generator: "bench".into(),
        import: Some(ImportInfo {
            connections: CONNECTIONS,
            ..Default::default()
        }),
    };
    let mut w = TraceWriter::create(&path, &header, VERSION_2).expect("trace");
    for i in 0..statements {
        w.write_run(&TimedOp {
            op: Op::SqlArgs {
                sql: if i % 5 == 0 {
                    "INSERT INTO t VALUES (?)"
                } else {
                    "SELECT * FROM t WHERE k = ?"
                }
                .into(),
                args: vec![SqlValue::Integer(i as i64)],
            },
            delay_ns: gap_ns,
            recorded: Some(Recorded {
                conn: (i % u64::from(CONNECTIONS)) as u32,
                offset_ns: i * gap_ns,
                dur_ns: Some(1_000),
            }),
        })
        .expect("trace");
    }
    w.finish().expect("trace");
    pocketbench::platform::clock::set_timer_slack(1);
    let plan = order::Plan::of(&path, false).expect("plan");
    for (name, plan) in [("time", None), ("recorded", Some(&plan))] {
        let mut reader = TraceReader::open(&path).expect("trace");
        let open = || engine::open("null", &[], dir.path());
        let mut lag = Lag {
            hist: LatencyHistogram::default(),
            late: 0,
        };
        let (totals, conns) =
            connections::replay(&mut reader, CONNECTIONS, &open, plan, &mut lag).expect("replay");
        let waited: u64 = conns.values().map(|c| c.order_waited).sum();
        let us = |ns: u64| ns as f64 / 1_000.0;
        println!(
            "connection_replay --order {name}: {} statements on {CONNECTIONS} connections, one every {} µs, {:.2} s: start lag p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs; {} ({:.3}%) more than 1 ms late; {waited} waited for the order",
            totals.ops,
            gap_ns / 1_000,
            (totals.run_end_ns - totals.run_start_ns) as f64 / 1e9,
            us(lag.hist.quantile_ns(0.5)),
            us(lag.hist.quantile_ns(0.99)),
            us(lag.hist.quantile_ns(1.0)),
            lag.late,
            100.0 * lag.late as f64 / totals.ops.max(1) as f64
        );
    }
}
