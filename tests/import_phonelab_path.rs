//! The PhoneLab path: an original PocketData recording (`workload_ia_log.json`, distilled by
//! its authors from PhoneLab logs) written back out as PhoneLab `SQLite-Query-PhoneLab` log
//! lines, in PhoneLab's tab-separated layout, imports back to the same statements in the same
//! order with the same gaps between them.

use pocketbench::workload::import::{source, LogRecord, Stamp};
use std::io::Write;

#[test]
fn a_pocketdata_recording_written_as_phonelab_lines_imports_back_to_the_same_statements() {
    let text = std::fs::read_to_string("tests/fixtures/pocketdata/workload_ia_log.json").unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    // The recording: queries, each followed by a break of `delta` ms.
    let mut want: Vec<(String, u64)> = Vec::new();
    let mut at_ms = 1_427_025_929_000u64;
    for item in json["benchmark"].as_array().unwrap() {
        match item["op"].as_str().unwrap() {
            "query" => want.push((item["sql"].as_str().unwrap().to_string(), at_ms)),
            "break" => at_ms += item["delta"].as_u64().unwrap(),
            other => panic!("unexpected op {other}"),
        }
    }
    assert_eq!(want.len(), 1800);

    let mut log = tempfile::NamedTempFile::new().unwrap();
    for (i, (sql, ms)) in want.iter().enumerate() {
        let verb = sql.split_whitespace().next().unwrap().to_ascii_uppercase();
        let payload = serde_json::json!({
            "Counter": i, "LogFormat": "1.0", "Time": 1000, "Arguments": "null",
            "Results": sql, "Action": verb, "Rows returned": 0
        });
        // The date column in UTC, microseconds, as PhoneLab prints it.
        let secs = ms / 1000;
        let (days, sod) = (secs / 86_400, secs % 86_400);
        assert_eq!(days, 16_516, "all on 2015-03-22");
        let date = format!(
            "2015-03-22 {:02}:{:02}:{:02}.{:03}000",
            sod / 3600,
            sod / 60 % 60,
            sod % 60,
            ms % 1000
        );
        writeln!(
            log,
            "dev\t{ms}\t{ms}.0\t{date}\t810\t811\tI\tSQLite-Query-PhoneLab\t{payload}"
        )
        .unwrap();
    }
    log.flush().unwrap();

    let fe = source::choose(log.path(), "auto").unwrap();
    assert_eq!(fe.name, "phonelab");
    let mut got = Vec::new();
    let counts = source::read(log.path(), fe, &mut |r| {
        if let LogRecord::Statement(s) = r {
            assert_eq!((s.stamp, s.dur_ns), (Stamp::End, Some(1000)));
            got.push((s.sql, s.t_ns));
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(counts.dropped.values().sum::<u64>(), 0);
    assert_eq!(got.len(), want.len());
    for (i, ((gs, gt), (ws, wt))) in got.iter().zip(&want).enumerate() {
        assert_eq!(gs, ws, "statement {i}");
        assert_eq!(
            gt - got[0].1,
            (wt - want[0].1) * 1_000_000,
            "time of statement {i}"
        );
    }
}
