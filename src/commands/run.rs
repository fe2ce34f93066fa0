//! `pocketbench run`.

use crate::error::Result;
use crate::output::progress;
use crate::report::run_summary;
use crate::results::{self, store::Store};
use crate::run::{self, args::RunArgs};

pub fn main(args: &RunArgs) -> Result<i32> {
    progress::set_quiet(args.quiet || args.json);
    let fetched;
    let args = match shared_trace(args)? {
        Some(a) => {
            fetched = a;
            &fetched
        }
        None => args,
    };
    let request = args.request()?;
    // Work folders a killed run (kill -9) could not remove.
    crate::platform::stale::sweep_and_say();
    let prepared = run::prepare(&request)?;
    // Open the store only now: bad input above never creates or touches it.
    let mut store = Store::open_with_room(
        &args.results,
        results::result_bytes_estimate(prepared.totals.run_ops, !args.no_samples),
    )?;
    let output = run::execute(&request, prepared)?;
    let summary = results::record(&output, &mut store, args.raw.as_deref(), !args.no_samples)?;
    if args.json {
        super::print_json(&summary)?;
    } else {
        print!(
            "{}",
            run_summary::render(&summary, Some(&args.results.display().to_string()))
        );
    }
    if let Some(e) = &summary.first_error {
        eprintln!(
            "pocketbench: error: {} of {} operations failed; first: {e}",
            summary.errors, summary.ops
        );
        return Ok(1);
    }
    Ok(0)
}

/// `args` with a published trace's address (`--trace http://SERVER/traces/SHA256`) replaced by
/// the fetched file in the cache; None when `--trace` is not an address.
fn shared_trace(args: &RunArgs) -> Result<Option<RunArgs>> {
    let Some(url) = args.trace.as_deref().and_then(|t| t.to_str()) else {
        return Ok(None);
    };
    if !crate::fleet::traces::is_address(url) {
        return Ok(None);
    }
    let token = std::env::var("POCKETBENCH_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    let (path, now) = crate::fleet::traces::pull(url, token.as_deref(), "--trace")?;
    if now {
        progress::phase(&format!("fetched {url} into {}", path.display()));
    }
    let mut a = args.clone();
    a.trace = Some(path);
    Ok(Some(a))
}
