//! What RocksDB and LevelDB share: their C APIs (`rocksdb/c.h` grew out of `leveldb/c.h`, and
//! the calls used here have the same shapes under two prefixes), declared once by
//! [`lsm_ffi!`], and one [`KvStore`] over either library's function table.
//!
//! Writes go through write options with `sync` as configured (and, for RocksDB, the WAL on or
//! off); the load phase writes without sync and flushes at its end. Per-operation I/O comes
//! from the thread's kernel counters ([`super::threadio`]): the WAL append and its sync happen
//! on the writing thread, memtable flushes and compactions on the library's background
//! threads, which the run sees through [`background`] counters and the engine's statistics.

use super::io::IoCounters;
use super::kv::{self, KvStore};
use super::options::EngineOptions;
use super::threadio::ThreadIo;
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;

/// Declare the shared part of a LevelDB-style C API under `prefix`, linked from `lib`, and a
/// `pub const API: Api` table of it.
macro_rules! lsm_ffi {
    ($lib:literal, $prefix:literal) => {
        mod ffi {
            use std::ffi::{c_char, c_int, c_uchar, c_void};
            #[link(name = $lib)]
            extern "C" {
                #[link_name = concat!($prefix, "_open")]
                pub fn open(
                    o: *const c_void,
                    name: *const c_char,
                    err: *mut *mut c_char,
                ) -> *mut c_void;
                #[link_name = concat!($prefix, "_close")]
                pub fn close(db: *mut c_void);
                #[link_name = concat!($prefix, "_put")]
                pub fn put(
                    db: *mut c_void,
                    o: *const c_void,
                    k: *const c_char,
                    kl: usize,
                    v: *const c_char,
                    vl: usize,
                    err: *mut *mut c_char,
                );
                #[link_name = concat!($prefix, "_get")]
                pub fn get(
                    db: *mut c_void,
                    o: *const c_void,
                    k: *const c_char,
                    kl: usize,
                    vl: *mut usize,
                    err: *mut *mut c_char,
                ) -> *mut c_char;
                #[link_name = concat!($prefix, "_create_iterator")]
                pub fn create_iterator(db: *mut c_void, o: *const c_void) -> *mut c_void;
                #[link_name = concat!($prefix, "_iter_destroy")]
                pub fn iter_destroy(it: *mut c_void);
                #[link_name = concat!($prefix, "_iter_seek")]
                pub fn iter_seek(it: *mut c_void, k: *const c_char, kl: usize);
                #[link_name = concat!($prefix, "_iter_valid")]
                pub fn iter_valid(it: *const c_void) -> c_uchar;
                #[link_name = concat!($prefix, "_iter_next")]
                pub fn iter_next(it: *mut c_void);
                #[link_name = concat!($prefix, "_iter_key")]
                pub fn iter_key(it: *const c_void, l: *mut usize) -> *const c_char;
                #[link_name = concat!($prefix, "_iter_value")]
                pub fn iter_value(it: *const c_void, l: *mut usize) -> *const c_char;
                #[link_name = concat!($prefix, "_iter_get_error")]
                pub fn iter_get_error(it: *const c_void, err: *mut *mut c_char);
                #[link_name = concat!($prefix, "_property_value")]
                pub fn property_value(db: *mut c_void, name: *const c_char) -> *mut c_char;
                #[link_name = concat!($prefix, "_free")]
                pub fn free(p: *mut c_void);
                #[link_name = concat!($prefix, "_options_create")]
                pub fn options_create() -> *mut c_void;
                #[link_name = concat!($prefix, "_options_destroy")]
                pub fn options_destroy(o: *mut c_void);
                #[link_name = concat!($prefix, "_options_set_create_if_missing")]
                pub fn options_set_create_if_missing(o: *mut c_void, v: c_uchar);
                #[link_name = concat!($prefix, "_options_set_write_buffer_size")]
                pub fn options_set_write_buffer_size(o: *mut c_void, v: usize);
                #[link_name = concat!($prefix, "_options_set_compression")]
                pub fn options_set_compression(o: *mut c_void, v: c_int);
                #[link_name = concat!($prefix, "_readoptions_create")]
                pub fn readoptions_create() -> *mut c_void;
                #[link_name = concat!($prefix, "_readoptions_destroy")]
                pub fn readoptions_destroy(o: *mut c_void);
                #[link_name = concat!($prefix, "_writeoptions_create")]
                pub fn writeoptions_create() -> *mut c_void;
                #[link_name = concat!($prefix, "_writeoptions_destroy")]
                pub fn writeoptions_destroy(o: *mut c_void);
                #[link_name = concat!($prefix, "_writeoptions_set_sync")]
                pub fn writeoptions_set_sync(o: *mut c_void, v: c_uchar);
                #[link_name = concat!($prefix, "_cache_create_lru")]
                pub fn cache_create_lru(capacity: usize) -> *mut c_void;
                #[link_name = concat!($prefix, "_cache_destroy")]
                pub fn cache_destroy(c: *mut c_void);
            }
        }

        pub const API: $crate::engine::lsm::Api = $crate::engine::lsm::Api {
            name: $prefix,
            open: ffi::open,
            close: ffi::close,
            put: ffi::put,
            get: ffi::get,
            create_iterator: ffi::create_iterator,
            iter_destroy: ffi::iter_destroy,
            iter_seek: ffi::iter_seek,
            iter_valid: ffi::iter_valid,
            iter_next: ffi::iter_next,
            iter_key: ffi::iter_key,
            iter_value: ffi::iter_value,
            iter_get_error: ffi::iter_get_error,
            property_value: ffi::property_value,
            free: ffi::free,
            options_create: ffi::options_create,
            options_destroy: ffi::options_destroy,
            options_set_create_if_missing: ffi::options_set_create_if_missing,
            options_set_write_buffer_size: ffi::options_set_write_buffer_size,
            options_set_compression: ffi::options_set_compression,
            readoptions_create: ffi::readoptions_create,
            readoptions_destroy: ffi::readoptions_destroy,
            writeoptions_create: ffi::writeoptions_create,
            writeoptions_destroy: ffi::writeoptions_destroy,
            writeoptions_set_sync: ffi::writeoptions_set_sync,
            cache_create_lru: ffi::cache_create_lru,
            cache_destroy: ffi::cache_destroy,
        };
    };
}
pub(crate) use lsm_ffi;

type Ptr = *mut c_void;

/// One library's functions (see [`lsm_ffi!`]).
pub struct Api {
    pub name: &'static str,
    pub open: unsafe extern "C" fn(*const c_void, *const c_char, *mut *mut c_char) -> Ptr,
    pub close: unsafe extern "C" fn(Ptr),
    pub put: unsafe extern "C" fn(
        Ptr,
        *const c_void,
        *const c_char,
        usize,
        *const c_char,
        usize,
        *mut *mut c_char,
    ),
    pub get: unsafe extern "C" fn(
        Ptr,
        *const c_void,
        *const c_char,
        usize,
        *mut usize,
        *mut *mut c_char,
    ) -> *mut c_char,
    pub create_iterator: unsafe extern "C" fn(Ptr, *const c_void) -> Ptr,
    pub iter_destroy: unsafe extern "C" fn(Ptr),
    pub iter_seek: unsafe extern "C" fn(Ptr, *const c_char, usize),
    pub iter_valid: unsafe extern "C" fn(*const c_void) -> u8,
    pub iter_next: unsafe extern "C" fn(Ptr),
    pub iter_key: unsafe extern "C" fn(*const c_void, *mut usize) -> *const c_char,
    pub iter_value: unsafe extern "C" fn(*const c_void, *mut usize) -> *const c_char,
    pub iter_get_error: unsafe extern "C" fn(*const c_void, *mut *mut c_char),
    pub property_value: unsafe extern "C" fn(Ptr, *const c_char) -> *mut c_char,
    pub free: unsafe extern "C" fn(Ptr),
    pub options_create: unsafe extern "C" fn() -> Ptr,
    pub options_destroy: unsafe extern "C" fn(Ptr),
    pub options_set_create_if_missing: unsafe extern "C" fn(Ptr, u8),
    pub options_set_write_buffer_size: unsafe extern "C" fn(Ptr, usize),
    pub options_set_compression: unsafe extern "C" fn(Ptr, c_int),
    pub readoptions_create: unsafe extern "C" fn() -> Ptr,
    pub readoptions_destroy: unsafe extern "C" fn(Ptr),
    pub writeoptions_create: unsafe extern "C" fn() -> Ptr,
    pub writeoptions_destroy: unsafe extern "C" fn(Ptr),
    pub writeoptions_set_sync: unsafe extern "C" fn(Ptr, u8),
    pub cache_create_lru: unsafe extern "C" fn(usize) -> Ptr,
    pub cache_destroy: unsafe extern "C" fn(Ptr),
}

/// Take an error string the library allocated, if any.
fn take_err(api: &Api, err: *mut c_char) -> std::result::Result<(), String> {
    if err.is_null() {
        return Ok(());
    }
    // SAFETY: the library returned a NUL-terminated string allocated with malloc.
    let msg = unsafe { CStr::from_ptr(err) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: freed once, with the library's own free.
    unsafe { (api.free)(err.cast()) };
    Err(format!("{}: {msg}", api.name))
}

/// Options handles the engine file prepared; [`Lsm`] owns and destroys them.
pub struct Handles {
    pub options: Ptr,
    /// Write options for run-phase writes (sync / WAL as configured).
    pub write: Ptr,
    /// Write options for the load phase (no sync).
    pub bulk_write: Ptr,
    pub cache: Ptr,
    /// Extra cleanup of library-specific handles, run after the database is closed.
    pub cleanup: Option<Box<dyn FnOnce()>>,
}

impl Handles {
    /// The handles both libraries configure alike: options with `write_buffer_size` (default
    /// `default_write_buffer` bytes) and `compression` set, an LRU cache of `block_cache_size`
    /// bytes (attaching it to the options is library-specific), run-phase write options that
    /// sync as `sync` says, and load-phase write options without sync.
    ///
    /// # Safety
    /// `api` must be a library's real function table.
    pub unsafe fn new(
        api: &Api,
        options: &EngineOptions,
        default_write_buffer: u64,
        compression: c_int,
    ) -> Handles {
        let o = (api.options_create)();
        (api.options_set_write_buffer_size)(
            o,
            kv::option_u64(options, "write_buffer_size", default_write_buffer) as usize,
        );
        (api.options_set_compression)(o, compression);
        let cache =
            (api.cache_create_lru)(kv::option_u64(options, "block_cache_size", 8 << 20) as usize);
        let write = (api.writeoptions_create)();
        (api.writeoptions_set_sync)(write, u8::from(kv::option_on(options, "sync", false)));
        Handles {
            options: o,
            write,
            bulk_write: (api.writeoptions_create)(),
            cache,
            cleanup: None,
        }
    }
}

/// Reads the library-specific counters of an open database.
pub type StatsFn = Box<dyn Fn(&Lsm) -> BTreeMap<String, u64>>;
/// Runs at the end of the load phase on the raw database handle.
pub type AfterLoadFn = Box<dyn Fn(Ptr) -> std::result::Result<(), String>>;

/// An open RocksDB or LevelDB database.
pub struct Lsm {
    api: &'static Api,
    db: Ptr,
    read: Ptr,
    handles: Handles,
    bulk: bool,
    io: ThreadIo,
    /// Library-specific counters (statistics, properties), read before and after the run.
    stats: StatsFn,
    /// Called at the end of the load phase (RocksDB flushes the memtable).
    after_load: AfterLoadFn,
}

impl Lsm {
    /// Open the database in `dir` with prepared `handles`.
    pub fn open(
        api: &'static Api,
        dir: &Path,
        handles: Handles,
        stats: StatsFn,
        after_load: AfterLoadFn,
    ) -> Result<Lsm> {
        let path = CString::new(dir.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::input(format!("{}: path contains NUL", dir.display())))?;
        let mut err = std::ptr::null_mut();
        // SAFETY: valid options and path; errors come back through `err`.
        let db = unsafe {
            (api.options_set_create_if_missing)(handles.options, 1);
            (api.open)(handles.options, path.as_ptr(), &mut err)
        };
        // SAFETY: a fresh read options object, destroyed in Drop.
        let read = unsafe { (api.readoptions_create)() };
        let mut lsm = Lsm {
            api,
            db,
            read,
            handles,
            bulk: false,
            io: ThreadIo::default(),
            stats,
            after_load,
        };
        take_err(api, err)
            .map_err(|e| Error::failed(format!("{e} (opening {})", dir.display())))?;
        if lsm.db.is_null() {
            lsm.db = std::ptr::null_mut();
            return Err(Error::failed(format!("{}: open failed", api.name)));
        }
        Ok(lsm)
    }

    /// An integer-valued property (`None` if the library does not know it).
    pub fn property(&self, name: &str) -> Option<String> {
        let name = CString::new(name).ok()?;
        // SAFETY: open database; the returned string is malloc'd and freed here.
        unsafe {
            let p = (self.api.property_value)(self.db, name.as_ptr());
            if p.is_null() {
                return None;
            }
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            (self.api.free)(p.cast());
            Some(s)
        }
    }
}

impl KvStore for Lsm {
    #[inline]
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> std::result::Result<bool, String> {
        let mut len = 0usize;
        let mut err = std::ptr::null_mut();
        // SAFETY: open database; the value is copied and freed with the library's free.
        unsafe {
            let v = (self.api.get)(
                self.db,
                self.read,
                key.as_ptr().cast(),
                key.len(),
                &mut len,
                &mut err,
            );
            take_err(self.api, err)?;
            if v.is_null() {
                return Ok(false);
            }
            out.clear();
            out.extend_from_slice(std::slice::from_raw_parts(v as *const u8, len));
            (self.api.free)(v.cast());
        }
        Ok(true)
    }

    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> std::result::Result<(), String> {
        let options = if self.bulk {
            self.handles.bulk_write
        } else {
            self.handles.write
        };
        let mut err = std::ptr::null_mut();
        // SAFETY: open database; the library copies key and value.
        unsafe {
            (self.api.put)(
                self.db,
                options,
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
                &mut err,
            )
        };
        take_err(self.api, err)
    }

    fn scan(
        &mut self,
        start: &[u8],
        len: u32,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> std::result::Result<u64, String> {
        let api = self.api;
        // SAFETY: open database; the iterator is destroyed before returning and its key/value
        // pointers are used only while it is positioned.
        unsafe {
            let it = (api.create_iterator)(self.db, self.read);
            (api.iter_seek)(it, start.as_ptr().cast(), start.len());
            let mut n = 0u64;
            while n < u64::from(len) && (api.iter_valid)(it) != 0 {
                let (mut kl, mut vl) = (0usize, 0usize);
                let k = (api.iter_key)(it, &mut kl);
                let v = (api.iter_value)(it, &mut vl);
                visit(
                    std::slice::from_raw_parts(k as *const u8, kl),
                    std::slice::from_raw_parts(v as *const u8, vl),
                );
                n += 1;
                (api.iter_next)(it);
            }
            let mut err = std::ptr::null_mut();
            (api.iter_get_error)(it, &mut err);
            (api.iter_destroy)(it);
            take_err(api, err).map(|_| n)
        }
    }

    fn begin_bulk(&mut self) -> Result<()> {
        self.bulk = true;
        Ok(())
    }

    fn end_bulk(&mut self) -> Result<()> {
        self.bulk = false;
        (self.after_load)(self.db).map_err(Error::failed)
    }

    fn io(&self) -> IoCounters {
        self.io.counters()
    }

    fn stats(&self) -> BTreeMap<String, u64> {
        let mut s = (self.stats)(self);
        background(&mut s);
        s
    }
}

impl Drop for Lsm {
    fn drop(&mut self) {
        let api = self.api;
        // SAFETY: each handle is destroyed once, the database first.
        unsafe {
            if !self.db.is_null() {
                (api.close)(self.db);
            }
            (api.readoptions_destroy)(self.read);
            (api.writeoptions_destroy)(self.handles.write);
            (api.writeoptions_destroy)(self.handles.bulk_write);
            (api.options_destroy)(self.handles.options);
            if !self.handles.cache.is_null() {
                (api.cache_destroy)(self.handles.cache);
            }
        }
        if let Some(f) = self.handles.cleanup.take() {
            f();
        }
    }
}

/// Work done by threads other than the caller's (the library's flush and compaction threads):
/// process CPU time minus this thread's, and bytes the process wrote minus this thread's.
pub fn background(out: &mut BTreeMap<String, u64>) {
    let cpu = |clock| {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: valid out-pointer; both clocks exist on Linux.
        unsafe { libc::clock_gettime(clock, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    };
    let process = cpu(libc::CLOCK_PROCESS_CPUTIME_ID);
    let thread = cpu(libc::CLOCK_THREAD_CPUTIME_ID);
    out.insert(
        "background_cpu_us".into(),
        process.saturating_sub(thread) / 1000,
    );
    let wchar = |path: &str| -> Option<u64> {
        std::fs::read_to_string(path).ok()?.lines().find_map(|l| {
            l.strip_prefix("wchar:")
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
    };
    if let (Some(p), Some(t)) = (wchar("/proc/self/io"), wchar("/proc/thread-self/io")) {
        out.insert("background_write_bytes".into(), p.saturating_sub(t));
    }
}
