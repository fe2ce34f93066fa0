//! Format version 2 by hand-worked examples: SQL with typed arguments and each run record's
//! connection, offset and duration round-trip; a version 1 reader's view (no bound
//! statements) and every new check refuse bad files with a message naming the cause.

use super::{ImportInfo, TraceHeader, TraceItem, TraceReader, TraceWriter, VERSION_1, VERSION_2};
use crate::workload::model::DataModel;
use crate::workload::op::{Op, Recorded, SqlValue, TimedOp};
use crate::workload::WorkloadInfo;

fn header(connections: u32) -> TraceHeader {
    TraceHeader {
        workload: WorkloadInfo {
            name: "app".into(),
            source: "import".into(),
            model: DataModel::Sql,
            load_ops: 1,
            run_ops: 2,
            params: Default::default(),
            recorded_delays: true,
            initial_delay_ns: 0,
        },
        delay: "recorded".into(),
        seed: 0,
        generator: "test".into(),
        import: Some(ImportInfo {
            connections,
            ..Default::default()
        }),
    }
}

fn run(conn: u32, offset_ns: u64, args: Vec<SqlValue>) -> TimedOp {
    TimedOp {
        op: Op::SqlArgs {
            sql: "INSERT INTO t VALUES(?)".into(),
            args,
        },
        delay_ns: 5,
        recorded: Some(Recorded {
            conn,
            offset_ns,
            dur_ns: Some(7),
        }),
    }
}

fn write(path: &std::path::Path, h: &TraceHeader, runs: &[TimedOp]) -> crate::error::Result<()> {
    let mut w = TraceWriter::create(path, h, VERSION_2)?;
    w.write_load(&Op::Sql {
        sql: "CREATE TABLE t(a)".into(),
    })?;
    for r in runs {
        w.write_run(r)?;
    }
    w.finish().map(|_| ())
}

fn read_all(path: &std::path::Path) -> crate::error::Result<Vec<TraceItem>> {
    TraceReader::open(path)?.collect()
}

#[test]
fn bound_statements_and_their_places_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.pbt");
    let runs = [
        run(0, 10, vec![SqlValue::Integer(-3)]),
        run(1, 10, vec![SqlValue::Blob(vec![1, 2])]),
    ];
    write(&p, &header(2), &runs).unwrap();
    let items = read_all(&p).unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[1], TraceItem::Run(runs[0].clone()));
    assert_eq!(items[2], TraceItem::Run(runs[1].clone()));
    assert_eq!(TraceReader::open(&p).unwrap().version(), VERSION_2);
}

#[test]
fn a_version_1_writer_refuses_bound_statements() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.pbt");
    let mut w = TraceWriter::create(&p, &header(1), VERSION_1).unwrap();
    let e = w.write_run(&run(0, 0, vec![])).unwrap_err();
    assert!(e.to_string().contains("needs format version 2"), "{e}");
}

#[test]
fn connections_beyond_the_header_and_offsets_going_back_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.pbt");
    write(&p, &header(1), &[run(0, 0, vec![]), run(1, 0, vec![])]).unwrap();
    let e = read_all(&p).unwrap_err().to_string();
    assert!(
        e.ends_with("corrupt trace (block 2): connection number beyond the header's connections"),
        "{e}"
    );
    write(&p, &header(1), &[run(0, 9, vec![]), run(0, 8, vec![])]).unwrap();
    let e = read_all(&p).unwrap_err().to_string();
    assert!(e.ends_with("recorded offsets go backwards"), "{e}");
    let mut h = header(100_000);
    h.workload.run_ops = 0;
    write(&p, &h, &[]).unwrap();
    let e = TraceReader::open(&p).err().unwrap().to_string();
    assert!(
        e.contains("import.connections: 100000 is above the limit of 256"),
        "{e}"
    );
}

#[test]
fn a_bound_statement_in_a_version_1_file_is_an_unknown_tag() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.pbt");
    write(&p, &header(1), &[run(0, 0, vec![SqlValue::Null])]).unwrap();
    // Rewrite the version field to 1: the header CRC does not cover it, the blocks then
    // decode as version 1 and meet tag 6.
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[8] = 1;
    std::fs::write(&p, bytes).unwrap();
    let e = read_all(&p).unwrap_err().to_string();
    assert!(e.ends_with("unknown operation tag"), "{e}");
}

#[test]
fn a_scratch_traces_blocks_appended_make_the_trace_writing_its_records_makes() {
    let dir = tempfile::tempdir().unwrap();
    let h = header(2);
    // Enough records for several blocks (about 64 KiB each).
    let runs: Vec<TimedOp> = (0..6_000u32)
        .map(|i| {
            run(
                i % 2,
                u64::from(i) * 10,
                vec![SqlValue::Text("x".repeat(40))],
            )
        })
        .collect();
    let direct = dir.path().join("direct.pbt");
    write(&direct, &h, &runs).unwrap();
    // The load in one scratch trace, the runs in another, both appended under the header.
    let (load, rest) = (dir.path().join("load.pbt"), dir.path().join("runs.pbt"));
    let mut w = TraceWriter::scratch(&load, &header(0), VERSION_2).unwrap();
    w.write_load(&Op::Sql {
        sql: "CREATE TABLE t(a)".into(),
    })
    .unwrap();
    let load = w.finish_scratch().unwrap();
    let mut w = TraceWriter::scratch(&rest, &header(0), VERSION_2).unwrap();
    for r in &runs {
        w.write_run(r).unwrap();
    }
    let rest = w.finish_scratch().unwrap();
    assert_eq!(
        (rest.totals.run_ops, rest.totals.total_delay_ns),
        (6_000, 30_000)
    );
    let joined = dir.path().join("joined.pbt");
    let mut w = TraceWriter::create(&joined, &h, VERSION_2).unwrap();
    w.append_written(&load).unwrap();
    w.append_written(&rest).unwrap();
    let totals = w.finish().unwrap();
    assert_eq!((totals.load_ops, totals.run_ops), (1, 6_000));
    assert_eq!(
        std::fs::read(&joined).unwrap(),
        std::fs::read(&direct).unwrap()
    );
    assert_eq!(read_all(&joined).unwrap().len(), 6_001);
    // Run blocks before load blocks are refused, as when writing the records.
    let mut w = TraceWriter::create(&dir.path().join("bad.pbt"), &h, VERSION_2).unwrap();
    w.append_written(&rest).unwrap();
    assert!(w.append_written(&load).is_err());
}
