//! The command-line names of the workload [`Overrides`], the one place that knows them, so
//! every workload source refuses an override it cannot honour in the same words.

use super::Overrides;
use crate::error::{Error, Result};

/// Command-line flag of each override, as named in error messages.
pub const RECORDS: &str = "--records";
pub const OPS: &str = "--ops";
pub const FIELD_COUNT: &str = "--field-count";
pub const FIELD_LENGTH: &str = "--field-length";
pub const DISTRIBUTION: &str = "--distribution";
pub const MISS_RATIO: &str = "--miss-ratio";
pub const INDEX: &str = "--index";

/// The flags of the overrides that are set, in a fixed order.
pub fn overrides_set(o: &Overrides) -> impl Iterator<Item = &'static str> {
    [
        (RECORDS, o.records.is_some()),
        (OPS, o.ops.is_some()),
        (FIELD_COUNT, o.field_count.is_some()),
        (FIELD_LENGTH, o.field_length.is_some()),
        (DISTRIBUTION, o.distribution.is_some()),
        (MISS_RATIO, o.miss_ratio.is_some()),
        (INDEX, !o.indexes.is_empty()),
    ]
    .into_iter()
    .filter_map(|(flag, set)| set.then_some(flag))
}

/// Refuse the first override that is set but not in `allowed`:
/// `--records does not apply to {what}`.
pub fn reject_overrides(o: &Overrides, allowed: &[&str], what: &str) -> Result<()> {
    match overrides_set(o).find(|flag| !allowed.contains(flag)) {
        Some(flag) => Err(Error::input(format!("{flag} does not apply to {what}"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_are_refused_by_flag() {
        let o = Overrides {
            ops: Some(3),
            indexes: vec!["key".into()],
            ..Overrides::default()
        };
        assert_eq!(overrides_set(&o).collect::<Vec<_>>(), [OPS, INDEX]);
        assert!(reject_overrides(&o, &[OPS, INDEX], "x").is_ok());
        let msg = reject_overrides(&o, &[OPS], "a thing")
            .unwrap_err()
            .to_string();
        assert_eq!(msg, "--index does not apply to a thing");
        assert!(reject_overrides(&Overrides::default(), &[], "x").is_ok());
    }
}
