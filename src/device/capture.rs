//! `device capture`: an Android app's SQL, captured where it runs. Turns on the framework's
//! statement and timing logs (and, where the build reads them, the operation log for every
//! statement with its bound arguments), restarts the app so its process reads them, collects
//! the app's logcat lines, reads its databases' schema, puts every property back as it was,
//! and writes the capture as pocketbench's statement log (`jsonl`, read through the
//! `android-logcat` front end) beside the raw logcat.
//!
//! What adb may not do on a user build (the `db.log.*` properties, `run-as` on a
//! non-debuggable app) is skipped and said; the properties are restored on success and on
//! every error.

use super::transport::Transport;
use crate::error::{Error, Result};
use crate::limits::escape;
use crate::workload::import::logcat::AndroidLogcat;
use crate::workload::import::logcat_line::Clock;
use crate::workload::import::{sqltext, LogFormat, LogRecord, SchemaRecord};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The properties a capture sets, and to what.
pub const PROPERTIES: [(&str, &str); 4] = [
    ("log.tag.SQLiteStatements", "VERBOSE"),
    ("log.tag.SQLiteTime", "VERBOSE"),
    ("db.log.slow_query_threshold", "0"),
    ("db.log.detailed", "true"),
];

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
    pub statements: u64,
    pub databases: Vec<String>,
    pub schema_objects: u64,
    /// Why the schema could not be read, when it could not.
    pub schema_problem: Option<String>,
    /// The signal that ended the collection (`SIGINT`, `SIGTERM`), when one did.
    pub interrupted: Option<String>,
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
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
            out.stderr.trim()
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

/// Capture `req.package`'s SQL on the adb device `t`.
pub fn capture(t: &dyn Transport, req: &CaptureRequest) -> Result<CaptureReport> {
    if t.kind() != "adb" {
        return Err(Error::input(format!(
            "device capture: {} is not an Android device (boards: pocketbench device run {} -- capture -o app.jsonl -- COMMAND)",
            t.name(),
            t.name()
        )));
    }
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
    let interrupt = crate::platform::interrupt::catch();
    let mut restore = Restore {
        t,
        changed: Vec::new(),
    };
    for (k, v) in PROPERTIES {
        let before = run(t, "getprop", &format!("getprop {k}"))?
            .trim()
            .to_string();
        if before == v {
            continue;
        }
        let set = t.shell(&format!("setprop {k} {v} && getprop {k}"))?;
        if set.rc == 0 && set.stdout.trim() == v {
            restore.changed.push((k.to_string(), before));
            report.set.push(format!("{k}={v}"));
        } else {
            // A property the shell may not set (a debug property on a user build).
            let said = set.stderr.trim();
            report.not_set.push(if said.is_empty() {
                k.to_string()
            } else {
                format!("{k} ({said})")
            });
        }
    }
    run(t, "logcat -c", "logcat -c")?;
    run(t, "am force-stop", &format!("am force-stop {pkg}"))?;
    run(
        t,
        "starting the app",
        &format!("monkey -p {pkg} -c android.intent.category.LAUNCHER 1 >/dev/null"),
    )?;
    // Ctrl-C (or the duration's end) stops the collection; what follows still restores.
    if req.duration.is_none() {
        eprintln!("capturing {pkg}: use the app, then press Ctrl-C");
    }
    report.interrupted = interrupt.wait(req.duration).map(String::from);
    report.pids = run(t, "pidof", &format!("pidof {pkg} || true"))?
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect();
    let logcat = run(t, "logcat", "logcat -d -v threadtime -v usec")?;
    let failed = restore.restore();
    if !failed.is_empty() {
        return Err(Error::failed(format!(
            "{}: could not restore {}",
            t.name(),
            failed.join(", ")
        )));
    }
    let schema = read_schema(t, pkg, &mut report);
    write(req, &logcat, &schema, &mut report)?;
    Ok(report)
}

/// `sqlite_master` of each of the app's databases, through `run-as` (debuggable apps) or `su`.
fn read_schema(t: &dyn Transport, pkg: &str, report: &mut CaptureReport) -> Vec<SchemaRecord> {
    let run_as = |cmd: &str| format!("run-as {pkg} sh -c {}", sh_quote(cmd));
    let su = |cmd: &str| {
        format!(
            "su -c {}",
            sh_quote(&format!("cd /data/data/{pkg} && {cmd}"))
        )
    };
    let ways: [&dyn Fn(&str) -> String; 2] = [&run_as, &su];
    let mut problems = Vec::new();
    for via in ways {
        let Ok(out) = t.shell(&via("pwd; ls databases")) else {
            continue;
        };
        if out.rc != 0 {
            problems.push(out.stderr.trim().to_string());
            continue;
        }
        let mut lines = out.stdout.lines();
        let home = lines.next().unwrap_or("").trim().to_string();
        let mut schema = Vec::new();
        let names = lines
            .map(str::trim)
            .filter(|n| n.ends_with(".db") && package_ok(n));
        for name in names {
            let db = format!("{home}/databases/{name}");
            report.databases.push(db.clone());
            let Ok(out) = t.shell(&via(&format!("sqlite3 databases/{name} .schema"))) else {
                continue;
            };
            for sql in crate::workload::import::schema::split_statements(&out.stdout) {
                if let Some((kind, obj)) = sqltext::created_object(&sql) {
                    schema.push(SchemaRecord {
                        db: Some(db.clone()),
                        kind,
                        name: obj,
                        sql,
                    });
                }
            }
        }
        report.schema_objects = schema.len() as u64;
        return schema;
    }
    report.schema_problem = Some(if problems.is_empty() {
        "no way to read the app's files".into()
    } else {
        problems.join("; ")
    });
    Vec::new()
}

/// The app's lines (its pids; all lines when none was found) to `.logcat`, and the statement
/// log read from them with the schema first.
fn write(
    req: &CaptureRequest,
    logcat: &str,
    schema: &[SchemaRecord],
    report: &mut CaptureReport,
) -> Result<()> {
    let create = |p: &Path| {
        std::fs::File::create(p)
            .map(std::io::BufWriter::new)
            .map_err(|e| Error::input(format!("-o {}: cannot write: {e}", p.display())))
    };
    let mut raw = create(&report.logcat)?;
    let mut jsonl = create(&req.output)?;
    let io = |e: std::io::Error| Error::failed(format!("{}: {e}", req.output.display()));
    let mut clock = Clock::default();
    let mut front = AndroidLogcat::new();
    let mut records = Vec::new();
    for line in logcat.lines() {
        let pid = clock.parse(line).and_then(|l| l.pid);
        if !report.pids.is_empty() && !pid.is_some_and(|p| report.pids.contains(&p)) {
            continue;
        }
        report.lines += 1;
        writeln!(raw, "{line}").map_err(io)?;
        front.feed(line, &mut records);
    }
    front.finish(&mut records);
    // The schema's database as the statements name it (`/data/user/0/APP/…` where `run-as`
    // said `/data/data/APP/…`): the same file name.
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let mut named: Vec<String> = Vec::new();
    for r in &records {
        if let LogRecord::Statement(st) = r {
            if let Some(db) = &st.db {
                if !named.contains(db) && named.len() < 64 {
                    named.push(db.clone());
                }
            }
        }
    }
    for s in schema {
        let mut s = s.clone();
        if let Some(db) = &s.db {
            if let Some(same) = named.iter().find(|n| base(n) == base(db)) {
                s.db = Some(same.clone());
            }
        }
        let line = serde_json::to_string(&LogRecord::Schema(s))
            .map_err(|e| Error::failed(e.to_string()))?;
        writeln!(jsonl, "{line}").map_err(io)?;
    }
    for r in &records {
        report.statements += u64::from(matches!(r, LogRecord::Statement(_)));
        let j = serde_json::to_string(r).map_err(|e| Error::failed(e.to_string()))?;
        writeln!(jsonl, "{j}").map_err(io)?;
    }
    raw.flush().map_err(io)?;
    jsonl.flush().map_err(io)?;
    Ok(())
}
