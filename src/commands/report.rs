//! `pocketbench report`: the study report as HTML, figure files, Markdown or CSV.

use crate::cli::ReportArgs;
use crate::error::{Error, Result};
use crate::report::output::{self, Format, Request};

pub fn main(args: &ReportArgs) -> Result<i32> {
    let format = Format::parse(&args.format)?;
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return Err(Error::input(format!(
            "--confidence {}: expected a level between 0 and 1, e.g. 0.90",
            args.confidence
        )));
    }
    let store = super::results::existing(&args.results)?;
    output::check_output(format, &args.output)?;
    let t0 = std::time::Instant::now();
    let written = output::write(&Request {
        store: &store,
        filter: args.filter.as_deref(),
        format,
        output: &args.output,
        level: args.confidence,
    })?;
    let what = if format.is_directory() {
        format!(
            "{} figures in {}",
            written.files.len(),
            args.output.display()
        )
    } else {
        args.output.display().to_string()
    };
    println!(
        "wrote {what}: {} runs in {} configurations, {} ms",
        written.runs,
        written.configurations,
        t0.elapsed().as_millis()
    );
    Ok(0)
}
