//! Bringing a job's results home: its results store (and WAL, if the command died before
//! checkpointing) is pulled into a temporary directory, merged into the local store with the
//! device's identity (`results::device_jobs`), the files the command wrote brought home
//! ([`super::outputs`]), and only then is the job removed from the device.
//! When the local store cannot take it, the pulled copy is kept beside the store and the job
//! stays on the device, so nothing measured is lost either way.

use super::job::{self, End, Job};
use super::transport::{self, Transport};
use super::{probe, sh_quote};
use crate::error::{Error, Result, ResultExt};
use crate::limits::escape;
use crate::results::device_jobs::{self, Merged};
use crate::results::store::Store;
use std::path::Path;

/// A job found in the device's working directory.
#[derive(Debug)]
pub struct Found {
    pub job: Job,
    /// `None` while it runs.
    pub end: Option<End>,
}

/// Every job in `base/jobs` on the device, oldest first.
pub fn jobs(t: &dyn Transport, base: &str) -> Result<Vec<Found>> {
    let out = transport::must(
        t,
        "listing jobs",
        &format!(
            "cd {}/jobs 2>/dev/null || exit 0\nfor j in *; do [ -d \"$j\" ] || continue; printf '%s ' \"$j\"; ( {} ); done",
            sh_quote(base),
            job::state_script("$j").replace("'$j'", "\"$j\"")
        ),
    )?;
    let mut found = Vec::new();
    for line in out.lines().take(10_000) {
        let Some((id, state)) = line.split_once(' ') else {
            continue;
        };
        let Some(end) = job::parse_state(state) else {
            continue;
        };
        found.push(Found {
            job: Job {
                id: id.to_string(),
                dir: format!("{base}/jobs/{id}"),
            },
            end,
        });
    }
    Ok(found)
}

/// Pull, merge and remove a finished job. `None` when the command wrote no results store.
pub fn collect(t: &dyn Transport, job: &Job, store: &mut Store) -> Result<Option<Merged>> {
    let staging = crate::platform::cleanup::TempDir::new("pocketbench-pull-", None)
        .run_err("a temporary directory")?;
    let present = t.shell(&format!(
        "cd {} && for f in device.json results.db results.db-wal; do [ -f \"$f\" ] && echo \"$f\"; done",
        sh_quote(&job.dir)
    ))?;
    let files: Vec<&str> = present.stdout.lines().map(str::trim).collect();
    let device = if files.contains(&"device.json") {
        let local = staging.path().join("device.json");
        t.pull(&format!("{}/device.json", job.dir), &local)?;
        let text = crate::limits::read_text(&local, "device.json", 1 << 20)?;
        serde_json::from_str(&text).run_err(format!("job {}: device.json", job.id))?
    } else {
        serde_json::to_value(probe::probe(t)?).run_err("device identity")?
    };
    let merged = if files.contains(&"results.db") {
        for f in ["results.db", "results.db-wal"] {
            if files.contains(&f) {
                t.pull(&format!("{}/{f}", job.dir), &staging.path().join(f))?;
            }
        }
        let pulled = staging.path().join("results.db");
        match device_jobs::merge(store, &pulled, &job.id, &t.name(), &device) {
            Ok(m) => Some(m),
            Err(e) => return Err(keep_copy(e, &pulled, store.path(), t, job)),
        }
    } else {
        None
    };
    match super::outputs::pull(t, &job.dir, staging.path()) {
        Ok(files) => {
            for f in files {
                println!("{}: job {}: wrote {}", t.name(), job.id, f.display());
            }
        }
        Err(e) => {
            return Err(Error::failed(format!(
                "{}: job {}: bringing its output files home: {e}; the job stays on the device (`{}` retries)",
                t.name(),
                job.id,
                super::pull_command(t, store.path())
            )))
        }
    }
    let removed = t.shell(&format!("rm -rf {}", sh_quote(&job.dir)));
    if !matches!(removed, Ok(ref sh) if sh.rc == 0) {
        eprintln!(
            "{}: job {} is merged but its directory {} could not be removed; pulling it again will not store it twice",
            t.name(),
            job.id,
            escape(&job.dir)
        );
    }
    Ok(merged)
}

/// The local store refused the pulled results: keep the pulled store beside it and leave the
/// job on the device.
fn keep_copy(e: Error, pulled: &Path, store: &Path, t: &dyn Transport, job: &Job) -> Error {
    let keep = crate::results::spool::path_for(store);
    let kept = std::fs::copy(pulled, &keep).is_ok();
    let wal = pulled.with_file_name("results.db-wal");
    if kept && wal.exists() {
        let mut w = keep.clone().into_os_string();
        w.push("-wal");
        let _ = std::fs::copy(&wal, w);
    }
    let copy = if kept {
        format!(
            "a copy is in {k} (`pocketbench results import {k} --results {s}`)",
            k = keep.display(),
            s = store.display()
        )
    } else {
        "no local copy could be kept".to_string()
    };
    Error::failed(format!(
        "{e}; the results stay on {} in job {} (`{}` retries); {copy}",
        t.name(),
        job.id,
        super::pull_command(t, store)
    ))
}
