//! Settings candidates, each proposed only where the baseline's own replay shows it can matter:
//! WAL with `synchronous=NORMAL` (or `NORMAL` alone under WAL) where at least 10 commits each
//! waited for a sync and syncs took a tenth of the busy time;
//! a larger page cache, and memory-mapped reads, where the replay read more than the whole
//! database file (at least 1 MiB) and reading took a tenth of the busy time; temporary storage in memory where sorts and temporary tables wrote files; a
//! larger page size (with the rebuild it needs) where reads were mostly whole-table scans. And
//! the user's own `--try` options, as they are.

use super::measure::Replay;
use super::shapes::TraceView;
use super::variant::Variant;
use super::{Candidate, Kind};

/// The largest page cache proposed (KiB), whatever the database's size.
const MAX_CACHE_KIB: u64 = 65_536;
/// A kind of I/O matters when the statements spent at least this share of their busy time in it.
const MATTERS: f64 = 0.10;
/// Commits the trace must make for their syncs to matter.
const MIN_COMMITS: u64 = 10;
/// Bytes the replay must read from the database file for the cache to matter.
const MIN_READ_BYTES: u64 = 1 << 20;

fn option<'a>(options: &'a [(String, String)], key: &str) -> Option<&'a str> {
    options
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn setting(change: &[(&str, String)], why: String, extra_sql: &[&str]) -> Candidate {
    let mut sql: Vec<String> = change
        .iter()
        .map(|(k, v)| format!("PRAGMA {k} = {v};"))
        .collect();
    sql.extend(extra_sql.iter().map(|s| s.to_string()));
    Candidate {
        kind: Kind::Setting,
        change: change
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        why,
        sql,
        shapes: Vec::new(),
        variant: Variant {
            edits: Vec::new(),
            options: change
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        },
    }
}

/// The settings worth trying for this trace, from the baseline replay `first` and the size of
/// the database it leaves (`db_bytes`).
pub fn propose(
    view: &TraceView,
    base: &[(String, String)],
    first: &Replay,
    db_bytes: u64,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    let journal = option(base, "journal_mode").unwrap_or("delete");
    let sync = option(base, "synchronous").unwrap_or("full");
    let wal = journal == "wal";
    let share = |ns: u64| ns as f64 / first.busy_ns.max(1) as f64;
    if view.commits >= MIN_COMMITS
        && first.syncs >= view.commits
        && share(first.sync_ns) >= MATTERS
        && sync != "off"
    {
        let why = format!(
            "{} syncs for {} commits: every commit waits for storage",
            first.syncs, view.commits
        );
        if !wal {
            out.push(setting(
                &[
                    ("journal_mode", "wal".into()),
                    ("synchronous", "normal".into()),
                ],
                format!("{why}; WAL with synchronous=NORMAL syncs at checkpoints only"),
                &[],
            ));
        } else if sync != "normal" {
            out.push(setting(
                &[("synchronous", "normal".into())],
                format!("{why}; under WAL, NORMAL syncs at checkpoints only"),
                &[],
            ));
        }
    }
    let rereads = db_bytes > 0
        && first.main_read_bytes > db_bytes
        && first.main_read_bytes >= MIN_READ_BYTES
        && share(first.read_ns) >= MATTERS;
    if rereads {
        let kib = (db_bytes * 2 / 1024).clamp(4096, MAX_CACHE_KIB);
        let cache = option(base, "cache_size").unwrap_or("-2000");
        if cache
            .parse::<i64>()
            .is_ok_and(|c| c < 0 && c.unsigned_abs() < kib)
        {
            out.push(setting(
                &[("cache_size", format!("-{kib}"))],
                format!(
                    "the replay read {} from a {} database: pages left the cache and were read again",
                    crate::output::units::bytes(first.main_read_bytes),
                    crate::output::units::bytes(db_bytes)
                ),
                &[],
            ));
        }
        if option(base, "mmap_size").unwrap_or("0") == "0" {
            let map = db_bytes.next_power_of_two().max(1 << 20) * 2;
            out.push(setting(
                &[("mmap_size", map.to_string())],
                format!(
                    "the replay read {} through read(); a map reads the file without copying",
                    crate::output::units::bytes(first.main_read_bytes)
                ),
                &[],
            ));
        }
    }
    if first.temp_bytes > 0 && option(base, "temp_store") != Some("memory") {
        out.push(setting(
            &[("temp_store", "memory".into())],
            format!(
                "sorts and temporary tables moved {} through files",
                crate::output::units::bytes(first.temp_bytes)
            ),
            &[],
        ));
    }
    let page = option(base, "page_size").unwrap_or("4096");
    if rereads && first.main_read_bytes >= db_bytes.saturating_mul(4) && page == "4096" {
        out.push(setting(
            &[("page_size", "16384".into())],
            format!(
                "reads ({}) are whole scans of a {} database: larger pages read it in fewer calls",
                crate::output::units::bytes(first.main_read_bytes),
                crate::output::units::bytes(db_bytes)
            ),
            &["VACUUM; -- page_size takes effect on an existing database only after a rebuild"],
        ));
    }
    out
}

/// A `--try` candidate: the options as given.
pub fn tried(options: &[(String, String)]) -> Candidate {
    let change: Vec<(&str, String)> = options
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    Candidate {
        kind: Kind::Tried,
        ..setting(&change, "asked for with --try".into(), &[])
    }
}
