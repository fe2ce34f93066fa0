//! `pocketbench capture -o app.jsonl -- COMMAND [ARGS]`.

use crate::error::Result;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct CaptureArgs {
    /// Where to write the statement log (jsonl).
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
    /// The program to run, and its arguments (after `--`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    command: Vec<String>,
}

pub fn main(a: &CaptureArgs) -> Result<i32> {
    let c = crate::capture::capture(&a.output, &a.command)?;
    if a.json {
        super::print_json(&c)?;
    } else {
        eprintln!(
            "captured {} statements to {} (the program exited with {})",
            c.statements,
            c.file.display(),
            c.status
                .map_or("a signal".into(), |s| format!("status {s}"))
        );
    }
    // The program's failure is its own; the capture still happened.
    Ok(0)
}
