//! Replay with connections kept (imported traces, format version 2): each recorded connection
//! replays on its own thread over its own engine connection, each statement no earlier than
//! its recorded offset from the run start and after the statements before it on its
//! connection. A UI thread's reads racing a background writer then meet the same lock waits
//! and `SQLITE_BUSY` as in the app. The trace is read once, on the calling thread, which hands
//! each statement to its connection's bounded queue and writes the samples the connections
//! send back, so memory stays flat whatever the trace length.

use super::replay::{ReplayTotals, SampleSink};
use super::sample::OpSample;
use crate::engine::io::IoCounters;
use crate::engine::{Engine, Request};
use crate::error::{Error, Result};
use crate::platform::clock::{mono_ns, sleep_until, thread_cpu_ns};
use crate::platform::process::ProcessCounters;
use crate::stats::{LatencyHistogram, LatencySummary};
use crate::workload::op::TimedOp;
use crate::workload::trace::{TraceItem, TraceReader};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};

/// Statements read ahead per connection.
const QUEUE: usize = 4_096;

/// What one connection did.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ConnectionReport {
    pub ops: u64,
    pub errors: u64,
    /// Errors that were lock waits given up (`SQLITE_BUSY`, "database is locked").
    pub busy: u64,
    /// Latency of its statements, µs.
    pub latency: LatencySummary,
    /// How late its statements started against their recorded offsets, µs.
    pub lag: LatencySummary,
}

struct Done {
    conn: u32,
    sample: OpSample,
    error: Option<String>,
}

/// Replay the run phase of `reader` with one thread and one connection from `open` per
/// recorded connection (`connections` of them).
pub fn replay(
    reader: &mut TraceReader,
    connections: u32,
    open: &(dyn Fn() -> Result<Box<dyn Engine>> + Sync),
    sink: &mut dyn SampleSink,
) -> Result<(ReplayTotals, BTreeMap<String, ConnectionReport>)> {
    let mut next = None;
    while let Some(item) = reader.next_item()? {
        if let TraceItem::Run(t) = item {
            next = Some(t);
            break;
        }
    }
    let mut totals = ReplayTotals::default();
    let process_before = ProcessCounters::snapshot();
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let mut reports: BTreeMap<u32, (ConnectionReport, LatencyHistogram, LatencyHistogram)> =
        BTreeMap::new();
    let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
    let start_at = std::sync::OnceLock::<u64>::new();
    std::thread::scope(|scope| -> Result<()> {
        let mut queues: Vec<SyncSender<(u64, TimedOp)>> = Vec::new();
        let mut workers = Vec::new();
        for conn in 0..connections {
            let (tx, rx) = mpsc::sync_channel::<(u64, TimedOp)>(QUEUE);
            queues.push(tx);
            let (done, ready, start_at) = (done_tx.clone(), ready_tx.clone(), &start_at);
            workers.push(scope.spawn(move || worker(conn, open, rx, done, ready, start_at)));
        }
        drop((done_tx, ready_tx));
        // Every connection open before the clock starts.
        for _ in 0..connections {
            ready_rx
                .recv()
                .map_err(|_| Error::failed("a replay connection ended before it opened"))??;
        }
        totals.run_start_ns = mono_ns();
        let _ = start_at.set(totals.run_start_ns);
        let mut seq = 0u64;
        let mut write = |d: Done, totals: &mut ReplayTotals| -> Result<()> {
            let e = reports.entry(d.conn).or_default();
            e.0.ops += 1;
            e.1.record(d.sample.end_ns.saturating_sub(d.sample.start_ns));
            e.2.record(d.sample.start_ns.saturating_sub(d.sample.intended_ns));
            if let Some(msg) = d.error {
                e.0.errors += 1;
                totals.errors += 1;
                let m = msg.to_ascii_lowercase();
                if m.contains("locked") || m.contains("busy") {
                    e.0.busy += 1;
                }
                if totals.first_error.is_none() {
                    totals.first_error = Some((d.sample.seq, msg));
                }
            }
            totals.ops += 1;
            sink.record(&d.sample)
        };
        while let Some(t) = next.take() {
            let conn = t.recorded.map_or(0, |r| r.conn) as usize;
            let mut item = (seq, t);
            let q = queues
                .get(conn)
                .ok_or_else(|| Error::input("trace: a run record names an unknown connection"))?;
            loop {
                match q.try_send(item) {
                    Ok(()) => break,
                    Err(TrySendError::Full(back)) => {
                        item = back;
                        if let Ok(d) = done_rx.recv_timeout(std::time::Duration::from_millis(1)) {
                            write(d, &mut totals)?;
                        }
                    }
                    Err(TrySendError::Disconnected(_)) => break,
                }
            }
            while let Ok(d) = done_rx.try_recv() {
                write(d, &mut totals)?;
            }
            seq += 1;
            next = match reader.next_item()? {
                Some(TraceItem::Run(t)) => Some(t),
                Some(TraceItem::Load(_)) => {
                    return Err(Error::input(
                        "trace: a load operation follows run operations",
                    ))
                }
                None => None,
            };
        }
        drop(queues);
        for d in done_rx.iter() {
            write(d, &mut totals)?;
        }
        for w in workers {
            let io = w
                .join()
                .map_err(|_| Error::failed("a replay connection's thread panicked"))??;
            totals.io.add(&io);
        }
        Ok(())
    })?;
    totals.run_end_ns = mono_ns();
    totals.first_op_start_ns = totals.run_start_ns;
    totals.process = ProcessCounters::snapshot().since(&process_before);
    let out = reports
        .into_iter()
        .map(|(c, (mut r, lat, lag))| {
            r.latency = lat.summary();
            r.lag = lag.summary();
            (c.to_string(), r)
        })
        .collect();
    Ok((totals, out))
}

fn worker(
    conn: u32,
    open: &(dyn Fn() -> Result<Box<dyn Engine>> + Sync),
    rx: Receiver<(u64, TimedOp)>,
    done: mpsc::Sender<Done>,
    ready: mpsc::Sender<Result<()>>,
    start_at: &std::sync::OnceLock<u64>,
) -> Result<IoCounters> {
    let mut engine = match open() {
        Ok(e) => {
            let _ = ready.send(Ok(()));
            e
        }
        Err(e) => {
            let msg = e.to_string();
            let _ = ready.send(Err(e));
            return Err(Error::failed(msg));
        }
    };
    drop(ready);
    let io_before = engine.io();
    for (seq, t) in rx.iter() {
        let run_start = *start_at.get().unwrap_or(&0);
        let due = run_start + t.recorded.map_or(0, |r| r.offset_ns);
        let before = mono_ns();
        let (requested, actual) = if due > before {
            sleep_until(due);
            (due - before, mono_ns() - before)
        } else {
            (0, 0)
        };
        let request = Request {
            op: &t.op,
            key: &[],
            values: &[],
            keep_read: false,
        };
        let cpu0 = thread_cpu_ns();
        let io0 = engine.io_total();
        let start = mono_ns();
        let result = engine.execute(&request);
        let end = mono_ns();
        let cpu1 = thread_cpu_ns();
        let io1 = engine.io_total();
        let sample = OpSample {
            seq,
            kind: t.op.kind().code(),
            ok: result.is_ok(),
            key: 0,
            intended_ns: due,
            start_ns: start,
            end_ns: end,
            cpu_ns: cpu1.saturating_sub(cpu0),
            sleep_requested_ns: requested,
            sleep_actual_ns: actual,
            io: io1.minus(&io0),
            freq_khz: 0,
        };
        let error = result.err();
        if done
            .send(Done {
                conn,
                sample,
                error,
            })
            .is_err()
        {
            break;
        }
    }
    Ok(engine.io().minus(&io_before))
}
