//! `pocketbench agent`: one per device of a lab. It claims the next cell of an uploaded study
//! plan for its device class, runs it with this same pocketbench (a child process writing to
//! the local store, so a crash of the run cannot take the agent down), submits the result and
//! marks the cell done. A cell whose run fails is left to its lease: the server offers it again
//! when the lease expires (to this agent or another).

use super::client::Client;
use super::submit;
use crate::error::{Error, Result, ResultExt};
use crate::results::store::Store;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

pub struct Options {
    pub server: String,
    pub token: Option<String>,
    /// The device class whose cells this agent takes ('' takes only class-less plans' cells).
    pub class: String,
    pub name: String,
    pub results: PathBuf,
    /// Stop when the server has no cell for this agent (else wait `poll` and ask again).
    pub exit_when_idle: bool,
    pub poll: Duration,
    /// Stop after this many cells (0: no limit).
    pub max_cells: u64,
}

/// What one cell came to.
#[derive(Clone, Debug, Serialize)]
pub struct Done {
    pub cell: i64,
    pub name: String,
    pub local_id: Option<i64>,
    pub remote_id: Option<i64>,
    pub error: Option<String>,
}

fn newest(results: &std::path::Path) -> Result<i64> {
    if !results.exists() {
        return Ok(0);
    }
    let s = Store::open_read(results)?;
    s.conn()
        .query_row("SELECT COALESCE(MAX(id), 0) FROM runs", [], |r| r.get(0))
        .run_err("results store")
}

/// Run one claimed cell: the child's exit status and the result it stored.
fn run_cell(o: &Options, claim: &Claim) -> Result<i64> {
    let before = newest(&o.results)?;
    let exe = std::env::current_exe().run_err("agent: finding its own binary")?;
    let status = std::process::Command::new(exe)
        .arg(&claim.suite)
        .args(&claim.args)
        .arg("--results")
        .arg(&o.results)
        .arg("--quiet")
        // A cell replaying a published trace fetches it with the agent's token.
        .envs(o.token.as_ref().map(|t| ("POCKETBENCH_TOKEN", t)))
        .stdin(std::process::Stdio::null())
        .status()
        .run_err("agent: starting the cell's run")?;
    if !status.success() {
        return Err(Error::failed(format!("the run exited with {status}")));
    }
    let after = newest(&o.results)?;
    if after <= before {
        return Err(Error::failed("the run stored no result"));
    }
    Ok(after)
}

/// A cell as the server hands it out (the server's `work::Claim`, read here without it).
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Claim {
    pub cell: i64,
    pub name: String,
    pub suite: String,
    pub args: Vec<String>,
}

/// Take cells until there are none (with `exit_when_idle`) or `max_cells` are done.
pub fn run(o: &Options, mut on_done: impl FnMut(&Done)) -> Result<Vec<Done>> {
    let client = Client::new(&o.server, o.token.as_deref())?;
    let store_path = o.results.clone();
    // The store is checked before any cell is claimed.
    drop(Store::open(&store_path)?);
    let mut done = Vec::new();
    loop {
        if o.max_cells > 0 && done.len() as u64 >= o.max_cells {
            break;
        }
        let body = serde_json::json!({"agent": o.name, "class": o.class}).to_string();
        let r = client.post("/api/v1/agent/claim", body.as_bytes())?;
        match r.status {
            204 if o.exit_when_idle => break,
            204 => {
                std::thread::sleep(o.poll);
                continue;
            }
            200 => {}
            401 | 403 => {
                return Err(Error::input(format!(
                    "--token: the server refused it ({})",
                    r.message()
                )))
            }
            s => {
                return Err(Error::failed(format!(
                    "claim: the server answered {s}: {}",
                    r.message()
                )))
            }
        }
        let claim: Claim = r.json()?;
        if !crate::study::flags::Suite::NAMES.contains(&claim.suite.as_str()) {
            return Err(Error::failed(format!(
                "cell {}: unknown suite {}",
                claim.cell,
                crate::limits::escape(&claim.suite)
            )));
        }
        let mut d = Done {
            cell: claim.cell,
            name: claim.name.clone(),
            local_id: None,
            remote_id: None,
            error: None,
        };
        let outcome = run_cell(o, &claim).and_then(|local| {
            d.local_id = Some(local);
            let store = Store::open(&store_path)?;
            let s = submit::build(&store, local)?;
            let sent = submit::send(&client, &s, local)?;
            submit::remember(&store, client.base(), &sent)?;
            d.remote_id = Some(sent.remote_id);
            let body = serde_json::json!({"cell": claim.cell, "agent": o.name, "result_id": sent.remote_id});
            let r = client.post("/api/v1/agent/complete", body.to_string().as_bytes())?;
            if r.status != 200 {
                return Err(Error::failed(format!("complete: {} {}", r.status, r.message())));
            }
            Ok(())
        });
        if let Err(e) = outcome {
            d.error = Some(e.to_string());
        }
        on_done(&d);
        done.push(d);
    }
    Ok(done)
}
