//! `pocketbench serve`: run the results server, or manage its API tokens (`serve token …`).

use crate::error::{Error, Result};
use crate::output::units::{parse_duration, parse_size};
use crate::server::{self, db::Db, tokens};
use clap::{Args, Subcommand};

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ServeArgs {
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    #[command(flatten)]
    pub options: ServeOptions,
}

#[derive(Args, Debug)]
pub struct ServeOptions {
    /// Database: a SQLite file (default pocketbench-server.db) or postgres://USER@HOST:PORT/DB.
    #[arg(long, default_value = server::db::DEFAULT_DB)]
    pub db: String,
    /// Address to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Requests handled at once (each takes a database connection while it works; clients
    /// still sending a request wait apart, on no worker).
    #[arg(long, default_value_t = 8)]
    pub workers: usize,
    /// How long a client may take to send a request's head (its line and headers), and how
    /// long a kept-alive connection may stay idle; a slower one is disconnected.
    #[arg(long, default_value = "10s")]
    pub header_timeout: String,
    /// How long a client may take to send a request's whole body, counted from the end of its
    /// head (a deadline, not a gap between packets; 408 beyond).
    #[arg(long, default_value = "30s")]
    pub body_timeout: String,
    /// The slowest average a request body may arrive at, from its first second on (bytes a
    /// second, K/M suffixes; 408 below it; 0: no minimum).
    #[arg(long, default_value = "1K")]
    pub min_body_rate: String,
    /// How long a write of an answer may wait for the client to read (a client that does not
    /// read is disconnected).
    #[arg(long, default_value = "30s")]
    pub send_timeout: String,
    /// Open connections allowed in all (at the cap, the connection waiting longest on its
    /// client is closed to make room).
    #[arg(long, default_value_t = 10_000)]
    pub max_connections: usize,
    /// Open connections allowed from one client address (at the cap, that address's
    /// connection waiting longest on its client is closed to make room).
    #[arg(long, default_value_t = 256)]
    pub max_connections_per_client: usize,
    /// Serve HTTPS with this certificate chain (PEM, leaf first); reloaded on SIGHUP.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Serve HTTPS with a self-signed server certificate for these host names and addresses
    /// (made once and kept in --tls-dir; printed: how clients trust it).
    #[arg(long, value_name = "HOST", num_args = 1.., conflicts_with_all = ["tls_cert", "tls_key"])]
    pub tls_self_signed: Vec<String>,
    /// Where --tls-self-signed keeps its certificate and key.
    #[arg(
        long,
        value_name = "DIR",
        default_value = ".",
        requires = "tls_self_signed"
    )]
    pub tls_dir: std::path::PathBuf,
    /// Largest request body (at most 256M).
    #[arg(long, default_value = "8M")]
    pub max_body: String,
    /// Writes (submissions, plans) per minute per token; 0: no limit.
    #[arg(long, default_value_t = 600)]
    pub rate_limit: u32,
    /// Reads need a token too (the default: pages and GET endpoints are public).
    #[arg(long)]
    pub private: bool,
    /// Results (after the 3σ rule) a model needs to be ranked.
    #[arg(long, default_value_t = server::rankings::DEFAULT_MIN_RESULTS)]
    pub min_results: i64,
    /// How long an agent's claim on a cell lasts before it is offered again.
    #[arg(long, default_value = "1800s")]
    pub lease: String,
    /// A study plan (TOML, as `matrix` reads) to offer agents; added once (a plan already on
    /// the server with the same text and class is not added again).
    #[arg(long, value_name = "FILE")]
    pub plan: Option<std::path::PathBuf>,
    /// The device class the --plan's cells are for (default: any agent).
    #[arg(long, default_value = "", requires = "plan")]
    pub class: String,
}

#[derive(Subcommand, Debug)]
pub enum ServeCommand {
    /// API tokens: add (printed once), list, revoke.
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench serve token add my-phone\n  pocketbench serve token list"
    )]
    Token(TokenCommand),
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Create a token and print it (only its hash is stored).
    #[command(
        after_help = "Examples:\n  pocketbench serve token add bench-pi --db pocketbench-server.db\n  pocketbench serve token add pixel-7 --token pbt_example_pixel_7   a token of your own"
    )]
    Add {
        /// The token's name (1 to 64 letters, digits, '.', '_', '-'), e.g. the device's.
        name: String,
        /// Use this token (e.g. one a secret store keeps; 16 to 128 letters, digits, '.',
        /// '_', '-') instead of a new random one.
        #[arg(long)]
        token: Option<String>,
        /// The server's database (as `serve --db`).
        #[arg(long, default_value = server::db::DEFAULT_DB)]
        db: String,
    },
    /// List tokens by name.
    #[command(
        after_help = "Examples:\n  pocketbench serve token list\n  pocketbench serve token list --db pocketbench-server.db"
    )]
    List {
        /// The server's database (as `serve --db`).
        #[arg(long, default_value = server::db::DEFAULT_DB)]
        db: String,
    },
    /// Revoke a token.
    #[command(
        after_help = "Examples:\n  pocketbench serve token revoke my-phone\n  pocketbench serve token revoke bench-pi --db pocketbench-server.db"
    )]
    Revoke {
        /// The token's name.
        name: String,
        /// The server's database (as `serve --db`).
        #[arg(long, default_value = server::db::DEFAULT_DB)]
        db: String,
    },
}

pub fn main(args: &ServeArgs) -> Result<i32> {
    match &args.command {
        Some(ServeCommand::Token(t)) => token(t),
        None => serve(&args.options),
    }
}

fn token(t: &TokenCommand) -> Result<i32> {
    match t {
        TokenCommand::Add { name, token, db } => {
            tokens::check_name(name)?;
            if let Some(t) = token {
                tokens::check_given(t)?;
            }
            let db = Db::open(db, 1)?;
            println!(
                "{}",
                tokens::add(&db, name, token.as_deref(), server::now_ms())?
            );
            eprintln!("token {name} added: it is shown only now; send it as Authorization: Bearer TOKEN (submit --token)");
        }
        TokenCommand::List { db } => {
            let db = existing(db)?;
            for (name, created) in tokens::list(&db)? {
                println!(
                    "{name}\tcreated {}",
                    crate::platform::clock::utc((created / 1000) as u64)
                );
            }
        }
        TokenCommand::Revoke { name, db } => {
            let db = existing(db)?;
            if !tokens::revoke(&db, name)? {
                return Err(Error::input(format!(
                    "token {}: no such token",
                    crate::limits::escape(name)
                )));
            }
            println!("token {name} revoked");
        }
    }
    Ok(0)
}

/// Open a server database that must exist already (a SQLite file is not created).
fn existing(url: &str) -> Result<Db> {
    let sqlite = !url.starts_with("postgres://") && !url.starts_with("postgresql://");
    let path = url.strip_prefix("sqlite:").unwrap_or(url);
    if sqlite && !std::path::Path::new(path).is_file() {
        return Err(Error::input(format!(
            "--db {}: no server database there",
            crate::limits::escape(path)
        )));
    }
    Db::open(url, 1)
}

fn serve(o: &ServeOptions) -> Result<i32> {
    let max_body = parse_size(&o.max_body, "--max-body")?;
    if max_body == 0 || max_body > server::MAX_MAX_BODY {
        return Err(Error::input(format!(
            "--max-body {}: expected 1 to {} bytes",
            crate::limits::escape(&o.max_body),
            server::MAX_MAX_BODY
        )));
    }
    if o.workers == 0 || o.workers > 256 {
        return Err(Error::input(format!(
            "--workers {}: expected 1 to 256",
            o.workers
        )));
    }
    let lease_ms = (parse_duration(&o.lease, "--lease")? / 1_000_000) as i64;
    let timeout = |text: &str, flag: &str| -> Result<std::time::Duration> {
        let ns = parse_duration(text, flag)?;
        if !(1_000_000..=3_600 * 1_000_000_000).contains(&ns) {
            return Err(Error::input(format!(
                "{flag} {}: expected 1ms to 1h",
                crate::limits::escape(text)
            )));
        }
        Ok(std::time::Duration::from_nanos(ns))
    };
    let header_timeout = timeout(&o.header_timeout, "--header-timeout")?;
    let body_timeout = timeout(&o.body_timeout, "--body-timeout")?;
    let send_timeout = timeout(&o.send_timeout, "--send-timeout")?;
    let min_body_rate = if o.min_body_rate.trim() == "0" {
        0
    } else {
        parse_size(&o.min_body_rate, "--min-body-rate")?
    };
    if min_body_rate > 1 << 30 {
        return Err(Error::input(format!(
            "--min-body-rate {}: expected at most 1G (bytes a second)",
            crate::limits::escape(&o.min_body_rate)
        )));
    }
    for (flag, n) in [
        ("--max-connections", o.max_connections),
        ("--max-connections-per-client", o.max_connections_per_client),
    ] {
        if n == 0 || n > 1_000_000 {
            return Err(Error::input(format!("{flag} {n}: expected 1 to 1000000")));
        }
    }
    let plan = o
        .plan
        .as_ref()
        .map(|p| {
            let text = crate::limits::read_text(
                p,
                &format!("--plan {}", p.display()),
                crate::limits::MAX_PLAN_FILE_BYTES,
            )?;
            crate::study::plan::Plan::parse(&text, &p.display().to_string(), "study")
                .and_then(|plan| crate::study::cells::expand(&plan))?;
            Ok::<_, Error>(text)
        })
        .transpose()?;
    let config = server::Config {
        db: o.db.clone(),
        listen: o.listen.clone(),
        workers: o.workers,
        max_body,
        rate_limit: o.rate_limit,
        private: o.private,
        min_results: o.min_results.max(1),
        lease_ms,
        header_timeout,
        body_timeout,
        send_timeout,
        min_body_rate,
        max_connections: o.max_connections,
        max_per_client: o.max_connections_per_client,
        tls: o.tls_cert.clone().zip(o.tls_key.clone()),
    };
    let config = if o.tls_self_signed.is_empty() {
        config
    } else {
        let pair = server::selfsigned::ensure(&o.tls_self_signed, &o.tls_dir)?;
        server::Config {
            tls: Some(pair),
            ..config
        }
    };
    server::serve(
        config,
        plan.map(|text| server::work::PlanUpload {
            plan: text,
            class: o.class.clone(),
        }),
    )?;
    Ok(0)
}
