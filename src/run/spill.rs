//! The replay's own files when its work folder fills up. The replay process streams every
//! operation's sample to the spool in the work folder (`--dir`, or a temporary one) and ends by
//! writing its report there. A full disk there must not cost the measurement: when a write
//! fails, the spool is cut back to its last whole sample and continues in a *spill folder*
//! (the system's temporary folder when it is another file system, then `/dev/shm`, which is
//! memory), and the report follows the same path. The parent makes the spill folders before
//! the replay starts (owned and removed like every work folder), reads the samples back as one
//! stream over every part, and the run says where its samples went.

use super::sample::OpSample;
use crate::error::{Error, Result, ResultExt};
use std::fs::File;
use std::io::{BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Bytes of samples gathered before each write to the spool.
const BUFFER: usize = 1 << 20;

/// Folders on other file systems than `workdir` that can take the spool's continuation: the
/// system's temporary folder, then `/dev/shm`. Each is a fresh, owned folder inside them.
pub fn folders(workdir: &Path) -> Vec<crate::platform::cleanup::TempDir> {
    let device = |p: &Path| std::fs::metadata(p).ok().map(|m| m.dev());
    let mut seen = vec![device(workdir)];
    let mut out = Vec::new();
    for base in [std::env::temp_dir(), PathBuf::from("/dev/shm")] {
        let dev = device(&base);
        if dev.is_none() || seen.contains(&dev) {
            continue;
        }
        seen.push(dev);
        if let Ok(d) = crate::platform::cleanup::TempDir::new("pocketbench-spill-", Some(&base)) {
            out.push(d);
        }
    }
    out
}

/// The spool as the replay writes it: whole samples only, continued in the next spill folder
/// when a write fails.
pub struct Spool {
    file: File,
    path: PathBuf,
    /// Bytes of whole samples in `file`.
    len: u64,
    buf: Vec<u8>,
    spill: Vec<PathBuf>,
    /// The files after the first, in order.
    parts: Vec<PathBuf>,
    /// Why the spool left the work folder, when it did.
    note: Option<String>,
}

impl Spool {
    pub fn create(path: &Path, spill: &[PathBuf]) -> Result<Spool> {
        let file = File::create(path).run_err(format!("creating {}", path.display()))?;
        Ok(Spool {
            file,
            path: path.to_path_buf(),
            len: 0,
            buf: Vec::with_capacity(BUFFER),
            spill: spill.to_vec(),
            parts: Vec::new(),
            note: None,
        })
    }

    pub fn record(&mut self, sample: &OpSample) -> Result<()> {
        sample.encode(&mut self.buf).run_err("encoding a sample")?;
        if self.buf.len() >= BUFFER {
            self.flush()?;
        }
        Ok(())
    }

    /// Write what is gathered; on failure cut the file back and go on in a spill folder.
    pub fn flush(&mut self) -> Result<()> {
        loop {
            match self.file.write_all(&self.buf) {
                Ok(()) => {
                    self.len += self.buf.len() as u64;
                    self.buf.clear();
                    return Ok(());
                }
                Err(e) => self.continue_elsewhere(e)?,
            }
        }
    }

    fn continue_elsewhere(&mut self, e: std::io::Error) -> Result<()> {
        // A partly written buffer is cut off, so every file holds whole samples.
        let _ = self.file.set_len(self.len);
        let failed = self.path.clone();
        loop {
            if self.spill.is_empty() {
                return Err(Error::failed(format!(
                    "writing samples to {}: {e}; no spill folder had room",
                    failed.display()
                )));
            }
            let dir = self.spill.remove(0);
            let path = dir.join(format!("samples.spool.{}", self.parts.len() + 1));
            if let Ok(file) = File::create(&path) {
                self.note
                    .get_or_insert_with(|| format!("writing samples to {}: {e}", failed.display()));
                self.file = file;
                self.path = path.clone();
                self.len = 0;
                self.parts.push(path);
                return Ok(());
            }
        }
    }

    /// Finish: the files after the first, and why there are any.
    pub fn finish(mut self) -> Result<(Vec<PathBuf>, Option<String>)> {
        self.flush()?;
        Ok((self.parts, self.note))
    }
}

/// The report's name in a spill folder, for the replay process `pid`.
fn report_in(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("replay-{pid}.json"))
}

/// Write the replay's report at `path`, else in the first spill folder that takes it.
pub fn write_report(path: &Path, spill: &[PathBuf], json: &[u8]) -> Result<()> {
    let first = match std::fs::write(path, json) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    // A partly written report is not left to be read back (a device or FIFO is left alone).
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(path);
    }
    for dir in spill {
        if std::fs::write(report_in(dir, std::process::id()), json).is_ok() {
            return Ok(());
        }
    }
    Err(Error::failed(format!(
        "writing {}: {first}; no spill folder had room",
        path.display()
    )))
}

/// Read the report the replay process `pid` wrote at `path` or in a spill folder.
pub fn read_report(path: &Path, spill: &[PathBuf], pid: u32) -> Result<Vec<u8>> {
    if let Ok(bytes) = std::fs::read(path) {
        return Ok(bytes);
    }
    spill
        .iter()
        .find_map(|d| std::fs::read(report_in(d, pid)).ok())
        .ok_or_else(|| Error::failed(format!("reading the replay report {}", path.display())))
}

/// Every sample of a spool written in `parts` (the first file, then its continuations).
pub fn samples(parts: &[PathBuf]) -> Result<impl Iterator<Item = Result<OpSample>>> {
    let mut files = Vec::with_capacity(parts.len());
    for p in parts {
        files.push(BufReader::with_capacity(
            BUFFER,
            File::open(p).run_err(format!("reading {}", p.display()))?,
        ));
    }
    let mut files = files.into_iter();
    let mut current = files.next();
    Ok(std::iter::from_fn(move || loop {
        let input = current.as_mut()?;
        match OpSample::decode(input).run_err("reading samples") {
            Ok(None) => current = files.next(),
            other => return other.transpose(),
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: u64) -> OpSample {
        OpSample {
            start_ns: i,
            end_ns: i + 1,
            ..Default::default()
        }
    }

    #[test]
    fn a_spool_that_cannot_be_written_continues_in_a_spill_folder_whole_samples_only() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("spill");
        std::fs::create_dir(&spill).unwrap();
        // /dev/full takes nothing: every write fails with ENOSPC, as a full disk does.
        let mut s = Spool::create(Path::new("/dev/full"), std::slice::from_ref(&spill)).unwrap();
        let n = (2 * BUFFER / super::super::sample::ENCODED_LEN + 5) as u64;
        for i in 0..n {
            s.record(&sample(i)).unwrap();
        }
        let (parts, note) = s.finish().unwrap();
        assert_eq!(parts, vec![spill.join("samples.spool.1")]);
        assert!(note.unwrap().contains("/dev/full"));
        let read: Vec<u64> = samples(&parts)
            .unwrap()
            .map(|s| s.unwrap().start_ns)
            .collect();
        assert_eq!(read, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn with_no_spill_folder_the_failure_is_said() {
        let mut s = Spool::create(Path::new("/dev/full"), &[]).unwrap();
        s.record(&sample(1)).unwrap();
        let e = s.finish().unwrap_err().to_string();
        assert!(e.contains("no spill folder had room"), "{e}");
    }

    #[test]
    fn samples_are_read_across_parts_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let parts: Vec<PathBuf> = (0..3).map(|i| dir.path().join(format!("p{i}"))).collect();
        for (i, p) in parts.iter().enumerate() {
            let mut f = File::create(p).unwrap();
            for j in 0..i as u64 * 2 {
                sample(i as u64 * 100 + j).encode(&mut f).unwrap();
            }
        }
        let read: Vec<u64> = samples(&parts)
            .unwrap()
            .map(|s| s.unwrap().start_ns)
            .collect();
        assert_eq!(read, vec![100, 101, 200, 201, 202, 203]);
    }

    #[test]
    fn a_report_goes_to_a_spill_folder_and_is_found_there() {
        let dir = tempfile::tempdir().unwrap();
        let spill = vec![dir.path().to_path_buf()];
        let path = Path::new("/dev/full");
        write_report(path, &spill, b"{}").unwrap();
        let back = read_report(
            Path::new("/no/such/report.json"),
            &spill,
            std::process::id(),
        );
        assert_eq!(back.unwrap(), b"{}");
    }
}
