//! `pocketbench serve`: the results server. Devices submit results (with who they are); the
//! server keeps them in SQLite or PostgreSQL ([`db`]), ranks device models per category with
//! the 3σ rule ([`categories`], [`stats`], [`rankings`]), explains a model's results over time,
//! across file systems and in clusters ([`explain`]), serves it all as a JSON API ([`api`]) and
//! as server-rendered pages with SVG charts ([`pages`]), and hands a fleet of agents the cells
//! of uploaded study plans ([`work`]). Tokens ([`tokens`]) guard writes.
//!
//! Threads: hyper serves HTTP/1.1 through axum on a tokio runtime ([`listen`]: one task per
//! connection, with connection caps that close the longest-waiting connection for a newcomer,
//! a header read timeout and a send deadline ([`deadline`]); [`tls`]: rustls when asked,
//! [`selfsigned`]: a certificate made for it). A write's token is checked from its head (401 or
//! 403 before its body is read); the body is read under tower-http's body size limit
//! (`max_body`), within a total deadline and at a minimum rate ([`http::body`]); then its
//! handler — synchronous, database work included — runs on a blocking task behind tower's
//! concurrency limit (`workers` at a time; `/healthz` bypasses it), each taking a database
//! connection from the pool for as long as it needs one. A stored result is answered from its
//! stored bytes chunk by chunk ([`stream`]). A slow or idle client costs a socket and a parked
//! task, never a thread. Each token may make `rate_limit` writes per minute (429 with
//! Retry-After beyond). Every answer carries the headers of [`http::protect`] ([`style`]: the
//! pages' style and the Content-Security-Policy allowing it).

pub mod api;
pub mod categories;
pub mod db;
pub mod deadline;
pub mod explain;
pub mod filtered;
pub mod http;
pub mod listen;
pub mod pages;
pub mod rankings;
pub mod ratelimit;
pub mod results;
pub mod score;
pub mod selfsigned;
pub mod sessions;
pub mod stats;
pub mod stream;
pub mod style;
pub mod tls;
pub mod tokens;
pub mod traces;
pub mod work;

use crate::error::{Error, Result};
use db::Db;
use http::{Reply, Req};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

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
    /// How long a client may take to send a request's head, and then its body.
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    /// How long a write of an answer may wait for the client to read it.
    pub send_timeout: Duration,
    /// The slowest average a body may arrive at (bytes a second, from its first second on).
    pub min_body_rate: u64,
    /// Open connections allowed, in all and from one client address.
    pub max_connections: usize,
    pub max_per_client: usize,
    /// TLS certificate chain and key (PEM files); plain HTTP without.
    pub tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
}

/// Shared by the request handlers.
pub struct State {
    pub db: Arc<Db>,
    pub config: Config,
    /// The open connections (counted by [`listen`]).
    pub connections: listen::Registry,
    /// The chunk reads of streamed answers allowed at once ([`stream`]).
    pub stream_readers: stream::Readers,
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl State {
    pub fn new(db: Db, config: Config) -> State {
        let stream_readers = stream::readers(config.workers);
        State {
            db: Arc::new(db),
            config,
            connections: listen::Registry::default(),
            stream_readers,
        }
    }

    /// The name of the request's token, or the reply refusing it (401 without one, 403 for a
    /// wrong one).
    pub fn authorise(&self, rq: &Req) -> std::result::Result<String, Reply> {
        if let Some(who) = &rq.who {
            return Ok(who.clone());
        }
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

    /// Who may read, on a `--private` server: the request's token, or else (a browser) its
    /// session cookie from `/login`.
    pub fn authorise_read(&self, rq: &Req) -> std::result::Result<String, Reply> {
        if rq.token.is_none() {
            if let Some(id) = rq.cookie.as_deref().and_then(sessions::from_cookie) {
                match sessions::check(&self.db, id, now_ms()) {
                    Ok(Some(name)) => return Ok(name),
                    Ok(None) => {}
                    Err(e) => return Err(db_error(e)),
                }
            }
        }
        self.authorise(rq)
    }

    /// Spend one write of `name`'s allowance ([`ratelimit`], kept in the database so that
    /// every server process on it counts the same writes). The reply when it is empty.
    pub fn spend(&self, name: &str) -> std::result::Result<(), Reply> {
        if self.config.rate_limit == 0 {
            return Ok(());
        }
        match ratelimit::spend(&self.db, name, self.config.rate_limit, now_ms()) {
            Ok(None) => Ok(()),
            Ok(Some(wait)) => Err(self.limited(name, wait)),
            Err(e) => Err(db_error(e)),
        }
    }

    /// The reply to a write by `name` past its rate limit, to be retried in `wait` seconds.
    pub fn limited(&self, name: &str, wait: u64) -> Reply {
        let mut r = Reply::error(
            429,
            None,
            format!(
                "token {name}: more than {} writes per minute",
                self.config.rate_limit
            ),
        );
        r.retry_after = Some(wait);
        r
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
    if seg == ["login"] {
        return pages::login(state, rq);
    }
    if seg == ["logout"] {
        return pages::logout(state, rq);
    }
    if rq.method != "GET" && rq.method != "HEAD" {
        return Reply::error(405, None, format!("{} is not allowed here", rq.method));
    }
    if state.config.private {
        if let Err(r) = state.authorise_read(rq) {
            return pages::login_needed(r.status);
        }
        return pages::with_logout(pages::route(state, rq, &seg));
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

/// The handlers as a tower service: a [`Req`] handled on a blocking task. The server wraps it
/// in tower's concurrency limit (`workers` at a time) behind the async body read, so a request
/// takes a slot only once its body has arrived: a slow client never holds one.
#[derive(Clone)]
struct Handlers(Arc<State>);

impl tower::Service<Req> for Handlers {
    type Response = Reply;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = std::result::Result<Reply, Self::Error>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::result::Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Req) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move {
            Ok(tokio::task::spawn_blocking(move || handle(&state, &req))
                .await
                .unwrap_or_else(|_| {
                    Reply::error(500, None, "internal error (the server logged it)")
                }))
        })
    }
}

/// What every request needs: the configuration and the limited handlers.
struct App {
    max_body: u64,
    pace: http::BodyPace,
    state: Arc<State>,
    handlers: tower::limit::ConcurrencyLimit<Handlers>,
}

/// Every request: a write's token checked from its head (401 or 403 before its body is read),
/// its body read (async, under the layers' size limit, within `--body-timeout` and at
/// `--min-body-rate`), then its
/// handler run once one of the `workers` slots is free — except `/healthz`, which never waits
/// for a slot. The connection's [`listen::Mark`] says when the request is being handled (its
/// connection cannot then be closed to make room for another).
async fn entry(
    axum::extract::State(app): axum::extract::State<Arc<App>>,
    rq: axum::extract::Request,
) -> Reply {
    let mark = rq.extensions().get::<listen::Mark>().cloned();
    let (parts, body) = rq.into_parts();
    let mut req = http::head(&parts);
    // A published trace is written to a file as it arrives, never held whole in memory; its
    // token is checked from its head first. The file lives until the answer is made.
    let mut _spool = None;
    if traces::upload::is_upload(&req) {
        req = match who_from_head(&app.state, req).await {
            Ok(r) => r,
            Err(reply) => return reply,
        };
        match traces::upload::spool(body, app.max_body, app.pace).await {
            Ok(file) => {
                req.upload = Some(file.path().to_path_buf());
                _spool = Some(file);
            }
            Err(reply) => return reply,
        }
    } else {
        // What of the body has arrived with the head; all of it, usually.
        let mut body = body;
        let (arrived, whole) = match http::arrived(&mut body, app.max_body).await {
            Ok(a) => a,
            Err(reply) => return reply,
        };
        // A write whose body is still to come has its token checked first: refused from its
        // head, it never waits for its body. (One whose body came with its head is checked by
        // its handler, one hop fewer.)
        if !whole && req.method == "POST" && req.path.first().is_some_and(|p| p == "api") {
            req = match who_from_head(&app.state, req).await {
                Ok(r) => r,
                Err(reply) => return reply,
            };
        }
        req.body = if whole {
            arrived
        } else {
            match http::body(body, arrived, app.max_body, app.pace).await {
                Ok(b) => b,
                Err(reply) => return reply,
            }
        };
    }
    if let Some(m) = &mark {
        m.handling();
    }
    let internal = |_| Reply::error(500, None, "internal error (the server logged it)");
    let reply = if req.method == "GET" && req.path == ["healthz"] {
        let state = app.state.clone();
        tokio::task::spawn_blocking(move || handle(&state, &req))
            .await
            .unwrap_or_else(internal)
    } else {
        let r = tower::ServiceExt::oneshot(app.handlers.clone(), req).await;
        r.unwrap_or_else(|never| match never {})
    };
    if let Some(m) = &mark {
        m.waiting();
    }
    reply
}

/// `req` with its token's name, checked from its head on a blocking task (401 or 403 before its
/// body is read).
async fn who_from_head(state: &Arc<State>, req: Req) -> std::result::Result<Req, Reply> {
    let state = state.clone();
    let checked = tokio::task::spawn_blocking(move || {
        let who = state.authorise(&req);
        (req, who)
    })
    .await;
    match checked {
        Ok((mut req, Ok(name))) => {
            req.who = Some(name);
            Ok(req)
        }
        Ok((_, Err(refused))) => Err(refused),
        Err(_) => Err(Reply::error(
            500,
            None,
            "internal error (the server logged it)",
        )),
    }
}

/// Whether `addr` is a loopback address (tokens sent to it never leave the machine).
fn loopback(addr: &std::net::SocketAddr) -> bool {
    addr.ip().is_loopback()
}

/// Raise the soft limit on open files to the hard limit: each connection is a descriptor.
fn more_descriptors() {
    // SAFETY: getrlimit and setrlimit read and write a struct of the type given.
    unsafe {
        let mut r = std::mem::zeroed::<libc::rlimit>();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < r.rlim_max {
            r.rlim_cur = r.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

/// Run the server until the process is stopped. Prints `listening on http://ADDR` (or
/// `https://`, with the port the system chose for `:0`) before taking requests.
/// `plan`, when given, is offered to agents (added unless the same plan is there already).
pub fn serve(config: Config, plan: Option<work::PlanUpload>) -> Result<()> {
    // The address and the TLS files are taken first: a busy or malformed --listen or a bad
    // certificate creates no database.
    let listen_flag = format!("--listen {}", crate::limits::escape(&config.listen));
    let bad = move |e: &dyn std::fmt::Display| Error::input(format!("{listen_flag}: {e}"));
    let listener = std::net::TcpListener::bind(&config.listen).map_err(|e| bad(&e))?;
    listener.set_nonblocking(true).map_err(|e| bad(&e))?;
    let addr = listener.local_addr().map_err(|e| bad(&e))?;
    let tls = match &config.tls {
        Some((cert, key)) => Some(tls::Reloadable::new(cert, key)?),
        None => None,
    };
    more_descriptors();
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
    if tls.is_none() && !loopback(&addr) {
        eprintln!(
            "pocketbench serve: warning: {addr} is not a loopback address and there is no --tls-cert: \
             tokens and results travel in clear (serve with --tls-cert/--tls-key, or behind a TLS proxy)"
        );
    }
    let describe = db.describe.clone();
    let workers = config.workers.max(1);
    let limits = listen::Limits {
        max_connections: config.max_connections,
        max_per_client: config.max_per_client,
        header_timeout: config.header_timeout,
        send_timeout: config.send_timeout,
    };
    let (body_timeout, min_rate) = (config.body_timeout, config.min_body_rate);
    let max_body = config.max_body;
    let state = Arc::new(State::new(db, config));
    let registry = state.connections.clone();
    let app = Arc::new(App {
        max_body,
        pace: http::BodyPace {
            deadline: body_timeout,
            min_rate,
        },
        state: state.clone(),
        handlers: tower::limit::ConcurrencyLimit::new(Handlers(state), workers),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::failed(format!("starting the server's runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| bad(&e))?;
        if let Some(t) = &tls {
            t.reload_on_sighup()?;
        }
        // Outermost first: the headers every answer carries, the body limit's own 413 answer
        // put in the JSON error shape, the limit (by Content-Length before reading, then by
        // counting).
        let layers = tower::ServiceBuilder::new()
            .map_response(http::protect)
            .map_response(move |r| http::json_413(r, max_body))
            .layer(tower_http::limit::RequestBodyLimitLayer::new(
                usize::try_from(max_body).unwrap_or(usize::MAX),
            ));
        let router = axum::Router::new()
            .fallback(entry)
            .layer(layers)
            .with_state(app);
        let scheme = if tls.is_some() { "https" } else { "http" };
        println!("listening on {scheme}://{addr} ({describe}, {workers} workers)");
        let _ = std::io::stdout().flush();
        listen::run(listener, router, limits, tls, registry).await;
        Ok(())
    })
}
