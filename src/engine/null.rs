//! The null engine: accepts every operation and does nothing. Replaying a trace on it measures
//! what the harness itself costs per operation (decoding, materialising, clocks, recording),
//! which is reported beside every result.

use super::io::IoCounters;
use super::options::EngineOptions;
use super::{Engine, EngineDescriptor, EngineInfo, Outcome, Request};
use crate::error::Result;
use crate::workload::model::DataModel;
use std::path::Path;

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "null",
    summary: "does nothing; measures the harness's own cost per operation",
    options: &[],
    supports_sql: true,
    open,
    version: || crate::TOOL_VERSION.to_string(),
};

#[derive(Default)]
pub struct NullEngine;

fn open(_dir: &Path, _options: &EngineOptions) -> Result<Box<dyn Engine>> {
    Ok(Box::new(NullEngine))
}

impl Engine for NullEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "null".into(),
            version: crate::TOOL_VERSION.into(),
            options: Default::default(),
            io_method: "none (no I/O)".into(),
        }
    }

    fn create_schema(&mut self, _model: &DataModel) -> Result<()> {
        Ok(())
    }

    fn begin_load(&mut self) -> Result<()> {
        Ok(())
    }

    fn end_load(&mut self) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn execute(&mut self, req: &Request<'_>) -> std::result::Result<Outcome, String> {
        // Touch the request so the work of materialising it cannot be optimised away.
        std::hint::black_box(req.key.len());
        Ok(Outcome { rows: 0 })
    }

    fn io(&self) -> IoCounters {
        IoCounters::default()
    }
}
