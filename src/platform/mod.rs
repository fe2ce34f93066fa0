//! The platform around a run: clocks and sleeping, process and scheduler counters, page-cache
//! eviction, the facts about the device (host, kernel, CPU, governor) that go into every
//! result, and the knobs around a run: cpufreq governors and frequency, energy, background load,
//! battery and thermal readings, and `doctor`'s survey of what the device offers. Anything the device does not offer is
//! reported as unavailable, with the reason.

pub mod args;
pub mod atomic_file;
pub mod background;
pub mod cache;
pub mod cleanup;
pub mod clock;
pub mod cpufreq;
pub mod doctor;
pub mod energy;
pub mod environment;
pub mod fake_sysfs;
pub mod interrupt;
pub mod observe;
pub mod process;
pub mod sampler;
pub mod session;
pub mod signals;
pub mod stale;
pub mod sysfs;
pub mod thermal;
