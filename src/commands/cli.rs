//! The command line: the commands and their examples as users see them in `--help`; each
//! command's flags live beside its handler in this folder (`run`'s in `run::args` and
//! `durability`'s in `durability::args`, which study plans read too).

use super::{
    capture::CaptureArgs, compare::CompareArgs, device::DeviceCommand, diagnose::DiagnoseArgs,
    doctor::DoctorArgs, energy::EnergyCommand, engines::EnginesArgs, flash::FlashCommand,
    flashbench::FlashbenchArgs, matrix::MatrixArgs, report::ReportArgs, results::ResultsCommand,
    storage::StorageArgs, trace::TraceCommand,
};
use crate::durability::args::DurabilityArgs;
use crate::models::args::ModelsArgs;
use crate::run::args::RunArgs;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "pocketbench",
    version,
    about = "Benchmark embedded databases the way phones and boards use them: one client, bursts of queries, think time between them, measured per operation.",
    after_help = "Examples:\n  pocketbench run                                   PocketData default: ycsb-c, 500 records, 1800 ops, lognormal 6.67 ms think time, SQLite\n  pocketbench run --workload ycsb-a --delay zero    saturated YCSB A\n  pocketbench run --workload docs/examples/workload_ia_log.json   replay an original PocketData recording with its breaks\n  pocketbench trace gen --workload ycsb-b -o b.pbt  pre-generate a trace\n  pocketbench run --trace b.pbt -o synchronous=off  replay it\n  pocketbench results list"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Read and write sysfs (cpufreq, powercap, power_supply) under this directory instead of
    /// /sys (also: POCKETBENCH_SYSFS_ROOT); tests point it at a fake tree.
    #[arg(long, global = true, value_name = "DIR")]
    pub sysfs_root: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a workload on an engine and report per-operation measurements.
    #[command(
        after_help = "Examples:\n  pocketbench run\n  pocketbench run --workload ycsb-a --records 1000 --ops 10000 --delay fixed:1ms\n  pocketbench run --workload pocketdata-ia --index key --delay pocketdata-ramp\n  pocketbench run --workload docs/examples/workload.properties --pacing open --delay exponential:5ms\n  pocketbench run -o journal_mode=wal -o synchronous=normal --json\n  pocketbench run --trace b.pbt --warm --raw ops.csv\n  pocketbench run --governor powersave --background cpu:2:50%\n  pocketbench run --governor fixed:50% --energy battery"
    )]
    Run(RunArgs),
    /// Generate and inspect traces (pre-generated, replayable workloads).
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench trace gen --workload ycsb-b -o b.pbt\n  pocketbench trace show b.pbt"
    )]
    Trace(TraceCommand),
    /// Record the SQL a program runs through a shared libsqlite3, as a statement log.
    #[command(
        after_help = "Examples:\n  pocketbench capture -o app.jsonl -- python3 docs/examples/app.py\n  pocketbench trace import app.jsonl -o app.pbt\n  pocketbench run --trace app.pbt"
    )]
    Capture(CaptureArgs),
    /// Read back stored runs.
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench results list\n  pocketbench results show 1 --json"
    )]
    Results(ResultsCommand),
    /// Run a study plan: the cartesian product of its axes, repeated, resumable.
    #[command(
        after_help = "Examples:\n  pocketbench matrix docs/example-study.toml     a small plan to copy and edit; its runs go to study.db\n  pocketbench matrix docs/example-study.toml --resume          after Ctrl-C, kill -9 or power loss: run only what is missing\n  pocketbench matrix --plan pocketdata             A, B, C, E × {zero, lognormal} × governors × 3 repeats\n  pocketbench matrix --plan mdperf --dry-run       list the cells without running them\n  pocketbench matrix --plan engines                every engine × journal/sync settings × {zero, lognormal} on ycsb-a\n\nPlan format: docs/studies.md"
    )]
    Matrix(MatrixArgs),
    /// Compare two cells or result sets: is the difference significant, and how large is it.
    #[command(
        after_help = "A and B are each a results store file (all its runs) or a filter over --results:\n  key=value[,key=value...], alternatives with |, e.g. engine=sqlite,delay=zero or run=3-5.\n\nExamples:\n  pocketbench compare engine=null engine=sqlite --results study.db\n  pocketbench compare 'study=1,cell=1' 'study=1,cell=3' --results study.db\n  pocketbench compare study.db pocketbench.db --confidence 0.95   two stores, all the runs of each"
    )]
    Compare(CompareArgs),
    /// What should this app change? Indexes, settings, batching and statements proposed from
    /// its trace, each replayed against the app's own baseline; only gains whose interval
    /// excludes zero, with equal answers, are proposed.
    #[command(
        after_help = "Examples:\n  pocketbench advise app.pbt\n  pocketbench advise app.pbt --budget 2m --repeats 3 -o advice.sql\n  pocketbench advise app.pbt --set journal_mode=wal --try cache_size=-8000 --json\n\nThe method: docs/advise.md"
    )]
    Advise(super::advise::AdviseArgs),
    /// Write a report: one self-contained HTML file with SVG charts, the figures as PNG or SVG
    /// files, or the summary as Markdown or CSV.
    #[command(
        after_help = "Examples:\n  pocketbench report --results study.db -o report.html\n  pocketbench report --filter 'engine=sqlite,delay=zero|fixed:1ms' -o sqlite.html\n  pocketbench report --format png -o figures/\n  pocketbench report --format md -o summary.md\n\nHow to read each figure: docs/studies.md"
    )]
    Report(ReportArgs),
    /// List engines, their versions and options.
    #[command(after_help = "Examples:\n  pocketbench engines\n  pocketbench engines --json")]
    Engines(EnginesArgs),
    /// What this device offers and lacks for measurement, and what each means for results.
    #[command(
        after_help = "Examples:\n  pocketbench doctor\n  pocketbench doctor --json\n  pocketbench doctor --dir /data/local/tmp --results /sdcard/pb.db\n  pocketbench doctor --restore      restore cpufreq files left changed by a killed run"
    )]
    Doctor(DoctorArgs),
    /// Is my governor working? Compare governors on a workload and explain the difference.
    #[command(
        after_help = "Examples:\n  pocketbench diagnose\n  pocketbench diagnose --workload ycsb-a --governors performance,powersave,schedutil\n  pocketbench diagnose --trace b.pbt --background mixed\n  pocketbench diagnose --from-results all --results study.db"
    )]
    Diagnose(DiagnoseArgs),
    /// Energy measurements: import an external power meter's CSV into a stored run.
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench energy import 12 monsoon.csv --meter-start 1732233100.25\n  pocketbench energy import 12 usbmeter.csv --align start\n\nThe meter file's columns and alignment: docs/platform.md"
    )]
    Energy(EnergyCommand),
    /// The NAND flash model: replay a saved I/O trace, validate it, list presets.
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench run --flash-trace run.pbft --ops 200   save a run's I/O trace\n  pocketbench flash replay run.pbft --preset mlc-4k\n  pocketbench flash validate\n  pocketbench flash presets\n\nThe model and its file format: docs/flash.md"
    )]
    Flash(FlashCommand),
    /// Flash micro-benchmark: INSERT/SELECT/JOIN/UPDATE per record size and request count,
    /// timed per request, with modelled NAND flash reads, programs and erases.
    Flashbench(FlashbenchArgs),
    /// Which configurations lose acknowledged commits when the power fails: the workload is
    /// cut at I/O events, the database recovered and checked; speed and safety side by side.
    #[command(
        after_help = "Examples:\n  pocketbench durability\n  pocketbench durability --config journal_mode=wal --config synchronous=normal,full --crashes 500\n  pocketbench durability --torn --json\n  pocketbench durability --engine sqlite --config journal_mode=delete --config synchronous=off --replay-crash 1:37\n\nThe model and its limits: docs/durability.md"
    )]
    Durability(DurabilityArgs),
    /// The data-model study: one e-commerce schema and six tests on a relational, key-value,
    /// document and object store, from 10 to 100 000 tuples, answers cross-checked.
    #[command(
        after_help = "Examples:\n  pocketbench models\n  pocketbench models --tuples 10,100,1000 --engines sqlite,lmdb,lmdb+index,polodb,native_db\n  pocketbench models --tests 5,6 --budget 10s --csv models.csv\n  pocketbench models --list\n\nThe schema, the plans per engine and how to add one: docs/models.md"
    )]
    Models(ModelsArgs),
    /// Storage micro-benchmarks (AndroBench/Mobibench style): sequential and random file I/O
    /// by sync mode and thread count, SQLite transactions per second, calibration table.
    Storage(StorageArgs),
    /// Phones over adb and boards over ssh: list them, run any pocketbench command there,
    /// bring the results home.
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench device list\n  pocketbench device run -- run --ops 2000\n  pocketbench device pull\n\nWalkthrough: docs/device.md"
    )]
    Device(DeviceCommand),
    /// The results server: gathers results from many devices, ranks device models per
    /// category (3σ rule), explains them on a dashboard, hands study cells to agents.
    #[cfg(feature = "server")]
    #[command(
        after_help = "Examples:\n  pocketbench serve                                 SQLite file pocketbench-server.db, http://127.0.0.1:8080, until stopped\n  pocketbench serve --db postgres://pb@db.lab:5432/pocketbench --listen 0.0.0.0:8080\n  pocketbench serve token add lab-phone-1 --token pbt_example_lab_phone_1   a token of your own (without --token: a random one, printed)\n  pocketbench serve --plan docs/example-study.toml --class 'Pixel 7'\n\nDeployment, API, categories: docs/server.md"
    )]
    Serve(super::serve::ServeArgs),
    /// Send stored results (with this device's identity) to a results server.
    #[command(
        after_help = "Examples:\n  pocketbench submit --server http://127.0.0.1:8080 --token pbt_example_lab_phone_1 3 4\n  POCKETBENCH_TOKEN=pbt_example_lab_phone_1 pocketbench submit --server http://127.0.0.1:8080 --all-new\n\nThe token comes from `pocketbench serve token add NAME` on the server (--token or POCKETBENCH_TOKEN)."
    )]
    Submit(super::submit::SubmitArgs),
    /// Take study cells from a results server, run them on this device, submit the results.
    #[command(
        after_help = "Examples:\n  pocketbench agent --server http://127.0.0.1:8080 --token pbt_example_lab_phone_1   until stopped\n  pocketbench agent --server http://127.0.0.1:8080 --token pbt_example_lab_phone_1 --class 'Pixel 7' --exit-when-idle\n\nThe server's address from another machine: http://HOST:8080 (serve --listen 0.0.0.0:8080)."
    )]
    Agent(super::agent::AgentArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    #[cfg(feature = "completions")]
    #[command(
        after_help = "Examples:\n  pocketbench completions bash > pocketbench.bash      then move it into /etc/bash_completion.d/\n  pocketbench completions zsh > _pocketbench              then move _pocketbench into a directory of $fpath\n  pocketbench completions fish > pocketbench.fish      then move it into ~/.config/fish/completions/"
    )]
    Completions(super::completions::CompletionsArgs),
    /// Replay process (internal: started by `run`).
    #[command(name = "__replay", hide = true)]
    Replay { spec: PathBuf },
    /// Durability workload process (internal: started and killed by `durability`).
    #[command(name = "__durability-child", hide = true)]
    DurabilityChild(super::durability::ChildArgs),
}
