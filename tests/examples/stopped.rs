//! Examples that run until stopped (a server, an agent, a log streamed by a `… &` job): each
//! starts as written in a process group of its own, is waited for until its output shows it is
//! ready, keeps running while the document's next examples run (as in a second terminal), and
//! is stopped the way the docs say (Ctrl-C: SIGINT; `kill %1`: SIGTERM) before the example its
//! mark names or at the end of the document. It must still be running when stopped (a server
//! that could not listen, an agent that gave up, fails), and must end on the signal. An example
//! that listens on an address holds it while it runs: another document's example for the same
//! address waits for it, so the two workers never race for a port; a program outside the test
//! holding the address makes the example end before it is ready, which fails saying so.

use super::marks::Mark;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long an example may take to show it is ready, or to show what it must have done before
/// it is stopped; and how long it may take to end once signalled.
const DEADLINE: Duration = Duration::from_secs(120);

/// Addresses an until-stopped example of some document listens on now.
static HELD: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
static FREED: Condvar = Condvar::new();

fn hold(address: &str) {
    let mut held = HELD.lock().unwrap();
    while held.contains(address) {
        held = FREED.wait(held).unwrap();
    }
    held.insert(address.to_string());
}

fn free(address: &str) {
    HELD.lock().unwrap().remove(address);
    FREED.notify_all();
}

/// The processes of group `pgid` that have not ended (zombies left out: in a container nothing
/// may reap a background job's processes).
fn alive(pgid: i32) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
            let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
            let mut f = rest.split_whitespace();
            let state = f.next();
            let pgrp = f.nth(1).and_then(|p| p.parse::<i32>().ok());
            pgrp == Some(pgid) && state != Some("Z")
        })
        .count()
}

/// An until-stopped example while it runs.
pub struct Running {
    pub at: String,
    pub command: String,
    child: Child,
    out: PathBuf,
    err: PathBuf,
    /// The file its output is written to by the example itself (`> notes.logcat`), if any.
    watch: Option<PathBuf>,
    pub stop_before: Option<String>,
    stop_when: Option<String>,
    signal: i32,
    listens: Option<String>,
    /// Set once it has ended and been checked.
    ended: bool,
}

fn read(p: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned()
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().rev().take(4).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
}

impl Running {
    /// Start `command` (the example `at`, marked `mark`) with `start`, which runs a shell script
    /// in the scratch directory with its output in the two files; wait until it is ready.
    pub fn start(
        at: &str,
        command: &str,
        mark: &Mark,
        dir: &Path,
        start: impl FnOnce(&str, &Path, &Path) -> Child,
        files: &Path,
    ) -> Result<Running, String> {
        let signal = match mark.signal.as_deref().unwrap_or("INT") {
            "INT" => libc::SIGINT,
            "TERM" => libc::SIGTERM,
            other => return Err(format!("its mark's signal {other:?} is not INT or TERM")),
        };
        if let Some(a) = &mark.listens {
            hold(a);
        }
        let n = std::fs::read_dir(files).map(|d| d.count()).unwrap_or(0);
        let (out, err) = (
            files.join(format!("{n}.out")),
            files.join(format!("{n}.err")),
        );
        let child = start(command, &out, &err);
        let mut r = Running {
            at: at.to_string(),
            command: command.to_string(),
            child,
            out,
            err,
            watch: mark.watch.as_ref().map(|w| dir.join(w)),
            stop_before: mark.stop_before.clone(),
            stop_when: mark.stop_when.clone(),
            signal,
            listens: mark.listens.clone(),
            ended: false,
        };
        if let Some(ready) = &mark.ready {
            if let Err(e) = r.wait_for(ready, "ready") {
                let _ = r.end();
                return Err(e);
            }
        }
        Ok(r)
    }

    /// What it has written: its output, or the file it writes to.
    fn written(&self) -> String {
        match &self.watch {
            Some(w) => read(w),
            None => format!("{}{}", read(&self.out), read(&self.err)),
        }
    }

    /// None while it runs; else why it is not running.
    fn not_running(&mut self) -> Option<String> {
        let pgid = self.child.id() as i32;
        match self.child.try_wait().unwrap() {
            None => None,
            Some(s) if s.success() && alive(pgid) > 0 => None,
            Some(s) => Some(format!(
                "ended by itself ({s}) instead of running until stopped: {}",
                tail(&read(&self.err))
            )),
        }
    }

    /// Wait (at most [`DEADLINE`]) until what it has written contains `text`.
    fn wait_for(&mut self, text: &str, what: &str) -> Result<(), String> {
        let t0 = Instant::now();
        loop {
            if self.written().contains(text) {
                return Ok(());
            }
            if let Some(why) = self.not_running() {
                let hint = match &self.listens {
                    Some(a) => format!(" (is {a} taken by a program outside this test?)"),
                    None => String::new(),
                };
                return Err(format!("before it was {what} ({text:?}): {why}{hint}"));
            }
            if t0.elapsed() > DEADLINE {
                return Err(format!(
                    "not {what} after {} s: no {text:?} in what it wrote: {}",
                    DEADLINE.as_secs(),
                    tail(&self.written())
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stop it as the docs say, checking it ran until then and ended on the signal.
    pub fn stop(mut self) -> Result<(), String> {
        if let Some(text) = self.stop_when.clone() {
            self.wait_for(&text, "done")?;
        }
        if let Some(why) = self.not_running() {
            let _ = self.end();
            return Err(why);
        }
        self.end()
    }

    /// Signal the group, wait for it to end (SIGKILL past the deadline), free its address.
    fn end(&mut self) -> Result<(), String> {
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        let pgid = self.child.id() as i32;
        // SAFETY: signalling the process group this example was started in.
        unsafe { libc::killpg(pgid, self.signal) };
        let t0 = Instant::now();
        let mut result = Ok(());
        while self.child.try_wait().unwrap().is_none() || alive(pgid) > 0 {
            if t0.elapsed() > DEADLINE {
                // SAFETY: as above.
                unsafe { libc::killpg(pgid, libc::SIGKILL) };
                let _ = self.child.wait();
                result = Err(format!(
                    "still running {} s after the signal {}",
                    DEADLINE.as_secs(),
                    self.signal
                ));
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if let Some(a) = &self.listens {
            free(a);
        }
        result
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.end();
    }
}
