//! `trace import` end to end: choose the front end, survey the log, write the schema and the
//! converted statements to a version 2 work file (running each once on an in-memory SQLite
//! with `--check`; surveyed and converted in one read where [`onepass`] can), then copy it
//! into the final trace with its header (its blocks as they are when nothing is left out):
//! version 1 when nothing of version 2 is used (`--args inline --merge-connections`).

use super::convert::{ArgsMode, Converter, Rules};
use super::stats::file::TraceFeed;
use super::{onepass, schema, source, LogRecord};
use crate::error::{Error, Result, ResultExt};
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use crate::workload::trace::reader::check_op;
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
    /// `--infer-schema`: tables the statements use and no schema creates are inferred.
    pub infer_schema: bool,
    /// `--anonymize` with its `--salt`: every record rewritten before anything else sees it.
    pub anonymize: Option<super::anonymize::Anonymizer>,
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
    /// `--infer-schema`: the tables inferred, their columns and affinities, rows synthesised.
    pub inferred: Vec<super::infer::InferredTable>,
    /// Whether the log's own statements create a table (run-phase `CREATE TABLE`).
    pub log_creates_tables: bool,
    pub dropped: BTreeMap<String, u64>,
    pub settings: BTreeMap<String, String>,
    /// The settings as engine options (`-o journal_mode=wal`), for "as the app ran".
    pub engine_options: Vec<String>,
    /// `--check`: statements that failed on an in-memory SQLite (first ones, as text).
    pub check_failures: Vec<String>,
    pub check_failed: u64,
    pub digest: String,
    /// The trace's statistics, fed as the trace was written (a writer never reads its own
    /// output back: it may be a pipe).
    #[serde(skip)]
    pub stats: Option<super::stats::Stats>,
}

/// Where `--check` runs each statement: an in-memory SQLite (`engine::sqlite::session::
/// MemoryDb`), given by the caller so this layer needs no engine.
pub trait StatementCheck {
    /// Run one load or run statement; the engine's message when it fails.
    fn run(&mut self, op: &Op) -> std::result::Result<(), String>;
}

/// The check's findings.
struct Check<'a, C: StatementCheck + ?Sized> {
    db: &'a mut C,
    failing: HashSet<u64>,
    messages: Vec<String>,
    failed: u64,
}

impl<C: StatementCheck + ?Sized> Check<'_, C> {
    fn run(&mut self, op: &Op, run_seq: Option<u64>) {
        if let Err(e) = self.db.run(op) {
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

/// `--all-dbs DIR`: one trace per database the log names, each `DIR/NAME.pbt` after the
/// database file's name (letters, digits, `-`, `_`, `.`; a number added when two collide).
pub fn import_all<C: StatementCheck + ?Sized>(
    req: &ImportRequest,
    dir: &Path,
    mut check: Option<&mut C>,
) -> Result<Vec<ImportReport>> {
    let fe = source::choose(&req.input, &req.format)?;
    let mut survey = super::convert::Survey::default();
    let counts = source::read(&req.input, fe, &mut |mut r| {
        if let Some(a) = &req.anonymize {
            a.apply(&mut r);
        }
        survey.add(&r)
    })?;
    if survey.statements.values().all(|n| *n == 0) {
        return Err(source::nothing_read(&req.input, fe, &counts));
    }
    std::fs::create_dir_all(dir)
        .input_err(format!("--all-dbs {}: cannot create", dir.display()))?;
    let mut taken = HashSet::new();
    let mut out = Vec::new();
    for (db, n) in &survey.statements {
        if *n == 0 {
            continue;
        }
        let base: String = Path::new(db)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.trim_matches('.').is_empty() {
            "db".to_string()
        } else {
            base
        };
        let mut name = base.clone();
        for i in 2.. {
            if taken.insert(name.clone()) {
                break;
            }
            name = format!("{base}-{i}");
        }
        let one = ImportRequest {
            db: Some(db.clone()),
            output: dir.join(format!("{name}.pbt")),
            format: fe.name.to_string(),
            ..req.clone()
        };
        out.push(import(&one, check.as_deref_mut())?);
    }
    crate::output::folder::mark(dir)?;
    Ok(out)
}

/// Import `req.input` into `req.output`; with `check` (and `req.check`), every statement is
/// run once on it first. The report's `engine_options` is left for the caller to fill.
pub fn import<C: StatementCheck + ?Sized>(
    req: &ImportRequest,
    check: Option<&mut C>,
) -> Result<ImportReport> {
    if !(req.rules.speed.is_finite() && req.rules.speed > 0.0) {
        return Err(Error::input("--speed: must be a number above 0"));
    }
    if req.anonymize.as_ref().is_some_and(|a| a.scope.literals) && req.data_from.is_some() {
        return Err(Error::input(
            "--data-from: the database's rows would be copied as they are; leave out --data-from or --anonymize literals",
        ));
    }
    let anon = |mut r: LogRecord| {
        if let Some(a) = &req.anonymize {
            a.apply(&mut r);
        }
        r
    };
    let fe = source::choose(&req.input, &req.format)?;
    let mut survey = super::convert::Survey::default();
    // Beside the output when it is a file (so the work has room where the trace goes), else in
    // the temporary directory; removed on every signal.
    let made = || {
        let dir = match crate::output::target::kind(&req.output) {
            Ok(crate::output::target::Target::File(at)) => crate::limits::dir_of(&at).to_path_buf(),
            _ => std::env::temp_dir(),
        };
        crate::platform::cleanup::TempDir::new(".pocketbench-import-", Some(&dir))
    };
    // The survey and, where it can be, the conversion in one read (else a second read
    // converts); the work directory is made first for it, when it can be made.
    // Only where the conversion needs nothing the survey decides but the database and the
    // log's schema.
    let one_read = req.schema_file.is_none()
        && req.schema_from.is_none()
        && req.data_from.is_none()
        && !req.infer_schema
        && !req.check;
    let early_dir = one_read.then(|| made().ok()).flatten();
    let asked = onepass::Asked {
        input: &req.input,
        db: req.db.as_deref(),
        rules: &req.rules,
        anonymize: req.anonymize.as_ref(),
    };
    let (counts, one) = match &early_dir {
        Some(d) => onepass::read(&asked, fe, &mut survey, d.path(), &work_header(req))?,
        None => (
            source::read(&req.input, fe, &mut |r| survey.add(&anon(r)))?,
            None,
        ),
    };
    if survey.statements.values().all(|n| *n == 0) {
        return Err(source::nothing_read(&req.input, fe, &counts));
    }
    let db = survey.choose(req.db.as_deref())?;
    let one = one.filter(|o| o.holds(&db, &survey));
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
    let load: Vec<String> = match &req.anonymize {
        // A schema from a file or a database is renamed as the log's statements are.
        Some(a) if schema_kind != "log" => load.iter().map(|sql| a.schema_sql(sql)).collect(),
        _ => load,
    };
    let mut objects = schema::objects_of(&load);
    let (inferred, inferred_ops) = if req.infer_schema {
        let mut inference = super::infer::Inference::new(&objects);
        source::read(&req.input, fe, &mut |r| {
            if let LogRecord::Statement(s) = anon(r) {
                if s.db.as_deref().unwrap_or("") == db {
                    inference.feed(&s);
                }
            }
            Ok(())
        })?;
        inference.finish(req.rules.args == ArgsMode::Inline)
    } else {
        (Vec::new(), Vec::new())
    };
    let schema_kind = match (schema_kind, inferred.is_empty()) {
        (_, true) => schema_kind,
        ("none", false) => "inferred",
        (_, false) => "log+inferred",
    };
    for t in &inferred {
        objects.insert(("table".into(), t.table.to_ascii_lowercase()));
    }

    let work_dir = match early_dir {
        Some(d) => d,
        None => made().input_err(format!("-o {}: cannot write there", req.output.display()))?,
    };
    let work = work_dir.path().join("work.pbt");
    let mut header = work_header(req);
    // The work file is internal: an error about it is told of the output.
    let told = |e: Error| about_output(e, &work, &req.output);
    let mut writer = TraceWriter::scratch(&work, &header, VERSION_2).map_err(told)?;
    // The statistics of the trace as written here, which is the final one unless the copy
    // leaves records out or changes the version (it then feeds statistics of its own).
    let mut stats = TraceFeed::new();
    let mut check = check.filter(|_| req.check).map(|db| Check {
        db,
        failing: HashSet::new(),
        messages: Vec::new(),
        failed: 0,
    });
    let mut load_ops = 0u64;
    let mut load_dropped = BTreeMap::<String, u64>::new();
    let mut load_op = |op: Op| -> Result<()> {
        if let Err(why) = check_op(&op, &DataModel::Sql) {
            *load_dropped.entry(format!("load: {why}")).or_default() += 1;
            return Ok(());
        }
        if let Some(c) = check.as_mut() {
            c.run(&op, None);
        }
        load_ops += 1;
        stats.load(&op);
        writer.write_load(&op).map_err(told)
    };
    for sql in &load {
        load_op(Op::Sql { sql: sql.clone() })?;
    }
    for op in inferred_ops {
        load_op(op)?;
    }
    if let Some(f) = &req.data_from {
        schema::each_row(f, req.rules.args == ArgsMode::Inline, &mut load_op)?;
    }
    let version = if req.rules.args == ArgsMode::Inline && req.rules.merge_connections {
        VERSION_1
    } else {
        VERSION_2
    };
    let mut runs_apart = None;
    let (lines, converted, written, log_creates_tables) = match one {
        // Converted in the one read: with nothing to leave out and the version kept, the final
        // trace takes the run blocks straight from the one read's file; else the work file
        // holds them after the load's.
        Some(one) => {
            let told_runs = |e: Error| about_output(e, &one.runs.path, &req.output);
            let apart = one.converted.dangling.is_empty() && version == VERSION_2;
            if !apart {
                writer.append_written(&one.runs).map_err(told_runs)?;
            }
            let mut written = writer.finish_scratch().map_err(told)?;
            if apart {
                written.totals.run_ops = one.runs.totals.run_ops;
                runs_apart = Some(one.runs);
            }
            stats = one.stats;
            (counts, one.converted, written, one.log_creates_tables)
        }
        None => {
            let mut conv = Converter::new(&req.rules, &objects);
            let mut seq = 0u64;
            let mut log_creates_tables = false;
            let mut emit = |t: TimedOp| -> Result<()> {
                if let Op::Sql { sql } | Op::SqlArgs { sql, .. } = &t.op {
                    log_creates_tables |=
                        super::sql::sqltext::created_object(sql).is_some_and(|o| o.0 == "table");
                }
                if let Some(c) = check.as_mut() {
                    c.run(&t.op, Some(seq));
                }
                seq += 1;
                stats.run(&t);
                writer.write_run(&t).map_err(told)
            };
            let lines = source::read(&req.input, fe, &mut |r| match anon(r) {
                LogRecord::Statement(s) if s.db.as_deref().unwrap_or("") == db => {
                    conv.feed(s, &mut emit)
                }
                _ => Ok(()),
            })?;
            let converted = conv.finish(&mut emit)?;
            let written = writer.finish_scratch().map_err(told)?;
            (lines, converted, written, log_creates_tables)
        }
    };

    let mut dropped = lines.dropped.clone();
    dropped.extend(load_dropped);
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
    // Only what `--dangling drop` and `--drop-failing` name is left out; else all is kept.
    let keeps_all = failing.is_empty() && converted.dangling.is_empty();
    let (mut kept, mut seq) = (written.totals.run_ops, written.totals.run_ops);
    if !keeps_all {
        (kept, seq) = (0, 0);
        for item in TraceReader::open(&work).map_err(told)? {
            if let TraceItem::Run(t) = item.map_err(told)? {
                kept += u64::from(keep(seq, &t));
                seq += 1;
            }
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
        anonymized: req.anonymize.as_ref().map_or(Vec::new(), |a| {
            a.scope.to_string().split(',').map(String::from).collect()
        }),
    };
    header.workload.load_ops = load_ops;
    header.workload.run_ops = kept;
    header.workload.params = params(req, args);
    header.import = Some(info);
    // The final trace is written once, in place (a file appears whole when it is done), its
    // statistics fed as it was made: nothing reads the output back (it may be a pipe).
    let totals = if keeps_all && version == VERSION_2 {
        // The work file's records are the final ones (the same delays: each is the idle time
        // to the next, as the copy would compute it), so its blocks are copied as they are.
        let mut w = TraceWriter::create(&req.output, &header, version)?;
        w.append_written(&written).map_err(told)?;
        if let Some(runs) = &runs_apart {
            w.append_written(runs)
                .map_err(|e| about_output(e, &runs.path, &req.output))?;
        }
        w.finish()?
    } else {
        stats = TraceFeed::new();
        copy(&work, &req.output, &header, version, &keep, &mut stats).map_err(told)?
    };
    let stats = stats.finish(&req.output, &header);
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
        inferred,
        log_creates_tables,
        dropped,
        engine_options: Vec::new(),
        settings: converted.settings,
        check_failures,
        check_failed,
        digest: totals.digest_hex(),
        stats: Some(stats),
    })
}

/// The work file's header (the final one is written when the import is done).
fn work_header(req: &ImportRequest) -> TraceHeader {
    TraceHeader {
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
    }
}

/// `e`, naming `output` where it named the internal work file `work`.
fn about_output(e: Error, work: &Path, output: &Path) -> Error {
    let (w, o) = (work.display().to_string(), output.display().to_string());
    match e {
        Error::Input(m) => Error::Input(m.replace(&w, &o)),
        Error::Failed(m) => Error::Failed(m.replace(&w, &o)),
    }
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
    stats: &mut TraceFeed,
) -> Result<crate::workload::trace::TraceTotals> {
    let mut w = TraceWriter::create(output, header, version)?;
    // What the trace holds of a record: version 1 keeps no place in the recording.
    let write_run = |w: &mut TraceWriter, stats: &mut TraceFeed, mut t: TimedOp| {
        if version == VERSION_1 {
            t.recorded = None;
        }
        stats.run(&t);
        w.write_run(&t)
    };
    let mut pending: Option<TimedOp> = None;
    let mut seq = 0u64;
    for item in TraceReader::open(work)? {
        match item? {
            TraceItem::Load(op) => {
                stats.load(&op);
                w.write_load(&op)?
            }
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
                    write_run(&mut w, stats, p)?;
                }
                pending = Some(t);
            }
        }
    }
    if let Some(mut p) = pending {
        p.delay_ns = 0;
        write_run(&mut w, stats, p)?;
    }
    w.finish()
}
