//! Everything pocketbench says to a person: units (parsing and printing durations, sizes,
//! rates and numbers) and progress on stderr (phases, the replay's bar, a study's run counter),
//! silenced as a whole by `--quiet` or `--json`; and where an output file may go
//! (`target`: the check every output path passes through; `folder`: the check every output
//! folder passes through). Files for other programs are `export/`'s.

pub mod folder;
pub mod progress;
pub mod target;
pub mod units;
