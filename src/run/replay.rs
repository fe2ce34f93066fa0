//! The measured loop: read the next run-phase operation from the trace, materialise it, wait
//! for its turn, execute it between two clock readings, and hand the sample to a sink. Nothing
//! but the engine call sits between the start and end timestamps.
//!
//! Thread CPU time costs a system call per reading (no vDSO clock for it). With think time
//! between operations that is noise, so every operation's CPU is read around it
//! ([`CpuAccounting::PerOperation`]). When every delay is zero the operations run back to back
//! and two such calls per operation would slow a saturated run by a quarter; there the CPU
//! clock is read once per [`CPU_BATCH`] operations, between operations, and each operation gets
//! the batch's on-CPU share of its own wall time ([`CpuAccounting::Batched`]). Wall-clock
//! latencies stay exact either way, and the result says which accounting was used.

use super::materialize::Materializer;
use super::pacer::{Pacer, Pacing};
use super::sample::OpSample;
use super::verify::{Verification, Verifier};
use crate::engine::io::IoCounters;
use crate::engine::{Engine, StatChange};
use crate::error::Result;
use crate::platform::clock::{mono_ns, thread_cpu_ns};
use crate::platform::process::ProcessCounters;
use crate::workload::delay::{DelayModel, DelaySampler};
use crate::workload::trace::{TraceItem, TraceReader};

/// Back-to-back operations per thread-CPU reading in batched accounting.
pub const CPU_BATCH: usize = 256;

/// How each operation's CPU time was measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpuAccounting {
    /// The thread CPU clock read before and after every operation.
    #[default]
    PerOperation,
    /// Read once per this many back-to-back operations; each operation's share is the batch's
    /// on-CPU fraction of its wall time.
    Batched(usize),
}

impl std::fmt::Display for CpuAccounting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CpuAccounting::PerOperation => f.write_str("per-operation"),
            CpuAccounting::Batched(n) => write!(f, "batch:{n}"),
        }
    }
}

/// Samples of back-to-back operations waiting for their batch's CPU reading.
struct CpuBatch {
    samples: Vec<OpSample>,
    cpu0: u64,
    wall0: u64,
}

impl CpuBatch {
    fn new() -> Self {
        CpuBatch {
            samples: Vec::with_capacity(CPU_BATCH),
            cpu0: 0,
            wall0: 0,
        }
    }

    /// Hold `sample` until the batch's CPU is read; read it once the batch is full.
    fn push(&mut self, sample: OpSample, sink: &mut dyn SampleSink) -> Result<()> {
        self.samples.push(sample);
        if self.samples.len() >= CPU_BATCH {
            self.close(sink)?;
        }
        Ok(())
    }

    /// Note the batch's start if it is empty; call between operations.
    fn open(&mut self) {
        if self.samples.is_empty() {
            self.cpu0 = thread_cpu_ns();
            self.wall0 = mono_ns();
        }
    }

    /// Read the CPU clock, give every sample its share, and hand them to `sink`.
    fn close(&mut self, sink: &mut dyn SampleSink) -> Result<()> {
        if self.samples.is_empty() {
            return Ok(());
        }
        let cpu = thread_cpu_ns().saturating_sub(self.cpu0);
        let wall = mono_ns().saturating_sub(self.wall0).max(1);
        let on_cpu = (cpu as f64 / wall as f64).min(1.0);
        for s in &mut self.samples {
            s.cpu_ns = (s.end_ns.saturating_sub(s.start_ns) as f64 * on_cpu).round() as u64;
            sink.record(s)?;
        }
        self.samples.clear();
        Ok(())
    }
}

/// Where samples go: the spool file in the replay process, an aggregate for overhead runs.
pub trait SampleSink {
    fn record(&mut self, sample: &OpSample) -> Result<()>;
}

/// Which delays to use.
pub enum Delays {
    /// The delays stored in the trace.
    FromTrace,
    /// Delays from another model, sampled with the run's seed.
    Override(DelaySampler),
    /// No delays at all (harness-overhead replays).
    None,
}

impl Delays {
    pub fn new(model: Option<&DelayModel>, seed: u64) -> Delays {
        match model.and_then(|m| m.sampler(seed)) {
            Some(s) => Delays::Override(s),
            None => Delays::FromTrace,
        }
    }

    /// Every delay of this replay is zero: the trace's own (generated with the `zero` model)
    /// or another model's.
    fn all_zero(&self, header: &crate::workload::trace::TraceHeader) -> bool {
        match self {
            Delays::FromTrace => {
                header.delay == DelayModel::Zero.to_string()
                    && header.workload.initial_delay_ns == 0
            }
            Delays::Override(s) => s.is_zero(),
            Delays::None => true,
        }
    }

    fn pick(&mut self, index: u64, recorded: u64) -> u64 {
        match self {
            Delays::FromTrace => recorded,
            Delays::Override(s) => s.next(index),
            Delays::None => 0,
        }
    }
}

/// Failed operations a run lists one by one (all of them are counted).
pub const MAX_FAILED_LISTED: usize = 100;

impl ReplayTotals {
    /// Count the failure of operation `seq` and keep its message when it is among the first.
    pub fn failed(&mut self, seq: u64, msg: &str) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some((seq, msg.to_string()));
        }
        if self.failed.len() < MAX_FAILED_LISTED {
            self.failed.push((seq, msg.to_string()));
        }
    }
}

/// Totals of one replay.
#[derive(Clone, Debug, Default)]
pub struct ReplayTotals {
    pub ops: u64,
    pub errors: u64,
    /// Sequence number and message of the first failed operation.
    pub first_error: Option<(u64, String)>,
    /// The first [`MAX_FAILED_LISTED`] failed operations: sequence number and message.
    pub failed: Vec<(u64, String)>,
    pub run_start_ns: u64,
    pub run_end_ns: u64,
    pub first_op_start_ns: u64,
    pub io: IoCounters,
    pub process: ProcessCounters,
    pub verification: Verification,
    /// The engine's own counters before and after the run.
    pub engine_stats: std::collections::BTreeMap<String, StatChange>,
    /// How each operation's CPU time was measured.
    pub cpu_accounting: CpuAccounting,
}

/// Replay the run phase of `reader` on `engine`.
pub fn replay(
    engine: &mut dyn Engine,
    reader: &mut TraceReader,
    pacing: Pacing,
    mut delays: Delays,
    sink: &mut dyn SampleSink,
) -> Result<ReplayTotals> {
    let model = reader.header().workload.model.clone();
    // Leading recorded breaks belong to the recorded delays: another model replaces them too.
    let initial_delay = match delays {
        Delays::FromTrace => reader.header().workload.initial_delay_ns,
        Delays::Override(_) | Delays::None => 0,
    };
    let mut materializer = Materializer::new(&model);
    let mut verifier = Verifier::new(&model, reader.header().workload.load_ops);
    // The load section comes first in a trace: read it (telling the verifier what was
    // written) before the clock starts, so its decoding is neither run time nor schedule lag.
    let mut next = None;
    while let Some(item) = reader.next_item()? {
        match item {
            TraceItem::Load(op) => verifier.wrote(&op),
            TraceItem::Run(timed) => {
                next = Some(timed);
                break;
            }
        }
    }
    let mut totals = ReplayTotals::default();
    // Back-to-back operations share a CPU reading per batch; paced ones are read one by one.
    let mut batch = delays.all_zero(reader.header()).then(CpuBatch::new);
    if batch.is_some() {
        totals.cpu_accounting = CpuAccounting::Batched(CPU_BATCH);
    }
    let stats_before = engine.stats();
    let process_before = ProcessCounters::snapshot();
    let io_before = engine.io();
    totals.run_start_ns = mono_ns();
    let mut pacer = Pacer::start(pacing, totals.run_start_ns, initial_delay);
    let mut seq = 0u64;
    while let Some(timed) = next.take() {
        let delay = delays.pick(seq, timed.delay_ns);
        let mut request = materializer.request(&timed.op);
        request.keep_read = verifier.will_check(&timed.op);
        let wait = pacer.wait();

        if let Some(b) = &mut batch {
            b.open();
        }
        let cpu0 = if batch.is_some() { 0 } else { thread_cpu_ns() };
        let io0 = engine.io_total();
        let start = mono_ns();
        let result = engine.execute(&request);
        let end = mono_ns();
        let cpu1 = if batch.is_some() { 0 } else { thread_cpu_ns() };
        let io1 = engine.io_total();
        // Read-your-writes, after the end timestamp: check what was read, then note what was
        // written.
        let result = result.and_then(|outcome| {
            verifier.check(&timed.op, engine.last_read())?;
            verifier.wrote(&timed.op);
            Ok(outcome)
        });

        pacer.completed(end, delay);
        if seq == 0 {
            totals.first_op_start_ns = start;
        }
        if let Err(msg) = &result {
            totals.failed(seq, msg);
        }
        let sample = OpSample {
            seq,
            kind: timed.op.kind().code(),
            ok: result.is_ok(),
            key: timed.op.key(),
            intended_ns: wait.intended_ns,
            start_ns: start,
            end_ns: end,
            cpu_ns: cpu1.saturating_sub(cpu0),
            sleep_requested_ns: wait.requested_ns,
            sleep_actual_ns: wait.actual_ns,
            io: io1.minus(&io0),
            freq_khz: 0,
        };
        match &mut batch {
            Some(b) => b.push(sample, sink)?,
            None => sink.record(&sample)?,
        }
        seq += 1;
        next = match reader.next_item()? {
            Some(TraceItem::Run(t)) => Some(t),
            Some(TraceItem::Load(_)) => {
                return Err(crate::error::Error::input(
                    "trace: a load operation follows run operations",
                ))
            }
            None => None,
        };
    }
    if let Some(b) = &mut batch {
        b.close(sink)?;
    }
    totals.run_end_ns = mono_ns();
    totals.ops = seq;
    totals.io = engine.io().minus(&io_before);
    totals.process = ProcessCounters::snapshot().since(&process_before);
    totals.verification = verifier.totals;
    totals.engine_stats = StatChange::between(stats_before, engine.stats());
    Ok(totals)
}
