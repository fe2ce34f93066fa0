//! The engines that run in a JVM: H2, BerkeleyDB Java Edition, SQLite through JDBC (xerial
//! sqlite-jdbc), and the document and object databases Android apps ship, Nitrite and
//! ObjectBox. Their descriptors live here like every engine's (options, SQL
//! support) so that `pocketbench engines`, `-o` checks and study axes see them; the work is
//! done by the JVM driver (`drivers/jvm`), which `run` starts for the load and for the replay
//! ([`crate::run::jvm`]). There is no in-process engine: [`EngineDescriptor::open`] says so.

use super::options::{EngineOptions, OptionKind, OptionSpec};
use super::{Engine, EngineDescriptor};
use crate::error::{Error, Result};
use std::path::Path;

/// Names of the JVM engines.
pub const NAMES: [&str; 5] = ["h2", "bdb-je", "sqlite-jdbc", "nitrite", "objectbox"];

/// Whether `engine` runs in the JVM driver.
pub fn is_jvm(engine: &str) -> bool {
    NAMES.contains(&engine)
}

fn in_process(_: &Path, _: &EngineOptions) -> Result<Box<dyn Engine>> {
    Err(Error::input(
        "this engine runs in the JVM driver (`pocketbench run --engine h2|bdb-je|sqlite-jdbc|nitrite|objectbox`), not in this process",
    ))
}

/// The library versions the driver's build pins (drivers/jvm/pom.xml); a run records the
/// version the JVM reports.
fn h2_version() -> String {
    "2.5.252 (JVM driver)".into()
}

fn je_version() -> String {
    "18.3.12 (JVM driver)".into()
}

fn sqlite_jdbc_version() -> String {
    "3.54.1.0 (JVM driver)".into()
}

fn nitrite_version() -> String {
    "4.3.0 (JVM driver)".into()
}

fn objectbox_version() -> String {
    "4.0.3 (JVM driver)".into()
}

pub const H2: EngineDescriptor = EngineDescriptor {
    name: "h2",
    summary: "H2 2.x (MVStore) through JDBC in a JVM; SQL and key-value workloads",
    options: &[
        OptionSpec {
            name: "cache_size",
            default: "16384",
            help: "H2's page cache in KiB (CACHE_SIZE)",
            kind: OptionKind::Integer {
                min: 0,
                max: 1 << 30,
            },
        },
        OptionSpec {
            name: "compress",
            default: "off",
            help: "on: compress the MVStore's pages (COMPRESS)",
            kind: OptionKind::OneOf(&["on", "off"]),
        },
        OptionSpec {
            name: "lock_mode",
            default: "3",
            help: "LOCK_MODE: 3 read committed (H2's default), 0 no locking",
            kind: OptionKind::OneOf(&["0", "3"]),
        },
        OptionSpec {
            name: "write_delay",
            default: "500",
            help: "ms before an auto-committed change is written (WRITE_DELAY; 0: at once)",
            kind: OptionKind::Integer {
                min: 0,
                max: 3_600_000,
            },
        },
    ],
    supports_sql: true,
    open: in_process,
    version: h2_version,
};

pub const BDB_JE: EngineDescriptor = EngineDescriptor {
    name: "bdb-je",
    summary: "BerkeleyDB Java Edition 18.3 in a JVM; key-value workloads",
    options: &[
        OptionSpec { name: "durability", default: "sync", help: "commit durability: sync (write and fsync the log), write_no_sync (write it), no_sync (leave it in memory)", kind: OptionKind::OneOf(&["sync", "write_no_sync", "no_sync"]) },
        OptionSpec { name: "cache_percent", default: "60", help: "share of the JVM heap for JE's cache", kind: OptionKind::Integer { min: 1, max: 90 } },
        OptionSpec { name: "txn", default: "on", help: "on: a transactional environment, every write its own transaction; off: non-transactional", kind: OptionKind::OneOf(&["on", "off"]) },
    ],
    supports_sql: false,
    open: in_process,
    version: je_version,
};

pub const SQLITE_JDBC: EngineDescriptor = EngineDescriptor {
    name: "sqlite-jdbc",
    summary: "SQLite through JDBC (xerial sqlite-jdbc) in a JVM: the managed-runtime path of an app's queries",
    options: &[
        OptionSpec { name: "page_size", default: "4096", help: "database page size in bytes (set before the database is created)", kind: OptionKind::PowerOfTwo { min: 512, max: 65536 } },
        OptionSpec { name: "journal_mode", default: "delete", help: "rollback journal or write-ahead log", kind: OptionKind::OneOf(super::sqlite::options::JOURNAL_MODES) },
        OptionSpec { name: "synchronous", default: "full", help: "how often SQLite waits for data to reach storage", kind: OptionKind::OneOf(super::sqlite::options::SYNC_MODES) },
    ],
    supports_sql: true,
    open: in_process,
    version: sqlite_jdbc_version,
};

pub const NITRITE: EngineDescriptor = EngineDescriptor {
    name: "nitrite",
    summary: "Nitrite 4.3 (document database for Java and Android, MVStore storage) in a JVM; key-value workloads",
    options: &[OptionSpec {
        name: "commit",
        default: "auto",
        help: "auto: MVStore's background commit (Nitrite's default); each: commit() after every write",
        kind: OptionKind::OneOf(&["auto", "each"]),
    }],
    supports_sql: false,
    open: in_process,
    version: nitrite_version,
};

pub const OBJECTBOX: EngineDescriptor = EngineDescriptor {
    name: "objectbox",
    summary: "ObjectBox 4.0 (object database for Android, native core; x86_64 Linux here) in a JVM; key-value workloads",
    options: &[],
    supports_sql: false,
    open: in_process,
    version: objectbox_version,
};
