//! `pocketbench submit`: send stored results to a results server, or publish an app's trace
//! (`--trace`).

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
        required_unless_present_any = ["all_new", "trace"],
        conflicts_with_all = ["all_new", "trace"]
    )]
    pub ids: Vec<i64>,
    /// Send every result this server has not got from this store.
    #[arg(long, conflicts_with = "trace")]
    pub all_new: bool,
    /// Publish this trace (an app's trace, anonymised: `trace import --anonymize`) for the
    /// server's fleet to replay and its gallery to rank devices on.
    #[arg(long, value_name = "FILE", requires = "title")]
    pub trace: Option<PathBuf>,
    /// The published trace's title (at most 200 bytes).
    #[arg(long, requires = "trace")]
    pub title: Option<String>,
    /// What the trace is, for the gallery (at most 4000 bytes).
    #[arg(long, requires = "trace", default_value = "")]
    pub description: String,
    /// Publish a trace imported without anonymisation, as it is: its statements' literals,
    /// names and paths become readable by everyone who reads the server.
    #[arg(long, requires = "trace")]
    pub unanonymised: bool,
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
    if let Some(trace) = &a.trace {
        return publish(&client, trace, a);
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

/// `submit --trace`: check the title and description, publish, say where it went.
fn publish(client: &Client, trace: &std::path::Path, a: &SubmitArgs) -> Result<i32> {
    let title = a.title.as_deref().unwrap_or("").trim();
    for (flag, text, max) in [
        ("--title", title, crate::fleet::traces::MAX_TITLE),
        (
            "--description",
            a.description.trim(),
            crate::fleet::traces::MAX_DESCRIPTION,
        ),
    ] {
        if text.len() > max {
            return Err(Error::input(format!(
                "{flag}: {} bytes, more than {max}",
                text.len()
            )));
        }
        if text.contains(char::is_control) && flag == "--title" {
            return Err(Error::input(format!(
                "{flag} {}: a title is one line without control characters",
                crate::limits::escape(text)
            )));
        }
    }
    if title.is_empty() {
        return Err(Error::input("--title: a published trace needs a title"));
    }
    let p =
        crate::fleet::traces::publish(client, trace, title, a.description.trim(), a.unanonymised)?;
    if a.json {
        super::print_json(&p)?;
    } else {
        println!(
            "trace {} → {} ({}; {} statements, anonymised: {})",
            trace.display(),
            p.url,
            if p.created {
                "published"
            } else {
                "the server had it"
            },
            p.statements,
            p.anonymised
        );
    }
    Ok(0)
}
