//! Command-line overrides of YCSB parameters, and the checks of override values that every
//! workload choosing keys the YCSB way shares (`--records` and the like at least 1,
//! `--distribution` a known name).

use super::choices::Distribution;
use super::params::YcsbParams;
use crate::error::{Error, Result};
use crate::workload::overrides::{self as flag, reject_overrides};
use crate::workload::Overrides;

impl YcsbParams {
    /// Apply command-line overrides; flags this workload cannot honour are errors.
    pub fn apply_overrides(&mut self, o: &Overrides) -> Result<()> {
        let allowed = [
            flag::RECORDS,
            flag::OPS,
            flag::FIELD_COUNT,
            flag::FIELD_LENGTH,
            flag::DISTRIBUTION,
        ];
        reject_overrides(o, &allowed, "YCSB key-value workloads")?;
        if let Some(n) = at_least_one(flag::RECORDS, o.records)? {
            self.record_count = n;
        }
        if let Some(n) = at_least_one(flag::FIELD_COUNT, o.field_count)? {
            self.field_count = n;
        }
        if let Some(d) = distribution_override(o)? {
            self.request_distribution = d;
        }
        self.operation_count = o.ops.unwrap_or(self.operation_count);
        self.field_length = o.field_length.unwrap_or(self.field_length);
        Ok(())
    }
}

/// The value of override `flag`, refused if it is zero.
pub(crate) fn at_least_one<T: Copy + Default + PartialEq>(
    flag: &str,
    value: Option<T>,
) -> Result<Option<T>> {
    match value {
        Some(n) if n == T::default() => Err(Error::input(format!("{flag}: must be at least 1"))),
        other => Ok(other),
    }
}

/// `--distribution`, parsed; an unknown name is an error naming the flag.
pub(crate) fn distribution_override(o: &Overrides) -> Result<Option<Distribution>> {
    o.distribution
        .as_deref()
        .map(|d| {
            Distribution::parse(d).map_err(|m| Error::input(format!("{}: {m}", flag::DISTRIBUTION)))
        })
        .transpose()
}
