//! Waiting for Ctrl-C instead of dying of it: a command that runs "until interrupted" (`device
//! capture` without `--duration`, `capture` passing signals on to its program) holds a
//! [`Catch`]; while it does, every SIGINT, SIGTERM and SIGHUP the signal handler
//! (`platform::signals`) receives is counted here instead of ending the process, the first
//! ends [`Catch::wait`], and each is handed on once by [`Catch::take_caught`]. The command then
//! puts back what it changed and writes its output; a second Ctrl-C (an impatient user)
//! changes nothing about that, so a phone is never left with its properties changed. Each
//! caught signal writes the command's note to stderr, so the user sees why the process goes
//! on. SIGQUIT (Ctrl-\) still ends the process at once, and with no [`Catch`] held every
//! signal does.
//!
//! The handler runs in signal context, so [`take`] only touches atomics and write(2);
//! [`Catch::wait`] looks at them every few milliseconds (a capture waits for seconds to hours,
//! so the poll costs nothing that matters and no wake-up can be lost).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static CATCHING: AtomicBool = AtomicBool::new(false);
/// The first caught signal, 0 while none.
static FIRST: AtomicI32 = AtomicI32::new(0);
/// The latest caught signal not yet taken by [`Catch::take_caught`], 0 when none.
static LATEST: AtomicI32 = AtomicI32::new(0);
/// Signals caught since [`catch`].
static COUNT: AtomicU32 = AtomicU32::new(0);
/// The note written on each caught signal (a `&'static str`'s bytes).
static NOTE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static NOTE_LEN: AtomicUsize = AtomicUsize::new(0);

/// How often [`Catch::wait`] looks for a caught signal.
const POLL: Duration = Duration::from_millis(10);

/// Catching SIGINT, SIGTERM and SIGHUP until dropped.
pub struct Catch(());

/// Start catching (the signal handler must be installed, as `main` does for every command);
/// `note` is written to stderr, after `pocketbench: SIGINT: `, on every signal caught.
pub fn catch(note: &'static str) -> Catch {
    FIRST.store(0, Ordering::SeqCst);
    LATEST.store(0, Ordering::SeqCst);
    COUNT.store(0, Ordering::SeqCst);
    NOTE_LEN.store(0, Ordering::SeqCst);
    NOTE.store(note.as_ptr().cast_mut(), Ordering::SeqCst);
    NOTE_LEN.store(note.len(), Ordering::SeqCst);
    CATCHING.store(true, Ordering::SeqCst);
    Catch(())
}

fn name(sig: i32) -> Option<&'static str> {
    match sig {
        0 => None,
        libc::SIGINT => Some("SIGINT"),
        libc::SIGHUP => Some("SIGHUP"),
        _ => Some("SIGTERM"),
    }
}

impl Catch {
    /// The first signal caught, if one was.
    pub fn first(&self) -> Option<&'static str> {
        name(FIRST.load(Ordering::SeqCst))
    }

    /// The signal caught since the last call (0 when none), to pass on.
    pub fn take_caught(&self) -> libc::c_int {
        LATEST.swap(0, Ordering::SeqCst)
    }

    /// How many signals were caught so far.
    pub fn count(&self) -> u32 {
        COUNT.load(Ordering::SeqCst)
    }

    /// Wait until a signal has been caught (at once if one already was) or `limit` (when
    /// given) passes; the first signal's name when one was caught.
    pub fn wait(&self, limit: Option<Duration>) -> Option<&'static str> {
        let until = limit.map(|l| Instant::now() + l);
        loop {
            if let Some(sig) = self.first() {
                return Some(sig);
            }
            let nap = match until {
                None => POLL,
                Some(u) => {
                    let left = u.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    left.min(POLL)
                }
            };
            std::thread::sleep(nap);
        }
    }
}

impl Drop for Catch {
    fn drop(&mut self) {
        CATCHING.store(false, Ordering::SeqCst);
    }
}

/// Called by the signal handler (async-signal-safe: atomics and write(2) only): whether `sig`
/// was caught (and so must not end the process).
pub fn take(sig: libc::c_int) -> bool {
    if !matches!(sig, libc::SIGINT | libc::SIGTERM | libc::SIGHUP)
        || !CATCHING.load(Ordering::SeqCst)
    {
        return false;
    }
    let _ = FIRST.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    LATEST.store(sig, Ordering::SeqCst);
    COUNT.fetch_add(1, Ordering::SeqCst);
    let head: &[u8] = match sig {
        libc::SIGINT => b"pocketbench: SIGINT: ",
        libc::SIGHUP => b"pocketbench: SIGHUP: ",
        _ => b"pocketbench: SIGTERM: ",
    };
    let (note, len) = (NOTE.load(Ordering::SeqCst), NOTE_LEN.load(Ordering::SeqCst));
    // SAFETY: write(2) is async-signal-safe; `note` is a `&'static str` of `len` bytes (or
    // null with 0) stored by `catch`.
    unsafe {
        libc::write(2, head.as_ptr().cast(), head.len());
        if !note.is_null() && len > 0 {
            libc::write(2, note.cast_const().cast(), len);
        }
        libc::write(2, b"\n".as_ptr().cast(), 1);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_interrupt_is_caught_while_held_and_none_after() {
        let c = catch("caught in a test");
        assert_eq!(c.wait(Some(Duration::ZERO)), None);
        assert!(!take(libc::SIGQUIT));
        assert_eq!(c.count(), 0);
        assert!(take(libc::SIGTERM));
        assert!(take(libc::SIGINT));
        assert_eq!(c.wait(None), Some("SIGTERM"), "the first one is named");
        assert_eq!(c.count(), 2);
        assert_eq!(c.take_caught(), libc::SIGINT, "the latest is passed on");
        assert_eq!(c.take_caught(), 0);
        assert!(take(libc::SIGHUP));
        assert_eq!(c.take_caught(), libc::SIGHUP);
        drop(c);
        assert!(!take(libc::SIGINT));
    }
}
