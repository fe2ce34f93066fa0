//! SQLite transaction suites: AndroBench's (a 17-column contacts-like table; N single-row
//! INSERT transactions, then N UPDATEs, then N DELETEs; transactions per second) and
//! Mobibench's (three tables; each transaction is BEGIN, one INSERT / UPDATE / DELETE per
//! table, COMMIT). Journal and synchronous modes are options.

use crate::bench_suites::random_text;
use crate::error::{Result, ResultExt};
use crate::platform::clock::mono_ns;
use crate::workload::rng::Rng;
use rusqlite::{params, Connection};
use std::path::Path;

/// Options of both suites.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TxSettings {
    pub txns: u64,
    pub journal_mode: String,
    pub synchronous: String,
}

/// One phase: how many transactions, how long.
#[derive(Clone, Debug)]
pub struct PhaseTime {
    pub phase: &'static str,
    pub txns: u64,
    pub ns: u64,
}

/// Run `one` for each row id `1..=txns` (one transaction each), timed as `phase`.
fn timed_phase(
    phase: &'static str,
    txns: u64,
    mut one: impl FnMut(u64) -> Result<()>,
) -> Result<PhaseTime> {
    let t0 = mono_ns();
    for id in 1..=txns {
        one(id)?;
    }
    Ok(PhaseTime {
        phase,
        txns,
        ns: mono_ns() - t0,
    })
}

fn open(path: &Path, s: &TxSettings) -> Result<Connection> {
    let conn = Connection::open(path).run_err(format!("sqlite: {}", path.display()))?;
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = {}; PRAGMA synchronous = {};",
        s.journal_mode, s.synchronous
    ))
    .run_err("sqlite: pragmas")?;
    Ok(conn)
}

const CONTACT_COLUMNS: [&str; 16] = [
    "display_name",
    "given_name",
    "family_name",
    "phonetic_name",
    "phone_number",
    "phone_type",
    "email",
    "email_type",
    "street",
    "city",
    "region",
    "postcode",
    "country",
    "company",
    "title",
    "note",
];

/// AndroBench-style: `_id` plus 16 contact columns (17 in all).
pub fn androbench(dir: &Path, s: &TxSettings, seed: u64) -> Result<Vec<PhaseTime>> {
    let path = dir.join("androbench.sqlite");
    let _ = std::fs::remove_file(&path);
    let conn = open(&path, s)?;
    let cols: Vec<String> = CONTACT_COLUMNS
        .iter()
        .map(|c| {
            let ty = if c.ends_with("_type") {
                "INTEGER"
            } else {
                "TEXT"
            };
            format!("{c} {ty}")
        })
        .collect();
    conn.execute_batch(&format!(
        "CREATE TABLE contacts (_id INTEGER PRIMARY KEY, {})",
        cols.join(", ")
    ))
    .run_err("sqlite: contacts table")?;
    let mut rng = Rng::derive(seed, "androbench");
    let placeholders: Vec<String> = (1..=17).map(|i| format!("?{i}")).collect();
    let mut ins = conn
        .prepare(&format!(
            "INSERT INTO contacts (_id, {}) VALUES ({})",
            CONTACT_COLUMNS.join(", "),
            placeholders.join(", ")
        ))
        .run_err("sqlite: prepare")?;
    let mut phases = Vec::new();
    phases.push(timed_phase("insert", s.txns, |id| {
        let mut values: Vec<rusqlite::types::Value> = vec![(id as i64).into()];
        for c in CONTACT_COLUMNS {
            values.push(if c.ends_with("_type") {
                (rng.below(4) as i64).into()
            } else {
                let len = 8 + rng.below(16) as usize;
                random_text(&mut rng, len).into()
            });
        }
        ins.execute(rusqlite::params_from_iter(values))
            .run_err("sqlite: insert")?;
        Ok(())
    })?);
    let mut upd = conn
        .prepare(
            "UPDATE contacts SET display_name = ?1, phone_number = ?2, note = ?3 WHERE _id = ?4",
        )
        .run_err("sqlite: prepare")?;
    phases.push(timed_phase("update", s.txns, |id| {
        let (a, b, c) = (
            random_text(&mut rng, 16),
            random_text(&mut rng, 12),
            random_text(&mut rng, 24),
        );
        upd.execute(params![a, b, c, id as i64])
            .run_err("sqlite: update")?;
        Ok(())
    })?);
    let mut del = conn
        .prepare("DELETE FROM contacts WHERE _id = ?1")
        .run_err("sqlite: prepare")?;
    phases.push(timed_phase("delete", s.txns, |id| {
        del.execute([id as i64]).run_err("sqlite: delete")?;
        Ok(())
    })?);
    Ok(phases)
}

/// Mobibench-style: three tables, one row operation per table per transaction.
pub fn mobibench(dir: &Path, s: &TxSettings, seed: u64) -> Result<Vec<PhaseTime>> {
    let path = dir.join("mobibench.sqlite");
    let _ = std::fs::remove_file(&path);
    let conn = open(&path, s)?;
    for t in 1..=3 {
        conn.execute_batch(&format!(
            "CREATE TABLE tbl{t} (id INTEGER PRIMARY KEY, name TEXT, value INTEGER)"
        ))
        .run_err("sqlite: mobibench tables")?;
    }
    let mut rng = Rng::derive(seed, "mobibench");
    let sql: [(&'static str, &str); 3] = [
        (
            "insert",
            "INSERT INTO tbl{t} (id, name, value) VALUES (?1, ?2, ?3)",
        ),
        (
            "update",
            "UPDATE tbl{t} SET name = ?2, value = ?3 WHERE id = ?1",
        ),
        ("delete", "DELETE FROM tbl{t} WHERE id = ?1"),
    ];
    let mut phases = Vec::new();
    for (phase, template) in sql {
        let mut stmts = (1..=3)
            .map(|t| conn.prepare(&template.replace("{t}", &t.to_string())))
            .collect::<std::result::Result<Vec<_>, _>>()
            .run_err("sqlite: prepare")?;
        phases.push(timed_phase(phase, s.txns, |id| {
            let id = id as i64;
            conn.execute_batch("BEGIN").run_err("sqlite: BEGIN")?;
            for st in stmts.iter_mut() {
                if phase == "delete" {
                    st.execute([id])
                } else {
                    st.execute(params![
                        id,
                        random_text(&mut rng, 32),
                        rng.below(1 << 30) as i64
                    ])
                }
                .run_err(format!("sqlite: {phase}"))?;
            }
            conn.execute_batch("COMMIT").run_err("sqlite: COMMIT")?;
            Ok(())
        })?);
    }
    Ok(phases)
}
