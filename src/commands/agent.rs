//! `pocketbench agent`: take study cells from a results server, run them here, submit them.

use crate::error::Result;
use crate::fleet::agent::{self, Options};
use crate::output::units::parse_duration;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct AgentArgs {
    /// The results server, http://HOST:PORT.
    #[arg(long)]
    pub server: String,
    /// API token (also: POCKETBENCH_TOKEN).
    #[arg(long, env = "POCKETBENCH_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// This device's class: only cells of plans for this class (or for any device) are taken.
    /// Default: the device model the probe finds.
    #[arg(long)]
    pub class: Option<String>,
    /// This agent's name in claims (default: host name and process id).
    #[arg(long)]
    pub name: Option<String>,
    /// Local results store the cells' runs write to.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Stop when the server has no cell for this agent.
    #[arg(long)]
    pub exit_when_idle: bool,
    /// How long to wait before asking again when there is no cell.
    #[arg(long, default_value = "30s")]
    pub poll: String,
    /// Stop after this many cells (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub max_cells: u64,
}

pub fn main(a: &AgentArgs) -> Result<i32> {
    let poll = Duration::from_nanos(parse_duration(&a.poll, "--poll")?);
    let class = a.class.clone().unwrap_or_else(|| {
        crate::fleet::submission::Device::from_info(&crate::device::probe::local(".")).model
    });
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| format!("{}:{}", host.trim(), std::process::id()));
    let o = Options {
        server: a.server.clone(),
        token: a.token.clone(),
        class,
        name,
        results: a.results.clone(),
        exit_when_idle: a.exit_when_idle,
        poll,
        max_cells: a.max_cells,
    };
    println!(
        "agent {} (class {}) taking cells from {}",
        o.name, o.class, o.server
    );
    let done = agent::run(&o, |d| match (&d.error, d.remote_id) {
        (None, Some(r)) => println!("cell {} ({}) done: result {r}", d.cell, d.name),
        (e, _) => println!(
            "cell {} ({}) failed: {} (left to its lease)",
            d.cell,
            d.name,
            e.as_deref().unwrap_or("unknown")
        ),
    })?;
    let failed = done.iter().filter(|d| d.error.is_some()).count();
    println!("{} cells run, {failed} failed", done.len());
    Ok(if failed > 0 { 1 } else { 0 })
}
