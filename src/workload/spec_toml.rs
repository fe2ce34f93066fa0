//! TOML workload specs: the workloads users write themselves (format in
//! `docs/workload-spec.md`).
//!
//! A spec has a name, an optional description and delay recommendation, and exactly one of
//! two bodies: `[ycsb]`, YCSB core-workload properties handed to [`ycsb`], or `[sql]`, a schema,
//! a per-record load template and weighted statement templates. Templates are parsed once into
//! segments ([`Template`]) and rendered per operation with placeholders — `{key}`, `{new_key}`,
//! `{int:LO:HI}`, `{float:LO:HI}`, `{text:N}` — drawn from the seed's `load` and `run` streams,
//! so a spec and a seed always give the same statements.

use crate::error::{Error, Result};
use crate::workload::delay::DelayModel;
use crate::workload::generators::Discrete;
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use crate::workload::resolve::{reject_overrides, DISTRIBUTION, OPS, RECORDS};
use crate::workload::rng::Rng;
use crate::workload::ycsb::{self, Distribution, KeySpace, DEFAULT_OPS, DEFAULT_RECORDS};
use crate::workload::{Overrides, Workload, WorkloadInfo};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// `hotspot` key choice: 80% of the operations on 20% of the keys (YCSB's defaults).
const HOTSPOT: (f64, f64) = (0.2, 0.8);
/// Longest `{text:N}` accepted, so a typo cannot ask for gigabytes per statement.
pub const MAX_TEXT_LEN: usize = 1 << 20;

const PLACEHOLDERS: &str = "{key}, {new_key}, {int:LO:HI}, {float:LO:HI} or {text:N}";

/// Load a TOML workload spec, applying `--records`, `--ops` and (for `[sql]`) `--distribution`.
pub fn load(path: &Path, o: &Overrides, seed: u64) -> Result<Workload> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::input(format!("{file}: cannot read: {e}")))?;
    let spec: SpecFile = toml::from_str(&text).map_err(|e| toml_error(&file, &text, &e))?;
    let name = spec_name(spec.name.as_deref(), path, &file)?;
    let common = common_params(&spec, &file)?;
    let mut workload = match (spec.ycsb, spec.sql) {
        (Some(table), None) => ycsb_workload(&file, &name, &table, o, seed)?,
        (None, Some(sql)) => SqlSpec::compile(sql, &file, o)?.into_workload(name, seed),
        (Some(_), Some(_)) => {
            return Err(Error::input(format!(
                "{file}: has both [ycsb] and [sql]; a spec describes one workload"
            )))
        }
        (None, None) => {
            return Err(Error::input(format!(
                "{file}: needs a [ycsb] table (YCSB properties) or a [sql] table (schema and statements)"
            )))
        }
    };
    workload.info.source = "toml".into();
    workload.info.params.extend(common);
    Ok(workload)
}

/// The spec's `name`, or the file name without its extension.
fn spec_name(name: Option<&str>, path: &Path, file: &str) -> Result<String> {
    match name {
        Some(n) if n.trim().is_empty() => Err(field_error(file, "name", "must not be empty")),
        Some(n) => Ok(n.to_string()),
        None => Ok(path
            .file_stem()
            .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned())),
    }
}

/// Parameters either body records: the spec's path, its checked delay and its description.
fn common_params(spec: &SpecFile, file: &str) -> Result<BTreeMap<String, String>> {
    let mut params = BTreeMap::from([("spec".to_string(), file.to_string())]);
    if let Some(d) = &spec.delay {
        let model = DelayModel::parse_as(d, &format!("{file}: delay"))?;
        params.insert("delay".into(), model.to_string());
    }
    if let Some(d) = &spec.description {
        params.insert("description".into(), d.clone());
    }
    Ok(params)
}

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    name: Option<String>,
    description: Option<String>,
    delay: Option<String>,
    ycsb: Option<toml::Table>,
    sql: Option<SqlSection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SqlSection {
    #[serde(default = "default_records")]
    records: u64,
    #[serde(default = "default_operations")]
    operations: u64,
    #[serde(default)]
    schema: Vec<String>,
    load: Option<OneOrMany>,
    distribution: Option<String>,
    #[serde(default)]
    statement: Vec<StatementSection>,
}

fn default_records() -> u64 {
    DEFAULT_RECORDS
}

fn default_operations() -> u64 {
    DEFAULT_OPS
}

/// `load = "…"` or `load = ["…", "…"]`.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a string or a list of strings")]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatementSection {
    #[serde(default = "default_weight")]
    weight: f64,
    sql: String,
}

fn default_weight() -> f64 {
    1.0
}

/// A TOML error as one line: `file:line:column: message`.
pub fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> Error {
    let message = e.message().replace('\n', "; ");
    match e.span() {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            Error::input(format!("{file}:{line}:{column}: {message}"))
        }
        None => Error::input(format!("{file}: {message}")),
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

fn field_error(file: &str, field: &str, why: &str) -> Error {
    Error::input(format!("{file}: {field}: {why}"))
}

/// A `[ycsb]` body: its values become YCSB property strings.
fn ycsb_workload(
    file: &str,
    name: &str,
    table: &toml::Table,
    o: &Overrides,
    seed: u64,
) -> Result<Workload> {
    let mut map = BTreeMap::new();
    for (key, value) in table {
        let text = match value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            _ => {
                return Err(field_error(
                    file,
                    &format!("ycsb.{key}"),
                    "expected a number, string or boolean",
                ))
            }
        };
        map.insert(key.clone(), text);
    }
    let mut params = ycsb::YcsbParams::from_map(&map, &format!("{file}: ycsb"))?;
    params.apply_overrides(o)?;
    Ok(ycsb::workload(name, "toml", params, seed))
}

/// A checked `[sql]` body with its templates parsed.
struct SqlSpec {
    records: u64,
    operations: u64,
    schema: Vec<String>,
    load: Vec<Template>,
    distribution: Distribution,
    statements: Vec<Statement>,
}

/// One checked `[[sql.statement]]`.
struct Statement {
    weight: f64,
    template: Template,
    /// The template as written, for the workload's parameters.
    text: String,
}

impl SqlSpec {
    fn compile(section: SqlSection, file: &str, o: &Overrides) -> Result<SqlSpec> {
        reject_overrides(o, &[RECORDS, OPS, DISTRIBUTION], "a TOML [sql] workload")?;
        let records = o.records.unwrap_or(section.records);
        let operations = o.ops.unwrap_or(section.operations);
        if operations == 0 {
            return Err(field_error(file, "sql.operations", "must be at least 1"));
        }
        let distribution = distribution(o, section.distribution.as_deref(), file)?;
        let load = section.load.map(OneOrMany::into_vec).unwrap_or_default();
        let statements = compile_statements(section.statement, file, records)?;
        Ok(SqlSpec {
            records,
            operations,
            schema: section.schema,
            load: compile_load(&load, file)?,
            distribution,
            statements,
        })
    }

    fn params(&self) -> BTreeMap<String, String> {
        let mut params = BTreeMap::from([
            ("records".to_string(), self.records.to_string()),
            ("operations".into(), self.operations.to_string()),
            ("distribution".into(), self.distribution.name().into()),
            ("statements".into(), self.statements.len().to_string()),
        ]);
        for (i, s) in self.statements.iter().enumerate() {
            params.insert(format!("statement.{i}"), format!("{} {}", s.weight, s.text));
        }
        params
    }

    fn into_workload(self, name: String, seed: u64) -> Workload {
        let info = WorkloadInfo {
            name,
            source: "toml".into(),
            model: DataModel::Sql,
            load_ops: (self.schema.len() as u64)
                .saturating_add(self.records.saturating_mul(self.load.len() as u64)),
            run_ops: self.operations,
            params: self.params(),
            recorded_delays: false,
            initial_delay_ns: 0,
        };
        let SqlSpec {
            records,
            operations,
            schema,
            load,
            distribution,
            statements,
            ..
        } = self;
        let mut load_rng = Rng::derive(seed, "load");
        let load_ops = (0..records).flat_map(move |key| {
            let keys = Keys { key, new_key: key };
            load.iter()
                .map(|t| Op::Sql {
                    sql: t.render(keys, &mut load_rng),
                })
                .collect::<Vec<_>>()
        });
        let mut run = RunState::new(statements, records, operations, distribution, seed);
        Workload {
            info,
            load: Box::new(
                schema
                    .into_iter()
                    .map(|sql| Op::Sql { sql })
                    .chain(load_ops),
            ),
            run: Box::new((0..operations).map(move |_| TimedOp {
                op: run.next_op(),
                delay_ns: 0,
            })),
        }
    }
}

/// `--distribution`, else the spec's `distribution`, else uniform.
fn distribution(o: &Overrides, spec: Option<&str>, file: &str) -> Result<Distribution> {
    match (&o.distribution, spec) {
        (Some(d), _) => {
            Distribution::parse(d).map_err(|m| Error::input(format!("{DISTRIBUTION}: {m}")))
        }
        (None, Some(d)) => {
            Distribution::parse(d).map_err(|m| field_error(file, "sql.distribution", &m))
        }
        (None, None) => Ok(Distribution::Uniform),
    }
}

fn compile_load(texts: &[String], file: &str) -> Result<Vec<Template>> {
    let mut load = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let at = format!("{file}: sql.load[{i}]");
        let template = Template::parse(text, &at)?;
        if template.uses_new_key {
            return Err(Error::input(format!(
                "{at}: {{new_key}} has no meaning while loading; {{key}} is the record being loaded"
            )));
        }
        load.push(template);
    }
    Ok(load)
}

fn compile_statements(
    sections: Vec<StatementSection>,
    file: &str,
    records: u64,
) -> Result<Vec<Statement>> {
    if sections.is_empty() {
        return Err(field_error(
            file,
            "sql",
            "no statements (add at least one [[sql.statement]] with sql = \"…\")",
        ));
    }
    let mut statements = Vec::new();
    for (i, s) in sections.into_iter().enumerate() {
        let at = format!("{file}: sql.statement[{i}]");
        if !(s.weight.is_finite() && s.weight > 0.0) {
            return Err(Error::input(format!(
                "{at}.weight: must be a number greater than 0, not {}",
                s.weight
            )));
        }
        let template = Template::parse(&s.sql, &format!("{at}.sql"))?;
        if template.uses_key && records == 0 {
            return Err(Error::input(format!(
                "{at}.sql: uses {{key}} but records = 0, so there is no key to choose"
            )));
        }
        statements.push(Statement {
            weight: s.weight,
            template,
            text: s.sql,
        });
    }
    Ok(statements)
}

/// Everything the run phase needs between operations.
struct RunState {
    templates: Vec<Template>,
    mix: Option<Discrete<usize>>,
    keys: KeySpace,
    rng: Rng,
}

impl RunState {
    fn new(
        statements: Vec<Statement>,
        records: u64,
        operations: u64,
        distribution: Distribution,
        seed: u64,
    ) -> RunState {
        let mix = Discrete::new(statements.iter().enumerate().map(|(i, s)| (s.weight, i)));
        let insert_share: f64 = mix.as_ref().map_or(0.0, |m| {
            (0..statements.len())
                .filter(|&i| statements[i].template.uses_new_key)
                .map(|i| m.share(i))
                .sum()
        });
        // Room for twice the expected inserts, as YCSB sizes its zipfian key space.
        let expected_inserts = (operations as f64 * insert_share * 2.0).ceil() as u64;
        RunState {
            templates: statements.into_iter().map(|s| s.template).collect(),
            mix,
            keys: KeySpace::new(distribution, 0, records, expected_inserts, HOTSPOT),
            rng: Rng::derive(seed, "run"),
        }
    }

    fn next_op(&mut self) -> Op {
        let i = self.mix.as_ref().map_or(0, |m| m.next(&mut self.rng));
        let template = &self.templates[i];
        let key = if template.uses_key {
            self.keys.choose(&mut self.rng)
        } else {
            0
        };
        let new_key = if template.uses_new_key {
            self.keys.insert()
        } else {
            0
        };
        Op::Sql {
            sql: template.render(Keys { key, new_key }, &mut self.rng),
        }
    }
}

/// The key values of one statement: every `{key}` and every `{new_key}` in it render the same.
#[derive(Clone, Copy)]
struct Keys {
    key: u64,
    new_key: u64,
}

/// One piece of a parsed template.
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Literal(String),
    Key,
    NewKey,
    Int { lo: i64, hi: i64 },
    Float { lo: f64, hi: f64 },
    Text(usize),
}

/// A SQL statement with placeholders, parsed once.
#[derive(Clone, Debug)]
struct Template {
    segments: Vec<Segment>,
    uses_key: bool,
    uses_new_key: bool,
    /// Rendered length guess, to allocate once.
    size_hint: usize,
}

impl Template {
    /// Parse `text`; `{{` and `}}` stand for literal braces. Errors are prefixed with `at`.
    fn parse(text: &str, at: &str) -> Result<Template> {
        let mut segments = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            literal.push_str(&rest[..i]);
            let brace = &rest[i..i + 1];
            if rest[i + 1..].starts_with(brace) {
                literal.push_str(brace);
                rest = &rest[i + 2..];
                continue;
            }
            if brace == "}" {
                return Err(Error::input(format!(
                    "{at}: unmatched '}}' (write '}}}}' for a literal brace)"
                )));
            }
            let close = rest[i..].find('}').ok_or_else(|| {
                Error::input(format!(
                    "{at}: unclosed '{{' (write '{{{{' for a literal brace)"
                ))
            })?;
            if !literal.is_empty() {
                segments.push(Segment::Literal(std::mem::take(&mut literal)));
            }
            segments.push(placeholder(&rest[i + 1..i + close], at)?);
            rest = &rest[i + close + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            segments.push(Segment::Literal(literal));
        }
        let size_hint = segments.iter().map(Segment::size_hint).sum();
        Ok(Template {
            uses_key: segments.contains(&Segment::Key),
            uses_new_key: segments.contains(&Segment::NewKey),
            segments,
            size_hint,
        })
    }

    fn render(&self, keys: Keys, rng: &mut Rng) -> String {
        let mut out = String::with_capacity(self.size_hint);
        for segment in &self.segments {
            // Writing to a String cannot fail.
            match *segment {
                Segment::Literal(ref s) => out.push_str(s),
                Segment::Key => {
                    let _ = write!(out, "{}", keys.key);
                }
                Segment::NewKey => {
                    let _ = write!(out, "{}", keys.new_key);
                }
                Segment::Int { lo, hi } => {
                    let _ = write!(out, "{}", uniform_int(rng, lo, hi));
                }
                Segment::Float { lo, hi } => {
                    let _ = write!(out, "{:.4}", lo + (hi - lo) * rng.next_f64());
                }
                Segment::Text(len) => {
                    out.push('\'');
                    write_word_salad(&mut out, rng, len);
                    out.push('\'');
                }
            }
        }
        out
    }
}

impl Segment {
    fn size_hint(&self) -> usize {
        match self {
            Segment::Literal(s) => s.len(),
            Segment::Text(len) => len + 2,
            _ => 20,
        }
    }
}

/// Parse the inside of `{…}`.
fn placeholder(inner: &str, at: &str) -> Result<Segment> {
    let bad = |why: &str| Error::input(format!("{at}: placeholder {{{inner}}}: {why}"));
    let parts: Vec<&str> = inner.split(':').map(str::trim).collect();
    match parts.as_slice() {
        ["key"] => Ok(Segment::Key),
        ["new_key"] => Ok(Segment::NewKey),
        ["int", lo, hi] => {
            let (lo, hi) = (lo.parse::<i64>(), hi.parse::<i64>());
            match (lo, hi) {
                (Ok(lo), Ok(hi)) if lo <= hi => Ok(Segment::Int { lo, hi }),
                (Ok(_), Ok(_)) => Err(bad("LO must not exceed HI")),
                _ => Err(bad("LO and HI must be integers")),
            }
        }
        ["float", lo, hi] => {
            let (lo, hi) = (lo.parse::<f64>(), hi.parse::<f64>());
            match (lo, hi) {
                (Ok(lo), Ok(hi)) if lo.is_finite() && hi.is_finite() && lo <= hi => {
                    Ok(Segment::Float { lo, hi })
                }
                _ => Err(bad("LO and HI must be finite numbers, LO not above HI")),
            }
        }
        ["text", n] => match n.parse::<usize>() {
            Ok(n) if n <= MAX_TEXT_LEN => Ok(Segment::Text(n)),
            _ => Err(bad(&format!("N must be a whole number from 0 to {MAX_TEXT_LEN}"))),
        },
        [name, ..] if ["key", "new_key", "int", "float", "text"].contains(name) => {
            Err(bad(&format!("wrong number of arguments (expected {PLACEHOLDERS})")))
        }
        _ => Err(Error::input(format!(
            "{at}: unknown placeholder {{{inner}}} (expected {PLACEHOLDERS}; write {{{{ and }}}} for literal braces)"
        ))),
    }
}

/// Uniform in `lo..=hi`, over the whole `i64` range if asked.
fn uniform_int(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    let span = hi.abs_diff(lo);
    let offset = match span.checked_add(1) {
        Some(n) => rng.below(n),
        None => rng.next_u64(),
    };
    lo.wrapping_add_unsigned(offset)
}

/// Words for `{text:N}`: lowercase, no quotes, so the SQL literal never needs escaping.
const WORDS: [&str; 48] = [
    "quiet",
    "brave",
    "slow",
    "final",
    "regular",
    "ironic",
    "silent",
    "bold",
    "even",
    "thin",
    "careful",
    "express",
    "pending",
    "special",
    "ruthless",
    "dogged",
    "packages",
    "requests",
    "deposits",
    "accounts",
    "pinto",
    "beans",
    "theodolites",
    "asymptotes",
    "platelets",
    "ideas",
    "patterns",
    "foxes",
    "instructions",
    "dependencies",
    "sleep",
    "wake",
    "nag",
    "haggle",
    "integrate",
    "boost",
    "detect",
    "cajole",
    "among",
    "above",
    "across",
    "along",
    "beside",
    "under",
    "furiously",
    "blithely",
    "slyly",
    "quickly",
];

/// Append exactly `len` characters of word salad: words from [`WORDS`] joined by spaces and
/// the odd comma, cut wherever the length runs out. Never contains a quote.
pub(crate) fn write_word_salad(out: &mut String, rng: &mut Rng, len: usize) {
    let start = out.len();
    while out.len() - start < len {
        if out.len() > start {
            out.push_str(if rng.below(8) == 0 { ", " } else { " " });
        }
        out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    // Every word is ASCII, so any length is a character boundary.
    out.truncate(start + len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const SQL_SPEC: &str = r#"
name = "my-app"
description = "Reads and writes of a small table"
delay = "lognormal:6.67ms:0.5"

[sql]
records = 50
operations = 400
distribution = "zipfian"
schema = ["CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER, x REAL, v TEXT)"]
load = "INSERT INTO t VALUES({key}, {int:-5:5}, {float:0:1}, {text:20})"

[[sql.statement]]
weight = 6
sql = "SELECT * FROM t WHERE id = {key}"

[[sql.statement]]
weight = 3
sql = "UPDATE t SET v = {text:12} WHERE id >= {key} AND id < {key} + 10"

[[sql.statement]]
weight = 1
sql = "INSERT INTO t VALUES({new_key}, {int:1:1}, 0.5, '{{x}}')"
"#;

    fn temp_spec(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    fn sqls(ops: impl Iterator<Item = Op>) -> Vec<String> {
        ops.map(|op| match op {
            Op::Sql { sql } => sql,
            other => panic!("not SQL: {other:?}"),
        })
        .collect()
    }

    fn load_sql(text: &str, o: &Overrides, seed: u64) -> (WorkloadInfo, Vec<String>, Vec<String>) {
        let f = temp_spec(text);
        let w = load(f.path(), o, seed).unwrap();
        let run = sqls(w.run.map(|t| t.op));
        (w.info, sqls(w.load), run)
    }

    fn spec_error(text: &str, o: &Overrides) -> String {
        let f = temp_spec(text);
        match load(f.path(), o, 1) {
            Err(Error::Input(m)) => {
                assert!(
                    m.starts_with(&f.path().display().to_string()) || m.starts_with("--"),
                    "{m}"
                );
                m
            }
            Err(e) => panic!("expected bad input, got {e}"),
            Ok(w) => panic!("expected an error, got {}", w.info.name),
        }
    }

    #[test]
    fn sql_spec_builds_load_and_run_streams() {
        let (info, load, run) = load_sql(SQL_SPEC, &Overrides::default(), 7);
        assert_eq!(info.name, "my-app");
        assert_eq!(
            (info.source.as_str(), info.model.clone()),
            ("toml", DataModel::Sql)
        );
        assert_eq!((info.load_ops, info.run_ops), (51, 400));
        assert_eq!(info.params["delay"], "lognormal:6.67ms:0.5");
        assert_eq!(info.params["distribution"], "zipfian");
        assert_eq!(
            info.params["description"],
            "Reads and writes of a small table"
        );
        assert!(!info.recorded_delays);
        assert_eq!(load.len(), 51);
        assert!(load[0].starts_with("CREATE TABLE"));
        assert!(
            load[1].starts_with("INSERT INTO t VALUES(0, "),
            "{}",
            load[1]
        );
        assert!(load[50].starts_with("INSERT INTO t VALUES(49, "));
        assert_eq!(run.len(), 400);
        let inserts: Vec<&String> = run.iter().filter(|s| s.starts_with("INSERT")).collect();
        assert!(!inserts.is_empty());
        for (i, s) in inserts.iter().enumerate() {
            assert_eq!(
                **s,
                format!("INSERT INTO t VALUES({}, 1, 0.5, '{{x}}')", 50 + i)
            );
        }
        let updates = run.iter().filter(|s| s.starts_with("UPDATE")).count();
        assert!((80..160).contains(&updates), "{updates} updates");
    }

    #[test]
    fn placeholders_render_as_documented() {
        let spec = "[sql]\nrecords = 10\noperations = 300\nschema = []\n\
                    [[sql.statement]]\nsql = \"{key}|{key}|{int:-3:3}|{float:1:2}|{text:33}|{{}}\"\n";
        let (_, load, run) = load_sql(spec, &Overrides::default(), 3);
        assert!(load.is_empty());
        for s in run {
            let parts: Vec<&str> = s.split('|').collect();
            assert_eq!(parts.len(), 6, "{s}");
            assert_eq!(parts[0], parts[1], "one key per statement");
            assert!(parts[0].parse::<u64>().unwrap() < 10);
            assert!((-3..=3).contains(&parts[2].parse::<i64>().unwrap()));
            let x: f64 = parts[3].parse().unwrap();
            assert!((1.0..=2.0).contains(&x) && parts[3].split('.').nth(1).unwrap().len() == 4);
            assert_eq!(parts[4].len(), 35);
            assert!(parts[4].starts_with('\'') && parts[4].ends_with('\''));
            assert!(!parts[4][1..34].contains('\''));
            assert_eq!(parts[5], "{}");
        }
    }

    #[test]
    fn same_seed_same_statements() {
        let a = load_sql(SQL_SPEC, &Overrides::default(), 9);
        let b = load_sql(SQL_SPEC, &Overrides::default(), 9);
        let c = load_sql(SQL_SPEC, &Overrides::default(), 10);
        assert_eq!((&a.1, &a.2), (&b.1, &b.2));
        assert_ne!(a.2, c.2);
    }

    #[test]
    fn every_distribution_stays_in_the_key_range() {
        let spec = "[sql]\nrecords = 20\noperations = 2000\n\
                    [[sql.statement]]\nsql = \"{key}\"\n[[sql.statement]]\nweight = 0.1\nsql = \"N{new_key}\"\n";
        for d in ["uniform", "zipfian", "latest", "hotspot", "sequential"] {
            let o = Overrides {
                distribution: Some(d.into()),
                ..Overrides::default()
            };
            let (info, _, run) = load_sql(spec, &o, 5);
            assert_eq!(info.params["distribution"], d);
            let mut count = 20;
            let mut seen = std::collections::BTreeSet::new();
            for s in run {
                match s.strip_prefix('N') {
                    Some(k) => {
                        assert_eq!(k.parse::<u64>().unwrap(), count);
                        count += 1;
                    }
                    None => {
                        let k: u64 = s.parse().unwrap();
                        assert!(k < count, "{d}: key {k} of {count}");
                        seen.insert(k);
                    }
                }
            }
            assert!(seen.len() > 10, "{d}: only {} distinct keys", seen.len());
        }
    }

    #[test]
    fn overrides_records_and_ops_apply() {
        let o = Overrides {
            records: Some(5),
            ops: Some(12),
            ..Overrides::default()
        };
        let (info, load, run) = load_sql(SQL_SPEC, &o, 1);
        assert_eq!((info.load_ops, info.run_ops), (6, 12));
        assert_eq!((load.len(), run.len()), (6, 12));
        let o = Overrides {
            field_count: Some(3),
            ..Overrides::default()
        };
        assert_eq!(
            spec_error(SQL_SPEC, &o),
            "--field-count does not apply to a TOML [sql] workload"
        );
        let o = Overrides {
            distribution: Some("normal".into()),
            ..Overrides::default()
        };
        assert!(spec_error(SQL_SPEC, &o).starts_with("--distribution: expected one of uniform"));
    }

    #[test]
    fn defaults_and_file_stem_name() {
        let f = temp_spec("[sql]\n[[sql.statement]]\nsql = \"SELECT {key}\"\n");
        let w = load(f.path(), &Overrides::default(), 1).unwrap();
        let stem = f.path().file_stem().unwrap().to_string_lossy().into_owned();
        assert_eq!(w.info.name, stem);
        assert_eq!((w.info.load_ops, w.info.run_ops), (0, DEFAULT_OPS));
        assert_eq!(w.info.params["records"], DEFAULT_RECORDS.to_string());
        assert!(!w.info.params.contains_key("delay"));
    }

    #[test]
    fn bad_specs_name_the_file_and_field() {
        let stmt = "[[sql.statement]]\nsql = \"SELECT 1\"\n";
        let cases: Vec<(String, &str)> = vec![
            ("name = \n".into(), ":1:8: "),
            ("nmae = \"x\"\n[sql]\n".into(), ":1:1: unknown field `nmae`"),
            (
                format!("[sql]\nrecods = 3\n{stmt}"),
                ":2:1: unknown field `recods`",
            ),
            (
                format!("[sql]\nrecords = -3\n{stmt}"),
                ":2:11: invalid value",
            ),
            (
                "[sql]\n[[sql.statement]]\nweight = 1\n".into(),
                "missing field `sql`",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"x\"\nwieght = 1\n".into(),
                ":4:1: unknown field `wieght`",
            ),
            ("name = \"x\"\n".into(), "needs a [ycsb] table"),
            (
                format!("[ycsb]\nrecordcount = 1\n[sql]\n{stmt}"),
                "has both [ycsb] and [sql]",
            ),
            ("name = \"  \"\n[sql]\n".into(), ": name: must not be empty"),
            ("[sql]\n".into(), ": sql: no statements"),
            (
                format!("[sql]\noperations = 0\n{stmt}"),
                ": sql.operations: must be at least 1",
            ),
            (
                format!("[sql]\ndistribution = \"normal\"\n{stmt}"),
                "sql.distribution: expected one of uniform, zipfian,",
            ),
            (
                format!("delay = \"sometimes\"\n[sql]\n{stmt}"),
                ": delay: unknown delay model 'sometimes'",
            ),
            (
                "[sql]\n[[sql.statement]]\nweight = 0\nsql = \"x\"\n".into(),
                "sql.statement[0].weight: must be a number greater than 0",
            ),
            (
                "[sql]\n[[sql.statement]]\nweight = -1\nsql = \"x\"\n".into(),
                "sql.statement[0].weight",
            ),
            (
                "[sql]\n[[sql.statement]]\nweight = nan\nsql = \"x\"\n".into(),
                "sql.statement[0].weight",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"SELECT {id}\"\n".into(),
                "sql.statement[0].sql: unknown placeholder {id}",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"SELECT {key\"\n".into(),
                "unclosed '{'",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"SELECT key}\"\n".into(),
                "unmatched '}'",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"{int:5:1}\"\n".into(),
                "{int:5:1}: LO must not exceed HI",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"{int:a:1}\"\n".into(),
                "LO and HI must be integers",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"{int:1}\"\n".into(),
                "wrong number of arguments",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"{float:1:inf}\"\n".into(),
                "finite numbers",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"{text:-1}\"\n".into(),
                "N must be a whole number",
            ),
            (
                "[sql]\n[[sql.statement]]\nsql = \"{text:99999999}\"\n".into(),
                "N must be a whole number",
            ),
            (
                format!("[sql]\nload = \"INSERT {{new_key}}\"\n{stmt}"),
                "sql.load[0]: {new_key} has no meaning",
            ),
            (
                format!("[sql]\nload = 3\n{stmt}"),
                ":2:8: a string or a list of strings",
            ),
            (
                "[sql]\nrecords = 0\n[[sql.statement]]\nsql = \"{key}\"\n".into(),
                "uses {key} but records = 0",
            ),
            (
                "[ycsb]\nfields = [1, 2]\n".into(),
                ": ycsb.fields: expected a number, string or boolean",
            ),
        ];
        for (text, expected) in cases {
            let msg = spec_error(&text, &Overrides::default());
            assert!(
                msg.contains(expected),
                "{text:?}\n  got: {msg}\n  expected: {expected}"
            );
            assert!(!msg.contains('\n'), "one line: {msg}");
        }
    }

    #[test]
    fn ycsb_body_becomes_a_key_value_workload() {
        let spec = "name = \"kv\"\ndelay = \"fixed:1ms\"\n[ycsb]\nrecordcount = 100\noperationcount = 250\n\
                    readproportion = 0.7\nupdateproportion = 0.3\nrequestdistribution = \"zipfian\"\n";
        let f = temp_spec(spec);
        let w = load(f.path(), &Overrides::default(), 4).unwrap();
        assert_eq!(w.info.name, "kv");
        assert_eq!(w.info.source, "toml");
        assert!(matches!(w.info.model, DataModel::KeyValue(_)));
        assert_eq!((w.info.load_ops, w.info.run_ops), (100, 250));
        assert_eq!(w.info.params["delay"], "fixed:1ms");
        assert_eq!(w.run.count(), 250);
        let o = Overrides {
            records: Some(10),
            ops: Some(20),
            ..Overrides::default()
        };
        let w = load(f.path(), &o, 4).unwrap();
        assert_eq!((w.info.load_ops, w.info.run_ops), (10, 20));
        assert_eq!(w.load.count(), 10);
    }

    #[test]
    fn examples_in_the_documentation_load() {
        let doc = include_str!("../../docs/workload-spec.md");
        let examples: Vec<&str> = doc
            .split("```toml\n")
            .skip(1)
            .filter_map(|block| block.split("```").next())
            .collect();
        assert!(examples.len() >= 2);
        for example in examples {
            let f = temp_spec(example);
            let w = load(f.path(), &Overrides::default(), 1).unwrap();
            assert!(w.info.params.contains_key("delay"), "{}", w.info.name);
            assert_eq!(w.run.count() as u64, w.info.run_ops);
        }
    }

    #[test]
    fn unreadable_spec_is_bad_input() {
        match load(Path::new("/no/such/spec.toml"), &Overrides::default(), 1) {
            Err(Error::Input(m)) => {
                assert!(m.starts_with("/no/such/spec.toml: cannot read"), "{m}")
            }
            other => panic!("unexpected {:?}", other.map(|w| w.info)),
        }
    }

    #[test]
    fn line_columns_count_characters() {
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
        assert_eq!(line_column("µx", 2), (1, 2));
        assert_eq!(line_column("", 0), (1, 1));
    }
}
