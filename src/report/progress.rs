//! Progress for long work: a bar on a terminal, plain lines otherwise, nothing with `--quiet`
//! or `--json`. Progress of a replay is read from the size of the spool file the replay process
//! writes, so the measured process never spends time drawing.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silence progress output (for `--quiet` and `--json`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Announce a phase of work on stderr.
pub fn phase(message: &str) {
    if !quiet() {
        eprintln!("· {message}");
    }
}

/// Run `f` (which waits for the replay process) while showing how many of `total` operations
/// have reached the spool file.
pub fn while_replaying<T>(spool: &Path, total: u64, f: impl FnOnce() -> T) -> T {
    if quiet() || !std::io::stderr().is_terminal() || total == 0 {
        return f();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("  {bar:40} {pos}/{len} ops  {elapsed} elapsed, ~{eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (bar, done, spool) = (bar.clone(), done.clone(), spool.to_path_buf());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let bytes = std::fs::metadata(&spool).map(|m| m.len()).unwrap_or(0);
                bar.set_position((bytes / crate::run::sample::ENCODED_LEN as u64).min(total));
                std::thread::sleep(Duration::from_millis(250));
            }
        })
    };
    let out = f();
    done.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    bar.finish_and_clear();
    out
}
