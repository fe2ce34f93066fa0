//! Counters the kernel keeps for this process and thread: context switches and peak RSS
//! (getrusage), storage I/O (/proc/self/io) and run-queue delay (/proc/thread-self/schedstat).
//! Snapshots are taken before and after a measured phase; the result stores the difference.
//! A counter the kernel does not expose is `None`, never zero.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ProcessCounters {
    pub voluntary_ctx_switches: u64,
    pub involuntary_ctx_switches: u64,
    /// Peak resident set size of the process so far, in KiB (not a delta).
    pub max_rss_kib: u64,
    pub proc_io: Option<ProcIo>,
    pub schedstat: Option<SchedStat>,
}

/// /proc/self/io fields.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ProcIo {
    pub rchar: u64,
    pub wchar: u64,
    pub syscr: u64,
    pub syscw: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub cancelled_write_bytes: u64,
}

/// /proc/thread-self/schedstat: time on CPU, time waiting on a run queue, and timeslices.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SchedStat {
    pub run_ns: u64,
    pub run_queue_wait_ns: u64,
    pub timeslices: u64,
}

impl ProcessCounters {
    pub fn snapshot() -> Self {
        // SAFETY: zeroed rusage is a valid out-parameter.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointer to a rusage.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        ProcessCounters {
            voluntary_ctx_switches: ru.ru_nvcsw as u64,
            involuntary_ctx_switches: ru.ru_nivcsw as u64,
            max_rss_kib: ru.ru_maxrss as u64,
            proc_io: std::fs::read_to_string("/proc/self/io")
                .ok()
                .and_then(|s| parse_proc_io(&s)),
            schedstat: std::fs::read_to_string("/proc/thread-self/schedstat")
                .ok()
                .and_then(|s| parse_schedstat(&s)),
        }
    }

    /// Counters accumulated between `earlier` and `self` (peak RSS is kept as is).
    pub fn since(&self, earlier: &ProcessCounters) -> ProcessCounters {
        ProcessCounters {
            voluntary_ctx_switches: self
                .voluntary_ctx_switches
                .saturating_sub(earlier.voluntary_ctx_switches),
            involuntary_ctx_switches: self
                .involuntary_ctx_switches
                .saturating_sub(earlier.involuntary_ctx_switches),
            max_rss_kib: self.max_rss_kib,
            proc_io: match (self.proc_io, earlier.proc_io) {
                (Some(a), Some(b)) => Some(ProcIo {
                    rchar: a.rchar.saturating_sub(b.rchar),
                    wchar: a.wchar.saturating_sub(b.wchar),
                    syscr: a.syscr.saturating_sub(b.syscr),
                    syscw: a.syscw.saturating_sub(b.syscw),
                    read_bytes: a.read_bytes.saturating_sub(b.read_bytes),
                    write_bytes: a.write_bytes.saturating_sub(b.write_bytes),
                    cancelled_write_bytes: a
                        .cancelled_write_bytes
                        .saturating_sub(b.cancelled_write_bytes),
                }),
                _ => None,
            },
            schedstat: match (self.schedstat, earlier.schedstat) {
                (Some(a), Some(b)) => Some(SchedStat {
                    run_ns: a.run_ns.saturating_sub(b.run_ns),
                    run_queue_wait_ns: a.run_queue_wait_ns.saturating_sub(b.run_queue_wait_ns),
                    timeslices: a.timeslices.saturating_sub(b.timeslices),
                }),
                _ => None,
            },
        }
    }
}

fn parse_proc_io(text: &str) -> Option<ProcIo> {
    let field = |name: &str| -> Option<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().parse().ok())
    };
    Some(ProcIo {
        rchar: field("rchar")?,
        wchar: field("wchar")?,
        syscr: field("syscr")?,
        syscw: field("syscw")?,
        read_bytes: field("read_bytes")?,
        write_bytes: field("write_bytes")?,
        cancelled_write_bytes: field("cancelled_write_bytes")?,
    })
}

fn parse_schedstat(text: &str) -> Option<SchedStat> {
    let mut it = text.split_whitespace().map(|v| v.parse::<u64>().ok());
    Some(SchedStat {
        run_ns: it.next()??,
        run_queue_wait_ns: it.next()??,
        timeslices: it.next()??,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kernel_formats() {
        let io = "rchar: 10\nwchar: 20\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n";
        let p = parse_proc_io(io).unwrap();
        assert_eq!((p.rchar, p.syscw, p.write_bytes), (10, 4, 8192));
        let s = parse_schedstat("123 456 7\n").unwrap();
        assert_eq!((s.run_ns, s.run_queue_wait_ns, s.timeslices), (123, 456, 7));
        assert!(parse_schedstat("garbage").is_none());
    }

    #[test]
    fn deltas_do_not_underflow() {
        let a = ProcessCounters::snapshot();
        let b = ProcessCounters::snapshot();
        let d = a.since(&b);
        assert!(d.voluntary_ctx_switches <= a.voluntary_ctx_switches);
    }
}
