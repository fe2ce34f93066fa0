//! The flags a study's cells may set, read from the clap definition of the command the cells
//! are runs of ([`Suite`]): `pocketbench run` ([`RunArgs`]) or `pocketbench durability`
//! ([`DurabilityArgs`]). Which names are axes, which are switches or repeatable, and parsing a
//! cell's argument list into the very arguments the command would get. A flag added to either
//! command is an axis from then on, with nothing to change here.

use crate::durability::args::DurabilityArgs;
use crate::models::args::ModelsArgs;
use crate::run::args::RunArgs;
use clap::{ArgAction, Args, FromArgMatches};
use std::sync::OnceLock;

/// The command a plan's cells run (`suite = "…"` in a plan; `run` when absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Suite {
    /// `pocketbench run`: one measured run per cell.
    #[default]
    Run,
    /// `pocketbench durability`: speed and simulated power failures per cell.
    Durability,
    /// `pocketbench models`: the data-model study per cell.
    Models,
}

impl Suite {
    pub const NAMES: &'static [&'static str] = &["run", "durability", "models"];

    pub fn parse(name: &str) -> Option<Suite> {
        match name {
            "run" => Some(Suite::Run),
            "durability" => Some(Suite::Durability),
            "models" => Some(Suite::Models),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Suite::Run => "run",
            Suite::Durability => "durability",
            Suite::Models => "models",
        }
    }

    /// The flags of this build's command.
    pub fn flags(self) -> &'static CommandFlags {
        static RUN: OnceLock<CommandFlags> = OnceLock::new();
        static DURABILITY: OnceLock<CommandFlags> = OnceLock::new();
        static MODELS: OnceLock<CommandFlags> = OnceLock::new();
        match self {
            Suite::Run => RUN.get_or_init(|| CommandFlags::of::<RunArgs>(self, RUN_NOT_IN_A_PLAN)),
            Suite::Durability => DURABILITY
                .get_or_init(|| CommandFlags::of::<DurabilityArgs>(self, DURABILITY_NOT_IN_A_PLAN)),
            Suite::Models => {
                MODELS.get_or_init(|| CommandFlags::of::<ModelsArgs>(self, MODELS_NOT_IN_A_PLAN))
            }
        }
    }

    /// Check a cell's arguments as the command would parse them (clap's first line on error).
    pub fn check(self, args: &[String]) -> Result<(), String> {
        match self {
            Suite::Run => parse(args).map(|_| ()),
            Suite::Durability => parse_durability(args).map(|_| ()),
            Suite::Models => parse_models(args).map(|_| ()),
        }
    }
}

/// One long flag of the command.
#[derive(Clone, Debug)]
pub struct Flag {
    pub long: String,
    /// Takes no value (`--warm`).
    pub switch: bool,
    /// May be given several times (`-o a=b -o c=d`).
    pub repeatable: bool,
}

/// Flags of `run` a plan may not set, and why.
const RUN_NOT_IN_A_PLAN: &[(&str, &str)] = &[
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

/// Flags of `durability` a plan may not set, and why.
const DURABILITY_NOT_IN_A_PLAN: &[(&str, &str)] = &[
    (
        "results",
        "set `results` at the top of the plan, or pass --results to matrix",
    ),
    ("json", "matrix prints its own output"),
    ("quiet", "pass --quiet to matrix"),
    (
        "show",
        "a study runs; print a stored run with `durability --show ID`",
    ),
    (
        "replay-crash",
        "a replay is one crash point, not a study cell: run `durability --replay-crash` alone",
    ),
    ("help", "not a durability setting"),
];

/// Flags of `models` a plan may not set, and why.
const MODELS_NOT_IN_A_PLAN: &[(&str, &str)] = &[
    (
        "results",
        "set `results` at the top of the plan, or pass --results to matrix",
    ),
    ("json", "matrix prints its own output"),
    ("quiet", "pass --quiet to matrix"),
    (
        "show",
        "a study runs; print a stored run with `models --show ID`",
    ),
    ("list", "a study runs; `models --list` names the engines"),
    (
        "csv",
        "every cell is in the results store (`results show ID --json`)",
    ),
    ("help", "not a models setting"),
];

/// The flags of one command as a plan sees them.
pub struct CommandFlags {
    suite: Suite,
    flags: Vec<Flag>,
    not_in_a_plan: &'static [(&'static str, &'static str)],
}

impl CommandFlags {
    fn of<A: Args>(suite: Suite, not_in_a_plan: &'static [(&'static str, &'static str)]) -> Self {
        let cmd = A::augment_args(clap::Command::new(suite.name()));
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
        CommandFlags {
            suite,
            flags,
            not_in_a_plan,
        }
    }

    /// Does this build's command have `--long`?
    pub fn has(&self, long: &str) -> bool {
        self.flags.iter().any(|f| f.long == long)
    }

    /// The flag an axis or base-table key names (`field_count` and `field-count` both work).
    pub fn find(&self, name: &str) -> Result<&Flag, String> {
        let long = name.trim_start_matches("--").replace('_', "-");
        let cmd = self.suite.name();
        if let Some((_, why)) = self.not_in_a_plan.iter().find(|(f, _)| *f == long) {
            return Err(format!("--{long} cannot be set in a plan: {why}"));
        }
        self.flags.iter().find(|f| f.long == long).ok_or_else(|| {
            format!(
                "unknown axis '{name}': not a `pocketbench {cmd}` flag (flags: {}); an axis of raw arguments needs values like {{ label = \"...\", args = [...] }}",
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
            .filter(|l| !self.not_in_a_plan.iter().any(|(n, _)| n == l))
            .collect()
    }
}

/// Parse `args` as command `name` with flags `A` would; the error is clap's first line (e.g.
/// `unexpected argument '--bogus' found`).
fn parse_as<A: Args + FromArgMatches>(name: &'static str, args: &[String]) -> Result<A, String> {
    let cmd = A::augment_args(
        clap::Command::new(name)
            .no_binary_name(true)
            .disable_help_flag(true),
    );
    cmd.try_get_matches_from(args)
        .and_then(|m| A::from_arg_matches(&m))
        .map_err(|e| {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            first.trim_start_matches("error: ").to_string()
        })
}

/// Parse a cell's arguments exactly as `pocketbench run ARGS...` would.
pub fn parse(args: &[String]) -> Result<RunArgs, String> {
    parse_as("run", args)
}

/// Parse a cell's arguments exactly as `pocketbench models ARGS...` would.
pub fn parse_models(args: &[String]) -> Result<ModelsArgs, String> {
    parse_as("models", args)
}

/// Parse a cell's arguments exactly as `pocketbench durability ARGS...` would.
pub fn parse_durability(args: &[String]) -> Result<DurabilityArgs, String> {
    parse_as("durability", args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn knows_the_run_flags_and_their_shapes() {
        let f = Suite::Run.flags();
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
            .contains("unknown axis 'bogus': not a `pocketbench run` flag"));
    }

    #[test]
    fn knows_the_durability_flags() {
        let f = Suite::Durability.flags();
        assert!(f.find("engine").is_ok());
        assert!(f.find("config").unwrap().repeatable);
        assert!(f.find("torn").unwrap().switch);
        assert!(f
            .find("replay_crash")
            .unwrap_err()
            .contains("cannot be set in a plan"));
        assert!(f
            .find("records")
            .unwrap_err()
            .contains("not a `pocketbench durability` flag"));
    }

    #[test]
    fn parses_cell_arguments_like_the_command() {
        let run = parse(&strings(&[
            "--workload",
            "ycsb-a",
            "-o",
            "synchronous=off",
            "--warm",
        ]))
        .unwrap();
        assert_eq!(run.workload.workload, "ycsb-a");
        assert_eq!(run.options, vec!["synchronous=off"]);
        assert!(run.warm);
        let bad = parse(&strings(&["--bogus"])).unwrap_err();
        assert!(bad.contains("--bogus"), "{bad}");
        let d = parse_durability(&strings(&["--engine", "redb", "--crashes", "7"])).unwrap();
        assert_eq!(d.crashes, 7);
        assert!(Suite::Durability.check(&strings(&["--ops", "5"])).is_err());
    }
}
