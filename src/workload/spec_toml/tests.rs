//! Tests of TOML specs: `[sql]` and `[ycsb]` bodies, placeholders, overrides, the examples in
//! `docs/workload-spec.md`, and an error naming the file and field for each bad spec.

use super::schema::line_column;
use super::*;
use crate::workload::model::DataModel;
use crate::workload::pocketdata::tests::statements;
use crate::workload::ycsb::tests::overrides;
use crate::workload::ycsb::{DEFAULT_OPS, DEFAULT_RECORDS};
use crate::workload::WorkloadInfo;
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

fn load_sql(text: &str, o: &Overrides, seed: u64) -> (WorkloadInfo, Vec<String>, Vec<String>) {
    let f = temp_spec(text);
    let w = load(f.path(), o, seed).unwrap();
    let run = statements(w.run.map(|t| t.op));
    (w.info, statements(w.load), run)
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
        let o = overrides(|o| o.distribution = Some(d.into()));
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
    let o = overrides(|o| o.field_count = Some(3));
    assert_eq!(
        spec_error(SQL_SPEC, &o),
        "--field-count does not apply to a TOML [sql] workload"
    );
    let o = overrides(|o| o.distribution = Some("normal".into()));
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
    let spec =
        "name = \"kv\"\ndelay = \"fixed:1ms\"\n[ycsb]\nrecordcount = 100\noperationcount = 250\n\
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
    let doc = include_str!("../../../docs/workload-spec.md");
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
