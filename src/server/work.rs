//! A fleet's work: study plans uploaded to the server, expanded into one row per (cell,
//! repeat), and claimed by agents. The database makes each claim — `SELECT … FOR UPDATE SKIP
//! LOCKED` on PostgreSQL, one `BEGIN IMMEDIATE` transaction on SQLite — so several server
//! processes can share one PostgreSQL and no two agents get the same cell. A claim is a lease:
//! when it expires (the agent crashed, lost power or its cable) the cell is offered again.

use super::db::{scalar, transaction, Db, Dialect, Value};
use crate::error::{Error, Result};
use crate::study::{cells, plan::Plan};
use serde::{Deserialize, Serialize};

/// The longest device class name, in bytes.
pub const MAX_CLASS: usize = 128;

/// A plan as `POST /api/v1/plans` takes it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlanUpload {
    /// The plan's TOML text (the format of `pocketbench matrix PLAN`).
    pub plan: String,
    /// Only agents of this device class take its cells; empty: any agent.
    #[serde(default)]
    pub class: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlanAdded {
    pub id: i64,
    pub name: String,
    /// (cell, repeat) rows to run.
    pub cells: usize,
}

/// Expand and store a plan. Bad TOML, unknown flags or too many cells are bad input.
pub fn add(db: &Db, up: &PlanUpload, submitter: &str, now_ms: i64) -> Result<PlanAdded> {
    if up.class.len() > MAX_CLASS {
        return Err(Error::input(format!(
            "class: longer than {MAX_CLASS} bytes"
        )));
    }
    for (field, text) in [("class", &up.class), ("plan", &up.plan)] {
        crate::fleet::submission::no_nul(field, text).map_err(|r| Error::input(r.to_string()))?;
    }
    if up.plan.len() as u64 > crate::limits::MAX_PLAN_FILE_BYTES {
        return Err(Error::input(format!(
            "plan: longer than {} bytes",
            crate::limits::MAX_PLAN_FILE_BYTES
        )));
    }
    let plan = Plan::parse(&up.plan, "plan", "study")?;
    let cells = cells::expand(&plan)?;
    let schedule = cells::schedule(&plan, &cells);
    let suite = plan.suite.name();
    let mut c = db.write()?;
    let id = transaction(&mut **c, |c| {
        let id = c
            .query(
                "INSERT INTO plans (name, class, plan, created_at, submitter)
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[
                    plan.name.as_str().into(),
                    up.class.as_str().into(),
                    up.plan.as_str().into(),
                    now_ms.into(),
                    submitter.into(),
                ],
            )?
            .first()
            .map(|r| r.int(0))
            .unwrap_or(0);
        for (i, repeat) in &schedule {
            let cell = &cells[*i];
            c.execute(
                "INSERT INTO cells (plan_id, idx, repeat, name, suite, args, class, state, agent,
                     attempts)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', '', 0)",
                &[
                    id.into(),
                    (cell.index as i64).into(),
                    i64::from(*repeat).into(),
                    cell.name().into(),
                    suite.into(),
                    serde_json::to_string(&cell.args).unwrap_or_default().into(),
                    up.class.as_str().into(),
                ],
            )?;
        }
        Ok(id)
    })?;
    Ok(PlanAdded {
        id,
        name: plan.name,
        cells: schedule.len(),
    })
}

/// [`add`], unless a plan with the same text and class is stored already: (its id, added).
pub fn add_once(db: &Db, up: &PlanUpload, submitter: &str, now_ms: i64) -> Result<(i64, bool)> {
    let found = scalar(
        &mut **db.read()?,
        "SELECT id FROM plans WHERE plan = $1 AND class = $2 ORDER BY id LIMIT 1",
        &[up.plan.as_str().into(), up.class.as_str().into()],
    )?;
    match found {
        Some(id) => Ok((id, false)),
        None => add(db, up, submitter, now_ms).map(|a| (a.id, true)),
    }
}

/// A cell handed to an agent.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Claim {
    pub cell: i64,
    pub plan: i64,
    pub name: String,
    pub repeat: i64,
    /// The command (`run`, `durability`, `models`) and its arguments.
    pub suite: String,
    pub args: Vec<String>,
    /// Unix milliseconds when the lease ends.
    pub expires_at: i64,
}

/// Claim the next open (or expired) cell for an agent of `class`.
pub fn claim(
    db: &Db,
    class: &str,
    agent: &str,
    lease_ms: i64,
    now_ms: i64,
) -> Result<Option<Claim>> {
    let mut c = db.write()?;
    let lock = match c.dialect() {
        Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
        Dialect::Sqlite => "",
    };
    let pick = format!(
        "SELECT id, plan_id, name, repeat, suite, args FROM cells
         WHERE (class = '' OR class = $1)
           AND (state = 'open' OR (state = 'claimed' AND expires_at <= $2))
         ORDER BY id LIMIT 1{lock}"
    );
    transaction(&mut **c, |c| {
        let Some(r) = c
            .query(&pick, &[class.into(), now_ms.into()])?
            .into_iter()
            .next()
        else {
            return Ok(None);
        };
        let expires_at = now_ms + lease_ms;
        c.execute(
            "UPDATE cells SET state = 'claimed', agent = $2, claimed_at = $3, expires_at = $4,
                 attempts = attempts + 1 WHERE id = $1",
            &[
                r.int(0).into(),
                agent.into(),
                now_ms.into(),
                expires_at.into(),
            ],
        )?;
        Ok(Some(Claim {
            cell: r.int(0),
            plan: r.int(1),
            name: r.text(2),
            repeat: r.int(3),
            suite: r.text(4),
            args: serde_json::from_str(&r.text(5)).unwrap_or_default(),
            expires_at,
        }))
    })
}

/// How a completion went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completed {
    Done,
    /// No such cell.
    Unknown,
    /// The cell is done already, or another agent holds it now (this agent's lease expired).
    NotYours,
}

/// Mark `cell` done by `agent` with stored result `result_id`.
pub fn complete(db: &Db, cell: i64, agent: &str, result_id: i64, now_ms: i64) -> Result<Completed> {
    let mut c = db.write()?;
    transaction(&mut **c, |c| {
        let rows = c.query(
            "SELECT state, agent FROM cells WHERE id = $1",
            &[cell.into()],
        )?;
        let Some(r) = rows.first() else {
            return Ok(Completed::Unknown);
        };
        if r.text(0) != "claimed" || r.text(1) != agent {
            return Ok(Completed::NotYours);
        }
        if scalar(
            c,
            "SELECT id FROM results WHERE id = $1",
            &[Value::Int(result_id)],
        )?
        .is_none()
        {
            return Err(Error::input(format!(
                "result_id: no result {result_id} on this server"
            )));
        }
        c.execute(
            "UPDATE cells SET state = 'done', result_id = $2, expires_at = $3 WHERE id = $1",
            &[cell.into(), result_id.into(), now_ms.into()],
        )?;
        Ok(Completed::Done)
    })
}

/// Cells of a plan by state: (open, claimed, done).
pub fn progress(db: &Db, plan: i64) -> Result<(i64, i64, i64)> {
    let rows = db.read()?.query(
        "SELECT state, COUNT(*) FROM cells WHERE plan_id = $1 GROUP BY state",
        &[plan.into()],
    )?;
    let get = |s: &str| rows.iter().find(|r| r.text(0) == s).map_or(0, |r| r.int(1));
    Ok((get("open"), get("claimed"), get("done")))
}
