//! Index candidates, by the rules SQLite's own `.expert` (ext/expert) follows: for each
//! statement shape whose plan (EXPLAIN QUERY PLAN on the scratch database the baseline's
//! replay left) scans a table, or sorts for its ORDER BY, an index on the columns its WHERE
//! compares for equality, then one column compared by range, or else its ORDER BY columns;
//! every such column list is created inside a transaction that is rolled back, and only one
//! the planner then picks is proposed. Explicit indexes no plan of the trace uses (and that
//! enforce nothing: not UNIQUE) are candidates to drop. Statements over one table are read;
//! joins, subqueries and OR are left alone (docs/advise.md).

use super::answers::short;
use super::constraints::{constraints, Constraints};
use super::shapes::Shapes;
use super::variant::{Edit, Variant};
use super::{Candidate, Kind as ChangeKind};
use crate::error::{Error, Result, ResultExt};
use crate::workload::op::OpKind;
use rusqlite::Connection;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// An index to create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NewIndex {
    pub table: String,
    /// Columns in order, each with ` DESC` where the ORDER BY sorts it so.
    pub columns: Vec<String>,
    pub name: String,
    /// The shapes whose plan it changes (fingerprints).
    pub shapes: Vec<String>,
    /// Statements of those shapes in the trace.
    pub statements: u64,
}

impl NewIndex {
    /// `CREATE INDEX name ON table(columns)`.
    pub fn sql(&self) -> String {
        format!(
            "CREATE INDEX {} ON {}({})",
            ident(&self.name),
            ident(&self.table),
            self.columns.join(", ")
        )
    }
}

/// An explicit index no statement's plan uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnusedIndex {
    pub name: String,
    pub table: String,
    pub sql: String,
}

/// What the plans said.
#[derive(Debug, Default, Serialize)]
pub struct Findings {
    pub new: Vec<NewIndex>,
    pub unused: Vec<UnusedIndex>,
    /// Shapes whose plan could not be read, and why.
    pub unplanned: Vec<(String, String)>,
}

/// Plan every read, update and delete shape of `shapes` on the database at `db`.
pub fn propose(db: &Path, shapes: &Shapes) -> Result<Findings> {
    let conn = Connection::open(db).run_err(format!("opening {}", db.display()))?;
    let explicit = explicit_indexes(&conn)?;
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut found = Findings::default();
    let mut by_columns: BTreeMap<(String, Vec<String>), NewIndex> = BTreeMap::new();
    for shape in &shapes.list {
        if !matches!(shape.kind, OpKind::Select | OpKind::Update | OpKind::Delete) {
            continue;
        }
        let plan = match plan(&conn, &shape.example) {
            Ok(p) => p,
            Err(why) => {
                found.unplanned.push((shape.fingerprint.clone(), why));
                continue;
            }
        };
        used.extend(plan.indexes.iter().cloned());
        if plan.scans.is_empty() && !plan.sorts {
            continue;
        }
        let Some(w) = constraints(&shape.example) else {
            continue;
        };
        if !plan.sorts && !plan.scans.iter().any(|t| t.eq_ignore_ascii_case(&w.table)) {
            continue;
        }
        let Some(columns) = table_columns(&conn, &w.table) else {
            continue;
        };
        let Some(chosen) = choose(&conn, &shape.example, &w, &columns)? else {
            continue;
        };
        let key = (w.table.to_ascii_lowercase(), chosen.clone());
        let entry = by_columns.entry(key).or_insert_with(|| NewIndex {
            name: index_name(&w.table, &chosen),
            table: w.table.clone(),
            columns: chosen.clone(),
            shapes: Vec::new(),
            statements: 0,
        });
        entry.shapes.push(shape.fingerprint.clone());
        entry.statements += shape.count;
    }
    found.new = by_columns.into_values().collect();
    found.new.sort_by_key(|i| std::cmp::Reverse(i.statements));
    found.unused = explicit
        .into_iter()
        .filter(|i| !used.contains(&i.name.to_ascii_lowercase()) && !is_unique(&i.sql))
        .collect();
    Ok(found)
}

/// The candidates: each new index, each unused one to drop.
pub fn candidates_of(found: &Findings) -> Vec<Candidate> {
    let mut out = Vec::new();
    for i in &found.new {
        let sql = i.sql();
        out.push(Candidate {
            kind: ChangeKind::Index,
            change: sql.clone(),
            why: format!(
                "{} statement(s) of {} shape(s) scan {} or sort it (`{}`)",
                i.statements,
                i.shapes.len(),
                i.table,
                short(&i.shapes[0])
            ),
            sql: vec![format!("{sql};")],
            shapes: i.shapes.clone(),
            variant: Variant {
                edits: vec![Edit::CreateIndex {
                    table: i.table.clone(),
                    sql: sql.replacen("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1),
                }],
                options: Vec::new(),
            },
        });
    }
    for u in &found.unused {
        out.push(Candidate {
            kind: ChangeKind::DropIndex,
            change: format!("DROP INDEX {}", ident(&u.name)),
            why: format!(
                "no statement of the trace uses it; every write to {} updates it",
                u.table
            ),
            sql: vec![format!("DROP INDEX {};", ident(&u.name))],
            shapes: Vec::new(),
            variant: Variant {
                edits: vec![Edit::DropIndex {
                    name: u.name.to_ascii_lowercase(),
                }],
                options: Vec::new(),
            },
        });
    }
    out
}

fn is_unique(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(2)
        .map(str::to_ascii_uppercase)
        .collect();
    words.get(1).is_some_and(|w| w == "UNIQUE")
}

fn explicit_indexes(conn: &Connection) -> Result<Vec<UnusedIndex>> {
    let mut st = conn
        .prepare(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
        )
        .run_err("reading the scratch database's indexes")?;
    let rows = st
        .query_map([], |r| {
            Ok(UnusedIndex {
                name: r.get(0)?,
                table: r.get(1)?,
                sql: r.get(2)?,
            })
        })
        .run_err("reading the scratch database's indexes")?;
    rows.collect::<rusqlite::Result<Vec<_>>>()
        .run_err("reading the scratch database's indexes")
}

/// What a statement's plan does.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    /// Tables read whole (`SCAN t` without an index).
    pub scans: Vec<String>,
    /// Indexes it uses (lower case).
    pub indexes: Vec<String>,
    /// It sorts in a temporary b-tree for ORDER BY.
    pub sorts: bool,
}

/// EXPLAIN QUERY PLAN of `sql` on `conn`.
pub fn plan(conn: &Connection, sql: &str) -> std::result::Result<Plan, String> {
    let mut st = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .map_err(|e| e.to_string())?;
    // Parameters stay unbound (NULL): the plan does not depend on their values.
    let mut rows = st.raw_query();
    let mut details = Vec::new();
    while let Some(r) = rows.next().map_err(|e| e.to_string())? {
        details.push(r.get::<_, String>(3).map_err(|e| e.to_string())?);
    }
    Ok(read_plan(&details))
}

/// Read the plan's detail lines (`SCAN t`, `SEARCH t USING INDEX i (a=?)`, …).
pub fn read_plan(details: &[String]) -> Plan {
    let mut p = Plan::default();
    for d in details {
        let words: Vec<&str> = d.split_whitespace().collect();
        match words.as_slice() {
            ["SCAN", table] => p.scans.push(table.to_string()),
            ["SCAN" | "SEARCH", _table, "USING", rest @ ..] => {
                if let Some(i) = rest.iter().position(|w| *w == "INDEX") {
                    if let Some(name) = rest.get(i + 1) {
                        p.indexes.push(name.to_ascii_lowercase());
                    }
                }
            }
            ["USE", "TEMP", "B-TREE", "FOR", .., "ORDER", "BY"] => p.sorts = true,
            _ => {}
        }
    }
    p
}

/// The table's columns (lower case); `None` when it has none (not a table).
fn table_columns(conn: &Connection, table: &str) -> Option<BTreeSet<String>> {
    let mut st = conn
        .prepare(&format!("PRAGMA table_info({})", ident(table)))
        .ok()?;
    let cols: BTreeSet<String> = st
        .query_map([], |r| r.get::<_, String>(1))
        .ok()?
        .filter_map(|c| c.ok().map(|c| c.to_ascii_lowercase()))
        .collect();
    (!cols.is_empty()).then_some(cols)
}

/// The column lists `.expert` would try for `w`: equality columns then each range column;
/// equality columns then the ORDER BY; the equality columns alone.
pub fn candidates(w: &Constraints, known: &BTreeSet<String>) -> Vec<Vec<String>> {
    let has = |c: &str| known.contains(&c.split(' ').next().unwrap_or(c).to_ascii_lowercase());
    let eq: Vec<String> = w.eq.iter().filter(|c| has(c)).map(|c| ident(c)).collect();
    let mut out = Vec::new();
    for r in w.range.iter().filter(|c| has(c)) {
        let mut cols = eq.clone();
        if !cols.contains(&ident(r)) {
            cols.push(ident(r));
        }
        out.push(cols);
    }
    if !w.order.is_empty() && w.order.iter().all(|c| has(c)) {
        let mut cols = eq.clone();
        for o in &w.order {
            let (name, desc) = match o.strip_suffix(" DESC") {
                Some(n) => (ident(n), " DESC"),
                None => (ident(o), ""),
            };
            if !cols
                .iter()
                .any(|c| c.split(' ').next() == Some(name.as_str()))
            {
                cols.push(format!("{name}{desc}"));
            }
        }
        out.push(cols);
    }
    if !eq.is_empty() {
        out.push(eq);
    }
    out.dedup();
    out
}

/// Create every candidate for `w` in a transaction, plan `sql`, roll back: the one the planner
/// picks, if any.
fn choose(
    conn: &Connection,
    sql: &str,
    w: &Constraints,
    known: &BTreeSet<String>,
) -> Result<Option<Vec<String>>> {
    let lists = candidates(w, known);
    if lists.is_empty() {
        return Ok(None);
    }
    let fail = |e: rusqlite::Error| Error::failed(format!("planning index candidates: {e}"));
    conn.execute_batch("BEGIN").map_err(fail)?;
    let mut made = Vec::new();
    for (i, cols) in lists.iter().enumerate() {
        let name = format!("pocketbench_candidate_{i}");
        let ddl = format!(
            "CREATE INDEX {name} ON {}({})",
            ident(&w.table),
            cols.join(", ")
        );
        if conn.execute_batch(&ddl).is_ok() {
            made.push((name, cols.clone()));
        }
    }
    let picked = plan(conn, sql).ok().and_then(|p| {
        made.iter()
            .find(|(name, _)| p.indexes.iter().any(|i| i == name))
            .map(|(_, cols)| cols.clone())
    });
    conn.execute_batch("ROLLBACK").map_err(fail)?;
    Ok(picked)
}

/// `table_by_col1_col2`, in letters, digits and underscores.
fn index_name(table: &str, cols: &[String]) -> String {
    let mut name = format!("{table}_by");
    for c in cols {
        name.push('_');
        name.push_str(c.split(' ').next().unwrap_or(c).trim_matches('"'));
        if c.ends_with(" DESC") {
            name.push_str("_desc");
        }
    }
    let mut clean: String = name
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect();
    clean.truncate(60);
    clean.to_ascii_lowercase()
}

/// An identifier as SQL: bare when it is a plain word, else double-quoted.
pub fn ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_put_equality_first_then_range_or_order() {
        let known: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
        let w = Constraints {
            table: "t".into(),
            eq: vec!["b".into(), "a".into()],
            range: vec!["c".into()],
            order: vec!["d DESC".into()],
        };
        assert_eq!(
            candidates(&w, &known),
            [
                vec!["b", "a", "c"],
                vec!["b", "a", "d DESC"],
                vec!["b", "a"]
            ]
        );
    }

    #[test]
    fn plans_are_read_from_their_detail_lines() {
        let lines = [
            "SCAN t",
            "SEARCH u USING INDEX u_by_k (k=?)",
            "SCAN v USING COVERING INDEX v_by_x",
            "USE TEMP B-TREE FOR ORDER BY",
        ]
        .map(String::from);
        let p = read_plan(&lines);
        assert_eq!(p.scans, ["t"]);
        assert_eq!(p.indexes, ["u_by_k", "v_by_x"]);
        assert!(p.sorts);
    }
}
