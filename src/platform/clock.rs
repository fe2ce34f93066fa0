//! Clocks and sleeping, the way the measurement semantics require: wall time from
//! CLOCK_MONOTONIC, on-CPU time from CLOCK_THREAD_CPUTIME_ID, integer nanoseconds, and delays
//! that really sleep (absolute-deadline `clock_nanosleep`, timer slack lowered) instead of
//! spinning.

/// Nanoseconds on CLOCK_MONOTONIC (system-wide, so comparable across processes).
#[inline]
pub fn mono_ns() -> u64 {
    read_clock(libc::CLOCK_MONOTONIC)
}

/// Nanoseconds this thread has spent on a CPU.
#[inline]
pub fn thread_cpu_ns() -> u64 {
    read_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

#[inline]
fn read_clock(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; both clocks exist on every Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Resolution of CLOCK_MONOTONIC as the kernel reports it, in nanoseconds.
pub fn mono_resolution_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid out-pointer.
    unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleep until CLOCK_MONOTONIC reaches `deadline_ns`; returns immediately if it already has.
/// Interrupted sleeps resume toward the same absolute deadline.
pub fn sleep_until(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: valid timespec; the remaining-time pointer may be null with TIMER_ABSTIME.
        let rc = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if rc != libc::EINTR {
            return;
        }
    }
}

/// This thread's current timer slack, in nanoseconds.
pub fn timer_slack_ns() -> Option<u64> {
    // SAFETY: PR_GET_TIMERSLACK takes no pointers.
    let now = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    (now >= 0).then_some(now as u64)
}

/// Lower this thread's timer slack so sleeps end close to their deadline (the default slack of
/// 50 µs would add itself to every delay). Returns the slack in effect afterwards.
pub fn set_timer_slack(ns: u64) -> Option<u64> {
    // SAFETY: PR_SET_TIMERSLACK takes plain integers.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0);
    }
    timer_slack_ns()
}

static PROCESS_START_NS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Remember when this process started; call first thing in `main`.
pub fn mark_process_start() {
    PROCESS_START_NS.get_or_init(mono_ns);
}

/// CLOCK_MONOTONIC at [`mark_process_start`] (or at the first call, if it was never marked).
pub fn process_start_ns() -> u64 {
    *PROCESS_START_NS.get_or_init(mono_ns)
}

/// The current UTC time as RFC 3339 (`2026-11-21T23:31:44Z`), for result timestamps.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    utc(secs)
}

/// Unix seconds as RFC 3339 UTC (`2026-11-21T23:31:44Z`).
pub fn utc(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Voluntary context switches of this thread: each is a wait that blocked it.
    fn blocked_waits() -> i64 {
        // SAFETY: getrusage fills a plain struct.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
        u.ru_nvcsw
    }

    #[test]
    fn sleep_until_really_sleeps_and_never_wakes_early() {
        set_timer_slack(1);
        let waits = blocked_waits();
        let t0 = mono_ns();
        sleep_until(t0 + 20_000_000);
        let waited = mono_ns() - t0;
        assert!(waited >= 20_000_000, "woke early: {waited}");
        // It blocked in the kernel (a busy-wait would not have given up the CPU).
        assert!(blocked_waits() > waits);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_780), (2026, 11, 23));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn past_deadline_returns_without_sleeping() {
        let waits = blocked_waits();
        sleep_until(mono_ns().saturating_sub(1_000_000));
        assert_eq!(
            blocked_waits(),
            waits,
            "it blocked for a deadline already past"
        );
    }
}
