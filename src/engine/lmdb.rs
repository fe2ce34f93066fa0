//! LMDB (the C library vendored by `lmdb-master-sys`, compiled into the binary): one
//! environment in the engine directory, the unnamed database, every write its own write
//! transaction, reads in a reused read-only transaction (`mdb_txn_reset` / `mdb_txn_renew`).
//! I/O is measured from the thread's kernel counters ([`super::threadio`]); reads through the
//! memory map are page faults and do not show there.

use super::io::IoCounters;
use super::kv::{self, KvStore};
use super::options::{EngineOptions, OptionKind, OptionSpec};
use super::threadio::{self, ThreadIo};
use super::{Engine, EngineDescriptor};
use crate::error::{Error, Result};
use lmdb_master_sys as ffi;
use std::ffi::{c_int, CStr, CString};
use std::path::Path;
use std::ptr::null_mut;

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "lmdb",
    summary:
        "LMDB (bundled C library), memory-mapped B+tree; I/O from the thread's kernel counters",
    options: SPECS,
    supports_sql: false,
    open,
    version,
};

const SPECS: &[OptionSpec] = &[
    OptionSpec { name: "map_size", default: "1073741824", help: "bytes of address space reserved for the database (its maximum size)", kind: OptionKind::Bytes { min: 1 << 20, max: 1 << 40 } },
    OptionSpec { name: "sync", default: "full", help: "full: fsync data and meta page at each commit; nometasync: skip the meta page sync (MDB_NOMETASYNC); nosync: no sync at commit (MDB_NOSYNC)", kind: OptionKind::OneOf(&["full", "nometasync", "nosync"]) },
    OptionSpec { name: "writemap", default: "off", help: "on: write through a writable memory map (MDB_WRITEMAP; commits msync instead of write+fdatasync)", kind: OptionKind::OneOf(&["on", "off"]) },
    OptionSpec { name: "read_txn", default: "readonly", help: "readonly: reads and scans in a reused read-only transaction; write: in a write transaction, as a naive binding would", kind: OptionKind::OneOf(&["readonly", "write"]) },
];

pub fn version() -> String {
    format!(
        "{}.{}.{}",
        ffi::MDB_VERSION_MAJOR,
        ffi::MDB_VERSION_MINOR,
        ffi::MDB_VERSION_PATCH
    )
}

fn err(rc: c_int) -> String {
    // SAFETY: mdb_strerror returns a static NUL-terminated string for any code.
    unsafe { CStr::from_ptr(ffi::mdb_strerror(rc)) }
        .to_string_lossy()
        .into_owned()
}

fn check(rc: c_int, what: &str) -> std::result::Result<(), String> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("lmdb: {what}: {}", err(rc)))
    }
}

fn val(bytes: &[u8]) -> ffi::MDB_val {
    ffi::MDB_val {
        mv_size: bytes.len(),
        mv_data: bytes.as_ptr() as *mut _,
    }
}

/// # Safety
/// `v` must come from LMDB inside a live transaction.
unsafe fn bytes<'a>(v: &ffi::MDB_val) -> &'a [u8] {
    if v.mv_size == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(v.mv_data as *const u8, v.mv_size)
    }
}

pub struct Lmdb {
    env: *mut ffi::MDB_env,
    dbi: ffi::MDB_dbi,
    /// The reused read-only transaction (reset between operations), if reads use one.
    read: Option<*mut ffi::MDB_txn>,
    /// The load phase's write transaction.
    bulk: Option<*mut ffi::MDB_txn>,
    io: ThreadIo,
}

fn open(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>> {
    let fail = |e: String| Error::failed(format!("{e} (in {})", dir.display()));
    let mut flags = ffi::MDB_NORDAHEAD;
    match options.get("sync") {
        Some("nosync") => flags |= ffi::MDB_NOSYNC,
        Some("nometasync") => flags |= ffi::MDB_NOMETASYNC,
        _ => {}
    }
    if kv::option_on(options, "writemap", false) {
        flags |= ffi::MDB_WRITEMAP;
    }
    let path = CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::input(format!("{}: path contains NUL", dir.display())))?;
    let mut store = Lmdb {
        env: null_mut(),
        dbi: 0,
        read: None,
        bulk: None,
        io: ThreadIo::default(),
    };
    // SAFETY: standard LMDB open sequence; `store` closes the environment on every exit path.
    unsafe {
        check(ffi::mdb_env_create(&mut store.env), "env_create").map_err(fail)?;
        let map = kv::option_usize(options, "map_size", 1 << 30)?;
        check(ffi::mdb_env_set_mapsize(store.env, map), "set_mapsize").map_err(fail)?;
        check(
            ffi::mdb_env_open(store.env, path.as_ptr(), flags, 0o644),
            "env_open",
        )
        .map_err(fail)?;
        let mut txn = null_mut();
        check(
            ffi::mdb_txn_begin(store.env, null_mut(), 0, &mut txn),
            "txn_begin",
        )
        .map_err(fail)?;
        let rc = ffi::mdb_dbi_open(txn, std::ptr::null(), ffi::MDB_CREATE, &mut store.dbi);
        if rc != 0 {
            ffi::mdb_txn_abort(txn);
            return Err(fail(format!("lmdb: dbi_open: {}", err(rc))));
        }
        check(ffi::mdb_txn_commit(txn), "commit").map_err(fail)?;
        if options.get("read_txn") != Some("write") {
            let mut r = null_mut();
            check(
                ffi::mdb_txn_begin(store.env, null_mut(), ffi::MDB_RDONLY, &mut r),
                "read txn",
            )
            .map_err(fail)?;
            ffi::mdb_txn_reset(r);
            store.read = Some(r);
        }
    }
    Ok(kv::engine(&DESCRIPTOR, store, options, threadio::METHOD))
}

impl Lmdb {
    /// Run `f` in a read transaction: the bulk one, the reused read-only one, or a write
    /// transaction that is aborted afterwards.
    fn reading<T>(
        &mut self,
        f: impl FnOnce(*mut ffi::MDB_txn) -> std::result::Result<T, String>,
    ) -> std::result::Result<T, String> {
        if let Some(t) = self.bulk {
            return f(t);
        }
        // SAFETY: the handles are live; the transaction ends before returning.
        unsafe {
            match self.read {
                Some(r) => {
                    check(ffi::mdb_txn_renew(r), "txn_renew")?;
                    let out = f(r);
                    ffi::mdb_txn_reset(r);
                    out
                }
                None => {
                    let mut t = null_mut();
                    check(
                        ffi::mdb_txn_begin(self.env, null_mut(), 0, &mut t),
                        "txn_begin",
                    )?;
                    let out = f(t);
                    ffi::mdb_txn_abort(t);
                    out
                }
            }
        }
    }
}

impl KvStore for Lmdb {
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> std::result::Result<bool, String> {
        let dbi = self.dbi;
        self.reading(|txn| {
            let mut k = val(key);
            let mut v = val(&[]);
            // SAFETY: live transaction; the value is copied before the transaction ends.
            match unsafe { ffi::mdb_get(txn, dbi, &mut k, &mut v) } {
                0 => {
                    out.clear();
                    out.extend_from_slice(unsafe { bytes(&v) });
                    Ok(true)
                }
                ffi::MDB_NOTFOUND => Ok(false),
                rc => check(rc, "get").map(|_| false),
            }
        })
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> std::result::Result<(), String> {
        let mut k = val(key);
        let mut v = val(value);
        // SAFETY: live environment; a transaction begun here is committed or aborted here.
        unsafe {
            if let Some(t) = self.bulk {
                return check(ffi::mdb_put(t, self.dbi, &mut k, &mut v, 0), "put");
            }
            let mut t = null_mut();
            check(
                ffi::mdb_txn_begin(self.env, null_mut(), 0, &mut t),
                "txn_begin",
            )?;
            let rc = ffi::mdb_put(t, self.dbi, &mut k, &mut v, 0);
            if rc != 0 {
                ffi::mdb_txn_abort(t);
                return check(rc, "put");
            }
            check(ffi::mdb_txn_commit(t), "commit")
        }
    }

    fn scan(
        &mut self,
        start: &[u8],
        len: u32,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> std::result::Result<u64, String> {
        let dbi = self.dbi;
        self.reading(|txn| {
            let mut cursor = null_mut();
            // SAFETY: live transaction; the cursor is closed before it ends.
            unsafe {
                check(ffi::mdb_cursor_open(txn, dbi, &mut cursor), "cursor_open")?;
                let mut k = val(start);
                let mut v = val(&[]);
                let mut op = ffi::MDB_SET_RANGE;
                let mut n = 0u64;
                let result = loop {
                    if n == u64::from(len) {
                        break Ok(n);
                    }
                    match ffi::mdb_cursor_get(cursor, &mut k, &mut v, op) {
                        0 => {
                            visit(bytes(&k), bytes(&v));
                            n += 1;
                            op = ffi::MDB_NEXT;
                        }
                        ffi::MDB_NOTFOUND => break Ok(n),
                        rc => break check(rc, "cursor_get").map(|_| n),
                    }
                };
                ffi::mdb_cursor_close(cursor);
                result
            }
        })
    }

    fn begin_bulk(&mut self) -> Result<()> {
        let mut t = null_mut();
        // SAFETY: live environment.
        check(
            unsafe { ffi::mdb_txn_begin(self.env, null_mut(), 0, &mut t) },
            "txn_begin",
        )
        .map_err(Error::failed)?;
        self.bulk = Some(t);
        Ok(())
    }

    fn end_bulk(&mut self) -> Result<()> {
        match self.bulk.take() {
            // SAFETY: the bulk transaction is live and ends here.
            Some(t) => check(unsafe { ffi::mdb_txn_commit(t) }, "commit").map_err(Error::failed),
            None => Ok(()),
        }
    }

    fn io(&self) -> IoCounters {
        self.io.counters()
    }
}

impl Drop for Lmdb {
    fn drop(&mut self) {
        // SAFETY: every transaction ends before the environment closes, exactly once.
        unsafe {
            if let Some(t) = self.bulk.take() {
                ffi::mdb_txn_abort(t);
            }
            if let Some(r) = self.read.take() {
                ffi::mdb_txn_abort(r);
            }
            if !self.env.is_null() {
                ffi::mdb_env_close(self.env);
            }
        }
    }
}
