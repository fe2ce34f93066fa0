//! Mobibench's mmap mode: the file is mapped shared; reads copy out of the mapping (page faults
//! bring the evicted file in), writes copy into it and msync(MS_SYNC) each buffer-sized range.

use super::file::{AlignedBuf, Fd, IoOutcome, IoTest};
use crate::error::{Error, Result};
use crate::platform::clock::mono_ns;
use crate::workload::rng::Rng;
use std::path::Path;

struct Map {
    ptr: *mut u8,
    len: usize,
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: mapped in `run` with this length.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

pub fn run(
    t: &IoTest,
    fd: &Fd,
    path: &Path,
    buf: &mut AlignedBuf,
    method: String,
) -> Result<IoOutcome> {
    let err = |what: &str| {
        Error::failed(format!(
            "{what} {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        ))
    };
    let read = t.pattern.is_read();
    let len = crate::limits::to_usize(t.file_size, "the mapped file")?;
    // SAFETY: valid descriptor; the file has (or is given) file_size bytes.
    if !read && unsafe { libc::ftruncate64(fd.0, t.file_size as libc::off64_t) } != 0 {
        return Err(err("sizing"));
    }
    let prot = if read {
        libc::PROT_READ
    } else {
        libc::PROT_READ | libc::PROT_WRITE
    };
    // SAFETY: mapping a regular file we hold open; unmapped in Drop.
    let ptr = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd.0, 0) };
    if ptr == libc::MAP_FAILED {
        return Err(err("mapping"));
    }
    let map = Map {
        ptr: ptr.cast(),
        len,
    };
    let n = t.io_size as usize;
    let calls = t.calls();
    let mut rng = Rng::derive(1, "storage-offsets");
    let data = buf.bytes();
    let start = mono_ns();
    for off in t.offsets(&mut rng) {
        let off = off as usize;
        // SAFETY: off + n <= len (offsets are multiples of n below file_size).
        unsafe {
            let at = map.ptr.add(off);
            if read {
                std::ptr::copy_nonoverlapping(at, data.as_mut_ptr(), n);
            } else {
                std::ptr::copy_nonoverlapping(data.as_ptr(), at, n);
                if libc::msync(at.cast(), n, libc::MS_SYNC) != 0 {
                    return Err(err("msync"));
                }
            }
        }
    }
    std::hint::black_box(&data[..n.min(data.len())]);
    Ok(IoOutcome {
        bytes: calls * t.io_size,
        ops: calls,
        ns: mono_ns() - start,
        method,
    })
}
