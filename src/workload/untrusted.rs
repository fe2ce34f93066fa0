//! A workload's SQL is untrusted even where it is only read, never replayed: `trace stats`
//! (and the results server, which computes a published trace's statistics) prepares a trace's
//! statements and runs its schema on a scratch in-memory SQLite database to classify them.
//! [`guard_scratch`] makes such a connection refuse what could touch a file or the process:
//! every `ATTACH` (and so `VACUUM INTO`, which SQLite authorises as an attach), the PRAGMAs
//! that move the process's temporary files or rewrite the schema, and the functions that load
//! code. The replaying engines have their own, fuller guard (`src/engine/sqlite/guard.rs`);
//! this is the one layer below it that reads SQL.

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

/// PRAGMAs a scratch connection refuses (the first two change a process-wide setting).
const PRAGMAS: [&str; 3] = [
    "temp_store_directory",
    "data_store_directory",
    "writable_schema",
];

/// Functions a scratch connection refuses.
const FUNCTIONS: [&str; 2] = ["load_extension", "fts3_tokenizer"];

/// Whether a scratch connection allows `action`.
fn allowed(action: &AuthAction<'_>) -> bool {
    match action {
        AuthAction::Attach { .. } => false,
        AuthAction::Pragma { pragma_name, .. } => {
            !PRAGMAS.iter().any(|p| p.eq_ignore_ascii_case(pragma_name))
        }
        AuthAction::Function { function_name } => !FUNCTIONS
            .iter()
            .any(|f| f.eq_ignore_ascii_case(function_name)),
        _ => true,
    }
}

/// Install the authorizer on `conn`, a scratch database that classifies untrusted SQL.
pub fn guard_scratch(conn: &rusqlite::Connection) {
    conn.authorizer(Some(|ctx: AuthContext<'_>| {
        if allowed(&ctx.action) {
            Authorization::Allow
        } else {
            Authorization::Deny
        }
    }));
}

#[cfg(test)]
mod tests {
    //! A scratch connection refuses each hostile statement (nothing is created in the folder
    //! they name) and still runs a schema and prepares ordinary statements.
    use super::*;

    #[test]
    fn hostile_statements_are_refused_and_ordinary_ones_run() {
        let dir = tempfile::tempdir().unwrap();
        let o = dir.path().display();
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        guard_scratch(&conn);
        for sql in [
            format!("ATTACH DATABASE '{o}/e.db' AS e"),
            format!("VACUUM INTO '{o}/copy.db'"),
            format!("PRAGMA temp_store_directory = '{o}'"),
            "PRAGMA writable_schema = 1".to_string(),
            "SELECT load_extension('x')".to_string(),
        ] {
            let e = conn.execute_batch(&sql).unwrap_err().to_string();
            assert!(
                e.contains("not authorized") || e.contains("authorization denied"),
                "{sql}: {e}"
            );
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        conn.execute_batch("CREATE TABLE t(a); CREATE INDEX ti ON t(a)")
            .unwrap();
        assert!(conn.prepare("SELECT a FROM t").unwrap().readonly());
    }
}
