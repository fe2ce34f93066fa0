//! What a file I/O test is and the file primitives its runners share: Mobibench's sync modes,
//! the access patterns, a test's definition and outcome, page-aligned buffers, raw file
//! descriptors, page-cache eviction, and laying out the test files.

use crate::error::{Error, Result};
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

pub(super) fn os_err(what: &str, p: &Path) -> Error {
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

/// Per-thread file name of a test.
pub fn file_for(dir: &Path, pattern: Pattern, thread: u32) -> PathBuf {
    dir.join(format!("pocketbench-{}-{thread}.dat", pattern.name()))
}
