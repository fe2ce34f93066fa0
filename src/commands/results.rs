//! `pocketbench results list` and `pocketbench results show`.

use crate::cli::ResultsCommand;
use crate::error::Result;
use crate::report::run_summary;
use crate::results::spool;
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
        ResultsCommand::Import {
            files,
            results,
            json,
        } => {
            // Every file must be readable before anything is imported.
            for f in files {
                Store::open_read(f)
                    .map_err(|e| crate::error::Error::input(format!("results import: {e}")))?;
            }
            let mut store = Store::open(results)?;
            let mut all = Vec::new();
            for f in files {
                let done = spool::import(&mut store, f)?;
                if !*json {
                    println!(
                        "imported {} run(s) and {} suite run(s) from {} into {}{}",
                        done.runs.len(),
                        done.suite_runs.len(),
                        f.display(),
                        results.display(),
                        if done.removed {
                            " (spool file removed)"
                        } else {
                            ""
                        }
                    );
                }
                all.push(done);
            }
            if *json {
                super::print_json(&all)?;
            }
        }
    }
    Ok(0)
}

/// Reading commands never create a store.
pub fn existing(path: &Path) -> Result<Store> {
    Store::open_read(path)
}
