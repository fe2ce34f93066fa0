//! `pocketbench durability`: run the power-loss simulation for every requested configuration
//! and print speed and safety side by side (or JSON); store it; `--show` prints a stored one.
//! The flags and the request they make are [`crate::durability::args`].

use crate::durability::args::DurabilityArgs;
use crate::durability::{self, report, DurabilityRun, SUITE};
use crate::error::{Error, Result, ResultExt};
use crate::limits::escape;
use crate::results::{store::Store, suites};
use clap::Args;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// `__durability-child`: the workload process of the process-crash model.
#[derive(Args, Debug)]
pub struct ChildArgs {
    pub engine: String,
    pub dir: PathBuf,
    pub acks: PathBuf,
    pub txns: u64,
    pub rows: u64,
    /// Engine options KEY=VALUE.
    pub options: Vec<String>,
    /// Instead of the workload: open the crash state in DIR (the engine's recovery), check it
    /// against this many acknowledged commits, print the finding as JSON.
    #[arg(long, value_name = "ACKNOWLEDGED", conflicts_with = "check_stdin")]
    pub check: Option<u64>,
    /// Instead of the workload: check one crash state per stdin line, `ACKNOWLEDGED<TAB>DIR`,
    /// printing one finding (a JSON line) each, until the end of input (the long-lived
    /// checker of the recorded models; DIR above is then unused).
    #[arg(long)]
    pub check_stdin: bool,
    /// The workload is the first TXNS run operations of this trace.
    #[arg(long, value_name = "TRACE")]
    pub trace: Option<PathBuf>,
    /// With --check and a SQL trace: the digests after each commit.
    #[arg(long, value_name = "FILE")]
    pub digests: Option<PathBuf>,
}

pub fn child(a: &ChildArgs) -> Result<i32> {
    let options = pairs(&a.options)?;
    let check = |dir: &Path, acknowledged: u64| match &a.trace {
        Some(trace) => durability::traced::check_state(
            &a.engine,
            &options,
            dir,
            trace,
            a.txns,
            acknowledged,
            a.digests.as_deref(),
        ),
        None => {
            durability::killed::check_state(&a.engine, &options, dir, acknowledged, a.txns, a.rows)
        }
    };
    let print = |r: &durability::PointResult| -> Result<()> {
        let mut out = std::io::stdout().lock();
        let line = serde_json::to_string(r).run_err("printing the finding")?;
        writeln!(out, "{line}")
            .and_then(|_| out.flush())
            .run_err("printing the finding")
    };
    if let Some(acknowledged) = a.check {
        print(&check(&a.dir, acknowledged))?;
        return Ok(0);
    }
    if a.check_stdin {
        for line in std::io::stdin().lock().lines() {
            let line = line.run_err("reading a crash state to check")?;
            let request = line
                .split_once('\t')
                .and_then(|(n, dir)| Some((n.parse::<u64>().ok()?, dir)));
            let Some((acknowledged, dir)) = request else {
                return Err(Error::input(format!(
                    "--check-stdin: expected ACKNOWLEDGED<TAB>DIR, got {}",
                    escape(&line)
                )));
            };
            print(&check(Path::new(dir), acknowledged))?;
        }
        return Ok(0);
    }
    durability::killed::child(
        &a.engine,
        &options,
        &a.dir,
        &a.acks,
        a.txns,
        a.rows,
        a.trace.as_deref(),
    )?;
    Ok(0)
}

fn pairs(list: &[String]) -> Result<Vec<(String, String)>> {
    list.iter()
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| Error::input(format!("--config {}: expected KEY=VALUE", escape(p))))
        })
        .collect()
}

pub fn main(a: &DurabilityArgs) -> Result<i32> {
    crate::output::progress::set_quiet(a.quiet || a.json);
    let run = if let Some(id) = a.show {
        let mut store = Store::open_existing(&a.results)?;
        let (id, mut r): (_, DurabilityRun) =
            suites::load_as(&mut store, SUITE, (id > 0).then_some(id))?;
        r.id = id;
        r
    } else {
        measure(a)?
    };
    if a.json {
        super::print_json(&run)?;
    } else {
        print!("{}", report::render(&run));
    }
    Ok(0)
}

/// Run every configuration and store the run (the store is opened before anything runs); a
/// replay of one crash point looks again at a finding and stores nothing.
fn measure(a: &DurabilityArgs) -> Result<DurabilityRun> {
    let req = a.request()?;
    if req.plan.replay.is_some() {
        return durability::measure(&req);
    }
    let mut store = Store::open(&a.results)?;
    let mut run = durability::measure(&req)?;
    run.id = suites::save_serialized(&mut store, SUITE, &run.created_at, &run, |_, _| Ok(()))?;
    Ok(run)
}
