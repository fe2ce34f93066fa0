//! The terminating signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) and what must happen on them,
//! without a thread of its own. [`install`] sets a `sigaction` handler; everything the handler
//! needs is recorded in advance in lock-free lists ([`List`]) that it reads without locking or
//! allocating: the child processes to stop, the sysfs files to write back (with their original
//! values and journals, from `cpufreq::restore`) and the temporary paths to remove (from
//! `cleanup`). The handler runs only async-signal-safe system calls (kill, open, write,
//! getdents64, unlinkat, nanosleep), then dies of the same signal with the default action, so
//! the exit status still says what happened (130, 143, …).
//!
//! No thread, on purpose: a process that has ever had a second thread takes glibc's
//! multi-threaded malloc and locking paths for good, and a `--warm` replay runs in the process
//! that installed the handling (the cold replay child keeps the default dispositions).

mod list;

use list::HANDLING;
pub use list::{List, Slot};
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

const SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The process that installed the handler (a forked child before `exec` must not act for it).
static OWNER: AtomicI32 = AtomicI32::new(0);
/// Threads between creating a temporary path and recording it (see [`Critical`]).
static CREATING: AtomicU32 = AtomicU32::new(0);

/// A temporary path to remove: its bytes with a terminating NUL.
pub struct TempPath(Box<[u8]>);

/// A sysfs file to write back: newest first (`seq`), and its journal to remove once everything
/// is back. Paths end in NUL.
pub struct Original {
    seq: u64,
    path: Box<[u8]>,
    value: Box<[u8]>,
    journal: Box<[u8]>,
}

/// A child process (or, with `group`, its process group) to stop.
pub struct Child {
    pid: i32,
    group: bool,
}

static PATHS: List<TempPath> = List::new();
static ORIGINALS: List<Original> = List::new();
static CHILDREN: List<Child> = List::new();

fn c_bytes(path: &std::path::Path) -> Box<[u8]> {
    let mut b = path.as_os_str().as_encoded_bytes().to_vec();
    b.push(0);
    b.into_boxed_slice()
}

/// Remove `path` (a file or a whole directory) on a terminating signal while the slot lives.
pub fn remove_on_signal(path: &std::path::Path) -> Slot<TempPath> {
    PATHS.insert(TempPath(c_bytes(path)))
}

/// Write `value` back into `path` on a terminating signal while the slot lives; `journal` is
/// removed when every file was written back.
pub fn restore_on_signal(
    path: &std::path::Path,
    value: &str,
    journal: &std::path::Path,
) -> Slot<Original> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    ORIGINALS.insert(Original {
        seq: SEQ.fetch_add(1, Ordering::Relaxed),
        path: c_bytes(path),
        value: value.as_bytes().into(),
        journal: c_bytes(journal),
    })
}

type Children = std::sync::Mutex<Vec<(u32, Slot<Child>)>>;

/// Remember a child process (or, with `group`, its whole process group) to stop with SIGTERM
/// on a terminating signal, until [`unregister_child`].
pub fn register_child(pid: u32, group: bool) {
    static_children().push((
        pid,
        CHILDREN.insert(Child {
            pid: pid as i32,
            group,
        }),
    ));
}

pub fn unregister_child(pid: u32) {
    static_children().retain(|(p, _)| *p != pid);
}

fn static_children() -> std::sync::MutexGuard<'static, Vec<(u32, Slot<Child>)>> {
    static SLOTS: Children = std::sync::Mutex::new(Vec::new());
    SLOTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Creating something and recording it, with the terminating signals blocked in this thread
/// and a handler on another thread waiting until the record is made (so a signal can never
/// fall between the two and leave it behind).
pub struct Critical {
    old: libc::sigset_t,
}

impl Critical {
    pub fn enter() -> Critical {
        let set = signal_set();
        // SAFETY: zeroed sigset is a valid out-parameter; only this thread's mask changes.
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old) };
        CREATING.fetch_add(1, Ordering::SeqCst);
        Critical { old }
    }
}

impl Drop for Critical {
    fn drop(&mut self) {
        CREATING.fetch_sub(1, Ordering::SeqCst);
        // SAFETY: restores the mask saved in `enter`; a pending signal is delivered now.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}

/// Handle the terminating signals in this process from now on. Idempotent.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: getpid always succeeds.
        OWNER.store(unsafe { libc::getpid() }, Ordering::SeqCst);
        // SAFETY: a zeroed sigaction with a handler, a full mask of our signals and flags set.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_mask = signal_set();
            sa.sa_flags = libc::SA_RESTART;
            for s in SIGNALS {
                libc::sigaction(s, &sa, std::ptr::null_mut());
            }
        }
    });
}

/// Make `cmd`'s process start with the terminating signals unblocked, whatever the mask of
/// the thread that starts it (a signal mask survives `exec`; handlers are reset by it).
pub fn unblocked(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    let set = signal_set();
    // SAFETY: pthread_sigmask is async-signal-safe and `set` is a plain copied value.
    unsafe {
        cmd.pre_exec(move || {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            Ok(())
        })
    }
}

fn signal_set() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set before use.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in SIGNALS {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Whether a terminating signal is being handled. A thread that sees its child process die
/// should then wait (see [`wait_if_terminating`]) instead of reporting a failure: the process
/// is about to die of the signal.
pub fn terminating() -> bool {
    HANDLING.load(Ordering::SeqCst)
}

/// Block this thread forever if the process is terminating on a signal.
pub fn wait_if_terminating() {
    while terminating() {
        std::thread::park();
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    // SAFETY: everything below is async-signal-safe: atomics (also in `interrupt::take`), kill, getpid, nanosleep, the
    // file calls in `restore` and `remove_tree`, write(2) and re-raising.
    unsafe {
        if libc::getpid() != OWNER.load(Ordering::SeqCst) {
            // A child between fork and exec: just die of the signal.
            die(sig);
        }
        // A command waiting for Ctrl-C (`platform::interrupt`) ends its wait instead.
        if crate::platform::interrupt::take(sig) {
            return;
        }
        if HANDLING.swap(true, Ordering::SeqCst) {
            // Another thread is handling a signal and will end the process.
            loop {
                nap(100_000_000);
            }
        }
        CHILDREN.for_each(|c| {
            libc::kill(if c.group { -c.pid } else { c.pid }, libc::SIGTERM);
        });
        // A thread between creating a path and recording it: let it finish (bounded).
        for _ in 0..200 {
            if CREATING.load(Ordering::SeqCst) == 0 {
                break;
            }
            nap(10_000_000);
        }
        let (restored, failed) = restore(&ORIGINALS);
        PATHS.for_each(|p| {
            remove_tree(&p.0);
        });
        if restored + failed > 0 {
            let mut m = Message::new();
            m.push(b"pocketbench: ");
            m.push(signal_name(sig));
            m.push(b": restored ");
            m.number(restored as u64);
            m.push(b" of ");
            m.number((restored + failed) as u64);
            m.push(b" cpufreq file(s)\n");
            m.write();
        }
        die(sig);
    }
}

fn signal_name(sig: libc::c_int) -> &'static [u8] {
    match sig {
        libc::SIGINT => b"SIGINT",
        libc::SIGTERM => b"SIGTERM",
        libc::SIGHUP => b"SIGHUP",
        _ => b"SIGQUIT",
    }
}

/// Die of `sig` with its default action (exit status 128 + sig if that somehow returns).
unsafe fn die(sig: libc::c_int) -> ! {
    libc::signal(sig, libc::SIG_DFL);
    let mut one: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut one);
    libc::sigaddset(&mut one, sig);
    libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
    libc::raise(sig);
    libc::_exit(128 + sig)
}

fn nap(ns: i64) {
    let t = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: valid timespec; nanosleep is async-signal-safe.
    unsafe { libc::nanosleep(&t, std::ptr::null_mut()) };
}

/// Write back every recorded original, newest first (a min/max pair may refuse one order: a
/// failed write is tried once more at the end). Returns (restored, failed); the journals are
/// removed only when nothing failed (a later run restores from them otherwise).
fn restore(originals: &List<Original>) -> (usize, usize) {
    let mut below = u64::MAX;
    let (mut restored, mut retry) = (0, 0);
    loop {
        // The newest original older than the last one written (no sorting: no allocation).
        let mut next: Option<&Original> = None;
        originals.for_each(|o| {
            if o.seq < below && next.is_none_or(|n: &Original| o.seq > n.seq) {
                // SAFETY: items read in the handler outlive it (see `List`).
                next = Some(unsafe { &*(o as *const Original) });
            }
        });
        let Some(o) = next else { break };
        below = o.seq;
        match write_file(&o.path, &o.value) {
            Ok(()) => restored += 1,
            Err(_) => retry += 1,
        }
    }
    let mut failed = 0;
    if retry > 0 {
        nap(1_000_000);
        restored = 0;
        originals.for_each(|o| match write_file(&o.path, &o.value) {
            Ok(()) => restored += 1,
            Err(e) => {
                failed += 1;
                let mut m = Message::new();
                m.push(b"pocketbench: ");
                m.push(&o.path[..o.path.len() - 1]);
                m.push(b": could not restore `");
                m.push(&o.value);
                m.push(b"`: error ");
                m.number(e as u64);
                m.push(b"\n");
                m.write();
            }
        });
    }
    if failed == 0 {
        originals.for_each(|o| {
            // SAFETY: NUL-terminated path.
            unsafe { libc::unlink(o.journal.as_ptr().cast()) };
        });
    }
    (restored, failed)
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// open(O_TRUNC) + write + close: what `cpufreq::write_attr` does, without allocating.
/// The error is errno's value.
fn write_file(path: &[u8], value: &[u8]) -> Result<(), i32> {
    // SAFETY: NUL-terminated path; plain system calls.
    unsafe {
        let fd = libc::open(
            path.as_ptr().cast(),
            libc::O_WRONLY | libc::O_TRUNC | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return Err(errno());
        }
        let n = libc::write(fd, value.as_ptr().cast(), value.len());
        let e = errno();
        libc::close(fd);
        if n != value.len() as isize {
            return Err(e);
        }
        Ok(())
    }
}

/// Remove a file or a directory tree (NUL-terminated path); a dying child process may still
/// add files meanwhile, so it is tried again, a bounded number of times.
fn remove_tree(path: &[u8]) -> bool {
    for _ in 0..50 {
        if remove_at(libc::AT_FDCWD, path.as_ptr().cast(), 0) {
            return true;
        }
        nap(10_000_000);
    }
    false
}

/// Deepest directory nesting removed on a signal (a work folder is a few levels deep).
const MAX_DEPTH: u32 = 32;

fn remove_at(dir: libc::c_int, name: *const libc::c_char, depth: u32) -> bool {
    // SAFETY: `name` is NUL-terminated; `buf` is read only within what getdents64 returned,
    // whose records are `struct linux_dirent64` (d_reclen at 16, d_name at 19).
    unsafe {
        if libc::unlinkat(dir, name, 0) == 0 || errno() == libc::ENOENT {
            return true;
        }
        if depth >= MAX_DEPTH {
            return false;
        }
        let fd = libc::openat(
            dir,
            name,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return errno() == libc::ENOENT;
        }
        let mut buf = [0u8; 1024];
        loop {
            let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
            if n <= 0 {
                break;
            }
            let mut off = 0usize;
            while off < n as usize {
                let reclen = u16::from_ne_bytes([buf[off + 16], buf[off + 17]]) as usize;
                let entry = buf.as_ptr().add(off + 19).cast::<libc::c_char>();
                let dot = *entry == b'.' as libc::c_char;
                let skip = dot
                    && (*entry.add(1) == 0
                        || (*entry.add(1) == b'.' as libc::c_char && *entry.add(2) == 0));
                if !skip {
                    remove_at(fd, entry, depth + 1);
                }
                off += reclen;
            }
        }
        libc::close(fd);
        libc::unlinkat(dir, name, libc::AT_REMOVEDIR) == 0 || errno() == libc::ENOENT
    }
}

/// A line for stderr built on the stack.
struct Message {
    buf: [u8; 512],
    len: usize,
}

impl Message {
    fn new() -> Message {
        Message {
            buf: [0; 512],
            len: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }

    fn number(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }

    fn write(&self) {
        // SAFETY: write(2) of initialised bytes.
        unsafe { libc::write(2, self.buf.as_ptr().cast(), self.len) };
    }
}

/// The registered temporary paths under `dir` (for tests).
#[cfg(test)]
pub(crate) fn paths_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    PATHS.for_each(|p| {
        let path = std::path::Path::new(std::ffi::OsStr::from_bytes(&p.0[..p.0.len() - 1]));
        if path.starts_with(dir) {
            out.push(path.to_path_buf());
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_removed_with_system_calls_only() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("work");
        std::fs::create_dir_all(top.join("db/deeper/deepest")).unwrap();
        for i in 0..100 {
            // Enough names to take several getdents64 calls.
            std::fs::write(top.join(format!("file-with-a-longish-name-{i:03}")), b"x").unwrap();
        }
        std::fs::write(top.join("db/deeper/deepest/f"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.path(), top.join("db/link")).unwrap();
        let kept = dir.path().join("kept");
        std::fs::write(&kept, b"x").unwrap();
        assert!(remove_tree(&c_bytes(&top)));
        assert!(!top.exists());
        assert!(kept.exists(), "a symbolic link is removed, not followed");
        assert!(remove_tree(&c_bytes(&top)), "already gone is done");
        let file = dir.path().join("kept");
        assert!(remove_tree(&c_bytes(&file)));
        assert!(!file.exists());
    }

    #[test]
    fn originals_are_written_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("scaling_governor");
        let journal = dir.path().join("journal.json");
        std::fs::write(&f, "performance").unwrap();
        std::fs::write(&journal, "{}").unwrap();
        // Two records of one file: the older value must be the one left.
        let a = restore_on_signal(&f, "schedutil", &journal);
        let b = restore_on_signal(&f, "userspace", &journal);
        // Other tests may hold originals of their own: only ours are looked at.
        let (restored, failed) = restore(&ORIGINALS);
        assert!(restored >= 2 && failed == 0, "{restored} {failed}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "schedutil");
        assert!(!journal.exists());
        drop((a, b));
    }

    #[test]
    fn messages_hold_numbers() {
        let mut m = Message::new();
        m.push(b"n=");
        m.number(0);
        m.push(b",");
        m.number(18_446_744_073_709_551_615);
        assert_eq!(&m.buf[..m.len], b"n=0,18446744073709551615");
    }
}
