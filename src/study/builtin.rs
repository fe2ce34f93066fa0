//! The built-in plans that reproduce the published studies: `pocketdata` (PocketData:
//! workloads A, B, C, E × {zero, lognormal} delay × governors × 3 repeats, 500 records,
//! 1 800 operations) and `mdperf` (the follow-up: 8 workloads × governors × {alone, loaded});
//! and `engines`, the engine comparison: every engine of this build under its journal/sync
//! settings × {zero, lognormal} delay on YCSB A; and `durability`, speed beside safety: every
//! engine of this build under simulated power loss (or a process crash), each over its own
//! sync settings (SQLite: journal mode × synchronous); and `binding`, native SQLite beside
//! SQLite through JDBC with the same settings.
//!
//! The governor and background-load axes exist only as far as this build and this machine
//! allow: an axis whose `run` flag does not exist, or whose knob cannot be turned here,
//! collapses to the single value it observes ("observed" governor, "alone"), with a notice
//! saying why. Nothing pretends to have set what it could not.

use super::flags::Suite;
use super::plan::{Axis, AxisValue, Plan};
use crate::error::{Error, Result};
use crate::platform::sysfs::sysfs_root;

pub const NAMES: &[&str] = &["pocketdata", "mdperf", "engines", "durability", "binding"];

const POCKETDATA: &str = r#"
name = "pocketdata"
repeats = 3
order = "fixed"
[run]
records = 500
ops = 1800
[axes]
workload = ["pocketdata-a", "pocketdata-b", "pocketdata-c", "pocketdata-e"]
delay = ["zero", "lognormal:6.67ms"]
"#;

/// MDPerf's eight workloads: the YCSB mixes A–F as SQL, and the two range-select mixes.
const MDPERF: &str = r#"
name = "mdperf"
repeats = 3
order = "fixed"
[run]
records = 500
ops = 1800
delay = "lognormal:6.67ms"
[axes]
workload = ["pocketdata-a", "pocketdata-b", "pocketdata-c", "pocketdata-d", "pocketdata-e",
            "pocketdata-f", "pocketdata-ib", "pocketdata-ic"]
"#;

/// The engine comparison: one workload, saturated and with think time; the `engine` axis
/// ([`engine_axis`]) is added in code because it depends on the engines built in.
const ENGINES: &str = r#"
name = "engines"
repeats = 3
order = "fixed"
[run]
workload = "ycsb-a"
records = 500
ops = 1800
[axes]
delay = ["zero", "lognormal:6.67ms"]
"#;

/// The cost of the managed-runtime binding: the same traces on the bundled SQLite and on SQLite
/// through JDBC in a JVM (cold, as an app starts, and warm), with identical SQLite settings —
/// rollback journal, `synchronous=FULL`, 4 KiB pages and `fsync`, the sync call sqlite-jdbc's
/// SQLite makes. The report's `per-kind` figure shows the difference for each operation kind.
const BINDING: &str = r#"
name = "binding"
repeats = 3
order = "fixed"
[run]
records = 500
ops = 1800
[axes]
workload = ["ycsb-a", "pocketdata-a"]
engine = [
    { label = "sqlite", args = ["--engine", "sqlite", "-o", "journal_mode=delete", "-o", "synchronous=full", "-o", "page_size=4096", "-o", "sync_call=fsync"] },
    { label = "sqlite-jdbc", args = ["--engine", "sqlite-jdbc", "-o", "journal_mode=delete", "-o", "synchronous=full", "-o", "page_size=4096"] },
]
jvm_mode = ["cold", "warm"]
[[exclude]]
engine = "sqlite"
jvm_mode = "warm"
"#;

/// Speed and safety: one `durability` run per engine (each sweeps its own sync settings); the
/// `engine` axis ([`durability_engine_axis`]) is added in code.
const DURABILITY: &str = r#"
name = "durability"
suite = "durability"
repeats = 1
order = "fixed"
[durability]
crashes = 200
[axes]
# Replaced by the engines of this build (durability_engine_axis).
engine = ["sqlite"]
"#;

/// The engines `pocketbench durability` can test, in the order the study runs them.
const DURABILITY_ENGINES: &[&str] = &["sqlite", "redb", "lmdb", "rocksdb", "leveldb", "berkeleydb"];

/// The `engine` axis of `--plan durability`: the engines `built` says are in this build, and a
/// notice naming those left out.
pub fn durability_engine_axis(built: impl Fn(&str) -> bool) -> (Axis, Option<String>) {
    let (here, missing): (Vec<&str>, Vec<&str>) = DURABILITY_ENGINES.iter().partition(|e| built(e));
    let values = here
        .iter()
        .map(|e| AxisValue {
            label: e.to_string(),
            args: vec!["--engine".into(), e.to_string()],
        })
        .collect();
    let notice = (!missing.is_empty()).then(|| {
        format!(
            "engine axis leaves out {}: not in this build (cargo features; `cargo build --features all-engines`)",
            missing.join(", ")
        )
    });
    (
        Axis {
            name: "engine".into(),
            values,
        },
        notice,
    )
}

/// Engine settings compared by `--plan engines`: (label, engine, options). Engines not in
/// this build (cargo features) are left out of the axis.
pub const ENGINE_SETTINGS: &[(&str, &str, &[&str])] = &[
    (
        "sqlite:delete/full",
        "sqlite",
        &["journal_mode=delete", "synchronous=full"],
    ),
    (
        "sqlite:wal/full",
        "sqlite",
        &["journal_mode=wal", "synchronous=full"],
    ),
    (
        "sqlite:wal/normal",
        "sqlite",
        &["journal_mode=wal", "synchronous=normal"],
    ),
    (
        "sqlite:wal/off",
        "sqlite",
        &["journal_mode=wal", "synchronous=off"],
    ),
    ("lmdb:sync", "lmdb", &["sync=full"]),
    ("lmdb:nosync", "lmdb", &["sync=nosync"]),
    ("redb:immediate", "redb", &["durability=immediate"]),
    ("redb:none", "redb", &["durability=none"]),
    ("berkeleydb:sync", "berkeleydb", &["sync=on"]),
    ("berkeleydb:nosync", "berkeleydb", &["sync=off"]),
    ("rocksdb:sync", "rocksdb", &["sync=on"]),
    ("rocksdb:nosync", "rocksdb", &["sync=off"]),
    ("leveldb:sync", "leveldb", &["sync=on"]),
    ("leveldb:nosync", "leveldb", &["sync=off"]),
];

/// The `engine` axis of `--plan engines`: the settings of every engine `built` says is in
/// this build, and a notice naming the engines left out.
pub fn engine_axis(built: impl Fn(&str) -> bool) -> (Axis, Option<String>) {
    let mut values = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    for (label, engine, options) in ENGINE_SETTINGS {
        if !built(engine) {
            if !missing.contains(engine) {
                missing.push(engine);
            }
            continue;
        }
        let mut args = vec!["--engine".to_string(), engine.to_string()];
        for o in *options {
            args.extend(["-o".to_string(), o.to_string()]);
        }
        values.push(AxisValue {
            label: label.to_string(),
            args,
        });
    }
    let notice = (!missing.is_empty()).then(|| {
        format!(
            "engine axis leaves out {}: not in this build (cargo features; `cargo build --features all-engines`)",
            missing.join(", ")
        )
    });
    let axis = Axis {
        name: "engine".into(),
        values,
    };
    (axis, notice)
}

/// Governors the studies compare (userspace needs a frequency and is left to plan files).
pub const STUDY_GOVERNORS: &[&str] = &[
    "performance",
    "powersave",
    "ondemand",
    "interactive",
    "conservative",
    "schedutil",
];

/// The built-in plan `name`, with its machine-dependent axes resolved.
pub fn plan(name: &str) -> Result<Plan> {
    let text = match name {
        "pocketdata" => POCKETDATA,
        "mdperf" => MDPERF,
        "engines" => ENGINES,
        "durability" => DURABILITY,
        "binding" => BINDING,
        _ => {
            return Err(Error::input(format!(
                "--plan {name}: unknown built-in plan (available: {})",
                NAMES.join(", ")
            )))
        }
    };
    let mut plan = Plan::parse(text, &format!("built-in plan {name}"), name)?;
    if name == "engines" {
        let (axis, notice) = engine_axis(|e| crate::engine::descriptor(e).is_ok());
        plan.axes.insert(0, axis);
        plan.notices.extend(notice);
        return Ok(plan);
    }
    if name == "binding" {
        return Ok(plan);
    }
    if name == "durability" {
        let (axis, notice) = durability_engine_axis(|e| crate::engine::descriptor(e).is_ok());
        plan.axes = vec![axis];
        plan.notices.extend(notice);
        return Ok(plan);
    }
    let flags = Suite::Run.flags();
    let (axis, notice) = governor_axis(flags.has("governor"), &governors_settable());
    plan.axes.push(axis);
    plan.notices.extend(notice);
    if name == "mdperf" {
        let (axis, notice) = load_axis(flags.has("background"));
        plan.axes.push(axis);
        plan.notices.extend(notice);
        // MDPerf's decision grid: one row per governor × system load, one column per workload.
        plan.grid = Some(crate::report::decision::GridSpec {
            rows: vec!["governor".into(), "load".into()],
            columns: "workload".into(),
        });
    }
    Ok(plan)
}

/// The governor axis: one value per settable study governor, or "observed" and why.
pub fn governor_axis(
    flag_exists: bool,
    settable: &std::result::Result<Vec<String>, String>,
) -> (Axis, Option<String>) {
    let observed = |why: String| {
        (
            single("governor", "observed"),
            Some(format!(
                "governor axis collapsed to \"observed\": {why}; every run records the governor it observed"
            )),
        )
    };
    if !flag_exists {
        return observed("this build's `run` has no --governor flag".into());
    }
    match settable {
        Err(why) => observed(format!("governors cannot be set here ({why})")),
        Ok(available) => {
            let values: Vec<AxisValue> = STUDY_GOVERNORS
                .iter()
                .filter(|g| available.iter().any(|a| a == *g))
                .map(|g| AxisValue {
                    label: g.to_string(),
                    args: vec!["--governor".into(), g.to_string()],
                })
                .collect();
            if values.is_empty() {
                return observed(format!(
                    "none of the study governors is available (this CPU offers: {})",
                    available.join(" ")
                ));
            }
            (
                Axis {
                    name: "governor".into(),
                    values,
                },
                None,
            )
        }
    }
}

/// The background-load axis of MDPerf: alone and loaded, or only "alone" and why.
fn load_axis(flag_exists: bool) -> (Axis, Option<String>) {
    if !flag_exists {
        return (
            single("load", "alone"),
            Some(
                "load axis collapsed to \"alone\": this build's `run` has no --background flag"
                    .into(),
            ),
        );
    }
    let axis = Axis {
        name: "load".into(),
        values: vec![
            AxisValue {
                label: "alone".into(),
                args: Vec::new(),
            },
            AxisValue {
                label: "loaded".into(),
                args: vec!["--background".into(), "cpu".into()],
            },
        ],
    };
    (axis, None)
}

fn single(name: &str, label: &str) -> Axis {
    Axis {
        name: name.into(),
        values: vec![AxisValue {
            label: label.into(),
            args: Vec::new(),
        }],
    }
}

/// The governors this process could set on CPU 0, or why it cannot set any.
fn governors_settable() -> std::result::Result<Vec<String>, String> {
    use crate::platform::cpufreq::{self, control::refusal};
    let cf = cpufreq::discover(&sysfs_root());
    if let Some(why) = &cf.missing {
        return Err(why.clone());
    }
    let policy = cf.policies.first().ok_or("no cpufreq policy")?;
    let control = policy.dir.join("scaling_governor");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&control)
        .map_err(|e| format!("{}: {}", control.display(), refusal(&e)))?;
    Ok(policy.available_governors.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn governor_axis_collapses_honestly() {
        let (axis, notice) = governor_axis(false, &Ok(vec!["performance".into()]));
        assert_eq!(axis.values.len(), 1);
        assert_eq!(axis.values[0].label, "observed");
        assert!(axis.values[0].args.is_empty());
        assert!(notice.unwrap().contains("no --governor flag"));
        let (_, notice) = governor_axis(true, &Err("permission denied".into()));
        assert!(notice.unwrap().contains("permission denied"));
        let (axis, notice) = governor_axis(
            true,
            &Ok(vec![
                "schedutil".into(),
                "performance".into(),
                "userspace".into(),
            ]),
        );
        assert!(notice.is_none());
        let labels: Vec<&str> = axis.values.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(labels, ["performance", "schedutil"]);
        assert_eq!(axis.values[1].args, ["--governor", "schedutil"]);
    }

    #[test]
    fn built_in_plans_expand() {
        let p = plan("pocketdata").unwrap();
        let cells = super::super::cells::expand(&p).unwrap();
        let governors = p.axes.last().unwrap().values.len();
        assert_eq!(cells.len(), 4 * 2 * governors);
        assert_eq!(p.repeats, 3);
        let m = plan("mdperf").unwrap();
        assert_eq!(m.axes[0].values.len(), 8);
        assert!(plan("nope").is_err());
    }

    #[test]
    fn the_engine_axis_follows_the_build() {
        let (axis, notice) = engine_axis(|e| matches!(e, "sqlite" | "lmdb" | "redb"));
        let labels: Vec<&str> = axis.values.iter().map(|v| v.label.as_str()).collect();
        let default_build: Vec<&str> = ENGINE_SETTINGS[..8].iter().map(|s| s.0).collect();
        assert_eq!(
            labels, default_build,
            "sqlite, lmdb and redb settings, in order"
        );
        assert_eq!(
            axis.values[2].args,
            [
                "--engine",
                "sqlite",
                "-o",
                "journal_mode=wal",
                "-o",
                "synchronous=normal"
            ]
        );
        assert!(notice
            .unwrap()
            .contains("leaves out berkeleydb, rocksdb, leveldb"));
        let (all, notice) = engine_axis(|_| true);
        assert_eq!(all.values.len(), ENGINE_SETTINGS.len());
        assert!(notice.is_none());
        let p = plan("engines").unwrap();
        let cells = super::super::cells::expand(&p).unwrap();
        assert_eq!(cells.len(), p.axes[0].values.len() * 2);
        assert!(p.base.iter().any(|a| a == "ycsb-a"));
    }
}

#[cfg(test)]
mod grid_tests {
    use super::*;

    #[test]
    fn mdperf_declares_mdperfs_grid_and_plans_check_theirs() {
        let p = plan("mdperf").unwrap();
        let g = p.grid.unwrap();
        assert_eq!(
            (g.rows, g.columns.as_str()),
            (vec!["governor".to_string(), "load".to_string()], "workload")
        );
        let text =
            "[axes]\nworkload = [\"ycsb-a\", \"ycsb-c\"]\ndelay = [\"zero\", \"fixed:1ms\"]\n";
        let ok = Plan::parse(
            &format!("{text}[grid]\nrows = [\"delay\"]\n"),
            "p.toml",
            "p",
        )
        .unwrap();
        assert_eq!(ok.grid.unwrap().rows, ["delay"]);
        for (grid, needle) in [
            (
                "rows = [\"governor\"]",
                "p.toml: grid.rows: 'governor' is not an axis of this plan (workload, delay)",
            ),
            (
                "rows = [\"workload\"]",
                "p.toml: grid.rows: 'workload' appears twice",
            ),
            ("colums = \"delay\"", "p.toml: grid.colums: unknown field"),
        ] {
            let e = Plan::parse(&format!("{text}[grid]\n{grid}\n"), "p.toml", "p").unwrap_err();
            assert!(e.to_string().starts_with(needle), "{e}");
        }
    }
}
