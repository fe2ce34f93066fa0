//! `pocketbench trace gen`, `trace show`, `trace import`, `trace stats` and `trace pull`.

use crate::error::Result;
use crate::run::args::WorkloadArgs;
use crate::workload::delay::{self, DelayModel};
use crate::workload::import::anonymize::{Anonymizer, Scope};
use crate::workload::import::convert::{ArgsMode, Dangling, Rules};
use crate::workload::import::pipeline::{self, ImportRequest};
use crate::workload::import::stats::file as stats_file;
use crate::workload::{resolve, trace};
use clap::Subcommand;
use serde::Serialize;
use std::path::Path;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Write a workload as a trace file.
    #[command(
        after_help = "Examples:\n  pocketbench trace gen -o c.pbt\n  pocketbench trace gen --workload ycsb-a --ops 10000000 --delay zero -o big.pbt\n  pocketbench trace gen --workload docs/examples/workload_ia_log.json -o ia.pbt"
    )]
    Gen {
        #[command(flatten)]
        workload: WorkloadArgs,
        /// Output file.
        #[arg(long, short = 'o')]
        output: PathBuf,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Import an app's statement log as a replayable trace (docs/import.md).
    #[command(
        after_help = "Examples:\n  pocketbench capture -o app.jsonl -- python3 docs/examples/app.py\n  pocketbench trace import app.jsonl -o app.pbt\n  pocketbench trace import --format jsonl --args inline --merge-connections app.jsonl -o app-v1.pbt"
    )]
    Import(ImportArgs),
    /// Statistics of a trace or a log: source and drops, statement mix, reads and writes,
    /// transactions, top statements, arrivals, connections, durations, replay time.
    #[command(
        after_help = "Examples:\n  pocketbench trace stats app.pbt\n  pocketbench trace stats docs/examples/notes.logcat --json\n  pocketbench trace stats app.pbt --run 1 --results app-runs.db"
    )]
    Stats {
        /// A trace, or a log (read through its front end).
        file: PathBuf,
        /// The log's format when FILE is a log (auto: detected).
        #[arg(long, default_value = "auto", value_parser = log_formats())]
        format: String,
        /// Instead: each statement shape's original durations (as the log timed them) beside
        /// those of this run's replay of the trace (a run id in --results).
        #[arg(long)]
        run: Option<i64>,
        /// Results store holding --run.
        #[arg(long, default_value = "pocketbench.db", requires = "run")]
        results: PathBuf,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Fetch a published trace from a results server into the cache (its SHA-256 checked, read
    /// whole before it is kept) and print where it is; `run --trace ADDRESS` does this itself.
    #[command(
        after_help = "Examples:\n  pocketbench trace pull http://lab:8080/traces/bcbda8bb12d6cc198b2f9b49dbc678c034aad52998700eff22fad0a6dbaf1308\n  pocketbench trace pull http://lab:8080/traces/bcbda8bb12d6cc198b2f9b49dbc678c034aad52998700eff22fad0a6dbaf1308 -o app.pbt\n\nThe address is the one `submit --trace` prints; docs/server.md publishes a trace and pulls it back."
    )]
    Pull {
        /// The trace's address: http[s]://SERVER/traces/SHA256 (its page on the server).
        address: String,
        /// Also copy it to this file.
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
        /// API token, for a --private server (also: POCKETBENCH_TOKEN).
        #[arg(long, env = "POCKETBENCH_TOKEN", hide_env_values = true)]
        token: Option<String>,
    },
    /// Print a trace: header, totals, operation mix, delays, first operations.
    #[command(
        after_help = "Examples:\n  pocketbench trace show c.pbt\n  pocketbench trace show c.pbt --limit 20 --json"
    )]
    Show {
        /// Trace file to print.
        file: PathBuf,
        /// Operations of each phase to print.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print the output as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// `auto` and every front end's name (crate::workload::import::formats), for `--format`'s list.
fn log_formats() -> clap::builder::PossibleValuesParser {
    let names = crate::workload::import::formats::FRONT_ENDS
        .iter()
        .map(|f| f.name);
    clap::builder::PossibleValuesParser::new(std::iter::once("auto").chain(names))
}

/// `trace import`'s flags.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The statement log to import.
    file: PathBuf,
    /// Output trace.
    #[arg(long, short = 'o', required_unless_present = "all_dbs")]
    output: Option<PathBuf>,
    /// One trace per database the log names, written into this directory (NAME.pbt).
    #[arg(long, conflicts_with_all = ["output", "db"])]
    all_dbs: Option<PathBuf>,
    /// Log format: auto (detect from the first lines), or one front end.
    #[arg(long, default_value = "auto", value_parser = log_formats())]
    format: String,
    /// Arguments as typed bound values (trace version 2) or written into the SQL as literals.
    #[arg(long, value_enum, default_value = "bind")]
    args: ArgsMode,
    /// A transaction cut by the window or the end of the log: commit, roll back or drop it.
    #[arg(long, value_enum, default_value = "commit")]
    dangling: Dangling,
    /// The database to import (as the log names it); default: the busiest.
    #[arg(long)]
    db: Option<String>,
    /// Replay every statement on one connection, in start order.
    #[arg(long)]
    merge_connections: bool,
    /// Keep statements starting in FROM..TO after the log's first statement (e.g. 10s..70s).
    #[arg(long)]
    window: Option<String>,
    /// Cut every gap between two statements' starts above this (e.g. 5s).
    #[arg(long)]
    max_gap: Option<String>,
    /// Replay this many times faster (offsets, delays and durations divided by it).
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// The schema as a .sql file, created in the load phase.
    #[arg(long, conflicts_with = "schema_from")]
    schema: Option<PathBuf>,
    /// The schema of an app's SQLite database file.
    #[arg(long)]
    schema_from: Option<PathBuf>,
    /// With no schema given: infer tables, columns and affinities from the statements and
    /// synthesise rows from the values they use (the header says the schema is inferred).
    #[arg(long, conflicts_with_all = ["schema", "schema_from"])]
    infer_schema: bool,
    /// Load every row of an app's SQLite database file in the load phase.
    #[arg(long)]
    data_from: Option<PathBuf>,
    /// Run the trace once on an in-memory SQLite and list what fails.
    #[arg(long)]
    check: bool,
    /// With --check: leave out the statements that failed.
    #[arg(long, requires = "check")]
    drop_failing: bool,
    /// Replace values by keyed hashes keeping equality, length and type:
    /// `literals[,integers,identifiers,paths]`; integers, the schema's literals and PRAGMAs
    /// are kept unless `integers` is named (see docs/import.md).
    #[arg(long, value_name = "PARTS", requires = "salt")]
    anonymize: Option<String>,
    /// The key of --anonymize (never stored; the same salt maps the same values alike).
    #[arg(long, requires = "anonymize")]
    salt: Option<String>,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn main(cmd: &TraceCommand) -> Result<i32> {
    match cmd {
        TraceCommand::Import(a) => import(a),
        TraceCommand::Stats {
            file,
            run: Some(run),
            results,
            json,
            ..
        } => {
            let store = super::results::existing(results)?;
            let b = crate::report::original::beside(file, &store, *run)?;
            if *json {
                super::print_json(&b)?;
            } else {
                print!("{}", crate::report::original::render(&b));
            }
            Ok(0)
        }
        TraceCommand::Stats {
            file, format, json, ..
        } => {
            let stats = stats_file::of_file(file, format)?;
            if *json {
                super::print_json(&stats)?;
            } else {
                print!("{}", stats_file::render(&stats));
            }
            Ok(0)
        }
        TraceCommand::Gen {
            workload,
            output,
            json,
        } => generate(workload, output, *json),
        TraceCommand::Pull {
            address,
            output,
            token,
        } => {
            let (cached, _) = crate::fleet::traces::pull(address, token.as_deref(), "trace pull")?;
            match output {
                Some(out) => {
                    crate::platform::atomic_file::AtomicFile::deliver(&cached, out).map_err(
                        |e| crate::error::Error::input(format!("-o {}: {e}", out.display())),
                    )?;
                    println!("{}", out.display());
                }
                None => println!("{}", cached.display()),
            }
            Ok(0)
        }
        TraceCommand::Show { file, limit, json } => {
            let overview = trace::show::overview(file, *limit)?;
            if *json {
                super::print_json(&overview)?;
            } else {
                print!("{}", trace::show::render(&overview));
            }
            Ok(0)
        }
    }
}

#[derive(Serialize)]
struct Generated<'a> {
    file: &'a Path,
    workload: String,
    delay: String,
    seed: u64,
    load_ops: u64,
    run_ops: u64,
    total_delay_ns: u64,
    digest: String,
    bytes: u64,
    elapsed_ns: u64,
}

fn generate(args: &WorkloadArgs, output: &Path, json: bool) -> Result<i32> {
    crate::output::target::check(output, "-o")?;
    let workload = resolve::resolve(&args.workload, &args.overrides()?, args.seed)?;
    let delay = match args.delay()? {
        Some(d) => d,
        None if workload.info.recorded_delays => DelayModel::Recorded,
        None => DelayModel::parse(
            workload
                .info
                .params
                .get("delay")
                .map(String::as_str)
                .unwrap_or(delay::DEFAULT),
        )?,
    };
    let name = workload.info.name.clone();
    let t0 = crate::platform::clock::mono_ns();
    let (totals, bytes) = trace::generate(workload, &delay, args.seed, output)?;
    let elapsed_ns = crate::platform::clock::mono_ns() - t0;
    let g = Generated {
        file: output,
        workload: name,
        delay: delay.to_string(),
        seed: args.seed,
        load_ops: totals.load_ops,
        run_ops: totals.run_ops,
        total_delay_ns: totals.total_delay_ns,
        digest: totals.digest_hex(),
        bytes,
        elapsed_ns,
    };
    if json {
        super::print_json(&g)?;
    } else {
        let rate = (g.load_ops + g.run_ops) as f64 / (elapsed_ns.max(1) as f64 / 1e9);
        println!(
            "wrote {}: {} ({} load + {} run ops, delay {}, seed {}), {} bytes, digest {}, {:.2} M ops/s",
            output.display(),
            g.workload,
            g.load_ops,
            g.run_ops,
            g.delay,
            g.seed,
            g.bytes,
            g.digest,
            rate / 1e6
        );
    }
    Ok(0)
}

fn import(a: &ImportArgs) -> Result<i32> {
    use crate::output::units::parse_duration;
    if !crate::workload::import::AVAILABLE {
        return Err(crate::workload::import::unavailable("trace import"));
    }
    if let Some(output) = &a.output {
        crate::output::target::check(output, "-o")?;
    }
    if let Some(dir) = &a.all_dbs {
        crate::output::folder::check(dir, "--all-dbs")?;
    }
    let window = match &a.window {
        None => None,
        Some(w) => {
            let (from, to) = w.split_once("..").ok_or_else(|| {
                crate::error::Error::input(format!(
                    "--window {}: expected FROM..TO (e.g. 10s..70s)",
                    crate::limits::escape(w)
                ))
            })?;
            let (from, to) = (
                parse_duration(from, "--window")?,
                parse_duration(to, "--window")?,
            );
            if to <= from {
                return Err(crate::error::Error::input(format!(
                    "--window {}: TO must be after FROM",
                    crate::limits::escape(w)
                )));
            }
            Some((from, to))
        }
    };
    let req = ImportRequest {
        input: a.file.clone(),
        output: a.output.clone().unwrap_or_default(),
        format: a.format.clone(),
        db: a.db.clone(),
        rules: Rules {
            args: a.args,
            dangling: a.dangling,
            merge_connections: a.merge_connections,
            window,
            max_gap_ns: a
                .max_gap
                .as_deref()
                .map(|g| parse_duration(g, "--max-gap"))
                .transpose()?,
            speed: a.speed,
        },
        schema_file: a.schema.clone(),
        schema_from: a.schema_from.clone(),
        data_from: a.data_from.clone(),
        check: a.check,
        drop_failing: a.drop_failing,
        infer_schema: a.infer_schema,
        anonymize: match (&a.anonymize, &a.salt) {
            (Some(parts), Some(salt)) => Some(Anonymizer::new(salt, Scope::parse(parts)?)),
            _ => None,
        },
    };
    let mut memory = if a.check {
        Some(crate::engine::sqlite::session::MemoryDb::open()?)
    } else {
        None
    };
    let check = memory.as_mut();
    let reports = match &a.all_dbs {
        Some(dir) => pipeline::import_all(&req, dir, check)?,
        None => vec![pipeline::import(&req, check)?],
    };
    let reports: Vec<_> = reports
        .into_iter()
        .map(|mut r| {
            r.engine_options = crate::engine::sqlite::options::from_settings(&r.settings);
            r
        })
        .collect();
    if a.json {
        match &reports[..] {
            [one] if a.all_dbs.is_none() => super::print_json(one)?,
            all => super::print_json(&all)?,
        }
        return Ok(0);
    }
    for r in &reports {
        print_import(r, a.check)?;
    }
    Ok(0)
}

fn print_import(r: &pipeline::ImportReport, check: bool) -> Result<()> {
    println!(
        "wrote {}: {} log lines as {} ({} skipped), database {}, {} load + {} run statements on {} connection(s), schema: {}, format v{}, digest {}",
        r.file.display(),
        r.lines,
        r.format,
        r.skipped_lines,
        crate::limits::escape(&r.db),
        r.load_ops,
        r.run_ops,
        r.connections,
        r.schema,
        r.version,
        r.digest
    );
    for t in &r.inferred {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|(c, a)| {
                format!("{} {a}", crate::limits::escape(c))
                    .trim_end()
                    .to_string()
            })
            .collect();
        println!(
            "inferred table {}({}), {} row(s) synthesised",
            crate::limits::escape(&t.table),
            cols.join(", "),
            t.rows
        );
    }
    if r.schema == "none" && !r.log_creates_tables {
        println!(
            "no schema: none given and the log creates no table; give --schema FILE.sql or --schema-from app.db, or guess one with --infer-schema"
        );
    }
    for (db, n) in &r.other_dbs {
        println!(
            "other database {} ({n} statements): --db to import it",
            crate::limits::escape(db)
        );
    }
    for (why, n) in &r.dropped {
        println!("dropped {n}: {why}");
    }
    if !r.settings.is_empty() {
        let s: Vec<String> = r.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("the app set {} (not replayed)", s.join(", "));
        println!(
            "as the app ran: pocketbench run --trace {} {}",
            r.file.display(),
            r.engine_options.join(" ")
        );
    }
    if check {
        println!(
            "check: {} statement(s) failed on an in-memory SQLite",
            r.check_failed
        );
        for m in &r.check_failures {
            println!("  {m}");
        }
    }
    if let Some(stats) = &r.stats {
        println!();
        print!("{}", stats_file::render(stats));
    }
    Ok(())
}
