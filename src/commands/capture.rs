//! `pocketbench capture -o app.jsonl -- COMMAND [ARGS]`.

use crate::error::Result;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
/// Exits with the program's own status (128 + the signal when a signal ended it); SIGINT,
/// SIGTERM and SIGHUP sent to pocketbench are passed on to the program, and the log is written.
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
            match (c.status, c.signal) {
                (Some(s), _) => format!("status {s}"),
                (None, Some(sig)) => format!("signal {sig}"),
                (None, None) => "an unknown status".into(),
            }
        );
    }
    // Exit as the program did, as a shell reports it (128 + the signal when one ended it);
    // the capture happened either way.
    Ok(c.status.or(c.signal.map(|s| 128 + s)).unwrap_or(1))
}
