//! `pocketbench matrix`: run (or resume) a study plan and print its cells' statistics.

use crate::durability::{self, DurabilityRun};
use crate::error::{Error, Result};
use crate::export::table;
use crate::models::{self, ModelsRun};
use crate::output::progress;
use crate::results::dataset::Dataset;
use crate::results::filter::Filter;
use crate::results::store::Store;
use crate::results::suites;
use crate::study::plan::Plan;
use crate::study::runner::{self, MatrixOptions};
use crate::study::{builtin, cells, flags::Suite, ledger};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MatrixArgs {
    /// Plan file (TOML).
    #[arg(required_unless_present = "plan", conflicts_with = "plan")]
    pub file: Option<PathBuf>,
    /// Built-in plan instead of a file.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(builtin::NAMES))]
    pub plan: Option<String>,
    /// Continue the latest study of this plan in the results store: run only missing runs.
    #[arg(long)]
    pub resume: bool,
    /// Results store (overrides the plan's `results`; default pocketbench.db).
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Repeats of every cell (overrides the plan's `repeats`).
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Confidence level of the intervals in the closing table (default: the plan's, 0.90).
    #[arg(long)]
    pub confidence: Option<f64>,
    /// List the cells and the run count, run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress output on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn main(args: &MatrixArgs) -> Result<i32> {
    let mut plan = match (&args.file, &args.plan) {
        (Some(file), _) => Plan::load(file)?,
        (None, Some(name)) => builtin::plan(name)?,
        (None, None) => return Err(Error::input("matrix: give a plan file or --plan NAME")),
    };
    if let Some(r) = args.repeats {
        if !(1..=1000).contains(&r) {
            return Err(Error::input(format!("--repeats {r}: expected 1 to 1000")));
        }
        plan.repeats = r;
    }
    plan.repeats = crate::quick::cap("repeats", plan.repeats, crate::quick::REPEATS);
    if let Some(c) = args.confidence {
        if !(c > 0.0 && c < 1.0) {
            return Err(Error::input(format!(
                "--confidence {c}: expected a level between 0 and 1, e.g. 0.90"
            )));
        }
        plan.confidence = c;
    }
    progress::set_quiet(args.quiet || args.json);
    let opts = MatrixOptions {
        resume: args.resume,
        results: args.results.clone(),
        dry_run: args.dry_run,
    };
    if args.dry_run {
        return dry_run(&plan, &opts, args.json);
    }
    // A study killed with -9 left its run's work folder; find and remove it as `run` does.
    crate::platform::stale::sweep_and_say();
    let outcome = runner::run(&plan, &opts)?;
    let study = outcome.study.as_ref().map(|s| s.id).unwrap_or_default();
    if plan.suite != Suite::Run {
        return suite_tables(&plan, &outcome, study, args.json);
    }
    let store = Store::open_read(&outcome.results)?;
    let filter = Filter::parse(&format!("study={study}"), "--filter")?;
    let data = Dataset::load(&store, &filter)?;
    if args.json {
        let value = serde_json::json!({
            "outcome": outcome,
            "cells": table::rows(&data, plan.confidence),
        });
        super::print_json(&value)?;
    } else {
        print!("{}", table::text(&data, plan.confidence));
        print_tally(&outcome, study);
    }
    Ok(exit_status(&outcome))
}

fn exit_status(outcome: &runner::Outcome) -> i32 {
    if outcome.failed.is_empty() {
        0
    } else {
        1
    }
}

/// The closing line: what this invocation stored and what the study holds.
fn print_tally(outcome: &runner::Outcome, study: i64) {
    println!(
            "study #{study} in {}: {} runs stored now, {} before, {} left to another process, {} of {} in all{}",
            outcome.results.display(),
            outcome.stored,
            outcome.already_done,
            outcome.elsewhere,
            outcome.already_done + outcome.stored,
            outcome.runs_total,
            if outcome.failed.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} FAILED (rerun them with --resume)",
                    outcome.failed.len()
                )
            }
        );
}

/// A durability or models study's output: every stored run of the study, cell by cell, as
/// the suite's command prints it (or all of them as JSON).
fn suite_tables(plan: &Plan, outcome: &runner::Outcome, study: i64, json: bool) -> Result<i32> {
    let mut store = Store::open_read(&outcome.results)?;
    let mut runs = Vec::new();
    for (id, cell, repeat) in ledger::runs(&store, study)? {
        let (value, text) = match plan.suite {
            Suite::Models => {
                let (_, mut run): (_, ModelsRun) =
                    suites::load_as(&mut store, models::SUITE, Some(id))?;
                run.id = id;
                (serde_json::to_value(&run), models::render::render(&run))
            }
            _ => {
                let (_, mut run): (_, DurabilityRun) =
                    suites::load_as(&mut store, durability::SUITE, Some(id))?;
                run.id = id;
                (serde_json::to_value(&run), durability::report::render(&run))
            }
        };
        let value = value.map_err(|e| Error::failed(e.to_string()))?;
        runs.push((cell, repeat, value, text));
    }
    if json {
        let value = serde_json::json!({
            "outcome": outcome,
            "runs": runs.iter().map(|(cell, repeat, run, _)| serde_json::json!({
                "cell": cell, "repeat": repeat + 1, "run": run
            })).collect::<Vec<_>>(),
        });
        super::print_json(&value)?;
    } else {
        for (cell, repeat, run, text) in &runs {
            println!(
                "== {cell} (repeat {}/{}, run #{})",
                repeat + 1,
                plan.repeats,
                run["id"]
            );
            print!("{text}");
            println!();
        }
        print_tally(outcome, study);
    }
    Ok(exit_status(outcome))
}

fn dry_run(plan: &Plan, opts: &MatrixOptions, json: bool) -> Result<i32> {
    let cells = cells::expand(plan)?;
    runner::requests(plan, &cells)?;
    let runs = cells.len() * plan.repeats as usize;
    let results = runner::results_path(plan, opts);
    if json {
        let value = serde_json::json!({
            "plan": plan.name,
            "plan_id": cells::plan_id(&cells),
            "results": results,
            "repeats": plan.repeats,
            "runs": runs,
            "notices": plan.notices,
            "cells": cells.iter().map(|c| serde_json::json!({
                "index": c.index + 1, "id": c.id, "name": c.name(), "args": c.args
            })).collect::<Vec<_>>(),
        });
        return super::print_json(&value).map(|_| 0);
    }
    for n in &plan.notices {
        println!("notice: {n}");
    }
    println!(
        "plan '{}' ({}): {} cells × {} repeats = {runs} runs into {}",
        plan.name,
        plan.source,
        cells.len(),
        plan.repeats,
        results.display()
    );
    if opts.resume {
        return resume_dry_run(plan, &cells, opts);
    }
    for c in &cells {
        println!(
            "  {:>3}  {}  →  {} {}",
            c.index + 1,
            c.name(),
            plan.suite.name(),
            c.args.join(" ")
        );
    }
    Ok(0)
}

/// `--resume --dry-run`: only the runs a resume would make.
fn resume_dry_run(plan: &Plan, cells: &[cells::Cell], opts: &MatrixOptions) -> Result<i32> {
    let Some((study, todo)) = runner::pending(plan, cells, opts)? else {
        println!("--resume: no earlier study of this plan in the store; every run would run");
        return Ok(0);
    };
    let total = cells.len() * plan.repeats as usize;
    println!(
        "--resume: study #{} holds {} of {total} runs; {} would run:",
        study.id,
        total - todo.len(),
        todo.len()
    );
    for (c, r) in todo {
        let cell = &cells[c];
        println!(
            "  {:>3}  repeat {}/{}  {}  →  {} {}",
            cell.index + 1,
            r + 1,
            plan.repeats,
            cell.name(),
            plan.suite.name(),
            cell.args.join(" ")
        );
    }
    Ok(0)
}
