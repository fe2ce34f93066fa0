//! `pocketbench flash replay | validate | presets`: run the flash model on a saved I/O trace,
//! compare it with analytic write amplification, list the presets.

use crate::engine::io::trace;
use crate::error::{Error, Result};
use crate::flash::config::{split_pair, ModelConfig, VictimPolicy, KEYS, PRESETS};
use crate::flash::{analytic, report};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// The presets' names with their descriptions, for `--preset`'s help and completion.
fn preset_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::flash::config::PRESETS
            .iter()
            .map(|(name, what)| clap::builder::PossibleValue::new(*name).help(*what)),
    )
}

/// The model options every flash-aware command takes.
#[derive(Args, Debug, Clone)]
pub struct FlashModelArgs {
    /// Flash preset (see `pocketbench flash presets`).
    #[arg(long, default_value = "slc-2k", value_parser = preset_names())]
    pub preset: String,
    /// Model option KEY=VALUE (repeatable): page_size, pages_per_block, read_us, program_us,
    /// erase_us, capacity_mib, op, gc, gc_threshold, write_buffer, precondition, fill, frag, seed.
    #[arg(long = "flash", value_name = "KEY=VALUE")]
    pub flash: Vec<String>,
}

impl FlashModelArgs {
    pub fn pairs(&self) -> Result<Vec<(String, String)>> {
        self.flash
            .iter()
            .map(|p| split_pair(p, "--flash"))
            .collect()
    }

    pub fn config(&self) -> Result<ModelConfig> {
        let pairs = self.pairs()?;
        let flag = if self.flash.is_empty() {
            "--preset"
        } else {
            "--flash"
        };
        ModelConfig::build(&self.preset, &pairs, flag)
    }
}

#[derive(Subcommand, Debug)]
pub enum FlashCommand {
    /// Run the flash model on a trace saved by `run --flash-trace FILE`.
    #[command(
        after_help = "Examples:\n  pocketbench flash replay run.pbft\n  pocketbench flash replay run.pbft --preset mlc-4k --flash op=0.28 --flash gc=cost-benefit\n  pocketbench flash replay run.pbft --flash precondition=fresh --json"
    )]
    Replay {
        /// Flash I/O trace file (from `run --flash-trace`).
        file: PathBuf,
        #[command(flatten)]
        model: FlashModelArgs,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Compare the model's write amplification under uniform random writes with the analytic
    /// models (Lambert-W form of Xiang & Kurkoski / Desnoyers; Agarwal & Marrow's (1+ρ)/2ρ).
    #[command(
        after_help = "Examples:\n  pocketbench flash validate\n  pocketbench flash validate --op 0.07,0.28 --gc greedy,fifo,cost-benefit --flash capacity_mib=128"
    )]
    Validate {
        /// Over-provisioning ratios to simulate.
        #[arg(long, value_delimiter = ',', default_value = "0.07,0.15,0.28,0.5")]
        op: Vec<f64>,
        /// Victim policies to simulate.
        #[arg(long, value_delimiter = ',', default_value = "greedy,fifo")]
        gc: Vec<String>,
        #[command(flatten)]
        model: FlashModelArgs,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the presets and model options.
    #[command(
        after_help = "Examples:\n  pocketbench flash presets\n  pocketbench flash presets --json"
    )]
    Presets {
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn main(cmd: &FlashCommand) -> Result<i32> {
    match cmd {
        FlashCommand::Replay { file, model, json } => {
            let cfg = model.config()?;
            let t = trace::read(file)?;
            let r = crate::flash::replay(&cfg, &t.records, "--flash", |_, _| {})?;
            if *json {
                super::print_json(&r)?;
            } else {
                println!("trace      {}: {}", file.display(), t.info.engine);
                print!("{}", report::render(&r));
            }
        }
        FlashCommand::Validate {
            op,
            gc,
            model,
            json,
        } => {
            let policies = gc
                .iter()
                .map(|g| {
                    VictimPolicy::parse(g).ok_or_else(|| {
                        Error::input(format!("--gc {g}: expected greedy, cost-benefit or fifo"))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let configs = op
                .iter()
                .map(|o| {
                    let mut pairs = model.pairs()?;
                    pairs.push(("op".into(), o.to_string()));
                    pairs.push(("precondition".into(), "fresh".into()));
                    ModelConfig::build(&model.preset, &pairs, "--op")
                })
                .collect::<Result<Vec<_>>>()?;
            let rows = analytic::table(&configs, &policies);
            if *json {
                super::print_json(&rows)?;
            } else {
                print!("{}", report::render_validation(&rows));
            }
        }
        FlashCommand::Presets { json } => {
            if *json {
                let presets: Vec<ModelConfig> = PRESETS
                    .iter()
                    .map(|(n, _)| ModelConfig::preset(n))
                    .collect::<Result<_>>()?;
                super::print_json(&serde_json::json!({ "presets": presets, "keys": KEYS }))?;
            } else {
                for (name, about) in PRESETS {
                    println!("{name:<10} {about}");
                }
                println!(
                    "\nmodel options (--flash KEY=VALUE, or run --flash-model PRESET,KEY=VALUE…):"
                );
                for (k, about) in KEYS {
                    println!("  {k:<16} {about}");
                }
            }
        }
    }
    Ok(0)
}
