//! `device capture`: an Android app's SQL, captured where it runs. Turns on the framework's
//! statement and timing logs (and, where the build reads them, the operation log for every
//! statement with its bound arguments), streams the device's log to the host ([`stream`]),
//! restarts the app so its process reads the properties, collects until the duration's end or
//! Ctrl-C, puts every property back as it was, reads its databases' schema ([`schema`]: the
//! files copied to the host, so retail phones without `sqlite3` too), and writes the capture
//! as pocketbench's statement log (`jsonl`, read through the `android-logcat` front end)
//! beside the app's raw logcat.
//!
//! What adb may not do on a user build (the `db.log.*` properties, `run-as` on a
//! non-debuggable app) is skipped and said. The properties are restored on success, on every
//! error, and on every SIGINT or SIGTERM, however many arrive: while a capture runs they are
//! caught (`platform::interrupt`), and the adb calls run in their own process group, so a
//! Ctrl-C at the terminal cannot cut one short.

mod schema;
mod stream;
mod write;

pub use schema::{parse_listing, sidecar, MAX_DATABASES, MAX_PULL_BYTES};
pub use stream::MAX_LINE;

use super::sh_quote;
use super::transport::Transport;
use crate::error::{Error, Result};
use crate::limits::escape;
use crate::platform::interrupt::{self, Catch};
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use stream::{LogStream, Marker, Unseen};

/// The properties a capture sets, and to what.
pub const PROPERTIES: [(&str, &str); 4] = [
    ("log.tag.SQLiteStatements", "VERBOSE"),
    ("log.tag.SQLiteTime", "VERBOSE"),
    ("db.log.slow_query_threshold", "0"),
    ("db.log.detailed", "true"),
];

/// What stderr says on each SIGINT or SIGTERM during a capture.
const NOTE: &str = "ending the capture: the phone's properties are put back and what was collected is written first (Ctrl-\\ quits at once, leaving them set)";

/// How often the collection looks whether the log stream still runs.
const SLICE: Duration = Duration::from_millis(500);

/// What `device capture` was asked.
#[derive(Clone, Debug)]
pub struct CaptureRequest {
    pub package: String,
    /// How long to collect; `None`: until SIGINT or SIGTERM (Ctrl-C).
    pub duration: Option<Duration>,
    pub output: PathBuf,
}

/// What it did.
#[derive(Debug, Default, Serialize)]
pub struct CaptureReport {
    pub output: PathBuf,
    pub logcat: PathBuf,
    /// Properties set (and restored afterwards).
    pub set: Vec<String>,
    /// Properties the device refused, with what it said.
    pub not_set: Vec<String>,
    pub pids: Vec<u32>,
    pub lines: u64,
    /// Log lines over the length kept (`stream::MAX_LINE`), left out.
    pub lines_too_long: u64,
    pub statements: u64,
    pub databases: Vec<String>,
    pub schema_objects: u64,
    /// How the app's files were reached: `run-as`, `root shell`, `su -c` or `su 0 sh -c`.
    pub schema_via: Option<String>,
    /// Why the schema (or some database's) could not be read, when it could not.
    pub schema_problem: Option<String>,
    /// Why the log may lack lines (the stream ended early, the end marker never came).
    pub log_problem: Option<String>,
    /// The signal that ended the collection (`SIGINT`, `SIGTERM`), when one did.
    pub interrupted: Option<String>,
}

fn package_ok(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 255
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
}

/// Runs `script`, returning its stdout; a non-zero status is a failure naming `what`.
fn run(t: &dyn Transport, what: &str, script: &str) -> Result<String> {
    let out = t.shell(script)?;
    if out.rc != 0 {
        return Err(Error::failed(format!(
            "{}: {what} failed: {}",
            t.name(),
            crate::limits::one_line(out.stderr.trim())
        )));
    }
    Ok(out.stdout)
}

/// The properties changed on a device, put back when dropped.
struct Restore<'a> {
    t: &'a dyn Transport,
    changed: Vec<(String, String)>,
}

impl Restore<'_> {
    /// Put every property back, newest first; the names of those that could not be.
    fn restore(&mut self) -> Vec<String> {
        let mut failed = Vec::new();
        for (k, v) in self.changed.drain(..).rev() {
            let ok = self
                .t
                .shell(&format!("setprop {k} {}", sh_quote(&v)))
                .is_ok_and(|o| o.rc == 0);
            if !ok {
                failed.push(k);
            }
        }
        failed
    }
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let failed = self.restore();
        if !failed.is_empty() {
            eprintln!(
                "{}: could not restore {}: set them back with `adb shell setprop NAME ''`",
                self.t.name(),
                failed.join(", ")
            );
        }
    }
}

/// Why the set-up did not finish.
enum Stop {
    Failed(Error),
    Interrupted(&'static str),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Failed(e)
    }
}

impl From<super::transport::Lost> for Stop {
    fn from(l: super::transport::Lost) -> Self {
        Stop::Failed(l.into())
    }
}

/// Capture `req.package`'s SQL on the adb device `t`.
pub fn capture(t: &dyn Transport, req: &CaptureRequest) -> Result<CaptureReport> {
    let Some(adb) = super::adb::of(t) else {
        return Err(Error::input(format!(
            "device capture: {} is not an Android device (boards: pocketbench device run {} -- capture -o app.jsonl -- COMMAND)",
            t.name(),
            t.name()
        )));
    };
    if !package_ok(&req.package) {
        return Err(Error::input(format!(
            "--package: {} is not an Android package name (letters, digits, `.` and `_`)",
            escape(&req.package)
        )));
    }
    let pkg = &req.package;
    let mut report = CaptureReport {
        output: req.output.clone(),
        logcat: req.output.with_extension("logcat"),
        ..Default::default()
    };
    let interrupt = interrupt::catch(NOTE);
    let parent = match req.output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    let tmp = crate::platform::cleanup::TempDir::new(".pocketbench-capture-", Some(parent))
        .map_err(|e| {
            Error::input(format!(
                "-o {}: cannot create a working directory beside it: {e}",
                req.output.display()
            ))
        })?;
    let mut restore = Restore {
        t,
        changed: Vec::new(),
    };
    let mut stream = match set_up(t, pkg, &mut restore, &mut report, &interrupt, tmp.path()) {
        Ok(stream) => stream,
        Err(Stop::Failed(e)) => return Err(e),
        Err(Stop::Interrupted(sig)) => {
            let changed: Vec<String> = restore.changed.iter().map(|(k, _)| k.clone()).collect();
            let failed = restore.restore();
            return Err(Error::failed(if failed.is_empty() {
                format!(
                    "device capture: interrupted by {sig} while setting up: nothing captured; put back as they were: {}",
                    if changed.is_empty() { "none changed".into() } else { changed.join(", ") }
                )
            } else {
                format!(
                    "device capture: interrupted by {sig} while setting up: could not restore {}: set them back with `adb shell setprop NAME ''`",
                    failed.join(", ")
                )
            }));
        }
    };
    if req.duration.is_none() {
        eprintln!("capturing {pkg}: use the app, then press Ctrl-C");
    }
    let (signal, cut) = collect(&interrupt, req.duration, &mut stream);
    report.interrupted = signal.map(String::from);
    report.pids = run(t, "pidof", &format!("pidof {pkg} || true"))?
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect();
    if cut.is_none() {
        stream.mark(t, Marker::End)?;
    }
    let failed = restore.restore();
    if !failed.is_empty() {
        return Err(Error::failed(format!(
            "{}: could not restore {}",
            t.name(),
            failed.join(", ")
        )));
    }
    report.log_problem = match cut {
        Some(why) => Some(format!("{why}: lines logged after it are missing")),
        None => match stream.wait_for(Marker::End, &|| false) {
            Ok(()) => None,
            Err(Unseen::Stopped) => None,
            Err(Unseen::Failed(why)) => Some(format!(
                "the end of the capture never came through the log stream ({why}): its last lines may be missing"
            )),
        },
    };
    stream.stop();
    let after = interrupt.count();
    let found = schema::read(t, adb, pkg, tmp.path(), &|| interrupt.count() > after);
    report.schema_via = found.via.clone();
    report.databases = found.databases.clone();
    report.schema_objects = found.schema.len() as u64;
    if !found.problems.is_empty() {
        report.schema_problem = Some(found.problems.join("; "));
    }
    write::write(req, &stream, &found.schema, tmp.path(), &mut report)?;
    drop(interrupt);
    Ok(report)
}

/// Set the properties, clear the log buffer, start the stream (seen live), restart the app.
fn set_up(
    t: &dyn Transport,
    pkg: &str,
    restore: &mut Restore<'_>,
    report: &mut CaptureReport,
    interrupt: &Catch,
    dir: &std::path::Path,
) -> std::result::Result<LogStream, Stop> {
    let go_on = || {
        interrupt
            .first()
            .map_or(Ok(()), |sig| Err(Stop::Interrupted(sig)))
    };
    for (k, v) in PROPERTIES {
        go_on()?;
        let before = run(t, "getprop", &format!("getprop {k}"))?
            .trim()
            .to_string();
        if before == v {
            continue;
        }
        // Recorded before it is set: a set cut short is put back too.
        restore.changed.push((k.to_string(), before));
        let set = t.shell(&format!("setprop {k} {v} && getprop {k}"))?;
        if set.rc == 0 && set.stdout.trim() == v {
            report.set.push(format!("{k}={v}"));
        } else {
            if set.rc != 0 {
                // Refused: nothing changed.
                restore.changed.pop();
            }
            // A property the shell may not set (a debug property on a user build).
            let said = set.stderr.trim();
            report.not_set.push(if said.is_empty() {
                k.to_string()
            } else {
                format!("{k} ({})", crate::limits::one_line(said))
            });
        }
    }
    go_on()?;
    run(t, "logcat -c", "logcat -c")?;
    go_on()?;
    let adb = super::adb::of(t).expect("an adb device");
    let mut stream = LogStream::start(adb, dir)?;
    stream.mark(t, Marker::Start)?;
    match stream.wait_for(Marker::Start, &|| interrupt.first().is_some()) {
        Ok(()) => {}
        Err(Unseen::Stopped) => go_on()?,
        Err(Unseen::Failed(why)) => {
            return Err(Stop::Failed(Error::failed(format!(
                "{}: cannot stream the device's log: {why}",
                t.name()
            ))))
        }
    }
    go_on()?;
    run(t, "am force-stop", &format!("am force-stop {pkg}"))?;
    go_on()?;
    run(
        t,
        "starting the app",
        &format!("monkey -p {pkg} -c android.intent.category.LAUNCHER 1 >/dev/null"),
    )?;
    Ok(stream)
}

/// Collect until `duration` passes or a signal comes (the signal's name), or the stream ends
/// (why).
fn collect(
    interrupt: &Catch,
    duration: Option<Duration>,
    stream: &mut LogStream,
) -> (Option<&'static str>, Option<String>) {
    let until = duration.map(|d| Instant::now() + d);
    loop {
        let slice = until.map_or(SLICE, |u| {
            u.saturating_duration_since(Instant::now()).min(SLICE)
        });
        if let Some(sig) = interrupt.wait(Some(slice)) {
            return (Some(sig), None);
        }
        if let Some(why) = stream.ended() {
            return (None, Some(why));
        }
        if until.is_some_and(|u| Instant::now() >= u) {
            return (None, None);
        }
    }
}
