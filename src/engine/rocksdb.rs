//! RocksDB (the system C++ library through its C API, `rocksdb/c.h`; cargo feature
//! `rocksdb`). Options cover the write path (sync, WAL), the memtable, the block cache and
//! compression. Compaction and flush activity — which shows up as latency spikes in a
//! phone-style run — is read from RocksDB's statistics and properties before and after the run
//! and reported in the summary (stall time, compaction and flush counts and time, bytes).

use super::kv;
use super::lsm::{self, Handles, Lsm};
use super::options::{EngineOptions, OptionKind, OptionSpec};
use super::threadio;
use super::{Engine, EngineDescriptor};
use crate::error::Result;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr};
use std::path::Path;

lsm::lsm_ffi!("rocksdb", "rocksdb");

#[link(name = "rocksdb")]
extern "C" {
    fn rocksdb_writeoptions_disable_WAL(o: *mut c_void, disable: i32);
    fn rocksdb_block_based_options_create() -> *mut c_void;
    fn rocksdb_block_based_options_destroy(o: *mut c_void);
    fn rocksdb_block_based_options_set_block_cache(o: *mut c_void, cache: *mut c_void);
    fn rocksdb_options_set_block_based_table_factory(o: *mut c_void, t: *mut c_void);
    fn rocksdb_options_enable_statistics(o: *mut c_void);
    fn rocksdb_options_statistics_get_string(o: *mut c_void) -> *mut c_char;
    fn rocksdb_flushoptions_create() -> *mut c_void;
    fn rocksdb_flushoptions_destroy(o: *mut c_void);
    fn rocksdb_flushoptions_set_wait(o: *mut c_void, wait: u8);
    fn rocksdb_flush(db: *mut c_void, o: *const c_void, err: *mut *mut c_char);
}

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "rocksdb",
    summary: "RocksDB (system library, C API), LSM tree; I/O from the thread's kernel counters, compactions from its statistics",
    options: SPECS,
    supports_sql: false,
    open,
    version,
};

const COMPRESSION: &[&str] = &["none", "snappy", "zlib", "bz2", "lz4", "lz4hc", "zstd"];
/// RocksDB's `CompressionType` codes for [`COMPRESSION`] (zstd is 7; 6 is xpress).
const COMPRESSION_CODES: &[i32] = &[0, 1, 2, 3, 4, 5, 7];

const SPECS: &[OptionSpec] = &[
    OptionSpec { name: "sync", default: "off", help: "on: fsync the WAL at every write (WriteOptions.sync)", kind: OptionKind::OneOf(&["on", "off"]) },
    OptionSpec { name: "wal", default: "on", help: "off: writes skip the write-ahead log (WriteOptions.disableWAL); unflushed writes are lost on a crash", kind: OptionKind::OneOf(&["on", "off"]) },
    OptionSpec { name: "write_buffer_size", default: "67108864", help: "bytes of memtable before a flush to an L0 file", kind: OptionKind::Integer { min: 65536, max: 1 << 34 } },
    OptionSpec { name: "block_cache_size", default: "8388608", help: "bytes of LRU block cache", kind: OptionKind::Integer { min: 0, max: 1 << 40 } },
    OptionSpec { name: "compression", default: "snappy", help: "block compression", kind: OptionKind::OneOf(COMPRESSION) },
    OptionSpec { name: "statistics", default: "on", help: "collect RocksDB statistics (stall and compaction counters in the summary; costs a few percent)", kind: OptionKind::OneOf(&["on", "off"]) },
];

pub fn version() -> String {
    option_env!("POCKETBENCH_ROCKSDB_VERSION")
        .unwrap_or("unknown")
        .to_string()
}

/// Tickers and histograms of RocksDB's statistics reported in the summary.
const TICKERS: &[&str] = &[
    "rocksdb.stall.micros",
    "rocksdb.compact.read.bytes",
    "rocksdb.compact.write.bytes",
    "rocksdb.flush.write.bytes",
    "rocksdb.wal.synced",
    "rocksdb.block.cache.miss",
    "rocksdb.block.cache.hit",
];
const HISTOGRAMS: &[&str] = &["rocksdb.compaction.times.micros", "rocksdb.db.flush.micros"];
const PROPERTIES: &[&str] = &[
    "rocksdb.num-files-at-level0",
    "rocksdb.num-files-at-level1",
    "rocksdb.estimate-pending-compaction-bytes",
];

/// Pick the reported counters out of RocksDB's statistics text: `name COUNT : n` for tickers,
/// `name P50 : … COUNT : n SUM : s` for histograms.
pub fn parse_statistics(text: &str, out: &mut BTreeMap<String, u64>) {
    for line in text.lines() {
        let Some((name, rest)) = line.split_once(' ') else {
            continue;
        };
        let value = |key: &str| -> Option<u64> {
            let after = rest.split(key).nth(1)?.trim_start().strip_prefix(':')?;
            after
                .split_whitespace()
                .next()?
                .parse::<f64>()
                .ok()
                .map(|v| v as u64)
        };
        if TICKERS.contains(&name) {
            if let Some(v) = value("COUNT") {
                out.insert(name.to_string(), v);
            }
        } else if HISTOGRAMS.contains(&name) {
            if let (Some(c), Some(s)) = (value("COUNT"), value("SUM")) {
                out.insert(format!("{name}.count"), c);
                out.insert(format!("{name}.sum"), s);
            }
        }
    }
}

fn open(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>> {
    let statistics = kv::option_on(options, "statistics", true);
    let compression = options.get("compression").unwrap_or("snappy");
    let code = COMPRESSION
        .iter()
        .position(|c| *c == compression)
        .map_or(1, |i| COMPRESSION_CODES[i]);
    // SAFETY: fresh handles from the library, owned by `Handles` / the cleanup closure.
    let handles = unsafe {
        let mut handles = Handles::new(&API, options, 64 << 20, code);
        let table = rocksdb_block_based_options_create();
        rocksdb_block_based_options_set_block_cache(table, handles.cache);
        rocksdb_options_set_block_based_table_factory(handles.options, table);
        if statistics {
            rocksdb_options_enable_statistics(handles.options);
        }
        rocksdb_writeoptions_disable_WAL(
            handles.write,
            i32::from(!kv::option_on(options, "wal", true)),
        );
        handles.cleanup = Some(Box::new(move || rocksdb_block_based_options_destroy(table)));
        handles
    };
    let options_ptr = handles.options as usize;
    let stats = Box::new(move |db: &Lsm| {
        let mut out = BTreeMap::new();
        if statistics {
            // SAFETY: the options outlive the database (destroyed in Lsm's Drop, after this).
            unsafe {
                let p = rocksdb_options_statistics_get_string(options_ptr as *mut c_void);
                if !p.is_null() {
                    parse_statistics(&CStr::from_ptr(p).to_string_lossy(), &mut out);
                    (API.free)(p.cast());
                }
            }
        }
        for name in PROPERTIES {
            if let Some(v) = db.property(name).and_then(|v| v.trim().parse().ok()) {
                out.insert(name.to_string(), v);
            }
        }
        out
    });
    // The load is flushed to an L0 file so that the replay starts from tables, not the WAL.
    let after_load = Box::new(|db: *mut c_void| {
        let mut err = std::ptr::null_mut();
        // SAFETY: open database; flush options destroyed here.
        unsafe {
            let f = rocksdb_flushoptions_create();
            rocksdb_flushoptions_set_wait(f, 1);
            rocksdb_flush(db, f, &mut err);
            rocksdb_flushoptions_destroy(f);
            if err.is_null() {
                return Ok(());
            }
            let msg = CStr::from_ptr(err).to_string_lossy().into_owned();
            (API.free)(err.cast());
            Err(format!("rocksdb: flush: {msg}"))
        }
    });
    let store = Lsm::open(&API, dir, handles, stats, after_load)?;
    Ok(kv::engine(&DESCRIPTOR, store, options, threadio::METHOD))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_text_is_parsed() {
        let text = "rocksdb.block.cache.miss COUNT : 12\nrocksdb.stall.micros COUNT : 345\nrocksdb.compaction.times.micros P50 : 1.5 P95 : 2 P99 : 3 P100 : 4 COUNT : 2 SUM : 900\nrocksdb.other COUNT : 9\n";
        let mut out = BTreeMap::new();
        parse_statistics(text, &mut out);
        assert_eq!(out["rocksdb.stall.micros"], 345);
        assert_eq!(out["rocksdb.block.cache.miss"], 12);
        assert_eq!(out["rocksdb.compaction.times.micros.count"], 2);
        assert_eq!(out["rocksdb.compaction.times.micros.sum"], 900);
        assert!(!out.contains_key("rocksdb.other"));
    }
}
