//! Hostile input never hangs or aborts pocketbench: SQL with NUL bytes, sizes above their
//! documented limits (flags, .properties values, trace headers), traces whose checksums are
//! right but whose contents are absurd, flash traces reaching 2^62, and the validation gaps a
//! hostile user found (`--ops 0`, unknown governors, `trace gen -o DIR`, meter CSVs out of
//! order or with negative power, control characters echoed in errors). Each is refused with
//! exit status 2 and one line naming the file, field or flag, and no store is created.

mod common;

use common::{arg, words, Outcome, Sandbox};
use std::path::Path;

/// Exit 2, nothing on stdout, one line on stderr containing every needle.
fn refused(out: &Outcome, needles: &[&str]) {
    let args = out.args.join(" ");
    assert_eq!(
        out.code,
        Some(2),
        "pocketbench {args}\n{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout.is_empty(),
        "pocketbench {args}: stdout {}",
        out.stdout
    );
    let lines = out.stderr_lines();
    assert_eq!(
        lines.len(),
        1,
        "pocketbench {args}: stderr {:?}",
        out.stderr
    );
    for n in needles {
        assert!(
            lines[0].contains(n),
            "pocketbench {args}: no {n:?} in {}",
            lines[0]
        );
    }
}

fn run_refused(sb: &Sandbox, args: &[&str], needles: &[&str]) {
    let store = sb.results();
    let mut all = vec!["run", "--results", arg(&store)];
    all.extend_from_slice(args);
    refused(&sb.pb(all), needles);
    assert!(!store.exists(), "a refused run created the store");
}

#[test]
fn nul_bytes_in_sql_workload_files_are_refused_not_looped_on() {
    let sb = Sandbox::new();
    let json = sb.write(
        "nul.json",
        r#"{"init": [{"sql": "CREATE TABLE t(a)"}], "benchmark": [{"op": "query", "sql": "SELECT 1;\u0000SELECT 2"}]}"#,
    );
    run_refused(
        &sb,
        &["--workload", arg(&json), "--delay", "zero"],
        &["nul.json", "benchmark", "NUL byte at offset 9"],
    );
    let toml = sb.write(
        "nul.toml",
        "[sql]\nrecords = 2\noperations = 3\n[[sql.statement]]\nsql = \"SELECT 1 \\u0000\"\n",
    );
    run_refused(
        &sb,
        &["--workload", arg(&toml)],
        &["nul.toml", "sql.statement[0].sql", "NUL byte"],
    );
    // Comments only, and statements followed by garbage, run or fail but end.
    let odd = sb.write(
        "odd.json",
        r#"{"init": [{"sql": "-- nothing but a comment"}], "benchmark": [{"op": "query", "sql": "SELECT 1; garbage"}]}"#,
    );
    let out = sb.pb([
        "run",
        "--workload",
        arg(&odd),
        "--delay",
        "zero",
        "--results",
        arg(&sb.results()),
        "--no-overhead",
        "--quiet",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("syntax error"), "{}", out.stderr);
}

#[test]
fn workload_files_that_are_not_utf8_are_refused() {
    let sb = Sandbox::new();
    let props = sb.write("bad.properties", b"recordcount=10\n\xff\xfe=1\n");
    run_refused(
        &sb,
        &["--workload", arg(&props)],
        &["bad.properties", "not UTF-8 text", "offset 15"],
    );
}

#[test]
fn sizes_above_their_limits_are_refused_by_name() {
    let sb = Sandbox::new();
    for (args, needles) in [
        ("--ops 0", vec!["--ops: must be at least 1"]),
        (
            "--field-length 4294967295",
            vec!["--field-length: 4294967295 is above the limit of 1048576"],
        ),
        (
            "--records 2147483648",
            vec!["--records: 2147483648 is above the limit of 100000000"],
        ),
        (
            "--ops 1000000001",
            vec!["--ops", "above the limit of 1000000000"],
        ),
        (
            "--field-count 1001",
            vec!["--field-count", "above the limit of 1000"],
        ),
        (
            "--field-count 1000 --field-length 1048576",
            vec!["field_count", "above the limit of 16777216"],
        ),
    ] {
        run_refused(&sb, &words(args), &needles);
    }
    for (line, key) in [
        ("fieldlength=4294967295", "fieldlength"),
        ("maxscanlength=4294967295", "maxscanlength"),
        ("recordcount=100000001", "recordcount"),
        ("fieldcount=0", "fieldcount"),
    ] {
        let p = sb.write("w.properties", format!("readproportion=1\n{line}\n"));
        run_refused(&sb, &["--workload", arg(&p)], &["w.properties", key]);
    }
}

#[test]
fn a_run_needing_more_disk_than_is_free_is_refused_before_writing() {
    let sb = Sandbox::new();
    // 10^8 records of 16 fields of 1 MiB: petabytes, more than any disk holds.
    run_refused(
        &sb,
        &words("--records 100000000 --field-count 16 --field-length 1048576 --distribution uniform --dir work"),
        &["the trace with the loaded database needs about", "GiB but", "free"],
    );
    let work = sb.path("work");
    assert_eq!(std::fs::read_dir(&work).map(|d| d.count()).unwrap_or(0), 0);
}

/// Rewrite the JSON header of the trace at `path` with `edit`, keeping its checksum right.
fn edit_header(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let bytes = std::fs::read(path).unwrap();
    let len = u32::from_le_bytes(bytes[10..14].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[14..14 + len]).unwrap();
    edit(&mut header);
    let json = serde_json::to_vec(&header).unwrap();
    let mut out = bytes[..10].to_vec();
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&crc32fast::hash(&json).to_le_bytes());
    out.extend_from_slice(&bytes[14 + len + 4..]);
    std::fs::write(path, out).unwrap();
}

#[test]
fn absurd_trace_headers_are_refused_with_the_field_named() {
    let sb = Sandbox::new();
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, Edit, &str); 4] = [
        (
            "fc0.pbt",
            |h| h["workload"]["model"]["field_count"] = 0.into(),
            "field_count: must be at least 1",
        ),
        (
            "ops.pbt",
            |h| h["workload"]["run_ops"] = u64::MAX.into(),
            "run_ops: 18446744073709551615 is above the limit",
        ),
        (
            "delay.pbt",
            |h| h["delay"] = "bogus".into(),
            "delay: unknown",
        ),
        (
            "len.pbt",
            |h| h["workload"]["model"]["field_length"] = 4294967295u64.into(),
            "field_length",
        ),
    ];
    for (name, edit, needle) in cases {
        let trace = sb.trace_gen(name, &words("--records 5 --ops 5"));
        edit_header(&trace, edit);
        refused(
            &sb.pb(["trace", "show", name]),
            &[name, "trace header", needle],
        );
        run_refused(&sb, &["--trace", name], &[name, needle]);
    }
}

/// A checksummed flash trace holding one write of `len` bytes at `offset`.
fn flash_trace(offset: u64, len: u64) -> Vec<u8> {
    fn varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let mut b = b"PBFLASH1".to_vec();
    let info = br#"{"tool_version":"x","engine":"sqlite","clock":"monotonic","t0_ns":0}"#;
    b.extend_from_slice(&(info.len() as u32).to_le_bytes());
    b.extend_from_slice(info);
    b.push(1); // main database file (kind 0), write (op 1)
    for v in [10, 5, offset, len] {
        varint(&mut b, v);
    }
    b.push(0xFF);
    varint(&mut b, 1);
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

#[test]
fn flash_trace_offsets_near_2_pow_62_are_refused() {
    let sb = Sandbox::new();
    let ok = sb.write("ok.pbft", flash_trace(0, 4096));
    sb.pb(["flash", "replay", arg(&ok), "--json"]).expect_ok();
    for (name, offset, len) in [
        ("far.pbft", 1u64 << 62, 4096),
        ("long.pbft", 0, 1 << 62),
        ("wrap.pbft", u64::MAX, 2),
    ] {
        let f = sb.write(name, flash_trace(offset, len));
        refused(
            &sb.pb(["flash", "replay", arg(&f)]),
            &["lies beyond the modelled device"],
        );
    }
}

#[test]
fn validation_gaps_found_by_a_hostile_user_are_closed() {
    let sb = Sandbox::new();
    run_refused(
        &sb,
        &words("--governor bogus-gov --ops 5"),
        &["--governor \"bogus-gov\"", "not a governor"],
    );
    std::fs::create_dir(sb.path("adir")).unwrap();
    refused(
        &sb.pb(words("trace gen -o adir")),
        &["-o adir: is a directory"],
    );
    run_refused(
        &sb,
        &words("--ops 5 --raw adir"),
        &["--raw adir: is a directory"],
    );
    // A user value with a newline and an escape sequence stays on one escaped line.
    run_refused(
        &sb,
        &["--workload", "ycsb\n\u{1b}[31mred"],
        &["--workload", "\\n", "\\u{1b}"],
    );
}

#[test]
fn meter_csvs_out_of_order_or_with_negative_power_are_refused() {
    let sb = Sandbox::new();
    sb.run_json(&words(
        "--engine null --records 5 --ops 5 --delay zero --no-overhead",
    ));
    let results = sb.results();
    for (name, csv, needle) in [
        (
            "back.csv",
            "Time(s),Power(mW)\n0.0,500\n0.2,510\n0.1,505\n",
            "line 4: time 0.1 s is not after",
        ),
        (
            "neg.csv",
            "Time(s),Power(mW)\n0.0,500\n0.1,-3\n",
            "line 3: power -0.003 W is negative",
        ),
        (
            "nan.csv",
            "Time(s),Power(mW)\n0.0,500\n0.1,NaN\n",
            "line 3: no numeric power",
        ),
        (
            "inf.csv",
            "Time(s),Power(mW)\n0.0,inf\n0.1,2\n",
            "line 2: no numeric power",
        ),
    ] {
        let f = sb.write(name, csv);
        let out = sb.pb([
            "energy",
            "import",
            "1",
            arg(&f),
            "--align",
            "start",
            "--results",
            arg(&results),
        ]);
        refused(&out, &[name, needle]);
    }
}
