//! `pocketbench results list` and `pocketbench results show`.

use crate::error::Result;
use crate::export;
use crate::report::run_summary;
use crate::results::dataset::Dataset;
use crate::results::filter::Filter;
use crate::results::repeats::DEFAULT_LEVEL;
use crate::results::spool;
use crate::results::store::Store;
use clap::Subcommand;
use std::path::Path;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum ResultsCommand {
    /// One line per stored run.
    #[command(
        after_help = "Examples:\n  pocketbench results list\n  pocketbench results list --json"
    )]
    List {
        /// Results store (SQLite file).
        #[arg(long, default_value = "pocketbench.db")]
        results: PathBuf,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Bring the runs of spool files (kept when the store could not take a finished run) or of
    /// another store into this store, under new ids. Spool files are removed once imported.
    #[command(
        after_help = "Examples:\n  pocketbench results import pocketbench.db --results lab.db   merge one store's runs into another
  pocketbench results import lab.db      a spool file (pocketbench.db.spool-…) the same way"
    )]
    Import {
        /// Spool files or results stores to import.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The results store to import into.
        #[arg(long, default_value = "pocketbench.db")]
        results: PathBuf,
        /// Print what was imported as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The full summary of one run, or the run exported in a file format.
    #[command(
        after_help = "Examples:\n  pocketbench results show 3 --json\n  pocketbench results show 3 --format hgrm -o hist/   one .hgrm per operation kind\n  pocketbench results show 3 --format hlog -o run3.hlog"
    )]
    Show {
        /// Run id (see `pocketbench results list`).
        id: i64,
        /// Results store (SQLite file).
        #[arg(long, default_value = "pocketbench.db")]
        results: PathBuf,
        /// Print the summary as JSON (the same as --format json's run).
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Export the run instead of printing its summary.
        #[arg(long, value_enum)]
        format: Option<export::Format>,
        /// Write the export here (a file, or a directory when it is several files) instead of
        /// stdout.
        #[arg(long, short = 'o', requires = "format")]
        output: Option<PathBuf>,
    },
}

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
        ResultsCommand::Show {
            id,
            results,
            json,
            format,
            output,
        } => {
            let mut store = existing(results)?;
            let kind = store.kind(*id)?;
            if kind != "run" {
                return show_suite(&mut store, *id, &kind, *json, *format);
            }
            if let Some(f) = format {
                return export_run(&store, *id, *f, output.as_deref());
            }
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
            // (The store's checks name --results; here the file is a FILE argument.)
            for f in files {
                if !f.exists() {
                    return Err(crate::error::Error::input(format!(
                        "results import: {}: no such file",
                        f.display()
                    )));
                }
                Store::open_read(f).map_err(|e| {
                    let e = e.to_string();
                    let e = e.strip_prefix("--results ").unwrap_or(&e);
                    crate::error::Error::input(format!("results import: {e}"))
                })?;
            }
            let mut store = Store::open(results)?;
            let mut all = Vec::new();
            for f in files {
                let done = spool::import(&mut store, f)?;
                if !*json {
                    println!(
                        "imported {} result(s) from {} into {}{}",
                        done.runs.len(),
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

/// Print suite run `id` (text, or its stored JSON summary; other export formats need
/// per-operation samples, which suite runs do not have).
fn show_suite(
    store: &mut Store,
    id: i64,
    kind: &str,
    json: bool,
    format: Option<export::Format>,
) -> Result<i32> {
    match format {
        Some(export::Format::Json) => {}
        Some(f) => {
            let name = clap::ValueEnum::to_possible_value(&f)
                .map(|v| v.get_name().to_string())
                .unwrap_or_default();
            return Err(crate::error::Error::input(format!(
                "--format {name}: result {id} is a {kind} run, which exports as json only"
            )));
        }
        None if !json => {
            print!("{}", crate::bench_suites::render_stored(store, id, kind)?);
            return Ok(0);
        }
        None => {}
    }
    let (_, mut v) = crate::results::suites::load(store, kind, Some(id))?;
    crate::results::suites::with_identity(id, &mut v);
    super::print_json(&v)?;
    Ok(0)
}

/// Export run `id` of `store` in format `f`, to `output` or stdout.
fn export_run(store: &Store, id: i64, f: export::Format, output: Option<&Path>) -> Result<i32> {
    if let Some(o) = output {
        if !o.is_dir() && !o.as_os_str().to_string_lossy().ends_with('/') {
            crate::output::target::check(o, "-o")?;
        }
    }
    let filter = Filter::parse(&format!("run={id}"), "run id")?;
    let data = Dataset::load(store, &filter)?;
    let exporter = f.exporter();
    let mut parts = exporter.export(&export::Input {
        data: &data,
        store,
        level: DEFAULT_LEVEL,
    })?;
    // Into a directory, a one-file export is named after the run (`DIR/run-7.json`).
    for p in parts.iter_mut().filter(|p| p.stem.is_empty()) {
        p.stem = format!("run-{id}");
    }
    for file in export::write(&parts, exporter.extension(), output, "-o")? {
        eprintln!("wrote {}", file.display());
    }
    Ok(0)
}

/// Reading commands never create a store.
pub fn existing(path: &Path) -> Result<Store> {
    Store::open_read(path)
}
