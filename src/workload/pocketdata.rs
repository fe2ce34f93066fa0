//! The PocketData SQL workloads, generated as SQL text shaped like the original study's
//! workload files: table `YCSBDATA`, 500 rows keyed 500..999, then 1 800 statements.
//!
//! * `pocketdata-a` … `pocketdata-f` run YCSB's A–F mixes as SQL: a read is a point
//!   `SELECT` by key, an update rewrites the whole row, an insert adds the key above the
//!   current maximum, a scan is `WHERE key > k ORDER BY key ASC LIMIT n`. A read-modify-write
//!   is emitted as two statements, the `SELECT` and then the full-row `UPDATE` of the same key,
//!   so the read's cost is measured as it is in an application; `info.run_ops` counts
//!   statements and is therefore larger than the operation count for `pocketdata-f`. Keys are
//!   chosen as YCSB does (scrambled zipfian; latest for D).
//! * `pocketdata-ia`, `-ib`, `-ic` mix key-range scans, selects on value columns (equality on
//!   one to three int columns; a one- or two-dimensional float range), `+1` updates and
//!   inserts, in the shares measured in the original IA trace. Scans and updates favour recent
//!   keys, as in that trace. Values are small (ints 0..=100, floats 0..=0.01) so that the
//!   selects match some rows.
//!
//! Unlike the original files, every point statement (select or update by key) targets a row
//! that exists, unless a miss ratio asks for some to target keys below the loaded range.

use crate::error::{Error, Result};
use crate::workload::generators::{Discrete, Uniform};
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use crate::workload::resolve::{self as flag, reject_overrides};
use crate::workload::rng::Rng;
use crate::workload::ycsb::{self, Distribution, KeySpace, DEFAULT_OPS, DEFAULT_RECORDS};
use crate::workload::{Overrides, Workload, WorkloadInfo};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Every built-in PocketData SQL workload.
pub const NAMES: &[&str] = &[
    "pocketdata-a",
    "pocketdata-b",
    "pocketdata-c",
    "pocketdata-d",
    "pocketdata-e",
    "pocketdata-f",
    "pocketdata-ia",
    "pocketdata-ib",
    "pocketdata-ic",
];

/// The table every PocketData workload creates, exactly as the original files do.
pub const CREATE_TABLE: &str = "CREATE TABLE YCSBDATA(key int, DAT_INT_0 int, DAT_INT_1 int, \
     DAT_INT_2 int, DAT_INT_3 int, DAT_INT_4 int, DAT_INT_5 int, DAT_FLT_0 decimal, \
     DAT_FLT_1 decimal, DAT_STR_0 varchar(60), DAT_STR_1 varchar(60))";

const INSERT_HEAD: &str = "INSERT INTO YCSBDATA(key, DAT_INT_0, DAT_INT_1, DAT_INT_2, \
     DAT_INT_3, DAT_INT_4, DAT_INT_5, DAT_FLT_0, DAT_FLT_1, DAT_STR_0, DAT_STR_1) VALUES (";

/// The value columns in table order: six ints, two floats, two strings.
const COLUMNS: [&str; 10] = [
    "DAT_INT_0",
    "DAT_INT_1",
    "DAT_INT_2",
    "DAT_INT_3",
    "DAT_INT_4",
    "DAT_INT_5",
    "DAT_FLT_0",
    "DAT_FLT_1",
    "DAT_STR_0",
    "DAT_STR_1",
];
const INTS: usize = 6;
const FLOATS: usize = 2;

/// Statement kinds of the run phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// `SELECT * … WHERE key = k`
    Read,
    /// Full-row `UPDATE … WHERE key = k`
    Update,
    Insert,
    /// `SELECT * … WHERE key > k ORDER BY key ASC LIMIT n`
    Scan,
    /// `Read` then `Update` of the same key.
    ReadModifyWrite,
    /// Equality on one to three int columns.
    IntEquality,
    /// Range on `DAT_FLT_0` (1) or on `DAT_FLT_0` and `DAT_FLT_1` (2).
    FloatRange(u8),
    /// `UPDATE … SET c = c+1 WHERE key=k` on a numeric column.
    Increment,
}

/// Shares of the original IA trace's 1 800 queries: 722 key-range scans, 745 selects on value
/// columns, 183 `+1` updates and 150 inserts.
const INDEXED_SHARES: [(f64, Action); 3] = [
    (722.0, Action::Scan),
    (183.0, Action::Increment),
    (150.0, Action::Insert),
];
const INDEXED_SELECT_SHARE: f64 = 745.0;

/// The value ranges of a workload's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Values {
    /// Workloads A–F: ints 0..1 000 000, floats 0..100 with four decimals.
    Wide,
    /// IA/IB/IC: ints 0..=100, floats 0..=0.01 with four decimals, so predicates match rows.
    Narrow,
}

impl Values {
    fn name(self) -> &'static str {
        match self {
            Values::Wide => "wide",
            Values::Narrow => "narrow",
        }
    }

    fn int(self, rng: &mut Rng) -> u64 {
        match self {
            Values::Wide => rng.below(1_000_000),
            Values::Narrow => rng.below(101),
        }
    }

    /// Largest float, in ten-thousandths.
    fn float_max(self) -> u64 {
        match self {
            Values::Wide => 999_999,
            Values::Narrow => 100,
        }
    }

    fn float(self, rng: &mut Rng) -> u64 {
        rng.below(self.float_max() + 1)
    }
}

/// What a built-in workload does.
struct Spec {
    mix: Discrete<Action>,
    distribution: Distribution,
    values: Values,
    scan_lengths: (u64, u64),
}

fn spec(name: &str) -> Option<Spec> {
    if !NAMES.contains(&name) {
        return None;
    }
    match name.strip_prefix("pocketdata-")? {
        "ia" => indexed_spec(Action::IntEquality),
        "ib" => indexed_spec(Action::FloatRange(1)),
        "ic" => indexed_spec(Action::FloatRange(2)),
        letter => ycsb_spec(&ycsb::builtin_params(letter.chars().next()?)?),
    }
}

fn indexed_spec(select: Action) -> Option<Spec> {
    let shares = INDEXED_SHARES
        .into_iter()
        .chain([(INDEXED_SELECT_SHARE, select)]);
    Some(Spec {
        mix: Discrete::new(shares)?,
        distribution: Distribution::Latest,
        values: Values::Narrow,
        scan_lengths: (1, 100),
    })
}

fn ycsb_spec(p: &ycsb::YcsbParams) -> Option<Spec> {
    Some(Spec {
        mix: Discrete::new([
            (p.read_proportion, Action::Read),
            (p.update_proportion, Action::Update),
            (p.insert_proportion, Action::Insert),
            (p.scan_proportion, Action::Scan),
            (p.read_modify_write_proportion, Action::ReadModifyWrite),
        ])?,
        distribution: p.request_distribution,
        values: Values::Wide,
        scan_lengths: (u64::from(p.min_scan_length), u64::from(p.max_scan_length)),
    })
}

/// The overrides a PocketData workload honours, checked.
struct Settings {
    records: u64,
    ops: u64,
    miss_ratio: f64,
    /// `CREATE INDEX` statements, one per distinct column asked for.
    indexes: Vec<String>,
}

fn settings(o: &Overrides) -> Result<Settings> {
    let allowed = [flag::RECORDS, flag::OPS, flag::MISS_RATIO, flag::INDEX];
    reject_overrides(
        o,
        &allowed,
        "the PocketData SQL workloads (fixed schema and mix)",
    )?;
    let records = o.records.unwrap_or(DEFAULT_RECORDS);
    if records == 0 {
        return Err(Error::input(format!(
            "{}: must be at least 1",
            flag::RECORDS
        )));
    }
    let miss_ratio = o.miss_ratio.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&miss_ratio) {
        return Err(Error::input(format!(
            "{}: must be between 0 and 1, got {miss_ratio}",
            flag::MISS_RATIO
        )));
    }
    Ok(Settings {
        records,
        ops: o.ops.unwrap_or(DEFAULT_OPS),
        miss_ratio,
        indexes: index_statements(&o.indexes)?,
    })
}

/// `CREATE INDEX` for each named column (case-insensitive, duplicates dropped).
fn index_statements(columns: &[String]) -> Result<Vec<String>> {
    let mut canonical: Vec<&str> = Vec::new();
    for asked in columns {
        let name = std::iter::once("key")
            .chain(COLUMNS)
            .find(|c| c.eq_ignore_ascii_case(asked.trim()))
            .ok_or_else(|| {
                Error::input(format!(
                    "{}: YCSBDATA has no column \"{asked}\" (columns: key, {})",
                    flag::INDEX,
                    COLUMNS.join(", ")
                ))
            })?;
        if !canonical.contains(&name) {
            canonical.push(name);
        }
    }
    Ok(canonical
        .into_iter()
        .map(|c| format!("CREATE INDEX IDX_YCSBDATA_{c} ON YCSBDATA({c})"))
        .collect())
}

/// A built-in PocketData workload by name; `Ok(None)` for any other name.
pub fn builtin(name: &str, o: &Overrides, seed: u64) -> Result<Option<Workload>> {
    let Some(spec) = spec(name) else {
        return Ok(None);
    };
    let s = settings(o)?;
    let first = s.records;
    let run = SqlRun::new(&spec, &s, seed);
    let info = WorkloadInfo {
        name: name.to_string(),
        source: "builtin".to_string(),
        model: DataModel::Sql,
        load_ops: 1 + s.records + s.indexes.len() as u64,
        run_ops: run.statements(),
        params: params(&spec, &s),
        recorded_delays: false,
        initial_delay_ns: 0,
    };
    let mut rng = Rng::derive(seed, "load");
    let values = spec.values;
    let load = std::iter::once(CREATE_TABLE.to_string())
        .chain((first..first + s.records).map(move |key| insert(key, values, &mut rng)))
        .chain(s.indexes)
        .map(|sql| Op::Sql { sql });
    Ok(Some(Workload {
        info,
        load: Box::new(load),
        run: Box::new(run),
    }))
}

/// Every parameter in effect, for the result's record.
fn params(spec: &Spec, s: &Settings) -> BTreeMap<String, String> {
    let mix = [
        ("read", Action::Read),
        ("update", Action::Update),
        ("insert", Action::Insert),
        ("scan", Action::Scan),
        ("readmodifywrite", Action::ReadModifyWrite),
        ("intequality", Action::IntEquality),
        ("floatrange1", Action::FloatRange(1)),
        ("floatrange2", Action::FloatRange(2)),
        ("increment", Action::Increment),
    ];
    let shares: Vec<String> = mix
        .iter()
        .map(|&(n, a)| (n, spec.mix.share(a)))
        .filter(|&(_, share)| share > 0.0)
        .map(|(n, share)| format!("{n}={share:.4}"))
        .collect();
    let columns: Vec<&str> = s
        .indexes
        .iter()
        .filter_map(|stmt| stmt.rsplit('(').next()?.strip_suffix(')'))
        .collect();
    let (lo, hi) = spec.scan_lengths;
    [
        ("table", "YCSBDATA".to_string()),
        ("records", s.records.to_string()),
        ("firstkey", s.records.to_string()),
        ("operations", s.ops.to_string()),
        ("mix", shares.join(",")),
        ("requestdistribution", spec.distribution.name().to_string()),
        ("scanlength", format!("{lo}..={hi}")),
        ("values", spec.values.name().to_string()),
        ("missratio", s.miss_ratio.to_string()),
        ("indexes", columns.join(",")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The run phase: `ops` operations, each one statement except read-modify-write (two).
struct SqlRun {
    /// Draws the action of each operation, apart from everything else, so the number of
    /// statements can be counted in advance.
    mix_rng: Rng,
    rng: Rng,
    remaining: u64,
    /// The `UPDATE` half of a read-modify-write, emitted after its `SELECT`.
    pending: Option<String>,
    mix: Discrete<Action>,
    keys: KeySpace,
    scan_lengths: Uniform,
    values: Values,
    miss_ratio: f64,
}

impl SqlRun {
    fn new(spec: &Spec, s: &Settings, seed: u64) -> Self {
        let expected_new = (s.ops as f64 * spec.mix.share(Action::Insert) * 2.0) as u64;
        let (lo, hi) = spec.scan_lengths;
        SqlRun {
            mix_rng: Rng::derive(seed, "run-mix"),
            rng: Rng::derive(seed, "run"),
            remaining: s.ops,
            pending: None,
            mix: spec.mix.clone(),
            keys: KeySpace::new(
                spec.distribution,
                s.records,
                s.records,
                expected_new,
                (0.2, 0.8),
            ),
            scan_lengths: Uniform::new(lo.max(1), hi.max(lo.max(1))),
            values: spec.values,
            miss_ratio: s.miss_ratio,
        }
    }

    /// How many statements the run will emit.
    fn statements(&self) -> u64 {
        if self.mix.share(Action::ReadModifyWrite) == 0.0 {
            return self.remaining;
        }
        let mut rng = self.mix_rng.clone();
        let rmw = (0..self.remaining)
            .filter(|_| self.mix.next(&mut rng) == Action::ReadModifyWrite)
            .count() as u64;
        self.remaining + rmw
    }

    /// The key of a point statement: an existing one, or with probability `miss_ratio` one
    /// below the loaded range, which never exists.
    fn point_key(&mut self) -> u64 {
        if self.miss_ratio > 0.0 && self.rng.next_f64() < self.miss_ratio {
            let (first, _) = self.keys.range();
            return self.rng.below(first);
        }
        self.keys.choose(&mut self.rng)
    }

    fn statement(&mut self, action: Action) -> String {
        match action {
            Action::Read => read(self.point_key()),
            Action::Update => update(self.point_key(), self.values, &mut self.rng),
            Action::ReadModifyWrite => {
                let key = self.point_key();
                self.pending = Some(update(key, self.values, &mut self.rng));
                read(key)
            }
            Action::Insert => insert(self.keys.insert(), self.values, &mut self.rng),
            Action::Scan => {
                let start = self.keys.choose(&mut self.rng);
                let limit = self.scan_lengths.next(&mut self.rng);
                scan(start.saturating_sub(1), limit)
            }
            Action::IntEquality => int_equality(self.values, &mut self.rng),
            Action::FloatRange(dims) => float_range(dims, self.values, &mut self.rng),
            Action::Increment => increment(self.point_key(), &mut self.rng),
        }
    }
}

impl Iterator for SqlRun {
    type Item = TimedOp;

    fn next(&mut self) -> Option<TimedOp> {
        let sql = match self.pending.take() {
            Some(sql) => sql,
            None if self.remaining == 0 => return None,
            None => {
                self.remaining -= 1;
                let action = self.mix.next(&mut self.mix_rng);
                self.statement(action)
            }
        };
        Some(TimedOp {
            op: Op::Sql { sql },
            delay_ns: 0,
        })
    }
}

/// `SELECT * FROM YCSBDATA WHERE key = 601`
fn read(key: u64) -> String {
    format!("SELECT * FROM YCSBDATA WHERE key = {key}")
}

/// `SELECT * FROM YCSBDATA WHERE key > 344 ORDER BY key ASC LIMIT 55`
fn scan(after: u64, limit: u64) -> String {
    format!("SELECT * FROM YCSBDATA WHERE key > {after} ORDER BY key ASC LIMIT {limit}")
}

/// `INSERT INTO YCSBDATA(key, …) VALUES (key, …)`
fn insert(key: u64, values: Values, rng: &mut Rng) -> String {
    let mut sql = String::with_capacity(320);
    sql.push_str(INSERT_HEAD);
    let _ = write!(sql, "{key}, ");
    write_row(&mut sql, values, rng, false);
    sql.push(')');
    sql
}

/// `UPDATE YCSBDATA SET DAT_INT_0=…, …, DAT_STR_1='…' WHERE key = 743`
fn update(key: u64, values: Values, rng: &mut Rng) -> String {
    let mut sql = String::with_capacity(360);
    sql.push_str("UPDATE YCSBDATA SET ");
    write_row(&mut sql, values, rng, true);
    let _ = write!(sql, " WHERE key = {key}");
    sql
}

/// `UPDATE YCSBDATA SET DAT_INT_2 = DAT_INT_2+1 WHERE key=998`, on an int or float column.
fn increment(key: u64, rng: &mut Rng) -> String {
    let c = COLUMNS[rng.below((INTS + FLOATS) as u64) as usize];
    format!("UPDATE YCSBDATA SET {c} = {c}+1 WHERE key={key}")
}

/// `SELECT * FROM YCSBDATA WHERE (DAT_INT_0 = 20) AND (DAT_INT_2 = 59)`: one to three
/// distinct int columns.
fn int_equality(values: Values, rng: &mut Rng) -> String {
    let mut columns: [usize; INTS] = [0, 1, 2, 3, 4, 5];
    let n = 1 + rng.below(3) as usize;
    let mut sql = String::with_capacity(110);
    sql.push_str("SELECT * FROM YCSBDATA WHERE ");
    for i in 0..n {
        // Partial Fisher–Yates: a distinct column each time.
        let j = i + rng.below((INTS - i) as u64) as usize;
        columns.swap(i, j);
        let sep = if i == 0 { "" } else { " AND " };
        let _ = write!(sql, "{sep}({} = {})", COLUMNS[columns[i]], values.int(rng));
    }
    sql
}

/// `SELECT * FROM YCSBDATA WHERE (DAT_FLT_0 > a AND DAT_FLT_0 < b)`, and the same on
/// `DAT_FLT_1` for two dimensions. Each range spans 2 to 10 % of the value range.
fn float_range(dims: u8, values: Values, rng: &mut Rng) -> String {
    let max = values.float_max();
    let mut sql = String::with_capacity(140);
    sql.push_str("SELECT * FROM YCSBDATA WHERE ");
    for (d, column) in COLUMNS[INTS..INTS + usize::from(dims)].iter().enumerate() {
        let width = max / 50 + rng.below(max / 10 - max / 50 + 1);
        let lo = rng.below(max - width + 1);
        sql.push_str(if d == 0 { "(" } else { " AND (" });
        let _ = write!(sql, "{column} > ");
        write_decimal(&mut sql, lo);
        let _ = write!(sql, " AND {column} < ");
        write_decimal(&mut sql, lo + width);
        sql.push(')');
    }
    sql
}

/// The ten value columns, as `v, v, …` or `COL=v, COL=v, …`.
fn write_row(out: &mut String, values: Values, rng: &mut Rng, named: bool) {
    for (i, column) in COLUMNS.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if named {
            out.push_str(column);
            out.push('=');
        }
        if i < INTS {
            let _ = write!(out, "{}", values.int(rng));
        } else if i < INTS + FLOATS {
            write_decimal(out, values.float(rng));
        } else {
            out.push('\'');
            write_text(out, rng);
            out.push('\'');
        }
    }
}

/// A number given in ten-thousandths, written with up to four decimals and at least one
/// (`15.0187`, `69.291`, `0.0`), as the original files print them.
fn write_decimal(out: &mut String, ten_thousandths: u64) {
    let _ = write!(out, "{}.", ten_thousandths / 10_000);
    let mut frac = ten_thousandths % 10_000;
    let mut digits = 4;
    while digits > 1 && frac.is_multiple_of(10) {
        frac /= 10;
        digits -= 1;
    }
    let _ = write!(out, "{frac:0digits$}");
}

/// Words for the string columns' text (no quotes, so no escaping is ever needed).
const WORDS: [&str; 48] = [
    "amber",
    "quietly",
    "orbit",
    "lantern",
    "swift",
    "meadow",
    "gently",
    "copper",
    "ripple",
    "harbor",
    "drift",
    "velvet",
    "signal",
    "hollow",
    "brisk",
    "ember",
    "tangle",
    "patiently",
    "granite",
    "whisper",
    "mosaic",
    "lucid",
    "rover",
    "thicket",
    "bravely",
    "canyon",
    "pebble",
    "summon",
    "nimble",
    "echo",
    "fable",
    "glacier",
    "humble",
    "ivory",
    "jostle",
    "kindle",
    "lofty",
    "marble",
    "nomad",
    "oddly",
    "prism",
    "quarry",
    "rustle",
    "sable",
    "timber",
    "umber",
    "vivid",
    "wander",
];

/// Mostly spaces, sometimes punctuation, between words.
const JOINS: [&str; 8] = [" ", " ", " ", " ", ", ", ". ", "; ", "-- "];

/// Word-salad text of 30 to 49 characters, cut wherever the length runs out.
fn write_text(out: &mut String, rng: &mut Rng) {
    let start = out.len();
    let len = 30 + rng.below(20) as usize;
    while out.len() - start < len {
        if out.len() > start {
            out.push_str(JOINS[rng.below(JOINS.len() as u64) as usize]);
        }
        out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    out.truncate(start + len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    fn with(records: u64, ops: u64) -> Overrides {
        Overrides {
            records: Some(records),
            ops: Some(ops),
            ..Overrides::default()
        }
    }

    fn workload(name: &str, o: &Overrides, seed: u64) -> Workload {
        builtin(name, o, seed).expect("valid").expect("known")
    }

    fn statements(ops: impl Iterator<Item = Op>) -> Vec<String> {
        ops.map(|op| match op {
            Op::Sql { sql } => sql,
            other => panic!("not SQL: {other:?}"),
        })
        .collect()
    }

    fn run(name: &str, o: &Overrides, seed: u64) -> Vec<String> {
        statements(workload(name, o, seed).run.map(|t| t.op))
    }

    /// The statement kind, by the shapes of the original files.
    fn classify(sql: &str) -> &'static str {
        if sql.starts_with("INSERT INTO YCSBDATA(key, DAT_INT_0,") {
            "insert"
        } else if sql.contains("+1 WHERE key=") {
            "increment"
        } else if sql.starts_with("UPDATE YCSBDATA SET DAT_INT_0=") {
            "update"
        } else if sql.contains(" ORDER BY key ASC LIMIT ") {
            "scan"
        } else if sql.starts_with("SELECT * FROM YCSBDATA WHERE key = ") {
            "read"
        } else if sql.starts_with("SELECT * FROM YCSBDATA WHERE (DAT_INT_") {
            "intequality"
        } else if sql.contains("(DAT_FLT_1 > ") {
            "floatrange2"
        } else if sql.starts_with("SELECT * FROM YCSBDATA WHERE (DAT_FLT_0 > ") {
            "floatrange1"
        } else {
            panic!("unexpected statement {sql}")
        }
    }

    #[test]
    fn mixes_match_ycsb_and_the_ia_trace() {
        let ia = |select| {
            [
                ("scan", 0.401),
                (select, 0.414),
                ("increment", 0.102),
                ("insert", 0.083),
            ]
        };
        let expected: [(&str, Vec<(&str, f64)>); 9] = [
            ("pocketdata-a", vec![("read", 0.5), ("update", 0.5)]),
            ("pocketdata-b", vec![("read", 0.95), ("update", 0.05)]),
            ("pocketdata-c", vec![("read", 1.0)]),
            ("pocketdata-d", vec![("read", 0.95), ("insert", 0.05)]),
            ("pocketdata-e", vec![("scan", 0.95), ("insert", 0.05)]),
            // Every operation reads; half of them then write.
            ("pocketdata-f", vec![("read", 1.0), ("update", 0.5)]),
            ("pocketdata-ia", ia("intequality").to_vec()),
            ("pocketdata-ib", ia("floatrange1").to_vec()),
            ("pocketdata-ic", ia("floatrange2").to_vec()),
        ];
        let ops = 20_000;
        for (name, mix) in expected {
            let w = workload(name, &with(500, ops), 1);
            let run_ops = w.info.run_ops;
            let sql = statements(w.run.map(|t| t.op));
            assert_eq!(
                sql.len() as u64,
                run_ops,
                "{name}: run_ops counts statements"
            );
            let total: f64 = mix.iter().map(|m| m.1).sum();
            assert!(
                (sql.len() as f64 / ops as f64 - total).abs() < 0.02,
                "{name}"
            );
            for (kind, share) in mix {
                let n = sql.iter().filter(|s| classify(s) == kind).count();
                let got = n as f64 / ops as f64;
                assert!(
                    (got - share).abs() <= 0.02,
                    "{name} {kind}: {got} vs {share}"
                );
            }
        }
    }

    #[test]
    fn init_creates_the_table_and_loads_keys_from_records() {
        let w = workload("pocketdata-a", &Overrides::default(), 1);
        assert_eq!((w.info.load_ops, w.info.run_ops), (501, 1800));
        assert_eq!(w.info.model, DataModel::Sql);
        assert_eq!(w.info.params["records"], "500");
        let init = statements(w.load);
        assert_eq!(init.len(), 501);
        assert_eq!(init[0], CREATE_TABLE);
        for (i, sql) in init[1..].iter().enumerate() {
            let head = format!("{INSERT_HEAD}{}, ", 500 + i);
            assert!(sql.starts_with(&head), "{sql}");
        }
        let small = statements(workload("pocketdata-ia", &with(20, 5), 1).load);
        assert_eq!(small.len(), 21);
        assert!(small[20].starts_with(&format!("{INSERT_HEAD}39, ")));
    }

    #[test]
    fn statements_have_the_original_shapes() {
        let a = run("pocketdata-a", &Overrides::default(), 3);
        let upd = a
            .iter()
            .find(|s| s.starts_with("UPDATE"))
            .expect("an update");
        let prefix = "UPDATE YCSBDATA SET DAT_INT_0=";
        assert!(
            upd.starts_with(prefix) && upd.contains(", DAT_FLT_0="),
            "{upd}"
        );
        assert!(
            upd.contains(", DAT_STR_1='") && upd.contains("' WHERE key = "),
            "{upd}"
        );
        let ia = run("pocketdata-ia", &Overrides::default(), 3);
        assert!(ia.iter().any(|s| s.contains(") AND (DAT_INT_")));
        let ib = run("pocketdata-ib", &Overrides::default(), 3);
        let range = ib
            .iter()
            .find(|s| s.contains("DAT_FLT_0 >"))
            .expect("a range");
        assert!(
            range.starts_with("SELECT * FROM YCSBDATA WHERE (DAT_FLT_0 > 0.0"),
            "{range}"
        );
        assert!(
            range.contains(" AND DAT_FLT_0 < 0.0") && range.ends_with(')'),
            "{range}"
        );
        let mut s = String::new();
        for (t, text) in [
            (150_187, "15.0187"),
            (692_910, "69.291"),
            (0, "0.0"),
            (90, "0.009"),
        ] {
            s.clear();
            write_decimal(&mut s, t);
            assert_eq!(s, text);
        }
    }

    /// Executes `sql`; returns the rows a query returned or the rows a statement changed.
    fn execute(db: &Connection, sql: &str) -> usize {
        let mut stmt = db.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        if stmt.column_count() == 0 {
            return stmt.execute([]).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        let mut rows = stmt.query([]).unwrap_or_else(|e| panic!("{sql}: {e}"));
        let mut n = 0;
        while rows
            .next()
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .is_some()
        {
            n += 1;
        }
        n
    }

    fn is_point(sql: &str) -> bool {
        matches!(classify(sql), "read" | "update" | "increment")
    }

    /// Loads `w` into a fresh database and runs it; returns (point statements, misses).
    fn replay(w: Workload) -> (usize, usize) {
        let db = Connection::open_in_memory().expect("sqlite");
        db.execute_batch("BEGIN").expect("begin");
        for sql in statements(w.load) {
            execute(&db, &sql);
        }
        db.execute_batch("COMMIT").expect("commit");
        let (mut points, mut misses) = (0, 0);
        for sql in statements(w.run.map(|t| t.op)) {
            let n = execute(&db, &sql);
            if is_point(&sql) {
                points += 1;
                misses += usize::from(n == 0);
            }
        }
        (points, misses)
    }

    #[test]
    fn every_statement_runs_on_sqlite_and_point_statements_hit() {
        let o = Overrides {
            indexes: vec!["key".into(), "dat_flt_0".into()],
            ..with(500, 3000)
        };
        for name in NAMES {
            let (points, misses) = replay(workload(name, &o, 7));
            assert_eq!(
                misses, 0,
                "{name}: {misses} of {points} point statements missed"
            );
        }
    }

    #[test]
    fn narrow_values_make_selects_match_rows() {
        let db = Connection::open_in_memory().expect("sqlite");
        let w = workload("pocketdata-ic", &Overrides::default(), 2);
        for sql in statements(w.load) {
            execute(&db, &sql);
        }
        let w = workload("pocketdata-ib", &Overrides::default(), 2);
        let selects: Vec<String> = statements(w.run.map(|t| t.op))
            .into_iter()
            .filter(|s| classify(s) == "floatrange1")
            .collect();
        let hits = selects.iter().filter(|s| execute(&db, s) > 0).count();
        assert!(hits * 10 > selects.len() * 9, "{hits} of {}", selects.len());
    }

    #[test]
    fn miss_ratio_is_honoured() {
        let o = Overrides {
            miss_ratio: Some(0.3),
            ..with(500, 4000)
        };
        for name in ["pocketdata-a", "pocketdata-ia"] {
            let (points, misses) = replay(workload(name, &o, 8));
            let ratio = misses as f64 / points as f64;
            assert!((ratio - 0.3).abs() < 0.04, "{name}: {ratio}");
        }
    }

    #[test]
    fn same_seed_same_statements() {
        for name in NAMES {
            let a = run(name, &with(100, 500), 4);
            assert_eq!(a, run(name, &with(100, 500), 4), "{name}");
            assert_ne!(a, run(name, &with(100, 500), 5), "{name}");
        }
    }

    #[test]
    fn text_is_word_salad_within_sixty_characters() {
        let mut rng = Rng::new(1);
        let mut s = String::new();
        for _ in 0..1000 {
            s.clear();
            write_text(&mut s, &mut rng);
            assert!((30..=49).contains(&s.len()), "{s}");
            assert!(!s.contains('\''));
        }
    }

    #[test]
    fn indexes_are_validated_and_created() {
        let o = Overrides {
            indexes: vec!["Dat_Int_0".into(), "key".into(), "DAT_INT_0".into()],
            ..with(10, 10)
        };
        let w = workload("pocketdata-ia", &o, 1);
        assert_eq!(w.info.load_ops, 13);
        assert_eq!(w.info.params["indexes"], "DAT_INT_0,key");
        let init = statements(w.load);
        assert_eq!(
            init[11],
            "CREATE INDEX IDX_YCSBDATA_DAT_INT_0 ON YCSBDATA(DAT_INT_0)"
        );
        assert_eq!(init[12], "CREATE INDEX IDX_YCSBDATA_key ON YCSBDATA(key)");
        let bad = Overrides {
            indexes: vec!["nope".into()],
            ..Overrides::default()
        };
        let err = builtin("pocketdata-a", &bad, 1).err().expect("refused");
        assert!(
            err.to_string()
                .starts_with("--index: YCSBDATA has no column \"nope\""),
            "{err}"
        );
    }

    #[test]
    fn unsupported_overrides_and_bad_values_name_the_flag() {
        let cases = [
            (
                Overrides {
                    miss_ratio: Some(1.5),
                    ..Overrides::default()
                },
                "--miss-ratio",
            ),
            (
                Overrides {
                    miss_ratio: Some(f64::NAN),
                    ..Overrides::default()
                },
                "--miss-ratio",
            ),
            (
                Overrides {
                    field_count: Some(3),
                    ..Overrides::default()
                },
                "--field-count",
            ),
            (
                Overrides {
                    field_length: Some(3),
                    ..Overrides::default()
                },
                "--field-length",
            ),
            (
                Overrides {
                    distribution: Some("uniform".into()),
                    ..Overrides::default()
                },
                "--distribution",
            ),
            (
                Overrides {
                    records: Some(0),
                    ..Overrides::default()
                },
                "--records",
            ),
        ];
        for (o, flag) in cases {
            let err = builtin("pocketdata-b", &o, 1).err().expect("refused");
            assert!(err.to_string().starts_with(flag), "{err}");
            assert_eq!(err.exit_code(), 2);
        }
        assert!(builtin("pocketdata-g", &Overrides::default(), 1)
            .expect("ok")
            .is_none());
        assert!(builtin("ycsb-a", &Overrides::default(), 1)
            .expect("ok")
            .is_none());
    }
}
