//! `pocketbench engines`: every engine with its version and options.

use crate::engine::options::OptionKind;
use crate::engine::REGISTRY;
use crate::error::Result;
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct EnginesArgs {
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct EngineListing {
    name: &'static str,
    version: String,
    summary: &'static str,
    sql: bool,
    options: Vec<OptionListing>,
}

#[derive(Serialize)]
struct OptionListing {
    name: &'static str,
    default: &'static str,
    values: String,
    help: &'static str,
}

pub fn main(args: &EnginesArgs) -> Result<i32> {
    let list: Vec<EngineListing> = REGISTRY
        .iter()
        .map(|d| EngineListing {
            name: d.name,
            version: (d.version)(),
            summary: d.summary,
            sql: d.supports_sql,
            options: d
                .options
                .iter()
                .map(|o| OptionListing {
                    name: o.name,
                    default: o.default,
                    values: match o.kind {
                        OptionKind::OneOf(words) => words.join("|"),
                        OptionKind::Integer { min, max } => format!("integer {min}..{max}"),
                        OptionKind::PowerOfTwo { min, max } => format!("power of two {min}..{max}"),
                        OptionKind::Bytes { min, max } => format!("bytes {min}..{max}"),
                    },
                    help: o.help,
                })
                .collect(),
        })
        .collect();
    if args.json {
        return super::print_json(&list).map(|_| 0);
    }
    for e in &list {
        println!(
            "{} {} — {}{}",
            e.name,
            e.version,
            e.summary,
            if e.sql {
                " (SQL and key-value)"
            } else {
                " (key-value)"
            }
        );
        for o in &e.options {
            let default = if o.default.is_empty() {
                "unset"
            } else {
                o.default
            };
            println!(
                "  -o {}=<{}>  default {default}: {}",
                o.name, o.values, o.help
            );
        }
    }
    Ok(0)
}
