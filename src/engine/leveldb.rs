//! LevelDB (the system C++ library through its C API, `leveldb/c.h`; cargo feature
//! `leveldb`). LevelDB always writes its log; options choose whether each write syncs it, the
//! memtable size, the block cache and compression. Compaction activity comes from its
//! `leveldb.stats` property (files per level, compaction time and bytes; LevelDB prints them
//! rounded to whole seconds and megabytes) and from its background threads' CPU time and
//! writes, read before and after the run.

use super::kv;
use super::lsm::{self, Handles, Lsm};
use super::options::{EngineOptions, OptionKind, OptionSpec};
use super::threadio;
use super::{Engine, EngineDescriptor};
use crate::error::Result;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::path::Path;

lsm::lsm_ffi!("leveldb", "leveldb");

#[link(name = "leveldb")]
extern "C" {
    fn leveldb_options_set_cache(o: *mut c_void, cache: *mut c_void);
    fn leveldb_major_version() -> i32;
    fn leveldb_minor_version() -> i32;
}

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "leveldb",
    summary: "LevelDB (system library, C API), LSM tree; I/O from the thread's kernel counters, compactions from leveldb.stats",
    options: SPECS,
    supports_sql: false,
    open,
    version,
};

const SPECS: &[OptionSpec] = &[
    OptionSpec {
        name: "sync",
        default: "off",
        help: "on: fsync the log at every write (WriteOptions.sync)",
        kind: OptionKind::OneOf(&["on", "off"]),
    },
    OptionSpec {
        name: "write_buffer_size",
        default: "4194304",
        help: "bytes of memtable before it is written to a level-0 table",
        kind: OptionKind::Integer {
            min: 65536,
            max: 1 << 34,
        },
    },
    OptionSpec {
        name: "block_cache_size",
        default: "8388608",
        help: "bytes of LRU block cache",
        kind: OptionKind::Integer {
            min: 0,
            max: 1 << 40,
        },
    },
    OptionSpec {
        name: "compression",
        default: "snappy",
        help: "block compression",
        kind: OptionKind::OneOf(&["none", "snappy"]),
    },
];

pub fn version() -> String {
    // SAFETY: plain getters.
    unsafe { format!("{}.{}", leveldb_major_version(), leveldb_minor_version()) }
}

/// Sum the per-level rows of `leveldb.stats`:
/// `Level Files Size(MB) Time(sec) Read(MB) Write(MB)`.
pub fn parse_stats(text: &str, out: &mut BTreeMap<String, u64>) {
    let (mut files, mut secs, mut read, mut write) = (0u64, 0f64, 0f64, 0f64);
    for line in text.lines() {
        let cols: Vec<f64> = line
            .split_whitespace()
            .map_while(|c| c.parse::<f64>().ok())
            .collect();
        if cols.len() == 6 {
            files += cols[1] as u64;
            secs += cols[3];
            read += cols[4];
            write += cols[5];
        }
    }
    out.insert("leveldb.files".into(), files);
    out.insert("leveldb.compaction.seconds".into(), secs as u64);
    out.insert("leveldb.compaction.read.mb".into(), read as u64);
    out.insert("leveldb.compaction.write.mb".into(), write as u64);
}

fn open(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>> {
    let compression = i32::from(options.get("compression") != Some("none"));
    // SAFETY: LevelDB's own table; the cache is attached to the options that own it.
    let handles = unsafe {
        let handles = Handles::new(&API, options, 4 << 20, compression);
        leveldb_options_set_cache(handles.options, handles.cache);
        handles
    };
    let stats = Box::new(|db: &Lsm| {
        let mut out = BTreeMap::new();
        if let Some(text) = db.property("leveldb.stats") {
            parse_stats(&text, &mut out);
        }
        out
    });
    let store = Lsm::open(&API, dir, handles, stats, Box::new(|_| Ok(())))?;
    Ok(kv::engine(&DESCRIPTOR, store, options, threadio::METHOD))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_rows_are_summed() {
        let text = "                               Compactions\nLevel  Files Size(MB) Time(sec) Read(MB) Write(MB)\n--------------------------------------------------\n  0        2        1         0        0         1\n  1        3        4         2        5         4\n";
        let mut out = BTreeMap::new();
        parse_stats(text, &mut out);
        assert_eq!(out["leveldb.files"], 5);
        assert_eq!(out["leveldb.compaction.seconds"], 2);
        assert_eq!(out["leveldb.compaction.write.mb"], 5);
    }
}
