//! Helpers shared by the study integration tests (matrix, report): a tiny plan, a study store
//! made once per test binary, and counting rows in a results store while a study may still be
//! writing it.

use super::{arg, pb};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// 2 workloads × 2 delays × 2 engines × 3 repeats = 24 small runs.
pub const PLAN: &str = r#"
name = "tiny"
repeats = 3
order = "random"
seed = 7
[run]
records = 20
ops = 30
no-overhead = true
[axes]
workload = ["ycsb-a", "ycsb-c"]
delay = ["zero", "fixed:200us"]
engine = ["null", "sqlite"]
"#;

pub fn plan_file(dir: &Path) -> PathBuf {
    let path = dir.join("tiny.toml");
    std::fs::write(&path, PLAN).unwrap();
    path
}

/// A store holding the whole tiny study, made once (directory, store path).
pub fn study_store() -> (PathBuf, PathBuf) {
    static STORE: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    STORE
        .get_or_init(|| {
            let dir = Box::leak(Box::new(tempfile::tempdir().unwrap()))
                .path()
                .to_path_buf();
            let plan = plan_file(&dir);
            let store = dir.join("study.db");
            let out = pb(["matrix", arg(&plan), "--results", arg(&store)]).expect_ok();
            std::fs::write(dir.join("full.out"), &out.stdout).unwrap();
            (dir, store)
        })
        .clone()
}

/// The single integer `sql` returns from the store; 0 while the store has no such table yet.
pub fn count(store: &Path, sql: &str) -> i64 {
    super::store(store)
        .query_row(sql, [], |r| r.get(0))
        .unwrap_or(0)
}
