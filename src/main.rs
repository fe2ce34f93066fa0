//! The `pocketbench` command: parse the command line, dispatch, and map errors to exit status
//! (2 for bad input, 1 for a failed run) with one line on stderr.

use clap::CommandFactory;
use pocketbench::commands::cli::{Cli, Command};
use pocketbench::{commands, limits, platform, run};

fn main() {
    platform::clock::mark_process_start();
    // Like other Unix tools, end quietly when the reader of our output goes away (`| head`).
    // SAFETY: restoring the default disposition of SIGPIPE before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    // `-V` prints the version, `--version` the build (commit, features, engines, SQLite).
    let long_version: &'static str = Box::leak(commands::version::long().into_boxed_str());
    let cli = Cli::command()
        .long_version(long_version)
        .try_get_matches()
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
        .unwrap_or_else(|e| usage_error(e));
    #[cfg(feature = "server")]
    let serving = matches!(cli.command, Command::Serve(_));
    #[cfg(not(feature = "server"))]
    let serving = false;
    if !serving
        && !matches!(
            cli.command,
            Command::Replay { .. } | Command::DurabilityChild(_)
        )
    {
        // Ctrl-C and SIGTERM remove temporary files and restore what was changed (the replay
        // and durability children are stopped by their parents and keep the default
        // dispositions; `serve` changes nothing to restore, and takes SIGHUP to reload its
        // TLS certificate).
        platform::signals::install();
    }
    if let Err(e) = platform::args::set_sysfs_root(cli.sysfs_root.as_deref()) {
        eprintln!("pocketbench: error: {}", limits::one_line(&e.to_string()));
        std::process::exit(e.exit_code());
    }
    let outcome = match &cli.command {
        Command::Run(args) => commands::run::main(args),
        Command::Trace(cmd) => commands::trace::main(cmd),
        Command::Capture(args) => commands::capture::main(args),
        Command::Results(cmd) => commands::results::main(cmd),
        Command::Engines(args) => commands::engines::main(args),
        Command::Matrix(args) => commands::matrix::main(args),
        Command::Compare(args) => commands::compare::main(args),
        Command::Advise(args) => commands::advise::main(args),
        Command::Report(args) => commands::report::main(args),
        Command::Doctor(args) => commands::doctor::main(args),
        Command::Diagnose(args) => commands::diagnose::main(args),
        Command::Energy(cmd) => commands::energy::main(cmd),
        Command::Flash(cmd) => commands::flash::main(cmd),
        Command::Flashbench(args) => commands::flashbench::main(args),
        Command::Durability(args) => commands::durability::main(args),
        Command::Models(args) => commands::models::main(args),
        Command::Storage(args) => commands::storage::main(args),
        #[cfg(feature = "server")]
        Command::Serve(args) => commands::serve::main(args),
        Command::Submit(args) => commands::submit::main(args),
        Command::Agent(args) => commands::agent::main(args),
        Command::Device(cmd) => commands::device::main(cmd, Cli::command()),
        #[cfg(feature = "completions")]
        Command::Completions(args) => commands::completions::main(args, Cli::command()),
        Command::Replay { spec } => run::child::main(spec).map(|_| 0),
        Command::DurabilityChild(args) => commands::durability::child(args),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("pocketbench: error: {}", limits::one_line(&e.to_string()));
            std::process::exit(e.exit_code());
        }
    }
}

/// clap's verdict on the command line: `--help` and `--version` print as clap prints them;
/// a usage error becomes one line (clap's lines joined) and exit status 2.
/// "did you mean" for a mistyped subcommand clap's own similarity misses (a transposition such
/// as `rnu`): the subcommands of the command the words before it name.
fn subcommand_hint() -> String {
    let mut at = Cli::command();
    for word in std::env::args().skip(1) {
        match at.find_subcommand(&word) {
            Some(next) => at = next.clone(),
            None if word.starts_with('-') => continue,
            None => {
                let names: Vec<&str> = at.get_subcommands().map(|s| s.get_name()).collect();
                return limits::did_you_mean(&word, names).replace(';', "\ntip:");
            }
        }
    }
    String::new()
}

/// A subcommand this build leaves out (its cargo feature is off): said as such, with the
/// feature that adds it, rather than as an unknown word.
fn left_out(e: &clap::Error) -> Option<pocketbench::error::Error> {
    use clap::error::{ContextKind, ContextValue};
    const LEFT_OUT: [(&str, &str, &str, bool); 2] = [
        (
            "serve",
            "server",
            "results server",
            cfg!(feature = "server"),
        ),
        (
            "completions",
            "completions",
            "shell completion scripts",
            cfg!(feature = "completions"),
        ),
    ];
    let Some(ContextValue::String(word)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let (name, feature, gives, _) = LEFT_OUT
        .iter()
        .find(|(name, _, _, built)| name == word && !built)?;
    Some(pocketbench::error::Error::not_built(name, feature, gives))
}

fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    if let Some(refused) = left_out(&e) {
        eprintln!("pocketbench: error: {refused}");
        std::process::exit(refused.exit_code());
    }
    let mut text = e.to_string();
    if e.kind() == ErrorKind::InvalidSubcommand && !text.contains("tip:") {
        text.push_str(&subcommand_hint());
    }
    let line = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("; ");
    eprintln!("pocketbench: error: {}", limits::one_line(&line));
    std::process::exit(2);
}
