//! `pocketbench advise TRACE`: the changes worth making to an app, measured against its own
//! trace ([`crate::advise`]); prints the ranked table (or JSON), stores the advice, and writes
//! the advice file with `-o`.

use crate::advise::{self, render, Request};
use crate::error::{Error, Result, ResultExt};
use crate::limits::escape;
use crate::results::{store::Store, suites};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AdviseArgs {
    /// The app's trace (`trace import`, `capture`, or `trace gen` of a SQL workload).
    pub trace: PathBuf,
    /// The engine to advise on (SQL engines: sqlite).
    #[arg(long, default_value = "sqlite")]
    pub engine: String,
    /// Engine option KEY=VALUE of the baseline, on top of the settings the trace recorded
    /// (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Bound on the whole run (e.g. 90s, 10m, 1h): the rounds are cut (down to 3) before any
    /// candidate is left out; candidates are measured best first and those the budget does
    /// not cover are listed as not measured.
    #[arg(long, default_value = "10m")]
    pub budget: String,
    /// Rounds of replays, 2 to 100: each replays the baseline once, then every candidate once
    /// (so each candidate is compared over this many replays a side, interleaved); fewer
    /// when the budget does not cover them, and the output says so.
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Engine options to try as one more candidate, KEY=VALUE[,KEY=VALUE…] (repeatable).
    #[arg(long = "try", value_name = "KEY=VALUE[,…]")]
    pub tries: Vec<String>,
    /// Skip the power-loss simulation of the batching candidate.
    #[arg(long)]
    pub no_durability: bool,
    /// Write the advice file (CREATE INDEX and PRAGMA lines, each with its measured gain).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the variants as a study in this folder (a new or empty one): the plan
    /// (DIR/study.toml, one `variant` axis: the baseline and every candidate with the app's
    /// answers) and the traces it replays, for `pocketbench matrix DIR/study.toml` here or on
    /// a device.
    #[arg(long, value_name = "DIR")]
    pub study: Option<PathBuf>,
    /// Results store.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn pair(text: &str, flag: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(Error::input(format!(
            "{flag} {}: expected KEY=VALUE",
            escape(text)
        ))),
    }
}

impl AdviseArgs {
    /// The request these flags make; every flag checked, nothing created.
    pub fn request(&self) -> Result<Request> {
        if !self.trace.is_file() {
            return Err(Error::input(format!(
                "{}: no such trace file",
                escape(&self.trace.display().to_string())
            )));
        }
        advise::check_trace(&self.trace)?;
        let budget_ns = advise::parse_budget(&self.budget)?;
        if !(2..=advise::MAX_REPEATS).contains(&self.repeats) {
            return Err(Error::input(format!(
                "--repeats {}: expected 2 to {} (an interval needs two replays a side)",
                self.repeats,
                advise::MAX_REPEATS
            )));
        }
        if self.tries.len() > advise::MAX_TRIES {
            return Err(Error::input(format!(
                "--try: {} given, at most {}",
                self.tries.len(),
                advise::MAX_TRIES
            )));
        }
        let options = self
            .set
            .iter()
            .map(|s| pair(s, "--set"))
            .collect::<Result<Vec<_>>>()?;
        let model = crate::workload::model::DataModel::Sql;
        crate::engine::check(&self.engine, &options, &model).map_err(|e| e.context("--set"))?;
        let mut tries = Vec::new();
        for t in &self.tries {
            let list = t
                .split(',')
                .map(|p| pair(p, "--try"))
                .collect::<Result<Vec<_>>>()?;
            crate::engine::check(&self.engine, &list, &model).map_err(|e| e.context("--try"))?;
            tries.push(list);
        }
        if let Some(o) = &self.output {
            crate::output::target::check(o, "-o")?;
        }
        if let Some(d) = &self.study {
            advise::study::check(d)?;
        }
        Ok(Request {
            trace: self.trace.clone(),
            engine: self.engine.clone(),
            options,
            budget_ns: crate::quick::cap_duration(
                "--budget",
                &self.budget,
                budget_ns,
                crate::quick::ADVISE_BUDGET_NS,
            ),
            repeats: crate::quick::cap("--repeats", self.repeats, crate::quick::REPEATS as usize),
            tries,
            durability: !self.no_durability,
            quiet: self.quiet || self.json,
        })
    }
}

pub fn main(args: &AdviseArgs) -> Result<i32> {
    crate::output::progress::set_quiet(args.quiet || args.json);
    let req = args.request()?;
    crate::platform::stale::sweep_and_say();
    let mut store = Store::open(&args.results)?;
    let mut advice = advise::advise(&req)?;
    advice.id = suites::save_serialized(
        &mut store,
        advise::SUITE,
        &advice.created_at,
        &advice,
        |_, _| Ok(()),
    )?;
    if let Some(path) = &args.output {
        let mut f = crate::platform::atomic_file::AtomicFile::create(path)
            .input_err(format!("-o {}", path.display()))?;
        f.write_all(render::advice_sql(&advice).as_bytes())
            .and_then(|_| f.commit())
            .run_err(format!("writing {}", path.display()))?;
    }
    if let Some(dir) = &args.study {
        let plan = advise::study::write(&advice, &req.trace, &req.engine, dir)?;
        if !args.quiet {
            eprintln!(
                "the variants as a study: pocketbench matrix {}",
                plan.display()
            );
        }
    }
    if args.json {
        super::print_json(&advice)?;
    } else {
        print!("{}", render::text(&advice));
    }
    Ok(0)
}
