//! A sampling thread that runs beside the measured work: it calls a probe once at start (on the
//! caller's thread, so the first reading precedes the measured work), then every period on its
//! own thread, and once more at stop, sleeping (never spinning) in between, and measures its
//! own cost (CPU time on its thread, wakeups) so the result can report what observing cost.
//! The frequency sampler and the battery energy meter both run on it.

use crate::platform::clock::{mono_ns, thread_cpu_ns};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// What the sampling thread cost.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SamplerCost {
    pub period_ns: u64,
    /// Probe calls (including the first and last).
    pub samples: u64,
    /// CPU time of the sampling thread.
    pub cpu_ns: u64,
    pub cpu_ns_per_sample: u64,
    /// Sampler CPU time as a share of the wall time it ran (one CPU = 1.0).
    pub cpu_share: f64,
    pub wall_ns: u64,
}

/// A running sampler holding state `S`.
pub struct Periodic<S> {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<(S, u64, u64)>>,
    period_ns: u64,
    started_ns: u64,
}

/// Start calling `tick(&mut state, now_ns)` every `period_ns` on a new thread.
pub fn start<S: Send + 'static>(
    name: &str,
    period_ns: u64,
    mut state: S,
    tick: fn(&mut S, u64),
) -> Periodic<S> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let period = period_ns.max(100_000);
    let started_ns = mono_ns();
    // The first reading is taken here, on the caller's thread, so it precedes whatever the
    // caller measures next (the thread may take a while to be scheduled).
    tick(&mut state, started_ns);
    let handle = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let cpu0 = thread_cpu_ns();
            let mut samples = 1u64;
            let mut next = started_ns;
            loop {
                next += period;
                // Sleep until the next tick or until stopped; park() really sleeps (futex).
                while !flag.load(Ordering::Acquire) {
                    let now = mono_ns();
                    if now >= next {
                        break;
                    }
                    std::thread::park_timeout(Duration::from_nanos(next - now));
                }
                // Read before the tick: a stop requested while it runs gets a sample after it.
                let stopping = flag.load(Ordering::Acquire);
                let now = mono_ns();
                tick(&mut state, now);
                samples += 1;
                if stopping {
                    break;
                }
                if next + period < now {
                    // Fell behind (the machine was busy): skip the missed ticks.
                    next = now;
                }
            }
            (state, samples, thread_cpu_ns() - cpu0)
        })
        .expect("starting the sampling thread");
    Periodic {
        stop,
        handle: Some(handle),
        period_ns: period,
        started_ns,
    }
}

impl<S> Periodic<S> {
    /// Take a last sample, stop the thread and return its state and cost.
    pub fn stop(mut self) -> (S, SamplerCost) {
        self.stop.store(true, Ordering::Release);
        let handle = self.handle.take().expect("a sampler is stopped once");
        handle.thread().unpark();
        let (state, samples, cpu_ns) = match handle.join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        };
        let wall_ns = mono_ns() - self.started_ns;
        (
            state,
            SamplerCost {
                period_ns: self.period_ns,
                samples,
                cpu_ns,
                cpu_ns_per_sample: cpu_ns / samples.max(1),
                cpu_share: if wall_ns == 0 {
                    0.0
                } else {
                    (cpu_ns as f64 / wall_ns as f64 * 1e6).round() / 1e6
                },
                wall_ns,
            },
        )
    }
}

impl<S> Drop for Periodic<S> {
    /// A sampler abandoned by an error stops too.
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            self.stop.store(true, Ordering::Release);
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_at_start_periodically_and_at_stop_and_reports_its_cost() {
        type State = (Vec<u64>, std::sync::mpsc::Sender<()>);
        let (tx, rx) = std::sync::mpsc::channel();
        let p = start(
            "test-sampler",
            1_000_000,
            (Vec::new(), tx),
            |s: &mut State, now| {
                s.0.push(now);
                let _ = s.1.send(());
            },
        );
        // The first sample (taken on this thread) and two periodic ones, whenever they come.
        for _ in 0..3 {
            rx.recv().unwrap();
        }
        let ((times, _), cost) = p.stop();
        assert!(
            times.len() >= 4,
            "first, two periodic, last: {}",
            times.len()
        );
        assert_eq!(cost.samples, times.len() as u64);
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(cost.period_ns, 1_000_000);
        assert!((0.0..=1.0).contains(&cost.cpu_share), "{cost:?}");
    }
}
