//! The exporters (`results show --format`, `report --format`): a stored run whose ten samples
//! are rewritten to known values — operation `seq` (0-based) is a `read` when even and an
//! `update` when odd, starts at `seq` × 0.4 s and takes (`seq` + 1) µs — exported as .hgrm,
//! .hlog, CSV, Markdown and JSON, checked against answers worked out by hand from those values.

mod common;

use common::{arg, Sandbox};
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use std::path::PathBuf;

/// A store with one null-engine run of ten operations, rewritten as described above.
fn store_with_known_samples(sb: &Sandbox) -> PathBuf {
    sb.run_json(&[
        "--engine",
        "null",
        "--records",
        "10",
        "--ops",
        "10",
        "--delay",
        "zero",
        "--no-overhead",
    ]);
    let results = sb.results();
    let conn = rusqlite::Connection::open(&results).expect("store");
    let first: i64 = conn
        .query_row("SELECT min(seq) FROM op_samples", [], |r| r.get(0))
        .expect("samples");
    let n = conn
        .execute(
            "UPDATE op_samples SET
                 kind = CASE WHEN (seq - ?1) % 2 = 0 THEN 'read' ELSE 'update' END,
                 start_ns = (seq - ?1) * 400000000,
                 end_ns = (seq - ?1) * 400000000 + (seq - ?1 + 1) * 1000",
            [first],
        )
        .expect("rewriting samples");
    assert_eq!(n, 10);
    results
}

#[test]
fn hgrm_is_hdrhistograms_percentile_distribution_per_operation_kind() {
    let sb = Sandbox::new();
    let results = store_with_known_samples(&sb);
    let dir = sb.path("hist");
    sb.pb([
        "results",
        "show",
        "1",
        "--results",
        arg(&results),
        "--format",
        "hgrm",
        "-o",
        arg(&dir),
    ])
    .expect_ok();
    let read = std::fs::read_to_string(dir.join("read.hgrm")).expect("read.hgrm");
    let update = std::fs::read_to_string(dir.join("update.hgrm")).expect("update.hgrm");
    // Reads took 1, 3, 5, 7, 9 µs, recorded in ns with 3 significant digits: 9 000 ns falls in
    // a bucket 8 ns wide (8 192-16 383 ns), printed as its highest equivalent value 9.007 µs,
    // as HdrHistogram does. Mean and sd use each bucket's middle (1 000, 3 001, 5 002, 7 002,
    // 9 004 ns): mean 25 009 / 5 = 5.002 µs, population sd √(40 036 008.8 / 5) = 2.830 µs.
    let lines: Vec<&str> = read.lines().collect();
    assert_eq!(
        lines[0],
        "       Value     Percentile TotalCount 1/(1-Percentile)"
    );
    assert_eq!(lines[1], "");
    assert_eq!(
        lines[2],
        "       1.000 0.000000000000          1           1.00"
    );
    let last = lines
        .iter()
        .rfind(|l| !l.starts_with('#'))
        .expect("a last line");
    assert_eq!(*last, "       9.007 1.000000000000          5");
    assert!(
        read.contains("#[Mean    =        5.002, StdDeviation   =        2.830]"),
        "{read}"
    );
    assert!(
        read.contains("#[Max     =        9.007, Total count    =            5]"),
        "{read}"
    );
    assert!(read.contains("SubBuckets     =         2048]"), "{read}");
    // Updates took 2, 4, 6, 8, 10 µs: middles 2 000, 4 001, 6 002, 8 002, 10 004 ns.
    assert!(update.contains("#[Mean    =        6.002"), "{update}");
    assert!(update.contains("#[Max     =       10.007, Total count    =            5]"));
    // Several files need a directory: to stdout it is refused.
    let out = sb
        .pb([
            "results",
            "show",
            "1",
            "--results",
            arg(&results),
            "--format",
            "hgrm",
        ])
        .expect_code(2);
    assert!(
        out.stderr.contains("2 files: give -o DIR"),
        "{}",
        out.stderr
    );
}

#[test]
fn hlog_holds_one_histogram_per_second_and_operation_kind() {
    let sb = Sandbox::new();
    let results = store_with_known_samples(&sb);
    let file = sb.path("run.hlog");
    sb.pb([
        "results",
        "show",
        "1",
        "--results",
        arg(&results),
        "--format",
        "hlog",
        "-o",
        arg(&file),
    ])
    .expect_ok();
    let bytes = std::fs::read(&file).expect("run.hlog");
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("#[Histogram log format version 1.3]"),
        "{text}"
    );
    let mut got = Vec::new();
    let mut de = Deserializer::new();
    for entry in IntervalLogIterator::new(&bytes) {
        if let Ok(LogEntry::Interval(i)) = entry {
            let b64 = base64_decode(i.encoded_histogram());
            let h: Histogram<u64> = de.deserialize(&mut &b64[..]).expect("a histogram");
            got.push((
                i.tag().map(|t| t.as_str().to_string()).unwrap_or_default(),
                i.start_timestamp().as_secs(),
                h.len(),
                h.max(),
            ));
        }
    }
    // Starts 0, 0.4, …, 3.6 s: second 0 holds seq 0-2, second 1 seq 3-4, second 2 seq 5-7,
    // second 3 seq 8-9; the maximum is the largest (seq + 1) µs of the kind in that second.
    let want = [
        ("read", 0, 2, 3),
        ("read", 1, 1, 5),
        ("read", 2, 1, 7),
        ("read", 3, 1, 9),
        ("update", 0, 1, 2),
        ("update", 1, 1, 4),
        ("update", 2, 2, 8),
        ("update", 3, 1, 10),
    ];
    let mut got_sorted = got.clone();
    got_sorted.sort();
    let want: Vec<(String, u64, u64, u64)> = want
        .iter()
        .map(|(k, s, n, m)| (k.to_string(), *s, *n, *m))
        .collect();
    assert_eq!(got_sorted, want, "{text}");
}

#[test]
fn csv_markdown_and_json_agree_on_the_pooled_percentiles() {
    let sb = Sandbox::new();
    let results = store_with_known_samples(&sb);
    // Ten operations of 1 … 10 µs: the pooled p50 is the 5th value, 5 000 ns, reported as the
    // highest value of its 4 ns bucket (5.003 µs); the max 10 000 ns as 10.007 µs.
    let csv_text = sb
        .pb([
            "results",
            "show",
            "1",
            "--results",
            arg(&results),
            "--format",
            "csv",
        ])
        .expect_ok()
        .stdout;
    let mut rd = csv::Reader::from_reader(csv_text.as_bytes());
    let head = rd.headers().expect("a header").clone();
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.expect("a row")).collect();
    assert_eq!(rows.len(), 1);
    let col = |name: &str| {
        let i = head
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name}: {head:?}"));
        rows[0][i].to_string()
    };
    assert_eq!(col("pooled_p50_us"), "5.003");
    assert_eq!(col("pooled_max_us"), "10.007");
    assert_eq!(col("runs"), "1");
    let md = sb
        .pb([
            "results",
            "show",
            "1",
            "--results",
            arg(&results),
            "--format",
            "md",
        ])
        .expect_ok()
        .stdout;
    assert!(md.starts_with("| configuration | n |"), "{md}");
    assert!(md.contains("| 5 / 10 |"), "{md}");
    let json = sb
        .pb([
            "report",
            "--results",
            arg(&results),
            "--format",
            "json",
            "-o",
            "r.json",
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(json["runs"], 1);
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sb.path("r.json")).expect("r.json")).expect("JSON");
    assert_eq!(doc["configurations"][0]["pooled_us"]["p50"], 5.003);
    assert_eq!(doc["runs"][0]["id"], 1);
}

/// Standard base64 (the interval log's encoding of each compressed histogram).
fn base64_decode(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|c| u32::from(val(*c))).collect();
        let n = v.iter().fold(0u32, |acc, x| (acc << 6) | x) << (6 * (4 - v.len()));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..v.len() - 1]);
    }
    out
}
