//! The `pocketbench` command: parse the command line, dispatch, and map errors to exit status
//! (2 for bad input, 1 for a failed run) with one line on stderr.

use clap::Parser;
use pocketbench::cli::{Cli, Command};
use pocketbench::{commands, platform, run};

fn main() {
    platform::clock::mark_process_start();
    // Like other Unix tools, end quietly when the reader of our output goes away (`| head`).
    // SAFETY: restoring the default disposition of SIGPIPE before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
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
