//! [`YcsbParams`]: every CoreWorkload parameter, its defaults, the six core workloads, the
//! checks a combination must pass, and what follows from the parameters (operation mix, key
//! space, record layout).

use super::choices::{Distribution, InsertOrder, ScanLengthDistribution};
use crate::error::{Error, Result};
use crate::limits;
use crate::workload::generators::Discrete;
use crate::workload::model::KeyValueModel;
use std::collections::BTreeMap;

/// Every CoreWorkload parameter pocketbench honours.
#[derive(Clone, Debug, PartialEq)]
pub struct YcsbParams {
    pub table: String,
    pub record_count: u64,
    pub operation_count: u64,
    pub field_count: u16,
    pub field_length: u32,
    pub read_proportion: f64,
    pub update_proportion: f64,
    pub insert_proportion: f64,
    pub scan_proportion: f64,
    pub read_modify_write_proportion: f64,
    pub request_distribution: Distribution,
    pub min_scan_length: u32,
    pub max_scan_length: u32,
    pub scan_length_distribution: ScanLengthDistribution,
    pub insert_order: InsertOrder,
    pub zero_padding: u8,
    pub read_all_fields: bool,
    pub write_all_fields: bool,
    pub hotspot_data_fraction: f64,
    pub hotspot_op_fraction: f64,
    pub insert_start: u64,
    /// Properties without a meaning here (`workload`, `db`, unknown keys), kept for the record.
    pub extra: BTreeMap<String, String>,
}

/// PocketData's default database size and run length.
pub const DEFAULT_RECORDS: u64 = 500;
pub const DEFAULT_OPS: u64 = 1800;

impl Default for YcsbParams {
    /// YCSB CoreWorkload's defaults, with PocketData's record and operation counts.
    fn default() -> Self {
        YcsbParams {
            table: "usertable".into(),
            record_count: DEFAULT_RECORDS,
            operation_count: DEFAULT_OPS,
            field_count: 10,
            field_length: 100,
            read_proportion: 0.95,
            update_proportion: 0.05,
            insert_proportion: 0.0,
            scan_proportion: 0.0,
            read_modify_write_proportion: 0.0,
            request_distribution: Distribution::Uniform,
            min_scan_length: 1,
            max_scan_length: 1000,
            scan_length_distribution: ScanLengthDistribution::Uniform,
            insert_order: InsertOrder::Hashed,
            zero_padding: 1,
            read_all_fields: true,
            write_all_fields: false,
            hotspot_data_fraction: 0.2,
            hotspot_op_fraction: 0.8,
            insert_start: 0,
            extra: BTreeMap::new(),
        }
    }
}

/// The six core workloads, with PocketData's counts (500 records, 1 800 operations).
pub fn builtin_params(letter: char) -> Option<YcsbParams> {
    let base = YcsbParams {
        read_proportion: 0.0,
        update_proportion: 0.0,
        request_distribution: Distribution::Zipfian,
        ..YcsbParams::default()
    };
    let params = match letter.to_ascii_lowercase() {
        'a' => YcsbParams {
            read_proportion: 0.5,
            update_proportion: 0.5,
            ..base
        },
        'b' => YcsbParams {
            read_proportion: 0.95,
            update_proportion: 0.05,
            ..base
        },
        'c' => YcsbParams {
            read_proportion: 1.0,
            ..base
        },
        'd' => YcsbParams {
            read_proportion: 0.95,
            insert_proportion: 0.05,
            request_distribution: Distribution::Latest,
            ..base
        },
        'e' => YcsbParams {
            scan_proportion: 0.95,
            insert_proportion: 0.05,
            max_scan_length: 100,
            scan_length_distribution: ScanLengthDistribution::Uniform,
            ..base
        },
        'f' => YcsbParams {
            read_proportion: 0.5,
            read_modify_write_proportion: 0.5,
            ..base
        },
        _ => return None,
    };
    Some(params)
}

/// An error naming where the parameters came from and the property at fault.
pub(super) fn bad(origin: &str, key: &str, msg: impl std::fmt::Display) -> Error {
    Error::input(format!("{origin}: {key}: {msg}"))
}

/// The five CoreWorkload operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

impl YcsbParams {
    /// Check the combination of parameters; errors name `origin` and the property.
    pub fn validate(&self, origin: &str) -> Result<()> {
        if self.record_count == 0 {
            return Err(bad(origin, "recordcount", "must be at least 1"));
        }
        if self.field_count == 0 {
            return Err(bad(origin, "fieldcount", "must be at least 1"));
        }
        let named = |key: &str| format!("{origin}: {key}");
        limits::at_most(
            &named("recordcount"),
            self.record_count,
            limits::MAX_RECORDS,
        )?;
        limits::at_most(
            &named("operationcount"),
            self.operation_count,
            limits::MAX_OPS,
        )?;
        limits::at_most(
            &named("maxscanlength"),
            self.max_scan_length,
            limits::MAX_SCAN_LENGTH,
        )?;
        crate::workload::bounds::check_model(
            &self.model(),
            &format!("{origin}: "),
            ["fieldcount", "fieldlength"],
        )?;
        if self.mix().is_none() {
            return Err(Error::input(format!(
                "{origin}: readproportion, updateproportion, insertproportion, scanproportion \
                 and readmodifywriteproportion are all zero"
            )));
        }
        if self.min_scan_length == 0 || self.min_scan_length > self.max_scan_length {
            return Err(bad(
                origin,
                "minscanlength",
                format!(
                    "must be between 1 and maxscanlength ({}), got {}",
                    self.max_scan_length, self.min_scan_length
                ),
            ));
        }
        if self.insert_start.checked_add(self.key_space()).is_none() {
            return Err(bad(origin, "insertstart", "too large for the key space"));
        }
        Ok(())
    }

    /// The operation mix, `None` when every proportion is zero.
    pub(super) fn mix(&self) -> Option<Discrete<Kind>> {
        Discrete::new([
            (self.read_proportion, Kind::Read),
            (self.update_proportion, Kind::Update),
            (self.insert_proportion, Kind::Insert),
            (self.scan_proportion, Kind::Scan),
            (self.read_modify_write_proportion, Kind::ReadModifyWrite),
        ])
    }

    /// Inserts the run is expected to make, doubled as CoreWorkload does, so the zipfian key
    /// space leaves room for them.
    pub(super) fn expected_new_keys(&self) -> u64 {
        let share = self.mix().map_or(0.0, |m| m.share(Kind::Insert));
        (self.operation_count as f64 * share * 2.0) as u64
    }

    fn key_space(&self) -> u64 {
        self.record_count
            .saturating_add(self.operation_count)
            .saturating_add(1)
    }

    /// The record layout the engines create.
    pub fn model(&self) -> KeyValueModel {
        KeyValueModel {
            table: self.table.clone(),
            field_count: self.field_count,
            field_length: self.field_length,
            key_prefix: "user".into(),
            hashed: self.insert_order == InsertOrder::Hashed,
            zero_padding: self.zero_padding,
        }
    }
}
