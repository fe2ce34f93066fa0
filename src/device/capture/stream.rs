//! The device's log, streamed into a host file for the whole capture (`adb logcat`), so a busy
//! capture keeps its first lines: a dump of the ring buffer at the end (`logcat -d`) holds only
//! its last few hundred kilobytes. Two markers written into the log (`log -t pocketbench`)
//! bound the capture in the stream: the start marker seen proves the stream is live before the
//! app is started, the end marker seen proves that every line logged before the capture ended
//! has arrived.

use crate::device::adb::Adb;
use crate::device::transport::{must, Detached, Transport};
use crate::error::{Error, Result};
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The longest log line kept (logcat's own limit is about 4 000 bytes); longer ones are
/// skipped and counted.
pub const MAX_LINE: usize = 64 << 10;
/// How long a marker may take to come through the stream.
const MARKER_WAIT: Duration = Duration::from_secs(30);
/// How often the stream file is looked at while waiting for a marker.
const POLL: Duration = Duration::from_millis(10);
/// Bytes read at a time while looking for a marker.
const CHUNK: u64 = 1 << 20;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Start,
    End,
}

/// How waiting for a marker ended, when it was not seen.
pub enum Unseen {
    /// `stop` said to give up.
    Stopped,
    /// Why the marker never came (one line).
    Failed(String),
}

pub struct LogStream {
    child: Detached,
    path: PathBuf,
    /// adb's own messages.
    err: PathBuf,
    nonce: String,
    /// Bytes of the stream looked through for markers.
    scanned: u64,
    /// Where the capture's lines start (after the start marker's line).
    start: Option<u64>,
    /// Where they end (the end marker's line).
    end: Option<u64>,
}

impl LogStream {
    /// Start `adb logcat` into a file in `dir` (what is in the buffer, then every new line).
    pub fn start(adb: &Adb, dir: &Path) -> Result<LogStream> {
        let path = dir.join("logcat.stream");
        let err = dir.join("logcat.stderr");
        let create = |p: &Path| {
            std::fs::File::create(p).map_err(|e| Error::failed(format!("{}: {e}", p.display())))
        };
        let child = adb.logcat(
            &["-v", "threadtime", "-v", "usec"],
            create(&path)?,
            create(&err)?,
        )?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Ok(LogStream {
            child,
            path,
            err,
            nonce: format!("{:x}-{nanos:x}", std::process::id()),
            scanned: 0,
            start: None,
            end: None,
        })
    }

    fn text(&self, m: Marker) -> String {
        let which = if m == Marker::Start { "start" } else { "end" };
        format!("capture {which} {}", self.nonce)
    }

    /// Write marker `m` into the device's log.
    pub fn mark(&self, t: &dyn Transport, m: Marker) -> Result<()> {
        must(
            t,
            "writing a marker into the log (log -t pocketbench)",
            &format!("log -t pocketbench '{}'", self.text(m)),
        )
        .map(drop)
    }

    /// Wait until marker `m` has come through the stream, `stop` says to give up, the stream
    /// ends or [`MARKER_WAIT`] passes.
    pub fn wait_for(
        &mut self,
        m: Marker,
        stop: &dyn Fn() -> bool,
    ) -> std::result::Result<(), Unseen> {
        let give_up = Instant::now() + MARKER_WAIT;
        let seen = |s: &Self| if m == Marker::Start { s.start } else { s.end }.is_some();
        loop {
            self.scan()
                .map_err(|e| Unseen::Failed(format!("reading the stream: {e}")))?;
            if seen(self) {
                return Ok(());
            }
            if stop() {
                return Err(Unseen::Stopped);
            }
            if let Some(why) = self.ended() {
                self.scan()
                    .map_err(|e| Unseen::Failed(format!("reading the stream: {e}")))?;
                return if seen(self) {
                    Ok(())
                } else {
                    Err(Unseen::Failed(why))
                };
            }
            if Instant::now() >= give_up {
                return Err(Unseen::Failed(format!(
                    "its marker did not come through adb logcat within {} s",
                    MARKER_WAIT.as_secs()
                )));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Stop streaming (what came is kept).
    pub fn stop(&mut self) {
        self.child.stop();
    }

    /// Why the stream has ended, when it has: `adb logcat` exited, with its last message.
    pub fn ended(&mut self) -> Option<String> {
        let status = self.child.ended()?;
        let said = std::fs::read(&self.err).unwrap_or_default();
        let said = String::from_utf8_lossy(&said);
        let last = said.lines().map(str::trim).rfind(|l| !l.is_empty());
        Some(match last {
            Some(l) => format!(
                "adb logcat ended ({status}): {}",
                crate::limits::one_line(l)
            ),
            None => format!("adb logcat ended ({status})"),
        })
    }

    /// Look through what arrived since the last look for the markers.
    fn scan(&mut self) -> std::io::Result<()> {
        let (start, end) = (self.text(Marker::Start), self.text(Marker::End));
        let mut f = std::fs::File::open(&self.path)?;
        loop {
            f.seek(SeekFrom::Start(self.scanned))?;
            let mut buf = Vec::new();
            (&mut f).take(CHUNK).read_to_end(&mut buf)?;
            let mut used = 0;
            while let Some(nl) = buf[used..].iter().position(|&b| b == b'\n') {
                let line = &buf[used..used + nl];
                let at = self.scanned + used as u64;
                if self.start.is_none() {
                    if contains(line, start.as_bytes()) {
                        self.start = Some(at + nl as u64 + 1);
                    }
                } else if self.end.is_none() && contains(line, end.as_bytes()) {
                    self.end = Some(at);
                }
                used += nl + 1;
            }
            if used == 0 && buf.len() as u64 == CHUNK {
                // A line longer than a chunk is no marker.
                used = buf.len();
            }
            self.scanned += used as u64;
            if (buf.len() as u64) < CHUNK {
                return Ok(());
            }
        }
    }

    /// Each line of the capture (between the markers; to the end of the stream when the end
    /// marker never came), without its line ending; lines over [`MAX_LINE`] are skipped and
    /// counted in the result.
    pub fn each_line(&self, f: &mut dyn FnMut(&str) -> Result<()>) -> Result<u64> {
        let io = |e: std::io::Error| Error::failed(format!("reading the streamed log: {e}"));
        let start = self.start.unwrap_or(0);
        let mut file = std::fs::File::open(&self.path).map_err(io)?;
        file.seek(SeekFrom::Start(start)).map_err(io)?;
        let len = self.end.map_or(u64::MAX, |e| e.saturating_sub(start));
        let mut r = std::io::BufReader::new(file.take(len));
        let mut buf = Vec::new();
        let mut too_long = 0;
        loop {
            buf.clear();
            let n = (&mut r)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut buf)
                .map_err(io)?;
            if n == 0 {
                return Ok(too_long);
            }
            if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE {
                too_long += 1;
                r.skip_until(b'\n').map_err(io)?;
                continue;
            }
            while matches!(buf.last(), Some(b'\n' | b'\r')) {
                buf.pop();
            }
            f(&String::from_utf8_lossy(&buf))?;
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}
