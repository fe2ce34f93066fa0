//! `pocketbench models`'s flags and the request they make. Shared by the command and by
//! studies (`suite = "models"` in a plan), which read these flags by introspection.

use super::query::Test;
use super::Request;
use crate::error::{Error, Result};
use crate::limits::escape;
use clap::Args;
use std::path::PathBuf;

/// Upper bounds of the sizes (docs/limits.md).
pub const MAX_TUPLES: u32 = 100_000;
pub const MAX_PER_PERSON: u32 = 100;

#[derive(Args, Debug)]
pub struct ModelsArgs {
    /// Engines, comma-separated (default: every study engine of this build; `pocketbench models
    /// --list` names them). A key-value engine with `+index` keeps app-maintained secondary
    /// indexes (age, buyer).
    #[arg(long, value_delimiter = ',')]
    pub engines: Vec<String>,
    /// People at each scale, comma-separated (1 to 100 000); transactions are --per-person
    /// times as many.
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000,2000,5000")]
    pub tuples: Vec<u32>,
    /// Tests to run, by number or name (default: all six).
    #[arg(long, value_delimiter = ',')]
    pub tests: Vec<String>,
    /// Transactions each person sells (1 to 100).
    #[arg(long, default_value_t = 3)]
    pub per_person: u32,
    /// Seed of the data and of each test's parameters.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time one test may take on one engine at one scale (checked after each execution);
    /// beyond it the remaining executions are skipped and the test is marked "exceeded budget".
    #[arg(long, default_value = "60s")]
    pub budget: String,
    /// Think time between a test's executions (not timed): zero, fixed:5ms, lognormal:6.67ms,
    /// exponential:10ms — the pause in which a CPU governor scales the clock down.
    #[arg(long, value_name = "DELAY", default_value = "zero")]
    pub think: String,
    /// CPU frequency governor for the study (as `run --governor`): set on every cpufreq policy,
    /// checked and restored afterwards; without permission it is recorded as observed.
    #[arg(long, value_name = "GOVERNOR")]
    pub governor: Option<String>,
    /// Scratch directory on the storage to measure (default: the system's temporary directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Results store.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Also write one CSV row per engine, scale and test to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Print a stored run (the latest without ID) instead of running.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "0")]
    pub show: Option<i64>,
    /// Print the mobile data-model study's five findings checked on a stored run (the latest
    /// without ID): each holds, does not hold or is reversed, with its figures and causes.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "0", conflicts_with = "show")]
    pub study: Option<i64>,
    /// List the engines of this build, their roles and which ones mobile apps ship, and exit.
    #[arg(long)]
    pub list: bool,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

impl ModelsArgs {
    /// Check every flag and build the request. Nothing is created or measured.
    pub fn request(&self) -> Result<Request> {
        if !super::AVAILABLE {
            return Err(super::unavailable());
        }
        let built = super::engines();
        let engines = if self.engines.is_empty() {
            built.clone()
        } else {
            let mut chosen: Vec<String> = Vec::new();
            for e in &self.engines {
                let e = e.trim().to_ascii_lowercase();
                if !built.contains(&e) && matches!(e.as_str(), "polodb" | "native_db") {
                    return Err(Error::not_built(
                        format!("--engines {e}"),
                        "model-stores",
                        "document and object stores",
                    ));
                }
                if !built.contains(&e) {
                    return Err(Error::input(format!(
                        "--engines {}: not a study engine of this build (available: {})",
                        escape(&e),
                        built.join(", ")
                    )));
                }
                if !chosen.contains(&e) {
                    chosen.push(e);
                }
            }
            chosen
        };
        let mut scales: Vec<u32> = Vec::new();
        for &t in &self.tuples {
            if !(1..=MAX_TUPLES).contains(&t) {
                return Err(Error::input(format!(
                    "--tuples {t}: must be 1 to {MAX_TUPLES} (see docs/limits.md)"
                )));
            }
            if !scales.contains(&t) {
                scales.push(t);
            }
        }
        if scales.is_empty() {
            return Err(Error::input("--tuples: give at least one scale"));
        }
        let scales = crate::quick::cap_list("--tuples", scales, crate::quick::TUPLES, 2);
        let tests = if self.tests.is_empty() {
            Test::ALL.to_vec()
        } else {
            self.tests
                .iter()
                .map(|t| {
                    Test::parse(t.trim()).ok_or_else(|| {
                        let names: Vec<&str> = Test::ALL.iter().map(|t| t.name()).collect();
                        Error::input(format!(
                            "--tests {}: not a test (1 to 6, or {})",
                            escape(t),
                            names.join(", ")
                        ))
                    })
                })
                .collect::<Result<Vec<_>>>()?
        };
        if !(1..=MAX_PER_PERSON).contains(&self.per_person) {
            return Err(Error::input(format!(
                "--per-person {}: must be 1 to {MAX_PER_PERSON}",
                self.per_person
            )));
        }
        let budget_ns = crate::output::units::parse_duration(&self.budget, "--budget")?;
        if budget_ns == 0 {
            return Err(Error::input("--budget 0: give a positive time, e.g. 60s"));
        }
        let budget_ns = crate::quick::cap_duration(
            "--budget",
            &self.budget,
            budget_ns,
            crate::quick::BUDGET_NS,
        );
        let parent = self.dir.clone().unwrap_or_else(std::env::temp_dir);
        if !parent.is_dir() {
            return Err(Error::input(format!(
                "--dir {}: not a directory",
                escape(&parent.display().to_string())
            )));
        }
        let think = crate::workload::delay::DelayModel::parse_as(&self.think, "--think")?;
        let governor = self
            .governor
            .as_deref()
            .map(|g| {
                let req = crate::platform::cpufreq::request::GovernorRequest::parse(g)
                    .map_err(|e| Error::input(format!("--governor {}: {e}", escape(g))))?;
                let cf = crate::platform::cpufreq::discover(&crate::platform::sysfs::sysfs_root());
                crate::platform::cpufreq::control::check(&req, &cf)?;
                Ok::<_, Error>(req)
            })
            .transpose()?;
        Ok(Request {
            think,
            governor,
            engines,
            scales,
            tests,
            per_person: self.per_person,
            seed: self.seed,
            budget_ns,
            parent,
        })
    }
}
