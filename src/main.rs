//! The `pocketbench` command: parse the command line, dispatch, and map errors to exit status
//! (2 for bad input, 1 for a failed run) with one line on stderr.

use clap::Parser;
use pocketbench::cli::{Cli, Command};
use pocketbench::{commands, limits, platform, run};

fn main() {
    platform::clock::mark_process_start();
    // Like other Unix tools, end quietly when the reader of our output goes away (`| head`).
    // SAFETY: restoring the default disposition of SIGPIPE before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Replay { .. }) {
        // Ctrl-C and SIGTERM remove temporary files and restore what was changed (the replay
        // child is stopped by its parent and keeps the default dispositions).
        platform::cpufreq::restore::install_signal_handling();
    }
    if let Err(e) = platform::args::set_sysfs_root(cli.sysfs_root.as_deref()) {
        eprintln!("pocketbench: error: {}", limits::one_line(&e.to_string()));
        std::process::exit(e.exit_code());
    }
    let outcome = match &cli.command {
        Command::Run(args) => commands::run::main(args),
        Command::Trace(cmd) => commands::trace::main(cmd),
        Command::Results(cmd) => commands::results::main(cmd),
        Command::Engines(args) => commands::engines::main(args),
        Command::Matrix(args) => commands::matrix::main(args),
        Command::Compare(args) => commands::compare::main(args),
        Command::Report(args) => commands::report::main(args),
        Command::Doctor(args) => commands::doctor::main(args),
        Command::Diagnose(args) => commands::diagnose::main(args),
        Command::Energy(cmd) => commands::energy::main(cmd),
        Command::Flash(cmd) => commands::flash::main(cmd),
        Command::Flashbench(args) => commands::flashbench::main(args),
        Command::Storage(args) => commands::storage::main(args),
        Command::Replay { spec } => run::child::main(spec).map(|_| 0),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("pocketbench: error: {}", limits::one_line(&e.to_string()));
            std::process::exit(e.exit_code());
        }
    }
}
