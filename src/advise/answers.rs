//! Equal answers: a variant's trace replayed once in this process, untimed by the measurement,
//! on one connection in the trace's order, noting a checksum of the rows every statement
//! returned (per shape, in execution order; the rows of one statement as a multiset, since
//! without ORDER BY SQL promises no order) and of the end state (the durability check's content
//! digest, indexes left out), and the statements that failed. Two replays whose checksums agree gave the app the
//! same answers. The same pass times each statement: the quick first measurement that orders
//! the candidates.

use super::shapes::Shapes;
use crate::engine;
use crate::error::{Error, Result};
use crate::platform::clock::mono_ns;
use crate::workload::trace::{TraceItem, TraceReader};
use serde::Serialize;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;

/// What one replay answered.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Answers {
    /// Per shape (by fingerprint): the checksum of its statements' answers, in order.
    pub per_shape: BTreeMap<String, u64>,
    /// Per shape: statements that failed.
    pub errors: BTreeMap<String, u64>,
    pub first_error: Option<String>,
    /// Content digest of the database after the replay.
    pub end_state: u64,
    /// Time inside the statements (this process, warm): the quick measurement.
    pub busy_ns: u64,
}

/// How a variant's answers differ from the baseline's; `None` when they agree.
pub fn difference(base: &Answers, other: &Answers) -> Option<String> {
    for (shape, sum) in &base.per_shape {
        // Transaction control answers nothing, and a variant may add some (batching).
        if !matches!(
            crate::workload::import::sql::sqltext::txn_step(shape),
            crate::workload::import::sql::sqltext::TxnStep::None
        ) {
            continue;
        }
        match other.per_shape.get(shape) {
            Some(o) if o != sum => {
                return Some(format!("`{}` returns other rows", short(shape)));
            }
            _ => {}
        }
    }
    for (shape, n) in &other.errors {
        let before = base.errors.get(shape).copied().unwrap_or(0);
        if *n > before {
            return Some(format!(
                "`{}` fails {} more time(s){}",
                short(shape),
                n - before,
                other
                    .first_error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ));
        }
    }
    (base.end_state != other.end_state).then(|| "the database ends with other content".to_string())
}

/// A fingerprint cut for one line of text.
pub fn short(fp: &str) -> String {
    const MAX: usize = 60;
    if fp.chars().count() <= MAX {
        return fp.to_string();
    }
    let cut: String = fp.chars().take(MAX - 1).collect();
    format!("{cut}…")
}

/// Replay `trace` on `engine` with `options` in the empty folder `dir` and note its answers.
/// The database stays in `dir` (the baseline's is the scratch database the index candidates
/// are planned on).
pub fn replay(
    trace: &Path,
    engine_name: &str,
    options: &[(String, String)],
    dir: &Path,
    shapes: &mut Shapes,
) -> Result<Answers> {
    let mut e = engine::open(engine_name, options, dir)?;
    let mut reader = TraceReader::open(trace)?;
    crate::run::load::load(e.as_mut(), &mut reader)?;
    let mut reader = TraceReader::open(trace)?;
    let session = e.as_sql().ok_or_else(|| {
        Error::input(format!(
            "--engine {engine_name}: advise checks answers through SQL; this engine has none"
        ))
    })?;
    let mut out = Answers::default();
    let mut sums: Vec<u64> = Vec::new();
    let mut errors: Vec<u64> = Vec::new();
    let mut ran: Vec<bool> = Vec::new();
    while let Some(item) = reader.next_item()? {
        let TraceItem::Run(t) = item else { continue };
        let id = shapes.intern(&t.op) as usize;
        if sums.len() <= id {
            sums.resize(id + 1, 0);
            errors.resize(id + 1, 0);
            ran.resize(id + 1, false);
        }
        ran[id] = true;
        let t0 = mono_ns();
        let got = session.answer(&t.op);
        out.busy_ns += mono_ns() - t0;
        let h = match got {
            Ok(Some(rows)) => rows_checksum(&rows),
            Ok(None) => 1,
            Err(msg) => {
                errors[id] += 1;
                if out.first_error.is_none() {
                    out.first_error = Some(crate::limits::escape(&msg));
                }
                2
            }
        };
        sums[id] = sums[id].wrapping_mul(0x100_0000_01b3).wrapping_add(h);
    }
    drop(e);
    for (id, sum) in sums.iter().enumerate() {
        if !ran[id] {
            continue;
        }
        let fp = shapes.get(id as u32).fingerprint.clone();
        if errors[id] > 0 {
            out.errors.insert(fp.clone(), errors[id]);
        }
        out.per_shape.insert(fp, *sum);
    }
    let db = dir.join(crate::engine::sqlite::DB_FILE);
    out.end_state =
        crate::durability::traced::digest_without_indexes(&db).map_err(Error::failed)?;
    Ok(out)
}

/// The rows of one statement as a multiset: each row hashed, the hashes summed (order does not
/// count), with the row count.
fn rows_checksum(rows: &[Vec<Vec<u8>>]) -> u64 {
    let mut sum = 0u64;
    for row in rows {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        row.hash(&mut h);
        sum = sum.wrapping_add(h.finish());
    }
    sum.wrapping_mul(31)
        .wrapping_add(rows.len() as u64)
        .wrapping_add(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_in_another_order_are_the_same_answer_other_rows_are_not() {
        let a = vec![vec![b"1".to_vec()], vec![b"2".to_vec()]];
        let b = vec![vec![b"2".to_vec()], vec![b"1".to_vec()]];
        let c = vec![vec![b"1".to_vec()], vec![b"3".to_vec()]];
        assert_eq!(rows_checksum(&a), rows_checksum(&b));
        assert_ne!(rows_checksum(&a), rows_checksum(&c));
        assert_ne!(rows_checksum(&a), rows_checksum(&a[..1]));
    }

    #[test]
    fn a_changed_answer_or_a_new_failure_is_a_difference() {
        let mut base = Answers::default();
        base.per_shape.insert("SELECT ?".into(), 7);
        let mut same = base.clone();
        same.busy_ns = 99;
        assert_eq!(difference(&base, &same), None);
        let mut other = base.clone();
        other.per_shape.insert("SELECT ?".into(), 8);
        assert_eq!(
            difference(&base, &other).unwrap(),
            "`SELECT ?` returns other rows"
        );
        let mut failing = base.clone();
        failing.errors.insert("SELECT ?".into(), 1);
        assert!(difference(&base, &failing)
            .unwrap()
            .contains("fails 1 more"));
        // One more BEGIN (a batch) is no other answer.
        let mut begun = base.clone();
        begun.per_shape.insert("BEGIN".into(), 1);
        let mut batched = begun.clone();
        batched.per_shape.insert("BEGIN".into(), 2);
        assert_eq!(difference(&begun, &batched), None);
        let mut ended = base.clone();
        ended.end_state = 1;
        assert!(difference(&base, &ended).unwrap().contains("other content"));
    }
}
