//! Keeping a finished measurement when the results store cannot take it: the run is written
//! instead to a spool file next to the store (a results store of its own, marked as a spool),
//! and `pocketbench results import` brings spooled runs (or any other store's runs) into a
//! store later, renumbered, in one transaction.

use super::store::Store;
use crate::error::{Error, Result, ResultExt};
use rusqlite::params;
use std::path::{Path, PathBuf};

/// Where a run that `store` could not take is spooled first: beside it, named after it, the
/// time and this process; the temporary directory when the store's directory is not writable.
pub fn path_for(store: &Path) -> PathBuf {
    places(store).remove(0)
}

/// Every place a spool file for `store` is tried, in order: beside the store (when its
/// directory is writable), the temporary directory (`$TMPDIR`), the home directory (`$HOME`).
pub fn places(store: &Path) -> Vec<PathBuf> {
    let name = store.file_name().map_or_else(
        || "pocketbench.db".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let stamp = format!(
        "{name}.spool-{}-{}.db",
        crate::platform::clock::utc_now().replace([':', '-'], ""),
        std::process::id()
    );
    let dir = crate::limits::dir_of(store);
    let mut dirs = Vec::new();
    if dir.is_dir() && super::guard::writable(dir) {
        dirs.push(dir.to_path_buf());
    }
    dirs.push(std::env::temp_dir());
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        dirs.push(PathBuf::from(home));
    }
    dirs.dedup();
    dirs.into_iter().map(|d| d.join(&stamp)).collect()
}

/// Open a new spool store at `path`, marked so that `import` removes it once imported.
pub fn create(path: &Path) -> Result<Store> {
    let store = Store::open(path)?;
    store
        .conn()
        .execute("INSERT OR REPLACE INTO meta VALUES ('spool', '1')", [])
        .run_err(format!("spool {}", path.display()))?;
    Ok(store)
}

/// The store at `store` failed with `e` to take a finished run: write the run with `write`
/// into a new spool file instead, beside the store, else in `$TMPDIR`, else in `$HOME` (a
/// place that fails keeps no file). When every place fails, the whole result (`whole`) is
/// printed as JSON on stdout. The returned error (a run failure) says where the run was kept
/// and how to bring it in, or that it was printed.
pub fn keep<T>(
    store: &Path,
    e: Error,
    what: &str,
    mut write: impl FnMut(&mut Store) -> Result<T>,
    whole: impl FnOnce() -> Result<serde_json::Value>,
) -> Error {
    let mut failures = Vec::new();
    for path in places(store) {
        let p = path.display();
        match create(&path).and_then(|mut s| write(&mut s)) {
            Ok(_) => {
                return Error::failed(format!(
                    "{e}; the finished {what} was kept in {p}: bring it into the store with `pocketbench results import {p} --results {}`",
                    store.display()
                ))
            }
            Err(e2) => {
                remove_store_files(&path);
                failures.push(format!("{p}: {e2}"));
            }
        }
    }
    let tried = failures.join("; ");
    match whole().and_then(|v| {
        let text = serde_json::to_string_pretty(&v).run_err("result as JSON")?;
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}")
            .and_then(|()| out.flush())
            .run_err("stdout")
    }) {
        Ok(()) => Error::failed(format!(
            "{e}; no spool file could be written either ({tried}); the whole {what} is printed as JSON on stdout instead"
        )),
        Err(e3) => Error::failed(format!(
            "{e}; no spool file could be written either ({tried}), and printing the {what} failed: {e3}"
        )),
    }
}

/// A test hook for a disk that fills during a run: when `POCKETBENCH_TEST_FILL` names
/// directories (separated by `:`), the file systems holding them are filled (a file
/// `.pocketbench-fill` in each) just before a finished result is stored.
pub fn test_fill() {
    let Some(dirs) = std::env::var_os("POCKETBENCH_TEST_FILL") else {
        return;
    };
    for dir in std::env::split_paths(&dirs).filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(mut f) = std::fs::File::create(dir.join(".pocketbench-fill")) {
            use std::io::Write;
            let block = vec![0u8; 64 << 10];
            while f.write_all(&block).is_ok() {}
            let small = [0u8; 512];
            while f.write_all(&small).is_ok() {}
            let _ = f.sync_all();
        }
    }
}

/// What `import` brought in.
#[derive(Debug, serde::Serialize)]
pub struct Imported {
    pub file: PathBuf,
    /// (id in the file, new id in the store) of each result (workload and suite runs).
    pub runs: Vec<(i64, i64)>,
    /// The file was a spool and has been removed.
    pub removed: bool,
}

/// Copy every result of the store at `from` into `into`: runs with their samples, frequency
/// samples and series, under new ids, all in one transaction. A spool
/// file is removed afterwards. A file without runs is an error.
pub fn import(into: &mut Store, from: &Path) -> Result<Imported> {
    if into.path() == from {
        return Err(Error::input(format!(
            "results import {}: that is the store itself",
            from.display()
        )));
    }
    let source = Store::open_read(from).map_err(|e| {
        Error::input(format!(
            "results import {}: {}",
            from.display(),
            e.to_string()
                .trim_start_matches(&format!("--results {}: ", from.display()))
        ))
    })?;
    let is_spool = source
        .conn()
        .query_row("SELECT value FROM meta WHERE key = 'spool'", [], |r| {
            r.get::<_, String>(0)
        })
        .is_ok();
    drop(source);
    let what = format!("results import {}", from.display());
    let file = from
        .to_str()
        .ok_or_else(|| Error::input(format!("{what}: the path is not UTF-8")))?;
    // ATTACH and DETACH must happen outside the transaction.
    into.conn()
        .execute("ATTACH DATABASE ?1 AS src", [file])
        .input_err(&what)?;
    let copied = (|| {
        let tx = super::guard::begin_write(into.conn())?;
        let runs = copy_all(&tx).run_err(&what)?;
        if runs.is_empty() {
            return Err(Error::input(format!("{what}: no runs in that file")));
        }
        tx.commit().run_err(&what)?;
        Ok(runs)
    })();
    let detached = into.conn().execute("DETACH DATABASE src", []);
    let runs = copied?;
    detached.run_err(&what)?;
    let removed = is_spool && remove_store_files(from);
    Ok(Imported {
        file: from.to_path_buf(),
        runs,
        removed,
    })
}

pub(super) type IdMap = Vec<(i64, i64)>;

/// Copy every run of the attached database `src` into the store under new ids.
pub(super) fn copy_all(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<IdMap> {
    let mut runs = Vec::new();
    let old_ids: Vec<i64> = tx
        .prepare("SELECT id FROM src.runs ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let freq = super::guard::has_table(tx, "src", "frequency_samples")?;
    if freq {
        crate::platform::cpufreq::join::ensure_table(tx)?;
    }
    for old in old_ids {
        tx.execute(
            "INSERT INTO runs (created_at, workload, engine, ops, errors, summary, kind)
             SELECT created_at, workload, engine, ops, errors, summary, kind FROM src.runs WHERE id = ?1",
            [old],
        )?;
        let new = tx.last_insert_rowid();
        // The summary carries its own id.
        tx.execute(
            "UPDATE runs SET summary = json_set(summary, '$.id', ?1) WHERE id = ?1",
            [new],
        )?;
        tx.execute(
            "INSERT INTO op_samples SELECT ?2, seq, kind, ok, key, intended_ns, start_ns, end_ns,
               cpu_ns, sleep_requested_ns, sleep_actual_ns, io_reads, io_read_bytes, io_writes,
               io_write_bytes, io_syncs, io_blocked_ns FROM src.op_samples WHERE run_id = ?1",
            params![old, new],
        )?;
        tx.execute(
            "INSERT INTO suite_series SELECT ?2, name, data FROM src.suite_series WHERE run_id = ?1",
            params![old, new],
        )?;
        if freq {
            tx.execute(
                "INSERT INTO frequency_samples (run_id, t_ns, policy, khz, replay_cpu)
                 SELECT ?2, t_ns, policy, khz, replay_cpu FROM src.frequency_samples WHERE run_id = ?1",
                params![old, new],
            )?;
        }
        runs.push((old, new));
    }
    Ok(runs)
}

/// Remove a store file and its WAL and shared-memory files; true when the store is gone.
pub(super) fn remove_store_files(path: &Path) -> bool {
    let gone = std::fs::remove_file(path).is_ok();
    for ext in ["-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_owned();
        p.push(ext);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    gone
}
