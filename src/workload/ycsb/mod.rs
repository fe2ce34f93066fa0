//! YCSB key-value workloads with CoreWorkload's semantics: the six core workloads
//! (`ycsb-a` … `ycsb-f`) and any YCSB `.properties` workload file.
//!
//! Parameters use YCSB's property names and defaults, except the record and operation counts,
//! which default to PocketData's 500 and 1 800. Key choice follows CoreWorkload: `zipfian` is
//! a scrambled zipfian over the loaded keys plus room for the expected inserts, redrawn until
//! it names a key that exists; `latest` favours the most recent insert; `uniform`, `hotspot`
//! and `sequential` cover the loaded range. There is one client, so every insert is
//! acknowledged as soon as it is issued. Operations stream lazily from seeded generators.
//!
//! [`YcsbParams`] holds the parameters ([`builtin_params`] for the core workloads,
//! [`YcsbParams::from_map`] for properties); [`workload`] turns them into a [`Workload`]
//! whose load phase inserts every record and whose run phase streams lazily.

mod choices;
mod keyspace;
mod overrides;
mod params;
mod property_map;
mod stream;
#[cfg(test)]
pub(crate) mod tests;

pub use choices::{Distribution, InsertOrder, ScanLengthDistribution};
pub(crate) use keyspace::KeySpace;
pub(crate) use overrides::{at_least_one, distribution_override};
pub use params::{builtin_params, YcsbParams, DEFAULT_OPS, DEFAULT_RECORDS};

use crate::error::Result;
use crate::workload::model::DataModel;
use crate::workload::op::Op;
use crate::workload::rng::Rng;
use crate::workload::{Overrides, Workload, WorkloadInfo};
use std::path::Path;
use stream::YcsbRun;

/// A YCSB workload from its parameters. Parameters that [`YcsbParams::validate`] would reject
/// are made safe rather than refused (all-zero mix reads, zero fields means whole records).
pub fn workload(name: &str, source: &str, params: YcsbParams, seed: u64) -> Workload {
    let info = WorkloadInfo {
        name: name.to_string(),
        source: source.to_string(),
        model: DataModel::KeyValue(params.model()),
        load_ops: params.record_count,
        run_ops: params.operation_count,
        params: params.to_map(),
        recorded_delays: false,
        initial_delay_ns: 0,
    };
    let mut values = Rng::derive(seed, "load");
    let first = params.insert_start;
    let load = (first..first.saturating_add(params.record_count)).map(move |key| Op::Insert {
        key,
        seed: values.next_u64(),
    });
    Workload {
        info,
        load: Box::new(load),
        run: Box::new(YcsbRun::new(&params, Rng::derive(seed, "run"))),
    }
}

/// `ycsb-a` … `ycsb-f`; `Ok(None)` for any other name.
pub fn builtin(name: &str, o: &Overrides, seed: u64) -> Result<Option<Workload>> {
    let mut letters = match name.strip_prefix("ycsb-") {
        Some(rest) => rest.chars(),
        None => return Ok(None),
    };
    let params = match (letters.next(), letters.next()) {
        (Some(letter), None) => builtin_params(letter),
        _ => None,
    };
    let Some(mut params) = params else {
        return Ok(None);
    };
    params.apply_overrides(o)?;
    Ok(Some(workload(name, "builtin", params, seed)))
}

/// A workload from a YCSB `.properties` file, named after the file.
pub fn from_properties_file(path: &Path, o: &Overrides, seed: u64) -> Result<Workload> {
    let origin = path.display().to_string();
    let text = crate::limits::read_text(path, &origin, crate::limits::MAX_WORKLOAD_FILE_BYTES)?;
    let map = crate::workload::properties::parse(&text, &origin)?;
    let mut params = YcsbParams::from_map(&map, &origin)?;
    params.apply_overrides(o)?;
    let name = path
        .file_name()
        .map_or_else(|| origin.clone(), |n| n.to_string_lossy().into_owned());
    Ok(workload(&name, "properties", params, seed))
}
