//! The conversion rules by hand-worked examples: start order and connection numbers, delays
//! as idle time, end-stamped starts, `--max-gap` and `--speed`, `--window`, transaction
//! nesting and `--dangling`, merged connections waiting for the transaction in progress,
//! arguments bound or inline, statements that failed in the app and PRAGMA settings.

use super::*;
use crate::workload::import::record::Stamp;

fn rules() -> Rules {
    Rules {
        args: ArgsMode::Bind,
        dangling: Dangling::Commit,
        merge_connections: false,
        window: None,
        max_gap_ns: None,
        speed: 1.0,
    }
}

fn st(t: u64, dur: u64, conn: &str, sql: &str) -> StatementRecord {
    StatementRecord {
        t_ns: t,
        dur_ns: Some(dur),
        conn: Some(conn.into()),
        sql: sql.into(),
        ..Default::default()
    }
}

/// (sql, conn, offset, delay) of every emitted statement, and what the converter kept aside.
fn convert(
    rules: &Rules,
    input: Vec<StatementRecord>,
) -> (Vec<(String, u32, u64, u64)>, Converted) {
    let schema = HashSet::new();
    let mut c = Converter::new(rules, &schema);
    let mut out = Vec::new();
    let mut emit = |t: TimedOp| -> Result<()> {
        let r = t.recorded.unwrap_or_default();
        let sql = match t.op {
            Op::Sql { sql } => sql,
            Op::SqlArgs { sql, args } => format!("{sql} {args:?}"),
            _ => String::new(),
        };
        out.push((sql, r.conn, r.offset_ns, t.delay_ns));
        Ok(())
    };
    for s in input {
        c.feed(s, &mut emit).unwrap();
    }
    let done = c.finish(&mut emit).unwrap();
    (out, done)
}

fn row(sql: &str, conn: u32, offset: u64, delay: u64) -> (String, u32, u64, u64) {
    (sql.into(), conn, offset, delay)
}

#[test]
fn statements_go_in_start_order_with_idle_time_as_delay() {
    let mut end_stamped = st(1_400, 150, "b", "SELECT 2");
    end_stamped.stamp = Stamp::End; // started at 1 250
    let (out, done) = convert(
        &rules(),
        vec![
            st(1_000, 100, "a", "SELECT 1"),
            st(1_500, 200, "a", "SELECT 3"),
            end_stamped,
        ],
    );
    // Offsets from the first start; delay = next start − (this start + duration).
    assert_eq!(
        out,
        [
            row("SELECT 1", 0, 0, 150),
            row("SELECT 2", 1, 250, 100),
            row("SELECT 3", 0, 500, 0),
        ]
    );
    assert_eq!(done.connections, 2);
}

#[test]
fn long_gaps_are_cut_then_everything_is_sped_up() {
    let r = Rules {
        max_gap_ns: Some(1_000),
        speed: 2.0,
        ..rules()
    };
    let input = vec![
        st(0, 0, "a", "SELECT 1"),
        st(10_000, 0, "a", "SELECT 2"),
        st(10_500, 100, "a", "SELECT 3"),
    ];
    let (out, _) = convert(&r, input);
    // Gaps 10 000 → 1 000 and 500 stay; then halved: 0, 500, 750.
    let offsets: Vec<u64> = out.iter().map(|o| o.2).collect();
    assert_eq!(offsets, [0, 500, 750]);
}

#[test]
fn the_window_keeps_what_starts_inside_it() {
    let r = Rules {
        window: Some((1_000, 2_000)),
        ..rules()
    };
    let input = vec![
        st(0, 0, "a", "SELECT 0"),
        st(1_000, 0, "a", "SELECT 1"),
        st(1_999, 0, "a", "SELECT 2"),
        st(2_000, 0, "a", "SELECT 3"),
    ];
    let (out, done) = convert(&r, input);
    assert_eq!(
        out,
        [row("SELECT 1", 0, 0, 999), row("SELECT 2", 0, 999, 0)]
    );
    assert_eq!(done.dropped["outside the window"], 2);
}

#[test]
fn nesting_is_checked_per_connection_and_dangling_transactions_closed() {
    let input = vec![
        st(0, 0, "a", "COMMIT"),
        st(1, 0, "a", "BEGIN"),
        st(2, 0, "b", "BEGIN"),
        st(3, 0, "a", "BEGIN IMMEDIATE"),
        st(4, 0, "a", "SAVEPOINT s"),
        st(5, 0, "a", "RELEASE s"),
        st(6, 0, "a", "INSERT INTO t VALUES(1)"),
    ];
    let (out, done) = convert(&rules(), input.clone());
    let sqls: Vec<&str> = out.iter().map(|o| o.0.as_str()).collect();
    assert_eq!(
        sqls,
        [
            "BEGIN",
            "BEGIN",
            "SAVEPOINT s",
            "RELEASE s",
            "INSERT INTO t VALUES(1)",
            "COMMIT",
            "COMMIT"
        ]
    );
    assert_eq!(done.dropped["COMMIT or ROLLBACK outside a transaction"], 1);
    assert_eq!(done.dropped["BEGIN inside a transaction"], 1);
    // The closing statements come at the last offset (offsets count from the first statement
    // kept, at 1 ns), on their own connections.
    assert_eq!((out[5].1, out[5].2, out[6].1), (0, 5, 1));

    let r = Rules {
        dangling: Dangling::Drop,
        ..rules()
    };
    let (out, done) = convert(&r, input);
    assert_eq!(out.len(), 5);
    // Connection a's transaction began with the first emitted statement, b's with the second.
    assert_eq!(done.dangling, HashMap::from([(0, 0), (1, 1)]));
}

#[test]
fn merged_connections_wait_for_the_transaction_in_progress() {
    let r = Rules {
        merge_connections: true,
        ..rules()
    };
    let input = vec![
        st(0, 0, "a", "BEGIN"),
        st(1, 0, "b", "BEGIN"),
        st(2, 0, "b", "SELECT 'b'"),
        st(3, 0, "a", "INSERT INTO t VALUES('a')"),
        st(4, 0, "a", "COMMIT"),
        st(5, 0, "b", "COMMIT"),
    ];
    let (out, done) = convert(&r, input);
    let got: Vec<(&str, u64)> = out.iter().map(|o| (o.0.as_str(), o.2)).collect();
    assert_eq!(
        got,
        [
            ("BEGIN", 0),
            ("INSERT INTO t VALUES('a')", 3),
            ("COMMIT", 4),
            ("BEGIN", 4),
            ("SELECT 'b'", 4),
            ("COMMIT", 5),
        ]
    );
    assert!(done.dropped.is_empty(), "{:?}", done.dropped);
    assert_eq!(done.connections, 1);
}

#[test]
fn arguments_settings_and_failures() {
    let mut bound = st(0, 0, "a", "INSERT INTO t VALUES(?, ?)");
    bound.args = Some(vec![ArgValue::Integer(7), ArgValue::Text("x".into())]);
    let mut short = st(1, 0, "a", "SELECT ?, ?");
    short.args = Some(vec![ArgValue::Null]);
    let mut failed = st(2, 0, "a", "SELECT nope");
    failed.status = Some(1);
    let pragma = st(3, 0, "a", "PRAGMA journal_mode=WAL");
    let input = vec![bound, short, failed, pragma];
    let (out, done) = convert(&rules(), input.clone());
    assert_eq!(
        out[0].0,
        "INSERT INTO t VALUES(?, ?) [Integer(7), Text(\"x\")]"
    );
    assert_eq!(out[1].0, "SELECT ?, ? [Null]");
    assert_eq!(out.len(), 2);
    assert_eq!(done.dropped["failed in the app"], 1);
    assert_eq!(done.settings["journal_mode"], "wal");

    let r = Rules {
        args: ArgsMode::Inline,
        ..rules()
    };
    let (out, done) = convert(&r, input);
    assert_eq!(out[0].0, "INSERT INTO t VALUES(7, 'x')");
    assert_eq!(out.len(), 1);
    assert_eq!(done.dropped["fewer arguments than parameters"], 1);
}
