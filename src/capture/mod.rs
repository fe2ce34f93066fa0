//! `pocketbench capture`: run any program that uses a shared libsqlite3 with the preload
//! library (`preload.c`, built for the host by the build script and embedded here; built for
//! the boards by `scripts/build-device.sh`) and collect its statement log in the `jsonl`
//! form `trace import` reads. Nothing in the program changes.

use crate::error::{Error, Result, ResultExt};
use std::io::Write;
use std::path::Path;

/// The preload library, compiled for this binary's target.
const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpocketbench-capture.so"));

/// The environment variable that tells the library where to write.
pub const OUT_VAR: &str = "POCKETBENCH_CAPTURE_OUT";

/// What a capture produced.
#[derive(Debug, serde::Serialize)]
pub struct Captured {
    pub file: std::path::PathBuf,
    pub statements: u64,
    /// The program's exit status (`None`: killed by a signal).
    pub status: Option<i32>,
}

/// Run `command` with the preload library and write its statements to `output`, replacing
/// what was there. The program's own stdin, stdout and stderr pass through.
pub fn capture(output: &Path, command: &[String]) -> Result<Captured> {
    let Some((program, args)) = command.split_first() else {
        return Err(Error::input(
            "capture: no command given (pocketbench capture -o app.jsonl -- COMMAND [ARGS])",
        ));
    };
    if output.is_dir() {
        return Err(Error::input(format!(
            "-o {}: is a directory; give a file name for the log",
            output.display()
        )));
    }
    std::fs::File::create(output).input_err(format!("-o {}: cannot write", output.display()))?;
    let mut lib = tempfile::Builder::new()
        .prefix("pocketbench-capture-")
        .suffix(".so")
        .tempfile()
        .run_err("writing the preload library")?;
    lib.write_all(LIBRARY)
        .and_then(|_| lib.flush())
        .run_err("writing the preload library")?;
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", lib.path().display()),
        _ => lib.path().display().to_string(),
    };
    let out_abs = std::path::absolute(output).run_err("-o")?;
    let status = std::process::Command::new(program)
        .args(args)
        .env("LD_PRELOAD", preload)
        .env(OUT_VAR, &out_abs)
        .status()
        .map_err(|e| {
            Error::input(format!(
                "capture: cannot run {}: {e}",
                crate::limits::escape(program)
            ))
        })?;
    let text = std::fs::read(output).run_err(format!("reading {}", output.display()))?;
    Ok(Captured {
        file: output.to_path_buf(),
        statements: text.iter().filter(|b| **b == b'\n').count() as u64,
        status: status.code(),
    })
}
