//! Reports for people: the terminal summary of a run, the list of stored runs, progress while
//! work is under way, and unit formatting.

pub mod platform;
pub mod progress;
pub mod run_summary;
pub mod units;
