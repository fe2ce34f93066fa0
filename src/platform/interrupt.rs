//! Waiting for Ctrl-C instead of dying of it: a command that runs "until interrupted" (`device
//! capture` without `--duration`, `capture` passing signals on to its program) holds a
//! [`Catch`]; while it does, the first SIGINT, SIGTERM or SIGHUP the signal handler (`platform::signals`) receives is recorded here and ends
//! [`Catch::wait`] instead of the process, so the command can put back what it changed and
//! write its output. A second signal, or one arriving when nothing catches, ends the process
//! as usual.
//!
//! The handler runs in signal context, so [`take`] only touches atomics; [`Catch::wait`] looks
//! at them every few milliseconds (a capture waits for seconds to hours, so the poll costs
//! nothing that matters and no wake-up can be lost).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

static CATCHING: AtomicBool = AtomicBool::new(false);
/// The caught signal, 0 while none.
static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// How often [`Catch::wait`] looks for a caught signal.
const POLL: Duration = Duration::from_millis(10);

/// Catching SIGINT and SIGTERM until dropped.
pub struct Catch(());

/// Start catching (the signal handler must be installed, as `main` does for every command).
pub fn catch() -> Catch {
    CAUGHT.store(0, Ordering::SeqCst);
    CATCHING.store(true, Ordering::SeqCst);
    Catch(())
}

impl Catch {
    /// Wait until a caught signal arrives or `limit` (when given) passes; the signal's name
    /// when one ended the wait.
    pub fn wait(&self, limit: Option<Duration>) -> Option<&'static str> {
        let until = limit.map(|l| Instant::now() + l);
        loop {
            match CAUGHT.load(Ordering::SeqCst) {
                0 => {}
                libc::SIGINT => return Some("SIGINT"),
                libc::SIGHUP => return Some("SIGHUP"),
                _ => return Some("SIGTERM"),
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

impl Catch {
    /// The signal caught since the last call (0 when none), catching the next one again.
    pub fn take_caught(&self) -> libc::c_int {
        let sig = CAUGHT.swap(0, Ordering::SeqCst);
        if sig != 0 {
            CATCHING.store(true, Ordering::SeqCst);
        }
        sig
    }
}

impl Drop for Catch {
    fn drop(&mut self) {
        CATCHING.store(false, Ordering::SeqCst);
    }
}

/// Called by the signal handler (async-signal-safe: atomics only): whether `sig` was caught
/// (and so must not end the process).
pub fn take(sig: libc::c_int) -> bool {
    if !matches!(sig, libc::SIGINT | libc::SIGTERM | libc::SIGHUP)
        || !CATCHING.swap(false, Ordering::SeqCst)
    {
        return false;
    }
    CAUGHT.store(sig, Ordering::SeqCst);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_interrupt_is_caught_and_a_second_is_not() {
        let c = catch();
        assert_eq!(c.wait(Some(Duration::ZERO)), None);
        assert!(!take(libc::SIGQUIT));
        assert!(take(libc::SIGINT));
        assert_eq!(c.wait(None), Some("SIGINT"));
        assert!(!take(libc::SIGTERM));
        drop(c);
        assert!(!take(libc::SIGINT));
        let c = catch();
        assert!(take(libc::SIGHUP));
        assert_eq!(c.take_caught(), libc::SIGHUP);
        assert_eq!(c.take_caught(), 0);
        assert!(take(libc::SIGTERM), "caught again after being taken");
        assert_eq!(c.take_caught(), libc::SIGTERM);
    }
}
