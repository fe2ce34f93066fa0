//! `pocketbench results list` and `pocketbench results show`.

use crate::cli::ResultsCommand;
use crate::error::{Error, Result};
use crate::report::run_summary;
use crate::results::store::Store;
use std::path::Path;

pub fn main(cmd: &ResultsCommand) -> Result<i32> {
    match cmd {
        ResultsCommand::List { results, json } => {
            let store = existing(results)?;
            let rows = store.list()?;
            if *json {
                super::print_json(&rows)?;
            } else {
                print!("{}", run_summary::render_list(&rows));
            }
        }
        ResultsCommand::Show { id, results, json } => {
            let store = existing(results)?;
            let summary = store.summary(*id)?;
            if *json {
                super::print_json(&summary)?;
            } else {
                print!("{}", run_summary::render(&summary, None));
                println!("samples    {} stored", store.sample_count(*id)?);
            }
        }
    }
    Ok(0)
}

/// Reading commands never create a store.
pub fn existing(path: &Path) -> Result<Store> {
    if !path.is_file() {
        return Err(Error::input(format!(
            "--results {}: no results store there",
            path.display()
        )));
    }
    Store::open(path)
}
