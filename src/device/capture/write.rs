//! The capture's two files: the app's lines of the streamed log (its pids' lines; all lines
//! when none was found) as `NAME.logcat`, and the statement log read from them through the
//! `android-logcat` front end, the schema records first. Both appear whole or not at all; the
//! statements wait in the working directory until the schema's database names are known.

use super::stream::LogStream;
use super::CaptureReport;
use super::CaptureRequest;
use crate::error::{Error, Result};
use crate::platform::atomic_file::AtomicFile;
use crate::workload::import::logcat::AndroidLogcat;
use crate::workload::import::logcat_line::Clock;
use crate::workload::import::{LogFormat, LogRecord, SchemaRecord};
use std::io::Write;
use std::path::Path;

/// Databases the statements name that the schema's are matched against.
const MAX_NAMED: usize = 64;

pub fn write(
    req: &CaptureRequest,
    stream: &LogStream,
    schema: &[SchemaRecord],
    dir: &Path,
    report: &mut CaptureReport,
) -> Result<()> {
    let create = |p: &Path| {
        AtomicFile::create(p)
            .map_err(|e| Error::input(format!("-o {}: cannot write: {e}", p.display())))
    };
    let io = |p: &Path| {
        let p = p.display().to_string();
        move |e: std::io::Error| Error::failed(format!("{p}: {e}"))
    };
    let json = |r: &LogRecord| serde_json::to_string(r).map_err(|e| Error::failed(e.to_string()));
    let mut raw = create(&report.logcat)?;
    let statements_path = dir.join("statements.jsonl");
    let mut statements = std::fs::File::create(&statements_path)
        .map(std::io::BufWriter::new)
        .map_err(io(&statements_path))?;
    let mut clock = Clock::default();
    let mut front = AndroidLogcat::new();
    let mut records = Vec::new();
    let mut named: Vec<String> = Vec::new();
    let pids = report.pids.clone();
    let (mut lines, mut count) = (0u64, 0u64);
    let mut put = |records: &mut Vec<LogRecord>| -> Result<()> {
        for r in records.drain(..) {
            if let LogRecord::Statement(st) = &r {
                count += 1;
                if let Some(db) = &st.db {
                    if !named.contains(db) && named.len() < MAX_NAMED {
                        named.push(db.clone());
                    }
                }
            }
            writeln!(statements, "{}", json(&r)?).map_err(io(&statements_path))?;
        }
        Ok(())
    };
    report.lines_too_long = stream.each_line(&mut |line| {
        let pid = clock.parse(line).and_then(|l| l.pid);
        if !pids.is_empty() && !pid.is_some_and(|p| pids.contains(&p)) {
            return Ok(());
        }
        lines += 1;
        writeln!(raw, "{line}").map_err(io(&report.logcat))?;
        front.feed(line, &mut records);
        put(&mut records)
    })?;
    front.finish(&mut records);
    put(&mut records)?;
    statements.flush().map_err(io(&statements_path))?;
    drop(statements);
    report.lines = lines;
    report.statements = count;

    let mut jsonl = create(&req.output)?;
    // The schema's database as the statements name it (`/data/user/0/APP/…` where `run-as`
    // said `/data/data/APP/…`): the same file name.
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    for s in schema {
        let mut s = s.clone();
        if let Some(db) = &s.db {
            if let Some(same) = named.iter().find(|n| base(n) == base(db)) {
                s.db = Some(same.clone());
            }
        }
        writeln!(jsonl, "{}", json(&LogRecord::Schema(s))?).map_err(io(&req.output))?;
    }
    let mut from = std::fs::File::open(&statements_path).map_err(io(&statements_path))?;
    std::io::copy(&mut from, &mut jsonl).map_err(io(&req.output))?;
    raw.commit().map_err(io(&report.logcat))?;
    jsonl.commit().map_err(io(&req.output))?;
    Ok(())
}
