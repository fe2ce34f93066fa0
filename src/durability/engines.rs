//! The engines `durability` takes, in one table ([`ENGINES`]): each one's name, the failure
//! model it runs under by default and how that fails it, and what a build needs for it. The
//! `--engine` values and their help text (`durability --help`) and the engine table of
//! docs/durability.md ([`markdown`]) are both made from it, so neither can say otherwise.

/// The engines: power loss where their I/O can be interposed in-process or recorded, a process
/// crash on request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurabilityEngine {
    Sqlite,
    Redb,
    Lmdb,
    Rocksdb,
    Leveldb,
    Berkeleydb,
    H2,
    BdbJe,
    SqliteJdbc,
    Nitrite,
    Objectbox,
}

/// One engine's row.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub engine: DurabilityEngine,
    pub name: &'static str,
    /// The `--model` run when none is given.
    pub default_model: &'static str,
    /// How that model fails it.
    pub how: &'static str,
    /// What a build needs for it ("" for every build).
    pub needs: &'static str,
}

const RECORDED: &str =
    "power loss from a recording of its file-system calls (--model process-crash: killed with SIGKILL)";
const JVM_RECORDED: &str = "in the JVM driver: power loss from a recording of its file-system calls (--model process-crash: the JVM killed with SIGKILL)";
const JVM: &str = "the feature jvm, Java and the driver";

/// Every engine, in `--engine`'s order.
pub const ENGINES: [Row; 11] = [
    Row {
        engine: DurabilityEngine::Sqlite,
        name: "sqlite",
        default_model: "vfs (strict with a workload or trace)",
        how: "power loss through SQLite's crash VFS, in-process",
        needs: "",
    },
    Row {
        engine: DurabilityEngine::Redb,
        name: "redb",
        default_model: "vfs (strict with a workload or trace)",
        how: "power loss through a crash storage backend, in-process",
        needs: "",
    },
    Row {
        engine: DurabilityEngine::Lmdb,
        name: "lmdb",
        default_model: "strict",
        how: RECORDED,
        needs: "",
    },
    Row {
        engine: DurabilityEngine::Rocksdb,
        name: "rocksdb",
        default_model: "strict",
        how: RECORDED,
        needs: "the feature rocksdb",
    },
    Row {
        engine: DurabilityEngine::Leveldb,
        name: "leveldb",
        default_model: "strict",
        how: RECORDED,
        needs: "the feature leveldb",
    },
    Row {
        engine: DurabilityEngine::Berkeleydb,
        name: "berkeleydb",
        default_model: "strict",
        how: RECORDED,
        needs: "the feature berkeleydb",
    },
    Row {
        engine: DurabilityEngine::H2,
        name: "h2",
        default_model: "strict",
        how: JVM_RECORDED,
        needs: JVM,
    },
    Row {
        engine: DurabilityEngine::BdbJe,
        name: "bdb-je",
        default_model: "strict",
        how: JVM_RECORDED,
        needs: JVM,
    },
    Row {
        engine: DurabilityEngine::SqliteJdbc,
        name: "sqlite-jdbc",
        default_model: "strict",
        how: JVM_RECORDED,
        needs: JVM,
    },
    Row {
        engine: DurabilityEngine::Nitrite,
        name: "nitrite",
        default_model: "strict",
        how: JVM_RECORDED,
        needs: JVM,
    },
    Row {
        engine: DurabilityEngine::Objectbox,
        name: "objectbox",
        default_model: "strict",
        how: JVM_RECORDED,
        needs: JVM,
    },
];

fn row(e: DurabilityEngine) -> &'static Row {
    ENGINES
        .iter()
        .find(|r| r.engine == e)
        .expect("every engine has a row")
}

/// The engine's name as `--engine` takes it.
pub fn name(e: DurabilityEngine) -> &'static str {
    row(e).name
}

impl Row {
    /// The help text of its `--engine` value.
    pub fn help(&self) -> String {
        let needs = if self.needs.is_empty() {
            String::new()
        } else {
            format!("; builds with {}", self.needs)
        };
        format!("default model {}: {}{needs}", self.default_model, self.how)
    }
}

impl clap::ValueEnum for DurabilityEngine {
    fn value_variants<'a>() -> &'a [Self] {
        use DurabilityEngine::*;
        &[
            Sqlite, Redb, Lmdb, Rocksdb, Leveldb, Berkeleydb, H2, BdbJe, SqliteJdbc, Nitrite,
            Objectbox,
        ]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let r = row(*self);
        Some(clap::builder::PossibleValue::new(r.name).help(r.help()))
    }
}

/// The engine table of docs/durability.md.
pub fn markdown() -> String {
    let mut o = String::from(
        "| `--engine` | default `--model` | how it fails by default | builds |\n|---|---|---|---|\n",
    );
    for r in &ENGINES {
        let needs = if r.needs.is_empty() { "every" } else { r.needs };
        o.push_str(&format!(
            "| `{}` | {} | {} | {needs} |\n",
            r.name, r.default_model, r.how
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    /// docs/durability.md shows the table `--help` is made from, as it is.
    #[test]
    fn the_docs_show_the_table_the_help_is_made_from() {
        let docs = include_str!("../../docs/durability.md");
        assert!(
            docs.contains(&markdown()),
            "docs/durability.md's engine table differs from the code's; it should read:\n{}",
            markdown()
        );
        for e in DurabilityEngine::value_variants() {
            let v = e.to_possible_value().unwrap();
            assert_eq!(v.get_name(), name(*e));
            assert_eq!(v.get_help().unwrap().to_string(), row(*e).help());
        }
        // The process-crash engines are not said to be killed by default.
        assert_eq!(
            row(DurabilityEngine::Lmdb).help(),
            "default model strict: power loss from a recording of its file-system calls (--model process-crash: killed with SIGKILL)"
        );
    }
}
