//! The JSON API, version 1 (docs/server.md has a request and response for each):
//!
//! | method and path | what |
//! |---|---|
//! | `GET /healthz` | the server and its database answer |
//! | `POST /api/v1/results` (token) | store a submission: 201 with its id, 200 with the existing id for a duplicate |
//! | `GET /api/v1/results?model=&category=&limit=&offset=` | results, newest first |
//! | `GET /api/v1/results/{id}` | one result in full |
//! | `GET /api/v1/categories` | the ranking categories |
//! | `GET /api/v1/rankings/{category}` | top 10: model, mean, stddev, results kept/total |
//! | `GET /api/v1/trends/{category}` | every model's mean by first-seen date |
//! | `GET /api/v1/devices/{model}` | a model's statistics, file systems, clusters, series |
//! | `POST /api/v1/plans` (token) | upload a study plan for agents |
//! | `GET /api/v1/plans/{id}` | its cells: open, claimed, done |
//! | `POST /api/v1/agent/claim` (token) | the next cell for a device class (204: none) |
//! | `POST /api/v1/agent/complete` (token) | a claimed cell is done, with its result's id |
//! | `…/api/v1/traces…` | published app traces ([`super::traces::routes`]) |

use super::http::{int_param, known_params, not_found, Reply, Req};
use super::traces::routes as traces;
use super::{categories, db_error, explain, now_ms, rankings, results, work, State};
use crate::fleet::submission;
use serde::{Deserialize, Serialize};

/// Parse a JSON body into `T`, naming the field at fault.
fn body<T: serde::de::DeserializeOwned>(rq: &Req) -> Result<T, Reply> {
    submission::from_json(&rq.body).map_err(|e| Reply::error(400, Some(&e.field), e.message))
}

fn category(id: &str) -> Result<&'static categories::Category, Reply> {
    categories::find(id).ok_or_else(|| {
        not_found(format!(
            "no category {} (GET /api/v1/categories lists them)",
            crate::limits::escape(id)
        ))
    })
}

pub fn route(state: &State, rq: &Req, seg: &[&str]) -> Reply {
    let get = rq.method == "GET" || rq.method == "HEAD";
    let post = rq.method == "POST";
    if get && state.config.private && seg != ["healthz"] {
        if let Err(r) = state.authorise_read(rq) {
            return r;
        }
    }
    if post && !rq.is_json() && !super::traces::upload::is_upload(rq) {
        return Reply::error(
            415,
            Some("Content-Type"),
            format!(
                "{}: expected application/json",
                crate::limits::escape(rq.content_type.as_deref().unwrap_or("none"))
            ),
        );
    }
    let r = match (seg, get, post) {
        (["healthz"], true, _) => health(state),
        (["api", "v1", "results"], _, true) => submit(state, rq),
        (["api", "v1", "results"], true, _) => list(state, rq),
        (["api", "v1", "results", id], true, _) => one(state, id),
        (["api", "v1", "categories"], true, _) => Ok(Reply::json(200, &categories::all())),
        (["api", "v1", "rankings", c], true, _) => ranking(state, rq, c),
        (["api", "v1", "trends", c], true, _) => trend(state, c),
        (["api", "v1", "devices", m], true, _) => device(state, m),
        (["api", "v1", "plans"], _, true) => plan(state, rq),
        (["api", "v1", "plans", id], true, _) => plan_progress(state, id),
        (["api", "v1", "agent", "claim"], _, true) => claim(state, rq),
        (["api", "v1", "agent", "complete"], _, true) => complete(state, rq),
        (["api", "v1", "traces"], _, true) => traces::publish(state, rq),
        (["api", "v1", "traces"], true, _) => traces::gallery(state, rq),
        (["api", "v1", "traces", sha], true, _) => traces::one(state, rq, sha),
        (["api", "v1", "traces", sha, "file"], true, _) => traces::file(state, sha),
        _ if get || post => Err(not_found(format!(
            "no such endpoint: {} /{}",
            rq.method,
            seg.join("/")
        ))),
        _ => Err(Reply::error(
            405,
            None,
            format!("{} is not allowed here", rq.method),
        )),
    };
    r.unwrap_or_else(|e| e)
}

fn health(state: &State) -> Result<Reply, Reply> {
    let results = state
        .db
        .read()
        .and_then(|mut c| super::db::schema::results_count(&mut **c))
        .map_err(db_error)?;
    let db = match state.db.dialect() {
        super::db::Dialect::Sqlite => "sqlite",
        super::db::Dialect::Postgres => "postgres",
    };
    Ok(Reply::json(
        200,
        &serde_json::json!({"status": "ok", "database": db, "results": results,
            "connections": state.connections.open(), "version": crate::TOOL_VERSION}),
    ))
}

fn submit(state: &State, rq: &Req) -> Result<Reply, Reply> {
    let who = state.authorise(rq)?;
    let refused = |e: submission::Refusal| Reply::error(400, Some(&e.field), e.message);
    let s = crate::fleet::result_schema::parse(&rq.body).map_err(refused)?;
    let metrics = categories::extract(&s.kind, &s.result).map_err(refused)?;
    // The rate limit is spent in the transaction that stores the result: one commit each.
    let (per_minute, now) = (state.config.rate_limit, now_ms());
    let stored = results::insert(&state.db, &s, &metrics, &who, now, |c| {
        if per_minute == 0 {
            return Ok(None);
        }
        super::ratelimit::spend_in(c, &who, per_minute, now)
    })
    .map_err(db_error)?
    .map_err(|wait| state.limited(&who, wait))?;
    Ok(Reply::json(if stored.created { 201 } else { 200 }, &stored))
}

fn list(state: &State, rq: &Req) -> Result<Reply, Reply> {
    known_params(rq, &["model", "category", "limit", "offset"])?;
    let limit = int_param(rq, "limit", 100)?;
    let offset = int_param(rq, "offset", 0)?;
    if let Some(c) = rq.param("category") {
        category(c)?;
    }
    let rows = results::list(
        &state.db,
        rq.param("model"),
        rq.param("category"),
        limit,
        offset,
    )
    .map_err(db_error)?;
    Ok(Reply::json(200, &rows))
}

fn one(state: &State, id: &str) -> Result<Reply, Reply> {
    let n: i64 = id
        .parse()
        .map_err(|_| not_found(format!("no result {}", crate::limits::escape(id))))?;
    match results::head(&state.db, n).map_err(db_error)? {
        Some(head) => Ok(Reply::stream(super::stream::Chunks::new(
            state.db.clone(),
            state.stream_readers.clone(),
            n,
            head,
            "}",
        ))),
        None => Err(not_found(format!("no result {n}"))),
    }
}

#[derive(Serialize)]
struct RankingReply {
    category: &'static categories::Category,
    min_results: i64,
    /// The filters given (query key → value), as the page's form sends them.
    filters: std::collections::BTreeMap<&'static str, String>,
    rule: &'static str,
    top: Vec<rankings::Ranked>,
}

/// `GET /api/v1/rankings/{category}?min_results=&manufacturer=&os=&storage=&fs=`: the page's
/// ranking, filtered alike (the 3σ rule then applied to the matching results only).
fn ranking(state: &State, rq: &Req, c: &str) -> Result<Reply, Reply> {
    let keys = super::filtered::FILTERS.map(|(key, _, _)| key);
    let mut known = vec!["min_results"];
    known.extend(keys);
    known_params(rq, &known)?;
    let cat = category(c)?;
    let min = int_param(rq, "min_results", state.config.min_results)?;
    let values = keys.map(|k| rq.param(k).unwrap_or("").to_string());
    let top = if values.iter().any(|v| !v.is_empty()) {
        super::filtered::top(&state.db, cat, &values, min, rankings::TOP as usize)
    } else {
        rankings::top(&state.db, cat, min, rankings::TOP)
    }
    .map_err(db_error)?;
    let filters = keys
        .into_iter()
        .zip(values)
        .filter(|(_, v)| !v.is_empty())
        .collect();
    Ok(Reply::json(
        200,
        &RankingReply {
            category: cat,
            min_results: min,
            filters,
            rule: "values more than 3 standard deviations from the model's mean are dropped",
            top,
        },
    ))
}

fn trend(state: &State, c: &str) -> Result<Reply, Reply> {
    let cat = category(c)?;
    let models = rankings::by_first_seen(&state.db, &cat.id).map_err(db_error)?;
    Ok(Reply::json(
        200,
        &serde_json::json!({"category": cat, "models": models}),
    ))
}

fn device(state: &State, model: &str) -> Result<Reply, Reply> {
    let views = explain::device(&state.db, model).map_err(db_error)?;
    if views.is_empty() {
        return Err(not_found(format!(
            "no ranked results of model {}",
            crate::limits::escape(model)
        )));
    }
    Ok(Reply::json(
        200,
        &serde_json::json!({"model": model, "categories": views}),
    ))
}

fn plan(state: &State, rq: &Req) -> Result<Reply, Reply> {
    let who = state.authorise(rq)?;
    state.spend(&who)?;
    let up: work::PlanUpload = body(rq)?;
    let added = work::add(&state.db, &up, &who, now_ms()).map_err(|e| match e {
        crate::error::Error::Input(m) => {
            Reply::error(400, Some("plan"), crate::limits::one_line(&m))
        }
        other => db_error(other),
    })?;
    Ok(Reply::json(201, &added))
}

fn plan_progress(state: &State, id: &str) -> Result<Reply, Reply> {
    let n: i64 = id
        .parse()
        .map_err(|_| not_found(format!("no plan {}", crate::limits::escape(id))))?;
    let (open, claimed, done) = work::progress(&state.db, n).map_err(db_error)?;
    if open + claimed + done == 0 {
        return Err(not_found(format!("no plan {n}")));
    }
    Ok(Reply::json(
        200,
        &serde_json::json!({"plan": n, "open": open, "claimed": claimed, "done": done}),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimRequest {
    agent: String,
    #[serde(default)]
    class: String,
}

fn claim(state: &State, rq: &Req) -> Result<Reply, Reply> {
    state.authorise(rq)?;
    let c: ClaimRequest = body(rq)?;
    if c.agent.is_empty() || c.agent.len() > work::MAX_CLASS {
        return Err(Reply::error(
            400,
            Some("agent"),
            format!("expected 1 to {} bytes", work::MAX_CLASS),
        ));
    }
    for (field, text) in [("agent", &c.agent), ("class", &c.class)] {
        submission::no_nul(field, text)
            .map_err(|e| Reply::error(400, Some(&e.field), e.message))?;
    }
    if c.class.len() > work::MAX_CLASS {
        return Err(Reply::error(
            400,
            Some("class"),
            format!("longer than {} bytes", work::MAX_CLASS),
        ));
    }
    match work::claim(
        &state.db,
        &c.class,
        &c.agent,
        state.config.lease_ms,
        now_ms(),
    )
    .map_err(db_error)?
    {
        Some(cl) => Ok(Reply::json(200, &cl)),
        None => Ok(Reply::no_content()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompleteRequest {
    cell: i64,
    agent: String,
    result_id: i64,
}

fn complete(state: &State, rq: &Req) -> Result<Reply, Reply> {
    state.authorise(rq)?;
    let c: CompleteRequest = body(rq)?;
    submission::no_nul("agent", &c.agent)
        .map_err(|e| Reply::error(400, Some(&e.field), e.message))?;
    match work::complete(&state.db, c.cell, &c.agent, c.result_id, now_ms()).map_err(|e| match e {
        crate::error::Error::Input(m) => Reply::error(400, Some("result_id"), m),
        other => db_error(other),
    })? {
        work::Completed::Done => Ok(Reply::json(200, &serde_json::json!({"cell": c.cell, "state": "done"}))),
        work::Completed::Unknown => Err(not_found(format!("no cell {}", c.cell))),
        work::Completed::NotYours => Err(Reply::error(
            409,
            Some("cell"),
            format!("cell {} is not claimed by {} (its lease expired and it was re-offered, or it is done)", c.cell, crate::limits::escape(&c.agent)),
        )),
    }
}
