//! The `pocketbench run` flags as a study sees them, read from the clap definition of
//! [`RunArgs`] itself: which names are axes, which are switches or repeatable, and parsing a
//! cell's argument list into the very `RunArgs` that `pocketbench run` would get. A flag added
//! to `run` is an axis from then on, with nothing to change here.

use crate::run::args::RunArgs;
use clap::{ArgAction, Args, Parser};
use std::sync::OnceLock;

/// One long flag of `run`.
#[derive(Clone, Debug)]
pub struct Flag {
    pub long: String,
    /// Takes no value (`--warm`).
    pub switch: bool,
    /// May be given several times (`-o a=b -o c=d`).
    pub repeatable: bool,
}

/// Flags a plan may not set, and why.
const NOT_IN_A_PLAN: &[(&str, &str)] = &[
    (
        "results",
        "set `results` at the top of the plan, or pass --results to matrix",
    ),
    ("json", "matrix prints its own output"),
    ("quiet", "pass --quiet to matrix"),
    (
        "raw",
        "every cell's samples are in the results store (export them with `pocketbench report`)",
    ),
    ("dir", "every cell needs a fresh database directory"),
    ("help", "not a run setting"),
];

pub struct RunFlags {
    flags: Vec<Flag>,
}

#[derive(Parser, Debug)]
#[command(name = "run", no_binary_name = true, disable_help_flag = true)]
struct CellCommand {
    #[command(flatten)]
    run: RunArgs,
}

impl RunFlags {
    /// The flags of this build's `run` command.
    pub fn get() -> &'static RunFlags {
        static FLAGS: OnceLock<RunFlags> = OnceLock::new();
        FLAGS.get_or_init(|| {
            let cmd = RunArgs::augment_args(clap::Command::new("run"));
            let flags = cmd
                .get_arguments()
                .filter_map(|a| {
                    Some(Flag {
                        long: a.get_long()?.to_string(),
                        switch: matches!(a.get_action(), ArgAction::SetTrue | ArgAction::SetFalse),
                        repeatable: matches!(a.get_action(), ArgAction::Append),
                    })
                })
                .collect();
            RunFlags { flags }
        })
    }

    /// Does this build's `run` have `--long`?
    pub fn has(&self, long: &str) -> bool {
        self.flags.iter().any(|f| f.long == long)
    }

    /// The flag an axis or `[run]` key names (`field_count` and `field-count` both work).
    pub fn find(&self, name: &str) -> Result<&Flag, String> {
        let long = name.trim_start_matches("--").replace('_', "-");
        if let Some((_, why)) = NOT_IN_A_PLAN.iter().find(|(f, _)| *f == long) {
            return Err(format!("--{long} cannot be set in a plan: {why}"));
        }
        self.flags.iter().find(|f| f.long == long).ok_or_else(|| {
            format!(
                "unknown axis '{name}': not a `pocketbench run` flag (flags: {}); an axis of raw arguments needs values like {{ label = \"...\", args = [...] }}",
                self.names().join(", ")
            )
        })
    }

    /// Check raw arguments (`{ args = [...] }`) for flags a plan may not set.
    pub fn check_raw(&self, args: &[String]) -> Result<(), String> {
        for a in args.iter().filter(|a| a.starts_with("--")) {
            let long = a.trim_start_matches("--");
            let long = long.split_once('=').map_or(long, |(l, _)| l);
            self.find(long)?;
        }
        Ok(())
    }

    fn names(&self) -> Vec<&str> {
        self.flags
            .iter()
            .map(|f| f.long.as_str())
            .filter(|l| !NOT_IN_A_PLAN.iter().any(|(n, _)| n == l))
            .collect()
    }
}

/// Parse a cell's arguments exactly as `pocketbench run ARGS...` would. The error is clap's
/// first line (e.g. `unexpected argument '--bogus' found`).
pub fn parse(args: &[String]) -> Result<RunArgs, String> {
    CellCommand::try_parse_from(args)
        .map(|c| c.run)
        .map_err(|e| {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            first.trim_start_matches("error: ").to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_run_flags_and_their_shapes() {
        let f = RunFlags::get();
        assert!(f.find("workload").is_ok());
        assert!(f.find("field_count").is_ok());
        assert!(f.find("warm").unwrap().switch);
        assert!(f.find("option").unwrap().repeatable);
        assert!(f
            .find("results")
            .unwrap_err()
            .contains("cannot be set in a plan"));
        assert!(f
            .find("bogus")
            .unwrap_err()
            .contains("unknown axis 'bogus'"));
    }

    #[test]
    fn parses_cell_arguments_like_run() {
        let args: Vec<String> = ["--workload", "ycsb-a", "-o", "synchronous=off", "--warm"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let run = parse(&args).unwrap();
        assert_eq!(run.workload.workload, "ycsb-a");
        assert_eq!(run.options, vec!["synchronous=off"]);
        assert!(run.warm);
        let bad = parse(&["--bogus".to_string()]).unwrap_err();
        assert!(bad.contains("--bogus"), "{bad}");
    }
}
