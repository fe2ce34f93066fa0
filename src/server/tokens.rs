//! API tokens: `pocketbench serve token add NAME` prints a new token once; only its SHA-256
//! is stored, so a copy of the database does not give away a token. Submitting results and
//! uploading plans need one; reading needs one when the server runs with `--private`.

use super::db::{Db, Value};
use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::Read;

/// The longest token name, in bytes.
pub const MAX_NAME: usize = 64;

fn hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `text` is `min..=max` letters, digits, `.`, `_` or `-`; else the error naming it as `what`.
fn plain(text: &str, what: &str, min: usize, max: usize) -> Result<()> {
    if !(min..=max).contains(&text.len())
        || !text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Err(Error::input(format!(
            "{what} {}: expected {min} to {max} letters, digits, '.', '_' or '-'",
            crate::limits::escape(text)
        )));
    }
    Ok(())
}

/// A token name: 1–64 letters, digits, `.`, `_` or `-`.
pub fn check_name(name: &str) -> Result<()> {
    plain(name, "token name", 1, MAX_NAME)
}

/// The shortest and longest token given with `serve token add --token`, in characters.
pub const MIN_GIVEN: usize = 16;
pub const MAX_GIVEN: usize = 128;

/// A token given rather than made (`serve token add NAME --token T`, e.g. one a secret store
/// keeps): 16 to 128 letters, digits, `.`, `_` or `-`.
pub fn check_given(token: &str) -> Result<()> {
    plain(token, "--token", MIN_GIVEN, MAX_GIVEN)
}

/// Create token `name`, `given` or else 32 random bytes (`pbt_` and 64 hex digits); returns
/// the token (shown once).
pub fn add(db: &Db, name: &str, given: Option<&str>, now_ms: i64) -> Result<String> {
    check_name(name)?;
    let token = match given {
        Some(t) => {
            check_given(t)?;
            if check(db, t)?.is_some() {
                return Err(Error::input(
                    "--token: that token is already another name's (each name needs its own)",
                ));
            }
            t.to_string()
        }
        None => {
            let mut bytes = [0u8; 32];
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut bytes))
                .map_err(|e| Error::failed(format!("/dev/urandom: {e}")))?;
            format!(
                "pbt_{}",
                bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )
        }
    };
    let mut c = db.write()?;
    let inserted = c.execute(
        "INSERT INTO tokens (name, hash, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
        &[name.into(), hash(&token).into(), now_ms.into()],
    )?;
    if inserted == 0 {
        return Err(Error::input(format!(
            "token {}: a token of that name exists (revoke it first)",
            crate::limits::escape(name)
        )));
    }
    Ok(token)
}

/// (name, created_at) of every token.
pub fn list(db: &Db) -> Result<Vec<(String, i64)>> {
    Ok(db
        .read()?
        .query("SELECT name, created_at FROM tokens ORDER BY name", &[])?
        .iter()
        .map(|r| (r.text(0), r.int(1)))
        .collect())
}

/// Revoke token `name`; false when there was none.
pub fn revoke(db: &Db, name: &str) -> Result<bool> {
    Ok(db
        .write()?
        .execute("DELETE FROM tokens WHERE name = $1", &[name.into()])?
        > 0)
}

/// The name of the token `token`, if it is a valid one.
pub fn check(db: &Db, token: &str) -> Result<Option<String>> {
    if token.len() > 256 {
        return Ok(None);
    }
    Ok(db
        .read()?
        .query(
            "SELECT name FROM tokens WHERE hash = $1",
            &[Value::Text(hash(token))],
        )?
        .first()
        .map(|r| r.text(0)))
}

#[cfg(test)]
mod tests {
    //! A token given with `--token` works as a made one, within its bounds and once only; a made
    //! one is `pbt_` and 64 hex digits.
    use super::*;

    #[test]
    fn a_given_token_is_checked_stored_and_unique() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path().join("t.db").to_str().unwrap(), 1).unwrap();
        let made = add(&db, "made", None, 0).unwrap();
        assert_eq!(made.len(), 4 + 64);
        assert!(made.starts_with("pbt_"));
        assert_eq!(check(&db, &made).unwrap().as_deref(), Some("made"));
        // 16 characters is the shortest taken, 15 is refused; so is a character outside the set.
        let given = "pbt_example_1234";
        assert_eq!(given.len(), MIN_GIVEN);
        assert_eq!(add(&db, "given", Some(given), 0).unwrap(), given);
        assert_eq!(check(&db, given).unwrap().as_deref(), Some("given"));
        for bad in [
            "pbt_example_123",
            "pbt_example 1234",
            &"x".repeat(MAX_GIVEN + 1),
        ] {
            let e = add(&db, "bad", Some(bad), 0).unwrap_err().to_string();
            assert!(e.starts_with("--token "), "{e}");
        }
        assert!(add(&db, "max", Some(&"x".repeat(MAX_GIVEN)), 0).is_ok());
        // The same token under a second name would make it ambiguous: refused, nothing stored.
        let e = add(&db, "again", Some(given), 0).unwrap_err().to_string();
        assert!(e.contains("already another name's"), "{e}");
        assert_eq!(
            list(&db)
                .unwrap()
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>(),
            ["given", "made", "max"]
        );
    }
}
