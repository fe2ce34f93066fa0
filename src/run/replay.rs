//! The measured loop: read the next run-phase operation from the trace, materialise it, wait
//! for its turn, execute it between two clock readings, and hand the sample to a sink. Nothing
//! but the engine call sits between the start and end timestamps.

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

    fn pick(&mut self, index: u64, recorded: u64) -> u64 {
        match self {
            Delays::FromTrace => recorded,
            Delays::Override(s) => s.next(index),
            Delays::None => 0,
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
    pub run_start_ns: u64,
    pub run_end_ns: u64,
    pub first_op_start_ns: u64,
    pub io: IoCounters,
    pub process: ProcessCounters,
    pub verification: Verification,
    /// The engine's own counters before and after the run.
    pub engine_stats: std::collections::BTreeMap<String, StatChange>,
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
    let stats_before = engine.stats();
    let process_before = ProcessCounters::snapshot();
    let io_before = engine.io();
    totals.run_start_ns = mono_ns();
    let mut pacer = Pacer::start(pacing, totals.run_start_ns, initial_delay);
    let mut seq = 0u64;
    while let Some(timed) = next.take() {
        let delay = delays.pick(seq, timed.delay_ns);
        let request = materializer.request(&timed.op);
        let wait = pacer.wait();

        let cpu0 = thread_cpu_ns();
        let io0 = engine.io();
        let start = mono_ns();
        let result = engine.execute(&request);
        let end = mono_ns();
        let cpu1 = thread_cpu_ns();
        let io1 = engine.io();
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
            totals.errors += 1;
            if totals.first_error.is_none() {
                totals.first_error = Some((seq, msg.clone()));
            }
        }
        sink.record(&OpSample {
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
            io: io1.minus(&io0).total(),
            freq_khz: 0,
        })?;
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
    totals.run_end_ns = mono_ns();
    totals.ops = seq;
    totals.io = engine.io().minus(&io_before);
    totals.process = ProcessCounters::snapshot().since(&process_before);
    totals.verification = verifier.totals;
    totals.engine_stats = StatChange::between(stats_before, engine.stats());
    Ok(totals)
}
