//! One cell of the flash micro-benchmark: a fresh SQLite database in its own directory, filled
//! for SELECT/JOIN/UPDATE, closed, evicted from the page cache and reopened; then BEGIN, each
//! request and END are timed individually, and the file I/O captured after each of them is fed
//! to the cell's own copy of the modelled flash device, so every request gets its flash counters.

use super::{Request, Settings};
use crate::bench_suites::random_text;
use crate::engine::io::capture;
use crate::engine::io::trace::IoRecord;
use crate::engine::sqlite::vfs;
use crate::error::{Error, Result, ResultExt};
use crate::flash::counters::FlashCounters;
use crate::flash::device::Device;
use crate::platform::cache;
use crate::platform::clock::mono_ns;
use crate::workload::rng::Rng;
use rusqlite::{Connection, OpenFlags, Statement};
use std::path::Path;

/// What one cell measured.
pub struct CellRun {
    pub begin_ns: u64,
    pub end_ns: u64,
    pub request_ns: Vec<u64>,
    pub begin_flash: FlashCounters,
    pub end_flash: FlashCounters,
    /// Per request: flash page reads, page programs, block erases.
    pub request_flash: Vec<[u64; 3]>,
    pub requests_flash: FlashCounters,
    /// How the page cache was emptied before the timed part.
    pub cache: String,
    pub db_bytes: u64,
}

/// Feeds captured records to the device and returns the counters they caused.
struct Feeder {
    dev: Device,
    buf: Vec<IoRecord>,
}

impl Feeder {
    fn step(&mut self) -> Result<FlashCounters> {
        self.buf.clear();
        capture::drain_into(&mut self.buf);
        let before = self.dev.counters();
        for r in &self.buf {
            self.dev
                .apply(r)
                .map_err(|m| Error::input(format!("--flash: {m}")))?;
        }
        Ok(self.dev.counters() - before)
    }
}

fn open(path: &Path, s: &Settings) -> Result<Connection> {
    if !vfs::register() {
        return Err(Error::failed("sqlite: no default VFS to wrap"));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags_and_vfs(path, flags, vfs::VFS_NAME)
        .run_err(format!("sqlite: cannot open {}", path.display()))?;
    conn.execute_batch(&format!(
        "PRAGMA page_size = {}; PRAGMA journal_mode = {}; PRAGMA synchronous = {};",
        s.page_size, s.journal_mode, s.synchronous
    ))
    .run_err("sqlite: pragmas")?;
    Ok(conn)
}

const SCHEMA: &str = "CREATE TABLE t1 (id INTEGER PRIMARY KEY, val TEXT NOT NULL);
                      CREATE TABLE t2 (id INTEGER PRIMARY KEY, val TEXT NOT NULL);";

fn sql(req: Request) -> &'static str {
    match req {
        Request::Insert => "INSERT INTO t1 (id, val) VALUES (?1, ?2)",
        Request::Select => "SELECT val FROM t1 WHERE id = ?1",
        Request::Join => "SELECT t1.val, t2.val FROM t1 JOIN t2 ON t1.id = t2.id WHERE t1.id = ?1",
        Request::Update => "UPDATE t1 SET val = ?2 WHERE id = ?1",
    }
}

/// Run one cell in `dir` (which must be empty) on a copy of `device`.
pub fn run(
    dir: &Path,
    s: &Settings,
    device: &Device,
    req: Request,
    size: u32,
    count: u32,
) -> Result<CellRun> {
    let path = dir.join("flashbench.sqlite");
    let seed = s.seed ^ (u64::from(size) << 32) ^ u64::from(count) ^ ((req as u64) << 56);
    let mut rng = Rng::derive(seed, "flashbench");
    capture::start(None);
    let mut f = Feeder {
        dev: device.clone(),
        buf: Vec::with_capacity(1024),
    };
    let result = (|| {
        // Setup: schema and pre-fill, on the device but not counted.
        {
            let conn = open(&path, s)?;
            conn.execute_batch(SCHEMA).run_err("sqlite: schema")?;
            if req != Request::Insert {
                conn.execute_batch("BEGIN").run_err("sqlite: BEGIN")?;
                for table in ["t1", "t2"]
                    .iter()
                    .take(if req == Request::Join { 2 } else { 1 })
                {
                    let mut ins = conn
                        .prepare(&format!("INSERT INTO {table} (id, val) VALUES (?1, ?2)"))
                        .run_err("sqlite: prepare")?;
                    for id in 1..=count {
                        ins.execute(rusqlite::params![id, random_text(&mut rng, size as usize)])
                            .run_err("sqlite: pre-fill")?;
                    }
                }
                conn.execute_batch("COMMIT").run_err("sqlite: COMMIT")?;
            }
        }
        let cache = cache::evict_dir(dir, false).method;
        let conn = open(&path, s)?;
        let mut stmt = conn.prepare(sql(req)).run_err("sqlite: prepare")?;
        let keys = key_order(req, count, &mut rng);
        let values: Vec<String> = match req {
            Request::Insert | Request::Update => (0..count)
                .map(|_| random_text(&mut rng, size as usize))
                .collect(),
            Request::Select | Request::Join => Vec::new(),
        };
        f.step()?;

        let t0 = mono_ns();
        conn.execute_batch("BEGIN").run_err("sqlite: BEGIN")?;
        let begin_ns = mono_ns() - t0;
        let begin_flash = f.step()?;
        let mut request_ns = Vec::with_capacity(count as usize);
        let mut request_flash = Vec::with_capacity(count as usize);
        let mut requests_flash = FlashCounters::default();
        for (i, &id) in keys.iter().enumerate() {
            let ns = one_request(&mut stmt, req, id, values.get(i).map(String::as_str))?;
            request_ns.push(ns);
            let c = f.step()?;
            request_flash.push([c.flash_reads(), c.flash_programs(), c.erases]);
            requests_flash += c;
        }
        let t0 = mono_ns();
        conn.execute_batch("COMMIT").run_err("sqlite: COMMIT")?;
        let end_ns = mono_ns() - t0;
        let end_flash = f.step()?;
        drop(stmt);
        drop(conn);
        let db_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        Ok(CellRun {
            begin_ns,
            end_ns,
            request_ns,
            begin_flash,
            end_flash,
            request_flash,
            requests_flash,
            cache,
            db_bytes,
        })
    })();
    capture::stop()?;
    result
}

/// Keys in request order: ascending for INSERT, a seeded shuffle of 1..=count otherwise.
fn key_order(req: Request, count: u32, rng: &mut Rng) -> Vec<u32> {
    let mut keys: Vec<u32> = (1..=count).collect();
    if req != Request::Insert {
        for i in (1..keys.len()).rev() {
            keys.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    keys
}

/// Execute one request, reading every result row; its service time in ns.
fn one_request(
    stmt: &mut Statement<'_>,
    req: Request,
    id: u32,
    value: Option<&str>,
) -> Result<u64> {
    let t0 = mono_ns();
    match req {
        Request::Insert | Request::Update => {
            let n = stmt
                .execute(rusqlite::params![id, value.unwrap_or_default()])
                .run_err("sqlite: request")?;
            if n != 1 {
                return Err(Error::failed(format!(
                    "{req:?} of key {id} changed {n} rows"
                )));
            }
        }
        Request::Select | Request::Join => {
            let mut rows = stmt.query([id]).run_err("sqlite: request")?;
            let mut found = 0usize;
            while let Some(row) = rows.next().run_err("sqlite: request")? {
                let v: rusqlite::types::ValueRef<'_> = row.get_ref(0).run_err("sqlite: row")?;
                found += v.as_bytes().map(<[u8]>::len).unwrap_or(0);
            }
            if found == 0 {
                return Err(Error::failed(format!("{req:?} of key {id} found nothing")));
            }
        }
    }
    Ok(mono_ns() - t0)
}
