//! `pocketbench trace gen` and `pocketbench trace show`.

use crate::error::Result;
use crate::run::args::WorkloadArgs;
use crate::workload::delay::{self, DelayModel};
use crate::workload::{resolve, trace};
use clap::Subcommand;
use serde::Serialize;
use std::path::Path;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Write a workload as a trace file.
    #[command(
        after_help = "Examples:\n  pocketbench trace gen -o c.pbt\n  pocketbench trace gen --workload ycsb-a --ops 10000000 --delay zero -o big.pbt\n  pocketbench trace gen --workload docs/examples/workload_ia_log.json -o ia.pbt"
    )]
    Gen {
        #[command(flatten)]
        workload: WorkloadArgs,
        /// Output file.
        #[arg(long, short = 'o')]
        output: PathBuf,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print a trace: header, totals, operation mix, delays, first operations.
    #[command(
        after_help = "Examples:\n  pocketbench trace show c.pbt\n  pocketbench trace show c.pbt --limit 20 --json"
    )]
    Show {
        /// Trace file to print.
        file: PathBuf,
        /// Operations of each phase to print.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn main(cmd: &TraceCommand) -> Result<i32> {
    match cmd {
        TraceCommand::Gen {
            workload,
            output,
            json,
        } => generate(workload, output, *json),
        TraceCommand::Show { file, limit, json } => {
            let overview = trace::show::overview(file, *limit)?;
            if *json {
                super::print_json(&overview)?;
            } else {
                print!("{}", trace::show::render(&overview));
            }
            Ok(0)
        }
    }
}

#[derive(Serialize)]
struct Generated<'a> {
    file: &'a Path,
    workload: String,
    delay: String,
    seed: u64,
    load_ops: u64,
    run_ops: u64,
    total_delay_ns: u64,
    digest: String,
    bytes: u64,
    elapsed_ns: u64,
}

fn generate(args: &WorkloadArgs, output: &Path, json: bool) -> Result<i32> {
    let workload = resolve::resolve(&args.workload, &args.overrides()?, args.seed)?;
    let delay = match args.delay()? {
        Some(d) => d,
        None if workload.info.recorded_delays => DelayModel::Recorded,
        None => DelayModel::parse(
            workload
                .info
                .params
                .get("delay")
                .map(String::as_str)
                .unwrap_or(delay::DEFAULT),
        )?,
    };
    let name = workload.info.name.clone();
    let t0 = crate::platform::clock::mono_ns();
    let totals = trace::generate(workload, &delay, args.seed, output)?;
    let elapsed_ns = crate::platform::clock::mono_ns() - t0;
    let bytes = std::fs::metadata(output).map(|m| m.len()).unwrap_or(0);
    let g = Generated {
        file: output,
        workload: name,
        delay: delay.to_string(),
        seed: args.seed,
        load_ops: totals.load_ops,
        run_ops: totals.run_ops,
        total_delay_ns: totals.total_delay_ns,
        digest: totals.digest_hex(),
        bytes,
        elapsed_ns,
    };
    if json {
        super::print_json(&g)?;
    } else {
        let rate = (g.load_ops + g.run_ops) as f64 / (elapsed_ns.max(1) as f64 / 1e9);
        println!(
            "wrote {}: {} ({} load + {} run ops, delay {}, seed {}), {} bytes, digest {}, {:.2} M ops/s",
            output.display(),
            g.workload,
            g.load_ops,
            g.run_ops,
            g.delay,
            g.seed,
            g.bytes,
            g.digest,
            rate / 1e6
        );
    }
    Ok(0)
}
