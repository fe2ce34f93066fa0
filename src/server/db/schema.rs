//! The server's tables, created (or checked) when the server or a `serve token` command opens
//! the database. One text for both back ends; only the auto-increment key differs.
//!
//! * `results`: one row per distinct submitted result (its SHA-256 `hash` makes re-submission
//!   idempotent), with the device's identity in columns and the full result as JSON.
//! * `metrics`: the values a result contributes to ranking categories, indexed by
//!   (category, model, value) so one model's values are one index range.
//! * `model_stats`: per category and model, the 3σ-filtered mean and standard deviation, kept up
//!   to date lazily: a submission bumps `version`, a ranking recomputes the rows whose
//!   `computed` version lags.
//! * `sessions`: browser sessions of `--private` servers (hashed ids, the token they came from);
//! * `rate_buckets`: each token's remaining writes this minute, shared by every server process;
//! * `tokens`: API tokens, SHA-256 hashed; `plans` and `cells`: study plans a fleet of agents
//!   claims cells of.
//! * `traces`: published app traces, addressed by the SHA-256 of their bytes (unique), with
//!   their title, header, `trace stats` and counters of runs and devices; `trace_chunks`: their
//!   bytes, [`crate::server::traces::CHUNK`] at a time; `trace_runs`: each result replaying
//!   one (its engine setup, busy time and p95), and `trace_setups` the running sums per setup.
//!   A replay's busy time and p95 are also `metrics` rows of the categories
//!   `trace:ID:SETUP:busy` and `…:p95`, ranked by `model_stats` like every category.

use super::{scalar, Dialect, Sql};
use crate::error::{Error, Result};

/// The schema version this build writes; a database with a newer one is refused.
pub const VERSION: i64 = 1;

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    id {pk},
    hash TEXT NOT NULL UNIQUE,
    submitted_at BIGINT NOT NULL,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    manufacturer TEXT NOT NULL,
    soc TEXT NOT NULL,
    os TEXT NOT NULL,
    kernel TEXT NOT NULL,
    core_layout TEXT NOT NULL,
    storage_model TEXT NOT NULL,
    file_system TEXT NOT NULL,
    mount_options TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    created_at TEXT NOT NULL,
    submitter TEXT NOT NULL,
    device TEXT NOT NULL,
    result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_model ON results (model, id);
CREATE TABLE IF NOT EXISTS metrics (
    result_id BIGINT NOT NULL,
    category TEXT NOT NULL,
    model TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    submitted_at BIGINT NOT NULL,
    PRIMARY KEY (result_id, category)
);
CREATE INDEX IF NOT EXISTS metrics_rank ON metrics (category, model, value);
CREATE TABLE IF NOT EXISTS model_stats (
    category TEXT NOT NULL,
    model TEXT NOT NULL,
    version BIGINT NOT NULL,
    computed BIGINT NOT NULL,
    first_seen BIGINT NOT NULL,
    total BIGINT NOT NULL,
    kept BIGINT NOT NULL,
    mean DOUBLE PRECISION NOT NULL,
    stddev DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (category, model)
);
CREATE TABLE IF NOT EXISTS tokens (
    name TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS plans (
    id {pk},
    name TEXT NOT NULL,
    class TEXT NOT NULL,
    plan TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    submitter TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cells (
    id {pk},
    plan_id BIGINT NOT NULL,
    idx BIGINT NOT NULL,
    repeat BIGINT NOT NULL,
    name TEXT NOT NULL,
    suite TEXT NOT NULL,
    args TEXT NOT NULL,
    class TEXT NOT NULL,
    state TEXT NOT NULL,
    agent TEXT NOT NULL,
    claimed_at BIGINT,
    expires_at BIGINT,
    attempts BIGINT NOT NULL,
    result_id BIGINT
);
CREATE INDEX IF NOT EXISTS cells_open ON cells (state, class, id);
CREATE TABLE IF NOT EXISTS sessions (
    hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS traces (
    id {pk},
    sha256 TEXT NOT NULL UNIQUE,
    digest TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    anonymised TEXT NOT NULL,
    source TEXT NOT NULL,
    bytes BIGINT NOT NULL,
    chunks BIGINT NOT NULL,
    statements BIGINT NOT NULL,
    connections BIGINT NOT NULL,
    mix TEXT NOT NULL,
    header TEXT NOT NULL,
    stats TEXT NOT NULL,
    stats_text TEXT NOT NULL,
    submitter TEXT NOT NULL,
    submitted_at BIGINT NOT NULL,
    runs BIGINT NOT NULL,
    devices BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS traces_digest ON traces (digest);
CREATE INDEX IF NOT EXISTS traces_runs ON traces (runs, id);
CREATE TABLE IF NOT EXISTS trace_chunks (
    trace_id BIGINT NOT NULL,
    idx BIGINT NOT NULL,
    data {blob} NOT NULL,
    PRIMARY KEY (trace_id, idx)
);
CREATE TABLE IF NOT EXISTS trace_runs (
    result_id BIGINT PRIMARY KEY,
    trace_id BIGINT NOT NULL,
    model TEXT NOT NULL,
    setup TEXT NOT NULL,
    busy_ms DOUBLE PRECISION NOT NULL,
    p95_us DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS trace_models (
    trace_id BIGINT NOT NULL,
    model TEXT NOT NULL,
    PRIMARY KEY (trace_id, model)
);
CREATE TABLE IF NOT EXISTS trace_setups (
    trace_id BIGINT NOT NULL,
    setup TEXT NOT NULL,
    runs BIGINT NOT NULL,
    busy_sum DOUBLE PRECISION NOT NULL,
    p95_sum DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (trace_id, setup)
);
CREATE TABLE IF NOT EXISTS rate_buckets (
    name TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    updated_ms BIGINT NOT NULL
);
";

/// Create the tables if they are missing; refuse a database written by a newer version.
pub fn create(c: &mut dyn Sql) -> Result<()> {
    let (pk, blob) = match c.dialect() {
        Dialect::Sqlite => ("INTEGER PRIMARY KEY", "BLOB"),
        Dialect::Postgres => ("BIGSERIAL PRIMARY KEY", "BYTEA"),
    };
    // Several server processes may start together on one PostgreSQL: one creates, the others
    // wait on the advisory lock and then find the tables there.
    if c.dialect() == Dialect::Postgres {
        c.batch("SELECT pg_advisory_lock(740215)")?;
    }
    let done = (|| {
        c.batch(&TABLES.replace("{pk}", pk).replace("{blob}", blob))?;
        let found = c
            .query("SELECT value FROM meta WHERE key = 'schema_version'", &[])?
            .first()
            .map(|r| r.text(0));
        match found {
            None => {
                c.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', $1)",
                    &[VERSION.to_string().into()],
                )?;
            }
            Some(v) if v.parse::<i64>().map_or(true, |v| v > VERSION) => {
                return Err(Error::input(format!(
                    "--db: the server database has schema version {}; this pocketbench writes {VERSION} (upgrade pocketbench)",
                    crate::limits::escape(&v)
                )));
            }
            Some(_) => {}
        }
        Ok(())
    })();
    if c.dialect() == Dialect::Postgres {
        c.batch("SELECT pg_advisory_unlock(740215)")?;
    }
    done
}

/// Results stored (`/healthz`, and the benchmark's lost-submission count).
pub fn results_count(c: &mut dyn Sql) -> Result<i64> {
    Ok(scalar(c, "SELECT COUNT(*) FROM results", &[])?.unwrap_or(0))
}
