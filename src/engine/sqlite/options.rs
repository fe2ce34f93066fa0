//! SQLite's options: the PRAGMAs users vary (journal mode, synchronous, page and cache size,
//! mmap, locking, temp store) and the `preset=android` bundle of Android's framework defaults.

use crate::engine::options::{EngineOptions, OptionKind, OptionSpec};

pub const JOURNAL_MODES: &[&str] = &["delete", "truncate", "persist", "memory", "wal", "off"];
pub const SYNC_MODES: &[&str] = &["off", "normal", "full", "extra"];

pub const SPECS: &[OptionSpec] = &[
    OptionSpec {
        name: "preset",
        default: "",
        help: "android: Android framework defaults (journal_mode=truncate, synchronous=full, page_size=4096, journal_size_limit=524288, wal_autocheckpoint=100); explicit options override it",
        kind: OptionKind::OneOf(&["android", "sqlite"]),
    },
    OptionSpec { name: "page_size", default: "4096", help: "database page size in bytes (power of two, 512..65536; set before the database is created)", kind: OptionKind::PowerOfTwo { min: 512, max: 65536 } },
    OptionSpec { name: "journal_mode", default: "delete", help: "rollback journal or write-ahead log", kind: OptionKind::OneOf(JOURNAL_MODES) },
    OptionSpec { name: "synchronous", default: "full", help: "how often SQLite waits for data to reach storage", kind: OptionKind::OneOf(SYNC_MODES) },
    OptionSpec { name: "cache_size", default: "-2000", help: "page cache: pages if positive, KiB if negative", kind: OptionKind::Integer { min: i64::MIN / 2, max: i64::MAX / 2 } },
    OptionSpec { name: "mmap_size", default: "0", help: "bytes of the database file to memory-map (reads through the map bypass the I/O counters)", kind: OptionKind::Integer { min: 0, max: i64::MAX / 2 } },
    OptionSpec { name: "locking_mode", default: "normal", help: "exclusive keeps the lock and skips the change-counter check on every transaction", kind: OptionKind::OneOf(&["normal", "exclusive"]) },
    OptionSpec { name: "temp_store", default: "default", help: "where temporary tables and indices live", kind: OptionKind::OneOf(&["default", "file", "memory"]) },
    OptionSpec { name: "journal_size_limit", default: "-1", help: "bytes of journal/WAL kept after a transaction (-1: no limit)", kind: OptionKind::Integer { min: -1, max: i64::MAX / 2 } },
    OptionSpec { name: "sync_call", default: "fdatasync", help: "the system call SQLite's syncs make: fdatasync as Android builds SQLite, or fsync", kind: OptionKind::OneOf(&["fdatasync", "fsync"]) },
    OptionSpec { name: "wal_autocheckpoint", default: "1000", help: "WAL pages before an automatic checkpoint", kind: OptionKind::Integer { min: 0, max: i32::MAX as i64 } },
    OptionSpec { name: "foreign_keys", default: "off", help: "enforce FOREIGN KEY constraints (off: SQLite's and Android's default, applied even though the bundled build is compiled with them on; an app that enables them sets PRAGMA foreign_keys, which the import prints as this option)", kind: OptionKind::OneOf(&["off", "on"]) },
    OptionSpec { name: "case_sensitive_like", default: "off", help: "LIKE tells upper from lower case (changes what LIKE matches: `advise` rejects it for changing answers where the trace uses LIKE)", kind: OptionKind::OneOf(&["off", "on"]) },
    OptionSpec { name: "max_steps", default: "1000000000", help: "virtual-machine steps one operation may take before SQLite interrupts it (0: no bound); keeps a runaway statement of an untrusted workload, such as an endless recursive CTE, from running for ever", kind: OptionKind::Integer { min: 0, max: i64::MAX / 2 } },
    OptionSpec { name: "busy_timeout", default: "0", help: "milliseconds a statement waits for another connection's lock before SQLITE_BUSY (what an app sets with sqlite3_busy_timeout; matters when an imported trace replays its connections)", kind: OptionKind::Integer { min: 0, max: i32::MAX as i64 } },
];

/// Android's framework defaults, from AOSP `frameworks/base/core/res/res/values/config.xml`
/// (`db_default_journal_mode`, `db_default_sync_mode`, `db_journal_size_limit`,
/// `db_wal_autocheckpoint`) and `SQLiteGlobal.getDefaultPageSize()` (the /data file system
/// block size, 4096 on current devices).
const ANDROID: &[(&str, &str)] = &[
    ("journal_mode", "truncate"),
    ("synchronous", "full"),
    ("page_size", "4096"),
    ("journal_size_limit", "524288"),
    ("wal_autocheckpoint", "100"),
];

/// Options applied on every connection whether chosen or not, because the bundled SQLite's
/// compile-time default differs from upstream's (see docs/engines.md).
const ALWAYS: [&str; 1] = ["foreign_keys"];

/// Options that are not PRAGMAs.
const NOT_PRAGMAS: [&str; 3] = ["preset", "sync_call", "max_steps"];

/// The `max_steps` option: virtual-machine steps one operation may take (0: no bound).
pub fn max_steps(options: &EngineOptions) -> u64 {
    options
        .get("max_steps")
        .and_then(|v| v.parse().ok())
        .unwrap_or(super::guard::DEFAULT_MAX_STEPS)
}

/// The system call SQLite's syncs make: the `sync_call` option, `fdatasync` by default.
pub fn sync_call(options: &EngineOptions) -> &str {
    options.get("sync_call").unwrap_or("fdatasync")
}

/// The PRAGMAs to apply, in order, with the preset expanded and explicit options winning.
/// `page_size` comes first because it only takes effect before the database has content.
pub fn effective(options: &EngineOptions) -> Vec<(&'static str, String)> {
    let preset: &[(&str, &str)] = if options.get("preset") == Some("android") {
        ANDROID
    } else {
        &[]
    };
    SPECS
        .iter()
        .filter(|s| !NOT_PRAGMAS.contains(&s.name))
        .filter_map(|s| {
            let chosen = options.get(s.name).map(str::to_string).or_else(|| {
                preset
                    .iter()
                    .find(|(k, _)| *k == s.name)
                    .map(|(_, v)| v.to_string())
            });
            chosen
                .or_else(|| ALWAYS.contains(&s.name).then(|| s.default.to_string()))
                .map(|v| (s.name, v))
        })
        .collect()
}

/// Connection settings an app made (`trace import`: PRAGMA name → value) as this engine's
/// `-o` options, where it has the option and takes the value (`synchronous` numbers as words).
pub fn from_settings(settings: &std::collections::BTreeMap<String, String>) -> Vec<String> {
    settings
        .iter()
        .filter_map(|(k, v)| {
            let v = match (k.as_str(), v.as_str()) {
                ("synchronous", n @ ("0" | "1" | "2" | "3")) => {
                    ["off", "normal", "full", "extra"][n.parse::<usize>().ok()?].to_string()
                }
                ("foreign_keys", "1" | "on" | "true" | "yes") => "on".into(),
                ("foreign_keys", "0" | "off" | "false" | "no") => "off".into(),
                _ => v.clone(),
            };
            let pair = [(k.clone(), v.clone())];
            EngineOptions::validate("sqlite", SPECS, &pair)
                .ok()
                .map(|_| format!("-o {k}={v}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn android_preset_expands_and_explicit_options_win() {
        let raw = vec![
            ("preset".to_string(), "android".to_string()),
            ("synchronous".to_string(), "off".to_string()),
        ];
        let o = EngineOptions::validate("sqlite", SPECS, &raw).unwrap();
        let e = effective(&o);
        assert_eq!(e[0], ("page_size", "4096".to_string()));
        assert!(e.contains(&("journal_mode", "truncate".to_string())));
        assert!(e.contains(&("synchronous", "off".to_string())));
        assert!(e.contains(&("wal_autocheckpoint", "100".to_string())));
        // Foreign keys off as upstream SQLite and Android have them, though not chosen.
        assert!(e.contains(&("foreign_keys", "off".to_string())));
    }

    #[test]
    fn an_apps_settings_become_the_options_this_engine_has() {
        let settings = [
            ("journal_mode", "wal"),
            ("synchronous", "1"),
            ("foo", "1"),
            ("foreign_keys", "1"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into_iter()
        .collect();
        assert_eq!(
            from_settings(&settings),
            [
                "-o foreign_keys=on",
                "-o journal_mode=wal",
                "-o synchronous=normal"
            ]
        );
    }
}
