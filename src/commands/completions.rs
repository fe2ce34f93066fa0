//! `pocketbench completions SHELL`: the shell completion script for bash, zsh, fish, elvish or
//! PowerShell, generated from the command line's own definition (clap_complete), so every
//! command, flag and closed set of values completes.

use crate::error::{Result, ResultExt};
use clap::Args;
use clap_complete::Shell;
use std::io::Write;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Print the script for `cli` (the whole command line, passed in by `main`).
pub fn main(args: &CompletionsArgs, mut cli: clap::Command) -> Result<i32> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "pocketbench", &mut out);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&out)
        .and_then(|_| stdout.flush())
        .run_err("stdout")?;
    Ok(0)
}
