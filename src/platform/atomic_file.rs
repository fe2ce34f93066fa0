//! Files that appear whole or not at all: written under `NAME.partial` next to their final
//! path (a link's target, when the path is a link) and renamed into place on commit. Dropped
//! without commit, the partial file is removed, so a failed command never leaves half a trace
//! or half an export behind. Standard output, a character device, a FIFO or a socket
//! (`-`, `/dev/stdout`, `/dev/null`, a pipe) is written into directly and never replaced;
//! anything else that is not a file is refused (the rule is `output::target`'s). A scratch
//! file ([`AtomicFile::scratch`], in a folder of the command's own) is written plainly.
//! [`AtomicCsv`] is the same for CSV files, written with the `csv` crate.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::fd::FromRawFd;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::output::target::Target;

pub struct AtomicFile {
    out: BufWriter<File>,
    /// Removes the partial file if a signal ends the process first (none for a stream).
    _cleanup: Option<super::cleanup::Guard>,
    /// The partial file; empty once committed, or for a stream.
    temp: PathBuf,
    /// Bytes written so far.
    written: u64,
    path: PathBuf,
}

impl AtomicFile {
    /// Open `path` for writing by the rule of `output::target`: standard output and streams
    /// are written in place, a regular file (or what a link names) is replaced atomically.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let stream = |file: File| AtomicFile {
            _cleanup: None,
            out: BufWriter::with_capacity(256 * 1024, file),
            temp: PathBuf::new(),
            written: 0,
            path: path.to_path_buf(),
        };
        let at = match crate::output::target::kind(path) {
            Err(what) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, what)),
            Ok(Target::Stdout) => {
                let fd = crate::output::target::stdout_data()?;
                // SAFETY: `fd` is open for the life of the process; the copy is ours to close.
                let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
                if copy < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                return Ok(stream(unsafe { File::from_raw_fd(copy) }));
            }
            Ok(Target::Stream(at)) => {
                let is_socket = std::fs::metadata(&at).is_ok_and(|m| m.file_type().is_socket());
                let file = if is_socket {
                    File::from(std::os::fd::OwnedFd::from(
                        std::os::unix::net::UnixStream::connect(&at)?,
                    ))
                } else {
                    let regular = std::fs::metadata(&at).is_ok_and(|m| m.is_file());
                    std::fs::OpenOptions::new()
                        .write(true)
                        .truncate(regular)
                        .open(&at)?
                };
                return Ok(stream(file));
            }
            Ok(Target::File(at)) => at,
        };
        let mut name = at.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".partial");
        let temp = at.with_file_name(name);
        let (file, cleanup) =
            super::cleanup::Guard::create(|| Ok((File::create(&temp)?, temp.clone())))?;
        Ok(AtomicFile {
            _cleanup: Some(cleanup),
            out: BufWriter::with_capacity(256 * 1024, file),
            temp,
            written: 0,
            path: at,
        })
    }

    /// Write the whole of the file `from` to `to` by the same rule (`from` is read, never `to`).
    pub fn deliver(from: &Path, to: &Path) -> std::io::Result<u64> {
        let mut out = AtomicFile::create(to)?;
        let n = std::io::copy(&mut File::open(from)?, out.writer())?;
        out.commit()?;
        Ok(n)
    }

    /// A scratch file at `path` (in a folder of the command's own, removed with it), created
    /// new and written plainly: neither synced nor renamed, as nothing outlives the command.
    pub fn scratch(path: &Path) -> std::io::Result<Self> {
        Ok(AtomicFile {
            _cleanup: None,
            out: BufWriter::with_capacity(256 * 1024, File::create(path)?),
            temp: PathBuf::new(),
            written: 0,
            path: path.to_path_buf(),
        })
    }

    /// Append the `len` bytes of the file `from` that start at `offset`, copied by the kernel
    /// where it can (`copy_file_range`, else `sendfile`), not through this process.
    pub fn append_from(&mut self, from: &Path, offset: u64, len: u64) -> std::io::Result<()> {
        use std::io::{Read, Seek};
        let mut file = File::open(from)?;
        file.seek(std::io::SeekFrom::Start(offset))?;
        let n = std::io::copy(&mut file.take(len), &mut self.out)?;
        self.written += n;
        if n != len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("{} is shorter than expected", from.display()),
            ));
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where to write (counted: see [`AtomicFile::written`]).
    pub fn writer(&mut self) -> &mut Self {
        self
    }

    /// How many bytes were written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flush, sync to storage, and move the file into place (a stream is only flushed).
    pub fn commit(mut self) -> std::io::Result<()> {
        self.out.flush()?;
        if self.temp.as_os_str().is_empty() {
            return Ok(());
        }
        self.out.get_ref().sync_all()?;
        std::fs::rename(&self.temp, &self.path)?;
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A CSV file that appears whole or not at all, written by the `csv` crate (RFC 4180 quoting).
pub struct AtomicCsv {
    out: csv::Writer<AtomicFile>,
    field: String,
}

impl AtomicCsv {
    /// Create `path` (as `NAME.partial` until committed) and write the header row.
    pub fn create(path: &Path, header: &[&str]) -> std::io::Result<Self> {
        let mut out = csv::Writer::from_writer(AtomicFile::create(path)?);
        out.write_record(header)?;
        Ok(AtomicCsv {
            out,
            field: String::new(),
        })
    }

    /// One row of text fields.
    pub fn row<I, T>(&mut self, fields: I) -> std::io::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        Ok(self.out.write_record(fields)?)
    }

    /// One field of the current row, formatted without allocating per field; end the row with
    /// [`AtomicCsv::end_row`].
    pub fn field(&mut self, value: impl std::fmt::Display) -> std::io::Result<()> {
        use std::fmt::Write as _;
        self.field.clear();
        let _ = write!(self.field, "{value}");
        Ok(self.out.write_field(&self.field)?)
    }

    pub fn end_row(&mut self) -> std::io::Result<()> {
        Ok(self.out.write_record(None::<&[u8]>)?)
    }

    /// Flush, sync and move the file into place.
    pub fn commit(self) -> std::io::Result<()> {
        self.out
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .commit()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appears_only_on_commit_and_vanishes_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut f = AtomicFile::create(&path).unwrap();
        f.writer().write_all(b"hello").unwrap();
        assert!(!path.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello");

        let other = dir.path().join("gone.txt");
        let mut g = AtomicFile::create(&other).unwrap();
        g.writer().write_all(b"x").unwrap();
        drop(g);
        assert!(!other.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no partial file left"
        );
    }
}
