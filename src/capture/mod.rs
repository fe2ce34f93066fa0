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
    /// The signal that ended the program, when one did.
    pub signal: Option<i32>,
}

/// Run `command` with the preload library and write its statements to `output` (by the rule
/// of `output::target`: a file is replaced whole, a pipe or device is written into). The
/// program's own stdin, stdout and stderr pass through. SIGINT, SIGTERM and SIGHUP sent to
/// pocketbench alone are passed on to the program, which is waited for; the log is written
/// either way. The library and the log being written live in a temporary folder removed on
/// every signal.
pub fn capture(output: &Path, command: &[String]) -> Result<Captured> {
    let Some((program, args)) = command.split_first() else {
        return Err(Error::input(
            "capture: no command given (pocketbench capture -o app.jsonl -- COMMAND [ARGS])",
        ));
    };
    // A directory or a block device is refused; a device, FIFO or stdout is written into.
    crate::output::target::check(output, "-o")?;
    let work = crate::platform::cleanup::TempDir::new("pocketbench-capture-", None)
        .run_err("creating the capture's work folder")?;
    let lib = work.path().join("pocketbench-capture.so");
    let log = work.path().join("capture.jsonl");
    std::fs::File::create(&lib)
        .and_then(|mut f| f.write_all(LIBRARY).and_then(|_| f.flush()))
        .run_err("writing the preload library")?;
    std::fs::File::create(&log).run_err("creating the capture log")?;
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", lib.display()),
        _ => lib.display().to_string(),
    };
    let catch = crate::platform::interrupt::catch(
        "passed on to the program; its log is written when it ends",
    );
    let mut child = crate::platform::signals::unblocked(
        std::process::Command::new(program)
            .args(args)
            .env("LD_PRELOAD", preload)
            .env(OUT_VAR, &log),
    )
    .spawn()
    .map_err(|e| {
        Error::input(format!(
            "capture: cannot run {}: {e}",
            crate::limits::escape(program)
        ))
    })?;
    // A second signal ends pocketbench: the program is then stopped with SIGTERM.
    crate::platform::signals::register_child(child.id(), false);
    let status = wait_passing_signals(&mut child, &catch);
    crate::platform::signals::unregister_child(child.id());
    drop(catch);
    let status = status?;
    let statements = count_lines(&log)?;
    crate::platform::atomic_file::AtomicFile::deliver(&log, output)
        .input_err(format!("-o {}", output.display()))?;
    Ok(Captured {
        file: output.to_path_buf(),
        statements,
        status: status.code(),
        signal: std::os::unix::process::ExitStatusExt::signal(&status),
    })
}

/// Wait for `child`, passing on each signal `catch` catches meanwhile.
fn wait_passing_signals(
    child: &mut std::process::Child,
    catch: &crate::platform::interrupt::Catch,
) -> Result<std::process::ExitStatus> {
    loop {
        if let Some(status) = child.try_wait().run_err("waiting for the program")? {
            return Ok(status);
        }
        let sig = catch.take_caught();
        if sig != 0 {
            // SAFETY: kill has no memory effects; the child is ours and not yet reaped.
            unsafe { libc::kill(child.id() as i32, sig) };
        }
        // Woken by the child's end or by the next signal (EINTR), at most this late.
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

fn count_lines(path: &Path) -> Result<u64> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).run_err(format!("reading {}", path.display()))?;
    let (mut buf, mut n) = (vec![0u8; 64 * 1024], 0u64);
    loop {
        let got = f.read(&mut buf).run_err("reading the capture log")?;
        if got == 0 {
            return Ok(n);
        }
        n += buf[..got].iter().filter(|b| **b == b'\n').count() as u64;
    }
}
