//! Everything pocketbench says to a person: units (parsing and printing durations, sizes,
//! rates and numbers) and progress on stderr (phases, the replay's bar, a study's run counter),
//! silenced as a whole by `--quiet` or `--json`. Files for other programs are `export/`'s.

pub mod progress;
pub mod units;
