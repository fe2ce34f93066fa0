//! `trace import` in one read of the log where it can be: the first pass's survey (statements
//! per database, their schema records) and the conversion of one database's statements done
//! together, the database guessed before the survey has chosen it (`--db`, else the first
//! statement's). [`pipeline`](super::pipeline) keeps the conversion only when the guess was
//! right and the schema it was converted against is the one the survey ends with; else it
//! reads the log a second time as it always could. Either way the trace is the same: the
//! conversion is fed the same statements in the same order against the same schema.
//!
//! Only for imports whose conversion needs nothing the survey decides but the database and the
//! log's schema (no `--schema`, `--schema-from`, `--data-from`, `--infer-schema`, `--check`).

use super::anonymize::Anonymizer;
use super::convert::Rules;
use super::convert::{Converted, Converter, Survey};
use super::source::{self, LineCounts};
use super::sql::sqltext::created_object;
use super::stats::file::TraceFeed;
use super::{formats::FrontEnd, schema, LogRecord};
use crate::error::Result;
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use crate::workload::trace::reader::check_op;
use crate::workload::trace::writer::Blocks;
use crate::workload::trace::{TraceHeader, TraceWriter, VERSION_2};
use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::Path;

/// One database's statements converted while the log was surveyed.
pub struct OnePass {
    /// The database guessed.
    pub db: String,
    /// Its schema records (as the load takes them) when its conversion began.
    schema: Option<Vec<(String, String, String)>>,
    /// The run records, a version 2 scratch trace of them alone.
    pub runs: Blocks,
    pub converted: Converted,
    pub log_creates_tables: bool,
    /// The statistics of the load the schema makes and of these records after it.
    pub stats: TraceFeed,
}

impl OnePass {
    /// Whether the conversion is the one a second read would make: the survey chose `db` and
    /// ends with the schema records the conversion began with.
    pub fn holds(&self, db: &str, survey: &Survey) -> bool {
        self.db == db && self.schema == log_schema(survey, db)
    }
}

/// What of an import the one read needs ([`pipeline`](super::pipeline) says when it applies).
pub struct Asked<'a> {
    pub input: &'a Path,
    /// `--db`.
    pub db: Option<&'a str>,
    pub rules: &'a Rules,
    pub anonymize: Option<&'a Anonymizer>,
}

/// The log's schema records of `db`, as the load takes them (none when empty).
fn log_schema(survey: &Survey, db: &str) -> Option<Vec<(String, String, String)>> {
    survey.schema.get(db).filter(|o| !o.is_empty()).cloned()
}

/// Survey the log into `survey` and convert the guessed database's statements into
/// `dir/runs.pbt` (header `header`), fed to the statistics after the load its schema makes;
/// the conversion is `None` when it stopped (an error of
/// its own: the second read meets it again, in its place).
pub fn read(
    req: &Asked,
    fe: &FrontEnd,
    survey: &mut Survey,
    dir: &Path,
    header: &TraceHeader,
) -> Result<(LineCounts, Option<OnePass>)> {
    let work = dir.join("runs.pbt");
    // A work file that cannot be made leaves the conversion to the second read.
    let mut writer = TraceWriter::scratch(&work, header, VERSION_2).ok();
    let mut stats = TraceFeed::new();
    let objects: OnceCell<HashSet<(String, String)>> = OnceCell::new();
    let mut conv: Option<Converter> = None;
    let mut guess: Option<String> = req.db.map(str::to_string);
    let mut schema = None;
    let mut creates = false;
    let mut alive = writer.is_some();
    let mut emit = |t: TimedOp, stats: &mut TraceFeed| -> Result<()> {
        if let Op::Sql { sql } | Op::SqlArgs { sql, .. } = &t.op {
            creates |= created_object(sql).is_some_and(|o| o.0 == "table");
        }
        stats.run(&t);
        match writer.as_mut() {
            Some(w) => w.write_run(&t),
            None => Ok(()),
        }
    };
    let lines = source::read(req.input, fe, &mut |mut r| {
        if let Some(a) = req.anonymize {
            a.apply(&mut r);
        }
        survey.add(&r)?;
        let LogRecord::Statement(s) = r else {
            return Ok(());
        };
        let db = s.db.as_deref().unwrap_or("");
        if !alive || guess.get_or_insert_with(|| db.to_string()) != db {
            return Ok(());
        }
        if conv.is_none() {
            // The load's objects, as the pipeline makes them from the same records.
            schema = log_schema(survey, db);
            let objects = objects.get_or_init(|| {
                let mut ordered = schema.clone().unwrap_or_default();
                schema::order_objects(&mut ordered);
                let load: Vec<String> = ordered.into_iter().map(|o| o.2).collect();
                // The load as the pipeline writes it: what a trace can hold.
                for sql in &load {
                    let op = Op::Sql { sql: sql.clone() };
                    if check_op(&op, &DataModel::Sql).is_ok() {
                        stats.load(&op);
                    }
                }
                schema::objects_of(&load)
            });
            conv = Some(Converter::new(req.rules, objects));
        }
        if let Some(c) = conv.as_mut() {
            if c.feed(s, &mut |t| emit(t, &mut stats)).is_err() {
                alive = false;
            }
        }
        Ok(())
    })?;
    let (Some(conv), Some(db), true) = (conv, guess, alive) else {
        return Ok((lines, None));
    };
    let Ok(converted) = conv.finish(&mut |t| emit(t, &mut stats)) else {
        return Ok((lines, None));
    };
    let Some(Ok(runs)) = writer.take().map(TraceWriter::finish_scratch) else {
        return Ok((lines, None));
    };
    Ok((
        lines,
        Some(OnePass {
            db,
            schema,
            runs,
            converted,
            log_creates_tables: creates,
            stats,
        }),
    ))
}
