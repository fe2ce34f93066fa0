//! Tests of the YCSB workloads: the core mixes, key choice per distribution, scan lengths,
//! seeding, properties files and overrides. Also the helpers the other workload modules'
//! tests share ([`overrides`], [`assert_refused`]).

use super::*;
use crate::workload::op::OpKind;
use std::collections::HashMap;

/// The default overrides with `set` applied, so a table of cases takes one line a case.
/// Shared by the workload modules' tests.
pub(crate) fn overrides(set: impl FnOnce(&mut Overrides)) -> Overrides {
    let mut o = Overrides::default();
    set(&mut o);
    o
}

/// Checks that `result` is a bad-input error (exit code 2) whose message starts with `start`.
pub(crate) fn assert_refused<T>(result: Result<T>, start: &str) {
    let err = result.err().expect("refused");
    assert!(err.to_string().starts_with(start), "{err}");
    assert_eq!(err.exit_code(), 2);
}

fn with_ops(ops: u64) -> Overrides {
    Overrides {
        ops: Some(ops),
        ..Overrides::default()
    }
}

fn run_ops(name: &str, o: &Overrides, seed: u64) -> Vec<Op> {
    let w = builtin(name, o, seed).expect("valid").expect("known");
    w.run.map(|t| t.op).collect()
}

fn shares(ops: &[Op]) -> HashMap<OpKind, f64> {
    let mut m = HashMap::new();
    for op in ops {
        *m.entry(op.kind()).or_insert(0.0) += 1.0 / ops.len() as f64;
    }
    m
}

#[test]
fn builtin_mixes_match_the_core_workloads() {
    use OpKind::*;
    let expected: [(&str, &[(OpKind, f64)]); 6] = [
        ("ycsb-a", &[(Read, 0.5), (Update, 0.5)]),
        ("ycsb-b", &[(Read, 0.95), (Update, 0.05)]),
        ("ycsb-c", &[(Read, 1.0)]),
        ("ycsb-d", &[(Read, 0.95), (Insert, 0.05)]),
        ("ycsb-e", &[(Scan, 0.95), (Insert, 0.05)]),
        ("ycsb-f", &[(Read, 0.5), (ReadModifyWrite, 0.5)]),
    ];
    for (name, mix) in expected {
        let got = shares(&run_ops(name, &with_ops(20_000), 1));
        for kind in OpKind::ALL {
            let want = mix.iter().find(|(k, _)| *k == kind).map_or(0.0, |m| m.1);
            let have = got.get(&kind).copied().unwrap_or(0.0);
            assert!(
                (have - want).abs() <= 0.02,
                "{name} {kind:?}: {have} vs {want}"
            );
        }
    }
}

/// Replays a run against the set of existing keys and checks every non-insert targets one.
fn assert_targets_exist(name: &str, ops: &[Op], records: u64) {
    let mut end = records;
    for op in ops {
        match op {
            Op::Insert { key, .. } => {
                assert_eq!(*key, end, "{name}: inserts are sequential");
                end += 1;
            }
            other => assert!(other.key() < end, "{name}: {other:?} beyond {end}"),
        }
    }
}

#[test]
fn every_operation_targets_an_existing_key() {
    for letter in "abcdef".chars() {
        let name = format!("ycsb-{letter}");
        assert_targets_exist(&name, &run_ops(&name, &with_ops(20_000), 3), 500);
    }
    for dist in ["uniform", "zipfian", "latest", "hotspot", "sequential"] {
        let o = Overrides {
            distribution: Some(dist.into()),
            records: Some(50),
            ..with_ops(5_000)
        };
        assert_targets_exist(dist, &run_ops("ycsb-d", &o, 4), 50);
    }
}

#[test]
fn latest_reads_favour_recent_inserts() {
    let ops = run_ops("ycsb-d", &with_ops(20_000), 5);
    let (mut end, mut recent, mut reads) = (500u64, 0u32, 0u32);
    for op in &ops {
        match op {
            Op::Insert { .. } => end += 1,
            Op::Read { key } => {
                reads += 1;
                recent += u32::from(*key >= end - 50);
            }
            _ => {}
        }
    }
    assert!(end > 1400, "inserts happened: {end}");
    assert!(
        f64::from(recent) / f64::from(reads) > 0.5,
        "{recent}/{reads}"
    );
}

#[test]
fn workload_e_scan_lengths_are_uniform_1_to_100() {
    let ops = run_ops("ycsb-e", &with_ops(20_000), 6);
    let lens: Vec<u32> = ops
        .iter()
        .filter_map(|op| match op {
            Op::Scan { len, .. } => Some(*len),
            _ => None,
        })
        .collect();
    assert!(lens.iter().all(|l| (1..=100).contains(l)));
    let mut deciles = [0u32; 10];
    for l in &lens {
        deciles[((l - 1) / 10) as usize] += 1;
    }
    let n = lens.len() as f64;
    assert!(
        deciles
            .iter()
            .all(|&d| (f64::from(d) / n - 0.1).abs() < 0.015),
        "{deciles:?}"
    );
}

#[test]
fn same_seed_same_ops_other_seed_other_ops() {
    for name in ["ycsb-a", "ycsb-e"] {
        let a = run_ops(name, &with_ops(2000), 9);
        assert_eq!(a, run_ops(name, &with_ops(2000), 9));
        assert_ne!(a, run_ops(name, &with_ops(2000), 10));
    }
    let load = |seed| -> Vec<Op> {
        let w = builtin("ycsb-a", &Overrides::default(), seed)
            .expect("ok")
            .expect("known");
        w.load.collect()
    };
    assert_eq!(load(1), load(1));
    assert_ne!(load(1), load(2));
}

#[test]
fn load_inserts_every_record_and_info_describes_it() {
    let o = Overrides {
        records: Some(20),
        field_count: Some(3),
        ..Overrides::default()
    };
    let w = builtin("ycsb-c", &o, 1).expect("ok").expect("known");
    assert_eq!(w.info.load_ops, 20);
    assert_eq!(w.info.run_ops, 1800);
    assert_eq!(w.info.params["recordcount"], "20");
    assert_eq!(w.info.params["requestdistribution"], "zipfian");
    assert!(!w.info.recorded_delays);
    let DataModel::KeyValue(m) = &w.info.model else {
        panic!("key-value model expected");
    };
    assert_eq!(m.field_count, 3);
    let keys: Vec<u64> = w.load.map(|op| op.key()).collect();
    assert_eq!(keys, (0..20).collect::<Vec<_>>());
    assert_eq!(w.run.count(), 1800);
}

#[test]
fn updates_write_one_field_unless_write_all_fields() {
    let ops = run_ops("ycsb-a", &Overrides::default(), 1);
    assert!(ops
        .iter()
        .any(|op| matches!(op, Op::Update { field: Some(f), .. } if *f < 10)));
    let p = YcsbParams {
        write_all_fields: true,
        ..builtin_params('a').expect("a")
    };
    let mut w = workload("t", "test", p, 1);
    assert!(w
        .run
        .all(|t| !matches!(t.op, Op::Update { field: Some(_), .. })));
}

const WORKLOADA: &str = "# Copyright (c) 2010 Yahoo! Inc. All rights reserved.\n\
    #\n\n\n# Yahoo! Cloud System Benchmark\n# Workload A: Update heavy workload\n\
    #   Application example: Session store recording recent actions\n#                        \n\
    #   Read/update ratio: 50/50\n\
    #   Default data size: 1 KB records (10 fields, 100 bytes each, plus key)\n\
    #   Request distribution: zipfian\n\n\
    recordcount=1000\noperationcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\n\n\
    readallfields=true\n\nreadproportion=0.5\nupdateproportion=0.5\nscanproportion=0\n\
    insertproportion=0\n\nrequestdistribution=zipfian\n";

#[test]
fn real_workloada_file_gives_fifty_fifty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("workloada");
    std::fs::write(&path, WORKLOADA).expect("write");
    let w = from_properties_file(&path, &with_ops(20_000), 2).expect("parses");
    assert_eq!(w.info.name, "workloada");
    assert_eq!(w.info.source, "properties");
    assert_eq!(w.info.load_ops, 1000);
    assert_eq!(
        w.info.params["workload"],
        "site.ycsb.workloads.CoreWorkload"
    );
    let ops: Vec<Op> = w.run.map(|t| t.op).collect();
    let s = shares(&ops);
    assert!((s[&OpKind::Read] - 0.5).abs() < 0.02 && (s[&OpKind::Update] - 0.5).abs() < 0.02);
}

fn from_text(text: &str) -> Result<YcsbParams> {
    let map = crate::workload::properties::parse(text, "w.properties")?;
    YcsbParams::from_map(&map, "w.properties")
}

#[test]
fn defaults_are_ycsb_with_pocketdata_counts() {
    let p = from_text("db=site.ycsb.BasicDB\nunknown.key=x\n").expect("valid");
    assert_eq!((p.record_count, p.operation_count), (500, 1800));
    assert_eq!((p.read_proportion, p.update_proportion), (0.95, 0.05));
    assert_eq!(p.request_distribution, Distribution::Uniform);
    assert_eq!(p.max_scan_length, 1000);
    assert_eq!(p.extra["unknown.key"], "x");
    assert_eq!(p.to_map()["db"], "site.ycsb.BasicDB");
}

#[test]
fn bad_values_name_file_and_property() {
    let cases = [
        (
            "readproportion=abc",
            "w.properties: readproportion: expected a number, got \"abc\"",
        ),
        (
            "updateproportion=-0.1",
            "w.properties: updateproportion: must be 0 or more, got -0.1",
        ),
        (
            "recordcount=ten",
            "w.properties: recordcount: expected a whole number, got \"ten\"",
        ),
        (
            "fieldcount=0",
            "w.properties: fieldcount: must be at least 1",
        ),
        (
            "readallfields=yes",
            "w.properties: readallfields: expected one of true, false, got \"yes\"",
        ),
        (
            "hotspotopnfraction=1.5",
            "w.properties: hotspotopnfraction: must be between 0 and 1, got 1.5",
        ),
    ];
    for (text, msg) in cases {
        let err = from_text(text).expect_err(text);
        assert_eq!(err.to_string(), msg);
        assert_eq!(err.exit_code(), 2);
    }
    let err = from_text("requestdistribution=exponential").expect_err("unknown");
    assert!(
        err.to_string()
            .starts_with("w.properties: requestdistribution: expected one of uniform, zipfian"),
        "{err}"
    );
    let err = from_text("readproportion=0\nupdateproportion=0").expect_err("all zero");
    assert!(err.to_string().contains("all zero"), "{err}");
    let err = from_text("minscanlength=10\nmaxscanlength=5").expect_err("min > max");
    assert!(
        err.to_string().starts_with("w.properties: minscanlength: "),
        "{err}"
    );
}

#[test]
fn overrides_apply_and_sql_only_flags_are_refused() {
    let o = Overrides {
        records: Some(7),
        ops: Some(9),
        field_count: Some(2),
        field_length: Some(5),
        distribution: Some("Uniform".into()),
        ..Overrides::default()
    };
    let mut p = builtin_params('a').expect("a");
    p.apply_overrides(&o).expect("valid");
    assert_eq!(
        (
            p.record_count,
            p.operation_count,
            p.field_count,
            p.field_length
        ),
        (7, 9, 2, 5)
    );
    assert_eq!(p.request_distribution, Distribution::Uniform);
    let refused = [
        (overrides(|o| o.miss_ratio = Some(0.1)), "--miss-ratio"),
        (overrides(|o| o.indexes = vec!["key".into()]), "--index"),
        (
            overrides(|o| o.distribution = Some("pareto".into())),
            "--distribution",
        ),
        (overrides(|o| o.records = Some(0)), "--records"),
    ];
    for (o, flag) in refused {
        assert_refused(builtin("ycsb-a", &o, 1), flag);
    }
}

#[test]
fn unknown_names_and_unreadable_files() {
    for other in ["ycsb-g", "ycsb-ab", "pocketdata-a"] {
        assert!(builtin(other, &Overrides::default(), 1)
            .expect("ok")
            .is_none());
    }
    let unreadable = from_properties_file(
        Path::new("/nonexistent/wl.properties"),
        &Overrides::default(),
        1,
    );
    assert_refused(unreadable, "/nonexistent/wl.properties: ");
}
