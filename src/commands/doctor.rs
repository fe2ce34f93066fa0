//! `pocketbench doctor`: print what the device offers and lacks for measurement (or `--json`),
//! and with `--restore` put back cpufreq files an interrupted run left changed.

use crate::error::Result;
use crate::platform::cpufreq::restore;
use crate::platform::doctor::{self, Status};
use crate::platform::sysfs::sysfs_root;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Results store whose directory is checked for O_DIRECT.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Data directory to check (default: the temporary directory runs use).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Restore cpufreq files left changed by a run that was killed (SIGKILL, power loss).
    #[arg(long)]
    pub restore: bool,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn main(args: &DoctorArgs) -> Result<i32> {
    if args.restore {
        match restore::restore_leftover(&sysfs_root()) {
            Some(msg) => eprintln!("pocketbench: {msg}"),
            None => eprintln!("pocketbench: nothing to restore"),
        }
    }
    crate::platform::stale::sweep_and_say();
    let report = doctor::survey(&doctor::Options {
        results: args.results.clone(),
        data_dir: args.dir.clone().unwrap_or_else(std::env::temp_dir),
    });
    if args.json {
        super::print_json(&report)?;
        return Ok(0);
    }
    println!(
        "{} doctor — what this device offers for measurement (sysfs root {})\n",
        crate::TOOL_VERSION,
        report.sysfs_root.display()
    );
    for c in &report.checks {
        let tag = match c.status {
            Status::Ok => "ok",
            Status::Limited => "LIMITED",
            Status::Missing => "MISSING",
        };
        println!("{tag:<8} {:<19} {}", c.area, c.found);
        println!("{:<28} → {}", "", c.meaning);
    }
    let missing = report
        .checks
        .iter()
        .filter(|c| c.status == Status::Missing)
        .count();
    println!(
        "\n{} of {} checks ok or usable; {missing} missing. Runs still work without them: results \
         record what was observed instead of controlled, and null (with the reason) for what could \
         not be measured.",
        report.checks.len() - missing,
        report.checks.len()
    );
    Ok(0)
}
