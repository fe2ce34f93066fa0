//! The stored per-operation samples the histogram exporters read, streamed run by run in the
//! order the operations started.

use crate::error::{Result, ResultExt};
use crate::results::store::Store;

/// Call `f(kind, start_ns, service_ns)` for every stored operation of run `id`, in start order.
pub fn each(store: &Store, id: i64, mut f: impl FnMut(&str, u64, u64)) -> Result<()> {
    let what = format!("{}: samples of run {id}", store.path().display());
    let mut stmt = store
        .conn()
        .prepare_cached(
            "SELECT kind, start_ns, end_ns FROM op_samples WHERE run_id = ?1 ORDER BY seq",
        )
        .run_err(&what)?;
    let mut rows = stmt.query([id]).run_err(&what)?;
    while let Some(row) = rows.next().run_err(&what)? {
        let kind: String = row.get(0).run_err(&what)?;
        let start: i64 = row.get(1).run_err(&what)?;
        let end: i64 = row.get(2).run_err(&what)?;
        f(
            &kind,
            start.max(0) as u64,
            end.saturating_sub(start).max(0) as u64,
        );
    }
    Ok(())
}
