//! Waiting for Ctrl-C instead of dying of it: a command that runs "until interrupted" (`device
//! capture` without `--duration`) holds a [`Catch`]; while it does, the first SIGINT or
//! SIGTERM the signal thread (`cpufreq::restore`) receives is recorded here and wakes
//! [`Catch::wait`] instead of ending the process, so the command can put back what it changed
//! and write its output. A second signal, or one arriving when nothing catches, ends the
//! process as usual.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

static CATCHING: AtomicBool = AtomicBool::new(false);
static CAUGHT: Mutex<Option<libc::c_int>> = Mutex::new(None);
static WAKE: Condvar = Condvar::new();

/// Catching SIGINT and SIGTERM until dropped.
pub struct Catch(());

/// Start catching (the signal thread must be installed, as `main` does for every command).
pub fn catch() -> Catch {
    *CAUGHT.lock().unwrap_or_else(|p| p.into_inner()) = None;
    CATCHING.store(true, Ordering::Release);
    Catch(())
}

impl Catch {
    /// Wait until a caught signal arrives or `limit` (when given) passes; the signal's name
    /// when one ended the wait.
    pub fn wait(&self, limit: Option<Duration>) -> Option<&'static str> {
        let until = limit.map(|l| Instant::now() + l);
        let mut caught = CAUGHT.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(sig) = *caught {
                return Some(if sig == libc::SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                });
            }
            caught = match until {
                None => WAKE.wait(caught).unwrap_or_else(|p| p.into_inner()),
                Some(u) => {
                    let left = u.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    WAKE.wait_timeout(caught, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }
}

impl Drop for Catch {
    fn drop(&mut self) {
        CATCHING.store(false, Ordering::Release);
    }
}

/// Called by the signal thread: whether `sig` was caught (and so must not end the process).
pub fn take(sig: libc::c_int) -> bool {
    if !matches!(sig, libc::SIGINT | libc::SIGTERM) || !CATCHING.swap(false, Ordering::AcqRel) {
        return false;
    }
    *CAUGHT.lock().unwrap_or_else(|p| p.into_inner()) = Some(sig);
    WAKE.notify_all();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_interrupt_is_caught_and_a_second_is_not() {
        let c = catch();
        assert_eq!(c.wait(Some(Duration::ZERO)), None);
        assert!(!take(libc::SIGHUP));
        assert!(take(libc::SIGINT));
        assert_eq!(c.wait(None), Some("SIGINT"));
        assert!(!take(libc::SIGTERM));
        drop(c);
        assert!(!take(libc::SIGINT));
    }
}
