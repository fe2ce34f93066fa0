//! The calibration table of the flash study: the same directory's storage measured three ways
//! — the raw block device under it (reads only, O_DIRECT; never written, since writing would
//! destroy the file system), files through the file system (O_DIRECT where possible), and
//! SQLite (BLOB rows of the same sizes). When the raw device cannot be opened (no device node,
//! not root) the table says why and shows what was measured instead.

use super::file::{self, AlignedBuf, IoTest, Pattern, SyncMode};
use super::fileio;
use super::Settings;
use crate::error::{Result, ResultExt};
use crate::platform::cache::evict_file;
use crate::platform::clock::mono_ns;
use crate::workload::rng::Rng;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CalRow {
    pub metric: String,
    pub raw_device: Option<f64>,
    pub file_system: Option<f64>,
    pub sqlite: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Calibration {
    /// The block device under the directory, if found.
    pub device: Option<String>,
    /// `measured (reads only)` or why the raw device was not measured.
    pub raw_device: String,
    pub file_system_method: String,
    /// How the SQLite column's random reads were kept cold (absent in older runs).
    #[serde(default)]
    pub sqlite_method: String,
    pub rows: Vec<CalRow>,
}

/// /dev node of the block device holding `dir`, via /sys/dev/block/MAJ:MIN.
pub fn block_device(dir: &Path) -> std::result::Result<PathBuf, String> {
    let dev = std::fs::metadata(dir).map_err(|e| e.to_string())?.dev();
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    let uevent = format!("/sys/dev/block/{maj}:{min}/uevent");
    let text = std::fs::read_to_string(&uevent)
        .map_err(|_| format!("device {maj}:{min} is not a block device (no {uevent}); the file system may be virtual or overlaid"))?;
    let name = text
        .lines()
        .find_map(|l| l.strip_prefix("DEVNAME="))
        .ok_or_else(|| format!("{uevent} names no device"))?;
    let node = PathBuf::from("/dev").join(name);
    if !node.exists() {
        return Err(format!(
            "{} does not exist here (a container without device nodes?)",
            node.display()
        ));
    }
    Ok(node)
}

fn mib_s(bytes: u64, ns: u64) -> f64 {
    round1(crate::output::units::mib_per_s(bytes, ns))
}

fn iops(ops: u64, ns: u64) -> f64 {
    round1(ops as f64 / (ns.max(1) as f64 / 1e9))
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Raw reads: sequential (buffer-sized) and random 4 KiB, O_DIRECT, read-only.
fn raw_reads(node: &Path, s: &Settings) -> std::result::Result<(f64, f64), String> {
    let fd = file::open_raw(node, libc::O_RDONLY | libc::O_DIRECT)
        .map_err(|e| e.to_string())?
        .map_err(|errno| {
            format!(
                "cannot open {}: {}",
                node.display(),
                std::io::Error::from_raw_os_error(errno)
            )
        })?;
    let mut buf = AlignedBuf::new(s.buffer as usize, 1);
    let p = buf.bytes().as_mut_ptr();
    let read = |len: u64, off: u64| {
        // SAFETY: buffer holds at least len bytes; fd open for reading.
        let r = unsafe { libc::pread64(fd.0, p.cast(), len as usize, off as libc::off64_t) };
        if r == len as isize {
            Ok(())
        } else {
            Err(format!(
                "reading {}: {}",
                node.display(),
                std::io::Error::last_os_error()
            ))
        }
    };
    let t0 = mono_ns();
    let mut off = 0;
    while off < s.seq_read_size {
        read(s.buffer, off)?;
        off += s.buffer;
    }
    let seq = mib_s(off, mono_ns() - t0);
    let span = s.seq_read_size.max(64 << 20) / 4096;
    let mut rng = Rng::derive(1, "raw-random");
    let ops = s.rand_ops.unwrap_or(s.seq_read_size / 4096);
    let t0 = mono_ns();
    for _ in 0..ops {
        read(4096, rng.below(span) * 4096)?;
    }
    Ok((seq, iops(ops, mono_ns() - t0)))
}

/// SQLite: BLOB rows written in one transaction, scanned back cold, and 4 KiB rows read at
/// random keys cold: SQLite's page cache at its minimum and the file evicted from the OS page
/// cache (POSIX_FADV_DONTNEED) before every read, outside the timed part, so every page a
/// lookup touches comes from the device.
fn sqlite_rows(dir: &Path, s: &Settings) -> Result<(f64, f64, f64)> {
    let path = dir.join("calibration.sqlite");
    let _ = std::fs::remove_file(&path);
    let conn = Connection::open(&path).run_err("sqlite: calibration database")?;
    conn.execute_batch(
        "PRAGMA page_size = 4096; PRAGMA journal_mode = delete; PRAGMA synchronous = full;
         CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB);
         CREATE TABLE small (id INTEGER PRIMARY KEY, data BLOB);",
    )
    .run_err("sqlite: calibration schema")?;
    let mut buf = AlignedBuf::new(s.buffer as usize, 2);
    let blob = buf.bytes()[..s.buffer as usize].to_vec();
    let insert = |table: &str, n: u64, data: &[u8]| -> Result<()> {
        conn.execute_batch("BEGIN").run_err("sqlite: BEGIN")?;
        {
            let mut st = conn
                .prepare(&format!("INSERT INTO {table} (data) VALUES (?1)"))
                .run_err("sqlite: prepare")?;
            for _ in 0..n {
                st.execute([data]).run_err("sqlite: insert")?;
            }
        }
        conn.execute_batch("COMMIT").run_err("sqlite: COMMIT")
    };
    let n_write = (s.seq_write_size / s.buffer).max(1);
    let t0 = mono_ns();
    insert("blobs", n_write, &blob)?;
    let write = mib_s(n_write * s.buffer, mono_ns() - t0);
    let n_read = (s.seq_read_size / s.buffer).max(1);
    insert("blobs", n_read.saturating_sub(n_write), &blob)?;
    let n_small = (s.seq_read_size / 4096).max(1);
    insert("small", n_small, &blob[..4096.min(blob.len())])?;
    drop(conn);
    evict_file(&path).run_err("evicting the calibration database")?;
    let conn = Connection::open(&path).run_err("sqlite: calibration database")?;
    let t0 = mono_ns();
    let mut bytes = 0u64;
    {
        let mut st = conn
            .prepare("SELECT data FROM blobs")
            .run_err("sqlite: prepare")?;
        let mut rows = st.query([]).run_err("sqlite: scan")?;
        while let Some(r) = rows.next().run_err("sqlite: scan")? {
            bytes += r
                .get_ref(0)
                .run_err("sqlite: row")?
                .as_blob()
                .map_or(0, <[u8]>::len) as u64;
        }
    }
    let read = mib_s(bytes, mono_ns() - t0);
    drop(conn);
    evict_file(&path).run_err("evicting the calibration database")?;
    let conn = Connection::open(&path).run_err("sqlite: calibration database")?;
    // Cold means from the device for every read: SQLite keeps only its minimum page cache,
    // and before each (untimed) the file's pages leave the OS page cache.
    conn.execute_batch("PRAGMA cache_size = 0")
        .run_err("sqlite: cache_size")?;
    let evictor = std::fs::File::open(&path).run_err("opening the calibration database")?;
    let ops = s.rand_ops.unwrap_or(s.seq_read_size / 4096);
    let mut rng = Rng::derive(3, "calibration-random");
    let mut st = conn
        .prepare("SELECT data FROM small WHERE id = ?1")
        .run_err("sqlite: prepare")?;
    let mut ns = 0u64;
    for _ in 0..ops {
        let id = 1 + rng.below(n_small) as i64;
        drop_cached(&evictor);
        let t0 = mono_ns();
        let len: usize = st
            .query_row([id], |r| Ok(r.get_ref(0)?.as_blob().map_or(0, <[u8]>::len)))
            .run_err("sqlite: point read")?;
        ns += mono_ns() - t0;
        std::hint::black_box(len);
    }
    let rand = iops(ops, ns);
    drop(st);
    drop(conn);
    let _ = std::fs::remove_file(&path);
    Ok((read, write, rand))
}

/// How the SQLite random reads are kept cold.
const SQLITE_COLD: &str = "random reads cold: SQLite page cache at its minimum (cache_size=0), database file evicted with POSIX_FADV_DONTNEED before each read (outside the timing)";

/// Drop a clean file's pages from the page cache (the file was synced when written).
fn drop_cached(file: &std::fs::File) {
    use std::os::unix::io::AsRawFd;
    // SAFETY: valid descriptor; offset 0 and length 0 cover the whole file.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// Measure the table on `dir`.
pub fn run(dir: &Path, s: &Settings) -> Result<Calibration> {
    let (device, raw) = match block_device(dir) {
        Ok(node) => match raw_reads(&node, s) {
            Ok(r) => (Some(node.display().to_string()), Ok(r)),
            Err(e) => (Some(node.display().to_string()), Err(e)),
        },
        Err(e) => (None, Err(e)),
    };
    let fs = |pattern, file_size, io_size| -> Result<file::IoOutcome> {
        let t = IoTest {
            pattern,
            mode: SyncMode::Direct,
            file_size,
            io_size,
            ops: s.rand_ops.unwrap_or(file_size / 4096),
            threads: 1,
        };
        let path = file::file_for(dir, pattern, 0);
        if pattern != Pattern::SeqWrite {
            file::prepare_file(&path, file_size, &mut AlignedBuf::new(s.buffer as usize, 4))?;
        }
        let out = fileio::run_one(&t, &path, 5);
        let _ = std::fs::remove_file(&path);
        out
    };
    let sr = fs(Pattern::SeqRead, s.seq_read_size, s.buffer)?;
    let sw = fs(Pattern::SeqWrite, s.seq_write_size, s.buffer)?;
    let rr = fs(Pattern::RandRead, s.seq_read_size, 4096)?;
    let (q_read, q_write, q_rand) = sqlite_rows(dir, s)?;
    let raw_ok = raw.as_ref().ok();
    Ok(Calibration {
        device,
        raw_device: match &raw {
            Ok(_) => "measured: reads only, O_DIRECT (writes never: they would destroy the file system on it)".into(),
            Err(e) => format!("unavailable: {e}; the file-system and SQLite columns were measured instead"),
        },
        file_system_method: sr.method.clone(),
        sqlite_method: SQLITE_COLD.into(),
        rows: vec![
            CalRow {
                metric: "sequential read MiB/s".into(),
                raw_device: raw_ok.map(|r| r.0),
                file_system: Some(mib_s(sr.bytes, sr.ns)),
                sqlite: Some(q_read),
            },
            CalRow {
                metric: "sequential write MiB/s".into(),
                raw_device: None,
                file_system: Some(mib_s(sw.bytes, sw.ns)),
                sqlite: Some(q_write),
            },
            CalRow {
                metric: "random 4 KiB read IOPS".into(),
                raw_device: raw_ok.map(|r| r.1),
                file_system: Some(iops(rr.ops, rr.ns)),
                sqlite: Some(q_rand),
            },
        ],
    })
}
