//! The scratch directory of the child-process models (process crash, the recorded power-loss
//! models, and their trace workloads): where the starting database and the workload's copy of
//! it live, how a directory is copied, and how a recovered database is read back in one
//! transaction.

use crate::engine::{Engine, Request};
use crate::error::{Result, ResultExt};
use crate::workload::op::Op;
use std::path::Path;

/// The starting database's directory in the scratch directory.
pub(crate) const BASE: &str = "base";
/// The workload's copy of it.
pub(crate) const WORK: &str = "work";

/// Copy directory `from` as `to` (emptied first).
pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).run_err(format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).run_err(format!("reading {}", from.display()))? {
        let entry = entry.run_err("reading a directory")?;
        let target = to.join(entry.file_name());
        if entry.file_type().run_err("reading a directory")?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .run_err(format!("copying {}", target.display()))?;
        }
    }
    Ok(())
}

/// Run `f` in one read transaction where the engine takes SQL (SQLite; the key-value engines
/// refuse the `BEGIN` and run `f` as it is): one snapshot for the whole read-back, and the
/// shared lock taken once instead of at every read, which was a sixth of a check's time.
pub(crate) fn in_one_read<T>(e: &mut dyn Engine, f: impl FnOnce(&mut dyn Engine) -> T) -> T {
    let begun = sql(e, "BEGIN");
    let out = f(e);
    if begun {
        sql(e, "COMMIT");
    }
    out
}

/// Execute one SQL statement; whether it succeeded.
fn sql(e: &mut dyn Engine, text: &str) -> bool {
    let op = Op::Sql { sql: text.into() };
    e.execute(&Request {
        op: &op,
        key: &[],
        values: &[],
        keep_read: false,
    })
    .is_ok()
}
