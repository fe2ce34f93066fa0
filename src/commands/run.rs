//! `pocketbench run`.

use crate::error::Result;
use crate::output::progress;
use crate::report::run_summary;
use crate::results::{self, store::Store};
use crate::run::{self, args::RunArgs};

pub fn main(args: &RunArgs) -> Result<i32> {
    progress::set_quiet(args.quiet || args.json);
    let request = args.request()?;
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
