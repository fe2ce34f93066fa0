//! `pocketbench storage` with tiny sizes: every file test by sync mode and thread count with
//! its runs and spread, both SQLite transaction suites, the calibration table (raw device
//! measured or said to be unavailable), stored and shown again; bad input exits 2.

mod common;

use common::{arg, uint, Sandbox};

#[test]
fn tiny_storage_run_covers_every_part() {
    let sb = Sandbox::new();
    let dir = sb.path("target");
    std::fs::create_dir(&dir).unwrap();
    let results = sb.results();
    let r = sb
        .pb([
            "storage",
            "--dir",
            arg(&dir),
            "--results",
            arg(&results),
            "--read-size",
            "256K",
            "--write-size",
            "128K",
            "--buffer",
            "64K",
            "--rand-ops",
            "16",
            "--txns",
            "10",
            "--runs",
            "2",
            "--sync",
            "none,fsync,direct,mmap",
            "--threads",
            "1,2",
            "--json",
        ])
        .expect_ok()
        .json();
    let files = r["files"].as_array().unwrap();
    assert_eq!(files.len(), 4 * 4 * 2);
    for f in files {
        assert_eq!(f["mib_s"]["runs"].as_array().unwrap().len(), 2);
        assert!(f["mib_s"]["mean"].as_f64().unwrap() > 0.0, "{f:#}");
        let mode = f["test"]["mode"].as_str().unwrap();
        let method = f["method"].as_str().unwrap();
        match mode {
            "direct" => assert!(method.contains("O_DIRECT"), "{method}"),
            "mmap" => assert!(method.contains("mmap")),
            _ => {}
        }
        if f["test"]["pattern"].as_str().unwrap().starts_with("rand") {
            assert_eq!(uint(f, "/test/io_size"), 4096);
        }
    }
    let tx = r["sqlite"].as_array().unwrap();
    let names: Vec<String> = tx
        .iter()
        .map(|t| {
            format!(
                "{}/{}",
                t["suite"].as_str().unwrap(),
                t["phase"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "androbench/insert",
            "androbench/update",
            "androbench/delete",
            "mobibench/insert",
            "mobibench/update",
            "mobibench/delete"
        ]
    );
    assert!(tx.iter().all(|t| t["tps"]["mean"].as_f64().unwrap() > 0.0));
    let cal = &r["calibration"];
    assert_eq!(cal["rows"].as_array().unwrap().len(), 3);
    for row in cal["rows"].as_array().unwrap() {
        assert!(
            row["file_system"].as_f64().unwrap() > 0.0 && row["sqlite"].as_f64().unwrap() > 0.0
        );
    }
    let raw = cal["raw_device"].as_str().unwrap();
    assert!(
        raw.starts_with("measured") || raw.starts_with("unavailable"),
        "{raw}"
    );
    assert_eq!(
        cal["rows"][0]["raw_device"].is_number(),
        raw.starts_with("measured")
    );
    assert!(
        cal["rows"][1]["raw_device"].is_null(),
        "raw writes are never attempted"
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing left in the target directory"
    );

    let shown = sb
        .pb(["storage", "--show", "--results", arg(&results), "--json"])
        .expect_ok()
        .json();
    assert_eq!(shown["files"], r["files"]);
    let text = sb
        .pb(["storage", "--show", "--results", arg(&results)])
        .expect_ok()
        .stdout;
    assert!(
        text.contains("calibration") && text.contains("androbench"),
        "{text}"
    );
}

#[test]
fn bad_storage_input_exits_2() {
    let sb = Sandbox::new();
    sb.expect_refused(&[
        (
            "storage --sync none,sometimes",
            "invalid value 'sometimes' for '--sync",
        ),
        ("storage --read-size 1000", "--read-size 1000"),
        (
            "storage --tests seq-read,tpc-c",
            "invalid value 'tpc-c' for '--tests",
        ),
        ("storage --threads 0", "--threads 0"),
        ("storage --dir missing-dir", "--dir missing-dir"),
        ("storage --journal-mode wall", "--journal-mode wall"),
    ]);
}
