//! Capturing the flash trace inside the engine's I/O hook. Off by default: the hook's only
//! cost is one relaxed atomic load and a predictable branch per call. When on, each call
//! appends an [`IoRecord`] to the calling thread's buffer; with a spill writer attached, the
//! buffer streams to a trace file every [`SPILL`] records, so memory stays bounded on long runs.

use super::trace::{IoOp, IoRecord, TraceWriter};
use super::FileKind;
use crate::error::Result;
use crate::platform::clock::mono_ns;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Records buffered before spilling to the writer.
pub const SPILL: usize = 1 << 16;

struct Capture {
    records: Vec<IoRecord>,
    spill: Option<TraceWriter>,
    error: Option<crate::error::Error>,
}

thread_local! {
    static CAPTURE: RefCell<Capture> = const {
        RefCell::new(Capture { records: Vec::new(), spill: None, error: None })
    };
}

/// Is capture on (in this process)?
#[inline(always)]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Record one call that took `duration_ns` and has just returned. Call only when
/// [`enabled`]; the hook does `if capture::enabled() { capture::io(…) }`.
#[cold]
#[inline(never)]
pub fn io(kind: FileKind, op: IoOp, offset: u64, len: u64, duration_ns: u64) {
    let time_ns = mono_ns().saturating_sub(duration_ns);
    push(IoRecord {
        time_ns,
        duration_ns,
        kind,
        op,
        offset,
        len,
    });
}

/// Append a record to this thread's buffer (phase marks use this directly).
pub fn push(r: IoRecord) {
    CAPTURE.with(|c| {
        let mut c = c.borrow_mut();
        c.records.push(r);
        if c.records.len() >= SPILL && c.spill.is_some() {
            let c = &mut *c;
            if let Some(w) = c.spill.as_mut() {
                if let Err(e) = w.write(&c.records) {
                    c.error.get_or_insert(e);
                }
            }
            c.records.clear();
        }
    });
}

/// Start capturing on this thread (and switch the process-wide flag on), optionally streaming
/// to `spill`.
pub fn start(spill: Option<TraceWriter>) {
    CAPTURE.with(|c| {
        let mut c = c.borrow_mut();
        c.records.clear();
        c.spill = spill;
        c.error = None;
    });
    ENABLED.store(true, Ordering::Relaxed);
}

/// Take the records buffered so far on this thread (capture stays on).
pub fn take() -> Vec<IoRecord> {
    CAPTURE.with(|c| std::mem::take(&mut c.borrow_mut().records))
}

/// Move the buffered records into `out` (keeps `out`'s allocation; capture stays on).
pub fn drain_into(out: &mut Vec<IoRecord>) {
    CAPTURE.with(|c| out.append(&mut c.borrow_mut().records));
}

/// Stop capturing. With a spill writer, the rest is written and the file finished; returns
/// the records still in memory (all of them when there was no writer).
pub fn stop() -> Result<Vec<IoRecord>> {
    ENABLED.store(false, Ordering::Relaxed);
    CAPTURE.with(|c| {
        let mut c = c.borrow_mut();
        let records = std::mem::take(&mut c.records);
        if let Some(e) = c.error.take() {
            c.spill = None;
            return Err(e);
        }
        match c.spill.take() {
            Some(mut w) => {
                w.write(&records)?;
                w.finish()?;
                Ok(Vec::new())
            }
            None => Ok(records),
        }
    })
}
