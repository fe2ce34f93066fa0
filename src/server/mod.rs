//! `pocketbench serve`: the results server. Devices submit results (with who they are); the
//! server keeps them in SQLite or PostgreSQL ([`db`]), ranks device models per category with
//! the 3σ rule ([`categories`], [`stats`], [`rankings`]), explains a model's results over time,
//! across file systems and in clusters ([`explain`]), serves it all as a JSON API ([`api`]) and
//! as server-rendered pages with SVG charts ([`pages`]), and hands a fleet of agents the cells
//! of uploaded study plans ([`work`]). Tokens ([`tokens`]) guard writes.
//!
//! Threads: `workers` threads take requests from one listening socket; each request gets a
//! database connection from the pool for as long as it needs one. Limits: request bodies over
//! `max_body` are refused (413) before they are read; each token may make `rate_limit` writes
//! per minute (429 with Retry-After beyond).

pub mod api;
pub mod categories;
pub mod db;
pub mod explain;
pub mod http;
pub mod pages;
pub mod rankings;
pub mod results;
pub mod stats;
pub mod tokens;
pub mod work;

use crate::error::{Error, Result};
use db::Db;
use http::{BodyError, Reply, Req};
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The largest request body accepted, by default, and the most `--max-body` may allow.
pub const DEFAULT_MAX_BODY: u64 = 8 << 20;
pub const MAX_MAX_BODY: u64 = 256 << 20;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    pub db: String,
    pub listen: String,
    pub workers: usize,
    pub max_body: u64,
    /// Writes per minute per token; 0: no limit.
    pub rate_limit: u32,
    /// Reads need a token too.
    pub private: bool,
    /// Kept results a model needs to be ranked.
    pub min_results: i64,
    /// How long an agent's claim on a cell lasts, in milliseconds.
    pub lease_ms: i64,
}

/// Shared by the worker threads.
pub struct State {
    pub db: Db,
    pub config: Config,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl State {
    pub fn new(db: Db, config: Config) -> State {
        State {
            db,
            config,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The name of the request's token, or the reply refusing it (401 without one, 403 for a
    /// wrong one).
    pub fn authorise(&self, rq: &Req) -> std::result::Result<String, Reply> {
        let Some(token) = rq.token.as_deref() else {
            return Err(Reply::error(
                401,
                None,
                "this needs a token: Authorization: Bearer TOKEN (pocketbench serve token add NAME)",
            ));
        };
        match tokens::check(&self.db, token) {
            Ok(Some(name)) => Ok(name),
            Ok(None) => Err(Reply::error(
                403,
                None,
                "the token is not valid (revoked or mistyped)",
            )),
            Err(e) => Err(Reply::error(500, None, e.to_string())),
        }
    }

    /// Spend one write of `name`'s allowance: a bucket of `rate_limit` writes refilled at
    /// `rate_limit` per minute. The reply when it is empty.
    pub fn spend(&self, name: &str) -> std::result::Result<(), Reply> {
        let per_minute = f64::from(self.config.rate_limit);
        if per_minute == 0.0 {
            return Ok(());
        }
        let mut b = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let (tokens, last) = b.entry(name.to_string()).or_insert((per_minute, now));
        *tokens =
            (*tokens + now.duration_since(*last).as_secs_f64() * per_minute / 60.0).min(per_minute);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - *tokens) * 60.0 / per_minute).ceil() as u64;
        let mut r = Reply::error(
            429,
            None,
            format!(
                "token {name}: more than {} writes per minute",
                self.config.rate_limit
            ),
        );
        r.retry_after = Some(wait.max(1));
        Err(r)
    }
}

/// Handle one request (any panic inside a handler becomes a 500, and the server stays up).
pub fn handle(state: &State, rq: &Req) -> Reply {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(state, rq))) {
        Ok(r) => r,
        Err(_) => Reply::error(500, None, "internal error (the server logged it)"),
    }
}

fn route(state: &State, rq: &Req) -> Reply {
    let seg = rq.segments();
    if seg.first() == Some(&"api") || seg.first() == Some(&"healthz") {
        return api::route(state, rq, &seg);
    }
    if rq.method != "GET" && rq.method != "HEAD" {
        return Reply::error(405, None, format!("{} is not allowed here", rq.method));
    }
    if state.config.private {
        if let Err(r) = state.authorise(rq) {
            return r;
        }
    }
    pages::route(state, rq, &seg)
}

/// A database error as a reply: bad input is the client's (400), anything else the server's.
pub fn db_error(e: Error) -> Reply {
    match e {
        Error::Input(m) => Reply::error(400, None, m),
        Error::Failed(m) => {
            eprintln!("pocketbench serve: {m}");
            Reply::error(
                500,
                None,
                "the server could not complete this (see its log)",
            )
        }
    }
}

/// Bind `addr` with TCP_NODELAY, which Linux hands on to every accepted connection: a
/// response's header and body go out at once instead of the body waiting ~40 ms for the
/// client's delayed ACK on a kept-alive connection.
fn listen(addr: &str) -> Result<tiny_http::Server> {
    let bad = |e: &dyn std::fmt::Display| {
        Error::input(format!("--listen {}: {e}", crate::limits::escape(addr)))
    };
    let listener = std::net::TcpListener::bind(addr).map_err(|e| bad(&e))?;
    let one: libc::c_int = 1;
    // SAFETY: a valid socket descriptor and a pointer to an int of the size given.
    unsafe {
        libc::setsockopt(
            std::os::fd::AsRawFd::as_raw_fd(&listener),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
    tiny_http::Server::from_listener(listener, None).map_err(|e| bad(&e))
}

/// Run the server until the process is stopped. Prints `listening on http://ADDR` (with the
/// port the system chose for `:0`) before taking requests.
/// `plan`, when given, is offered to agents (added unless the same plan is there already).
pub fn serve(config: Config, plan: Option<work::PlanUpload>) -> Result<()> {
    // The address is taken first: a busy or malformed --listen creates no database.
    let server = listen(&config.listen)?;
    let db = Db::open(&config.db, config.workers + 1)?;
    if let Some(p) = plan {
        let (id, added) = work::add_once(&db, &p, "serve --plan", now_ms())?;
        let (open, claimed, done) = work::progress(&db, id)?;
        println!(
            "plan {id} {}: {open} cells open, {claimed} claimed, {done} done",
            if added {
                "added"
            } else {
                "already on the server"
            }
        );
    }
    let addr = server
        .server_addr()
        .to_ip()
        .map_or_else(|| config.listen.clone(), |a| a.to_string());
    let describe = db.describe.clone();
    let workers = config.workers.max(1);
    let max_body = config.max_body;
    let state = Arc::new(State::new(db, config));
    println!("listening on http://{addr} ({describe}, {workers} workers)");
    let _ = std::io::stdout().flush();
    let server = Arc::new(server);
    let threads: Vec<_> = (0..workers)
        .map(|_| {
            let (server, state) = (server.clone(), state.clone());
            std::thread::spawn(move || {
                while let Ok(mut rq) = server.recv() {
                    let reply = match http::read(&mut rq, max_body) {
                        Ok(req) => handle(&state, &req),
                        Err(BodyError::TooLarge) => Reply::error(
                            413,
                            Some("body"),
                            format!("larger than {max_body} bytes (the server's --max-body)"),
                        ),
                        Err(BodyError::Unreadable(e)) => Reply::error(400, Some("body"), e),
                    };
                    http::respond(rq, reply);
                }
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    Ok(())
}
