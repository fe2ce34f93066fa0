//! Work folders left behind by a process that could not clean up (`kill -9`, power loss):
//! every temporary directory pocketbench makes holds a small file naming its owning process;
//! the next `run` and `doctor` find `pocketbench-*` folders in the temporary directory whose
//! owner is gone, say so and remove them. A folder whose owner is alive, that names no owner,
//! or whose owner cannot be proven gone, is never touched.
//!
//! Proving an owner gone. The owner file's first line is `PID START` (START: the owner's start
//! time in clock ticks since boot, as the owner read it from `/proc/self/stat`), then
//! `boot-id`, `pid-ns` and `written-boottime-ms` lines: the kernel's boot id, the owner's PID
//! namespace, and the boot clock (`CLOCK_BOOTTIME`) when the file was written. START alone
//! cannot be trusted: under qemu-user `/proc/self/stat` is emulated and reports another start
//! time than the kernel's `/proc/PID/stat` shows to everyone else, and a PID from another PID
//! namespace names an unrelated process (or none) here. So the owner is gone only when
//! - the kernel has been restarted since the file was written (another boot id), or
//! - in the same PID namespace, no process has that PID, or the process that has it started
//!   after the file was written (the kernel's start time of that PID against the recorded boot
//!   clock; for a file without that record, its modification time against the boot time from
//!   `/proc/stat`'s `btime`, with a margin for the clock's resolution),
//!
//! and in every other case (another or unknown PID namespace, a start time that cannot be
//! read) the folder is kept.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The owner file inside each work folder.
pub const OWNER_FILE: &str = ".pocketbench-owner";

/// How much later than an owner file's modification time a process must have started to be
/// proven another process, when the file has no boot-clock record: `btime` is whole seconds
/// and the wall clock may be stepped a little between the two readings.
const MTIME_MARGIN: Duration = Duration::from_secs(2);

/// A process's start time in clock ticks since boot (field 22 of `/proc/PID/stat`), as the
/// kernel reports it (for this process under qemu-user, as qemu reports it).
fn start_ticks(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`), the unit of [`start_ticks`].
fn ticks_per_second() -> Option<u64> {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(t).ok().filter(|&t| t > 0)
}

/// Milliseconds of the boot clock (`CLOCK_BOOTTIME`: since boot, suspend included), the clock
/// the kernel's process start times are measured on.
fn boot_clock_ms() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) } != 0 {
        return None;
    }
    let secs = u64::try_from(ts.tv_sec).ok()?;
    let nanos = u64::try_from(ts.tv_nsec).ok()?;
    Some(secs.saturating_mul(1000).saturating_add(nanos / 1_000_000))
}

/// The kernel's boot id (a new one at every boot).
fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_string()).filter(|id| !id.is_empty() && !id.contains(char::is_whitespace))
}

/// This process's PID namespace (`pid:[INODE]`).
fn pid_namespace() -> Option<String> {
    let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
    Some(ns.to_string_lossy().into_owned()).filter(|ns| !ns.contains(char::is_whitespace))
}

/// The wall-clock time of boot (`btime` of `/proc/stat`).
fn boot_wall_time() -> Option<SystemTime> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let secs: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(secs))
}

/// Write the owner file (this process) into `dir`.
pub fn mark_owner(dir: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let mut text = format!("{pid} {}\n", start_ticks(pid).unwrap_or(0));
    if let Some(id) = boot_id() {
        text.push_str(&format!("boot-id {id}\n"));
    }
    if let Some(ns) = pid_namespace() {
        text.push_str(&format!("pid-ns {ns}\n"));
    }
    if let Some(ms) = boot_clock_ms() {
        text.push_str(&format!("written-boottime-ms {ms}\n"));
    }
    std::fs::write(dir.join(OWNER_FILE), text)
}

/// What an owner file says.
#[derive(Debug, Default, PartialEq)]
struct Owner {
    pid: u32,
    /// The start time the owner read for itself (0: none).
    start_ticks: u64,
    boot_id: Option<String>,
    pid_ns: Option<String>,
    written_boot_ms: Option<u64>,
    /// The file's modification time.
    modified: Option<SystemTime>,
}

impl Owner {
    /// Parse an owner file's text; `None` when its first line is not `PID START`.
    fn parse(text: &str, modified: Option<SystemTime>) -> Option<Owner> {
        let mut lines = text.lines();
        let mut first = lines.next()?.split_whitespace();
        let pid = u32::try_from(first.next()?.parse::<u64>().ok()?).ok()?;
        let start_ticks = first.next()?.parse().ok()?;
        let mut owner = Owner {
            pid,
            start_ticks,
            modified,
            ..Owner::default()
        };
        for line in lines {
            match line.split_once(' ') {
                Some(("boot-id", v)) => owner.boot_id = Some(v.trim().to_string()),
                Some(("pid-ns", v)) => owner.pid_ns = Some(v.trim().to_string()),
                Some(("written-boottime-ms", v)) => owner.written_boot_ms = v.trim().parse().ok(),
                _ => {}
            }
        }
        Some(owner)
    }
}

/// What the sweeping process sees of the system, and of the process that now has the owner's
/// PID.
#[derive(Debug)]
struct Here {
    pid: u32,
    boot_id: Option<String>,
    pid_ns: Option<String>,
    /// The start time in ticks of the process with the owner's PID (`None`: no such process).
    pid_start_ticks: Option<u64>,
    ticks_per_second: Option<u64>,
    boot_wall_time: Option<SystemTime>,
}

impl Here {
    fn observe(pid: u32) -> Here {
        Here {
            pid: std::process::id(),
            boot_id: boot_id(),
            pid_ns: pid_namespace(),
            pid_start_ticks: start_ticks(pid),
            ticks_per_second: ticks_per_second(),
            boot_wall_time: boot_wall_time(),
        }
    }
}

/// Whether `owner` is proven gone, seen from `here` (see the module's documentation).
fn owner_gone(owner: &Owner, here: &Here) -> bool {
    if let (Some(then), Some(now)) = (&owner.boot_id, &here.boot_id) {
        if then != now {
            return true;
        }
    }
    if owner.pid == here.pid {
        return false;
    }
    match (&owner.pid_ns, &here.pid_ns) {
        (Some(then), Some(now)) if then == now => {}
        // Another PID namespace, or ours is unknown: its PIDs mean nothing here.
        (Some(_), _) => return false,
        // An owner file that records no namespace was written in the sweeper's.
        (None, _) => {}
    }
    let Some(ticks) = here.pid_start_ticks else {
        return true;
    };
    if owner.start_ticks != 0 && ticks == owner.start_ticks {
        return false;
    }
    let Some(hz) = here.ticks_per_second else {
        return false;
    };
    if let Some(written) = owner.written_boot_ms {
        // Ticks round down: a process whose rounded start is after the record started after it.
        let started_ms = u128::from(ticks) * 1000 / u128::from(hz);
        return started_ms > u128::from(written);
    }
    let (Some(boot), Some(modified)) = (here.boot_wall_time, owner.modified) else {
        return false;
    };
    let since_boot = Duration::from_millis(ticks.saturating_mul(1000) / hz);
    match boot.checked_add(since_boot) {
        Some(started) => started > modified + MTIME_MARGIN,
        None => false,
    }
}

/// A stale work folder: where it is and the process that owned it.
#[derive(Debug, serde::Serialize)]
pub struct Stale {
    pub path: PathBuf,
    pub pid: u64,
    /// It was removed (else removing it failed).
    pub removed: bool,
}

/// Find the `pocketbench-*` folders in `dir` whose owner is gone, and remove them.
pub fn sweep(dir: &Path) -> Vec<Stale> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with("pocketbench-") {
            continue;
        }
        let path = e.path();
        let file = path.join(OWNER_FILE);
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let modified = std::fs::metadata(&file).and_then(|m| m.modified()).ok();
        let Some(owner) = Owner::parse(&text, modified) else {
            continue;
        };
        if owner_gone(&owner, &Here::observe(owner.pid)) {
            let removed = std::fs::remove_dir_all(&path).is_ok();
            found.push(Stale {
                path,
                pid: u64::from(owner.pid),
                removed,
            });
        }
    }
    found
}

/// [`sweep`] the system's temporary directory, saying on stderr what was found.
pub fn sweep_and_say() -> Vec<Stale> {
    let found = sweep(&std::env::temp_dir());
    for s in &found {
        eprintln!(
            "pocketbench: note: {} was left by process {}, which is gone: {}",
            s.path.display(),
            s.pid,
            if s.removed {
                "removed"
            } else {
                "could not remove it"
            }
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_of_gone_owners_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("pocketbench-live");
        let gone = dir.path().join("pocketbench-gone");
        let unmarked = dir.path().join("pocketbench-unmarked");
        for d in [&mine, &gone, &unmarked] {
            std::fs::create_dir(d).unwrap();
        }
        mark_owner(&mine).unwrap();
        // pid_max is at most 2^22: this pid cannot exist.
        std::fs::write(gone.join(OWNER_FILE), "4194305 1\n").unwrap();
        let found = sweep(dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].pid, found[0].removed), (4194305, true));
        assert!(mine.exists() && unmarked.exists() && !gone.exists());
    }

    #[test]
    fn an_owner_file_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        mark_owner(dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(OWNER_FILE)).unwrap();
        let owner = Owner::parse(&text, None).unwrap();
        assert_eq!(owner.pid, std::process::id());
        assert_eq!(owner.boot_id, boot_id());
        assert_eq!(owner.pid_ns, pid_namespace());
        assert!(owner.written_boot_ms.is_some(), "{text}");
        assert_eq!(Owner::parse("12 x\n", None), None);
        assert_eq!(Owner::parse("", None), None);
    }

    /// Seen from PID 10 in namespace `pid:[1]` of boot `b`, 100 ticks a second, booted at
    /// 1 000 000 s; the owner's PID is held by a process started at tick `start`.
    fn here(start: Option<u64>) -> Here {
        Here {
            pid: 10,
            boot_id: Some("b".into()),
            pid_ns: Some("pid:[1]".into()),
            pid_start_ticks: start,
            ticks_per_second: Some(100),
            boot_wall_time: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000)),
        }
    }

    /// PID 77 of boot `b`, namespace `pid:[1]`, recording start tick 500 and written at
    /// 6 000 ms of the boot clock.
    fn owner() -> Owner {
        Owner {
            pid: 77,
            start_ticks: 500,
            boot_id: Some("b".into()),
            pid_ns: Some("pid:[1]".into()),
            written_boot_ms: Some(6_000),
            modified: None,
        }
    }

    #[test]
    fn an_owner_is_gone_only_when_that_is_proven() {
        // The same process (tick 500 both ways): alive.
        assert!(!owner_gone(&owner(), &here(Some(500))));
        // No process with that PID: gone.
        assert!(owner_gone(&owner(), &here(None)));
        // qemu-user: the owner read a start of 0 or of an emulated clock for itself, and the
        // kernel's start of the PID (tick 450 = 4 500 ms) is before the file was written
        // (6 000 ms): it may be the owner, kept.
        for recorded in [0, 123_456] {
            let o = Owner {
                start_ticks: recorded,
                ..owner()
            };
            assert!(!owner_gone(&o, &here(Some(450))));
        }
        // Tick 600 = 6 000 ms: not after the record, kept; tick 601 = 6 010 ms: after it, so
        // another process took the PID: gone.
        assert!(!owner_gone(&owner(), &here(Some(600))));
        assert!(owner_gone(&owner(), &here(Some(601))));
        // Another PID namespace: its PID names nothing here, whatever has that number here.
        for start in [None, Some(450), Some(601)] {
            let o = Owner {
                pid_ns: Some("pid:[2]".into()),
                ..owner()
            };
            assert!(!owner_gone(&o, &here(start)));
        }
        // Another boot: gone, whatever has that PID now.
        let o = Owner {
            boot_id: Some("a".into()),
            ..owner()
        };
        assert!(owner_gone(&o, &here(Some(500))));
        // The sweeper's own PID: kept.
        let o = Owner { pid: 10, ..owner() };
        assert!(!owner_gone(&o, &here(Some(9_999))));
    }

    #[test]
    fn an_owner_file_without_records_is_judged_by_its_modification_time() {
        // The format before boot ids and boot-clock records: `PID START` only.
        let at = |secs| Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs));
        let old = |modified| Owner {
            pid: 77,
            start_ticks: 500,
            modified,
            ..Owner::default()
        };
        // Written at boot + 60 s. The PID's process started at boot + 50 s (tick 5 000):
        // before the file, kept; at boot + 62 s: within the 2 s margin, kept; at 62.01 s:
        // gone.
        assert!(!owner_gone(&old(at(1_000_060)), &here(Some(5_000))));
        assert!(!owner_gone(&old(at(1_000_060)), &here(Some(6_200))));
        assert!(owner_gone(&old(at(1_000_060)), &here(Some(6_201))));
        // No process with the PID: gone; nothing to compare with: kept.
        assert!(owner_gone(&old(None), &here(None)));
        assert!(!owner_gone(&old(None), &here(Some(6_201))));
    }
}
