//! Writes per minute per token, counted in the database so that several server processes on
//! one PostgreSQL share each token's allowance: a bucket of `per_minute` writes per token name,
//! refilled continuously at `per_minute` a minute, read and written in one transaction that
//! holds the bucket's row (`SELECT … FOR UPDATE` on PostgreSQL, `BEGIN IMMEDIATE` on SQLite).

use super::db::{transaction, Db, Dialect, Sql};
use crate::error::Result;

/// Take one write from `name`'s bucket at `now_ms`: `None` when there was one, else the
/// seconds until there is.
pub fn spend(db: &Db, name: &str, per_minute: u32, now_ms: i64) -> Result<Option<u64>> {
    let mut c = db.write()?;
    transaction(&mut **c, |c| spend_in(c, name, per_minute, now_ms))
}

/// [`spend`] inside a transaction the caller holds on `c` (a submission spends and stores in
/// one).
pub fn spend_in(c: &mut dyn Sql, name: &str, per_minute: u32, now_ms: i64) -> Result<Option<u64>> {
    let cap = f64::from(per_minute);
    c.execute(
        "INSERT INTO rate_buckets (name, tokens, updated_ms) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO NOTHING",
        &[name.into(), cap.into(), now_ms.into()],
    )?;
    let lock = match c.dialect() {
        Dialect::Postgres => " FOR UPDATE",
        Dialect::Sqlite => "",
    };
    let row = c.query(
        &format!("SELECT tokens, updated_ms FROM rate_buckets WHERE name = $1{lock}"),
        &[name.into()],
    )?;
    let (tokens, updated) = row.first().map_or((cap, now_ms), |r| (r.real(0), r.int(1)));
    let elapsed_min = (now_ms - updated).max(0) as f64 / 60_000.0;
    let mut tokens = (tokens + elapsed_min * cap).min(cap);
    let wait = if tokens >= 1.0 {
        tokens -= 1.0;
        None
    } else {
        Some((((1.0 - tokens) * 60.0 / cap).ceil() as u64).max(1))
    };
    c.execute(
        "UPDATE rate_buckets SET tokens = $2, updated_ms = $3 WHERE name = $1",
        &[name.into(), tokens.into(), now_ms.max(updated).into()],
    )?;
    Ok(wait)
}

#[cfg(test)]
mod tests {
    //! Two writes a minute: the third waits 30 s; a minute later the bucket is full again.
    use super::*;

    #[test]
    fn the_bucket_refills_at_its_rate() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path().join("s.db").to_str().unwrap(), 1).unwrap();
        assert_eq!(spend(&db, "a", 2, 0).unwrap(), None);
        assert_eq!(spend(&db, "a", 2, 0).unwrap(), None);
        // Empty: one write comes back in 60/2 = 30 s.
        assert_eq!(spend(&db, "a", 2, 0).unwrap(), Some(30));
        assert_eq!(spend(&db, "b", 2, 0).unwrap(), None, "another token");
        // 15 s later half a write is back: 15 s more to wait.
        assert_eq!(spend(&db, "a", 2, 15_000).unwrap(), Some(15));
        assert_eq!(spend(&db, "a", 2, 75_000).unwrap(), None);
        assert_eq!(spend(&db, "a", 2, 75_000).unwrap(), None);
        assert_eq!(spend(&db, "a", 2, 75_000).unwrap(), Some(30));
    }
}
