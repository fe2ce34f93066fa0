//! YCSB key-value workloads with CoreWorkload's semantics: the six core workloads
//! (`ycsb-a` … `ycsb-f`) and any YCSB `.properties` workload file.
//!
//! Parameters use YCSB's property names and defaults, except the record and operation counts,
//! which default to PocketData's 500 and 1 800. Key choice follows CoreWorkload: `zipfian` is
//! a scrambled zipfian over the loaded keys plus room for the expected inserts, redrawn until
//! it names a key that exists; `latest` favours the most recent insert; `uniform`, `hotspot`
//! and `sequential` cover the loaded range. There is one client, so every insert is
//! acknowledged as soon as it is issued. Operations stream lazily from seeded generators.

use crate::error::{Error, Result, ResultExt};
use crate::workload::generators::{Counter, Discrete, Hotspot, ScrambledZipfian};
use crate::workload::generators::{SkewedLatest, Uniform, Zipfian};
use crate::workload::model::{DataModel, KeyValueModel};
use crate::workload::op::{Op, TimedOp};
use crate::workload::resolve::{self as flag, reject_overrides};
use crate::workload::rng::Rng;
use crate::workload::{Overrides, Workload, WorkloadInfo};
use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

/// How the run phase picks the key of each operation (YCSB `requestdistribution`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    Uniform,
    Zipfian,
    Latest,
    Hotspot,
    Sequential,
}

impl Distribution {
    const CHOICES: [(&'static str, Distribution); 5] = [
        ("uniform", Distribution::Uniform),
        ("zipfian", Distribution::Zipfian),
        ("latest", Distribution::Latest),
        ("hotspot", Distribution::Hotspot),
        ("sequential", Distribution::Sequential),
    ];

    pub fn name(self) -> &'static str {
        name_of(&Self::CHOICES, self)
    }

    /// Parse a distribution name (case-insensitive); the error lists the valid names.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        choose(&Self::CHOICES, text)
    }
}

/// How scan lengths are drawn (YCSB `scanlengthdistribution`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanLengthDistribution {
    Uniform,
    Zipfian,
}

impl ScanLengthDistribution {
    const CHOICES: [(&'static str, ScanLengthDistribution); 2] = [
        ("uniform", ScanLengthDistribution::Uniform),
        ("zipfian", ScanLengthDistribution::Zipfian),
    ];
}

/// Whether key text is the hashed or the plain key number (YCSB `insertorder`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertOrder {
    Hashed,
    Ordered,
}

impl InsertOrder {
    const CHOICES: [(&'static str, InsertOrder); 2] = [
        ("hashed", InsertOrder::Hashed),
        ("ordered", InsertOrder::Ordered),
    ];
}

fn name_of<T: PartialEq + Copy>(choices: &[(&'static str, T)], value: T) -> &'static str {
    choices
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("?", |(n, _)| n)
}

fn choose<T: Copy>(choices: &[(&'static str, T)], text: &str) -> std::result::Result<T, String> {
    let text = text.trim();
    choices
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(text))
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            format!("expected one of {}, got \"{text}\"", names.join(", "))
        })
}

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

fn bad(origin: &str, key: &str, msg: impl std::fmt::Display) -> Error {
    Error::input(format!("{origin}: {key}: {msg}"))
}

fn number<T: FromStr>(origin: &str, key: &str, value: &str, what: &str) -> Result<T> {
    let v = value.trim();
    v.parse()
        .map_err(|_| bad(origin, key, format!("expected {what}, got \"{v}\"")))
}

fn proportion(origin: &str, key: &str, value: &str) -> Result<f64> {
    let p: f64 = number(origin, key, value, "a number")?;
    if !p.is_finite() || p < 0.0 {
        return Err(bad(origin, key, format!("must be 0 or more, got {p}")));
    }
    Ok(p)
}

fn fraction(origin: &str, key: &str, value: &str) -> Result<f64> {
    let p = proportion(origin, key, value)?;
    if p > 1.0 {
        return Err(bad(
            origin,
            key,
            format!("must be between 0 and 1, got {p}"),
        ));
    }
    Ok(p)
}

fn boolean(origin: &str, key: &str, value: &str) -> Result<bool> {
    choose(&[("true", true), ("false", false)], value).map_err(|m| bad(origin, key, m))
}

fn one_of<T: Copy>(
    origin: &str,
    key: &str,
    value: &str,
    choices: &[(&'static str, T)],
) -> Result<T> {
    choose(choices, value).map_err(|m| bad(origin, key, m))
}

const WHOLE: &str = "a whole number";

impl YcsbParams {
    /// Parameters from YCSB properties; absent keys keep their defaults. `origin` (the file)
    /// prefixes error messages.
    pub fn from_map(map: &BTreeMap<String, String>, origin: &str) -> Result<Self> {
        let mut p = YcsbParams::default();
        for (key, value) in map {
            p.set(key, value, origin)?;
        }
        p.validate(origin)?;
        Ok(p)
    }

    /// Set one property by its YCSB name; unknown names are kept in `extra`.
    fn set(&mut self, key: &str, v: &str, origin: &str) -> Result<()> {
        let o = origin;
        match key {
            "table" => self.table = v.trim().to_string(),
            "recordcount" => self.record_count = number(o, key, v, WHOLE)?,
            "operationcount" => self.operation_count = number(o, key, v, WHOLE)?,
            "fieldcount" => self.field_count = number(o, key, v, "a whole number up to 65535")?,
            "fieldlength" => self.field_length = number(o, key, v, WHOLE)?,
            "readproportion" => self.read_proportion = proportion(o, key, v)?,
            "updateproportion" => self.update_proportion = proportion(o, key, v)?,
            "insertproportion" => self.insert_proportion = proportion(o, key, v)?,
            "scanproportion" => self.scan_proportion = proportion(o, key, v)?,
            "readmodifywriteproportion" => {
                self.read_modify_write_proportion = proportion(o, key, v)?;
            }
            "requestdistribution" => {
                self.request_distribution = one_of(o, key, v, &Distribution::CHOICES)?;
            }
            "minscanlength" => self.min_scan_length = number(o, key, v, WHOLE)?,
            "maxscanlength" => self.max_scan_length = number(o, key, v, WHOLE)?,
            "scanlengthdistribution" => {
                self.scan_length_distribution =
                    one_of(o, key, v, &ScanLengthDistribution::CHOICES)?;
            }
            "insertorder" => self.insert_order = one_of(o, key, v, &InsertOrder::CHOICES)?,
            "zeropadding" => self.zero_padding = number(o, key, v, "a whole number up to 255")?,
            "readallfields" => self.read_all_fields = boolean(o, key, v)?,
            "writeallfields" => self.write_all_fields = boolean(o, key, v)?,
            "hotspotdatafraction" => self.hotspot_data_fraction = fraction(o, key, v)?,
            "hotspotopnfraction" => self.hotspot_op_fraction = fraction(o, key, v)?,
            "insertstart" => self.insert_start = number(o, key, v, WHOLE)?,
            _ => {
                self.extra.insert(key.to_string(), v.to_string());
            }
        }
        Ok(())
    }

    /// Check the combination of parameters; errors name `origin` and the property.
    pub fn validate(&self, origin: &str) -> Result<()> {
        if self.record_count == 0 {
            return Err(bad(origin, "recordcount", "must be at least 1"));
        }
        if self.field_count == 0 {
            return Err(bad(origin, "fieldcount", "must be at least 1"));
        }
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
        if let Some(n) = o.records {
            if n == 0 {
                return Err(Error::input(format!(
                    "{}: must be at least 1",
                    flag::RECORDS
                )));
            }
            self.record_count = n;
        }
        if let Some(n) = o.field_count {
            if n == 0 {
                return Err(Error::input(format!(
                    "{}: must be at least 1",
                    flag::FIELD_COUNT
                )));
            }
            self.field_count = n;
        }
        if let Some(d) = &o.distribution {
            self.request_distribution = Distribution::parse(d)
                .map_err(|m| Error::input(format!("{}: {m}", flag::DISTRIBUTION)))?;
        }
        self.operation_count = o.ops.unwrap_or(self.operation_count);
        self.field_length = o.field_length.unwrap_or(self.field_length);
        Ok(())
    }

    /// The operation mix, `None` when every proportion is zero.
    fn mix(&self) -> Option<Discrete<Kind>> {
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
    fn expected_new_keys(&self) -> u64 {
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

    /// Every parameter in effect, by YCSB property name (plus the kept extra properties).
    pub fn to_map(&self) -> BTreeMap<String, String> {
        let mut m = self.extra.clone();
        let mut put = |k: &str, v: String| {
            m.insert(k.to_string(), v);
        };
        put("table", self.table.clone());
        put("recordcount", self.record_count.to_string());
        put("operationcount", self.operation_count.to_string());
        put("fieldcount", self.field_count.to_string());
        put("fieldlength", self.field_length.to_string());
        put("readproportion", self.read_proportion.to_string());
        put("updateproportion", self.update_proportion.to_string());
        put("insertproportion", self.insert_proportion.to_string());
        put("scanproportion", self.scan_proportion.to_string());
        put(
            "readmodifywriteproportion",
            self.read_modify_write_proportion.to_string(),
        );
        put(
            "requestdistribution",
            self.request_distribution.name().into(),
        );
        put("minscanlength", self.min_scan_length.to_string());
        put("maxscanlength", self.max_scan_length.to_string());
        let scan = name_of(
            &ScanLengthDistribution::CHOICES,
            self.scan_length_distribution,
        );
        put("scanlengthdistribution", scan.into());
        put(
            "insertorder",
            name_of(&InsertOrder::CHOICES, self.insert_order).into(),
        );
        put("zeropadding", self.zero_padding.to_string());
        put("readallfields", self.read_all_fields.to_string());
        put("writeallfields", self.write_all_fields.to_string());
        put(
            "hotspotdatafraction",
            self.hotspot_data_fraction.to_string(),
        );
        put("hotspotopnfraction", self.hotspot_op_fraction.to_string());
        put("insertstart", self.insert_start.to_string());
        m
    }
}

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
    let text = std::fs::read_to_string(path).input_err(&origin)?;
    let map = crate::workload::properties::parse(&text, &origin)?;
    let mut params = YcsbParams::from_map(&map, &origin)?;
    params.apply_overrides(o)?;
    let name = path
        .file_name()
        .map_or_else(|| origin.clone(), |n| n.to_string_lossy().into_owned());
    Ok(workload(&name, "properties", params, seed))
}

/// The five CoreWorkload operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

/// The loaded key range, the inserts made since, and the request distribution over them.
///
/// Keys run from `first`; `first + existing` is the next key to insert. Shared with the
/// PocketData SQL workloads, which choose keys the same way.
#[derive(Clone, Debug)]
pub(crate) struct KeySpace {
    first: u64,
    existing: u64,
    chooser: Chooser,
}

#[derive(Clone, Debug)]
enum Chooser {
    Uniform(Uniform),
    Sequential(Counter),
    Zipfian(ScrambledZipfian),
    /// Zipfian over offsets from `first`.
    Latest(SkewedLatest),
    Hotspot(Hotspot),
}

impl KeySpace {
    /// `records` loaded keys from `first`; `expected_new` sizes the zipfian key space;
    /// `hotspot` is (data fraction, operation fraction).
    pub(crate) fn new(
        dist: Distribution,
        first: u64,
        records: u64,
        expected_new: u64,
        hotspot: (f64, f64),
    ) -> Self {
        let last = first + records.max(1) - 1;
        let chooser = match dist {
            Distribution::Uniform => Chooser::Uniform(Uniform::new(first, last)),
            Distribution::Sequential => Chooser::Sequential(Counter::new(first, last)),
            Distribution::Zipfian => {
                Chooser::Zipfian(ScrambledZipfian::new(first, last + 1 + expected_new))
            }
            Distribution::Latest => Chooser::Latest(SkewedLatest::new(last - first)),
            Distribution::Hotspot => {
                Chooser::Hotspot(Hotspot::new(first, last, hotspot.0, hotspot.1))
            }
        };
        KeySpace {
            first,
            existing: records,
            chooser,
        }
    }

    /// The first key and one past the last existing key.
    pub(crate) fn range(&self) -> (u64, u64) {
        (self.first, self.first + self.existing)
    }

    /// The key of the next read, update or scan.
    #[inline]
    pub(crate) fn choose(&mut self, rng: &mut Rng) -> u64 {
        let end = self.first + self.existing;
        match &mut self.chooser {
            Chooser::Uniform(g) => g.next(rng),
            Chooser::Sequential(g) => g.next(rng),
            Chooser::Hotspot(g) => g.next(rng),
            Chooser::Latest(g) => self.first + g.next(rng),
            Chooser::Zipfian(g) => loop {
                let key = g.next(rng);
                if key < end || self.existing == 0 {
                    return key;
                }
            },
        }
    }

    /// The key of the next insert, which exists (is acknowledged) from now on.
    #[inline]
    pub(crate) fn insert(&mut self) -> u64 {
        let key = self.first + self.existing;
        self.existing += 1;
        if let Chooser::Latest(g) = &mut self.chooser {
            g.set_latest(key - self.first);
        }
        key
    }
}

/// Scan lengths, uniform or zipfian over `minscanlength..=maxscanlength`.
enum ScanLengths {
    Uniform(Uniform),
    Zipfian(Zipfian),
}

impl ScanLengths {
    fn new(p: &YcsbParams) -> Self {
        let lo = u64::from(p.min_scan_length.max(1));
        let hi = u64::from(p.max_scan_length).max(lo);
        match p.scan_length_distribution {
            ScanLengthDistribution::Uniform => ScanLengths::Uniform(Uniform::new(lo, hi)),
            ScanLengthDistribution::Zipfian => ScanLengths::Zipfian(Zipfian::new(lo, hi)),
        }
    }

    #[inline]
    fn next(&mut self, rng: &mut Rng) -> u32 {
        let n = match self {
            ScanLengths::Uniform(g) => g.next(rng),
            ScanLengths::Zipfian(g) => g.next(rng),
        };
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

/// The run phase: a lazy stream of `operation_count` operations.
struct YcsbRun {
    rng: Rng,
    remaining: u64,
    mix: Discrete<Kind>,
    keys: KeySpace,
    scan_lengths: ScanLengths,
    /// The field an update writes; `None` writes every field.
    fields: Option<Uniform>,
}

impl YcsbRun {
    fn new(p: &YcsbParams, rng: Rng) -> Self {
        let read_only = || Discrete::new([(1.0, Kind::Read)]);
        let mix = p.mix().or_else(read_only).expect("a positive weight");
        let keys = KeySpace::new(
            p.request_distribution,
            p.insert_start,
            p.record_count,
            p.expected_new_keys(),
            (p.hotspot_data_fraction, p.hotspot_op_fraction),
        );
        let one_field = !p.write_all_fields && p.field_count > 0;
        YcsbRun {
            rng,
            remaining: p.operation_count,
            mix,
            keys,
            scan_lengths: ScanLengths::new(p),
            fields: one_field.then(|| Uniform::new(0, u64::from(p.field_count) - 1)),
        }
    }

    #[inline]
    fn field(&mut self) -> Option<u16> {
        // The chooser's range is 0..field_count, which fits in u16.
        self.fields.as_ref().map(|f| f.next(&mut self.rng) as u16)
    }

    fn op(&mut self, kind: Kind) -> Op {
        match kind {
            Kind::Read => Op::Read {
                key: self.keys.choose(&mut self.rng),
            },
            Kind::Scan => Op::Scan {
                key: self.keys.choose(&mut self.rng),
                len: self.scan_lengths.next(&mut self.rng),
            },
            Kind::Insert => Op::Insert {
                key: self.keys.insert(),
                seed: self.rng.next_u64(),
            },
            Kind::Update => Op::Update {
                key: self.keys.choose(&mut self.rng),
                field: self.field(),
                seed: self.rng.next_u64(),
            },
            Kind::ReadModifyWrite => Op::ReadModifyWrite {
                key: self.keys.choose(&mut self.rng),
                field: self.field(),
                seed: self.rng.next_u64(),
            },
        }
    }
}

impl Iterator for YcsbRun {
    type Item = TimedOp;

    #[inline]
    fn next(&mut self) -> Option<TimedOp> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let kind = self.mix.next(&mut self.rng);
        Some(TimedOp {
            op: self.op(kind),
            delay_ns: 0,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::op::OpKind;
    use std::collections::HashMap;

    fn with_ops(ops: u64) -> Overrides {
        Overrides {
            ops: Some(ops),
            ..Overrides::default()
        }
    }

    fn run_ops(name: &str, o: &Overrides, seed: u64) -> Vec<Op> {
        let w = builtin(name, o, seed).expect("valid").expect("known");
        w.run.map(|t| t.op).collect()
    }

    fn shares(ops: &[Op]) -> HashMap<OpKind, f64> {
        let mut m = HashMap::new();
        for op in ops {
            *m.entry(op.kind()).or_insert(0.0) += 1.0 / ops.len() as f64;
        }
        m
    }

    #[test]
    fn builtin_mixes_match_the_core_workloads() {
        use OpKind::*;
        let expected: [(&str, &[(OpKind, f64)]); 6] = [
            ("ycsb-a", &[(Read, 0.5), (Update, 0.5)]),
            ("ycsb-b", &[(Read, 0.95), (Update, 0.05)]),
            ("ycsb-c", &[(Read, 1.0)]),
            ("ycsb-d", &[(Read, 0.95), (Insert, 0.05)]),
            ("ycsb-e", &[(Scan, 0.95), (Insert, 0.05)]),
            ("ycsb-f", &[(Read, 0.5), (ReadModifyWrite, 0.5)]),
        ];
        for (name, mix) in expected {
            let got = shares(&run_ops(name, &with_ops(20_000), 1));
            for kind in OpKind::ALL {
                let want = mix.iter().find(|(k, _)| *k == kind).map_or(0.0, |m| m.1);
                let have = got.get(&kind).copied().unwrap_or(0.0);
                assert!(
                    (have - want).abs() <= 0.02,
                    "{name} {kind:?}: {have} vs {want}"
                );
            }
        }
    }

    /// Replays a run against the set of existing keys and checks every non-insert targets one.
    fn assert_targets_exist(name: &str, ops: &[Op], records: u64) {
        let mut end = records;
        for op in ops {
            match op {
                Op::Insert { key, .. } => {
                    assert_eq!(*key, end, "{name}: inserts are sequential");
                    end += 1;
                }
                other => assert!(other.key() < end, "{name}: {other:?} beyond {end}"),
            }
        }
    }

    #[test]
    fn every_operation_targets_an_existing_key() {
        for letter in "abcdef".chars() {
            let name = format!("ycsb-{letter}");
            assert_targets_exist(&name, &run_ops(&name, &with_ops(20_000), 3), 500);
        }
        for dist in ["uniform", "zipfian", "latest", "hotspot", "sequential"] {
            let o = Overrides {
                distribution: Some(dist.into()),
                records: Some(50),
                ..with_ops(5_000)
            };
            assert_targets_exist(dist, &run_ops("ycsb-d", &o, 4), 50);
        }
    }

    #[test]
    fn latest_reads_favour_recent_inserts() {
        let ops = run_ops("ycsb-d", &with_ops(20_000), 5);
        let (mut end, mut recent, mut reads) = (500u64, 0u32, 0u32);
        for op in &ops {
            match op {
                Op::Insert { .. } => end += 1,
                Op::Read { key } => {
                    reads += 1;
                    recent += u32::from(*key >= end - 50);
                }
                _ => {}
            }
        }
        assert!(end > 1400, "inserts happened: {end}");
        assert!(
            f64::from(recent) / f64::from(reads) > 0.5,
            "{recent}/{reads}"
        );
    }

    #[test]
    fn workload_e_scan_lengths_are_uniform_1_to_100() {
        let ops = run_ops("ycsb-e", &with_ops(20_000), 6);
        let lens: Vec<u32> = ops
            .iter()
            .filter_map(|op| match op {
                Op::Scan { len, .. } => Some(*len),
                _ => None,
            })
            .collect();
        assert!(lens.iter().all(|l| (1..=100).contains(l)));
        let mut deciles = [0u32; 10];
        for l in &lens {
            deciles[((l - 1) / 10) as usize] += 1;
        }
        let n = lens.len() as f64;
        assert!(
            deciles
                .iter()
                .all(|&d| (f64::from(d) / n - 0.1).abs() < 0.015),
            "{deciles:?}"
        );
    }

    #[test]
    fn same_seed_same_ops_other_seed_other_ops() {
        for name in ["ycsb-a", "ycsb-e"] {
            let a = run_ops(name, &with_ops(2000), 9);
            assert_eq!(a, run_ops(name, &with_ops(2000), 9));
            assert_ne!(a, run_ops(name, &with_ops(2000), 10));
        }
        let load = |seed| -> Vec<Op> {
            let w = builtin("ycsb-a", &Overrides::default(), seed)
                .expect("ok")
                .expect("known");
            w.load.collect()
        };
        assert_eq!(load(1), load(1));
        assert_ne!(load(1), load(2));
    }

    #[test]
    fn load_inserts_every_record_and_info_describes_it() {
        let o = Overrides {
            records: Some(20),
            field_count: Some(3),
            ..Overrides::default()
        };
        let w = builtin("ycsb-c", &o, 1).expect("ok").expect("known");
        assert_eq!(w.info.load_ops, 20);
        assert_eq!(w.info.run_ops, 1800);
        assert_eq!(w.info.params["recordcount"], "20");
        assert_eq!(w.info.params["requestdistribution"], "zipfian");
        assert!(!w.info.recorded_delays);
        let DataModel::KeyValue(m) = &w.info.model else {
            panic!("key-value model expected");
        };
        assert_eq!(m.field_count, 3);
        let keys: Vec<u64> = w.load.map(|op| op.key()).collect();
        assert_eq!(keys, (0..20).collect::<Vec<_>>());
        assert_eq!(w.run.count(), 1800);
    }

    #[test]
    fn updates_write_one_field_unless_write_all_fields() {
        let ops = run_ops("ycsb-a", &Overrides::default(), 1);
        assert!(ops
            .iter()
            .any(|op| matches!(op, Op::Update { field: Some(f), .. } if *f < 10)));
        let p = YcsbParams {
            write_all_fields: true,
            ..builtin_params('a').expect("a")
        };
        let mut w = workload("t", "test", p, 1);
        assert!(w
            .run
            .all(|t| !matches!(t.op, Op::Update { field: Some(_), .. })));
    }

    const WORKLOADA: &str = "# Copyright (c) 2010 Yahoo! Inc. All rights reserved.\n\
        #\n\n\n# Yahoo! Cloud System Benchmark\n# Workload A: Update heavy workload\n\
        #   Application example: Session store recording recent actions\n#                        \n\
        #   Read/update ratio: 50/50\n\
        #   Default data size: 1 KB records (10 fields, 100 bytes each, plus key)\n\
        #   Request distribution: zipfian\n\n\
        recordcount=1000\noperationcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\n\n\
        readallfields=true\n\nreadproportion=0.5\nupdateproportion=0.5\nscanproportion=0\n\
        insertproportion=0\n\nrequestdistribution=zipfian\n";

    #[test]
    fn real_workloada_file_gives_fifty_fifty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("workloada");
        std::fs::write(&path, WORKLOADA).expect("write");
        let w = from_properties_file(&path, &with_ops(20_000), 2).expect("parses");
        assert_eq!(w.info.name, "workloada");
        assert_eq!(w.info.source, "properties");
        assert_eq!(w.info.load_ops, 1000);
        assert_eq!(
            w.info.params["workload"],
            "site.ycsb.workloads.CoreWorkload"
        );
        let ops: Vec<Op> = w.run.map(|t| t.op).collect();
        let s = shares(&ops);
        assert!((s[&OpKind::Read] - 0.5).abs() < 0.02 && (s[&OpKind::Update] - 0.5).abs() < 0.02);
    }

    fn from_text(text: &str) -> Result<YcsbParams> {
        let map = crate::workload::properties::parse(text, "w.properties")?;
        YcsbParams::from_map(&map, "w.properties")
    }

    #[test]
    fn defaults_are_ycsb_with_pocketdata_counts() {
        let p = from_text("db=site.ycsb.BasicDB\nunknown.key=x\n").expect("valid");
        assert_eq!((p.record_count, p.operation_count), (500, 1800));
        assert_eq!((p.read_proportion, p.update_proportion), (0.95, 0.05));
        assert_eq!(p.request_distribution, Distribution::Uniform);
        assert_eq!(p.max_scan_length, 1000);
        assert_eq!(p.extra["unknown.key"], "x");
        assert_eq!(p.to_map()["db"], "site.ycsb.BasicDB");
    }

    #[test]
    fn bad_values_name_file_and_property() {
        let cases = [
            (
                "readproportion=abc",
                "w.properties: readproportion: expected a number, got \"abc\"",
            ),
            (
                "updateproportion=-0.1",
                "w.properties: updateproportion: must be 0 or more, got -0.1",
            ),
            (
                "recordcount=ten",
                "w.properties: recordcount: expected a whole number, got \"ten\"",
            ),
            (
                "fieldcount=0",
                "w.properties: fieldcount: must be at least 1",
            ),
            (
                "readallfields=yes",
                "w.properties: readallfields: expected one of true, false, got \"yes\"",
            ),
            (
                "hotspotopnfraction=1.5",
                "w.properties: hotspotopnfraction: must be between 0 and 1, got 1.5",
            ),
        ];
        for (text, msg) in cases {
            let err = from_text(text).expect_err(text);
            assert_eq!(err.to_string(), msg);
            assert_eq!(err.exit_code(), 2);
        }
        let err = from_text("requestdistribution=exponential").expect_err("unknown");
        assert!(
            err.to_string()
                .starts_with("w.properties: requestdistribution: expected one of uniform, zipfian"),
            "{err}"
        );
        let err = from_text("readproportion=0\nupdateproportion=0").expect_err("all zero");
        assert!(err.to_string().contains("all zero"), "{err}");
        let err = from_text("minscanlength=10\nmaxscanlength=5").expect_err("min > max");
        assert!(
            err.to_string().starts_with("w.properties: minscanlength: "),
            "{err}"
        );
    }

    #[test]
    fn overrides_apply_and_sql_only_flags_are_refused() {
        let o = Overrides {
            records: Some(7),
            ops: Some(9),
            field_count: Some(2),
            field_length: Some(5),
            distribution: Some("Uniform".into()),
            ..Overrides::default()
        };
        let mut p = builtin_params('a').expect("a");
        p.apply_overrides(&o).expect("valid");
        assert_eq!(
            (
                p.record_count,
                p.operation_count,
                p.field_count,
                p.field_length
            ),
            (7, 9, 2, 5)
        );
        assert_eq!(p.request_distribution, Distribution::Uniform);
        let refused = [
            (
                Overrides {
                    miss_ratio: Some(0.1),
                    ..Overrides::default()
                },
                "--miss-ratio",
            ),
            (
                Overrides {
                    indexes: vec!["key".into()],
                    ..Overrides::default()
                },
                "--index",
            ),
            (
                Overrides {
                    distribution: Some("pareto".into()),
                    ..Overrides::default()
                },
                "--distribution",
            ),
            (
                Overrides {
                    records: Some(0),
                    ..Overrides::default()
                },
                "--records",
            ),
        ];
        for (o, flag) in refused {
            let err = builtin("ycsb-a", &o, 1).err().expect("refused");
            assert!(err.to_string().starts_with(flag), "{err}");
            assert_eq!(err.exit_code(), 2);
        }
    }

    #[test]
    fn unknown_names_and_unreadable_files() {
        assert!(builtin("ycsb-g", &Overrides::default(), 1)
            .expect("ok")
            .is_none());
        assert!(builtin("ycsb-ab", &Overrides::default(), 1)
            .expect("ok")
            .is_none());
        assert!(builtin("pocketdata-a", &Overrides::default(), 1)
            .expect("ok")
            .is_none());
        let err = from_properties_file(
            Path::new("/nonexistent/wl.properties"),
            &Overrides::default(),
            1,
        )
        .err()
        .expect("unreadable");
        assert!(
            err.to_string().starts_with("/nonexistent/wl.properties: "),
            "{err}"
        );
        assert_eq!(err.exit_code(), 2);
    }

    /// `cargo test --release --lib ycsb::tests::generation_rate -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn generation_rate() {
        let n = 10_000_000;
        for (name, records) in [
            ("ycsb-a", 500),
            ("ycsb-d", 500),
            ("ycsb-e", 500),
            ("ycsb-e", n),
        ] {
            let o = Overrides {
                records: Some(records),
                ..with_ops(n)
            };
            let t = std::time::Instant::now();
            let w = builtin(name, &o, 1).expect("ok").expect("known");
            let count = w.run.count();
            let rate = count as f64 / t.elapsed().as_secs_f64();
            println!(
                "{name} ({records} records): {count} ops, {:.1} M ops/s",
                rate / 1e6
            );
        }
    }
}
