//! [`YcsbParams`] to and from YCSB properties: each property's name, how its value is parsed
//! and checked, and the property map recorded with a result.

use super::choices::{choose, Distribution, InsertOrder, ScanLengthDistribution};
use super::params::{bad, YcsbParams};
use crate::error::Result;
use std::collections::BTreeMap;
use std::str::FromStr;

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
    named(
        origin,
        key,
        choose(&[("true", true), ("false", false)], value),
    )
}

/// A named choice as parsed, its error naming `origin` and the property.
fn named<T>(origin: &str, key: &str, parsed: std::result::Result<T, String>) -> Result<T> {
    parsed.map_err(|m| bad(origin, key, m))
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
                self.request_distribution = named(o, key, Distribution::parse(v))?;
            }
            "minscanlength" => self.min_scan_length = number(o, key, v, WHOLE)?,
            "maxscanlength" => self.max_scan_length = number(o, key, v, WHOLE)?,
            "scanlengthdistribution" => {
                self.scan_length_distribution = named(o, key, ScanLengthDistribution::parse(v))?;
            }
            "insertorder" => self.insert_order = named(o, key, InsertOrder::parse(v))?,
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
        put(
            "scanlengthdistribution",
            self.scan_length_distribution.name().into(),
        );
        put("insertorder", self.insert_order.name().into());
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
