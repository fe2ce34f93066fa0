//! pocketbench: benchmarks embedded databases the way phones and embedded boards use them —
//! one client, bursts of operations, think time between them — measured per operation.

mod cli;
mod commands;
mod engine;
mod error;
mod platform;
mod report;
mod results;
mod run;
mod workload;

use clap::Parser;
use cli::{Cli, Command};

/// Tool name and version, recorded in traces and results.
pub const TOOL_VERSION: &str = concat!("pocketbench ", env!("CARGO_PKG_VERSION"));

fn main() {
    platform::clock::mark_process_start();
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Run(args) => commands::run::main(args),
        Command::Trace(cmd) => commands::trace::main(cmd),
        Command::Results(cmd) => commands::results::main(cmd),
        Command::Engines(args) => commands::engines::main(args),
        Command::Replay { spec } => run::child::main(spec).map(|_| 0),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("pocketbench: error: {e}");
            std::process::exit(e.exit_code());
        }
    }
}
