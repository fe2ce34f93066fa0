//! Markdown: the configurations' table (GitHub-flavoured), for issues and pull requests.

use super::table::{columns, rows, values};
use super::{Exporter, Input, Part};
use crate::error::Result;
use std::fmt::Write as _;

pub struct Markdown;

impl Exporter for Markdown {
    fn extension(&self) -> &'static str {
        "md"
    }

    fn export(&self, input: &Input<'_>) -> Result<Vec<Part>> {
        let level = input.level;
        let head = columns(level);
        let mut o = String::new();
        let _ = writeln!(o, "| {} |", head.join(" | "));
        let align: String = (0..head.len())
            .map(|i| if i == 0 { " --- |" } else { " ---: |" })
            .collect();
        let _ = writeln!(o, "|{align}");
        for r in &rows(input.data, level) {
            let v: Vec<String> = values(r).iter().map(|s| s.replace('|', "\\|")).collect();
            let _ = writeln!(o, "| {} |", v.join(" | "));
        }
        let _ = writeln!(
            o,
            "\nMean over repeats ± half-width of the {:.0}% Student-t confidence interval; CV = sd / mean; pooled = all operations of all repeats.",
            level * 100.0
        );
        Ok(vec![Part {
            stem: String::new(),
            bytes: o.into_bytes(),
        }])
    }
}
