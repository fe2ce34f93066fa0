//! The dashboard: server-rendered HTML pages (no script, no build step) with SVG charts —
//! `/` (categories and their leaders; categories without results collapsed), `/models?q=`
//! (every model, searchable), `/rankings/{category}` (top 10 with the 3σ rule, the models not
//! ranked yet and why, and every model by first-seen date, labelled), `/devices/{model}` (per category: statistics, file systems
//! side by side, clusters and what distinguishes them, results over time), `/compare?a=&b=`
//! (two models category by category) and `/results/{id}` (one result, linking to its full
//! report at `/results/{id}/report`), `/traces` (the gallery of published app traces,
//! searchable, filtered and paged) and `/traces/{sha256}` (one trace: its `trace stats`, and per
//! engine setup the ranking of device models on busy time and p95). Every text from a
//! submission is escaped.

mod charts;
mod models;
mod traces;
mod views;

use super::http::{Reply, Req};
use super::State;
use crate::report::html::svg::esc;

pub fn route(state: &State, rq: &Req, seg: &[&str]) -> Reply {
    let page = match seg {
        [] => views::index(state),
        ["models"] => models::page(state, rq.param("q").unwrap_or("")),
        ["rankings", c] => views::ranking(state, rq, c),
        ["devices", m] => views::device(state, m),
        ["compare"] => views::compare(
            state,
            rq.param("a").unwrap_or(""),
            rq.param("b").unwrap_or(""),
        ),
        ["results", id] => views::result(state, id),
        ["results", id, "report"] => views::report(state, id),
        ["traces"] => traces::gallery(state, rq),
        ["traces", sha] => traces::one(state, rq, sha),
        _ => Err(not_found(&format!("/{}", seg.join("/")))),
    };
    page.unwrap_or_else(|r| r)
}

const LOGIN_FORM: &str = r#"<form id="login" method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password"></label> <button type="submit">Sign in</button></form>"#;

/// A page of a `--private` server asked for without a token or session: the sign-in form.
pub fn login_needed(status: u16) -> Reply {
    Reply::html(
        status,
        layout(
            "Sign in",
            &format!("<p>This server is private: sign in with an API token (<code>pocketbench serve token add NAME</code>).</p>{LOGIN_FORM}"),
        ),
    )
}

/// `/login`: GET shows the form; POST (`token=…`, form-encoded) exchanges a valid token for a
/// session cookie and goes to `/` (303), or shows the form again (403).
pub fn login(state: &State, rq: &Req) -> Reply {
    if rq.method == "GET" || rq.method == "HEAD" {
        return Reply::html(200, layout("Sign in", LOGIN_FORM));
    }
    if rq.method != "POST" {
        return Reply::error(405, None, format!("{} is not allowed here", rq.method));
    }
    let token = crate::fleet::url::form_value(&rq.body, "token").unwrap_or_default();
    let name = match super::tokens::check(&state.db, &token) {
        Ok(Some(name)) => name,
        Ok(None) => {
            return Reply::html(
                403,
                layout("Sign in", &format!("<p class=\"error\">That token is not valid (revoked or mistyped).</p>{LOGIN_FORM}")),
            )
        }
        Err(e) => return super::db_error(e),
    };
    match super::sessions::start(&state.db, &name, super::now_ms()) {
        Ok(id) => {
            let mut r = Reply::html(
                303,
                layout("Signed in", "<p><a href=\"/\">Continue</a></p>"),
            );
            let secure = state.config.tls.is_some();
            r.headers
                .push(("set-cookie", super::sessions::set_cookie(&id, secure)));
            r.headers.push(("location", "/".to_string()));
            r
        }
        Err(e) => super::db_error(e),
    }
}

const LOGOUT_FORM: &str = r#"<form id="logout" method="post" action="/logout"><button type="submit">Sign out</button></form>"#;

/// A page of a `--private` server, with the sign-out button in its navigation.
pub fn with_logout(mut r: Reply) -> Reply {
    if r.content_type.starts_with("text/html") {
        let page =
            String::from_utf8_lossy(&r.body).replacen("</nav>", &format!("{LOGOUT_FORM}</nav>"), 1);
        r.body = page.into_bytes();
    }
    r
}

/// `POST /logout`: the session in the request's cookie ends (on every server of the database)
/// and its cookie is cleared; then the sign-in form (303 to `/login`).
pub fn logout(state: &State, rq: &Req) -> Reply {
    if rq.method != "POST" {
        return Reply::error(405, None, format!("{} is not allowed here", rq.method));
    }
    if let Some(id) = rq.cookie.as_deref().and_then(super::sessions::from_cookie) {
        if let Err(e) = super::sessions::end(&state.db, id) {
            return super::db_error(e);
        }
    }
    let mut r = Reply::html(
        303,
        layout("Signed out", "<p><a href=\"/login\">Sign in</a></p>"),
    );
    r.headers
        .push(("set-cookie", super::sessions::clear_cookie()));
    r.headers.push(("location", "/login".to_string()));
    r
}

fn not_found(what: &str) -> Reply {
    Reply::html(
        404,
        layout("Not found", &format!("<p>Nothing at {}.</p>", esc(what))),
    )
}

/// A page around `body`.
pub fn layout(title: &str, body: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{t} · pocketbench</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{style}</style></head>
<body><nav><a href="/">pocketbench results</a><a href="/models">all models</a><a href="/traces">app traces</a></nav>
<h1>{t}</h1>
{body}
</body></html>
"#,
        t = esc(title),
        style = super::style::STYLE
    )
}

/// A path segment or query value, percent-encoded for a link.
pub fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// Unix milliseconds as a UTC date.
pub fn date(ms: i64) -> String {
    crate::platform::clock::utc((ms.max(0) / 1000) as u64)[..10].to_string()
}
