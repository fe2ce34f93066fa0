//! Browser sessions for `--private` servers: `/login` takes a token (a form) and, when it is
//! valid, sets a session cookie (`pb_session`, HttpOnly so scripts cannot read it, SameSite=
//! Strict so other sites cannot send it, Secure over TLS) good for reading for
//! [`SESSION_MS`]. Only the session id's SHA-256 is stored, in the database, so every server on
//! one PostgreSQL knows it; revoking the token ends its sessions. Writes still need the token
//! itself (`Authorization: Bearer`), never the cookie.

use super::db::{Db, Value};
use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::Read;

/// How long a session lasts: a day.
pub const SESSION_MS: i64 = 86_400_000;
/// The cookie's name.
pub const COOKIE: &str = "pb_session";

fn hash(id: &str) -> String {
    Sha256::digest(id.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Start a session for token `name`: its id (for the cookie).
pub fn start(db: &Db, name: &str, now_ms: i64) -> Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| Error::failed(format!("/dev/urandom: {e}")))?;
    let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut c = db.write()?;
    c.execute(
        "DELETE FROM sessions WHERE expires_ms < $1",
        &[now_ms.into()],
    )?;
    c.execute(
        "INSERT INTO sessions (hash, name, expires_ms) VALUES ($1, $2, $3)",
        &[hash(&id).into(), name.into(), (now_ms + SESSION_MS).into()],
    )?;
    Ok(id)
}

/// The token name of session `id`, if it is current and its token still exists.
pub fn check(db: &Db, id: &str, now_ms: i64) -> Result<Option<String>> {
    if id.len() != 64 {
        return Ok(None);
    }
    Ok(db
        .read()?
        .query(
            "SELECT s.name FROM sessions s JOIN tokens t ON t.name = s.name
             WHERE s.hash = $1 AND s.expires_ms >= $2",
            &[Value::Text(hash(id)), now_ms.into()],
        )?
        .first()
        .map(|r| r.text(0)))
}

/// End session `id` (signing out).
pub fn end(db: &Db, id: &str) -> Result<()> {
    db.write()?.execute(
        "DELETE FROM sessions WHERE hash = $1",
        &[Value::Text(hash(id))],
    )?;
    Ok(())
}

/// The `Set-Cookie` value that clears the session cookie.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
}

/// The session id in a `Cookie` header, if there is one.
pub fn from_cookie(header: &str) -> Option<&str> {
    crate::fleet::url::cookie_value(header, COOKIE)
}

/// The `Set-Cookie` value for session `id`.
pub fn set_cookie(id: &str, secure: bool) -> String {
    format!(
        "{COOKIE}={id}; Path=/; Max-Age={}; HttpOnly; SameSite=Strict{}",
        SESSION_MS / 1000,
        if secure { "; Secure" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    //! A session names its token until it expires or the token is revoked.
    use super::*;

    #[test]
    fn sessions_follow_their_token_and_expire() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path().join("s.db").to_str().unwrap(), 1).unwrap();
        super::super::tokens::add(&db, "reader", None, 0).unwrap();
        let id = start(&db, "reader", 1000).unwrap();
        assert_eq!(check(&db, &id, 2000).unwrap().as_deref(), Some("reader"));
        assert_eq!(check(&db, &id, 1000 + SESSION_MS + 1).unwrap(), None);
        assert_eq!(check(&db, &"0".repeat(64), 2000).unwrap(), None);
        let cookie = format!("a=b; {COOKIE}={id}; c=d");
        assert_eq!(from_cookie(&cookie), Some(id.as_str()));
        assert!(set_cookie(&id, true).ends_with("HttpOnly; SameSite=Strict; Secure"));
        super::super::tokens::revoke(&db, "reader").unwrap();
        assert_eq!(check(&db, &id, 2000).unwrap(), None);
    }
}
