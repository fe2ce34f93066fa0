//! BerkeleyDB 5.3 (the system C library, cargo feature `berkeleydb`): the key-value engine on
//! the btree access method here, and the SQL front end in [`sql`]. Options are PocketData's
//! axes — cache size ("BDB100" ran a 100 MB cache), page size, transactional or not, sync on
//! commit or not. Every write outside the load phase is its own auto-commit transaction (or,
//! non-transactional, a put followed by a cache flush when `sync=on`). I/O is measured per
//! operation through BerkeleyDB's own I/O hooks ([`iohooks`]).
//!
//! BerkeleyDB's methods live in struct tables only `db.h` describes, so a small C shim
//! (`shim.c`, compiled by `build.rs`) flattens the dozen calls used into plain functions.

pub mod iohooks;
pub mod sql;

use super::io::IoCounters;
use super::kv::{self, KvStore};
use super::options::{EngineOptions, OptionKind, OptionSpec};
use super::{Engine, EngineDescriptor};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::path::Path;
use std::sync::OnceLock;

#[repr(C)]
struct Handle {
    _private: [u8; 0],
}

type Visit = unsafe extern "C" fn(*mut c_void, *const c_void, usize, *const c_void, usize);

extern "C" {
    fn pb_bdb_version() -> *const c_char;
    fn pb_bdb_open(
        home: *const c_char,
        file: *const c_char,
        cache: u64,
        page_size: c_uint,
        txn: c_int,
        sync_mode: c_int,
        out: *mut *mut Handle,
        err: *mut c_char,
        errlen: usize,
    ) -> c_int;
    fn pb_bdb_close(h: *mut Handle);
    fn pb_bdb_strerror(ret: c_int) -> *const c_char;
    fn pb_bdb_get(
        h: *mut Handle,
        k: *const c_void,
        kl: usize,
        buf: *mut c_void,
        cap: usize,
        len: *mut usize,
    ) -> c_int;
    fn pb_bdb_put(
        h: *mut Handle,
        k: *const c_void,
        kl: usize,
        v: *const c_void,
        vl: usize,
    ) -> c_int;
    fn pb_bdb_scan(
        h: *mut Handle,
        start: *const c_void,
        sl: usize,
        len: c_uint,
        visit: Visit,
        ctx: *mut c_void,
        count: *mut c_uint,
    ) -> c_int;
    fn pb_bdb_begin_bulk(h: *mut Handle) -> c_int;
    fn pb_bdb_end_bulk(h: *mut Handle) -> c_int;
    fn pb_bdb_stats(h: *mut Handle, out: *mut u64);
}

#[link(name = "db-5.3")]
extern "C" {
    fn db_env_set_func_pread(f: Option<iohooks::PreadFn>) -> c_int;
    fn db_env_set_func_pwrite(f: Option<iohooks::PwriteFn>) -> c_int;
    fn db_env_set_func_write(f: Option<iohooks::WriteFn>) -> c_int;
    fn db_env_set_func_fsync(f: Option<iohooks::FdFn>) -> c_int;
    fn db_env_set_func_ftruncate(f: Option<iohooks::TruncFn>) -> c_int;
    fn db_env_set_func_close(f: Option<iohooks::FdFn>) -> c_int;
}

const DB_NOTFOUND: c_int = -30988;
const DB_BUFFER_SMALL: c_int = -30999;

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "berkeleydb",
    summary: "BerkeleyDB 5.3 btree (system library), I/O measured per operation by its I/O hooks",
    options: SPECS,
    supports_sql: false,
    open,
    version,
};

/// Options shared by both BerkeleyDB engines (the SQL engine has no `transactions`: its front
/// end is always transactional).
pub(crate) const CACHE_SIZE: OptionSpec = OptionSpec {
    name: "cache_size",
    default: "262144",
    help: "bytes of BerkeleyDB cache (PocketData's BDB100: 104857600)",
    kind: OptionKind::Integer {
        min: 20480,
        max: 1 << 40,
    },
};
pub(crate) const PAGE_SIZE: OptionSpec = OptionSpec {
    name: "page_size",
    default: "0",
    help: "database page size (0: BerkeleyDB picks from the file system block size)",
    kind: OptionKind::PowerOfTwo {
        min: 512,
        max: 65536,
    },
};
pub(crate) const SYNC: OptionSpec = OptionSpec { name: "sync", default: "on", help: "on: sync the log at each commit (non-transactional: flush the cache after each write); write_nosync: write the log, do not sync (DB_TXN_WRITE_NOSYNC); off: neither (DB_TXN_NOSYNC)", kind: OptionKind::OneOf(&["on", "write_nosync", "off"]) };

const SPECS: &[OptionSpec] = &[
    CACHE_SIZE,
    PAGE_SIZE,
    OptionSpec {
        name: "transactions",
        default: "on",
        help:
            "on: transactional environment (log, locks, auto-commit writes); off: data store only",
        kind: OptionKind::OneOf(&["on", "off"]),
    },
    SYNC,
];

/// File name of the database inside the engine's directory.
pub const DB_FILE: &str = "pocketbench.bdb";
/// Writes per load-phase transaction (keeps the lock table small).
const BULK_CHUNK: u64 = 10_000;

pub fn version() -> String {
    // SAFETY: db_version returns a static string ("Berkeley DB 5.3.28: (date)").
    let full = unsafe { CStr::from_ptr(pb_bdb_version()) }.to_string_lossy();
    full.split(':').next().unwrap_or(&full).to_string()
}

/// The page size option (validated as a power of two), or 0 when unset.
pub(crate) fn page_size(options: &EngineOptions) -> u32 {
    kv::option_u64(options, "page_size", 0) as u32
}

/// 0 sync, 1 write without sync, 2 no write at commit.
pub(crate) fn sync_mode(options: &EngineOptions) -> c_int {
    match options.get("sync") {
        Some("write_nosync") => 1,
        Some("off") => 2,
        _ => 0,
    }
}

fn err(what: &str, rc: c_int) -> String {
    // SAFETY: db_strerror returns a static string for any code.
    let msg = unsafe { CStr::from_ptr(pb_bdb_strerror(rc)) }.to_string_lossy();
    format!("berkeleydb: {what}: {msg}")
}

pub struct Bdb {
    h: *mut Handle,
    bulk: Option<u64>,
}

fn open(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>> {
    static HOOKS: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    let setters = iohooks::Setters {
        pread: db_env_set_func_pread,
        pwrite: db_env_set_func_pwrite,
        write: db_env_set_func_write,
        fsync: db_env_set_func_fsync,
        ftruncate: db_env_set_func_ftruncate,
        close: db_env_set_func_close,
    };
    // SAFETY: the real setters of the linked libdb, before any environment opens.
    HOOKS
        .get_or_init(|| unsafe { iohooks::install(&setters) })
        .clone()
        .map_err(Error::failed)?;
    let page = page_size(options);
    let home = CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::input(format!("{}: path contains NUL", dir.display())))?;
    let file = CString::new(DB_FILE).unwrap_or_default();
    let mut store = Bdb {
        h: std::ptr::null_mut(),
        bulk: None,
    };
    let mut msg = [0 as c_char; 256];
    // SAFETY: valid strings and out-pointers; the handle (even half-open) is closed by Drop.
    let rc = unsafe {
        pb_bdb_open(
            home.as_ptr(),
            file.as_ptr(),
            kv::option_u64(options, "cache_size", 262_144),
            page,
            c_int::from(kv::option_on(options, "transactions", true)),
            sync_mode(options),
            &mut store.h,
            msg.as_mut_ptr(),
            msg.len(),
        )
    };
    if rc != 0 {
        // SAFETY: the shim wrote a NUL-terminated message.
        let text = unsafe { CStr::from_ptr(msg.as_ptr()) }.to_string_lossy();
        return Err(Error::failed(format!(
            "berkeleydb: {text} (in {})",
            dir.display()
        )));
    }
    Ok(kv::engine(&DESCRIPTOR, store, options, iohooks::METHOD))
}

unsafe extern "C" fn visit_trampoline(
    ctx: *mut c_void,
    k: *const c_void,
    kl: usize,
    v: *const c_void,
    vl: usize,
) {
    let visit = &mut *(ctx as *mut &mut dyn FnMut(&[u8], &[u8]));
    let slice = |p: *const c_void, l: usize| {
        if l == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(p as *const u8, l)
        }
    };
    visit(slice(k, kl), slice(v, vl));
}

impl KvStore for Bdb {
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> std::result::Result<bool, String> {
        loop {
            let mut len = 0usize;
            out.resize(out.capacity().max(256), 0);
            // SAFETY: open handle; `out` has `out.len()` writable bytes.
            let rc = unsafe {
                pb_bdb_get(
                    self.h,
                    key.as_ptr().cast(),
                    key.len(),
                    out.as_mut_ptr().cast(),
                    out.len(),
                    &mut len,
                )
            };
            match rc {
                0 => {
                    out.truncate(len);
                    return Ok(true);
                }
                DB_NOTFOUND => {
                    out.clear();
                    return Ok(false);
                }
                DB_BUFFER_SMALL => out.reserve(len.saturating_sub(out.len())),
                rc => return Err(err("get", rc)),
            }
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> std::result::Result<(), String> {
        // SAFETY: open handle; BerkeleyDB copies key and value.
        let rc = unsafe {
            pb_bdb_put(
                self.h,
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
            )
        };
        if rc != 0 {
            return Err(err("put", rc));
        }
        if let Some(n) = self.bulk.as_mut() {
            *n += 1;
            if *n % BULK_CHUNK == 0 {
                // SAFETY: open handle with an open bulk transaction.
                let rc = unsafe { pb_bdb_end_bulk(self.h) };
                let rc = if rc == 0 {
                    unsafe { pb_bdb_begin_bulk(self.h) }
                } else {
                    rc
                };
                if rc != 0 {
                    return Err(err("load commit", rc));
                }
            }
        }
        Ok(())
    }

    fn scan(
        &mut self,
        start: &[u8],
        len: u32,
        mut visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> std::result::Result<u64, String> {
        let mut count: c_uint = 0;
        let ctx = &mut visit as *mut &mut dyn FnMut(&[u8], &[u8]);
        // SAFETY: open handle; `ctx` outlives the call and the trampoline restores its type.
        let rc = unsafe {
            pb_bdb_scan(
                self.h,
                start.as_ptr().cast(),
                start.len(),
                len,
                visit_trampoline,
                ctx.cast(),
                &mut count,
            )
        };
        if rc != 0 {
            return Err(err("scan", rc));
        }
        Ok(u64::from(count))
    }

    fn begin_bulk(&mut self) -> Result<()> {
        // SAFETY: open handle.
        match unsafe { pb_bdb_begin_bulk(self.h) } {
            0 => {
                self.bulk = Some(0);
                Ok(())
            }
            rc => Err(Error::failed(err("begin load", rc))),
        }
    }

    fn end_bulk(&mut self) -> Result<()> {
        self.bulk = None;
        // SAFETY: open handle.
        match unsafe { pb_bdb_end_bulk(self.h) } {
            0 => Ok(()),
            rc => Err(Error::failed(err("end load", rc))),
        }
    }

    fn io(&self) -> IoCounters {
        super::io::thread_counters()
    }

    fn stats(&self) -> BTreeMap<String, u64> {
        let mut v = [0u64; 6];
        // SAFETY: open handle; the shim writes six counters.
        unsafe { pb_bdb_stats(self.h, v.as_mut_ptr()) };
        [
            "cache_hit",
            "cache_miss",
            "pages_read",
            "pages_written",
            "log_writes",
            "log_syncs",
        ]
        .iter()
        .zip(v)
        .map(|(k, v)| (format!("berkeleydb.{k}"), v))
        .collect()
    }
}

impl Drop for Bdb {
    fn drop(&mut self) {
        // SAFETY: closed exactly once (the shim accepts a null handle).
        unsafe { pb_bdb_close(self.h) };
    }
}
