//! The shape of a spec file as serde reads it (unknown fields are errors), and the one-line
//! errors that name the file, and the line and column or the field at fault.

use crate::error::Error;
use crate::workload::ycsb::{DEFAULT_OPS, DEFAULT_RECORDS};
use serde::Deserialize;

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SpecFile {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    pub(super) delay: Option<String>,
    pub(super) ycsb: Option<toml::Table>,
    pub(super) sql: Option<SqlSection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SqlSection {
    #[serde(default = "default_records")]
    pub(super) records: u64,
    #[serde(default = "default_operations")]
    pub(super) operations: u64,
    #[serde(default)]
    pub(super) schema: Vec<String>,
    pub(super) load: Option<OneOrMany>,
    pub(super) distribution: Option<String>,
    #[serde(default)]
    pub(super) statement: Vec<StatementSection>,
}

fn default_records() -> u64 {
    DEFAULT_RECORDS
}

fn default_operations() -> u64 {
    DEFAULT_OPS
}

/// `load = "…"` or `load = ["…", "…"]`.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a string or a list of strings")]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(super) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StatementSection {
    #[serde(default = "default_weight")]
    pub(super) weight: f64,
    pub(super) sql: String,
}

fn default_weight() -> f64 {
    1.0
}

/// A TOML error as one line: `file:line:column: message`.
pub(super) fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> Error {
    let message = e.message().replace('\n', "; ");
    match e.span() {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            Error::input(format!("{file}:{line}:{column}: {message}"))
        }
        None => Error::input(format!("{file}: {message}")),
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

pub(super) fn field_error(file: &str, field: &str, why: &str) -> Error {
    Error::input(format!("{file}: {field}: {why}"))
}
