//! Running a study: check every cell before anything is measured, find (or start) the study
//! in the results store, then make each missing (cell, repeat) run through the same library
//! path as the plan's suite command — `pocketbench run` (`run::prepare`, `run::execute`,
//! `results::record`) or `pocketbench durability` (`durability::measure`,
//! `results::suites::save`) — recording the run's cell in the run's own transaction, with a
//! cool-down between runs.

use super::cells::{self, Cell};
use super::flags::Suite;
use super::ledger::{self, Study};
use super::plan::Plan;
use crate::error::{Error, Result};
use crate::output::progress::RunCounter;
use crate::results::store::Store;
use crate::run::{self, RunRequest, WorkloadChoice};
use crate::workload::{resolve, trace};
use std::path::PathBuf;

/// How `pocketbench matrix` was asked to run the plan.
#[derive(Clone, Debug, Default)]
pub struct MatrixOptions {
    /// Continue the latest study of this plan in the store instead of starting a new one.
    pub resume: bool,
    /// Results store overriding the plan's.
    pub results: Option<PathBuf>,
    /// Only list what would run.
    pub dry_run: bool,
}

/// What a study invocation did.
#[derive(Debug, serde::Serialize)]
pub struct Outcome {
    pub study: Option<Study>,
    pub results: PathBuf,
    pub cells: usize,
    pub runs_total: usize,
    /// Runs already stored before this invocation (resume).
    pub already_done: usize,
    pub stored: usize,
    /// Runs skipped because another process stored or was running them (concurrent
    /// `--resume` on one store).
    pub elsewhere: usize,
    /// Runs that failed (not stored; `--resume` retries them).
    pub failed: Vec<String>,
    pub run_ids: Vec<i64>,
}

/// The results store a plan writes to.
pub fn results_path(plan: &Plan, opts: &MatrixOptions) -> PathBuf {
    opts.results
        .clone()
        .or_else(|| plan.results.clone())
        .unwrap_or_else(|| PathBuf::from("pocketbench.db"))
}

/// What one cell runs, checked.
pub enum CellRequest {
    /// A `run`, and whether its per-operation samples are kept (`--no-samples`).
    Run(Box<RunRequest>, bool),
    /// A `durability` run.
    Durability(crate::durability::args::Request),
    /// A `models` run.
    Models(crate::models::Request),
}

/// Check every cell's request: flags, workload, engine and options. Nothing is measured.
pub fn requests(plan: &Plan, cells: &[Cell]) -> Result<Vec<CellRequest>> {
    cells
        .iter()
        .map(|cell| {
            let at = |e: Error| e.context(format!("{}: cell {}", plan.source, cell.name()));
            match plan.suite {
                Suite::Run => {
                    let args =
                        super::flags::parse(&cell.args).map_err(|why| at(Error::input(why)))?;
                    let req = args.request().map_err(at)?;
                    check(&req).map_err(at)?;
                    Ok(CellRequest::Run(Box::new(req), !args.no_samples))
                }
                Suite::Durability => {
                    let args = super::flags::parse_durability(&cell.args)
                        .map_err(|why| at(Error::input(why)))?;
                    Ok(CellRequest::Durability(args.request().map_err(at)?))
                }
                Suite::Models => {
                    let args = super::flags::parse_models(&cell.args)
                        .map_err(|why| at(Error::input(why)))?;
                    Ok(CellRequest::Models(args.request().map_err(at)?))
                }
            }
        })
        .collect()
}

fn check(req: &RunRequest) -> Result<()> {
    let model = match &req.workload {
        WorkloadChoice::Spec { spec, overrides } => {
            resolve::resolve(spec, overrides, req.seed)?.info.model
        }
        WorkloadChoice::Trace(path) => trace::verify(path)?.0.workload.model,
    };
    crate::engine::check(&req.engine, &req.options, &model)
}

/// A (cell index, repeat) pair of a study.
pub type Pair = (usize, u32);

/// The (cell, repeat) pairs of the plan's latest study in its store that are not stored yet,
/// in schedule order, with that study; `None` when the store or the study does not exist.
/// Reads only (what `--resume --dry-run` lists).
pub fn pending(
    plan: &Plan,
    cells: &[Cell],
    opts: &MatrixOptions,
) -> Result<Option<(Study, Vec<Pair>)>> {
    let results = results_path(plan, opts);
    if !results.is_file() {
        return Ok(None);
    }
    let store = Store::open_read(&results)?;
    let Some(study) = ledger::latest(&store, &cells::plan_id(cells))? else {
        return Ok(None);
    };
    let done = ledger::done(&store, study.id)?;
    let todo = cells::schedule(plan, cells)
        .into_iter()
        .filter(|(c, r)| !done.contains(&(cells[*c].id.clone(), *r)))
        .collect();
    Ok(Some((study, todo)))
}

/// Run the plan (or, with `dry_run`, only say what would run).
pub fn run(plan: &Plan, opts: &MatrixOptions) -> Result<Outcome> {
    let cells = cells::expand(plan)?;
    let requests = requests(plan, &cells)?;
    let plan_id = cells::plan_id(&cells);
    let schedule = cells::schedule(plan, &cells);
    let results = results_path(plan, opts);
    let mut progress = RunCounter::new(0);
    for n in &plan.notices {
        progress.say(&format!("notice: {n}"));
    }
    let mut outcome = Outcome {
        study: None,
        results: results.clone(),
        cells: cells.len(),
        runs_total: schedule.len(),
        already_done: 0,
        stored: 0,
        elsewhere: 0,
        failed: Vec::new(),
        run_ids: Vec::new(),
    };
    if opts.dry_run {
        return Ok(outcome);
    }
    let mut store = Store::open(&results)?;
    let study = match ledger::latest(&store, &plan_id)? {
        Some(s) if opts.resume => s,
        found => {
            if opts.resume {
                progress.say(&format!(
                    "--resume: no earlier study of this plan in {}; starting it",
                    results.display()
                ));
            } else if let Some(s) = found {
                progress.say(&format!(
                    "note: {} already holds study #{} of this plan ({}); starting a new one (--resume continues it)",
                    results.display(),
                    s.id,
                    s.created_at
                ));
            }
            ledger::create(&store, plan, &plan_id, &cells)?
        }
    };
    let done = ledger::done(&store, study.id)?;
    let todo: Vec<(usize, u32)> = schedule
        .iter()
        .copied()
        .filter(|(c, r)| !done.contains(&(cells[*c].id.clone(), *r)))
        .collect();
    outcome.already_done = schedule.len() - todo.len();
    progress = RunCounter::new(todo.len());
    progress.say(&format!(
        "study '{}' (#{} in {}): {} cells × {} repeats = {} runs; {} stored, {} to run",
        plan.name,
        study.id,
        results.display(),
        cells.len(),
        plan.repeats,
        schedule.len(),
        outcome.already_done,
        todo.len()
    ));
    outcome.study = Some(study.clone());
    // The counter speaks for the runs: their own phases and bars stay silent.
    crate::output::progress::set_quiet(true);
    for (i, &(c, repeat)) in todo.iter().enumerate() {
        if i > 0 && plan.cooldown_ns > 0 {
            std::thread::sleep(std::time::Duration::from_nanos(plan.cooldown_ns));
        }
        let cell = &cells[c];
        let what = format!(
            "cell {}/{} repeat {}/{}: {}",
            c + 1,
            cells.len(),
            repeat + 1,
            plan.repeats,
            cell.name()
        );
        if !ledger::claim(&store, study.id, cell, repeat)? {
            progress.say(&format!(
                "skipped: {what}: stored or being run by another process"
            ));
            outcome.elsewhere += 1;
            progress.finish_one();
            continue;
        }
        progress.start(&what);
        let result = run_one(&requests[c], &mut store, study.id, cell, repeat);
        ledger::release(&store, study.id, cell, repeat)?;
        match result {
            Ok(id) => {
                outcome.stored += 1;
                outcome.run_ids.push(id);
            }
            Err(e @ Error::Input(_)) => {
                progress.finish();
                return Err(e.context(&what));
            }
            Err(e) => {
                progress.say(&format!(
                    "failed: {what}: {e} (not stored; --resume retries it)"
                ));
                outcome.failed.push(format!("{what}: {e}"));
            }
        }
        progress.finish_one();
    }
    progress.finish();
    Ok(outcome)
}

/// One run of one cell, stored with its cell row in one transaction; returns the run id.
fn run_one(
    req: &CellRequest,
    store: &mut Store,
    study: i64,
    cell: &Cell,
    repeat: u32,
) -> Result<i64> {
    match req {
        CellRequest::Run(req, keep_samples) => {
            let prepared = run::prepare(req)?;
            let output = run::execute(req, prepared)?;
            let summary = crate::results::record_with(&output, store, None, *keep_samples, |w| {
                ledger::record(w.tx(), w.id(), study, cell, repeat)
            })?;
            Ok(summary.id)
        }
        CellRequest::Durability(req) => {
            let run = crate::durability::measure(req)?;
            crate::results::suites::save_serialized(
                store,
                crate::durability::SUITE,
                &run.created_at,
                &run,
                |tx, id| ledger::record(tx, id, study, cell, repeat),
            )
        }
        CellRequest::Models(req) => {
            let run = crate::models::measure(req)?;
            crate::results::suites::save_serialized(
                store,
                crate::models::SUITE,
                &run.created_at,
                &run,
                |tx, id| ledger::record(tx, id, study, cell, repeat),
            )
        }
    }
}
