//! File I/O tests in the AndroBench/Mobibench style: sequential read/write in buffer-sized
//! calls, random 4 KiB read/write, each thread on its own file, under one of Mobibench's sync
//! modes. O_DIRECT falls back, where the file system refuses it, to buffered I/O with the
//! file's pages evicted (reads: before the test; writes: fdatasync + POSIX_FADV_DONTNEED after
//! each call), and the result says so.

use crate::error::{Error, Result};
use crate::platform::clock::mono_ns;
use crate::workload::rng::Rng;
use serde::{Deserialize, Serialize};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Mobibench's synchronisation modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    /// Buffered, never synced (writes may stay in the page cache).
    None,
    /// Opened with O_SYNC.
    #[value(name = "osync")]
    OSync,
    /// fsync after every call.
    Fsync,
    /// fdatasync after every call.
    Fdatasync,
    /// O_DIRECT (cache bypass).
    Direct,
    /// mmap; msync(MS_SYNC) after every buffer written.
    Mmap,
}

impl SyncMode {
    pub const ALL: [SyncMode; 6] = [
        SyncMode::None,
        SyncMode::OSync,
        SyncMode::Fsync,
        SyncMode::Fdatasync,
        SyncMode::Direct,
        SyncMode::Mmap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SyncMode::None => "none",
            SyncMode::OSync => "osync",
            SyncMode::Fsync => "fsync",
            SyncMode::Fdatasync => "fdatasync",
            SyncMode::Direct => "direct",
            SyncMode::Mmap => "mmap",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    SeqRead,
    SeqWrite,
    RandRead,
    RandWrite,
}

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::SeqRead => "seq-read",
            Pattern::SeqWrite => "seq-write",
            Pattern::RandRead => "rand-read",
            Pattern::RandWrite => "rand-write",
        }
    }

    pub fn is_read(self) -> bool {
        matches!(self, Pattern::SeqRead | Pattern::RandRead)
    }

    pub fn is_random(self) -> bool {
        matches!(self, Pattern::RandRead | Pattern::RandWrite)
    }
}

/// One file test.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IoTest {
    pub pattern: Pattern,
    pub mode: SyncMode,
    /// Bytes per file.
    pub file_size: u64,
    /// Bytes per call (4 KiB for the random tests).
    pub io_size: u64,
    /// Calls per thread, for every pattern: the random calls of a random test, one pass over
    /// the file (file size / call size) for a sequential one.
    pub ops: u64,
    pub threads: u32,
}

impl IoTest {
    /// Calls per thread: `ops` for the random patterns, one pass over the file otherwise
    /// (which is what `ops` holds for them too).
    pub fn calls(&self) -> u64 {
        if self.pattern.is_random() {
            self.ops
        } else {
            self.file_size / self.io_size
        }
    }

    /// The byte offset of each call in order: consecutive blocks of `io_size`, or for the
    /// random patterns blocks drawn uniformly from `rng`.
    pub fn offsets<'a>(&'a self, rng: &'a mut Rng) -> impl Iterator<Item = u64> + 'a {
        let slots = (self.file_size / self.io_size).max(1);
        (0..self.calls()).map(move |i| {
            if self.pattern.is_random() {
                rng.below(slots) * self.io_size
            } else {
                i * self.io_size
            }
        })
    }
}

/// One repetition of a test.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct IoOutcome {
    pub bytes: u64,
    pub ops: u64,
    pub ns: u64,
    /// How the cache was bypassed or emptied.
    pub method: String,
}

/// A 4 KiB-aligned buffer (O_DIRECT needs aligned memory).
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl AlignedBuf {
    pub fn new(len: usize, fill_seed: u64) -> Self {
        let layout = std::alloc::Layout::from_size_align(len.max(4096), 4096)
            .unwrap_or_else(|_| std::alloc::Layout::new::<[u8; 4096]>());
        // SAFETY: non-zero size; freed in Drop with the same layout.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let mut b = AlignedBuf { ptr, layout };
        let mut rng = Rng::derive(fill_seed, "storage-buffer");
        for chunk in b.bytes().chunks_mut(8) {
            let v = rng.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        b
    }

    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for layout.size() bytes and uniquely owned.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

fn cpath(p: &Path) -> Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| Error::input(format!("{}: path contains a NUL byte", p.display())))
}

fn os_err(what: &str, p: &Path) -> Error {
    Error::failed(format!(
        "{what} {}: {}",
        p.display(),
        std::io::Error::last_os_error()
    ))
}

/// An open file descriptor, closed on drop.
pub struct Fd(pub i32);

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: we own the descriptor.
        unsafe { libc::close(self.0) };
    }
}

/// open(2) with `flags`; Err(errno) on failure.
pub fn open_raw(p: &Path, flags: i32) -> Result<std::result::Result<Fd, i32>> {
    let c = cpath(p)?;
    // SAFETY: valid NUL-terminated path.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC, 0o644) };
    Ok(if fd < 0 {
        Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
    } else {
        Ok(Fd(fd))
    })
}

/// Drop a file's cached pages (after writing back dirty ones).
pub fn evict(fd: &Fd) {
    // SAFETY: valid descriptor; len 0 = to the end of the file.
    unsafe {
        libc::fdatasync(fd.0);
        libc::posix_fadvise(fd.0, 0, 0, libc::POSIX_FADV_DONTNEED);
    }
}

/// Create `path` holding `size` bytes of `buf`'s contents, synced and evicted.
pub fn prepare_file(path: &Path, size: u64, buf: &mut AlignedBuf) -> Result<()> {
    let fd = open_raw(path, libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC)?
        .map_err(|_| os_err("creating", path))?;
    let data = buf.bytes();
    let mut off = 0u64;
    while off < size {
        let n = (size - off).min(data.len() as u64) as usize;
        // SAFETY: data valid for n bytes.
        let w = unsafe { libc::pwrite64(fd.0, data.as_ptr().cast(), n, off as libc::off64_t) };
        if w <= 0 {
            return Err(os_err("writing", path));
        }
        off += w as u64;
    }
    evict(&fd);
    Ok(())
}

/// Create `path` as `size` bytes allocated with fallocate(2) but never written (as fio lays
/// out a file for a write job), with nothing of it cached.
pub fn preallocate_file(path: &Path, size: u64) -> Result<()> {
    let fd = open_raw(path, libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC)?
        .map_err(|_| os_err("creating", path))?;
    // SAFETY: valid descriptor; 64-bit offsets on every target.
    let rc = unsafe { libc::posix_fallocate64(fd.0, 0, size as libc::off64_t) };
    if rc != 0 {
        return Err(Error::failed(format!(
            "preallocating {}: {}",
            path.display(),
            std::io::Error::from_raw_os_error(rc)
        )));
    }
    evict(&fd);
    Ok(())
}

/// Open the test file for `t`, choosing flags by mode; returns the descriptor and the method
/// actually used.
fn open_for(t: &IoTest, path: &Path, refused: Option<&str>) -> Result<(Fd, bool, String)> {
    let base = if t.pattern.is_read() {
        libc::O_RDONLY
    } else if t.mode == SyncMode::Mmap {
        libc::O_RDWR | libc::O_CREAT
    } else {
        libc::O_WRONLY | libc::O_CREAT
    };
    let extra = match t.mode {
        SyncMode::OSync if !t.pattern.is_read() => libc::O_SYNC,
        _ => 0,
    };
    if let (SyncMode::Direct, Some(why)) = (t.mode, refused) {
        let fd = open_raw(path, base)?.map_err(|_| os_err("opening", path))?;
        return Ok((fd, false, fallback_text(t.pattern, why)));
    }
    if t.mode == SyncMode::Direct {
        match open_raw(path, base | libc::O_DIRECT)? {
            Ok(fd) => return Ok((fd, true, "O_DIRECT".into())),
            Err(errno) => {
                let fd = open_raw(path, base)?.map_err(|_| os_err("opening", path))?;
                let why = std::io::Error::from_raw_os_error(errno);
                return Ok((fd, false, fallback_text(t.pattern, &why.to_string())));
            }
        }
    }
    let fd = open_raw(path, base | extra)?.map_err(|_| os_err("opening", path))?;
    let method = match t.mode {
        SyncMode::None if t.pattern.is_read() => {
            "buffered, file evicted first (POSIX_FADV_DONTNEED)"
        }
        SyncMode::None => "buffered, no sync",
        SyncMode::OSync => "O_SYNC",
        SyncMode::Fsync => "fsync per call",
        SyncMode::Fdatasync => "fdatasync per call",
        SyncMode::Mmap => "mmap + msync(MS_SYNC) per buffer",
        SyncMode::Direct => unreachable!(),
    };
    Ok((fd, false, method.into()))
}

fn fallback_text(p: Pattern, why: &str) -> String {
    if p.is_read() {
        format!("O_DIRECT unavailable ({why}): buffered reads, file evicted first (POSIX_FADV_DONTNEED)")
    } else {
        format!("O_DIRECT unavailable ({why}): buffered writes, fdatasync + POSIX_FADV_DONTNEED per call")
    }
}

/// Run `t` on this thread's file `path` (already prepared for reads and random writes).
pub fn run_one(t: &IoTest, path: &Path, seed: u64) -> Result<IoOutcome> {
    run_inner(t, path, seed, None)
}

fn run_inner(t: &IoTest, path: &Path, seed: u64, refused: Option<&str>) -> Result<IoOutcome> {
    let mut buf = AlignedBuf::new(t.io_size as usize, seed);
    let (fd, direct, method) = open_for(t, path, refused)?;
    if t.pattern.is_read() && !direct {
        evict(&fd);
        if t.pattern.is_random() {
            // SAFETY: valid descriptor.
            unsafe { libc::posix_fadvise(fd.0, 0, 0, libc::POSIX_FADV_RANDOM) };
        }
    }
    if t.mode == SyncMode::Mmap {
        return super::mmap_io::run(t, &fd, path, &mut buf, method);
    }
    let fallback = t.mode == SyncMode::Direct && !direct;
    let mut rng = Rng::derive(seed, "storage-offsets");
    let calls = t.calls();
    let n = t.io_size as usize;
    let start = mono_ns();
    for off in t.offsets(&mut rng) {
        let off = off as libc::off64_t;
        let p = buf.bytes().as_mut_ptr();
        // SAFETY: buffer valid for n bytes; fd open in the right mode.
        let r = unsafe {
            if t.pattern.is_read() {
                libc::pread64(fd.0, p.cast(), n, off)
            } else {
                libc::pwrite64(fd.0, p.cast(), n, off)
            }
        };
        if r < 0 && direct && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
            // The file system took O_DIRECT at open but refuses the I/O: start over buffered.
            drop(fd);
            return run_inner(t, path, seed, Some("EINVAL on the first O_DIRECT call"));
        }
        if r != n as isize {
            return Err(os_err(
                if t.pattern.is_read() {
                    "reading"
                } else {
                    "writing"
                },
                path,
            ));
        }
        if !t.pattern.is_read() {
            sync_after(t.mode, fallback, &fd, off, n);
        }
    }
    Ok(IoOutcome {
        bytes: calls * t.io_size,
        ops: calls,
        ns: mono_ns() - start,
        method,
    })
}

#[inline]
fn sync_after(mode: SyncMode, fallback: bool, fd: &Fd, off: i64, n: usize) {
    // SAFETY: valid descriptor.
    unsafe {
        match mode {
            SyncMode::Fsync => {
                libc::fsync(fd.0);
            }
            SyncMode::Fdatasync => {
                libc::fdatasync(fd.0);
            }
            SyncMode::Direct if fallback => {
                libc::fdatasync(fd.0);
                libc::posix_fadvise64(fd.0, off, n as libc::off64_t, libc::POSIX_FADV_DONTNEED);
            }
            _ => {}
        }
    }
}

/// Per-thread file name of a test.
pub fn file_for(dir: &Path, pattern: Pattern, thread: u32) -> PathBuf {
    dir.join(format!("pocketbench-{}-{thread}.dat", pattern.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When the file system refuses O_DIRECT, reads and writes still run, buffered with the
    /// file's pages evicted, and the method says why.
    #[test]
    fn refused_o_direct_falls_back_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.dat");
        prepare_file(&path, 64 << 10, &mut AlignedBuf::new(16 << 10, 1)).unwrap();
        for pattern in [
            Pattern::SeqRead,
            Pattern::SeqWrite,
            Pattern::RandRead,
            Pattern::RandWrite,
        ] {
            let t = IoTest {
                pattern,
                mode: SyncMode::Direct,
                file_size: 64 << 10,
                io_size: if pattern.is_random() { 4096 } else { 16 << 10 },
                ops: 8,
                threads: 1,
            };
            let out = run_inner(&t, &path, 1, Some("refused in a test")).unwrap();
            assert!(
                out.method
                    .starts_with("O_DIRECT unavailable (refused in a test)"),
                "{}",
                out.method
            );
            let expected = if pattern.is_random() { 8 } else { 4 };
            assert_eq!((out.ops, out.bytes), (expected, expected * t.io_size));
            let direct = run_one(&t, &path, 1).unwrap();
            assert!(
                direct.method == "O_DIRECT" || direct.method.starts_with("O_DIRECT unavailable")
            );
        }
        // The names results show are the names the command line takes.
        use clap::ValueEnum;
        assert!(SyncMode::ALL
            .iter()
            .all(|m| SyncMode::from_str(m.name(), false) == Ok(*m)));
    }
}
