//! Progress for long work on stderr, the one facility every command uses: phases, the replay's
//! bar and a study's run counter; a bar on a terminal, plain lines otherwise, nothing after
//! [`set_quiet`] (`--quiet`, `--json`). Progress of a replay is read from the size of the spool
//! file the replay process writes, so the measured process never spends time drawing.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
/// have reached the spool file, which grows by `bytes_per_op` per operation.
pub fn while_replaying<T>(spool: &Path, total: u64, bytes_per_op: u64, f: impl FnOnce() -> T) -> T {
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
                bar.set_position((bytes / bytes_per_op.max(1)).min(total));
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

/// Progress of many runs (a study): on a terminal a bar with run i of n, elapsed time and the
/// estimated time left; otherwise (a log file, CI, a board's serial console) one plain line
/// per run.
pub struct RunCounter {
    /// Quiet when created: the runs it counts silence their own progress meanwhile.
    quiet: bool,
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
    started: Instant,
}

impl RunCounter {
    /// `total` runs to count; quiet if progress is silenced now (the runs themselves may be
    /// silenced afterwards without silencing the counter).
    pub fn new(total: usize) -> Self {
        Self::of(total, "run")
    }

    /// `total` of `unit` (`cell`, `step`) to count, as [`RunCounter::new`] counts runs.
    pub fn of(total: usize, unit: &'static str) -> Self {
        let quiet = quiet();
        let bar = (!quiet && std::io::stderr().is_terminal() && total > 0).then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{bar:30}} {unit} {{pos}}/{{len}}  {{elapsed_precise}} elapsed, ~{{eta_precise}} left  {{msg}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        RunCounter {
            quiet,
            bar,
            total,
            done: 0,
            started: Instant::now(),
        }
    }

    /// A run is starting: `what` names its cell and repeat.
    pub fn start(&self, what: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(what.to_string()),
            None if !self.quiet => eprintln!(
                "[{}/{}] {what} · {} elapsed{}",
                self.done + 1,
                self.total,
                crate::output::units::clock(self.started.elapsed()),
                self.eta()
                    .map(|d| format!(", ~{} left", crate::output::units::clock(d)))
                    .unwrap_or_default()
            ),
            None => {}
        }
    }

    /// The current run finished (stored or failed).
    pub fn finish_one(&mut self) {
        self.done += 1;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
        }
    }

    /// A message that must not be overdrawn by the bar.
    pub fn say(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.println(message),
            None if !self.quiet => eprintln!("{message}"),
            None => {}
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Remaining time at the mean pace of the runs made so far.
    fn eta(&self) -> Option<Duration> {
        (self.done > 0)
            .then(|| self.started.elapsed() / self.done as u32 * (self.total - self.done) as u32)
    }
}
