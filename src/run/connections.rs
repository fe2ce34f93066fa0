//! Replay with connections kept (imported traces, format version 2): each recorded connection
//! replays on its own thread over its own engine connection, each statement no earlier than
//! its recorded offset from the run start and after the statements before it on its
//! connection. A UI thread's reads racing a background writer then meet the same lock waits
//! and `SQLITE_BUSY` as in the app. The trace is read once, on the calling thread, which hands
//! each statement to its connection's bounded queue and writes the samples the connections
//! send back, so memory stays flat whatever the trace length.
//!
//! With an [`order::Plan`] (`--order recorded`, the default) a statement also waits for the
//! write transactions the app had committed before it started, and write transactions commit
//! in the app's order ([`super::order`]); a statement the app completed that meets a lock in
//! the replay (`SQLITE_BUSY`) is tried again, as the app's own retry did, for up to
//! [`RETRY_MAX`]. Both waits are reported per connection.

use super::order::{self, Committed};
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

/// How long an ordered replay keeps trying a statement that meets another connection's lock.
pub const RETRY_MAX: std::time::Duration = std::time::Duration::from_secs(10);

/// What one connection did.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ConnectionReport {
    pub ops: u64,
    pub errors: u64,
    /// Errors that were lock waits given up (`SQLITE_BUSY`, "database is locked").
    pub busy: u64,
    /// Latency of its statements, µs.
    pub latency: LatencySummary,
    /// How late its statements started against their recorded offsets, µs (the order wait
    /// included).
    pub lag: LatencySummary,
    /// Time its statements waited for other connections to keep the app's order, µs
    /// (`--order recorded`; zero for statements that did not wait).
    #[serde(default)]
    pub order_wait: LatencySummary,
    /// Statements that waited for the app's order, and those that gave up waiting after
    /// `order::ORDER_WAIT_MAX` and went ahead.
    #[serde(default)]
    pub order_waited: u64,
    #[serde(default)]
    pub order_gave_up: u64,
    /// Attempts that met another connection's lock and were tried again (`--order recorded`).
    #[serde(default)]
    pub lock_retries: u64,
}

struct Done {
    conn: u32,
    sample: OpSample,
    error: Option<String>,
    /// Time waited for the app's order (ns), whether the wait gave up, lock retries.
    order_wait_ns: u64,
    gave_up: bool,
    retries: u64,
}

/// Whether an engine's error is a lock wait given up.
fn is_busy(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    m.contains("locked") || m.contains("busy")
}

/// How long a statement the app completed is tried again after `msg`: a lock wait given up
/// for up to [`RETRY_MAX`]; a table not found for up to [`STALE_SCHEMA_MAX`], since a
/// connection whose cached schema predates another connection's `CREATE` cannot reread it
/// while a writer holds the lock, and SQLite then reports the stale schema's answer.
fn retry_for(msg: &str) -> std::time::Duration {
    if is_busy(msg) {
        RETRY_MAX
    } else if msg.contains("no such table") {
        STALE_SCHEMA_MAX
    } else {
        std::time::Duration::ZERO
    }
}

/// See [`retry_for`].
pub const STALE_SCHEMA_MAX: std::time::Duration = std::time::Duration::from_secs(1);

/// One connection's figures while the replay runs.
#[derive(Default)]
struct Tally {
    report: ConnectionReport,
    latency: LatencyHistogram,
    lag: LatencyHistogram,
    order_wait: LatencyHistogram,
}

/// Replay the run phase of `reader` with one thread and one connection from `open` per
/// recorded connection (`connections` of them), in the app's order when `plan` is given.
pub fn replay(
    reader: &mut TraceReader,
    connections: u32,
    open: &(dyn Fn() -> Result<Box<dyn Engine>> + Sync),
    plan: Option<&order::Plan>,
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
    let mut reports: BTreeMap<u32, Tally> = BTreeMap::new();
    let committed = Committed::default();
    let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
    let start_at = std::sync::OnceLock::<u64>::new();
    std::thread::scope(|scope| -> Result<()> {
        let mut queues: Vec<SyncSender<(u64, TimedOp)>> = Vec::new();
        let mut workers = Vec::new();
        for conn in 0..connections {
            let (tx, rx) = mpsc::sync_channel::<(u64, TimedOp)>(QUEUE);
            queues.push(tx);
            let (done, ready) = (done_tx.clone(), ready_tx.clone());
            let shared = Shared {
                open,
                start_at: &start_at,
                plan,
                committed: &committed,
            };
            workers.push(scope.spawn(move || worker(conn, shared, rx, done, ready)));
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
            e.report.ops += 1;
            e.latency
                .record(d.sample.end_ns.saturating_sub(d.sample.start_ns));
            e.lag
                .record(d.sample.start_ns.saturating_sub(d.sample.intended_ns));
            e.order_wait.record(d.order_wait_ns);
            e.report.order_waited += u64::from(d.order_wait_ns > 0);
            e.report.order_gave_up += u64::from(d.gave_up);
            e.report.lock_retries += d.retries;
            if let Some(msg) = d.error {
                e.report.errors += 1;
                totals.errors += 1;
                if is_busy(&msg) {
                    e.report.busy += 1;
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
        .map(|(c, t)| {
            let mut r = t.report;
            r.latency = t.latency.summary();
            r.lag = t.lag.summary();
            r.order_wait = t.order_wait.summary();
            (c.to_string(), r)
        })
        .collect();
    Ok((totals, out))
}

/// What every connection's thread shares.
#[derive(Clone, Copy)]
struct Shared<'a> {
    open: &'a (dyn Fn() -> Result<Box<dyn Engine>> + Sync),
    start_at: &'a std::sync::OnceLock<u64>,
    plan: Option<&'a order::Plan>,
    committed: &'a Committed,
}

fn worker(
    conn: u32,
    shared: Shared,
    rx: Receiver<(u64, TimedOp)>,
    done: mpsc::Sender<Done>,
    ready: mpsc::Sender<Result<()>>,
) -> Result<IoCounters> {
    let mut engine = match (shared.open)() {
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
        let run_start = *shared.start_at.get().unwrap_or(&0);
        let due = run_start + t.recorded.map_or(0, |r| r.offset_ns);
        let before = mono_ns();
        let (requested, actual) = if due > before {
            sleep_until(due);
            (due - before, mono_ns() - before)
        } else {
            (0, 0)
        };
        let (need, ends_write) = shared.plan.map_or((0, false), |p| p.gate(seq));
        let wait0 = mono_ns();
        let wait = shared.committed.wait_for(need);
        let order_wait_ns = match wait {
            order::Wait::Ready => 0,
            _ => mono_ns() - wait0,
        };
        let gave_up = wait == order::Wait::GaveUp;
        let request = Request {
            op: &t.op,
            key: &[],
            values: &[],
            keep_read: false,
        };
        let cpu0 = thread_cpu_ns();
        let io0 = engine.io_total();
        let start = mono_ns();
        let mut result = engine.execute(&request);
        let mut retries = 0u64;
        // The app completed this statement: a lock met here is the replay's timing, not the
        // app's, so it is tried again as the app's retry loop would.
        let mut pause_ns = 100_000u64;
        while shared.plan.is_some()
            && result
                .as_ref()
                .is_err_and(|e| mono_ns() - start < retry_for(e).as_nanos() as u64)
        {
            sleep_until(mono_ns() + pause_ns);
            pause_ns = (pause_ns * 2).min(10_000_000);
            retries += 1;
            result = engine.execute(&request);
        }
        let end = mono_ns();
        let cpu1 = thread_cpu_ns();
        let io1 = engine.io_total();
        if ends_write {
            shared.committed.add();
        }
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
                order_wait_ns,
                gave_up,
                retries,
            })
            .is_err()
        {
            break;
        }
    }
    Ok(engine.io().minus(&io_before))
}
