//! The platform around a run: clocks and sleeping, process and scheduler counters, page-cache
//! eviction, and the facts about the device (host, kernel, CPU, governor) that go into every
//! result. Anything the device does not offer is reported as unavailable, with the reason.

pub mod atomic_file;
pub mod cache;
pub mod clock;
pub mod environment;
pub mod process;
