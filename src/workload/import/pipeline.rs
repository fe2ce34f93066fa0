//! `trace import` end to end: choose the front end, survey the log, write the schema and the
//! converted statements to a version 2 work file (running each once on an in-memory SQLite
//! with `--check`), then copy it into the final trace with its header: version 1 when nothing
//! of version 2 is used (`--args inline --merge-connections`).

use super::convert::{ArgsMode, Converter, Rules};
use super::{schema, source, LogRecord};
use crate::engine::sqlite::session::SqlSession;
use crate::error::{Error, Result, ResultExt};
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use crate::workload::trace::{
    ImportInfo, TraceHeader, TraceItem, TraceReader, TraceWriter, VERSION_1, VERSION_2,
};
use crate::workload::WorkloadInfo;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Everything `trace import` was asked.
#[derive(Clone, Debug)]
pub struct ImportRequest {
    pub input: PathBuf,
    pub output: PathBuf,
    pub format: String,
    pub db: Option<String>,
    pub rules: Rules,
    pub schema_file: Option<PathBuf>,
    pub schema_from: Option<PathBuf>,
    pub data_from: Option<PathBuf>,
    pub check: bool,
    pub drop_failing: bool,
}

/// What an import did.
#[derive(Debug, Serialize)]
pub struct ImportReport {
    pub file: PathBuf,
    pub format: String,
    pub version: u16,
    pub db: String,
    pub other_dbs: BTreeMap<String, u64>,
    pub lines: u64,
    pub skipped_lines: u64,
    pub load_ops: u64,
    pub run_ops: u64,
    pub connections: u32,
    pub schema: String,
    pub dropped: BTreeMap<String, u64>,
    pub settings: BTreeMap<String, String>,
    /// The settings as engine options (`-o journal_mode=wal`), for "as the app ran".
    pub engine_options: Vec<String>,
    /// `--check`: statements that failed on an in-memory SQLite (first ones, as text).
    pub check_failures: Vec<String>,
    pub check_failed: u64,
    pub digest: String,
}

/// The in-memory database `--check` runs the trace on.
struct Check {
    session: SqlSession,
    _conn: rusqlite::Connection,
    failing: HashSet<u64>,
    messages: Vec<String>,
    failed: u64,
}

impl Check {
    fn open() -> Result<Check> {
        let conn = rusqlite::Connection::open_in_memory().run_err("--check: in-memory SQLite")?;
        // SAFETY: the session is dropped before the connection (field order).
        let session = SqlSession::new(&crate::engine::sqlite::api::BUNDLED, unsafe {
            conn.handle()
        });
        Ok(Check {
            session,
            _conn: conn,
            failing: HashSet::new(),
            messages: Vec::new(),
            failed: 0,
        })
    }

    fn run(&mut self, op: &Op, run_seq: Option<u64>) {
        let r = match op {
            Op::Sql { sql } => self.session.exec_sql(sql),
            Op::SqlArgs { sql, args } => self.session.exec_bound(sql, args),
            _ => Ok(0),
        };
        if let Err(e) = r {
            self.failed += 1;
            if let Some(s) = run_seq {
                self.failing.insert(s);
            }
            if self.messages.len() < 20 {
                let what = run_seq.map_or("load".to_string(), |s| format!("run #{s}"));
                let text = crate::workload::trace::show::describe(op);
                self.messages.push(format!("{what}: {text}: {e}"));
            }
        }
    }
}

/// Settings as the sqlite engine's `-o` options, where it has the option and the value.
fn engine_options(settings: &BTreeMap<String, String>) -> Vec<String> {
    let specs = crate::engine::sqlite::DESCRIPTOR.options;
    settings
        .iter()
        .filter_map(|(k, v)| {
            let v = match (k.as_str(), v.as_str()) {
                ("synchronous", n @ ("0" | "1" | "2" | "3")) => {
                    ["off", "normal", "full", "extra"][n.parse::<usize>().ok()?].to_string()
                }
                _ => v.clone(),
            };
            let pair = [(k.clone(), v.clone())];
            crate::engine::options::EngineOptions::validate("sqlite", specs, &pair)
                .ok()
                .map(|_| format!("-o {k}={v}"))
        })
        .collect()
}

pub fn import(req: &ImportRequest) -> Result<ImportReport> {
    if !(req.rules.speed.is_finite() && req.rules.speed > 0.0) {
        return Err(Error::input("--speed: must be a number above 0"));
    }
    let fe = source::choose(&req.input, &req.format)?;
    let mut survey = super::convert::Survey::default();
    source::read(&req.input, fe, &mut |r| survey.add(&r))?;
    if survey.statements.values().all(|n| *n == 0) {
        return Err(source::nothing_importable(&req.input));
    }
    let db = survey.choose(req.db.as_deref())?;
    let (load, schema_kind) = if let Some(f) = &req.schema_file {
        (schema::from_file(f)?, "file")
    } else if let Some(f) = &req.schema_from {
        (schema::from_database(f)?, "database")
    } else if let Some(objects) = survey.schema.get(&db).filter(|o| !o.is_empty()) {
        let mut objects = objects.clone();
        schema::order_objects(&mut objects);
        (objects.into_iter().map(|(_, _, s)| s).collect(), "log")
    } else {
        (Vec::new(), "none")
    };
    let objects = schema::objects_of(&load);

    let dir = crate::limits::dir_of(&req.output);
    let work_dir = tempfile::Builder::new()
        .prefix(".pocketbench-import-")
        .tempdir_in(dir)
        .input_err(format!("-o {}: cannot write there", req.output.display()))?;
    let work = work_dir.path().join("work.pbt");
    let mut header = TraceHeader {
        workload: WorkloadInfo {
            name: req
                .input
                .file_name()
                .map_or("import".into(), |n| n.to_string_lossy().into_owned()),
            source: "import".into(),
            model: DataModel::Sql,
            load_ops: 0,
            run_ops: 0,
            params: BTreeMap::new(),
            recorded_delays: true,
            initial_delay_ns: 0,
        },
        delay: "recorded".into(),
        seed: 0,
        generator: crate::TOOL_VERSION.to_string(),
        import: Some(ImportInfo {
            connections: crate::limits::MAX_CONNECTIONS as u32,
            ..Default::default()
        }),
    };
    let mut writer = TraceWriter::create(&work, &header, VERSION_2)?;
    let mut check = req.check.then(Check::open).transpose()?;
    let mut load_ops = 0u64;
    let mut load_op = |op: Op| -> Result<()> {
        if let Some(c) = check.as_mut() {
            c.run(&op, None);
        }
        load_ops += 1;
        writer.write_load(&op)
    };
    for sql in &load {
        load_op(Op::Sql { sql: sql.clone() })?;
    }
    if let Some(f) = &req.data_from {
        schema::each_row(f, req.rules.args == ArgsMode::Inline, &mut load_op)?;
    }
    let mut conv = Converter::new(&req.rules, &objects);
    let mut seq = 0u64;
    let mut emit = |t: TimedOp| -> Result<()> {
        if let Some(c) = check.as_mut() {
            c.run(&t.op, Some(seq));
        }
        seq += 1;
        writer.write_run(&t)
    };
    let lines = source::read(&req.input, fe, &mut |r| match r {
        LogRecord::Statement(s) if s.db.as_deref().unwrap_or("") == db => conv.feed(s, &mut emit),
        _ => Ok(()),
    })?;
    let converted = conv.finish(&mut emit)?;
    writer.finish()?;

    let mut dropped = lines.dropped.clone();
    for (k, v) in &converted.dropped {
        *dropped.entry(k.clone()).or_default() += v;
    }
    let failing = match (&check, req.drop_failing) {
        (Some(c), true) => c.failing.clone(),
        _ => HashSet::new(),
    };
    let keep = |seq: u64, t: &TimedOp| {
        let conn = t.recorded.map_or(0, |r| r.conn);
        !failing.contains(&seq) && converted.dangling.get(&conn).is_none_or(|from| seq < *from)
    };
    let mut kept = 0u64;
    let mut seq = 0u64;
    for item in TraceReader::open(&work)? {
        if let TraceItem::Run(t) = item? {
            kept += u64::from(keep(seq, &t));
            seq += 1;
        }
    }
    for (why, n) in [
        (
            "unfinished transaction (--dangling drop)",
            (seq - kept).saturating_sub(failing.len() as u64),
        ),
        ("failed the check (--drop-failing)", failing.len() as u64),
    ] {
        if n > 0 {
            *dropped.entry(why.into()).or_default() += n;
        }
    }
    let version = if req.rules.args == ArgsMode::Inline && req.rules.merge_connections {
        VERSION_1
    } else {
        VERSION_2
    };
    let args = match req.rules.args {
        ArgsMode::Bind => "bind",
        ArgsMode::Inline => "inline",
    };
    let mut other_dbs = survey.statements.clone();
    other_dbs.remove(&db);
    let info = ImportInfo {
        format: fe.name.into(),
        source: header.workload.name.clone(),
        db: db.clone(),
        other_dbs: other_dbs.clone(),
        connections: converted.connections,
        args: args.into(),
        settings: converted.settings.clone(),
        schema: schema_kind.into(),
        dropped: dropped.clone(),
        anonymized: Vec::new(),
    };
    header.workload.load_ops = load_ops;
    header.workload.run_ops = kept;
    header.workload.params = params(req, args);
    header.import = Some(info);
    let totals = copy(&work, &req.output, &header, version, &keep)?;
    let (check_failures, check_failed) = check.map_or((Vec::new(), 0), |c| (c.messages, c.failed));
    Ok(ImportReport {
        file: req.output.clone(),
        format: fe.name.into(),
        version,
        db,
        other_dbs,
        lines: lines.lines,
        skipped_lines: lines.skipped,
        load_ops,
        run_ops: kept,
        connections: converted.connections,
        schema: schema_kind.into(),
        dropped,
        engine_options: engine_options(&converted.settings),
        settings: converted.settings,
        check_failures,
        check_failed,
        digest: totals.digest_hex(),
    })
}

fn params(req: &ImportRequest, args: &str) -> BTreeMap<String, String> {
    let mut p = BTreeMap::new();
    p.insert("args".into(), args.into());
    p.insert(
        "dangling".into(),
        format!("{:?}", req.rules.dangling).to_lowercase(),
    );
    p.insert("speed".into(), req.rules.speed.to_string());
    p.insert(
        "merge-connections".into(),
        req.rules.merge_connections.to_string(),
    );
    if let Some((a, b)) = req.rules.window {
        p.insert("window".into(), format!("{a}ns..{b}ns"));
    }
    if let Some(g) = req.rules.max_gap_ns {
        p.insert("max-gap".into(), format!("{g}ns"));
    }
    p
}

/// Copy the work file's kept records into the final trace, each delay recomputed as the idle
/// time to the next kept statement.
fn copy(
    work: &Path,
    output: &Path,
    header: &TraceHeader,
    version: u16,
    keep: &dyn Fn(u64, &TimedOp) -> bool,
) -> Result<crate::workload::trace::TraceTotals> {
    let mut w = TraceWriter::create(output, header, version)?;
    let mut pending: Option<TimedOp> = None;
    let mut seq = 0u64;
    for item in TraceReader::open(work)? {
        match item? {
            TraceItem::Load(op) => w.write_load(&op)?,
            TraceItem::Run(t) => {
                seq += 1;
                if !keep(seq - 1, &t) {
                    continue;
                }
                if let Some(mut p) = pending.take() {
                    let (r, next) = (
                        p.recorded.unwrap_or_default(),
                        t.recorded.unwrap_or_default(),
                    );
                    p.delay_ns = next
                        .offset_ns
                        .saturating_sub(r.offset_ns + r.dur_ns.unwrap_or(0));
                    w.write_run(&p)?;
                }
                pending = Some(t);
            }
        }
    }
    if let Some(mut p) = pending {
        p.delay_ns = 0;
        w.write_run(&p)?;
    }
    w.finish()
}
