//! The load phase: create the schema and insert the initial data set in one transaction, then
//! close the engine so the replay process starts from files on storage.

use super::materialize::Materializer;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::platform::clock::mono_ns;
use crate::workload::trace::{TraceItem, TraceReader};

/// What the load phase did.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadTotals {
    pub ops: u64,
    pub elapsed_ns: u64,
}

/// Execute every load-phase operation of `reader` on `engine`, stopping at the first run-phase
/// operation. A failed load operation fails the run: the data set would not be what the trace
/// says.
pub fn load(engine: &mut dyn Engine, reader: &mut TraceReader) -> Result<LoadTotals> {
    let model = reader.header().workload.model.clone();
    let t0 = mono_ns();
    engine.create_schema(&model)?;
    engine.begin_load()?;
    let mut materializer = Materializer::new(&model);
    let mut ops = 0u64;
    while let Some(item) = reader.next_item()? {
        let TraceItem::Load(op) = item else { break };
        let request = materializer.request(&op);
        engine.execute(&request).map_err(|e| {
            Error::failed(format!(
                "load phase, operation {ops} ({}): {e}",
                crate::workload::trace::show::describe(&op)
            ))
        })?;
        ops += 1;
    }
    engine.end_load()?;
    Ok(LoadTotals {
        ops,
        elapsed_ns: mono_ns() - t0,
    })
}
