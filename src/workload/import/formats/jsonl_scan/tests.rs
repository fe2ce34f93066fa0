//! The fast reader against serde_json: the same record from every line it reads, and every
//! other line left to serde_json.

use super::*;
use crate::workload::import::LogRecord;

fn serde(line: &str) -> Option<StatementRecord> {
    match serde_json::from_str::<LogRecord>(line) {
        Ok(LogRecord::Statement(s)) => Some(s),
        _ => None,
    }
}

#[test]
fn a_capture_line_reads_as_serde_json_reads_it() {
    let line = r#"{"statement":{"t_ns":1732000000000000000,"dur_ns":20000,"pid":31337,"tid":31338,"conn":"0x55d0","db":"/a/b.db","sql":"INSERT INTO t VALUES(?,?,?,?,?,?)","expanded":"INSERT INTO t VALUES(1,'it''s \"q\"\n\u00e9',2.5,NULL,X'00ff',-7)","args":[1,"it's \"q\"\n\u00e9 \/ \t",2.5,null,{"blob":"00ff"},-7,1e3,-0.5],"rows":1,"status":101}}"#;
    let fast = statement(line).expect("read by the fast reader");
    assert_eq!(Some(&fast), serde(line).as_ref());
    assert_eq!(
        fast.args.as_ref().unwrap()[1],
        ArgValue::Text("it's \"q\"\né / \t".into())
    );
    assert_eq!(fast.args.as_ref().unwrap()[6], ArgValue::Real(1000.0));
    let nulls = r#"{"statement":{"t_ns":0,"stamp":"end","dur_ns":null,"pid":null,"conn":null,"sql":"","args":[],"status":-3}}"#;
    assert_eq!(statement(nulls), serde(nulls));
    assert_eq!(statement(nulls).unwrap().status, Some(-3));
}

#[test]
fn an_import_leaves_out_only_an_expanded_text_nothing_reads() {
    let line = |sql: &str, expanded: &str, args: &str| {
        format!(r#"{{"statement":{{"t_ns":1,"sql":"{sql}","expanded":"{expanded}"{args}}}}}"#)
    };
    let (with, without) = (r#","args":[1]"#, "");
    for (expanded, args, kept) in [
        (r#"SELECT 1 AS \u0022a\u0022"#, with, false),
        ("select 1", with, false),
        ("SELECT 1", without, true),
        ("SELECT 1", r#","args":[]"#, true),
        (r#"SELECT '\u0000'"#, with, true),
        ("create table t(a default 1)", with, true),
        ("DROP", with, true),
        (r#"CRE\u0041TE TABLE t(a)"#, with, true),
        (" SELECT 1", with, true),
        ("Alterx 1", with, false),
    ] {
        let l = line("SELECT ?", expanded, args);
        let (all, bound) = (statement(&l).unwrap(), statement_bound(&l).unwrap());
        assert_eq!(bound.expanded.is_some(), kept, "{l}");
        assert_eq!(
            StatementRecord {
                expanded: None,
                ..all.clone()
            },
            StatementRecord {
                expanded: None,
                ..bound
            },
            "{l}"
        );
        assert!(all.expanded.is_some());
    }
    let big = "x".repeat(MAX_SQL_BYTES as usize + 1);
    assert!(statement_bound(&line("SELECT ?", &big, with))
        .unwrap()
        .expanded
        .is_some());
    assert_eq!(statement_bound(&line("SELECT ?", r"a\q", with)), None);
}

#[test]
fn a_control_byte_is_found_wherever_it_stands() {
    for len in 0..100 {
        let mut line = vec![b'a'; len];
        assert!(!has_control(&line), "{len}");
        for at in 0..len {
            for c in [0u8, 0x1f, b'\n'] {
                line[at] = c;
                assert!(has_control(&line), "{len} {at}");
            }
            line[at] = if at % 2 == 0 { 0x20 } else { 0xff };
            assert!(!has_control(&line), "{len} {at}");
        }
    }
}

#[test]
fn a_real_reads_to_the_bits_serde_json_reads() {
    for token in [
        "0.1",
        "-0.0",
        "2.5",
        "1e3",
        "-0.5",
        "1.5E-7",
        "123456789.123456789",
        "9.999e22",
        "1e22",
        "1e23",
        "4.9e-324",
        "0.30000000000000004",
        "18446744073709551615.5",
        "18446744073709551616.0",
        "1.7976931348623157e308",
        "1e-22",
        "3.14159265358979e+2",
        "0e5",
        "01.5",
        "1.",
        ".5",
        "1e",
        "1e+",
        "--1.0",
        "1.5x",
    ] {
        let fast = real(token);
        let serde = serde_json::from_str::<f64>(token).ok();
        if let Some(f) = fast {
            assert_eq!(Some(f.to_bits()), serde.map(f64::to_bits), "{token}");
        }
    }
    assert_eq!(real("2.5"), Some(2.5));
    assert_eq!(real("-0.0").map(f64::to_bits), Some((-0.0f64).to_bits()));
    assert_eq!(real("1e23"), None);
    assert_eq!(real("01.5"), None);
}

#[test]
fn every_other_shape_is_left_to_serde_json() {
    // A control byte inside a string (serde_json refuses it), wherever it stands.
    for at in [1, 7, 8, 9, 30] {
        let text = format!("{}\t{}", "a".repeat(at), "b".repeat(40 - at));
        let line = format!(r#"{{"statement":{{"t_ns":1,"sql":"{text}"}}}}"#);
        assert_eq!(statement(&line), None, "{line}");
        assert_eq!(serde(&line), None, "{line}");
    }
    for line in [
        r#"{"statement": {"t_ns":1,"sql":"x"}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","sql":"y"}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","extra":1}}"#,
        r#"{"statement":{"t_ns":01,"sql":"x"}}"#,
        r#"{"statement":{"t_ns":1.0,"sql":"x"}}"#,
        r#"{"statement":{"t_ns":18446744073709551616,"sql":"x"}}"#,
        r#"{"statement":{"t_ns":1,"sql":"\ud83d\ude00"}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","args":[-0]}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","args":[true]}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","args":[{"blob":"00","x":1}]}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","args":[9223372036854775808]}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","args":[-9223372036854775808]}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x","pid":4294967296}}"#,
        r#"{"statement":{"t_ns":1}}"#,
        r#"{"statement":{"t_ns":1,"sql":"x"}} "#,
        r#"{"statement":{}}"#,
        r#"{"schema":{"type":"table","name":"t","sql":"CREATE TABLE t(a)"}}"#,
    ] {
        assert_eq!(statement(line), None, "{line}");
    }
}
