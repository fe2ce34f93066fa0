//! TOML workload specs: the workloads users write themselves (format in
//! `docs/workload-spec.md`).
//!
//! A spec has a name, an optional description and delay recommendation, and exactly one of
//! two bodies: `[ycsb]`, YCSB core-workload properties handed to [`ycsb`], or `[sql]`, a schema,
//! a per-record load template and weighted statement templates. Templates are parsed once into
//! segments (`template::Template`) and rendered per operation with placeholders — `{key}`, `{new_key}`,
//! `{int:LO:HI}`, `{float:LO:HI}`, `{text:N}` — drawn from the seed's `load` and `run` streams,
//! so a spec and a seed always give the same statements.
//!
//! This module reads the file and builds the workload; `schema` is the file's shape, `sql`
//! checks a `[sql]` body, `template` parses and renders statement templates and `stream` draws
//! the run phase.

mod schema;
mod sql;
mod stream;
mod template;
#[cfg(test)]
mod tests;

pub use schema::toml_error;
pub use template::MAX_TEXT_LEN;

use crate::error::{Error, Result};
use crate::workload::delay::DelayModel;
use crate::workload::ycsb;
use crate::workload::{Overrides, Workload};
use schema::{field_error, SpecFile};
use sql::SqlSpec;
use std::collections::BTreeMap;
use std::path::Path;

/// Load a TOML workload spec, applying `--records`, `--ops` and (for `[sql]`) `--distribution`.
pub fn load(path: &Path, o: &Overrides, seed: u64) -> Result<Workload> {
    let file = path.display().to_string();
    let text = crate::limits::read_text(path, &file, crate::limits::MAX_WORKLOAD_FILE_BYTES)?;
    let spec: SpecFile = toml::from_str(&text).map_err(|e| toml_error(&file, &text, &e))?;
    let name = spec_name(spec.name.as_deref(), path, &file)?;
    let common = common_params(&spec, &file)?;
    let mut workload = match (spec.ycsb, spec.sql) {
        (Some(table), None) => ycsb_workload(&file, &name, &table, o, seed)?,
        (None, Some(sql)) => SqlSpec::compile(sql, &file, o)?.into_workload(name, seed),
        (Some(_), Some(_)) => {
            return Err(Error::input(format!(
                "{file}: has both [ycsb] and [sql]; a spec describes one workload"
            )))
        }
        (None, None) => {
            return Err(Error::input(format!(
                "{file}: needs a [ycsb] table (YCSB properties) or a [sql] table (schema and statements)"
            )))
        }
    };
    workload.info.source = "toml".into();
    workload.info.params.extend(common);
    Ok(workload)
}

/// The spec's `name`, or the file name without its extension.
fn spec_name(name: Option<&str>, path: &Path, file: &str) -> Result<String> {
    match name {
        Some(n) if n.trim().is_empty() => Err(field_error(file, "name", "must not be empty")),
        Some(n) => Ok(n.to_string()),
        None => Ok(path
            .file_stem()
            .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned())),
    }
}

/// Parameters either body records: the spec's path, its checked delay and its description.
fn common_params(spec: &SpecFile, file: &str) -> Result<BTreeMap<String, String>> {
    let mut params = BTreeMap::from([("spec".to_string(), file.to_string())]);
    if let Some(d) = &spec.delay {
        let model = DelayModel::parse_as(d, &format!("{file}: delay"))?;
        params.insert("delay".into(), model.to_string());
    }
    if let Some(d) = &spec.description {
        params.insert("description".into(), d.clone());
    }
    Ok(params)
}

/// A `[ycsb]` body: its values become YCSB property strings.
fn ycsb_workload(
    file: &str,
    name: &str,
    table: &toml::Table,
    o: &Overrides,
    seed: u64,
) -> Result<Workload> {
    let mut map = BTreeMap::new();
    for (key, value) in table {
        let text = match value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            _ => {
                return Err(field_error(
                    file,
                    &format!("ycsb.{key}"),
                    "expected a number, string or boolean",
                ))
            }
        };
        map.insert(key.clone(), text);
    }
    let mut params = ycsb::YcsbParams::from_map(&map, &format!("{file}: ycsb"))?;
    params.apply_overrides(o)?;
    Ok(ycsb::workload(name, "toml", params, seed))
}
