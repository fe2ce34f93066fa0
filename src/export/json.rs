//! JSON: every run's stored summary and every configuration's row of statistics.

use super::table;
use super::{Exporter, Input, Part};
use crate::error::{Error, Result};

pub struct Json;

impl Exporter for Json {
    fn extension(&self) -> &'static str {
        "json"
    }

    fn export(&self, input: &Input<'_>) -> Result<Vec<Part>> {
        let doc = serde_json::json!({
            "confidence": input.level,
            "runs": input.data.runs.iter().map(|r| &r.raw).collect::<Vec<_>>(),
            "configurations": table::rows(input.data, input.level),
        });
        let mut bytes = serde_json::to_vec_pretty(&doc)
            .map_err(|e| Error::failed(format!("JSON export: {e}")))?;
        bytes.push(b'\n');
        Ok(vec![Part {
            stem: String::new(),
            bytes,
        }])
    }
}
