//! Progress of a study: on a terminal a bar with run i of n, elapsed time and the estimated
//! time left; otherwise (a log file, CI, a board's serial console) one plain line per run.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub struct StudyProgress {
    bar: Option<ProgressBar>,
    quiet: bool,
    total: usize,
    done: usize,
    started: Instant,
}

impl StudyProgress {
    /// `total` runs to make in this invocation.
    pub fn new(total: usize, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal() && total > 0).then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} run {pos}/{len}  {elapsed_precise} elapsed, ~{eta_precise} left  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        StudyProgress {
            bar,
            quiet,
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
                clock(self.started.elapsed()),
                self.eta()
                    .map(|d| format!(", ~{} left", clock(d)))
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

/// `1:02:03` or `02:03`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn clock_format() {
        use std::time::Duration;
        assert_eq!(super::clock(Duration::from_secs(62)), "01:02");
        assert_eq!(super::clock(Duration::from_secs(3723)), "1:02:03");
    }
}
