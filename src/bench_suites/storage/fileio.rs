//! File I/O tests in the AndroBench/Mobibench style: sequential read/write in buffer-sized
//! calls, random 4 KiB read/write, each thread on its own file, under one of Mobibench's sync
//! modes. O_DIRECT falls back, where the file system refuses it, to buffered I/O with the
//! file's pages evicted (reads: before the test; writes: fdatasync + POSIX_FADV_DONTNEED after
//! each call), and the result says so.

use super::file::{evict, open_raw, os_err, AlignedBuf, Fd, IoOutcome, IoTest, Pattern, SyncMode};
use crate::error::Result;
use crate::platform::clock::mono_ns;
use crate::workload::rng::Rng;
use std::path::Path;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_suites::storage::file::prepare_file;

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
