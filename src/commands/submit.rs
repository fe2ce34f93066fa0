//! `pocketbench submit`: send stored results to a results server.

use crate::error::{Error, Result};
use crate::fleet::{client::Client, submit};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SubmitArgs {
    /// The results server, http://HOST:PORT.
    #[arg(long)]
    pub server: String,
    /// API token (also: POCKETBENCH_TOKEN).
    #[arg(long, env = "POCKETBENCH_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Results to send, by id (`results list` shows them).
    #[arg(
        value_name = "RUN_ID",
        required_unless_present = "all_new",
        conflicts_with = "all_new"
    )]
    pub ids: Vec<i64>,
    /// Send every result this server has not got from this store.
    #[arg(long)]
    pub all_new: bool,
    /// Results store (SQLite file).
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Print what was sent as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn main(a: &SubmitArgs) -> Result<i32> {
    let client = Client::new(&a.server, a.token.as_deref())?;
    if a.token.is_none() {
        return Err(Error::input(
            "--token: submitting needs a token (pocketbench serve token add NAME on the server; or POCKETBENCH_TOKEN)",
        ));
    }
    let store = super::results::existing(&a.results)?;
    let ids = submit::pending(&store, client.base(), &a.ids, a.all_new)?;
    // Every submission is built (and a missing id refused) before anything is sent.
    let subs = ids
        .iter()
        .map(|&id| submit::build(&store, id).map(|s| (id, s)))
        .collect::<Result<Vec<_>>>()?;
    let mut sent = Vec::new();
    let mut refused = Vec::new();
    for (id, s) in &subs {
        // A result the server refuses is reported and the others still go.
        let r = match submit::offer(&client, s, *id)? {
            Ok(r) => r,
            Err(no) => {
                eprintln!("pocketbench: {no}");
                refused.push(no);
                continue;
            }
        };
        submit::remember(&store, client.base(), &r)?;
        if !a.json {
            println!(
                "result {} ({}) → {} ({})",
                r.local_id,
                r.kind,
                r.url,
                if r.created {
                    "new"
                } else {
                    "the server had it"
                }
            );
        }
        sent.push(r);
    }
    if a.json {
        super::print_json(&sent)?;
    } else if sent.is_empty() && refused.is_empty() {
        println!(
            "nothing to send: the server has every result of {}",
            a.results.display()
        );
    }
    if !refused.is_empty() {
        return Err(Error::failed(format!(
            "the server refused {} of {} result(s) (each above); the rest were sent",
            refused.len(),
            subs.len()
        )));
    }
    Ok(0)
}
