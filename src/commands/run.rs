//! `pocketbench run`.

use crate::cli::RunArgs;
use crate::engine::options::parse_pair;
use crate::error::{Error, Result};
use crate::flash::config::ModelConfig;
use crate::flash::run_hook::FlashRequest;
use crate::report::{progress, run_summary};
use crate::results::{self, store::Store};
use crate::run::{self, pacer::Pacing, RunRequest, WorkloadChoice};

pub fn main(args: &RunArgs) -> Result<i32> {
    progress::set_quiet(args.quiet || args.json);
    let request = request(args)?;
    let prepared = run::prepare(&request)?;
    // Open the store only now: bad input above never creates or touches it.
    let mut store = Store::open(&args.results)?;
    store.check_room(results::result_bytes_estimate(
        prepared.totals.run_ops,
        !args.no_samples,
    ))?;
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

pub fn request(args: &RunArgs) -> Result<RunRequest> {
    let pacing = Pacing::parse(&args.pacing)
        .ok_or_else(|| Error::input(format!("--pacing {}: expected think or open", args.pacing)))?;
    let options = args
        .options
        .iter()
        .map(|o| parse_pair(o))
        .collect::<Result<Vec<_>>>()?;
    let workload = match &args.trace {
        Some(path) => WorkloadChoice::Trace(path.clone()),
        None => WorkloadChoice::Spec {
            spec: args.workload.workload.clone(),
            overrides: super::overrides(&args.workload)?,
        },
    };
    if let Some(raw) = &args.raw {
        check_writable_parent(raw, "--raw")?;
    }
    Ok(RunRequest {
        workload,
        engine: args.engine.clone(),
        options,
        delay: super::delay(&args.workload)?,
        pacing,
        seed: args.workload.seed,
        warm: args.warm,
        drop_caches: args.drop_caches,
        data_dir: args.dir.clone(),
        measure_overhead: !args.no_overhead,
        platform: args.platform.request()?,
        flash: flash_request(args)?,
    })
}

fn flash_request(args: &RunArgs) -> Result<FlashRequest> {
    if let Some(t) = &args.flash_trace {
        check_writable_parent(t, "--flash-trace")?;
    }
    Ok(FlashRequest {
        trace_out: args.flash_trace.clone(),
        model: args
            .flash_model
            .as_deref()
            .map(|s| ModelConfig::parse_spec(s, "--flash-model"))
            .transpose()?,
    })
}

/// A file we will create later must have an existing directory to go in.
pub fn check_writable_parent(path: &std::path::Path, flag: &str) -> Result<()> {
    if path.is_dir() {
        return Err(Error::input(format!(
            "{flag} {}: is a directory, not a file",
            path.display()
        )));
    }
    let parent = crate::limits::dir_of(path);
    if parent.is_dir() {
        Ok(())
    } else {
        Err(Error::input(format!(
            "{flag} {}: directory {} does not exist",
            path.display(),
            parent.display()
        )))
    }
}
