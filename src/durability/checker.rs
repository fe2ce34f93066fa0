//! The long-lived checker process of a configuration under a recorded model or a JVM engine:
//! it reads one request line per crash state on stdin (what to open, how many commits were
//! acknowledged) and answers with one JSON line. Starting a process per state cost the
//! dynamic loader's and the engine library's start-up at every state; one process per
//! configuration pays it once. Crash isolation stays: an engine that dies on a damaged file
//! (LMDB takes SIGBUS past a map's end) ends only the checker, which is then a finding at
//! that state — an integrity failure with its exit status or signal — and the next state
//! starts a fresh checker. After any state whose check failed the checker is replaced too, as
//! the engine may keep state of the damaged store (a lock, an environment marked invalid).

use crate::error::{Result, ResultExt};
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running checker and what it was started for.
pub struct Checker {
    /// The configuration it checks; another configuration gets another checker.
    key: String,
    /// How messages name it: "the checker process", "the checker JVM".
    what: &'static str,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    err_log: PathBuf,
}

impl Drop for Checker {
    fn drop(&mut self) {
        // End of input ends the checker; it holds nothing that needs more.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

impl Checker {
    /// Start `cmd` with piped stdin and stdout, its stderr kept in `err_log`.
    pub fn spawn(
        key: String,
        what: &'static str,
        mut cmd: Command,
        err_log: PathBuf,
    ) -> Result<Checker> {
        let err = std::fs::File::create(&err_log).run_err(format!("creating {what}'s log"))?;
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()
            .run_err(format!("starting {what}"))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Checker {
            key,
            what,
            child,
            stdin,
            stdout,
            err_log,
        })
    }

    /// Send `request` (one line) and read the answer; `Err` says how the checker died
    /// (its exit status and last words, or its signal).
    pub fn ask<T: DeserializeOwned>(&mut self, request: &str) -> std::result::Result<T, String> {
        let sent = self
            .stdin
            .as_mut()
            .map(|s| writeln!(s, "{request}").and_then(|_| s.flush()));
        let mut line = String::new();
        if matches!(sent, Some(Ok(()))) && self.stdout.read_line(&mut line).unwrap_or(0) > 0 {
            if let Ok(answer) = serde_json::from_str::<T>(&line) {
                return Ok(answer);
            }
        }
        drop(self.stdin.take());
        let status = self.child.wait();
        let said = std::fs::read_to_string(&self.err_log).unwrap_or_default();
        use std::os::unix::process::ExitStatusExt;
        let what = self.what;
        Err(match status.map(|s| (s.signal(), s)) {
            Ok((Some(sig), _)) => format!("recovery killed {what} with signal {sig}"),
            Ok((None, s)) => format!(
                "{what} ended during recovery ({s}): {}",
                said.lines().last().unwrap_or("no message")
            ),
            Err(e) => format!("{what}: {e}"),
        })
    }
}

thread_local! {
    static CHECKER: RefCell<Option<Checker>> = const { RefCell::new(None) };
}

/// Ask this thread's checker for `key` (started with `start` when none runs for it) with
/// `request`. `ok` says whether the answer was a clean check; when it was not (or the checker
/// died), the checker is replaced before the next state.
pub fn ask<T: DeserializeOwned>(
    key: &str,
    start: impl FnOnce() -> Result<Checker>,
    request: &str,
    ok: impl FnOnce(&T) -> bool,
) -> Result<std::result::Result<T, String>> {
    CHECKER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().is_none_or(|c| c.key != key) {
            *slot = None;
            *slot = Some(start()?);
        }
        let answer = slot.as_mut().expect("started above").ask::<T>(request);
        if !matches!(&answer, Ok(a) if ok(a)) {
            *slot = None;
        }
        Ok(answer)
    })
}

/// Stop this thread's checker, if one runs (the end of a configuration).
pub fn finish() {
    CHECKER.with(|c| c.borrow_mut().take());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in checker: a shell that reads one request and runs `script`.
    fn fake(dir: &std::path::Path, script: &str) -> Checker {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("read line; {script}")]);
        Checker::spawn(String::new(), "the checker", cmd, dir.join("checker.err")).unwrap()
    }

    #[test]
    fn a_checker_that_dies_is_described_by_its_status_or_signal() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = fake(dir.path(), "echo 'engine gave up' >&2; exit 3");
        let why = c.ask::<u64>("4\tstate").unwrap_err();
        assert!(
            why.starts_with("the checker ended during recovery"),
            "{why}"
        );
        assert!(
            why.contains('3') && why.ends_with("engine gave up"),
            "{why}"
        );
        let mut c = fake(dir.path(), "kill -9 $$");
        assert_eq!(
            c.ask::<u64>("4\tstate").unwrap_err(),
            "recovery killed the checker with signal 9"
        );
        // An answer that is not the JSON asked for is a death too (the checker is not trusted
        // further).
        let mut c = fake(dir.path(), "echo 'not json'");
        assert!(c.ask::<u64>("4\tstate").is_err());
        let mut c = fake(dir.path(), "echo 17; read more");
        assert_eq!(c.ask::<u64>("4\tstate"), Ok(17));
    }
}
