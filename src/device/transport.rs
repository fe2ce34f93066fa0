//! What pocketbench needs from a connection to a device, whatever carries it: run a shell
//! script and get its output and exit status, copy a file there and back. [`super::adb::Adb`]
//! and [`super::ssh::Ssh`] implement it by running the system's `adb`, `ssh` and `scp`.
//!
//! Failures of the connection itself (the tool missing, the device gone, authentication
//! refused) are [`Lost`] errors, told apart from a script that ran and failed, so a job can
//! wait through a pulled cable instead of giving up on a run that goes on.

use crate::error::{Error, Result};
use crate::limits;
use std::path::Path;
use std::process::{Command, Output};

/// The most output a probe or a progress poll reads back from one shell call.
pub const MAX_SHELL_OUTPUT: usize = 4 << 20;

/// The output of a shell script run on the device.
#[derive(Debug)]
pub struct Shell {
    pub stdout: String,
    pub stderr: String,
    /// The script's exit status.
    pub rc: i32,
}

impl Shell {
    /// What the script said last: its last non-empty line of stderr (else of stdout), made
    /// one line; its exit status when it said nothing.
    pub fn said(&self) -> String {
        let last = |t: &str| {
            t.lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .map(limits::one_line)
        };
        last(&self.stderr)
            .or_else(|| last(&self.stdout))
            .unwrap_or_else(|| format!("exit status {}", self.rc))
    }
}

/// A connection failure: the device could not be reached or the tool failed before the script
/// ran. Carries the message to show.
#[derive(Debug)]
pub struct Lost(pub String);

pub type Reach<T> = std::result::Result<T, Lost>;

impl From<Lost> for Error {
    fn from(l: Lost) -> Self {
        Error::failed(l.0)
    }
}

pub trait Transport {
    /// How results name the device: `adb:SERIAL`, `ssh:user@host[:port]`, or for a configured
    /// ssh target `ssh:NAME (user@host[:port])`.
    fn name(&self) -> String;
    /// The arguments of `pocketbench device pull` (or `run`) that select this device again.
    fn selector(&self) -> Vec<String>;
    /// `adb` or `ssh`.
    fn kind(&self) -> &'static str;
    /// The working directory on the device: `--dir`, or the transport's default.
    fn dir(&self) -> String;
    /// Run `script` with the device's `sh`.
    fn shell(&self, script: &str) -> Reach<Shell>;
    /// Copy a local file to `remote` (a path on the device).
    fn push(&self, local: &Path, remote: &str) -> Reach<()>;
    /// Copy `remote` to a local file.
    fn pull(&self, remote: &str, local: &Path) -> Reach<()>;
    /// The transport as itself, for what only one kind offers (adb's `exec-out` and `logcat`:
    /// `adb::of` finds the adb device behind a transport without this module naming it).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The marker the exit status of a script is printed after: adb before Android 7 does not
/// pass a script's exit status on, so every transport reads it from the output instead.
const RC_MARKER: &str = "@pocketbench-rc=";

/// `script` wrapped so its exit status is printed on the last line of its output.
pub fn with_status(script: &str) -> String {
    format!("{script}\necho \"{RC_MARKER}$?\"")
}

/// Split the output of a [`with_status`] script into its output and status; `None` when the
/// marker is missing (the script never finished: the connection broke).
pub fn split_status(out: &Output) -> Option<Shell> {
    let text = String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(MAX_SHELL_OUTPUT)]);
    let at = text.rfind(RC_MARKER)?;
    let rc = text[at + RC_MARKER.len()..].trim().parse().ok()?;
    Some(Shell {
        stdout: text[..at].to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        rc,
    })
}

/// The exit status printed by [`with_status`] at the very end of raw output `tail` (the last
/// bytes of a binary stream): where the marker starts in `tail`, and the status. `None` when
/// the output does not end with it (the script never finished).
pub fn trailing_status(tail: &[u8]) -> Option<(usize, i32)> {
    let marker = RC_MARKER.as_bytes();
    let at = tail.windows(marker.len()).rposition(|w| w == marker)?;
    let rest = std::str::from_utf8(&tail[at + marker.len()..]).ok()?;
    let rc = rest.strip_suffix('\n').unwrap_or(rest).parse().ok()?;
    Some((at, rc))
}

/// A local tool (`adb`) running in a process group of its own, so a Ctrl-C at the terminal
/// reaches pocketbench and not it: pocketbench decides what a signal means (a capture goes on
/// to put a phone's properties back through further adb calls). It is registered with the
/// signal handling, which stops it when a signal ends pocketbench; dropped while still
/// running, it is killed.
pub struct Detached {
    child: Option<std::process::Child>,
    pid: u32,
}

impl Detached {
    /// Start `cmd` (its stdin empty; stdout and stderr as `cmd` sets them).
    pub fn start(cmd: &mut Command, tool: &str, install: &str) -> Reach<Detached> {
        use std::os::unix::process::CommandExt;
        let child = crate::platform::signals::unblocked(cmd)
            .stdin(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| cannot_start(e, tool, install))?;
        let pid = child.id();
        crate::platform::signals::register_child(pid, false);
        Ok(Detached {
            child: Some(child),
            pid,
        })
    }

    /// Whether it has ended, and how.
    pub fn ended(&mut self) -> Option<std::process::ExitStatus> {
        self.child.as_mut()?.try_wait().ok().flatten()
    }

    /// Wait for it, collecting what it printed to the pipes `cmd` set.
    pub fn output(mut self) -> std::io::Result<Output> {
        match self.child.take() {
            Some(child) => child.wait_with_output(),
            None => Err(std::io::Error::other("waited for already")),
        }
    }

    /// Kill it if it still runs, and wait for it.
    pub fn stop(&mut self) {
        if let Some(c) = &mut self.child {
            if matches!(c.try_wait(), Ok(None)) {
                let _ = c.kill();
            }
            let _ = c.wait();
        }
    }
}

impl Drop for Detached {
    fn drop(&mut self) {
        self.stop();
        crate::platform::signals::unregister_child(self.pid);
    }
}

/// Run `cmd` as a [`Detached`] tool and wait for its output (both pipes).
pub fn run_detached(cmd: &mut Command, tool: &str, install: &str) -> Reach<Output> {
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    Detached::start(cmd, tool, install)?
        .output()
        .map_err(|e| Lost(format!("{tool}: {e}")))
}

fn cannot_start(e: std::io::Error, tool: &str, install: &str) -> Lost {
    if e.kind() == std::io::ErrorKind::NotFound {
        Lost(format!("{tool} not found on PATH: {install}"))
    } else {
        Lost(format!("{tool}: cannot start it: {e}"))
    }
}

/// Run a local tool (`adb`, `ssh`, `scp`), turning "not installed" into a clear message.
pub fn run_tool(cmd: &mut Command, tool: &str, install: &str) -> Reach<Output> {
    cmd.stdin(std::process::Stdio::null());
    cmd.output().map_err(|e| cannot_start(e, tool, install))
}

/// The most telling line of a failed tool's output: the last non-empty line of stderr (or
/// stdout), escaped.
pub fn tool_message(out: &Output) -> String {
    let pick = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string)
    };
    let line = pick(&out.stderr)
        .or_else(|| pick(&out.stdout))
        .unwrap_or_else(|| format!("exit status {}", out.status.code().unwrap_or(-1)));
    limits::escape(&line)
}

/// Run `script` on `t` and require it to succeed; a non-zero status is a failure naming
/// `what`, with the script's last line of output.
pub fn must(t: &dyn Transport, what: &str, script: &str) -> Result<String> {
    let sh = t.shell(script)?;
    if sh.rc != 0 {
        let why = sh
            .stderr
            .lines()
            .chain(sh.stdout.lines())
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("no output")
            .to_string();
        return Err(Error::failed(format!(
            "{}: {what} failed (status {}): {}",
            t.name(),
            sh.rc,
            limits::escape(&why)
        )));
    }
    Ok(sh.stdout)
}

#[cfg(test)]
mod tests {
    use super::trailing_status;

    #[test]
    fn the_status_is_read_only_from_the_very_end_of_a_binary_stream() {
        let mut file = b"SQLite format 3\0\r\n\xff@pocketbench-rc=9 not the end".to_vec();
        assert_eq!(trailing_status(&file), None, "a marker inside the data");
        file.extend_from_slice(b"@pocketbench-rc=0\n");
        assert_eq!(trailing_status(&file), Some((48, 0)));
        assert_eq!(trailing_status(b"@pocketbench-rc=127\n"), Some((0, 127)));
        assert_eq!(trailing_status(b"cut short"), None);
    }
}
